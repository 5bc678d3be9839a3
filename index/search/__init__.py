"""Full-text search over an edition: one whoosh index per build folder, ranked for how players ask.

The index lives in ``<build folder>/search/`` and is written by :func:`build_search_index` while
the build folder is still private (the store's ``extra`` hook), so it goes live atomically with
the rest of the edition. Rules, examples (folded under their rule in the results), glossary
entries and sections of the sample and of notes are its documents. Queries (:func:`search`) are
folded, MTG shorthand and players' phrasing are expanded through :data:`SHORTHAND` and
:data:`PLAYER_WORDS`, a rule number goes straight to that rule, and words missing from the index
are matched fuzzily.

The parts:

* :mod:`index.search.words`: tokens and word tables (shorthand, players' words, stemming);
* :mod:`index.search.phrasings`: players' questions about rules, indexed with the rules;
* :mod:`index.search.schema`: the schema, the documents, building and opening indexes;
* :mod:`index.search.query`: reading a query into a whoosh query;
* :mod:`index.search.rank`: the direct BM25F scorer and the re-ranking;
* this module: the results, their snippets, and :func:`search` / :func:`search_documents`.

whoosh is imported only inside functions, lazily.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .query import (
    _FIELDS,
    _OPERATORS,
    _SECTION_RE,
    MAX_QUERY_CHARS,
    QuerySyntaxError,
    _check_query,
    _parse,
    _rule_numbers,
    _scope_filter,
)
from .query import FIELD_BOOSTS as FIELD_BOOSTS
from .query import SCOPES as SCOPES
from .rank import (
    _POOL,
    _concepts,
    _coverage,
    _document,
    _headings_to_first_rule,
    _lend,
    _phrasings_to_rules,
    _prune,
    _redirects,
    _top,
    _weighting,
)
from .rank import COMMON as COMMON
from .rank import COORDINATION as COORDINATION
from .rank import HEADING as HEADING
from .rank import LEND as LEND
from .schema import (
    SCHEMA_VERSION,
    NoSearchIndexError,
    _doc_frequency,
    _whoosh,
    build_ram_index,
    build_search_index,
    document_hash,
    index_is_current,
    open_search_index,
)
from .schema import Progress as Progress
from .schema import build_cached_index as build_cached_index
from .schema import build_notes_index as build_notes_index
from .schema import rebuild_search_index as rebuild_search_index
from .words import _QUESTION_WORDS, PLAYER_WORDS, SHORTHAND, _stem, _stems
from .words import TOKEN_PATTERN as TOKEN_PATTERN

if TYPE_CHECKING:
    from whoosh.index import Index

__all__ = [
    "MAX_QUERY_CHARS",
    "PLAYER_WORDS",
    "SCHEMA_VERSION",
    "SHORTHAND",
    "NoSearchIndexError",
    "QuerySyntaxError",
    "SearchResult",
    "SearchResults",
    "build_ram_index",
    "build_search_index",
    "document_hash",
    "index_is_current",
    "open_search_index",
    "search",
    "search_documents",
]
# The other public names of the module this package was split from stay importable from here
# (imported above as ``X as X``): COMMON, COORDINATION, FIELD_BOOSTS, HEADING, LEND, Progress,
# SCOPES, TOKEN_PATTERN, build_cached_index, build_notes_index and rebuild_search_index.


@dataclass(frozen=True)
class SearchResult:
    """One hit: a rule, a glossary entry or a section, with a snippet and its highlights."""

    id: str
    """``704.5j``, ``glossary:Legend Rule`` or a section id ``section:<id>``."""
    kind: str
    """``rule``, ``glossary`` or ``section`` (examples are folded under their rule)."""
    number: str | None
    term: str | None
    score: float
    snippet: str
    """Plain text around the matches."""
    marks: tuple[tuple[int, int], ...] = ()
    """Spans of ``snippet`` that matched the query (for bold output)."""
    title: str | None = None
    """The rule's title, or the section's heading."""
    example: str | None = None
    """For a rule found through one of its examples: that example's snippet."""
    source: str | None = None
    """For a section: the document it comes from."""

    def to_json(self) -> dict[str, Any]:
        """The ``judge search --json`` record (stable keys first)."""
        return {
            "id": self.id,
            "kind": self.kind,
            "number": self.number,
            "term": self.term,
            "score": round(self.score, 3),
            "snippet": self.snippet,
            "title": self.title,
            "example": self.example,
            "source": self.source,
        }


@dataclass
class SearchResults:
    """What one query found, copied out of whoosh before its searcher closed."""

    edition: str | None
    query: str
    results: list[SearchResult] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)
    """"Did you mean" queries, offered when nothing matched."""
    jumped: bool = False
    """True when the query named a rule number and the results start at that rule."""

    def to_json(self) -> dict[str, Any]:
        """The ``judge search --json`` object."""
        return {
            "edition": self.edition,
            "query": self.query,
            "results": [r.to_json() for r in self.results],
            "suggestions": self.suggestions,
        }


