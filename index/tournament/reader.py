"""Reading a tournament document: which one it is, its date, and its sections and parts.

The PDF Wizards publishes and a plain-text copy of it read the same way: the text is cleaned
of what the page added (:mod:`.layout`), recognised by its title and "Effective …"/"Updated …"
line, and split at its headings. Numbered documents (MTR, IPG and their digital versions) are
split at ``1.``/``1.1``/``Appendix A`` headings taken in order, so that a numbered list inside
a section ("1. Find your opponent") never passes for a heading; the JAR at its headings.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import NamedTuple

from glossary.entry import ParseProblem
from glossary.fold import fold_text
from index.dates import find_document_date

from .headings import (
    SMALL_WORDS,
    is_title,
    is_title_case,
    key,
    neighbour,
    slug,
    split_headed,
)
from .layout import (
    Line,
    TocEntry,
    drop_page_numbers,
    lines_from_pages,
    lines_from_text,
    reflow,
    repair_joined_hyphens,
    split_toc,
    typical_width,
)
from .model import (
    DocSection,
    DocumentReadError,
    NotATournamentDocumentError,
    Part,
    TournamentDocument,
)

__all__ = [
    "PENALTIES",
    "Recognised",
    "read_document_bytes",
    "read_document_lines",
    "recognise",
    "slug",
]

PENALTIES = ("No Penalty", "Warning", "Game Loss", "Match Loss", "Disqualification")
"""The penalties the IPG prints beside an infraction's title, mildest first."""

# Digital versions first: their titles contain the tabletop ones' words.
_TITLES = (
    ("dipg", re.compile(r"magic\W*digital\W+infraction procedure guide\b")),
    ("dmtr", re.compile(r"(?:magic\W*digital|digital\W+magic)\W+tournament rules\b")),
    ("ipg", re.compile(r"magic\W+infraction procedure guide\b")),
    ("mtr", re.compile(r"magic(?:\W+the gathering)?\W+tournament rules\b")),
    ("jar", re.compile(r"judging at regular (?:rules enforcement level|rel)\b")),
)
_NUMBERED_KINDS = ("mtr", "ipg", "dmtr", "dipg")


class Recognised(NamedTuple):
    """What a document's first lines say it is."""

    kind: str
    title: str
    edition: str
    title_line: int
    """The index in the lines of the title line."""
    date_line: int
    """The index of the "Effective …" line (a line or two under the title)."""


def recognise(lines: list[Line], source: str) -> Recognised:
    """Which document ``lines`` begin, by its title line and the date under it.

    Raises :class:`NotATournamentDocumentError` when no title line is found, and
    :class:`DocumentReadError` when the title has no date under it.
    """
    filled = [i for i, line in enumerate(lines) if line.text][:12]
    for position, index in enumerate(filled):
        text = lines[index].text
        folded = fold_text(text).lower()
        kind = next((k for k, pattern in _TITLES if pattern.match(folded)), None)
        if kind is None or len(text) > 100:
            continue
        for later in filled[position + 1 : position + 4]:
            edition = find_document_date(lines[later].text)
            if edition is not None:
                return Recognised(kind, text, edition, index, later)
        raise DocumentReadError(
            source,
            f"found the title “{text}” but no “Effective …” or “Updated …” date under it",
            line=lines[index].number,
        )
    first = lines[filled[0]].text if filled else ""
    raise NotATournamentDocumentError(source, first)


