"""Card names looked up many at once, and what each card is, for reading questions.

:class:`CardNames` answers the questions :mod:`index.search.cardnames` asks while it reads a
question: which of these word spans are card names (one indexed query for all of them), which
legendary cards go by this short name ("Animar" for "Animar, Soul of Elements"), and what a
card is (:class:`CardFacts`: its types, keywords, Oracle text). Nothing scans the 35,000 names.

It holds its own read-only connection to the snapshot, shared by the threads of a server (its
queries run one at a time, under its lock: each takes well under a millisecond), and remembers
the facts it has read.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Collection
from types import TracebackType
from typing import TYPE_CHECKING, NamedTuple

from .errors import CardStoreError

if TYPE_CHECKING:
    from .store import CardStore

__all__ = ["CardFacts", "CardNames"]

_MAX_KEYS = 900
"""Keys asked in one query (sqlite allows at least 999 parameters)."""
_REMEMBERED = 4096

_FILLER = frozenset({"of", "the", "s"})
_WORD_RE = re.compile(r"[a-z0-9]+")


def _word_bag(folded: str) -> tuple[str, ...] | None:
    """A folded name's words in order of the alphabet, without "of", "the" and a possessive's
    "s" ("jace, prodigy of vryn" and "jace, vryn's prodigy" alike); None for fewer than two."""
    words = sorted(w for w in _WORD_RE.findall(folded) if w not in _FILLER)
    return tuple(words) if len(words) >= 2 else None


class CardFacts(NamedTuple):
    """What a card is, as :mod:`index.search.cardsignals` reads it (every face together)."""

    name: str
    layout: str | None
    types: frozenset[str]
    """Card types, lower case ("creature", "artifact")."""
    supertypes: frozenset[str]
    subtypes: frozenset[str]
    """Subtypes, lower case ("aura", "equipment", "saga")."""
    keywords: tuple[str, ...]
    text: str
    """The Oracle text of every face, one face a paragraph."""
    mana_costs: tuple[str, ...]


class CardNames:
    """The stored snapshot's names and cards, open for reading questions."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._facts: dict[int, CardFacts] = {}
        self._misspelt: dict[str, int | None] = {}
        self._lock = threading.Lock()

    @classmethod
    def open(cls, store: CardStore | None = None) -> CardNames:
        """The snapshot of ``store`` (default: the data folder's).

        Raises :class:`~index.cards.errors.NoCardStoreError` when none is stored and
        :class:`~index.cards.errors.CardStoreError` when it cannot be read.
        """
        from .store import CardStore, _uri_path

        _info, path = (store or CardStore.from_env()).database_path()
        try:
            # immutable: a live snapshot is never written again. check_same_thread off: a
            # Searcher lent to one thread after another asks through the same connection.
            conn = sqlite3.connect(
                f"file:{_uri_path(path)}?immutable=1", uri=True, check_same_thread=False
            )
            conn.execute("SELECT 1 FROM names LIMIT 1")
        except sqlite3.DatabaseError as exc:
            raise CardStoreError(path, str(exc)) from None
        return cls(conn)

    @classmethod
    def find(cls, store: CardStore | None = None) -> CardNames | None:
        """Like :meth:`open`, but ``None`` when no snapshot is stored or it cannot be read."""
        from .errors import NoCardStoreError

        try:
            return cls.open(store)
        except (NoCardStoreError, CardStoreError, OSError):
            return None

    def __enter__(self) -> CardNames:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            self.conn.close()

    def names_among(self, keys: Collection[str]) -> dict[str, list[tuple[int, str]]]:
        """Each of ``keys`` (names as :func:`~index.cards.names.loose_name` folds them) that
        names a card or a face → (card id, the name or face name as folded), by card id."""
        out: dict[str, list[tuple[int, str]]] = {}
        wanted = sorted(set(keys))
        with self._lock:
            rows = self._names_among(wanted)
        for loose, card, folded in rows:
            found = out.setdefault(loose, [])
            if all(c != card for c, _ in found):
                found.append((card, folded))
        return out

    def _names_among(self, wanted: list[str]) -> list[tuple[str, int, str]]:
        rows: list[tuple[str, int, str]] = []
        for i in range(0, len(wanted), _MAX_KEYS):
            chunk = wanted[i : i + _MAX_KEYS]
            marks = ",".join("?" * len(chunk))
            rows += self.conn.execute(
                f"SELECT loose, card_id, folded FROM names WHERE loose IN ({marks}) "
                "ORDER BY card_id",
                chunk,
            ).fetchall()
        return rows

    def short_names(self, keys: Collection[str]) -> dict[str, list[int]]:
        """Each of ``keys`` (folded as :func:`~index.cards.names.fold_name` does) that starts
        a card's name before a comma ("animar" → "Animar, Soul of Elements") → those cards.

        One range of the folded-name index per key: ``"animar,"`` up to ``"animar-"``.
        """
        out: dict[str, list[int]] = {}
        for key in sorted(set(keys)):
            if not key:
                continue
            with self._lock:
                rows = self.conn.execute(
                    "SELECT DISTINCT card_id FROM names WHERE folded >= ? AND folded < ? "
                    "AND kind = 'card' ORDER BY card_id LIMIT 20",
                    (key + ",", key + "-"),
                ).fetchall()
            if rows:
                out[key] = [card for (card,) in rows]
        return out

    def misspelt(self, typed: str) -> int | None:
        """The card ``typed`` clearly misspells ("Liquefy" for Liquify, "Mindslavered" for
        Mindslaver, "Jace, Prodigy of Vryn" for Jace, Vryn's Prodigy: a name of the same words
        in another order is as close as can be), by the rule ``judge card`` answers one with
        (:func:`~index.cards.lookup.clear_misspelling`), among the names that begin with the
        same two letters and are near its length (a few hundred, one indexed range); ``None``
        when no card is clearly closest, and when ``typed`` begins a card's name ("Delver",
        "Nathan": short for a card, or a player, and no misspelling of Deliver or anything
        else; taking the start of one name for that card read "Nathan" as Nathan Drake,
        Treasure Hunter and "Jitte" as Jitte and Divining Top). Remembered.

        ``judge card``'s trigram index finds a misspelling of the first two letters too, but
        took 1.0-13.3 ms a word (median 3.1) where this takes 0.01-5.0 ms (median 0.12), for
        the same cards, over the 28 words of the benchmark questions looked up so (2026-12-03).
        """
        import difflib

        from .lookup import FUZZY_LEAD, FUZZY_RATIO, clear_misspelling
        from .names import fold_name

        key = fold_name(typed)
        if key in self._misspelt:
            return self._misspelt[key]
        card: int | None = None
        # Only names this close can be the card or the next best within its lead.
        close = FUZZY_RATIO - FUZZY_LEAD
        if len(key) >= 2:
            # A ratio of ``close`` or more needs a length within these bounds.
            shortest = int(len(key) * close / (2 - close))
            longest = int(len(key) * (2 - close) / close) + 1
            rows: list[tuple[int, str]] = []
            with self._lock:
                begins = self.conn.execute(
                    "SELECT 1 FROM names WHERE folded >= ? AND folded < ? LIMIT 1",
                    (key + " ", key + "-"),
                ).fetchone()
                if begins is None:
                    rows = self.conn.execute(
                        "SELECT card_id, folded FROM names WHERE folded >= ? AND folded < ? "
                        "AND length(folded) BETWEEN ? AND ?",
                        (key[:2], key[:2] + "\U0010ffff", shortest, longest),
                    ).fetchall()
            best: dict[int, float] = {}
            words = _word_bag(key)
            for found, folded in rows:
                if words is not None and _word_bag(folded) == words:
                    best[found] = 1.0  # the same words in another order: "Jace, Prodigy of Vryn"
                    continue
                m = difflib.SequenceMatcher(None, key, folded, autojunk=False)
                if m.real_quick_ratio() < close or m.quick_ratio() < close:
                    continue
                ratio = m.ratio()
                if ratio > best.get(found, -1.0):
                    best[found] = ratio
            ranked = sorted(((r, c) for c, r in best.items()), key=lambda rc: (-rc[0], rc[1]))
            card = clear_misspelling(ranked)
        if len(self._misspelt) >= _REMEMBERED:
            self._misspelt.clear()
        self._misspelt[key] = card
        return card

    def facts(self, card_id: int) -> CardFacts:
        """What the card with this id is (remembered)."""
        found = self._facts.get(card_id)
        if found is not None:
            return found
        with self._lock:
            (name, layout) = self.conn.execute(
                "SELECT name, layout FROM cards WHERE id = ?", (card_id,)
            ).fetchone()
            faces = self.conn.execute(
                "SELECT types, supertypes, subtypes, keywords, text, mana_cost FROM faces "
                "WHERE card_id = ? ORDER BY position",
                (card_id,),
            ).fetchall()
        types: set[str] = set()
        supertypes: set[str] = set()
        subtypes: set[str] = set()
        keywords: dict[str, None] = {}
        texts: list[str] = []
        costs: list[str] = []
        for row in faces:
            types.update(t.lower() for t in json.loads(row[0]))
            supertypes.update(t.lower() for t in json.loads(row[1]))
            subtypes.update(t.lower() for t in json.loads(row[2]))
            keywords.update(dict.fromkeys(json.loads(row[3])))
            if row[4]:
                texts.append(row[4])
            if row[5]:
                costs.append(row[5])
        found = CardFacts(
            name,
            layout,
            frozenset(types),
            frozenset(supertypes),
            frozenset(subtypes),
            tuple(keywords),
            "\n".join(texts),
            tuple(costs),
        )
        if len(self._facts) >= _REMEMBERED:
            self._facts.clear()
        self._facts[card_id] = found
        return found
