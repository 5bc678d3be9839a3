"""Ranking: BM25F scored directly (:func:`_top`), then re-ranked for how players ask.

A question's best BM25F hits (:data:`_POOL` of them, its very common words pruned first) are
re-ranked by how much of the question they cover (:func:`_coverage`, :data:`COORDINATION`); a
heading gives way to its first rule (:data:`HEADING`) and a glossary entry lends its score to
the one rule it names (:data:`LEND`). whoosh is imported lazily, inside the functions.
"""

from __future__ import annotations

import heapq
import math
import re
import weakref
from collections.abc import Callable
from typing import Any

from .query import _FIELDS
from .schema import _doc_frequency, _is_title, _whoosh
from .words import _NUMBER_KEYS, _Pattern, _stem_set

_WEIGHTING: Any = None


def _weighting() -> Any:
    global _WEIGHTING
    if _WEIGHTING is None:
        _WEIGHTING = _whoosh().scoring.BM25F(B=0.75, K1=1.2)
    return _WEIGHTING


_POOL = 65
"""How many best BM25F hits are re-ranked by how much of the question they cover (more when
``--limit`` asks for more than a third of them). The pool does not grow with ``--limit`` below
that, so the first results are the same whatever the limit. 65, not 30: the answers that the
coverage re-rank lifts into the top 5 are often beyond the 30th BM25F hit (525 questions:
MRR 0.698 → 0.707, R@5 0.830 → 0.834; 100 gave 0.709)."""
COORDINATION = 2.0
"""Exponent of the coordination factor (tuned on half A of the benchmark): a hit's score is
multiplied by (idf-weighted share of the query's words it contains) ** COORDINATION."""


def _concepts(q: Any, reader: Any) -> list[tuple[frozenset[str], float]]:
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
    total = max(1, reader.doc_count())
    groups: dict[str, set[str]] = {}
    for part in parts:
        if type(part) is Term:
            stems = frozenset([str(part.text)])
            # A number and its spelling ("10", "ten"; "no", "0", "zero") are one word.
            key = _NUMBER_KEYS.get(str(part.text), str(part.text))
        else:
            stems = frozenset(str(t) for f, t in part.iter_all_terms() if f in _FIELDS)
            key = " ".join(sorted(stems))
        groups.setdefault(key, set()).update(stems)
    out: dict[frozenset[str], float] = {}
    for members in groups.values():
        stems = frozenset(members)
        if not stems or stems in out:
            continue
        df = min(
            _doc_frequency(reader, "body", t) + _doc_frequency(reader, "title", t) for t in stems
        )
        out[stems] = math.log(1 + total / (1 + df))
    return list(out.items())


COMMON = 0.08
"""Words in more than this share of the documents are left out of the BM25F pass of a
many-word question (they add little to its ranking and most of its cost); they still count in
the coordination re-rank and are still highlighted."""


def _prune(q: Any, reader: Any) -> Any:
    """``q`` without its very common words, if it is a plain OR of several words."""
    from whoosh.query import Or, Term

    if type(q) is not Or:
        return q
    limit = COMMON * max(1, reader.doc_count())
    keep = [
        p
        for p in q.subqueries
        if type(p) is not Term or _doc_frequency(reader, p.fieldname, p.text) <= limit
    ]
    if len({str(p.text) if type(p) is Term else id(p) for p in keep}) < 2:
        return q
    return Or(keep, boost=q.boost, scale=q.scale)


def _coverage(fields: dict[str, Any], concepts: list[tuple[frozenset[str], float]]) -> float:
    """The idf-weighted share of ``concepts`` found in a hit's term, title and body."""
    have = frozenset().union(*(_stem_set(str(fields.get(f) or "")) for f in (*_FIELDS, "roots")))
    total = sum(w for _, w in concepts) or 1.0
    return sum(w for stems, w in concepts if stems & have) / total


def _phrasings_to_rules(
    hits: list[tuple[float, dict[str, Any]]],
) -> list[tuple[float, dict[str, Any]]]:
    """``hits`` with each players' phrasing (:mod:`index.search.phrasings`) folded into its rule.

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
    rules = {str(f["id"]) for _, f in hits if f["kind"] == "rule"}
    out: list[tuple[float, dict[str, Any]]] = []
    for score, fields in hits:
        if fields["kind"] == "asked":
            if fields["number"] not in rules:
                out.append((score, fields))
        elif fields["kind"] == "rule" and fields["id"] in best:
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


def _raise_rules(
    searcher: Any, hits: list[tuple[float, dict[str, Any]]], raised: dict[str, float]
) -> list[tuple[float, dict[str, Any]]]:
    """``hits`` with each document of ``raised`` (by id) scored at least that much (fetched if
    missing), best first."""
    raised = dict(raised)
    out = [(max(s, raised.pop(f["id"], 0.0)), f) for s, f in hits]
    for number, score in raised.items():
        found = _document(searcher, number)
        if found is not None:
            out.append((score, found))
    out.sort(key=lambda h: -h[0])
    return out


def _give_way(
    searcher: Any,
    hits: list[tuple[float, dict[str, Any]]],
    successor: Callable[[dict[str, Any]], str | None],
) -> list[tuple[float, dict[str, Any]]]:
    """``hits`` with each hit that has a successor (by id) lowered to :data:`HEADING` of its
    score and the successor raised to the hit's full score; ``hits`` as they are if none has."""
    lifted: dict[str, float] = {}
    out: list[tuple[float, dict[str, Any]]] = []
    for score, fields in hits:
        target = successor(fields)
        if target is not None:
            lifted[target] = max(lifted.get(target, 0.0), score)
            score *= HEADING
        out.append((score, fields))
    return _raise_rules(searcher, out, lifted) if lifted else hits


