"""Rules-like documents that are not a CR file: glossary excerpts, rulecards, Markdown notes."""

from __future__ import annotations

import re

from glossary.entry import GlossaryEntry, fold_text, normalise_term

from .decode import split_lines
from .section import Section

__all__ = [
    "name_paragraphs",
    "read_glossary_text",
    "read_markdown",
    "read_paragraphs",
    "read_rulecard",
    "slug",
]


def slug(text: str) -> str:
    """A lower-case, hyphenated id part: "Bands with Other" → ``bands-with-other``."""
    return re.sub(r"[^a-z0-9]+", "-", fold_text(text).lower()).strip("-") or "section"


def _paragraphs(text: str) -> list[tuple[int, str]]:
    """Blank-separated paragraphs as ``(1-based line, text)``; wrapped lines are joined."""
    out: list[tuple[int, str]] = []
    current: list[str] = []
    first = 0
    for i, line in enumerate(split_lines(text)):
        if line.strip():
            if not current:
                first = i + 1
            current.append(line.strip())
        elif current:
            out.append((first, " ".join(current)))
            current = []
    if current:
        out.append((first, " ".join(current)))
    return out


def _is_term(paragraph: str) -> bool:
    return len(paragraph) <= 60 and not paragraph.rstrip().endswith((".", ":", ";", ",", "?", "!"))


def read_glossary_text(text: str, source: str = "") -> list[GlossaryEntry]:
    """Reads a glossary excerpt whose terms and definitions are blank-separated paragraphs.

    A short paragraph without closing punctuation is a term; the paragraphs after it, up to the
    next term, are its definition. A heading before the first definition is skipped.
    """
    paragraphs = _paragraphs(text)
    entries: list[GlossaryEntry] = []
    for index, (line, para) in enumerate(paragraphs):
        nxt = paragraphs[index + 1][1] if index + 1 < len(paragraphs) else ""
        if _is_term(para) and nxt and not _is_term(nxt):
            entries.append(GlossaryEntry(para, "", line))
        elif _is_term(para) and (not entries or not nxt):
            continue  # the excerpt's own title, or a last term cut off before its definition
        elif entries:
            entry = entries[-1]
            entry.definition = f"{entry.definition}\n{para}" if entry.definition else para
    from .textrefs import find_references

    for entry in entries:
        entry.see = list(dict.fromkeys(str(r.ref.start) for r in find_references(entry.definition)))
    return entries


def read_rulecard(text: str, source: str) -> list[Section]:
    """Reads a hard-wrapped rulecard: a short line after a finished sentence is a heading."""
    lines = [ln.rstrip() for ln in split_lines(text)]
    sections: list[Section] = []
    title: str | None = None
    body: list[str] = []
    start = 1
    previous_ended = True

    def flush() -> None:
        if body or title:
            sid = f"{slug(source)}:{slug(title or 'introduction')}"
            sections.append(Section(sid, title, " ".join(body).strip(), source, start))

    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped == "|":
            continue
        heading = (
            previous_ended
            and len(stripped) <= 45
            and stripped[:1].isupper()
            and not stripped.endswith((".", ",", ";", ":"))
        )
        if heading and i > 0:
            flush()
            title, body, start = stripped, [], i + 1
        elif heading:
            title, start = stripped, i + 1
        else:
            body.append(stripped)
        previous_ended = stripped.endswith((".", ":", "!", "?")) or heading
    flush()
    return sections


def read_paragraphs(text: str, source: str) -> list[Section]:
    """Reads untitled paragraphs (a glossary excerpt whose terms were stripped).

    Without blank lines in the text, each line is a paragraph (as in the seed excerpt).
    """
    lines = split_lines(text)
    if any(not ln.strip() for ln in lines[:-1]):
        paragraphs = _paragraphs(text)
    else:
        paragraphs = [(i, ln.strip()) for i, ln in enumerate(lines, start=1) if ln.strip()]
    return [
        Section(f"{slug(source)}:{n}", None, para, source, line)
        for n, (line, para) in enumerate(paragraphs, start=1)
    ]


def _fold_definition(text: str) -> str:
    return re.sub(r"\s+", " ", normalise_term(text))


def name_paragraphs(sections: list[Section], entries: list[GlossaryEntry]) -> int:
    """Titles untitled paragraphs whose text is a glossary definition; returns how many."""
    by_paragraph: dict[str, str] = {}
    for entry in entries:
        for para in entry.definition.split("\n"):
            by_paragraph.setdefault(_fold_definition(para), entry.term)
    named = 0
    for section in sections:
        if section.title is None:
            term = by_paragraph.get(_fold_definition(section.text))
            if term is not None:
                section.title = term
                named += 1
    return named


def read_markdown(text: str, source: str) -> list[Section]:
    """Reads a Markdown document into one section per heading (text before the first: untitled)."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(text)
    sections: list[Section] = []
    title: str | None = None
    parts: list[str] = []
    line = 1
    in_heading = False

    def flush() -> None:
        body = "\n".join(parts).strip()
        if body or title:
            sid = f"{slug(source)}:{slug(title or 'introduction')}"
            if any(s.id == sid for s in sections):
                sid += f"-{len(sections) + 1}"
            sections.append(Section(sid, title, body, source, line))

    for token in tokens:
        if token.type == "heading_open":
            flush()
            title, parts, in_heading = None, [], True
            line = (token.map[0] + 1) if token.map else line
        elif token.type == "heading_close":
            in_heading = False
        elif token.type == "inline":
            if in_heading:
                title = token.content.strip()
            else:
                parts.append(token.content)
        elif token.type in ("fence", "code_block"):
            parts.append(token.content.rstrip())
    flush()
    return sections
