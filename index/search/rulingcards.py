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
The record is read in about 5 ms in a new process (10 ms with each prefix's cards as a list
of places rather than one string of names), once per Searcher.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["CARDS_FILE", "GRAM", "RulingCards", "fold_stamp"]

CARDS_FILE = "ruling-cards.json"
"""Written beside a rulings index, in its build folder."""
GRAM = 4
"""The characters of a face a question is looked up by (shorter faces are tried one by one:
9 of the 13,605 cards with rulings)."""


@functools.cache
def fold_stamp() -> str:
    """A digest of how faces are folded: stored prefixes hold only while it is the same (the
    rulings' key holds it too, so that another one rebuilds the index)."""
    # str.casefold follows the interpreter's Unicode tables, which change only in a feature
    # release (sys.version_info[:2]); fold_text, its own table.
    from glossary.fold import _FOLD

    stamp = [GRAM, list(sys.version_info[:2]), sorted(_FOLD.items())]
    return hashlib.sha256(json.dumps(stamp).encode()).hexdigest()


def _faces(name: str) -> list[str]:
    """A card's faces as :func:`~index.search.extra.named_cards`' quick test compares them."""
    from glossary.fold import fold_text

    return [face.casefold() for face in fold_text(name).split(" // ")]


class RulingCards:
    """The cards a rulings index holds rulings of, by the first :data:`GRAM` characters of
    each of their faces."""

    def __init__(self, grams: dict[str, str], short: str) -> None:
        self.grams = grams
        """Each face's first :data:`GRAM` characters → the names of its cards, one a line
        (as one string: reading thousands of lists was most of a cold search's reading)."""
        self.short = short
        """The names of the cards with a face shorter than :data:`GRAM` characters."""

    @property
    def names(self) -> set[str]:
        """Every card's name."""
        found = {name for text in self.grams.values() for name in text.split("\n")}
        return found | set(filter(None, self.short.split("\n")))

    @classmethod
    def collect(cls, names: Iterable[str]) -> RulingCards | None:
        """The record of these card names; ``None`` if a name holds a line break."""
        grams: dict[str, dict[str, None]] = {}
        short: dict[str, None] = {}
        for name in dict.fromkeys(names):
            if "\n" in name:
                return None
            for face in _faces(name):
                if len(face) < GRAM:
                    short[name] = None
                else:
                    grams.setdefault(face[:GRAM], {})[name] = None
        return cls({g: "\n".join(found) for g, found in grams.items()}, "\n".join(short))

    def write(self, folder: Path) -> None:
        """Writes :data:`CARDS_FILE` into ``folder`` (a build folder, not yet live)."""
        data = {"fold": fold_stamp(), "grams": self.grams, "short": self.short}
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        (folder / CARDS_FILE).write_text(text, encoding="utf-8")

    @classmethod
    def read(cls, folder: Path) -> RulingCards | None:
        """The record in ``folder``, or ``None`` when it is missing, damaged, or was folded
        otherwise: the index is then searched as before."""
        try:
            data: Any = json.loads((folder / CARDS_FILE).read_text(encoding="utf-8"))
            if data["fold"] != fold_stamp():
                return None
            grams, short = data["grams"], data["short"]
        except (OSError, ValueError, TypeError, KeyError):
            return None
        if not (isinstance(grams, dict) and isinstance(short, str)):
            return None
        return cls(grams, short)

    def named(self, question: str) -> list[str]:
        """The cards ``named_cards`` finds in ``question`` among every card of the record
        (sorted), asked only of the cards whose faces' first characters are in it."""
        from glossary.fold import fold_text

        from .extra import named_cards

        low = fold_text(question).casefold()
        found: set[str] = set()
        for name in filter(None, self.short.split("\n")):
            if any(face in low for face in _faces(name)):
                found.add(name)
        for at in range(len(low) - GRAM + 1):
            names = self.grams.get(low[at : at + GRAM])
            if isinstance(names, str):
                found.update(names.split("\n"))
        return sorted(named_cards(found, question)) if found else []
