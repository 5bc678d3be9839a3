"""Reading a Comprehensive Rules text file into a :class:`~index.model.Document`.

The reader is lenient, the way ``chess.pgn`` is: a line it cannot place becomes a
:class:`~index.model.ParseProblem` and reading goes on. It refuses a file only when it is not a
rules document at all (binary, HTML, PDF, no effective date, no rules, cut off before the glossary).
"""

from __future__ import annotations

import re
from pathlib import Path

from glossary.entry import GlossaryEntry
from glossary.parse import parse_glossary_lines

from .dates import find_effective_date
from .decode import (
    MAX_RULES_BYTES,
    DecodeError,
    FileTooLargeError,
    decode_text,
    read_rules_file,
    split_lines,
)
from .model import Document, ParseProblem, Rule
from .numbers import InvalidRuleReferenceError, parse_rule_number

__all__ = ["CRReadError", "find_effective_date", "read_cr_bytes", "read_cr_path", "read_cr_text"]


class CRReadError(ValueError):
    """Raised when a file is not a Comprehensive Rules document the reader can use."""

    file: str | None = None
    """The file it was read from, when the caller knows it."""


_SECTION_RE = re.compile(r"^(\d)\.\s+(\S.*)$")
_RULE_HEAD_RE = re.compile(r"^(\d{3})\.\s+(\S.*)$")
_NUMBERED_RE = re.compile(r"^(\d{3}\.\d+)\.?(?:\s+(.*))?$")
_SUBRULE_RE = re.compile(r"^(\d{3}\.\d+[a-z]{1,2})\.?(?:\s+(.*))?$")
_EXAMPLE_RE = re.compile(r"^(?:example|examples)\s*:\s*(.*)$", re.IGNORECASE)
_FRAME_RE = re.compile(r"^\s*(?:-{4,}|={4,})\s*$")
# A subrule printed with a stray space in its number ("702. 37a" in 2009, "606. 8b" in 2007).
_SPLIT_NUMBER_RE = re.compile(r"^(\d{3})\. (\d+[a-z]{1,2})\s+(.*)$")
_RULE_ONE_RE = re.compile(r"^\s*100\.1[.a-z]?\s")


def _shorten(line: str) -> str:
    return line if len(line) <= 200 else line[:197] + "..."


def _is_heading_line(lines: list[str], i: int, pattern: re.Pattern[str]) -> bool:
    return pattern.match(lines[i].strip()) is not None


def _find(lines: list[str], wanted: str, start: int, stop: int | None = None) -> int | None:
    for i in range(start, len(lines) if stop is None else stop):
        if lines[i].strip() == wanted:
            return i
    return None


