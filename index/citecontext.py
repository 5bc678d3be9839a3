"""The words next to a rule citation that say what it is about, as people write them.

Real writing names a rule's subject in a few ways, tried in order of trust:

- ``title``: the rule's title quoted after it: ``see rule 702.16, “Protection.”``;
- ``parenthesis``: a parenthesis after it: ``704.5k (legend rule)``;
- ``appositive``: ``(rule 704.5k, the legend rule)``;
- ``clause``: the clause a bare parenthesised citation annotates: ``… a target (see rule 115.6)``,
  or the sentence before it: ``You don't lose at 0 life. (704.5a)``;
- ``sentence``: the sentence before a citation that stands alone: ``… See rule 108.4.``;
- ``words``: else the content words around it in its clause: ``Rule 704.5a says a player …``;
- ``contrast``: none at all when the words say what the rule is *not*: ``This is an exception to
  rule 613.7m`` (the sentences before describe the exception).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .citeindex import is_content_token
from .textrefs import find_references

if TYPE_CHECKING:
    from .textrefs import TextReference

__all__ = ["CONTEXT_KINDS", "Context", "find_context", "sentence_start"]

CONTEXT_KINDS = (
    "title",
    "parenthesis",
    "appositive",
    "clause",
    "sentence",
    "words",
    "contrast",
    "none",
)

# How many content words either side of a citation its context reaches, within its clause.
_WINDOW = 6
# … and how many before a parenthesis that annotates a clause.
_CLAUSE_WINDOW = 20
_QUOTE = '"\u201c\u201d'
_TITLE_RE = re.compile(
    r"\s*,?\s*[(]?[" + _QUOTE + r"]([^" + _QUOTE + r"]{1,80}?)[.,]?[" + _QUOTE + "]"
)
_PAREN_RE = re.compile(r"\s*[(\[]([^()\[\]]{1,120})[)\]]")
_APPOSITIVE_RE = re.compile(r",\s+((?:the|a|an)\s[^,;:.!?()\[\]]{1,80})", re.IGNORECASE)
# Where a sentence ends: ". " before a capital, a quote or a parenthesis ("e.g. a" goes on).
_SENTENCE_END_RE = re.compile(r"[.!?][" + _QUOTE + r"')\]]*\s+(?=[A-Z(\[" + _QUOTE + "])")
_CONTRAST_RE = re.compile(
    r"\b(?:exceptions?|except|unlike|contrary|notwithstanding|instead\s+of)\b", re.IGNORECASE
)
_ENDS_SENTENCE_RE = re.compile(r"[.!?][" + _QUOTE + r"')\]]*\s*$")
_CLAUSE_END_RE = re.compile(r"[;:](?:\s|$)")
# Words that only introduce a citation: "(see also rule 613)", "See rules 103 and 104."
_LEAD_RE = re.compile(
    r"^(?:[\W_]|\b(?:see|also|rules?|sections?|cr|comprehensive|and|or|e\.g|i\.e|cf|per|in|"
    r"under|the|for|more|details?|information|as|described|defined|explained|at|this|is|"
    r"that|which|rulings?|magic|follows?|applies|apply|also|here|there)\b)*$",
    re.IGNORECASE,
)
_UNPRINTABLE_RE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]")
_BRACKET_RE = re.compile(r"[()\[\]]")
_WORD_RE = re.compile(r"[\w'’+/{}-]+")
# "712.9–10": the end of a range written short, which the reference finder leaves out.
_RANGE_TAIL_RE = re.compile(r"\s*[-\u2010-\u2014]\s*\d+[a-z]?\b")
# "… see rule" just before a citation is part of it.
_LEAD_TAIL_RE = re.compile(r"(?:\b(?:see|also|rules?|sections?|cr|in|under|per)\b[\s,]*)+$", re.I)


@dataclass(frozen=True)
class Context:
    """What the words next to a citation say it is about."""

    words: str
    """The words, as written (citations in them blanked); ``""`` when nothing is said."""
    kind: str
    """How they were found: one of :data:`CONTEXT_KINDS`."""
    before: str = ""
    """The sentences before the citation's own, for when its words say too little: "The
    “legend rule” is … (704.5j at the time of this document's creation …)"."""


def sentence_start(line: str, start: int, end: int) -> int:
    """Where the sentence of ``line`` holding ``start``…``end`` begins (citations in one
    sentence, "See rules 110.5 and 702.26, “Phasing.”", are cited together)."""
    return _sentence(line, start, end)[0]


def _is_lead(text: str) -> bool:
    """Checks if ``text`` only introduces a citation ("see also", "(", "rules")."""
    return _LEAD_RE.match(text) is not None


def _sentence(line: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the sentence of ``line`` that holds ``start``…``end``."""
    left = 0
    for m in _SENTENCE_END_RE.finditer(line, 0, start):
        left = m.end()
    found = _SENTENCE_END_RE.search(line, end)
    return left, (found.start() + 1 if found else len(line))


def _previous_sentence(line: str, before: int, count: int = 2) -> tuple[int, int]:
    """The bounds of the ``count`` sentences that end just before ``before`` ("… 0 life.
    (704.5a)"): a citation after a paragraph is about more than its last sentence."""
    head = line[:before].rstrip()
    left = len(head)
    for _ in range(count):
        if left <= 0:
            break
        left, _ = _sentence(head, max(left - 1, 0), left)
    return left, len(head)


def _enclosing_paren(line: str, start: int, end: int) -> tuple[int, int] | None:
    """The bounds of the parenthesis around ``start``…``end``, if there is one."""
    depth, open_at = 0, -1
    # Only the brackets are visited (found by a regular expression), not every character.
    for i in reversed([m.start() for m in _BRACKET_RE.finditer(line, 0, start)]):
        if line[i] in ")]":
            depth += 1
        elif depth == 0:
            open_at = i
            break
        else:
            depth -= 1
    if open_at < 0:
        return None
    depth = 0
    for m in _BRACKET_RE.finditer(line, end):
        if m.group() in "([":
            depth += 1
        elif depth == 0:
            return open_at, m.start() + 1
        else:
            depth -= 1
    return None


def _blank(line: str, refs: list[TextReference], lo: int, hi: int) -> str:
    """``line[lo:hi]`` with the citations in it blanked (and "–10" after "712.9")."""
    pieces: list[str] = []
    at = lo
    for r in refs:
        if r.start >= hi:
            break  # citations are in the order of the line
        tail = _RANGE_TAIL_RE.match(line, r.end)
        start, end = max(r.start, at), min(tail.end() if tail else r.end, hi)
        if end <= start:
            continue
        pieces.append(line[at:start])
        pieces.append(" " * (end - start))
        at = end
    pieces.append(line[at:hi])
    return "".join(pieces)


def _clause_start(line: str, stop: int, floor: int) -> int:
    """Where the clause that ends at ``stop`` begins (not before ``floor``)."""
    left = floor
    for m in _SENTENCE_END_RE.finditer(line, floor, stop):
        left = m.end()
    for m in _CLAUSE_END_RE.finditer(line, left, stop):
        left = m.end()
    return left


def _last_words(text: str, count: int) -> str:
    """The end of ``text`` holding its last ``count`` content words."""
    words = _WORD_RE.findall(text)
    seen, cut = 0, 0
    for k in range(len(words) - 1, -1, -1):
        if is_content_token(words[k].lower()):
            seen += 1
            if seen == count:
                cut = k
                break
    return " ".join(words[cut:])


def _first_words(text: str, count: int) -> str:
    """The start of ``text`` holding its first ``count`` content words."""
    words = _WORD_RE.findall(text)
    seen = 0
    for k, word in enumerate(words):
        if is_content_token(word.lower()):
            seen += 1
            if seen == count:
                return " ".join(words[: k + 1])
    return " ".join(words)


def _plain(text: str) -> str:
    """One line of words: runs of space folded, control and bidi characters made spaces (the
    words are shown to people, and came from a file)."""
    return " ".join(_UNPRINTABLE_RE.sub(" ", text).split()).strip(" ,;:()[]")


def find_context(line: str, refs: list[TextReference], i: int) -> Context:
    """What citation ``refs[i]`` of ``line`` is about (``refs``: every citation of the line)."""
    ref = refs[i]
    for kind, pattern in (
        ("title", _TITLE_RE),
        ("parenthesis", _PAREN_RE),
        ("appositive", _APPOSITIVE_RE),
    ):
        m = pattern.match(line, ref.end)
        if m is not None and not find_references(m.group(1)):
            words = _plain(m.group(1)).strip(" .,;:")
            if not _is_lead(words):
                return Context(words, kind)
    floor = refs[i - 1].end if i > 0 else 0
    ceiling = refs[i + 1].start if i + 1 < len(refs) else len(line)
    paren = _enclosing_paren(line, ref.start, ref.end)
    if paren is not None and _CONTRAST_RE.search(line, paren[0], ref.start):
        return Context("", "contrast")
    if paren is not None and _is_lead(_blank(line, refs, paren[0] + 1, paren[1] - 1)):
        # "… a target (see rule 115.6)": the parenthesis annotates what comes before it, for
        # every citation in it ("… poison counters. (704.5s and 704.5t)").
        outside = max((r.end for r in refs if r.end <= paren[0]), default=0)
        start = _clause_start(line, paren[0], outside)
        before = _blank(line, refs, start, paren[0])
        if not _is_lead(before) and not _ENDS_SENTENCE_RE.search(before):
            return Context(_plain(_last_words(before, _CLAUSE_WINDOW)), "clause")
        # "… I'd imagine. (704.5k)": after a full stop it annotates the sentences before.
        lo, hi = _previous_sentence(line, paren[0])
        return _sentence_context(line, refs, max(lo, outside), hi, "clause")
    first, last = _sentence(line, ref.start, ref.end)
    if _CONTRAST_RE.search(line, first, ref.start):
        # "This is an exception to rule 613.7m": the words say what the rule cited is not.
        return Context("", "contrast")
    if _is_lead(_blank(line, refs, first, last)):
        # "See rule 108.4." on its own: it is about the sentence before it.
        lo, hi = _previous_sentence(line, first)
        return _sentence_context(line, refs, lo, hi, "sentence")
    lo, hi = max(first, floor), min(last, ceiling)
    left = _LEAD_TAIL_RE.sub("", _blank(line, refs, _clause_start(line, ref.start, lo), ref.start))
    right = line[ref.end : hi]
    m = _CLAUSE_END_RE.search(right)
    if m is not None:
        right = right[: m.start()]
    words = _plain(f"{_last_words(left, _WINDOW)} {_first_words(right, _WINDOW)}")
    before = ""
    if first > 0:
        lo, hi = _previous_sentence(line, first)
        before = _plain(_blank(line, refs, lo, hi))
    return Context(words, "words", before) if words else Context("", "none")


def _sentence_context(line: str, refs: list[TextReference], lo: int, hi: int, kind: str) -> Context:
    words = _plain(_blank(line, refs, lo, hi))
    return Context(words, kind) if words and not _is_lead(words) else Context("", "none")