def _first_rule_of_heading(fields: dict[str, Any]) -> str | None:
    if fields["kind"] == "rule" and _is_title(str(fields.get("body") or "")):
        return _first_rule(str(fields["id"]))
    return None


def _headings_to_first_rule(
    searcher: Any, hits: list[tuple[float, dict[str, Any]]]
) -> list[tuple[float, dict[str, Any]]]:
    """``hits`` with each heading lowered and its first rule raised to the heading's score."""
    return _give_way(searcher, hits, _first_rule_of_heading)


LEND = 1.05
"""A glossary entry in the re-ranked hits lends this share of its score to the rule its
definition names ("See rule 702.7"): a rules reference answers with the rule, and the entry
that points to it follows (tuned on half A of the benchmark). Only an entry naming one rule
lends; one naming several ("See rules 120.4a, 120.6, ...") is a signpost, not an answer.
Entries lend before headings give way (:data:`HEADING`), so what an entry lends a heading
("Offspring ... See rule 702.175.") goes on to the heading's first rule."""
_ALIAS_RE = _Pattern(r"also called the [“\"][^”\"]+[”\"] \(see rule (\d{3}\.\d+[a-z]?)\)")
_SEE_RULE_RE = _Pattern(r"\bSee rules? ((?:\d{3}(?:\.\d+[a-z]?)?(?:, | and |, and )?)+)")


def _lend(
    searcher: Any, hits: list[tuple[float, dict[str, Any]]]
) -> list[tuple[float, dict[str, Any]]]:
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
    return _raise_rules(searcher, hits, best) if best else hits


_SEE_ENTRY_RE = _Pattern(r"See ([^.\n]+)\.?")


def _redirects(
    searcher: Any, hits: list[tuple[float, dict[str, Any]]]
) -> list[tuple[float, dict[str, Any]]]:
    """``hits`` with each glossary entry that only points to another ("If: See Intervening
    “If” Clause.") lowered as a heading is (:data:`HEADING`) and the entry it names raised to
    its score: the entry named says what the term means."""
    return _give_way(searcher, hits, _entry_pointed_to)


def _entry_pointed_to(fields: dict[str, Any]) -> str | None:
    if fields["kind"] != "glossary":
        return None
    m = _SEE_ENTRY_RE.fullmatch(str(fields.get("body") or "").strip())
    if m is None or m.group(1).startswith("rule"):
        return None
    return f"glossary:{m.group(1)}"


_LENGTHS: weakref.WeakKeyDictionary[Any, dict[str, dict[int, float]]] = weakref.WeakKeyDictionary()
"""Field lengths looked up so far, per reader (a warm searcher asks for the same ones)."""
_STORED: weakref.WeakKeyDictionary[Any, dict[int, dict[str, Any]]] = weakref.WeakKeyDictionary()
"""Stored fields read so far, per reader (read only: the same rules come back for many
questions, and unpickling them was a tenth of a warm query)."""


_POSTINGS: weakref.WeakKeyDictionary[
    Any, dict[tuple[str, bytes], tuple[float, list[int], list[float]] | None]
] = weakref.WeakKeyDictionary()
"""Per reader: a term's idf and postings as read so far (None: not in the index). A warm
process asks for the same common words in most questions; decoding their postings was a
fifth of a query."""


_REMEMBERED = 20_000
"""Terms (and phrases) remembered per reader before the memory is cleared."""
_MATCHED: weakref.WeakKeyDictionary[Any, dict[tuple[Any, int], list[tuple[int, float]]]] = (
    weakref.WeakKeyDictionary()
)
"""Per reader: what each phrase or group of a question matched, with its score."""


def _read_postings(
    searcher: Any, fieldname: str, text: bytes
) -> tuple[float, list[int], list[float]] | None:
    """A term's idf, document numbers and weights; None if the index lacks it."""
    reader = searcher.reader()
    if (fieldname, text) not in reader:
        return None
    m = reader.postings(fieldname, text)
    ids: list[int] = []
    weights: list[float] = []
    if all(hasattr(m, a) for a in ("_read_ids", "_read_weights", "_next_block", "_ids")):
        # whoosh 2.7.4's W3LeafMatcher decodes a block of postings at a time: take it whole
        # (a posting at a time through id()/weight()/next() was most of a warm query).
        while m.is_active():
            if m._ids is None:
                m._read_ids()
            if m._weights is None:
                m._read_weights()
            ids.extend(m._ids[m._i :])
            weights.extend(m._weights[m._i :])
            m._i = m._blocklength
            m._next_block()
    else:
        while m.is_active():
            ids.append(m.id())
            weights.append(m.weight())
            m.next()
    return float(searcher.idf(fieldname, text)), ids, weights