_SNIPPET_CHARS = 240


def _snippet_of(text: str, wanted: frozenset[str]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The stored (published) text around the words in ``wanted``, with their spans.

    Short texts are shown whole; a long one is cut to the window of about
    :data:`_SNIPPET_CHARS` characters that holds the most different matched words.
    """
    spans = [(st, a, b) for st, a, b in _stems(text) if st in wanted] if wanted else []
    if len(text) <= _SNIPPET_CHARS + 20:
        return text, tuple((a, b) for _, a, b in spans)
    lo = 0
    if spans:
        best = -1
        for i, (_, a, _b) in enumerate(spans):
            inside = {st for st, x, y in spans[i:] if y <= a + _SNIPPET_CHARS - 60}
            if len(inside) > best:
                best, lo = len(inside), a
        lo = max(0, lo - 60)
        if lo:
            space = text.rfind(" ", 0, lo + 1)
            lo = space + 1 if space >= 0 else 0
    hi = min(len(text), lo + _SNIPPET_CHARS)
    if hi < len(text):
        space = text.rfind(" ", lo, hi)
        hi = space if space > lo else hi
    head = "… " if lo else ""
    tail = " …" if hi < len(text) else ""
    shift = len(head) - lo
    marks = tuple((a + shift, b + shift) for _, a, b in spans if a >= lo and b <= hi)
    return head + text[lo:hi].strip() + tail, marks


def _record(fields: dict[str, Any], score: float, wanted: frozenset[str]) -> SearchResult:
    kind = fields["kind"]
    snippet, marks = _snippet_of(fields.get("body") or "", wanted)
    if kind == "glossary":
        term = fields["term"]
        return SearchResult(f"glossary:{term}", "glossary", None, term, score, snippet, marks)
    if kind == "section":
        return SearchResult(
            fields["id"],
            "section",
            None,
            None,
            score,
            snippet,
            marks,
            title=fields.get("title") or None,
            source=fields.get("source"),
        )
    return _rule_result(fields, score, snippet, marks)


def _rule_result(
    fields: dict[str, Any], score: float, snippet: str, marks: tuple[tuple[int, int], ...]
) -> SearchResult:
    """The result record of a rule document."""
    number = fields["number"]
    title = fields.get("title") or fields.get("group") or None
    return SearchResult(number, "rule", number, None, score, snippet, marks, title=title)


def _rule_record(searcher: Any, number: str, score: float) -> SearchResult | None:
    fields = _document(searcher, number)
    if fields is None:
        return None
    return _rule_result(fields, score, fields.get("body", ""), ())


def _suggest(searcher: Any, words: list[str]) -> list[str]:
    """A corrected query for words the index lacks, or nothing."""
    corrected: list[str] = []
    changed = False
    reader = searcher.reader()
    for word in words:
        low = word.lower()
        # Known: too short to correct, a question word (never indexed), or indexed as its stem.
        if (
            len(low) < 3
            or low in _QUESTION_WORDS
            or any(_doc_frequency(reader, f, _stem(low)) for f in _FIELDS)
        ):
            corrected.append(word)
            continue
        best: list[str] = []
        for fieldname in ("term", "body"):
            try:
                best = searcher.suggest(fieldname, low, limit=1, maxdist=2, prefix=1)
            except Exception:  # whoosh's corrector can fail on odd input; suggestions are optional
                best = []
            if best:
                break
        if best and best[0] != low:
            corrected.append(best[0])
            changed = True
        else:
            corrected.append(word)
    return [" ".join(corrected)] if changed else []


def _nearest_rules(searcher: Any, number: str) -> list[str]:
    """The rule numbers of the index nearest ``number`` (which it does not have)."""
    from ..model import nearest_numbers
    from ..numbers import InvalidRuleReferenceError, parse_rule_number

    known: list[str] = []
    for raw in searcher.lexicon("number"):
        text = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
        try:
            parse_rule_number(text)
        except InvalidRuleReferenceError:
            continue
        known.append(text)
    return nearest_numbers(known, number)


def search(
    target: Path | Index,
    query: str,
    *,
    limit: int = 10,
    scope: str = "all",
    edition: str | None = None,
    extra: list[Index] | None = None,
    searcher: Any = None,
) -> SearchResults:
    """Searches an index (a build folder or an opened whoosh index) and copies the hits out.

    ``extra`` indexes (notes) are searched too and merged by score; an open ``searcher`` of
    an opened index is reused (see :func:`search_documents`). Raises
    :class:`QuerySyntaxError` for a query that cannot be searched and
    :class:`NoSearchIndexError` for a folder without an index.
    """
    if scope not in SCOPES:
        raise QuerySyntaxError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
    if isinstance(target, Path):
        ix, meta = open_search_index(target)
        edition = edition or meta.get("edition")
    else:
        ix = target
    try:
        return search_documents(
            ix,
            query,
            limit=limit,
            scope=scope,
            edition=edition,
            extra=extra or [],
            searcher=searcher,
        )
    finally:
        if isinstance(target, Path):
            ix.close()


def search_documents(
    ix: Index,
    query: str,
    *,
    limit: int = 10,
    scope: str = "all",
    edition: str | None = None,
    extra: list[Index] | None = None,
    searcher: Any = None,
) -> SearchResults:
    """Runs ``query`` on an opened index (see :func:`search`).

    Pass an open ``searcher`` (``ix.searcher()``) to reuse it across queries: opening one
    reads every segment file, which is most of the time a warm query takes.
    """
    w = _whoosh()
    cleaned = _check_query(query)
    limit = max(1, min(limit, 200))
    out = SearchResults(edition, query)
    numbers, rest = ([], cleaned) if scope == "glossary" else _rule_numbers(cleaned)
    pinned: list[SearchResult] = []
    seen: set[str] = set()
    own = searcher is None
    if searcher is None:
        searcher = ix.searcher(weighting=_weighting())
    try:
        for number in numbers:
            rec = _rule_record(searcher, number, 1000.0)
            if rec is not None and rec.id not in seen:
                pinned.append(rec)
                seen.add(rec.id)
        if pinned and not rest:
            # A bare rule number: that rule, then its subrules in order.
            out.jumped = True
            kids = searcher.search(
                w.query.Term("parent", pinned[0].number), limit=limit, sortedby="order"
            )
            children = [_rule_record(searcher, h["number"], 0.0) for h in kids]
            out.results = (pinned + [c for c in children if c is not None])[:limit]
            return out
        if numbers and not pinned and not rest:
            # Only rule numbers, none of them in this edition: say which are nearest.
            out.suggestions = _nearest_rules(searcher, numbers[0])
            return out
        out.jumped = bool(pinned)
        hits = _run(ix, searcher, rest or cleaned, limit, scope, seen)
        if extra:
            for other in extra:
                with other.searcher(weighting=_weighting()) as s2:
                    hits += _run(other, s2, rest or cleaned, limit, scope, seen)
            hits.sort(key=lambda r: -r.score)
        out.results = (pinned + hits)[:limit]
        if not out.results:
            words = re.findall(r"[\w'/-]+", rest or cleaned)
            out.suggestions = _suggest(searcher, [x for x in words if x not in _OPERATORS])
    finally:
        if own:
            searcher.close()
    return out


def _run(
    ix: Any, searcher: Any, text: str, limit: int, scope: str, seen: set[str]
) -> list[SearchResult]:
    w = _whoosh()
    sections: list[str] = []

    def take(m: re.Match[str]) -> str:
        sections.append(m.group(1))
        return " "

    if "section:" in text.lower():
        text = _SECTION_RE.sub(take, text)
    text = text.strip()
    if not text:
        if not sections:
            return []
        q = w.query.Every()
    else:
        q = _parse(ix, searcher, text)
    flt = _scope_filter(scope)
    if sections:
        section_q = w.query.Or([w.query.Term("section", x) for x in sections])
        flt = section_q if flt is None else w.query.And([flt, section_q])
    concepts = _concepts(q, searcher.reader()) if text else []
    hits = _top(searcher, _prune(q, searcher.reader()), max(_POOL, limit * 3), flt)
    wanted = frozenset(str(t) for f, t in q.iter_all_terms() if f in _FIELDS)
    if len(concepts) > 1:
        hits = [(s * _coverage(f, concepts) ** COORDINATION, f) for s, f in hits]
        hits.sort(key=lambda h: -h[0])  # each later step keeps the order when it changes nothing
    hits = _phrasings_to_rules(hits)
    if text:
        hits = _redirects(searcher, hits)
    if scope != "glossary":
        hits = _lend(searcher, hits)
    if text:
        hits = _headings_to_first_rule(searcher, hits)
    records: list[SearchResult] = []
    for score, fields in hits:
        if fields["kind"] in ("example", "asked"):
            # An example or a players' phrasing is reported as its rule.
            number = fields["number"]
            if number in seen:
                continue
            rule = _document(searcher, number)
            if rule is None:
                continue
            seen.add(number)
            rec = _record(rule, score, wanted)
            if fields["kind"] == "example":
                example, _marks = _snippet_of(fields.get("body") or "", wanted)
                rec = dataclasses.replace(rec, example=example)
            records.append(rec)
        else:
            rec = _record(fields, score, wanted)
            if rec.id in seen:
                continue
            seen.add(rec.id)
            records.append(rec)
        if len(records) >= limit:
            break
    return records