def read_document_bytes(data: bytes, source: str) -> TournamentDocument:
    """Reads a tournament document from a PDF or a text file's bytes.

    Raises :class:`~index.tournament.model.DocumentReadError` (or one of its subclasses) for
    anything that is not one of these documents.
    """
    from .pdf import extract_pages, is_pdf

    if is_pdf(data):
        pages = extract_pages(data, source)
        _check_size(sum(len(page) for page in pages), source)
        lines = lines_from_pages(pages)
    else:
        from index.decode import DecodeError, decode_rules_bytes

        _check_size(len(data) // 2, source)  # UTF-16 doubles the bytes of the same text
        try:
            text, _ = decode_rules_bytes(data)
        except DecodeError as exc:
            raise DocumentReadError(source, str(exc)) from None
        _check_size(len(text), source)
        lines = drop_page_numbers(lines_from_text(text))
    return read_document_lines(lines, source)


MAX_CHARACTERS = 5_000_000
"""Far more text than any tournament document (the MTR is under 150,000 characters)."""


def _check_size(characters: int, source: str) -> None:
    if characters > MAX_CHARACTERS:
        raise DocumentReadError(
            source,
            f"{characters:,} characters of text, far more than a tournament document has",
        )


def read_document_lines(lines: list[Line], source: str) -> TournamentDocument:
    """Reads a document from its cleaned lines (see :mod:`.layout`)."""
    found = recognise(lines, source)
    kind = found.kind
    doc = TournamentDocument(kind, found.edition, found.title)
    doc.problems.extend(
        ParseProblem(line.number, line.text[:200], "before the document's title")
        for line in lines[: found.title_line]
        if line.text
    )
    # A line between the title and its date (a subtitle) is kept, as the text before the
    # first heading; only the title and the date lines themselves are consumed.
    after_title = lines[found.title_line + 1 : found.date_line] + lines[found.date_line + 1 :]
    body, toc, strays = split_toc(after_title)
    doc.problems.extend(
        ParseProblem(line.number, line.text[:200], "inside the table of contents")
        for line in strays
    )
    width = typical_width(body)
    repair_joined_hyphens(body, width + 8)
    if kind in _NUMBERED_KINDS:
        splitter = _NumberedSplitter(kind, body, toc, width)
        doc.sections = splitter.split()
        doc.problems.extend(splitter.problems)
    else:
        doc.sections = split_headed(body, width)
    return doc


# ---------------------------------------------------------------------------------------------
# Numbered documents

_TOP_RE = re.compile(r"^(\d{1,2})\.\s+(\S.*)$")
_SUB_RE = re.compile(r"^(\d{1,2})\.(\d{1,2})\.?\s+(\S.*)$")
_APPENDIX_RE = re.compile(r"^appendix\s+([A-Z])\s*[—–-]\s*(\S.*)$", re.IGNORECASE)
_PENALTY_RE = re.compile(
    r"^(?P<title>.*?)\s*\(?\b(?P<penalty>" + "|".join(PENALTIES) + r")\)?$", re.IGNORECASE
)
_IPG_PART_HEADINGS = {
    h.casefold(): h
    for h in ("Definition", "Examples", "Example", "Philosophy", "Additional Remedy", "Remedy")
}
_INLINE_PART_RE = re.compile(r"^(Upgrade|Downgrade):\s*(.*)$")


@dataclass
class _Heading:
    number: str
    title: str | None
    line: Line
    parent: str | None = None
    penalty: str | None = None
    body: list[Line] = field(default_factory=list)


def _toc_number(label: str) -> tuple[str | None, str]:
    """``("2.1", "Game Play Error — Missed Trigger")`` from a contents label."""
    m = _SUB_RE.match(label)
    if m:
        return f"{int(m.group(1))}.{int(m.group(2))}", m.group(3)
    m = _TOP_RE.match(label)
    if m:
        return str(int(m.group(1))), m.group(2)
    m = _APPENDIX_RE.match(label)
    if m:
        return f"Appendix {m.group(1).upper()}", m.group(2)
    return None, label


class _NumberedSplitter:
    """Finds the headings of the MTR, the IPG and their digital versions, in order."""

    def __init__(self, kind: str, body: list[Line], toc: list[TocEntry], width: int) -> None:
        self.kind = kind
        self.body = body
        self.width = width
        self.problems: list[ParseProblem] = []
        self.toc_titles: dict[str, str] = {}
        self.toc_lines: dict[str, int] = {}
        self.front: dict[str, str] = {}
        self.subheads: dict[str, dict[str, str]] = {}
        appendix: str | None = None
        for entry in toc:
            number, title = _toc_number(entry.label)
            if number is not None:
                self.toc_titles[number] = title
                self.toc_lines[number] = entry.line
                appendix = number if number.startswith("Appendix") else None
            elif appendix is not None:
                self.subheads.setdefault(appendix, {})[key(entry.label)] = entry.label
            elif not self.toc_titles:
                self.front[key(entry.label)] = entry.label
        self.has_toc = bool(self.toc_titles)

    def _sub_starts(self) -> dict[int, list[int]]:
        starts: dict[int, list[int]] = {}
        for i, line in enumerate(self.body):
            m = _SUB_RE.match(line.text)
            if m and int(m.group(2)) == 1 and is_title(m.group(3)):
                starts.setdefault(int(m.group(1)), []).append(i)
        return starts

    def _top_candidates(self) -> dict[int, list[int]]:
        found: dict[int, list[int]] = {}
        for i, line in enumerate(self.body):
            m = _TOP_RE.match(line.text)
            if m and is_title(m.group(2)):
                found.setdefault(int(m.group(1)), []).append(i)
        return found

    def _accepts_top(self, i: int, n: int, title: str) -> bool:
        # A numbered list inside a section also starts "3. …": the heading is the last "3."
        # line before the first "3.1" heading (or, with no 3.1, the one the contents name).
        starts = self.sub_starts.get(n, [])
        first_after = bisect.bisect_right(starts, i)
        if first_after < len(starts):
            tops = self.top_candidates.get(n, [])
            # Is there another "n." candidate between this line and that "n.1"?
            nxt = bisect.bisect_right(tops, i)
            return nxt >= len(tops) or tops[nxt] >= starts[first_after]
        if self.has_toc and str(n) in self.toc_titles:
            return key(title).startswith(key(self.toc_titles[str(n)]))
        return is_title_case(title)

    def _is_front_heading(self, i: int) -> bool:
        text = self.body[i].text
        if self.front:
            return key(text) in self.front
        if len(text) > 40 or not is_title(text) or not is_title_case(text):
            return False
        before = neighbour(self.body, i, -1)
        after = neighbour(self.body, i, +1)
        return (not before or before.endswith((".", ":", "!", "?"))) and after[:1].isupper()

    def _heading_at(self, i: int, state: dict[str, int]) -> _Heading | None:
        line = self.body[i]
        text = line.text
        if state["appendix"] == 0:
            m = _SUB_RE.match(text)
            if m and state["top"] and int(m.group(1)) == state["top"] and is_title(m.group(3)):
                sub = int(m.group(2))
                number = f"{state['top']}.{sub}"
                exact = sub == state["sub"] + 1
                # A gap in the numbering is allowed where the contents confirm it.
                if exact or (state["sub"] < sub <= state["sub"] + 3 and number in self.toc_titles):
                    state["sub"] = sub
                    return _Heading(number, m.group(3), line, parent=str(state["top"]))
            m = _TOP_RE.match(text)
            n = int(m.group(1)) if m else 0
            # The next number, or a later one the contents confirm (a section taken out).
            follows = n == state["top"] + 1 or (
                state["top"] < n <= state["top"] + 3 and str(n) in self.toc_titles
            )
            if m and follows and is_title(m.group(2)) and self._accepts_top(i, n, m.group(2)):
                state["top"], state["sub"] = n, 0
                return _Heading(str(n), m.group(2), line)
        m = _APPENDIX_RE.match(text)
        letter = ord(m.group(1).upper()) - ord("A") + 1 if m else 0
        number = f"Appendix {m.group(1).upper()}" if m else ""
        if m and (
            letter == state["appendix"] + 1
            or (state["appendix"] < letter <= state["appendix"] + 3 and number in self.toc_titles)
        ):
            state["appendix"] = letter
            return _Heading(number, m.group(2), line)
        if state["top"] == 0 and state["appendix"] == 0 and self._is_front_heading(i):
            title = self.front.get(key(text), text)
            return _Heading(slug(title), title, line)
        return None

    def split(self) -> list[DocSection]:
        self.sub_starts = self._sub_starts()
        self.top_candidates = self._top_candidates()
        state = {"top": 0, "sub": 0, "appendix": 0}
        headings: list[_Heading] = []
        lead: list[Line] = []
        i = 0
        while i < len(self.body):
            line = self.body[i]
            heading = self._heading_at(i, state) if line.text else None
            if heading is None:
                (headings[-1].body if headings else lead).append(line)
                i += 1
                continue
            i = self._complete_title(heading, i + 1)
            headings.append(heading)
        sections = [self._section(h) for h in headings]
        if any(line.text for line in lead):
            number = (
                "preamble" if any(s.number == "introduction" for s in sections) else "introduction"
            )
            sections.insert(0, self._section(_Heading(number, None, lead[0], body=lead)))
        self._check_against_toc(headings)
        return sections

    def _complete_title(self, heading: _Heading, i: int) -> int:
        """Joins a title wrapped onto the next line; reads an IPG penalty; returns the next line."""
        assert heading.title is not None
        wanted = self.toc_titles.get(heading.number, "")
        for _ in range(2):
            nxt = self.body[i].text if i < len(self.body) else ""
            last = heading.title.rsplit(" ", 1)[-1].lower()
            longer = bool(wanted) and key(wanted).startswith(key(f"{heading.title} {nxt}"))
            if nxt and is_title(nxt) and len(nxt) < 60 and (last in SMALL_WORDS or longer):
                heading.title = f"{heading.title} {nxt}"
                i += 1
            else:
                break
        if self.kind in ("ipg", "dipg") and "—" in heading.title:
            m = _PENALTY_RE.match(heading.title)
            nxt = self.body[i].text if i < len(self.body) else ""
            alone = _PENALTY_RE.match(nxt)
            if m and m.group("title"):
                heading.title, heading.penalty = m.group("title"), _penalty(m.group("penalty"))
            elif alone and not alone.group("title") and nxt.startswith("("):
                heading.penalty = _penalty(alone.group("penalty"))
                i += 1
        # The contents print "Definition of Penalties" where the body shouts it in capitals.
        if wanted and key(wanted) == key(heading.title) and heading.title.isupper():
            heading.title = wanted
        return i

    def _section(self, heading: _Heading) -> DocSection:
        part_heads = self.subheads.get(heading.number, {})
        parts: list[Part] = []
        current: list[Line] = []
        part_heading: str | None = None
        part_line = heading.line.number

        def flush() -> None:
            texts = [ln.text for ln in current]
            if part_heading is not None or any(texts):
                parts.append(Part(part_heading, "\n".join(reflow(texts, self.width)), part_line))

        for line in heading.body:
            name = self._part_heading(line.text, part_heads)
            if name is not None:
                flush()
                part_heading, part_line, current = name[0], line.number, []
                if name[1]:
                    current.append(Line(name[1], line.number, line.page))
                continue
            current.append(line)
        flush()
        return DocSection(
            heading.number,
            heading.title,
            parts,
            penalty=heading.penalty,
            parent=heading.parent,
            line=heading.line.number,
        )

    def _part_heading(self, text: str, part_heads: dict[str, str]) -> tuple[str, str] | None:
        """``(heading, text after it on the line)`` if ``text`` opens a part, else ``None``."""
        if not text:
            return None
        if self.kind in ("ipg", "dipg"):
            folded = text.casefold()
            if folded in _IPG_PART_HEADINGS:
                return _IPG_PART_HEADINGS[folded], ""
            if folded in {p.casefold() for p in PENALTIES}:
                return _penalty(text), ""  # the IPG's definitions of the penalties (1.1)
            m = _INLINE_PART_RE.match(text)
            if m:
                return m.group(1), m.group(2)
        if key(text) in part_heads:
            return part_heads[key(text)], ""
        return None

    def _check_against_toc(self, headings: list[_Heading]) -> None:
        found = {h.number for h in headings}
        for number, title in self.toc_titles.items():
            if number not in found:
                self.problems.append(
                    ParseProblem(
                        self.toc_lines[number],
                        f"{number} {title}"[:200],
                        "listed in the contents but no such heading was found in the text",
                    )
                )
        if self.has_toc:
            numbered = (h for h in headings if h.number[:1].isdigit() or h.number[:1] == "A")
            self.problems.extend(
                ParseProblem(h.line.number, h.line.text[:200], "a heading the contents omit")
                for h in numbered
                if h.number not in self.toc_titles
            )


def _penalty(text: str) -> str:
    return next(p for p in PENALTIES if p.casefold() == text.casefold())