def _document(searcher: Any, number: str) -> dict[str, Any] | None:
    """``searcher.document(id=number)``, remembered per reader (stored fields never change)."""
    cache = _BY_ID.setdefault(searcher.reader(), {})
    if number not in cache:
        cache[number] = searcher.document(id=number)
    return cache[number]


_BY_ID: weakref.WeakKeyDictionary[Any, dict[str, dict[str, Any] | None]] = (
    weakref.WeakKeyDictionary()
)


def _top(searcher: Any, q: Any, limit: int, flt: Any) -> list[tuple[float, dict[str, Any]]]:
    """The ``limit`` best (score, stored fields) of ``q``, as ``searcher.search`` ranks them.

    A plain OR (what a question parses to) is scored here directly: per term, its
    postings' BM25F scores (whoosh's own formula, statistics and summation order, so the
    scores are the same to the last bit) are added into one table; ties go to the earlier
    document, as in whoosh's collector. This skips whoosh's union matcher and collector, most
    of the time a many-word question took. A phrase or group inside the OR is scored by its own
    whoosh matcher; any other query goes through ``searcher.search``.
    """
    from whoosh.query import Or, Term
    from whoosh.scoring import BM25F

    reader = searcher.reader()
    parts = q.subqueries if type(q) is Or else [q]
    weighting = searcher.weighting
    if (
        type(weighting) is not BM25F
        or (type(q) is Or and (q.boost != 1.0 or q.scale or q.minmatch))
        or (type(q) is not Or and type(q) is not Term)
        or reader.has_deletions()
        or not reader.is_atomic()
    ):
        results = searcher.search(q, limit=limit, filter=flt)
        return [(float(h.score), h.fields()) for h in results]
    allowed = set(searcher.docs_for_query(flt)) if flt is not None else None
    lengths = _LENGTHS.setdefault(reader, {})
    postings = _POSTINGS.setdefault(reader, {})
    phrases = _MATCHED.setdefault(reader, {})
    if len(postings) > _REMEMBERED or len(phrases) > _REMEMBERED:
        postings.clear()  # a long-running process asked about most of the index: start over
        phrases.clear()
    scores: dict[int, float] = {}
    schema = searcher.schema
    context = searcher.context()
    for part in parts:
        if type(part) is not Term:
            # A phrase or a group (shorthand, a fuzzy word): whoosh's matcher scores it (once
            # per reader and weighting: "attacking creature" comes back in many questions).
            key = (part, id(weighting))
            matched = phrases.get(key)
            if matched is None:
                matched = phrases[key] = []
                m = part.matcher(searcher, context)
                while m.is_active():
                    matched.append((m.id(), m.score()))
                    m.next()
            for docnum, score in matched:
                if allowed is None or docnum in allowed:
                    scores[docnum] = scores.get(docnum, 0.0) + score
            continue
        fieldname = part.fieldname
        if fieldname not in schema:
            continue
        field = schema[fieldname]
        try:
            text = field.to_bytes(part.text)
        except ValueError:
            continue
        if (fieldname, text) not in postings:
            postings[(fieldname, text)] = _read_postings(searcher, fieldname, text)
        found = postings[(fieldname, text)]
        if found is None:
            continue
        idf, ids, weights = found
        avgfl = searcher.avg_field_length(fieldname) or 1
        b = weighting._field_B.get(fieldname, weighting.B)
        k1 = weighting.K1
        k1p1, omb = k1 + 1, 1 - b
        boost = part.boost
        flens = lengths.setdefault(fieldname, {})
        for docnum, tf in zip(ids, weights, strict=True):
            if allowed is not None and docnum not in allowed:
                continue
            fl = flens.get(docnum)
            if fl is None:
                fl = flens[docnum] = searcher.doc_field_length(docnum, fieldname, 1)
            # whoosh.scoring.bm25, term for term (so the floats come out the same)
            s = idf * ((tf * k1p1) / (tf + k1 * (omb + b * fl / avgfl)))
            if boost != 1.0:
                s *= boost
            scores[docnum] = scores.get(docnum, 0.0) + s
    best = heapq.nsmallest(limit, scores.items(), key=lambda kv: (-kv[1], kv[0]))
    stored = _STORED.setdefault(reader, {})
    out: list[tuple[float, dict[str, Any]]] = []
    for docnum, score in best:
        if score <= 0:
            continue
        fields = stored.get(docnum)
        if fields is None:
            fields = stored[docnum] = searcher.stored_fields(docnum)
        out.append((score, fields))
    return out
