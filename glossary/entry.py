"""One glossary entry and how its term is normalised for matching."""

from __future__ import annotations

from dataclasses import dataclass, field

from .fold import fold_text, normalise_term

__all__ = ["GlossaryEntry", "ParseProblem", "fold_text", "normalise_term"]


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
