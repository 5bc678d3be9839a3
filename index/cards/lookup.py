"""Finding a card the way a judge types its name, in the stored snapshot.

The records are named tuples, not dataclasses: defining a frozen dataclass costs a few
milliseconds at import, which ``judge card`` cannot spare.

Tried in order, each an indexed query (no scan of the 35,000 names):

* ``exact``: the card's name in any case, with curly or straight quotes, with or without
  accents ("lim-dul's vault");
* ``face``: the name of one face of a multi-face card ("Insectile Aberration");
* ``folded``: the name without punctuation or spaces ("thrun the last troll");
* ``prefix``: the start of exactly one card's name ("platinum an");
* ``fuzzy``: a close misspelling, when one card is clearly closest ("Platnum Angel"): the
  candidates come from a trigram index and only they are compared with :mod:`difflib`.
"""

from __future__ import annotations

import json
import sqlite3
from types import TracebackType
from typing import Any, NamedTuple

from .errors import UnknownCardError
from .names import fold_name, loose_name, split_name
from .store import CardStore, SnapshotInfo

__all__ = ["Card", "CardDB", "CardMatch", "Face", "Ruling"]

FUZZY_RATIO = 0.85
"""How close a misspelling must be to be answered without asking."""
FUZZY_LEAD = 0.05
"""How much closer than the next card it must be."""
SUGGEST_RATIO = 0.6
_CANDIDATES = 60


class Face(NamedTuple):
    """One face of a card, as printed in the Oracle text."""

    name: str
    mana_cost: str | None
    type_line: str
    types: list[str]
    supertypes: list[str]
    subtypes: list[str]
    colors: list[str]
    """From the file, else the color indicator, else the mana cost (rule 202.2)."""
    text: str | None
    power: str | None
    toughness: str | None
    loyalty: str | None
    defense: str | None
    keywords: list[str]
    side: str | None = None
    """MTGJSON's ``side`` (``a``, ``b``, …) of a multi-face card, else ``None``."""

    def to_json(self) -> dict[str, Any]:
        """The face record of ``judge card --json``."""
        return {
            "name": self.name,
            "mana_cost": self.mana_cost,
            "type_line": self.type_line,
            "types": self.types,
            "supertypes": self.supertypes,
            "subtypes": self.subtypes,
            "colors": self.colors,
            "text": self.text,
            "power": self.power,
            "toughness": self.toughness,
            "loyalty": self.loyalty,
            "defense": self.defense,
            "keywords": self.keywords,
        }


class Ruling(NamedTuple):
    """A Gatherer ruling on a card."""

    date: str
    text: str


class Card(NamedTuple):
    """A card with its faces and rulings."""

    name: str
    """The card's full name ("Delver of Secrets // Insectile Aberration")."""
    layout: str | None
    faces: tuple[Face, ...]
    rulings: tuple[Ruling, ...]

    @property
    def keywords(self) -> list[str]:
        """Every face's keywords, each once, in order."""
        seen: dict[str, None] = {}
        for face in self.faces:
            for keyword in face.keywords:
                seen.setdefault(keyword, None)
        return list(seen)


class CardMatch(NamedTuple):
    """A card found for a name, and how."""

    card: Card
    how: str
    """``exact``, ``face``, ``folded``, ``prefix`` or ``fuzzy``."""
    query: str


def _ratio(a: str, b: str) -> float:
    import difflib  # only a name that nothing else matched gets here

    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


MAX_NAME = 200
"""The longest name worth spelling-matching: the longest card's name has 141 characters, and
comparing a pasted paragraph with 36,000 names would take seconds (quadratic in its length)."""


def _trigram_query(key: str) -> str | None:
    grams = {key[i : i + 3] for i in range(len(key) - 2)}
    if not grams:
        return None
    return " OR ".join('"' + g.replace('"', '""') + '"' for g in sorted(grams))


