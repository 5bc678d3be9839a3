"""One glossary entry and how its term is normalised for matching."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["GlossaryEntry", "ParseProblem", "fold_text", "normalise_term"]

# Curly quotes, primes and dashes folded to their plain forms for matching (never for display).
_FOLD = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u2032": "'",
        "`": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2033": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
    }
)
_QUALIFIER_RE = re.compile(r"\s*\((?:obsolete|informal)\)\s*$", re.IGNORECASE)
_SPACE_RE = re.compile(r"\s+")


def fold_text(text: str) -> str:
    """Folds curly quotes, apostrophes and dashes to ASCII, keeping everything else."""
    return text if text.isascii() else text.translate(_FOLD)


def normalise_term(term: str) -> str:
    """The key a term is matched by: folded, case-free, without "(Obsolete)" or "(Informal)"."""
    folded = _QUALIFIER_RE.sub("", fold_text(term))
    return _SPACE_RE.sub(" ", folded).strip().casefold()


@dataclass
class GlossaryEntry:
    """A term and its definition, as the glossary prints them."""

    term: str
    """The term as printed, with any "(Obsolete)" qualifier."""
    definition: str
    """The definition; paragraphs and numbered senses separated by newlines."""
    line: int = 0
    """The 1-based line of the term in the source file."""
    see: list[str] = field(default_factory=list)
    """Rule numbers the definition refers to, in order, without repeats."""

    @property
    def key(self) -> str:
        """The normalised term (see :func:`normalise_term`)."""
        return normalise_term(self.term)

    @property
    def is_obsolete(self) -> bool:
        """Checks if the glossary marks this term "(Obsolete)"."""
        return self.term.rstrip().lower().endswith("(obsolete)")

    @property
    def ref_id(self) -> str:
        """The id other records use for this entry: ``glossary:Legend Rule``."""
        return f"glossary:{self.term}"


@dataclass(frozen=True)
class ParseProblem:
    """A line of a rules document the reader could not place."""

    line: int
    """The 1-based line number in the source file."""
    text: str
    """The line itself (shortened to 200 characters)."""
    reason: str
    """Why it was not placed."""
