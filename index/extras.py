"""The indexes an edition's search reads beside its own: the tournament documents' and the
card rulings' (see :mod:`index.search.extra`), found, built when missing or stale, or left out
with a warning when a search of everything can do without them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .editionsearch import EditionSearch
    from .store import EditionStore

__all__ = ["extra_indexes"]


def extra_indexes(
    ed: EditionSearch, sources: tuple[str, ...], documents: tuple[str, ...] | None, *, every: bool
) -> list[tuple[str, Path, float]]:
    """The tournament documents' and the rulings' indexes a scope reads (``every``: all
    there are), with their weights.

    In a search of everything they are extras, as notes are: missing, they are left out,
    and a broken one is left out with a warning. A scope of its own needs its index.
    """
    from .search.extra import DOCUMENTS_WEIGHT, RULINGS_WEIGHT

    alone = len(sources) == 1
    found: list[tuple[str, Path, float]] = []

    def documents_folder(need: bool) -> Path | None:
        return _documents_folder(ed, documents, need)

    def rulings_folder(need: bool) -> Path | None:
        return _rulings_folder(ed, need)

    openers: list[tuple[str, float, Callable[[bool], Path | None]]] = [
        ("documents", DOCUMENTS_WEIGHT, documents_folder),
        ("rulings", RULINGS_WEIGHT, rulings_folder),
    ]
    for source, weight, opener in openers:
        wanted = source in sources
        if not wanted and not every:
            continue
        try:
            folder = opener(alone and wanted)
        except Exception as exc:
            if (alone and wanted) or not _is_library_error(exc):
                raise
            if ed.notice is not None:
                ed.notice(f"Warning: {source} not searched ({exc}).")
            continue
        if folder is not None:
            found.append((source, folder, weight))
    return found


def _documents_folder(
    ed: EditionSearch, documents: tuple[str, ...] | None, required: bool
) -> Path | None:
    """The tournament documents' index that goes with this edition, built if needed."""
    from .search.tournament import documents_index, select_documents
    from .tournament.store import DocumentStore, NoDocumentError

    store = DocumentStore(ed.store.root)
    # Only the first stored edition after this one matters to the choice (and only when
    # documents are stored): listing every edition's pointer was ~5 ms a search with 28 stored.
    later = _first_later(ed.store, ed.date) if ed.date and store.documents_dir.is_dir() else []
    chosen = select_documents(store, ed.date, later)
    if required and not any(documents is None or c.kind in documents for c in chosen):
        raise NoDocumentError(documents[0] if documents else "documents", None, [])
    if not chosen:
        return None
    try:
        return documents_index(store, ed.store.root / "cache", chosen)
    except OSError:
        # A data folder that cannot be written: the temporary folder, as for the sample.
        import tempfile

        return documents_index(store, Path(tempfile.gettempdir()) / "judge-cache", chosen)


def _first_later(store: EditionStore, date: str) -> list[str]:
    """``[the first edition stored after date]`` (or ``[]``): what :func:`select_documents`
    reads of ``store.dates()``, found by listing the folder and checking names in order."""
    try:
        names = sorted(
            p.name for p in store.editions_dir.iterdir() if p.name > date and p.name[:1] != "."
        )
    except OSError:
        return []
    for name in names:
        if store.has(name):
            return [name]
    return []


def _rulings_folder(ed: EditionSearch, required: bool) -> Path | None:
    """The folder of the stored card snapshot, whose ``search/`` indexes its rulings."""
    from .atomic import Slot
    from .cards.store import CardStore
    from .search.rulings import rulings_index

    store = CardStore(ed.store.root)
    if not required and Slot(store.folder).current() is None:
        return None
    return rulings_index(store, ed.notice)


def _is_library_error(exc: BaseException) -> bool:
    """Checks if an error is one the library expects of a store (damaged, unwritable)."""
    from .cards.errors import CardStoreError
    from .search.build import NoSearchIndexError
    from .tournament.store import DocumentStoreError

    return isinstance(exc, (OSError, CardStoreError, DocumentStoreError, NoSearchIndexError))
