"""Checking the rule citations in a text (a ruling, an article, code comments) against an edition.

A citation is any reference :func:`~index.numbers.find_references` sees: ``704.5k``,
``rule 613``, ``601.2a–h``. Against the edition chosen, a citation is:

- ``missing`` when a number it names is not in that edition;
- with the edition the text was written for: ``moved`` when the rule it meant now has another
  number, ``changed`` when the rule kept its number but not its wording, else ``ok``;
- without it: ``suspicious`` when the words next to it ("704.5k (legend rule)") describe another
  rule far better than the one cited, else ``ok``.

Which words are "next to it" is :mod:`index.citecontext`; how well they describe a rule is
:mod:`index.citeindex`. ``benchmarks/citecheck_quality.py`` measures the verdict on real
citations, right and wrong, and ``benchmarks/citecheck_speed.py`` its speed.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .citecontext import find_context, sentence_start
from .citeindex import ContextIndex
from .numbers import RuleNumber, RuleRef, parse_rule_number
from .textrefs import TextReference, find_references

if TYPE_CHECKING:
    from .diff import Matching
    from .model import Document

__all__ = [
    "MAX_CITATIONS",
    "Citation",
    "CitationCheck",
    "ContextIndex",
    "TooManyCitationsError",
    "check_citations",
    "find_citations",
]

_DIGIT_RE = re.compile(r"\d")

STATUSES = ("ok", "missing", "moved", "changed", "suspicious")


@dataclass(frozen=True)
class Citation:
    """One rule reference found in a text."""

    line: int
    """1-based line number."""
    column: int
    """1-based column of the first character."""
    text: str
    """The citation as written: ``704.5k``, ``rule 613``, ``601.2a-h``."""
    ref: RuleRef
    context: str
    """The words next to it that say what it is about (see :mod:`index.citecontext`)."""
    context_kind: str = "words"
    """How they were found: ``title``, ``parenthesis``, ``appositive``, ``clause``,
    ``sentence``, ``words`` or ``none``."""
    context_before: str = ""
    """The sentences before, which speak for the citation when its own words say too little."""
    sentence: int = 0
    """Where its sentence starts in the line (0-based): citations of one sentence are cited
    together, so their words may describe any of them."""


MAX_CITATIONS = 100_000
"""The most citations one text may hold (the whole CR has about 5,000): a text of nothing but
citations, 16 MiB of it, would take many minutes."""


class TooManyCitationsError(ValueError):
    """Raised for a text with more than :data:`MAX_CITATIONS` citations."""

    def __init__(self, line: int, limit: int) -> None:
        self.line = line
        """The line where the count went past the limit."""
        self.limit = limit
        super().__init__(
            f"the text has more than {limit:,} rule citations (the most one check reads) by "
            f"line {line:,}"
        )


def find_citations(text: str, limit: int = MAX_CITATIONS) -> list[Citation]:
    """Every rule citation in ``text``, with its line, column and nearby words.

    Raises :class:`TooManyCitationsError` past ``limit`` citations, before reading their words.
    """
    found: list[Citation] = []
    count = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if _DIGIT_RE.search(line) is None:
            continue
        count += len(_references(line))
        if count > limit:
            raise TooManyCitationsError(number, limit)
        found.extend(
            Citation(number, column, written, ref, words, kind, before, sentence)
            for column, written, ref, words, kind, before, sentence in _line_citations(line)
        )
    return found


REACH = 1_000
"""How far either side of a citation its words are looked for, in characters ..."""
NEAR = 16
"""... and in citations: sentences of real writing are far shorter, and a line holding
thousands of citations (a list, a damaged file) then costs each of them the same, not the
whole line."""


@functools.lru_cache(maxsize=4096)
def _references(line: str) -> list[TextReference]:
    return find_references(line)


@functools.lru_cache(maxsize=4096)
def _line_citations(line: str) -> tuple[tuple[int, str, RuleRef, str, str, str, int], ...]:
    # Remembered by line: long texts repeat lines (boilerplate, quoted rules, lists).
    refs = _references(line)
    out = []
    for i, ref in enumerate(refs):
        first, last = max(0, i - NEAR), min(len(refs), i + NEAR + 1)
        lo = max(0, ref.start - REACH, refs[first - 1].end if first else 0)
        hi = min(len(line), ref.end + REACH, refs[last].start if last < len(refs) else len(line))
        if lo == 0 and hi == len(line):
            context = find_context(line, refs, i)
            sentence = sentence_start(line, ref.start, ref.end)
        else:
            # The window and the citations in it, moved to its coordinates.
            near = [
                TextReference(r.ref, r.start - lo, r.end - lo, r.text)
                for r in refs[first:last]
                if r.start >= lo and r.end <= hi
            ]
            index = next(k for k, r in enumerate(near) if r.start == ref.start - lo)
            context = find_context(line[lo:hi], near, index)
            sentence = lo + sentence_start(line[lo:hi], ref.start - lo, ref.end - lo)
        out.append(
            (
                ref.start + 1,
                ref.text,
                ref.ref,
                context.words,
                context.kind,
                context.before,
                sentence,
            )
        )
    return tuple(out)


@dataclass(frozen=True)
class CitationCheck:
    """The verdict on one citation."""

    citation: Citation
    status: str
    """``ok``, ``missing``, ``moved``, ``changed`` or ``suspicious``."""
    suggest: str | None = None
    """The number to cite instead (``moved``, ``suspicious``), the same one (``changed``)."""
    note: str = ""
    """A sentence saying why, for people."""

    def to_json(self) -> dict[str, Any]:
        """The record ``judge cite-check --json`` prints (contract keys first)."""
        c = self.citation
        return {
            "line": c.line,
            "text": c.text,
            "status": self.status,
            "suggest": self.suggest,
            "column": c.column,
            "context": c.context,
            "note": self.note,
        }


def _numbers(ref: RuleRef) -> list[RuleNumber]:
    return [ref.start] if ref.end is None else [ref.start, ref.end]


def check_citations(
    citations: list[Citation], document: Document, written_for: Document | None = None
) -> list[CitationCheck]:
    """Checks each citation against ``document`` (see the module docstring for the verdicts)."""
    matching: Matching | None = None
    context_index: ContextIndex | None = None
    if written_for is not None and written_for is not document:
        from .diff import match_documents

        matching = match_documents(written_for, document)
    nearest: dict[str, list[str]] = {}
    # "See rules 403.3, 603.6a and 614.12": the numbers cited in one sentence.
    together: dict[tuple[int, int], list[str]] = {}
    for c in citations:
        if c.ref.end is None:
            together.setdefault((c.line, c.sentence), []).append(str(c.ref.start))
    # The same words cited as the same rule get the same verdict: long texts repeat both.
    verdicts: dict[tuple[str, ...], tuple[str, str | None, str]] = {}
    out: list[CitationCheck] = []
    for c in citations:
        numbers = [str(n) for n in _numbers(c.ref)]
        if written_for is not None:
            out.append(_check_written_for(c, numbers, document, written_for, matching))
            continue
        absent = [n for n in numbers if n not in document.rules]
        if absent:
            if absent[0] not in nearest:
                nearest[absent[0]] = document.nearest(absent[0])
            near = nearest[absent[0]]
            out.append(
                CitationCheck(
                    c,
                    "missing",
                    None,
                    f"no rule {absent[0]} in the {document.edition} edition"
                    + (f" (nearest: {', '.join(near)})" if near else ""),
                )
            )
            continue
        if not (c.context or c.context_before) or c.ref.end is not None:
            out.append(CitationCheck(c, "ok"))
            continue
        also = tuple(n for n in together.get((c.line, c.sentence), ()) if n != numbers[0])
        key = (c.context, c.context_kind, c.context_before, numbers[0], *also)
        if key not in verdicts:
            if context_index is None:
                context_index = ContextIndex(document)
            found = context_index.judge(
                c.context, numbers[0], kind=c.context_kind, also=also, fallback=c.context_before
            )
            if found is None:
                verdicts[key] = ("ok", None, "")
            else:
                verdicts[key] = (
                    "suspicious",
                    found.suggest,
                    f"“{_shorten(c.context)}” fits {found.suggest} better than {numbers[0]}",
                )
        status, suggest, note = verdicts[key]
        out.append(CitationCheck(c, status, suggest, note))
    return out


def _shorten(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _check_written_for(
    c: Citation,
    numbers: list[str],
    document: Document,
    written_for: Document,
    matching: Matching | None,
) -> CitationCheck:
    then = written_for.edition
    absent = [n for n in numbers if n not in written_for.rules]
    if absent:
        return CitationCheck(c, "missing", None, f"no rule {absent[0]} in the {then} edition")
    if matching is None:  # the same edition
        return CitationCheck(c, "ok")
    now = [matching.forward.get(n) for n in numbers]
    if any(n is None for n in now):
        gone = numbers[now.index(None)]
        return CitationCheck(
            c, "missing", None, f"rule {gone} of {then} is gone from the {document.edition} edition"
        )
    mapped = [n for n in now if n is not None]
    parsed = [parse_rule_number(n) for n in mapped]
    suggest = str(RuleRef(parsed[0], parsed[1] if len(parsed) > 1 else None))
    if mapped != numbers:
        return CitationCheck(
            c, "moved", suggest, f"rule {c.text} of {then} is {suggest} in {document.edition}"
        )
    if any(matching.is_changed(n) for n in numbers):
        return CitationCheck(c, "changed", suggest, f"rule {suggest} was reworded since {then}")
    return CitationCheck(c, "ok")
