"""BM25F scored straight from the postings: the one module that reads whoosh's internals.

:func:`top` ranks a question as ``searcher.search`` does, without whoosh's union matcher and
collector (most of the time a many-word question took). It reads two things
whoosh 2.7.4 does not publish, each with a fallback through its public API:

* a W3 leaf matcher's current block (``_ids``, ``_weights``, ``_i``, ``_blocklength``,
  ``_read_ids``, ``_read_weights``, ``_next_block``), to take a block of postings at a time
  (:func:`read_postings`; else ``id()``/``weight()``/``next()`` a posting at a time);
* BM25F's per-field ``B`` (``_field_B``; else its ``B`` for every field).

Any query or index :func:`top` cannot score this way (not a plain OR of terms, another
weighting, deletions, several segments) goes through ``searcher.search``.
``tests/test_search.py`` pins both paths to ``searcher.search``, on the benchmark questions too.
"""

from __future__ import annotations

import bisect
import heapq
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .source import OpenIndex

_BLOCK_ATTRIBUTES = ("_read_ids", "_read_weights", "_next_block", "_ids")


def weighting() -> Any:
    """The scoring every index is searched with: BM25F, B 0.75, K1 1.2."""
    from .engine import whoosh

    return whoosh().scoring.BM25F(B=0.75, K1=1.2)


def read_postings(
    src: OpenIndex, fieldname: str, text: bytes, *, blocks: bool = True
) -> tuple[float, list[int], list[float]] | None:
    """A term's idf, document numbers and weights; None if the index lacks it.

    ``blocks=False`` reads through the public matcher API only.
    """
    searcher = src.searcher
    reader = src.reader
    if (fieldname, text) not in reader:
        return None
    m = reader.postings(fieldname, text)
    ids: list[int] = []
    weights: list[float] = []
    if blocks and all(hasattr(m, a) for a in _BLOCK_ATTRIBUTES):
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


def _scores_directly(src: OpenIndex, q: Any) -> bool:
    """Checks if :func:`top` may score ``q`` itself rather than through ``searcher.search``."""
    from whoosh.query import Or, Term
    from whoosh.scoring import BM25F

    reader = src.reader
    return not (
        type(src.searcher.weighting) is not BM25F
        or (type(q) is Or and (q.boost != 1.0 or q.scale or q.minmatch))
        or (type(q) is not Or and type(q) is not Term)
        or reader.has_deletions()
        or not reader.is_atomic()
    )


def top(
    src: OpenIndex, q: Any, limit: int, flt: Any, *, direct: bool = True
) -> list[tuple[float, dict[str, Any]]]:
    """The ``limit`` best (score, stored fields) of ``q``, as ``searcher.search`` ranks them.

    A plain OR (what a question parses to) is scored here directly: per term, its
    postings' BM25F scores (whoosh's own formula and statistics, term for term) are added into
    one table; ties go to the earlier document, as in whoosh's collector. whoosh adds a
    document's term scores up a binary tree of matchers, this in query order, so a sum may
    differ from whoosh's in its last bit, and two hits that close may swap (one question of
    the 645 of the benchmark, where "Day" and "Night" tie). A phrase or group inside the OR is
    scored by its own whoosh matcher; any other query (or ``direct=False``) goes through
    ``searcher.search``.
    """
    from whoosh.query import Or, Term

    searcher = src.searcher
    if not direct or not _scores_directly(src, q):
        results = searcher.search(q, limit=limit, filter=flt)
        return [(float(h.score), h.fields()) for h in results]
    parts = q.subqueries if type(q) is Or else [q]
    allowed = flt if isinstance(flt, set) or flt is None else set(searcher.docs_for_query(flt))
    few = sorted(allowed) if allowed is not None and len(allowed) < _FEW_MOST else None
    src.forget_if_full()  # a long-running process asked about most of the index: start over
    scores: defaultdict[int, float] = defaultdict(float)
    schema = src.schema
    context = searcher.context()
    for part in parts:
        if type(part) is not Term:
            # A phrase or a group (shorthand, a fuzzy word): whoosh's matcher scores it (once
            # per index: "attacking creature" comes back in many questions).
            matched = src.matched.get(part)
            if matched is None and few is not None and len(few) <= _FEW_SKIPPED:
                # A card's rulings: the matcher is moved to each of them, not run through
                # the index (and not remembered: the next question names other cards).
                for docnum, score in _matched_among(part.matcher(searcher, context), few):
                    scores[docnum] += score
                continue
            if matched is None:
                matched = src.matched[part] = []
                m = part.matcher(searcher, context)
                while m.is_active():
                    matched.append((m.id(), m.score()))
                    m.next()
            for docnum, score in matched:
                if allowed is None or docnum in allowed:
                    scores[docnum] += score
            continue
        fieldname = part.fieldname
        if fieldname not in schema:
            continue
        try:
            text = schema[fieldname].to_bytes(part.text)
        except ValueError:
            continue
        pairs: Iterable[tuple[int, float]]
        if few is not None and len(few) <= _OWN_WORDS_MOST and (fieldname, text) not in src.scored:
            # A card's rulings and a word not read yet: scored from their own words, not from
            # the word's postings through the whole index.
            found = _scored_in_own_words(src, fieldname, text, few)
            if found is None:
                continue
            pairs = found
        else:
            scored = remembered_scores(src, fieldname, text)
            if scored is None:
                continue
            pairs = zip(*scored, strict=True)
            if few is not None and len(few) * _FEW < len(scored[0]):
                pairs = _among(scored, few)
            elif allowed is not None:
                pairs = [(docnum, s) for docnum, s in pairs if docnum in allowed]
        boost = part.boost
        if boost != 1.0:
            for docnum, s in pairs:
                scores[docnum] += s * boost
        else:
            for docnum, s in pairs:
                scores[docnum] += s
    return [
        (score, src.stored_fields(docnum)) for docnum, score in _best(scores, limit) if score > 0
    ]


