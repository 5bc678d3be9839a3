"""The cards a rulings index holds rulings of, to tell a question that names none of them.

A search of everything shows the rulings of the cards a question names, and no others
(:func:`index.search.extra.names_a_card`). Opening the rulings' index (23,707 texts) and
searching it was a fifth of a cold ``judge search`` with cards stored, for questions that name
no card and so show no ruling. The build writes the names of the cards beside the index
(:data:`CARDS_FILE`), with the first :data:`GRAM` characters of each face as
:func:`~index.search.extra.named_cards` compares them (folded, case-folded); a question is then
checked in well under a millisecond, and the index opened only when it can show something.

:meth:`RulingCards.named` is :func:`~index.search.extra.named_cards` over every card of the
index, exactly: a card can pass its quick test (the face inside the question) only if the
face's first characters are inside the question, and ``named_cards`` is asked of those cards.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["CARDS_FILE", "GRAM", "RulingCards"]

CARDS_FILE = "ruling-cards.json"
"""Written beside a rulings index, in its build folder."""
GRAM = 4
"""The characters of a face a question is looked up by (shorter faces are tried one by one:
9 of the 13,605 cards with rulings)."""


def _fold_stamp() -> str:
    """A digest of how faces are folded: the stored prefixes hold only while it is the same."""
    import unicodedata

    # str.casefold follows the interpreter's Unicode tables; fold_text, its own table.
    from glossary.fold import _FOLD

    stamp = [GRAM, unicodedata.unidata_version, sorted(_FOLD.items())]
    return hashlib.sha256(json.dumps(stamp).encode()).hexdigest()


def _faces(name: str) -> list[str]:
    """A card's faces as :func:`~index.search.extra.named_cards`' quick test compares them."""
    from glossary.fold import fold_text

    return [face.casefold() for face in fold_text(name).split(" // ")]


class RulingCards:
    """The names of the cards a rulings index holds rulings of, in the order they were seen,
    with each face's first :data:`GRAM` characters."""

    def __init__(self, names: list[str], grams: dict[str, list[int]], short: list[int]) -> None:
        self.names = names
        self.grams = grams
        """Each face's first :data:`GRAM` characters → the places of its cards in ``names``."""
        self.short = short
        """The places of the cards with a face shorter than :data:`GRAM` characters."""

    @classmethod
    def collect(cls, names: Iterable[str]) -> RulingCards:
        """The record of these card names (each once)."""
        unique = list(dict.fromkeys(names))
        grams: dict[str, list[int]] = {}
        short: list[int] = []
        for place, name in enumerate(unique):
            for face in _faces(name):
                if len(face) < GRAM:
                    if not short or short[-1] != place:
                        short.append(place)
                    continue
                found = grams.setdefault(face[:GRAM], [])
                if not found or found[-1] != place:
                    found.append(place)
        return cls(unique, grams, short)

    def write(self, folder: Path) -> None:
        """Writes :data:`CARDS_FILE` into ``folder`` (a build folder, not yet live)."""
        data = {
            "fold": _fold_stamp(),
            "names": self.names,
            "grams": self.grams,
            "short": self.short,
        }
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        (folder / CARDS_FILE).write_text(text, encoding="utf-8")

    @classmethod
    def read(cls, folder: Path) -> RulingCards | None:
        """The record in ``folder``, or ``None`` when it is missing, damaged, or was folded
        otherwise (another Python's Unicode tables): the index is then searched as before."""
        try:
            data: Any = json.loads((folder / CARDS_FILE).read_text(encoding="utf-8"))
            if data["fold"] != _fold_stamp():
                return None
            names, grams, short = data["names"], data["grams"], data["short"]
        except (OSError, ValueError, TypeError, KeyError):
            return None
        if not (isinstance(names, list) and isinstance(grams, dict) and isinstance(short, list)):
            return None
        if not all(isinstance(name, str) for name in names):
            return None
        return cls(names, grams, short)

    def named(self, question: str) -> list[str]:
        """``named_cards(self.names, question)``, asked only of the cards it may find."""
        from glossary.fold import fold_text

        from .extra import named_cards

        low = fold_text(question).casefold()
        places = {p for p in self.short if any(f in low for f in _faces(self.names[p]))}
        for at in range(len(low) - GRAM + 1):
            found = self.grams.get(low[at : at + GRAM])
            if found is not None:
                places.update(found)
        if not places:
            return []
        try:
            return named_cards([self.names[p] for p in sorted(places)], question)
        except (IndexError, TypeError):
            return named_cards(self.names, question)  # a damaged record: every card asked
