"""Reading glossary entries from the lines of a CR glossary or a standalone glossary text."""

from __future__ import annotations

from .entry import GlossaryEntry, ParseProblem

__all__ = ["parse_glossary_lines"]


def _blocks(lines: list[str], offset: int) -> list[tuple[int, list[str]]]:
    """Groups lines into blank-separated blocks: ``(index of the first line, lines)``."""
    blocks: list[tuple[int, list[str]]] = []
    current: list[str] = []
    first = 0
    for i, line in enumerate(lines):
        if line.strip():
            if not current:
                first = i
            current.append(line.rstrip())
        elif current:
            blocks.append((offset + first, current))
            current = []
    if current:
        blocks.append((offset + first, current))
    return blocks


def parse_glossary_lines(
    lines: list[str], offset: int = 0
) -> tuple[list[GlossaryEntry], list[ParseProblem]]:
    """Parses glossary lines (``offset`` is the 0-based line index of ``lines[0]`` in the file).

    An entry is a term on a line of its own followed by its definition. Later paragraphs of a
    definition are indented (2003–2008: five spaces; 1999: every definition line is indented and
    hard-wrapped); a block that starts indented continues the entry before it.
    """
    entries: list[GlossaryEntry] = []
    problems: list[ParseProblem] = []
    for first, block in _blocks(lines, offset):
        head = block[0]
        if head[:1].isspace():
            text = _join(block)
            if not entries:
                problems.append(
                    ParseProblem(first + 1, head.strip()[:200], "text before the first term")
                )
                continue
            entry = entries[-1]
            entry.definition = f"{entry.definition}\n{text}" if entry.definition else text
            continue
        definition = _join(block[1:])
        entries.append(GlossaryEntry(head.strip(), definition, first + 1))
    for entry in entries:
        if not entry.definition:
            problems.append(ParseProblem(entry.line, entry.term[:200], "term with no definition"))
    return entries, problems


def _join(lines: list[str]) -> str:
    """Joins definition lines: wrapped lines (indented alike) run on; others are paragraphs."""
    if not lines:
        return ""
    wrapped = lines[0][:1].isspace() and all(ln[:1].isspace() for ln in lines)
    indent = len(lines[0]) - len(lines[0].lstrip())
    if wrapped and all(len(ln) - len(ln.lstrip()) == indent for ln in lines):
        return " ".join(ln.strip() for ln in lines)
    return "\n".join(ln.strip() for ln in lines)