class _RulesParser:
    """Reads the numbered rules between the contents list and the glossary."""

    def __init__(self, lines: list[str], first: int, last: int, doc: Document) -> None:
        self.lines = lines
        self.first = first
        self.last = last
        self.doc = doc
        self.current: Rule | None = None
        self.in_example = False
        self.after_blank = True

    def problem(self, i: int, reason: str) -> None:
        self.doc.problems.append(ParseProblem(i + 1, _shorten(self.lines[i]), reason))

    def add(self, number: str, text: str, i: int) -> None:
        try:
            parsed = parse_rule_number(number)
        except InvalidRuleReferenceError:
            self.problem(i, f"{_shorten(number)[:40]} is not a rule number; the line is left out")
            return
        if number in self.doc.rules:
            self.problem(i, f"rule {number} appears twice; the second is kept")
        parent = parsed.parent()
        if parent is not None and str(parent) not in self.doc.rules:
            self.problem(i, f"rule {number} comes before its parent {parent}")
        rule = Rule(number, text.strip(), [], i + 1)
        self.doc.rules[number] = rule
        self.current = rule
        self.in_example = False

    def append(self, text: str, *, paragraph: bool) -> None:
        assert self.current is not None
        target_is_example = self.in_example and self.current.examples
        if target_is_example:
            old = self.current.examples[-1]
            self.current.examples[-1] = old + ("\n" if paragraph else " ") + text
        else:
            self.current.text += ("\n" if paragraph else " ") + text

    def run(self) -> None:
        for i in range(self.first, self.last):
            raw = self.lines[i]
            line = raw.strip()
            if not line:
                self.after_blank = True
                continue
            if _FRAME_RE.match(raw):
                continue
            self.handle(i, raw, line)
            self.after_blank = False

    def handle(self, i: int, raw: str, line: str) -> None:
        m = _SUBRULE_RE.match(line) or _NUMBERED_RE.match(line)
        if m:
            self.add(m.group(1), m.group(2) or "", i)
            return
        m = _SPLIT_NUMBER_RE.match(line)
        if m:
            number = f"{m.group(1)}.{m.group(2)}"
            self.problem(i, f"number printed as {m.group(1)}. {m.group(2)}; read as {number}")
            self.add(number, m.group(3), i)
            return
        # Headings stand alone: after a blank line (or a frame) and before one.
        m = _RULE_HEAD_RE.match(line)
        if m and self.after_blank:
            self.add(m.group(1), m.group(2), i)
            return
        m = _SECTION_RE.match(line)
        if m and self.after_blank and not raw[:1].isspace() and self._next_is_break(i):
            self.add(m.group(1), m.group(2), i)
            return
        m = _EXAMPLE_RE.match(line)
        if m and self.current is not None:
            self.current.examples.append(m.group(1))
            self.in_example = True
            return
        if self.current is None:
            self.problem(i, "text before the first rule")
            return
        if self.after_blank and not raw[:1].isspace() and self.current.is_heading:
            self.problem(i, f"text under heading {self.current.number} with no rule number")
        self.append(line, paragraph=self.after_blank or not self.doc_is_wrapped)

    def _next_is_break(self, i: int) -> bool:
        j = i + 1
        return (
            j >= len(self.lines)
            or not self.lines[j].strip()
            or bool(_FRAME_RE.match(self.lines[j]))
        )

    doc_is_wrapped = False


def _is_wrapped_layout(lines: list[str], first: int, last: int) -> bool:
    """Checks if rules are hard-wrapped (the 1999 text): rule lines run on to the next line."""
    runs = 0
    rules = 0
    for i in range(first, last - 1):
        if _NUMBERED_RE.match(lines[i].strip()) or _SUBRULE_RE.match(lines[i].strip()):
            rules += 1
            nxt = lines[i + 1].strip()
            if nxt and not any(p.match(nxt) for p in (_NUMBERED_RE, _SUBRULE_RE, _EXAMPLE_RE)):
                runs += 1
    return rules > 0 and runs > rules * 0.3


