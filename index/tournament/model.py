"""The tournament documents' model: sections with their parts, and the errors met reading them.

Lookups do not import it: they answer from the stored records (see :mod:`.store`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from glossary.entry import ParseProblem

from .kinds import KINDS, LABELS

__all__ = [
    "KINDS",
    "LABELS",
    "DamagedPdfError",
    "DocSection",
    "DocumentReadError",
    "EncryptedPdfError",
    "ImageOnlyPdfError",
    "NotATournamentDocumentError",
    "Part",
    "TournamentDocument",
]


class DocumentReadError(ValueError):
    """Raised when a file is not a tournament document that can be read; nothing is stored."""

    file: str | None = None
    """The file it was read from, as the user named it (set by the caller that knows it)."""
    pdf: bool = False
    """True when the file is a PDF (a CR saved as PDF lands here too)."""

    def __init__(self, source: str, reason: str, *, line: int | None = None) -> None:
        self.source = source
        self.reason = reason
        self.line = line
        where = f" (line {line})" if line else ""
        super().__init__(f"{reason}{where}")


class NotATournamentDocumentError(DocumentReadError):
    """Raised for text or a PDF that is none of the MTR, IPG, JAR or their digital versions."""

    def __init__(self, source: str, first_line: str) -> None:
        self.first_line = first_line
        shown = first_line[:80] or "no text"
        super().__init__(
            source,
            "it is not the Tournament Rules, the Infraction Procedure Guide or Judging at "
            f"Regular REL: it begins “{shown}”",
        )


class EncryptedPdfError(DocumentReadError):
    """Raised for a PDF whose text is encrypted (a password is needed to read it)."""


class DamagedPdfError(DocumentReadError):
    """Raised for a PDF that is truncated (no end-of-file marker) or whose structure is broken."""


class ImageOnlyPdfError(DocumentReadError):
    """Raised for a PDF with pages but no text (a scan): there is nothing to read."""

    def __init__(self, source: str, pages: int) -> None:
        self.pages = pages
        super().__init__(
            source, f"the PDF has {pages} page(s) but no text (a scanned or image-only PDF)"
        )


@dataclass
class Part:
    """One headed part of a section: the IPG's Definition, Examples, Philosophy, …"""

    heading: str | None
    """The part's heading as printed (``Definition``, ``Upgrade``), or ``None`` for the text
    before a section's first heading."""
    text: str
    """The part's paragraphs, separated by newlines; hard line wraps undone."""
    line: int = 0
    """The 1-based line of the heading (or first text) in the extracted text."""

    def to_json(self) -> dict[str, Any]:
        """The ``parts`` record of ``judge ipg --json``."""
        return {"heading": self.heading, "text": self.text}


@dataclass
class DocSection:
    """A numbered section (``2.5``), a top-level section (``2``), an appendix or a headed part."""

    number: str
    """``2.5``, ``4``, ``Appendix B``, or the title's slug for unnumbered headings
    (``introduction``, ``common-issues``)."""
    title: str | None
    """The heading as printed, without the number (or the penalty); ``None`` for untitled text."""
    parts: list[Part] = field(default_factory=list)
    penalty: str | None = None
    """The IPG's penalty printed beside the infraction's title: ``Warning``, ``No Penalty``, …"""
    parent: str | None = None
    """The number of the section this one belongs to (``2`` for ``2.5``)."""
    line: int = 0

    @property
    def text(self) -> str:
        """The whole body, part headings included, one paragraph a line."""
        lines: list[str] = []
        for part in self.parts:
            if part.heading is not None:
                lines.append(part.heading)
            if part.text:
                lines.append(part.text)
        return "\n".join(lines)

    @property
    def label(self) -> str:
        """How a reader names it: ``2.5 Conceding or Intentionally Drawing …``."""
        if self.title is None:
            return self.number
        if self.number.startswith("Appendix") or self.number[:1].isdigit():
            return f"{self.number} {self.title}"
        return self.title


@dataclass
class TournamentDocument:
    """One edition of a tournament document, split into sections in document order."""

    kind: str
    """``mtr``, ``ipg``, ``jar``, ``dmtr`` or ``dipg`` (see :data:`KINDS`)."""
    edition: str
    """The effective (or "updated") date as ISO ``YYYY-MM-DD``."""
    title: str
    """The title line as printed."""
    sections: list[DocSection] = field(default_factory=list)
    problems: list[ParseProblem] = field(default_factory=list)
    """Lines the reader could not place; the published documents have none."""

    def find_section(self, number: str) -> DocSection | None:
        """The section with this exact number, or ``None``."""
        return next((s for s in self.sections if s.number == number), None)
