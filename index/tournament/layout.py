"""Undoing the page: page numbers, running headers, the dotted contents, hard line wraps.

The same steps run on text extracted from a PDF and on text someone else extracted, so that
two editions compare by what they say, not by how they were extracted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "Line",
    "TocEntry",
    "clean_line",
    "drop_page_numbers",
    "lines_from_pages",
    "lines_from_text",
    "reflow",
    "repair_joined_hyphens",
    "split_toc",
    "typical_width",
]


@dataclass
class Line:
    """One cleaned line of a document and where it was."""

    text: str
    number: int
    """1-based line in the file (text) or in the extracted text (PDF)."""
    page: int | None = None
    """The 1-based page of a PDF, or ``None`` for text."""


@dataclass(frozen=True)
class TocEntry:
    """A line of the dotted table of contents: its label and the page it names."""

    label: str
    page: int | None
    line: int


# Symbol-font bullets arrive in the Unicode private use area; they are bullets on the page.
_BULLETS = str.maketrans(dict.fromkeys("\uf0b7\uf0a7\uf076\uf0d8\uf0fc\uf0a8\u25aa\u25cf", "•"))
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\ufeff]")
_SPACE_RE = re.compile(r"[ \t\u00a0\u2002-\u200a\u202f\u3000]+")
_PAGE_NUMBER_RE = re.compile(r"\d{1,3}")


def clean_line(raw: str) -> str:
    """The line with control characters dropped, bullets unified and spaces collapsed."""
    line = _CONTROL_RE.sub("", raw.replace("\u00ad", "").translate(_BULLETS))
    line = _SPACE_RE.sub(" ", line).strip()
    return re.sub(r"^•(?=\S)", "• ", line)


def lines_from_text(text: str) -> list[Line]:
    """Numbered, cleaned lines of a text file (blank lines kept as empty lines)."""
    from index.decode import split_lines

    return [Line(clean_line(raw), i) for i, raw in enumerate(split_lines(text), start=1)]


def _shape(line: str) -> str:
    return re.sub(r"\d+", "#", line)


def lines_from_pages(pages: list[str]) -> list[Line]:
    """The lines of a PDF's pages with the page numbers and running headers/footers dropped.

    A line is page furniture when it is the first or last line of its page and is a lone
    number, or when the same line (digits aside) opens or closes most pages.
    """
    split = [[clean_line(raw) for raw in page.split("\n")] for page in pages]
    for lines in split:
        while lines and not lines[-1]:
            lines.pop()
        while lines and not lines[0]:
            lines.pop(0)
    edges: dict[str, int] = {}
    for lines in split:
        # The first and last lines once a page number is set aside: running lines sit there.
        inner = [ln for ln in lines if ln and not _PAGE_NUMBER_RE.fullmatch(ln)]
        for shape in {_shape(inner[0]), _shape(inner[-1])} if inner else set():
            edges[shape] = edges.get(shape, 0) + 1
    running = {
        shape
        for shape, count in edges.items()
        if count >= 3 and count * 2 >= len(pages) and shape != "#"
    }
    out: list[Line] = []
    for page_number, lines in enumerate(split, start=1):
        keep = list(lines)
        for end in (0, -1):
            # pypdf puts a page's footer before or after its body, so both ends are checked,
            # and a page may carry both a page number and a running line.
            for _ in range(2):
                if keep and (_PAGE_NUMBER_RE.fullmatch(keep[end]) or _shape(keep[end]) in running):
                    keep.pop(end)
                    while keep and not keep[end]:
                        keep.pop(end)
        for text in keep:
            out.append(Line(text, len(out) + 1, page_number))
    return out


def drop_page_numbers(lines: list[Line]) -> list[Line]:
    """Drops lone page numbers left in text (1, 2, 3, … as lines of their own, in order)."""
    out: list[Line] = []
    expected: int | None = None
    for line in lines:
        if _PAGE_NUMBER_RE.fullmatch(line.text):
            value = int(line.text)
            if (expected is None and value <= 3) or value == expected:
                expected = value + 1
                continue
        out.append(line)
    return out


_TOC_RE = re.compile(r"^(?P<label>\S.*?)\s*(?:\.\s?){4,}\s*(?P<page>\d{1,3})?\s*$")
_TOC_TITLE_RE = re.compile(r"^(?:contents|table of contents)$", re.IGNORECASE)


def split_toc(lines: list[Line]) -> tuple[list[Line], list[TocEntry], list[Line]]:
    """Takes the dotted table of contents out: ``(body lines, entries, stray lines)``.

    The contents run from the first dotted line to the last one that follows it with at most
    two other lines between; those other lines (a "CONTENTS" heading aside) are returned as
    strays, since they belong to neither the contents nor the body.
    """
    dotted = [i for i, line in enumerate(lines) if _TOC_RE.match(line.text)]
    if len(dotted) < 3:
        return lines, [], []
    first = last = dotted[0]
    for index in dotted[1:]:
        if index - last > 3:
            break
        last = index
    entries: list[TocEntry] = []
    strays: list[Line] = []
    for line in lines[first : last + 1]:
        m = _TOC_RE.match(line.text)
        if m:
            page = int(m.group("page")) if m.group("page") else None
            entries.append(TocEntry(m.group("label").strip(), page, line.number))
        elif line.text and not _TOC_TITLE_RE.match(line.text):
            strays.append(line)
    before = lines[:first]
    while before and (not before[-1].text or _TOC_TITLE_RE.match(before[-1].text)):
        before.pop()
    return before + lines[last + 1 :], entries, strays


def typical_width(lines: list[Line]) -> int:
    """The length of a full line: the 95th percentile of non-empty line lengths."""
    lengths = sorted(len(line.text) for line in lines if line.text)
    if not lengths:
        return 80
    return max(40, lengths[min(len(lengths) - 1, int(len(lengths) * 0.95))])


_HYPHENATED_RE = re.compile(r"\b[A-Za-z]+(?:-[A-Za-z]+)+\b")
_WORD_RE = re.compile(r"\b[A-Za-z]+(?:-[A-Za-z]+)*\b")


def repair_joined_hyphens(lines: list[Line], width: int) -> int:
    """Restores hyphens that another extractor dropped when it joined two lines.

    Some third-party text joins "DCI-" and "sanctioned" into one over-long line reading
    "DCIsanctioned". In a line longer than ``width``, a word that is a hyphenated word of the
    same document with one hyphen missing gets it back. Returns how many were repaired.
    """
    joined: dict[str, str] = {}
    for line in lines:
        for word in _HYPHENATED_RE.findall(line.text):
            pieces = word.split("-")
            for i in range(1, len(pieces)):
                key = "-".join([*pieces[: i - 1], pieces[i - 1] + pieces[i], *pieces[i + 1 :]])
                joined.setdefault(key.lower(), word)
    repaired = 0
    for line in lines:
        if len(line.text) <= width:
            continue

        def fix(m: re.Match[str]) -> str:
            nonlocal repaired
            target = joined.get(m.group(0).lower())
            if target is None:
                return m.group(0)
            repaired += 1
            # Keep the case of the text at hand; only the hyphens come from the other spelling.
            letters = m.group(0).replace("-", "")
            out, pos = [], 0
            for piece in target.split("-"):
                out.append(letters[pos : pos + len(piece)])
                pos += len(piece)
            return "-".join(out)

        line.text = _WORD_RE.sub(fix, line.text)
    return repaired


# A line that starts a new paragraph whatever came before: a bullet, an example letter, a
# numbered step, or a labelled paragraph.
_STARTS_PARAGRAPH_RE = re.compile(
    r"^(?:•|[A-Z]\.\s|\d{1,2}[.)]\s|[a-z]\)\s|-\S|(?:Upgrade|Downgrade|Examples?|Notes?"
    r"|Exception|Clarification):)"
)
_ENDS_SENTENCE_RE = re.compile(r"[.!?:][\"'”’)\]]*$")


def _first_word(text: str) -> str:
    return text.split(" ", 1)[0]


def is_paragraph_break(previous: str, line: str, width: int) -> bool:
    """Checks if ``line`` starts a new paragraph after ``previous`` (both cleaned).

    A line ended short of the margin when the next line's first word would have fitted on it;
    after a finished sentence that means the paragraph ended. Without a finished sentence, the
    line must end well short of the margin (a heading, a table row).
    """
    if _STARTS_PARAGRAPH_RE.match(line):
        return True
    if re.search(r"[A-Za-z]-$", previous):
        return False  # a word broken at its hyphen ("state-" / "based") goes on
    room = len(previous) + 1 + len(_first_word(line))
    if _ENDS_SENTENCE_RE.search(previous):
        # Two characters' grace: letters are not all one width, so a word counted as fitting
        # may not have fitted on the page (the 2020 JAR's "… action now." / "Otherwise, …").
        return room <= width - 2
    return room <= width * 0.7


def join_wrapped(text: str, line: str) -> str:
    """Joins a wrapped line to the paragraph so far ("state-" + "based" → "state-based")."""
    if not text:
        return line
    return text + _joint(text, line) + line


def _joint(text: str, line: str) -> str:
    """What goes between a paragraph's last line and the next: nothing after a broken word."""
    return "" if re.search(r"[A-Za-z0-9][-—/]$", text) else " "


def reflow(lines: list[str], width: int) -> list[str]:
    """The paragraphs of hard-wrapped ``lines`` (empty lines are ignored: extractors differ)."""
    paragraphs: list[str] = []
    pieces: list[str] = []  # joined once per paragraph: a long one would be copied per line
    previous = ""
    for line in lines:
        if not line:
            continue
        if pieces:
            # A list item hangs from its marker: its lines end a few characters short of the
            # margin, so the margin it is measured against moves in too.
            margin = width - 6 if _STARTS_PARAGRAPH_RE.match(pieces[0]) else width
            if is_paragraph_break(previous, line, margin):
                paragraphs.append("".join(pieces))
                pieces = []
            else:
                pieces.append(_joint(previous, line))
        pieces.append(line)
        previous = line
    if pieces:
        paragraphs.append("".join(pieces))
    return paragraphs