def remembered_scores(
    src: OpenIndex, fieldname: str, text: bytes
) -> tuple[list[int], list[float]] | None:
    """:func:`term_scores`, remembered in ``src.scored``."""
    key = (fieldname, text)
    if key not in src.scored:
        src.scored[key] = term_scores(src, fieldname, text)
    return src.scored[key]


def term_scores(
    src: OpenIndex, fieldname: str, text: bytes
) -> tuple[list[int], list[float]] | None:
    """The documents a term is in, in order, and its BM25F score in each (whoosh's formula and
    statistics); None if the index lacks it."""
    found = read_postings(src, fieldname, text)
    if found is None:
        return None
    idf, ids, weights = found
    return ids, _bm25(src, fieldname, idf, zip(ids, weights, strict=True))


def _bm25(
    src: OpenIndex, fieldname: str, idf: float, postings: Iterable[tuple[int, float]]
) -> list[float]:
    """BM25F's score of a term of ``idf`` in each of its ``postings`` (document, weight) in
    field ``fieldname``: ``whoosh.scoring.bm25``, term for term (so the floats come out the
    same)."""
    searcher = src.searcher
    weighting_ = searcher.weighting
    avgfl = searcher.avg_field_length(fieldname) or 1
    field_b = getattr(weighting_, "_field_B", None)
    b = field_b.get(fieldname, weighting_.B) if field_b is not None else weighting_.B
    k1 = weighting_.K1
    k1p1, omb = k1 + 1, 1 - b
    flens = src.lengths.setdefault(fieldname, {})
    out = []
    for docnum, tf in postings:
        fl = flens.get(docnum)
        if fl is None:
            fl = flens[docnum] = searcher.doc_field_length(docnum, fieldname, 1)
        out.append(idf * ((tf * k1p1) / (tf + k1 * (omb + b * fl / avgfl))))
    return out


def _scored_in_own_words(
    src: OpenIndex, fieldname: str, text: bytes, few: list[int]
) -> list[tuple[int, float]] | None:
    """The (document, score) of a term in the documents ``few`` that were indexed with it,
    found in each document's own words (:meth:`~index.search.source.OpenIndex.words_of`);
    None if ``fieldname`` is not a text field."""
    from whoosh.fields import TEXT

    if not isinstance(src.schema[fieldname], TEXT):
        return None
    postings = []
    for docnum in few:
        weight = src.words_of(docnum, fieldname).get(text)
        if weight:
            postings.append((docnum, weight))
    if not postings:
        return []  # (the index's table of terms not even looked up: most words of a question)
    idf = float(src.searcher.idf(fieldname, text))
    return list(zip([d for d, _ in postings], _bm25(src, fieldname, idf, postings), strict=True))


_FEW = 8
"""A filter's documents are looked up in a term's postings (rather than the postings read
through) when the term is in more than this many times as many documents."""
_FEW_MOST = 2048
"""Filters of more documents than this are checked against each posting, not looked up."""


_OWN_WORDS_MOST = 64
"""A word not read yet is scored in a filter's documents from their own words
(:func:`_scored_in_own_words`), not from its postings, when the filter has at most this many:
a card's rulings are 1-14 documents for the real questions, a word's postings in the rulings'
index up to thousands. The rulings' part of 91 real questions asked once each (after our
questions; ``scoring.top`` only): 1.36-1.43 → 1.09 ms a question (2026-12-03)."""


_FEW_SKIPPED = 256
"""A phrase or group is scored for a filter's documents one by one (``skip_to``) rather than
through the index when the filter has at most this many. A plain word is not: moving its
matcher to a card's rulings, for a word not yet remembered, made the rulings' part of 91 real
questions asked once each slower (p50 / p95 3.7 / 8.8 → 5.8 / 10.5 ms; 2026-12-03): it is
scored from the documents' own words instead (:data:`_OWN_WORDS_MOST`)."""


def _matched_among(m: Any, few: list[int]) -> list[tuple[int, float]]:
    """The (document, score) of matcher ``m``'s documents among ``few`` (sorted)."""
    out = []
    for docnum in few:
        if not m.is_active():
            break
        if m.id() < docnum:
            m.skip_to(docnum)
            if not m.is_active():
                break
        if m.id() == docnum:
            out.append((docnum, float(m.score())))
    return out


def _among(scored: tuple[list[int], list[float]], few: list[int]) -> list[tuple[int, float]]:
    """The (document, score) of a term's ``scored`` postings for the documents ``few`` (sorted),
    each found by bisection: a card's 20 rulings among a term's thousands."""
    ids, values = scored
    out = []
    for docnum in few:
        at = bisect.bisect_left(ids, docnum)
        if at < len(ids) and ids[at] == docnum:
            out.append((docnum, values[at]))
    return out


def _best(scores: dict[int, float], limit: int) -> list[tuple[int, float]]:
    """The ``limit`` best (document, score), best first, ties to the earlier document (as
    ``heapq.nsmallest(limit, scores.items(), key=lambda kv: (-kv[1], kv[0]))``, faster: the
    ``limit``-th best score is found among the bare floats first)."""
    items = scores.items()
    if len(scores) > limit > 0:
        cut = heapq.nlargest(limit, scores.values())[-1]
        items = [(d, s) for d, s in items if s >= cut]  # type: ignore[assignment]
    return sorted(items, key=lambda kv: (-kv[1], kv[0]))[:limit]
