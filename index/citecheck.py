"""Checking the rule citations in a text (a ruling, an article, code comments) against an edition.

A citation is any reference :func:`~index.numbers.find_references` sees: ``704.5k``,
``rule 613``, ``601.2a–h``. Against the edition chosen, a citation is:

- ``missing`` when a number it names is not in that edition;
- with the edition the text was written for: ``moved`` when the rule it meant now has another
  number, ``changed`` when the rule kept its number but not its wording, else ``ok``;
- without it: ``suspicious`` when the words next to it ("704.5k (legend rule)") describe another
  rule far better than the one cited, else ``ok``.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from typing import Any

from glossary.entry import fold_text

from .diff import Matching, match_documents
from .model import Document
from .numbers import RuleNumber, RuleRef, find_references, parse_rule_number

__all__ = [
    "Citation",
    "CitationCheck",
    "ContextIndex",
    "check_citations",
    "find_citations",
]

STATUSES = ("ok", "missing", "moved", "changed", "suspicious")

# How far around a citation its context reaches when no parenthesis follows it.
_WINDOW = 6
# A suspicious citation: the best rule's score must reach this, and beat the cited one by this.
_MIN_BEST = 0.75
_MARGIN = 0.4
# Context made only of very common words (idf below this, summed) says nothing.
_MIN_CONTEXT_IDF = 2.0

_WORD_RE = re.compile(r"[a-z][a-z'+/-]*[a-z]|[a-z]")
_PAREN_RE = re.compile(r"\s*[(\[]([^)\]]{1,120})[)\]]")
_BOUNDARY_RE = re.compile(r"[.:!?](?:\s|$)|[,;()\[\]]")
_STOPWORD_TEXT = """a an the and or of to in on at by for with from as is are be been being was were
    it its
    this that these those if then than but not no so such which who whom whose what when where
    how can can't cannot may might must shall should will would do does did has have had see
    section sections cr per under says say said also e.g i.e etc about into onto
    you your we our they their he she his her him them one any each all some other"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def _stem(word: str) -> str:
    """A crude suffix stripper, applied alike to rules and context ("controls" → "control")."""
    if word.endswith("'s"):
        word = word[:-2]
    word = word.strip("'")
    for suffix, repl, min_len in (
        ("ies", "y", 5),
        ("sses", "ss", 5),
        ("ing", "", 6),
        ("ed", "", 5),
        ("es", "", 5),
        ("s", "", 4),
    ):
        if word.endswith(suffix) and len(word) >= min_len and not word.endswith("ss"):
            return word[: len(word) - len(suffix)] + repl
    return word


def _words(text: str) -> list[str]:
    return [_stem(w) for w in _WORD_RE.findall(fold_text(text).lower())]


def _content_words(text: str) -> list[str]:
    return [w for w in _words(text) if w and w not in _STOPWORDS]


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
    """The words next to it that say what it is about (the parenthesis after it, if any)."""


def find_citations(text: str) -> list[Citation]:
    """Every rule citation in ``text``, with its line, column and nearby words."""
    found: list[Citation] = []
    for number, line in enumerate(text.splitlines(), start=1):
        refs = find_references(line)
        for i, ref in enumerate(refs):
            found.append(
                Citation(number, ref.start + 1, ref.text, ref.ref, _context(line, refs, i))
            )
    return found


def _context(line: str, refs: list[Any], i: int) -> str:
    ref = refs[i]
    paren = _PAREN_RE.match(line, ref.end)
    if paren is not None and not find_references(paren.group(1)):
        return paren.group(1).strip()
    # Otherwise the words either side in the same sentence, up to the neighbouring citations.
    left_stop = refs[i - 1].end if i > 0 else 0
    right_stop = refs[i + 1].start if i + 1 < len(refs) else len(line)
    # "Deathtouch (702.2b)": the words before a parenthesised citation are its context.
    left = line[left_stop : ref.start].rstrip()
    right = line[ref.end : right_stop]
    if left.endswith(("(", "[")) and right.lstrip().startswith((")", "]")):
        left, right = left[:-1], ""
    before = _BOUNDARY_RE.split(left)[-1].split()[-_WINDOW:]
    after = _BOUNDARY_RE.split(right)[0].split()[:_WINDOW]
    return " ".join([*before, *after]).strip()


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