def read_cr_text(text: str, source: str = "") -> Document:
    """Parses the text of a CR file. Raises :class:`CRReadError` if it is not one."""
    head = text[:2000].lstrip().lower()
    if head.startswith(("<!doctype html", "<html", "<?xml")) or "<body" in head:
        raise CRReadError("this is an HTML page, not the rules text")
    if head.startswith("%pdf"):
        raise CRReadError("this is a PDF; Wizards also publish the rules as .txt — use that file")
    lines = split_lines(text)
    edition = find_effective_date(text)
    if edition is None:
        raise CRReadError(
            'no effective date found (a line like "These rules are effective as of '
            'February 7, 2025.")'
        )
    body_first = next((i for i, ln in enumerate(lines) if _RULE_ONE_RE.match(ln)), None)
    if body_first is None:
        raise CRReadError("no numbered rules found (rule 100.1 is missing)")
    # The body starts at the section heading before rule 100.1 ("1. The Game").
    start = body_first
    for i in range(body_first - 1, max(-1, body_first - 40), -1):
        if _SECTION_RE.match(lines[i].strip()):
            start = i
            break
    glossary_at = _find(lines, "Glossary", start)
    if glossary_at is None:
        raise CRReadError(
            f"the file stops at line {len(lines)} before the Glossary: it looks truncated"
        )
    credits_at = _find(lines, "Credits", glossary_at)
    if credits_at is None:
        raise CRReadError(
            f"the Glossary starting at line {glossary_at + 1} never reaches Credits: "
            "the file looks truncated"
        )
    # 1999: the glossary is followed by a framed "Index" section before Credits.
    glossary_end = credits_at
    for i in range(glossary_at + 1, credits_at):
        framed = (
            i + 1 < len(lines) and _FRAME_RE.match(lines[i - 1]) and _FRAME_RE.match(lines[i + 1])
        )
        if lines[i].strip() and framed:
            glossary_end = i - 1
            break

    doc = Document(edition=edition)
    # Modern files put the introduction before the contents; 1999 puts it after (and lists
    # "Introduction" in the contents), so take the last "Introduction" line before the body.
    contents_at = _find(lines, "Contents", 0, start)
    intro_at = next(
        (i for i in range(start - 1, -1, -1) if lines[i].strip() == "Introduction"), None
    )
    if intro_at is not None:
        after = contents_at if contents_at is not None and contents_at > intro_at else start
        doc.introduction = _paragraphs(lines[intro_at + 1 : after])
    if contents_at is not None:
        after = intro_at if intro_at is not None and intro_at > contents_at else start
        doc.contents = "\n".join(
            ln.strip()
            for ln in lines[contents_at + 1 : after]
            if ln.strip() and not _FRAME_RE.match(ln)
        )
    doc.credits = _paragraphs(lines[credits_at + 1 :])

    parser = _RulesParser(lines, start, glossary_at, doc)
    parser.doc_is_wrapped = _is_wrapped_layout(lines, start, glossary_at)
    parser.run()
    glossary_lines = [
        "" if _FRAME_RE.match(ln) else ln for ln in lines[glossary_at + 1 : glossary_end]
    ]
    entries, problems = parse_glossary_lines(glossary_lines, glossary_at + 1)
    doc.glossary = entries
    doc.problems.extend(ParseProblem(p.line, p.text, p.reason) for p in problems)
    _fill_see(doc.glossary)
    if len(doc.rules) < 10:
        raise CRReadError(f"only {len(doc.rules)} rules found: this is not a full rules document")
    return doc


def _fill_see(entries: list[GlossaryEntry]) -> None:
    from .textrefs import find_references

    for entry in entries:
        seen: list[str] = []
        for ref in find_references(entry.definition):
            key = str(ref.ref.start)
            if key not in seen:
                seen.append(key)
        entry.see = seen


def _paragraphs(lines: list[str]) -> str:
    out: list[str] = []
    for ln in lines:
        if _FRAME_RE.match(ln):
            continue
        out.append(ln.strip())
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()


def read_cr_bytes(data: bytes, source: str = "") -> Document:
    """Decodes and parses the bytes of a CR file. Raises :class:`CRReadError`."""
    if not data.strip():
        raise CRReadError("the file is empty")
    if data.startswith(b"%PDF"):
        raise CRReadError("this is a PDF; Wizards also publish the rules as .txt — use that file")
    if len(data) > MAX_RULES_BYTES:
        raise CRReadError(str(FileTooLargeError(source, MAX_RULES_BYTES)))
    try:
        decoded = decode_text(data)
    except DecodeError as exc:
        raise CRReadError(str(exc)) from None
    doc = read_cr_text(decoded.text, source)
    doc.encoding = decoded.encoding
    doc.undecodable = decoded.undecodable
    return doc


def read_cr_path(path: str | Path) -> Document:
    """Reads a CR file from disk. Raises :class:`CRReadError` (and ``OSError``)."""
    try:
        data = read_rules_file(path)
    except FileTooLargeError as exc:
        raise CRReadError(str(exc)) from None
    return read_cr_bytes(data, str(path))