def clear_misspelling(ranked: list[tuple[float, int]]) -> int | None:
    """The card of ``ranked`` (``(ratio, card id)``, closest first) that a name clearly
    misspells: close enough (:data:`FUZZY_RATIO`) and closer than the next by
    :data:`FUZZY_LEAD`; else ``None``."""
    if not ranked:
        return None
    top, card = ranked[0]
    second = ranked[1][0] if len(ranked) > 1 else 0.0
    return card if top >= FUZZY_RATIO and top - second >= FUZZY_LEAD else None


class CardDB:
    """The stored snapshot, open for lookups (use it as a context manager)."""

    def __init__(self, info: SnapshotInfo, conn: sqlite3.Connection) -> None:
        self.info = info
        self.conn = conn

    @classmethod
    def open(cls, store: CardStore | None = None, *, check_same_thread: bool = True) -> CardDB:
        """The snapshot of ``store`` (default: the data folder's); raises if none is stored."""
        info, conn = (store or CardStore.from_env()).connect(check_same_thread=check_same_thread)
        return cls(info, conn)

    def __enter__(self) -> CardDB:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    def card(self, card_id: int) -> Card:
        """The card with this row id."""
        name, layout = self.conn.execute(
            "SELECT name, layout FROM cards WHERE id = ?", (card_id,)
        ).fetchone()
        faces = tuple(
            Face(
                name=row[0],
                mana_cost=row[1],
                type_line=row[2],
                types=json.loads(row[3]),
                supertypes=json.loads(row[4]),
                subtypes=json.loads(row[5]),
                colors=json.loads(row[6]),
                text=row[7],
                power=row[8],
                toughness=row[9],
                loyalty=row[10],
                defense=row[11],
                keywords=json.loads(row[12]),
                side=row[13],
            )
            for row in self.conn.execute(
                "SELECT name, mana_cost, type_line, types, supertypes, subtypes, colors, text, "
                "power, toughness, loyalty, defense, keywords, side FROM faces "
                "WHERE card_id = ? ORDER BY position",
                (card_id,),
            )
        )
        rulings = tuple(
            Ruling(date, text)
            for date, text in self.conn.execute(
                "SELECT date, text FROM rulings WHERE card_id = ? ORDER BY date, id", (card_id,)
            )
        )
        return Card(name, layout, faces, rulings)

    def _names(self, ids: list[int]) -> list[str]:
        return [
            self.conn.execute("SELECT name FROM cards WHERE id = ?", (i,)).fetchone()[0]
            for i in ids
        ]

    def _matches(self, ids: list[int], how: str, query: str) -> list[CardMatch]:
        ordered = sorted(set(ids), key=ids.index)
        return [CardMatch(self.card(i), how, query) for i in ordered]

    def find(self, name: str) -> list[CardMatch]:
        """The cards ``name`` names exactly, by a face, or without punctuation; else ``[]``.

        Usually one card; several when they share the name that was typed (the back face of
        two meld cards, say).
        """
        key = fold_name(name)
        if not key:
            return []
        rows = self.conn.execute(
            "SELECT card_id, kind FROM names WHERE folded = ? ORDER BY card_id", (key,)
        ).fetchall()
        whole = [card for card, kind in rows if kind == "card"]
        if whole:
            return self._matches(whole, "exact", name)
        if rows:
            return self._matches([card for card, _ in rows], "face", name)
        loose = loose_name(name)
        if loose:
            rows = self.conn.execute(
                "SELECT card_id FROM names WHERE loose = ? ORDER BY card_id", (loose,)
            ).fetchall()
            if rows:
                return self._matches([card for (card,) in rows], "folded", name)
        return []

    def find_prefix(self, name: str, limit: int = 6) -> list[int]:
        """The ids of up to ``limit`` cards whose name (or a face's) starts with ``name``."""
        loose = loose_name(name)
        if not loose:
            return []
        upper = loose[:-1] + chr(ord(loose[-1]) + 1)
        rows = self.conn.execute(
            "SELECT card_id, min(length(loose)) AS size FROM names "
            "WHERE loose >= ? AND loose < ? GROUP BY card_id ORDER BY size, card_id LIMIT ?",
            (loose, upper, limit),
        ).fetchall()
        return [card for card, _ in rows]

    def complete(self, typed: str, limit: int = 100) -> list[str]:
        """The names (of cards, and of faces) that start with ``typed``, for shell completion.

        Matched in any case and without accents, through the index on the folded names; when
        none matches so, without punctuation or spaces too ("thrun the" → "Thrun, the Last
        Troll"). Sorted; when more than ``limit`` match, the first ``limit - 1`` and the last,
        so that what they all start with is still what every match starts with (a shell
        completes that much).
        """
        found: set[str] = set()
        for column, key in (("folded", fold_name(typed)), ("loose", loose_name(typed))):
            if key:
                found = self._starting_with(column, key)
            if found:
                break
        names = sorted(found)
        return names if len(names) <= limit else [*names[: limit - 1], names[-1]]

    def _starting_with(self, column: str, key: str) -> set[str]:
        upper = key[:-1] + chr(ord(key[-1]) + 1)
        rows = self.conn.execute(
            "SELECT names.kind, names.folded, cards.name, faces.name FROM names "
            "JOIN cards ON cards.id = names.card_id "
            "LEFT JOIN faces ON faces.card_id = names.card_id AND faces.position = names.face "
            f"WHERE names.{column} >= ? AND names.{column} < ?",
            (key, upper),
        )
        found: set[str] = set()
        for kind, folded, card_name, face_name in rows:
            if kind == "card":
                found.add(card_name)
            elif face_name is not None:
                found.add(face_name)
            else:  # a face this copy of the data lacks, named only in the card's name
                found.update(p for p in split_name(card_name) if fold_name(p) == folded)
        return found

    def closest(self, name: str, count: int = 5) -> list[tuple[float, int]]:
        """``(ratio, card id)`` of the cards spelt closest to ``name``, closest first."""
        key = fold_name(name)
        query = _trigram_query(key) if len(key) <= MAX_NAME else None
        if query is None:
            return []
        if self._has_trigrams():
            rows = self.conn.execute(
                "SELECT names.card_id, names.folded FROM name_grams "
                "JOIN names ON names.id = name_grams.rowid "
                "WHERE name_grams MATCH ? ORDER BY rank LIMIT ?",
                (query, _CANDIDATES),
            ).fetchall()
        else:
            import difflib  # a snapshot built without trigrams: compare every name

            everything = self.conn.execute("SELECT card_id, folded FROM names").fetchall()
            near = set(difflib.get_close_matches(key, [f for _, f in everything], _CANDIDATES, 0.5))
            rows = [(card, folded) for card, folded in everything if folded in near]
        best: dict[int, float] = {}
        for card, folded in rows:
            ratio = _ratio(key, folded)
            if ratio > best.get(card, -1.0):
                best[card] = ratio
        ranked = sorted(((r, c) for c, r in best.items()), key=lambda rc: (-rc[0], rc[1]))
        return ranked[:count]

    def _has_trigrams(self) -> bool:
        row = self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'name_grams'"
        ).fetchone()
        return row is not None

    def suggest(self, name: str, count: int = 5) -> list[str]:
        """The names of the cards spelt closest to ``name``."""
        return self._names([c for r, c in self.closest(name, count) if r >= SUGGEST_RATIO])

    def get(self, name: str) -> list[CardMatch]:
        """The card(s) for ``name``, down to a unique prefix or a clear misspelling.

        Raises :class:`UnknownCardError` with the closest names (or, for the start of several
        names, those names) when nothing answers.
        """
        found = self.find(name)
        if found:
            return found
        prefixed = self.find_prefix(name)
        if len(prefixed) == 1:
            return self._matches(prefixed, "prefix", name)
        if len(prefixed) > 1 and len(loose_name(name)) >= 3:
            raise UnknownCardError(name, self._names(prefixed), ambiguous=True)
        ranked = self.closest(name)
        card = clear_misspelling(ranked)
        if card is not None:
            return self._matches([card], "fuzzy", name)
        raise UnknownCardError(name, self._names([c for r, c in ranked if r >= SUGGEST_RATIO]))