class ContextIndex:
    """Scores how well a few words describe each rule of one edition (for ``suspicious``)."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.words: dict[str, list[str]] = {}
        self.sets: dict[str, frozenset[str]] = {}
        postings: dict[str, list[str]] = {}
        for number, rule in document.rules.items():
            own = _content_words(rule.text)
            # A subrule is also about what its ancestors are about ("Trample", "State-Based
            # Actions"), so their words count for it.
            inherited: list[str] = []
            parent = parse_rule_number(number).parent()
            while parent is not None:
                above = document.rules.get(str(parent))
                if above is not None:
                    inherited.extend(_content_words(above.text))
                parent = parent.parent()
            self.words[number] = own
            self.sets[number] = frozenset(own) | frozenset(inherited)
            for w in self.sets[number]:
                postings.setdefault(w, []).append(number)
        total = max(len(document.rules), 1)
        self.postings = postings
        self.idf = {w: math.log(total / len(ns)) for w, ns in postings.items()}

    def score(self, words: list[str], number: str) -> float:
        """How well ``words`` describe rule ``number``: 0 to 1.5 (1 for every word, +0.5 for
        every adjacent pair found as a phrase in the rule's own text)."""
        return self._score(words, number, self._mass(words))

    def _mass(self, words: list[str]) -> float:
        return sum(self.idf.get(w, 0.0) for w in set(words))

    def _score(self, words: list[str], number: str, mass: float) -> float:
        if mass <= 0:
            return 0.0
        have = self.sets.get(number, frozenset())
        hit = sum(self.idf.get(w, 0.0) for w in set(words) if w in have)
        score = hit / mass
        pairs = list(itertools.pairwise(words))
        if pairs:
            own = self.words.get(number, [])
            own_pairs = set(itertools.pairwise(own))
            score += 0.5 * sum(p in own_pairs for p in pairs) / len(pairs)
        return score

    def best(self, words: list[str]) -> tuple[str, float] | None:
        """The rule the words describe best, with its score, or ``None``."""
        mass = self._mass(words)
        if mass < _MIN_CONTEXT_IDF:
            return None
        candidates: set[str] = set()
        for w in set(words):
            candidates.update(self.postings.get(w, ()))
        order = {n: i for i, n in enumerate(self.document.rules)}
        scores = {n: self._score(words, n, mass) for n in candidates}
        top = max(scores.values(), default=0.0)
        tied = sorted((n for n, s in scores.items() if s >= top - 0.05), key=order.__getitem__)
        # "also called the legend rule (see rule 704.5j)": a rule that points to another of the
        # best matches is a mention, and the rule it points to is the one the words mean.
        pointed = {
            str(ref.ref.start)
            for n in tied
            for ref in find_references(self.document.rules[n].text)
            if str(ref.ref.start) in tied and str(ref.ref.start) != n
        }
        pointing = {
            n
            for n in tied
            if any(
                str(r.ref.start) in pointed for r in find_references(self.document.rules[n].text)
            )
        }
        preferred = [n for n in tied if n not in pointing] or tied
        best = max(preferred, key=lambda n: (scores[n], -order[n]))
        return best, scores[best]


def _numbers(ref: RuleRef) -> list[RuleNumber]:
    return [ref.start] if ref.end is None else [ref.start, ref.end]


def _is_related(a: str, b: str) -> bool:
    pa, pb = parse_rule_number(a), parse_rule_number(b)
    return pa.is_within(pb) or pb.is_within(pa)


def check_citations(
    citations: list[Citation], document: Document, written_for: Document | None = None
) -> list[CitationCheck]:
    """Checks each citation against ``document`` (see the module docstring for the verdicts)."""
    matching: Matching | None = None
    context_index: ContextIndex | None = None
    if written_for is not None and written_for is not document:
        matching = match_documents(written_for, document)
    out: list[CitationCheck] = []
    for c in citations:
        numbers = [str(n) for n in _numbers(c.ref)]
        if written_for is not None:
            out.append(_check_written_for(c, numbers, document, written_for, matching))
            continue
        absent = [n for n in numbers if n not in document.rules]
        if absent:
            near = document.nearest(absent[0])
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
        words = _content_words(c.context)
        if not words or c.ref.end is not None:
            out.append(CitationCheck(c, "ok"))
            continue
        if context_index is None:
            context_index = ContextIndex(document)
        best = context_index.best(words)
        cited = numbers[0]
        if best is not None and not _is_related(best[0], cited):
            mine = context_index.score(words, cited)
            if best[1] >= _MIN_BEST and best[1] - mine >= _MARGIN:
                out.append(
                    CitationCheck(
                        c,
                        "suspicious",
                        best[0],
                        f"“{c.context}” fits {best[0]} better than {cited}",
                    )
                )
                continue
        out.append(CitationCheck(c, "ok"))
    return out


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
