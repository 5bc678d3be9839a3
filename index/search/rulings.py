"""The card rulings in search: one index of the stored card snapshot's rulings.

Each ruling is a document (kind ``ruling``): the names of its cards as the title, its text as
the body, its cards and date in ``details``. A text published on several cards (the cycling
ruling is on 124) is one document naming them all: 46,241 rulings are 23,707 texts, and a
question about cycling finds the ruling once, not 124 times. Its ``id`` is
``ruling:<card>#<n>``: the first of its cards by name, and its place among that card's rulings
by date.

The index lives in the snapshot's own folder (``cards/b-<id>/search/``, a slot as an edition's
index is), so a new snapshot comes with its own and the old one goes with the old snapshot.
It is built by the import, inside the new snapshot before it goes live
(:func:`index_snapshot`), and whenever a search finds it missing or stale (:func:`rulings_index`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .extra import extra_key

if TYPE_CHECKING:
    from ..cards.store import CardStore, SnapshotInfo
    from .build import Progress
    from .rulingcards import RulingCards

__all__ = ["build_rulings_index", "index_snapshot", "ruling_documents", "rulings_index"]

Notice = Callable[[str], None]


def ruling_documents(conn: sqlite3.Connection) -> Iterator[dict[str, Any]]:
    """The whoosh documents of a card database's rulings, one per distinct text."""
    rows = conn.execute(
        "SELECT c.name, r.date, r.text FROM rulings r JOIN cards c ON c.id = r.card_id "
        "ORDER BY c.name, r.date, r.id"
    )
    texts: dict[str, list[Any]] = {}
    place: dict[str, int] = {}
    for name, date, text in rows:
        place[name] = place.get(name, 0) + 1
        found = texts.get(text)
        if found is None:
            texts[text] = [f"ruling:{name}#{place[name]}", [name], date]
        else:
            if name not in found[1]:
                found[1].append(name)
            found[2] = min(found[2], date)
    for order, (text, (ruling_id, cards, date)) in enumerate(texts.items(), 1):
        yield {
            "id": ruling_id,
            "kind": "ruling",
            "order": order,
            "title": "\n".join(cards),
            "body": text,
            "details": {"cards": cards, "date": date},
        }


def _key(info: SnapshotInfo) -> str:
    from .rulingcards import fold_stamp

    # The fold stamp: the cards' names beside the index are folded as this process folds.
    return extra_key(f"rulings\n{info.sha256}\n{info.date}\n{info.file}\n{fold_stamp()}")


def _build(store: CardStore, progress: Progress | None) -> tuple[Path, SnapshotInfo]:
    from ..atomic import Slot
    from ..cards.errors import NoCardStoreError

    build = Slot(store.folder).current()
    if build is None:
        raise NoCardStoreError(store.root)
    return build, store.get_info()


def build_rulings_index(store: CardStore, progress: Progress | None = None) -> Path:
    """Writes the index of the stored snapshot's rulings into its folder; returns the folder.

    Raises :class:`~index.cards.errors.NoCardStoreError`,
    :class:`~index.cards.errors.CardStoreError` and :class:`OSError`.
    """
    build, info = _build(store, progress)
    _info, conn = store.connect()
    try:
        _index(build, conn, info, progress)
    finally:
        conn.close()
    return build


def index_snapshot(build: Path, db_path: Path, info: SnapshotInfo) -> None:
    """Writes the index of the rulings of a snapshot's database into its build folder (one not
    yet live: :meth:`~index.cards.store.CardStore.import_cards` calls it before it is)."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        _index(build, conn, info, None)
    finally:
        conn.close()


def _index(
    build: Path, conn: sqlite3.Connection, info: SnapshotInfo, progress: Progress | None
) -> None:
    """The rulings' index, and beside it the names of their cards
    (:mod:`index.search.rulingcards`), read from the same documents."""
    from .extra import build_extra_index
    from .rulingcards import RulingCards

    names: dict[str, None] = {}

    def docs() -> Iterator[dict[str, Any]]:
        for doc in ruling_documents(conn):
            names.update(dict.fromkeys(doc["details"]["cards"]))
            yield doc

    build_extra_index(
        build,
        docs(),
        key=_key(info),
        title=f"rulings {info.date}",
        progress=progress,
        beside=lambda folder: _write_cards(folder, RulingCards.collect(names)),
    )


def _write_cards(folder: Path, cards: RulingCards | None) -> None:
    if cards is not None:  # else (a name with a line break) every search reads the index
        cards.write(folder)


def rulings_index(store: CardStore, notice: Notice | None = None) -> Path:
    """The folder whose ``search/`` index holds the stored snapshot's rulings, built (or
    rebuilt, when stale) first; raises as :func:`build_rulings_index` does."""
    from .extra import extra_is_current

    build, info = _build(store, None)
    if extra_is_current(build, _key(info)):
        return build
    if notice is not None:
        notice(
            f"Indexing the rulings of the card data of {info.date} for search "
            "(once per card data, about a minute)…"
        )
    return build_rulings_index(store)
