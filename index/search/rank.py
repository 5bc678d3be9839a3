"""Re-ranking a question's best BM25F hits (:func:`index.search.scoring.top`) for how players ask.

A question's best BM25F hits (:data:`POOL` of them, its very common words pruned first) are
re-ranked by how much of the question they cover (:func:`coverage`, :data:`COORDINATION`); a
heading gives way to its first rule (:data:`HEADING`) and a glossary entry lends its score to
the one rule it names (:data:`LEND`). whoosh is imported lazily, inside the functions.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .asks import prior
from .query import FIELDS
from .schema import is_title
from .words import NUMBER_KEYS, LazyPattern, stem_set

if TYPE_CHECKING:
    from .source import OpenIndex

Hits = list[tuple[float, dict[str, Any]]]
"""(score, stored fields) of documents, best first."""

POOL = 65
"""How many best BM25F hits are re-ranked by how much of the question they cover, whatever
``--limit`` asks for: the first results are the same at any limit (past a third of the pool,
the hits that follow it are re-ranked among more of them, after the pool's). 65, not 30: the
answers that the coverage re-rank lifts into the top 5 are often beyond the 30th BM25F hit
(525 questions: MRR 0.698 → 0.707, R@5 0.830 → 0.834; 100 gave 0.709)."""
COORDINATION = 2.0
"""Exponent of the coordination factor (tuned on half A of the benchmark): a hit's score is
multiplied by (idf-weighted share of the query's words it contains) ** COORDINATION."""


def concepts(q: Any, src: OpenIndex) -> list[tuple[frozenset[str], float]]:
    """The query's words as (stems that match it, idf weight), one per word, phrase or group.

    A plain many-word question parses to one OR over fields; its terms are grouped by text, so
    ``body:legendari`` and ``title:legendari`` are one word. A phrase, or an AND inside the OR,
    counts as one word that any of its stems matches. The alternatives of a shorthand or
    players'-words group count one by one: ``normalize()`` flattens the group into the question's
    OR. (Counting each group as one word was measured: MRR 0.609 → 0.617 over 245 questions,
    but lower on three of the seven halves; not kept.)
    """
    from whoosh.query import Or, Term

    parts = q.subqueries if type(q) is Or else [q]
    total = max(1, src.reader.doc_count())
    groups: dict[str, set[str]] = {}
    for part in parts:
        if type(part) is Term:
            stems = frozenset([str(part.text)])
            # A number and its spelling ("10", "ten"; "no", "0", "zero") are one word.
            key = NUMBER_KEYS.get(str(part.text), str(part.text))
        else:
            stems = frozenset(str(t) for f, t in part.iter_all_terms() if f in FIELDS)
            key = " ".join(sorted(stems))
        groups.setdefault(key, set()).update(stems)
    out: dict[frozenset[str], float] = {}
    for members in groups.values():
        stems = frozenset(members)
        if not stems or stems in out:
            continue
        df = min(src.doc_frequency("body", t) + src.doc_frequency("title", t) for t in stems)
        out[stems] = math.log(1 + total / (1 + df))
    return list(out.items())


COMMON = 0.08
"""Words in more than this share of the documents are left out of the BM25F pass of a
many-word question (they add little to its ranking and most of its cost); they still count in
the coordination re-rank and are still highlighted."""


def prune(q: Any, src: OpenIndex) -> Any:
    """``q`` without its very common words, if it is a plain OR of several words."""
    from whoosh.query import Or, Term

    if type(q) is not Or:
        return q
    limit = COMMON * max(1, src.reader.doc_count())
    keep = [
        p
        for p in q.subqueries
        if type(p) is not Term or src.doc_frequency(p.fieldname, p.text) <= limit
    ]
    # Words kept only in fields that lack them match nothing: they do not count.
    matching = {
        str(p.text) if type(p) is Term else id(p)
        for p in keep
        if type(p) is not Term or src.doc_frequency(p.fieldname, p.text)
    }
    if len(matching) < 2:
        return q
    return Or(keep, boost=q.boost, scale=q.scale)


_COVERED = (*FIELDS, "roots")


@functools.lru_cache(maxsize=16_384)
def _stems_of(*texts: str) -> frozenset[str]:
    """The stems of a document's searched fields together, remembered per document: the pool
    of every many-word question is scored by them, and ``stem_set``'s own cache is smaller
    than an edition."""
    return frozenset().union(*map(stem_set, texts))


def coverage(fields: dict[str, Any], concepts: list[tuple[frozenset[str], float]]) -> float:
    """The idf-weighted share of ``concepts`` found in a hit's term, title and body."""
    have = _stems_of(*(str(fields.get(f) or "") for f in _COVERED))
    total = sum(w for _, w in concepts) or 1.0
    return sum(w for stems, w in concepts if stems & have) / total


def phrasings_to_rules(
    hits: Hits,
) -> Hits:
    """``hits`` with each players' phrasing (:mod:`index.search.phrasings`) folded into its rule
    (or its section: :mod:`index.search.extra`).

    A rule found by its own words and by a phrasing scores the sum of its score and its best
    phrasing's score: the two agree. A phrasing whose rule is not among the hits stands in for
    it (and is reported as the rule). Measured on halves A-D of the benchmark, with the first
    round of phrasings: MRR 0.803 when the better of the two counted, 0.840 for the sum (0.832
    with half the phrasing's score added, 0.841 with twice).
    """
    best: dict[str, float] = {}
    for score, fields in hits:
        if fields["kind"] == "asked":
            number = str(fields["number"])
            best[number] = max(best.get(number, 0.0), score)
    if not best:
        return hits
    # A phrasing's number is its rule's id (or a tournament document's section's: ipg:2.1).
    rules = {str(f["id"]) for _, f in hits if f["kind"] != "asked"}
    out: Hits = []
    for score, fields in hits:
        if fields["kind"] == "asked":
            if fields["number"] not in rules:
                out.append((score, fields))
        elif fields["id"] in best:
            out.append((score + best[str(fields["id"])], fields))
        else:
            out.append((score, fields))
    out.sort(key=lambda h: -h[0])
    return out


HEADING = 0.74
"""A rule that is only a heading ("405. Stack", "702.26. Phasing") keeps this share of its
score, and its first rule (405.1, 702.26a) is raised to the heading's full score: the heading's
words are the title every rule under it carries, and the first rule under it is the one that
says what the thing is (e^-0.3; chosen on halves A-D, checked on the held-out half E)."""


def _first_rule(number: str) -> str:
    return f"{number}.1" if "." not in number else f"{number}a"


def _raise_rules(src: OpenIndex, hits: Hits, raised: dict[str, float]) -> Hits:
    """``hits`` with each document of ``raised`` (by id) scored at least that much (fetched if
    missing), best first."""
    raised = dict(raised)
    out = [(max(s, raised.pop(f["id"], 0.0)), f) for s, f in hits]
    for number, score in raised.items():
        found = src.find_document(number)
        if found is not None:
            out.append((score, found))
    out.sort(key=lambda h: -h[0])
    return out


def _give_way(
    src: OpenIndex,
    hits: Hits,
    successor: Callable[[dict[str, Any]], str | None],
) -> Hits:
    """``hits`` with each hit that has a successor (by id) lowered to :data:`HEADING` of its
    score and the successor raised to the hit's full score; ``hits`` as they are if none has."""
    lifted: dict[str, float] = {}
    out: Hits = []
    for score, fields in hits:
        target = successor(fields)
        if target is not None:
            lifted[target] = max(lifted.get(target, 0.0), score)
            score *= HEADING
        out.append((score, fields))
    return _raise_rules(src, out, lifted) if lifted else hits


def _first_rule_of_heading(fields: dict[str, Any]) -> str | None:
    if fields["kind"] == "rule" and is_title(str(fields.get("body") or "")):
        return _first_rule(str(fields["id"]))
    return None


def headings_to_first_rule(src: OpenIndex, hits: Hits) -> Hits:
    """``hits`` with each heading lowered and its first rule raised to the heading's score."""
    return _give_way(src, hits, _first_rule_of_heading)


LEND = 1.05
"""A glossary entry in the re-ranked hits lends this share of its score to the rule its
definition names ("See rule 702.7"): a rules reference answers with the rule, and the entry
that points to it follows (tuned on half A of the benchmark). Only an entry naming one rule
lends; one naming several ("See rules 120.4a, 120.6, ...") is a signpost, not an answer.
Entries lend before headings give way (:data:`HEADING`), so what an entry lends a heading
("Offspring ... See rule 702.175.") goes on to the heading's first rule."""
_ALIAS_RE = LazyPattern(r"also called the [“\"][^”\"]+[”\"] \(see rule (\d{3}\.\d+[a-z]?)\)")
_SEE_RULE_RE = LazyPattern(r"\bSee rules? ((?:\d{3}(?:\.\d+[a-z]?)?(?:, | and |, and )?)+)")


def lend(src: OpenIndex, hits: Hits) -> Hits:
    """``hits`` with the rules that glossary hits name raised to (a share of) their score, and
    the rules that a hit gives a name to ("also called the “legend rule” (see rule 704.5j)")."""
    best: dict[str, float] = {}
    for score, fields in hits:
        body = str(fields.get("body") or "")
        if fields["kind"] == "rule" and "also called" in body:
            # A rule that names another as a glossary entry does ("... also called the
            # “legend rule” (see rule 704.5j)": 205.4d, 205.4f; 420.5e's alias before 2009).
            m = _ALIAS_RE.search(body)
            if m is not None:
                best[m.group(1)] = max(best.get(m.group(1), 0.0), score * LEND)
            continue
        if fields["kind"] != "glossary" or "See rule" not in body:
            continue
        cited = [m.group(1) for m in _SEE_RULE_RE.finditer(body)]
        numbers = re.findall(r"\d{3}(?:\.\d+[a-z]?)?", " ".join(cited))
        if len(numbers) == 1:
            best[numbers[0]] = max(best.get(numbers[0], 0.0), score * LEND)
    return _raise_rules(src, hits, best) if best else hits


_SEE_ENTRY_RE = LazyPattern(r"See ([^.\n]+)\.?")


def redirects(src: OpenIndex, hits: Hits) -> Hits:
    """``hits`` with each glossary entry that only points to another ("If: See Intervening
    “If” Clause.") lowered as a heading is (:data:`HEADING`) and the entry it names raised to
    its score: the entry named says what the term means."""
    return _give_way(src, hits, _entry_pointed_to)


def _entry_pointed_to(fields: dict[str, Any]) -> str | None:
    if fields["kind"] != "glossary":
        return None
    m = _SEE_ENTRY_RE.fullmatch(str(fields.get("body") or "").strip())
    if m is None or m.group(1).startswith("rule"):
        return None
    return f"glossary:{m.group(1)}"


def ranked_hits(
    src: OpenIndex,
    hits: Hits,
    words: list[tuple[frozenset[str], float]],
    text: str,
    *,
    lends: bool = True,
) -> Hits:
    """BM25F ``hits`` (best first) re-ranked: by how much of the question's ``words`` each
    covers, phrasings folded into their rules, redirects and headings giving way, glossary
    entries lending (``lends``) and the priors of the question's ``text``; best first."""
    if len(words) > 1:
        hits = [(s * coverage(f, words) ** COORDINATION, f) for s, f in hits]
        # Each later step keeps the order when it changes nothing.
        hits.sort(key=lambda h: -h[0])
    hits = phrasings_to_rules(hits)
    if text:
        hits = redirects(src, hits)
    if lends:
        hits = lend(src, hits)
    if text:
        hits = headings_to_first_rule(src, hits)
        hits = prior(hits, text)
    return hits
