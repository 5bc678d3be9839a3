"""Headings by their shape, and the JAR, whose headings are known by their shape alone.

A heading is short, capitalised and holds no sentence; a Title Case one opens a section of
the JAR, a sentence-like one ("A player forgets a triggered ability …") a part of it.
"""

from __future__ import annotations

import re

from glossary.fold import fold_text

from .layout import Line, reflow
from .model import DocSection, Part

__all__ = [
    "SENTENCE_INSIDE_RE",
    "SMALL_WORDS",
    "is_title",
    "is_title_case",
    "key",
    "neighbour",
    "slug",
    "split_headed",
]

SENTENCE_INSIDE_RE = re.compile(r"[.!?][\"'”’)]*\s+[A-Z]")
# Words a Title Case heading leaves in lower case.
SMALL_WORDS = frozenset(
    {"a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "the"}
    | {"this", "to", "with", "vs"}
)


def slug(text: str) -> str:
    """A lower-case, hyphenated id: "Common Issues" → ``common-issues``."""
    return re.sub(r"[^a-z0-9]+", "-", fold_text(text).lower()).strip("-") or "section"


def neighbour(lines: list[Line], i: int, step: int) -> str:
    """The nearest non-empty line before (``step=-1``) or after (``+1``) line ``i``, or ``""``.

    Blank lines come one or two at a time, so this stays close to ``i``; a page of blank
    lines is crossed once per heading candidate, never per line.
    """
    j = i + step
    while 0 <= j < len(lines):
        if lines[j].text:
            return lines[j].text
        j += step
    return ""


def is_title(text: str) -> bool:
    """Checks if text reads like a heading's title: short, capitalised, not a sentence."""
    return (
        len(text) <= 100
        and text[:1].isupper()
        and not text.endswith((".", ",", ";", ":"))
        and not SENTENCE_INSIDE_RE.search(text)
    )


def is_title_case(text: str) -> bool:
    """Checks if every word but the small ones is capitalised: "Framework of this Document"."""
    words = re.findall(r"[A-Za-z][\w’'/-]*", text)
    return bool(words) and all(
        w[0].isupper() or w.lower() in SMALL_WORDS for w in words if len(w) > 1
    )


def key(text: str) -> str:
    """A heading folded for matching: "1.1. DEFINITION OF PENALTIES" ~ "1.1 Definition of …"."""
    return re.sub(r"[\s.]+", " ", fold_text(text).casefold()).strip()


_ENDS_SENTENCE_RE = re.compile(r"[.!?:;,][\"'”’)]*$")


def _title_run(body: list[Line], i: int, width: int) -> int:
    """The number of lines (1 or 2) of a heading starting at ``i``, or 0 if none starts there.

    A heading follows a finished sentence (or another heading), holds no sentence, does not
    fill its last line, and is followed by a line that starts with a capital or a bullet.
    """
    for size in (1, 2):
        run = body[i : i + size]
        if len(run) < size or not all(ln.text for ln in run):
            return 0
        text = " ".join(ln.text for ln in run)
        if (
            not run[0].text[:1].isupper()
            or _ENDS_SENTENCE_RE.search(text)
            or SENTENCE_INSIDE_RE.search(text)
            or run[0].text.startswith("•")
        ):
            return 0
        following = neighbour(body, i + size - 1, +1)
        last = run[-1].text
        fits = len(last) + 1 + len(following.split(" ", 1)[0]) <= width
        if following[:1].isupper() or following.startswith("•"):
            return size if fits else 0
    return 0


def split_headed(body: list[Line], width: int) -> list[DocSection]:
    """Sections at Title Case headings; the sentence-like headings under them become parts."""
    sections: list[DocSection] = []
    blocks: list[tuple[str | None, bool, list[Line], Line]] = []
    current: list[Line] = []
    heading: str | None = None
    is_section = True
    first = body[0] if body else Line("", 0)
    previous_ended = True
    i = 0
    while i < len(body):
        line = body[i]
        size = _title_run(body, i, width) if previous_ended and line.text else 0
        if size:
            blocks.append((heading, is_section, current, first))
            text = " ".join(ln.text for ln in body[i : i + size])
            heading, current, first = text, [], line
            is_section = size == 1 and len(text.split()) <= 6 and is_title_case(text)
            i += size
            previous_ended = True
            continue
        current.append(line)
        if line.text:
            previous_ended = bool(re.search(r"[.!?:][\"'”’)]*$", line.text))
        i += 1
    blocks.append((heading, is_section, current, first))
    seen: dict[str, int] = {}
    for title, opens_section, lines, start in blocks:
        texts = [ln.text for ln in lines]
        part_text = "\n".join(reflow(texts, width))
        if title is None and not part_text:
            continue
        if opens_section or not sections:
            number = slug(title) if title else "introduction"
            seen[number] = seen.get(number, 0) + 1
            if seen[number] > 1:  # two headings alike: numbers stay unique ("resources-2")
                number = f"{number}-{seen[number]}"
            sections.append(DocSection(number, title, [], line=start.number))
            if part_text:
                sections[-1].parts.append(Part(None, part_text, start.number))
        else:
            sections[-1].parts.append(Part(title, part_text, start.number))
    return sections
