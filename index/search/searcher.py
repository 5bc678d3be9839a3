"""The :class:`Searcher`: one or more opened indexes, searched together, reused across queries.

A query is read (:mod:`index.search.query`), its best BM25F hits scored
(:mod:`index.search.scoring`) and re-ranked (:mod:`index.search.rank`) in each index, and the
hits of every index merged by score and copied into plain records (:mod:`index.search.results`,
reported by kind as :mod:`index.search.kinds` says).
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .cardquery import CardReading, card_parts, read_cards, shared_signals
from .extra import RULINGS_IN_ALL, names_a_card
from .extra import rulings_of as cards_rulings
from .kinds import Scope, get_scope, kind_of
from .pasted import find_question, is_pasted
from .query import (
    FIELDS,
    LONGEST_CORRECTED,
    OPERATORS,
    check_length,
    check_query,
    parse,
    rule_numbers,
    without_sections,
)
from .rank import POOL, Hits, concepts, prune, ranked_hits
from .results import SearchResult, SearchResults, rule_record, snippet_of
from .scoring import top
from .source import Deferred, OpenIndex
from .words import QUESTION_WORDS, stem

if TYPE_CHECKING:
    from whoosh.index import Index

    from .cardnames import CardSource

Extra = tuple[str, Path, float]
"""An index searched beside an edition's: its source, its folder and its weight."""

MAX_LIMIT = 200
"""The most results one query returns."""


class Searcher:
    """Searches an edition's index, and any others given (notes, …), merging hits by score.

    ``indexes`` are opened whoosh indexes, the edition's first: rule numbers, a rule's subrules
    and "did you mean" come from it. ``sources`` names what each holds (one of
    :data:`~index.search.kinds.SOURCES`; by default the edition's, then notes), and a scope
    reads only the sources it names. ``weights`` scale each index's scores before they are
    merged (by default 1: see :mod:`index.search.extra` for the tournament documents' and the
    rulings'). ``searcher``: a whoosh searcher of the first index to use (its caller closes
    it). ``direct_scoring=False`` scores every query through whoosh's ``searcher.search``
    (slower; the same results but for float rounding, see :mod:`index.search.scoring`).

    Use it in a ``with`` block (or call :meth:`close`) and ask it as many queries as needed:
    what it reads from the indexes is remembered for the next query (see
    :class:`index.search.source.OpenIndex`). One Searcher may serve several threads: its
    queries run one at a time, under its lock, because whoosh's readers seek in shared files
    (and the work is Python, which the interpreter runs one thread at a time anyway). Open one
    Searcher per thread to search in parallel. Searchers share nothing but the process's
    caches of pure functions (word stems, expansion tables), which are safe across threads.

    ``cards``: a card store to read card names in questions with (see
    :mod:`index.search.cardquery`); without one, questions are read as words only. Safe to
    set between queries.
    """

    def __init__(
        self,
        indexes: Sequence[Index | Deferred],
        *,
        edition: str | None = None,
        searcher: Any = None,
        direct_scoring: bool = True,
        cards: CardSource | None = None,
        sources: Sequence[str] | None = None,
        weights: Sequence[float] | None = None,
    ) -> None:
        if not indexes:
            raise ValueError("a Searcher needs at least one index")
        self.edition = edition
        self.cards = cards
        self.direct_scoring = direct_scoring
        self.sources = tuple(sources or ("edition", *["notes"] * (len(indexes) - 1)))
        self.weights = tuple(weights or [1.0] * len(indexes))
        if len(self.sources) != len(indexes) or len(self.weights) != len(indexes):
            raise ValueError("a Searcher needs one source and one weight per index")
        if self.sources[0] != "edition":
            raise ValueError("a Searcher's first index is the edition's")
        self._lock = threading.Lock()
        if isinstance(indexes[0], Deferred):
            raise ValueError("a Searcher's first index is opened")
        self._owned: list[Index] = []
        self._opened: list[OpenIndex | Deferred] = []
        # Kept once opened: what a deferred index says of itself (the cards it has rulings of)
        # still decides whether a question searches it.
        self._deferred = {i: ix for i, ix in enumerate(indexes) if isinstance(ix, Deferred)}
        try:
            for i, ix in enumerate(indexes):
                deferred = isinstance(ix, Deferred)
                self._opened.append(ix if deferred else OpenIndex(ix, searcher if i == 0 else None))
                if i and not deferred:
                    self._source(i).analyse_as(self._source(0))
        except BaseException:
            self.close()
            raise

    @classmethod
    def open(
        cls,
        build_folder: Path,
        notes: Sequence[Path] = (),
        *,
        edition: str | None = None,
        cards: CardSource | None = None,
        extras: Sequence[Extra] = (),
    ) -> Searcher:
        """Opens the index of a build folder, of each notes folder and of each extra
        ``(source, folder, weight)`` (see :func:`index.search.build.open_search_index`, whose
        errors it raises). An extra's is opened when first searched: a search of everything
        reads the documents only for a question about tournaments, and the rulings only for
        one that names a card with rulings (:mod:`index.search.rulingcards`)."""
        from .build import live_search_index, open_search_index

        opened: list[Index] = []
        deferred: list[Deferred] = []
        sources = ["edition", *["notes"] * len(notes), *(source for source, _, _ in extras)]
        weights = [1.0] * (1 + len(notes)) + [weight for _, _, weight in extras]
        try:
            ix, meta = open_search_index(build_folder)
            opened.append(ix)
            for folder in notes:
                opened.append(open_search_index(folder)[0])
            for _, folder, _ in extras:
                deferred.append(Deferred(folder, live_search_index(folder)[0]))
            found = cls(
                [*opened, *deferred],
                edition=edition or meta.get("edition"),
                cards=cards,
                sources=sources,
                weights=weights,
            )
        except BaseException:
            for ix in opened:
                ix.close()
            raise
        found._owned = opened
        return found

    def __enter__(self) -> Searcher:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        """Checks if :meth:`close` has been called."""
        return not self._opened

    def close(self) -> None:
        """Closes the whoosh searchers (and the indexes :meth:`open` opened)."""
        with self._lock:
            for src in self._opened:
                if isinstance(src, OpenIndex):
                    src.close()
            self._opened = []
            for ix in self._owned:
                ix.close()
            self._owned = []

    def search(self, query: str, *, limit: int = 10, scope: str = "all") -> SearchResults:
        """The ``limit`` best results for ``query`` in ``scope`` (see
        :data:`index.search.kinds.SCOPE_TABLE`).

        Raises :class:`~index.search.query.QuerySyntaxError` for a query that cannot be
        searched (and its :class:`~index.search.kinds.UnknownScopeError` for a scope).
        """
        where = get_scope(scope)
        with self._lock:
            if not self._opened:
                raise ValueError("search on a closed Searcher")
            return self._search(query, max(1, min(limit, MAX_LIMIT)), where)

    def find_record(self, doc_id: str, scope: str = "all") -> SearchResult | None:
        """The record (score 0) of a rule or glossary entry of the edition's index, by id.

        ``None`` when the index lacks it or ``scope`` does not search it.
        """
        where = get_scope(scope)
        with self._lock:
            if not self._opened:
                raise ValueError("search on a closed Searcher")
            fields = self._source(0).find_document(doc_id)
        if fields is None or fields.get("kind") not in ("rule", "glossary"):
            return None
        if where.match is not None and not any(fields.get(f) == v for f, v in where.match):
            return None
        return _record(fields, 0.0, frozenset())

    def _search(self, query: str, limit: int, scope: Scope) -> SearchResults:
        from .engine import whoosh

        w = whoosh()
        out = SearchResults(self.edition, query)
        if is_pasted(query):
            check_length(query)
            out.searched = find_question(query)
        cleaned = check_query(out.searched or query)
        typed = cleaned  # the card names left in: what a rulings index searches
        primary = self._source(0)
        reading = self._read_cards(out.searched or query, primary)
        if reading is not None:
            out.cards = reading.names
            out.cards_misspelt = reading.misspelt
            typed = reading.spelt(typed)
            cleaned = _without_names(reading)
        numbers, rest = rule_numbers(cleaned) if scope.rule_numbers else ([], cleaned)
        pinned: list[SearchResult] = []
        seen: set[str] = set()
        for number in numbers:
            rec = _rule_by_number(primary, number, 1000.0)
            if rec is not None and rec.id not in seen:
                pinned.append(rec)
                seen.add(rec.id)
        if pinned and not rest:
            # A bare rule number: that rule, then its subrules in order.
            out.jumped = True
            kids = primary.searcher.search(
                w.query.Term("parent", pinned[0].number), limit=limit, sortedby="order"
            )
            children = [_rule_by_number(primary, h["number"], 0.0) for h in kids]
            out.results = (pinned + [c for c in children if c is not None])[:limit]
            out.pinned = len(out.results)
            return out
        if numbers and not pinned and not rest:
            # Only rule numbers, none of them in this edition: say which are nearest.
            out.suggestions = _nearest_rules(primary, numbers[0])
            return out
        out.jumped = bool(pinned)
        out.pinned = len(pinned)
        text = rest or cleaned
        hits: list[SearchResult] = []
        read = 0
        for i, (source, weight) in enumerate(zip(self.sources, self.weights, strict=True)):
            if source not in scope.sources:
                continue
            weight *= _weight_for(source, text, scope)
            if weight == 0.0:
                continue  # a source this question does not read (see _weight_for)
            if source == "rulings":
                # A ruling's title is its cards' names: they are searched as typed, not read
                # as what the cards do.
                if scope.rule_numbers:
                    typed = rule_numbers(typed)[1] or typed
                named = self._ruling_cards_named(i, typed) if scope.named else None
                if named == []:
                    continue  # it names none of their cards: it would show none
                found = self._run(
                    self._source(i), typed, limit, scope, seen, None, source, rulings_of=named
                )
            else:
                found = self._run(self._source(i), text, limit, scope, seen, reading, source)
            if scope.named and source == "rulings":
                # Beside the results, not among them: see index.search.extra.RULINGS_IN_ALL.
                out.rulings = found[:RULINGS_IN_ALL]
                continue
            if weight != 1.0:
                found = [dataclasses.replace(r, score=r.score * weight) for r in found]
            hits += found
            read += 1
        if read > 1:
            hits.sort(key=lambda r: -r.score)
        out.results = (pinned + hits)[:limit]
        if not out.results:
            words = re.findall(r"[\w'/-]+", text)
            out.suggestions = _suggest(primary, [x for x in words if x not in OPERATORS])
        return out

    def _source(self, i: int) -> OpenIndex:
        """The ``i``-th index, opened now if :meth:`open` deferred it."""
        src = self._opened[i]
        if isinstance(src, Deferred):
            ix = src.open()
            self._owned.append(ix)  # closed by close, whatever happens next
            src = self._opened[i] = OpenIndex(ix)
            src.analyse_as(self._source(0))
        return src

    def _ruling_cards_named(self, i: int, question: str) -> list[str] | None:
        """The cards of the ``i``-th index's rulings that ``question`` names, in a search of
        everything (it shows only theirs); ``None`` without a record of their cards."""
        found = self._deferred.get(i)
        cards = found.ruling_cards() if found is not None else None
        return None if cards is None else cards.named(without_sections(question)[0])

    def _read_cards(self, query: str, primary: OpenIndex) -> CardReading | None:
        """The card names in ``query`` (none without a card store, or for a rule number)."""
        if self.cards is None or not any(c.isalpha() for c in query):
            return None
        from glossary.fold import fold_text

        return read_cards(fold_text(query), self.cards, primary)

    def _run(
        self,
        src: OpenIndex,
        text: str,
        limit: int,
        scope: Scope,
        seen: set[str],
        reading: CardReading | None = None,
        source: str = "edition",
        rulings_of: list[str] | None = None,
    ) -> list[SearchResult]:
        """The records of one index for a query, skipping (and adding to) ``seen`` ids; only
        rulings of the cards ``rulings_of`` when given."""
        from whoosh.query import And, Every, Or, Term

        text, sections = without_sections(text)
        signal_parts, name_parts = card_parts(src, reading) if reading else ([], [])
        if not text and not signal_parts and not name_parts:
            if not sections:
                return []
            q = Every()
        elif not reading:
            q = parse(src, text)
        else:
            own = parse(src, text) if text else None
            own_parts = [] if own is None else _parts(own)
            signal_parts = shared_signals(signal_parts, len(own_parts))
            q = Or(own_parts + signal_parts + name_parts)
            text = text or "cards"
        flt = scope.filter(source)
        if sections:
            section_q = Or([Term("section", x) for x in sections])
            flt = section_q if flt is None else And([flt, section_q])
        only = cards_rulings(src, rulings_of, text) if rulings_of else None
        if only is not None:
            flt = only if flt is None else only & set(src.searcher.docs_for_query(flt))
        words = concepts(q, src) if text else []
        pool = max(POOL, limit * 3)
        hits = top(src, prune(q, src), pool, flt, direct=self.direct_scoring)
        if scope.named and source == "rulings" and only is None:
            # In a search of everything, a ruling answers only a question naming its card.
            hits = [h for h in hits if names_a_card(h[1], text)]
        wanted = frozenset(str(t) for f, t in q.iter_all_terms() if f in FIELDS)
        ranked = ranked_hits(src, hits[:POOL], words, text, lends=scope.lends)
        records: list[SearchResult] = []
        _add_records(src, ranked, records, limit, seen, wanted, text)
        if len(records) < limit and len(hits) > POOL and ranked:
            # More asked for than the pool gave: the first results are still the pool's (the
            # same whatever the limit), the others follow them, scaled to score below them.
            more = ranked_hits(src, hits, words, text, lends=scope.lends)
            scale = min(1.0, ranked[-1][0] / more[0][0]) if more and more[0][0] > 0 else 1.0
            _add_records(src, [(s * scale, f) for s, f in more], records, limit, seen, wanted, text)
        return records


def _add_records(
    src: OpenIndex,
    hits: Hits,
    records: list[SearchResult],
    limit: int,
    seen: set[str],
    wanted: frozenset[str],
    text: str,
) -> None:
    """Adds the records of ``hits`` to ``records`` up to ``limit``, skipping (and adding to)
    ``seen`` ids."""
    for score, fields in hits:
        if len(records) >= limit:
            return
        kind = kind_of(fields)
        if kind.folds_into_number:
            # An example or a players' phrasing is reported as its rule.
            number = fields["number"]
            if number in seen:
                continue
            parent = src.find_document(number)
            if parent is None:
                continue
            seen.add(number)
            rec = _record(parent, score, wanted)
            if kind.shows_as_example:
                example, _marks = snippet_of(fields.get("body") or "", wanted)
                rec = dataclasses.replace(rec, example=example)
            records.append(rec)
        else:
            rec = _record(fields, score, wanted)
            if rec.id in seen:
                continue
            if len(rec.cards) > 1:
                rec = _named_first(rec, text)
            seen.add(rec.id)
            records.append(rec)


def _parts(q: Any) -> list[Any]:
    """The subqueries of a plain OR, else ``[q]``."""
    from whoosh.query import Or

    return list(q.subqueries) if type(q) is Or and q.boost == 1.0 and not q.scale else [q]


def _without_names(reading: CardReading) -> str:
    """The question without its card names, cleaned; ``""`` when nothing else is left."""
    from .query import QuerySyntaxError

    try:
        return check_query(reading.text)
    except QuerySyntaxError:
        return ""


def _named_first(rec: SearchResult, question: str) -> SearchResult:
    """A ruling's record with the cards the question names first (its title the first)."""
    from .extra import named_cards

    named = named_cards(rec.cards, question)
    if not named or named[0] == rec.cards[0]:
        return rec
    cards = (*named, *(c for c in rec.cards if c not in named))
    return dataclasses.replace(rec, cards=cards, title=cards[0])


def _weight_for(source: str, question: str, scope: Scope) -> float:
    """What a source's weight is multiplied by for this question in a scope of several sources
    (see :func:`index.search.extra.speaks_of_tournaments`); 1 in a scope of its own."""
    if source != "documents" or len(scope.sources) == 1:
        return 1.0
    from . import extra

    return 1.0 if extra.speaks_of_tournaments(question) else extra.DOCUMENTS_QUIET


def _record(fields: dict[str, Any], score: float, wanted: frozenset[str]) -> SearchResult:
    snippet, marks = snippet_of(fields.get("body") or "", wanted)
    return kind_of(fields).record(fields, score, snippet, marks)


def _rule_by_number(src: OpenIndex, number: str, score: float) -> SearchResult | None:
    """The record of a rule named by number (its whole text), or None if the index lacks it."""
    fields = src.find_document(number)
    if fields is None:
        return None
    return rule_record(fields, score, fields.get("body", ""), ())


def _suggest(src: OpenIndex, words: list[str]) -> list[str]:
    """A corrected query for words the index lacks, or nothing."""
    corrected: list[str] = []
    changed = False
    for word in words:
        low = word.lower()
        # Known: too short to correct, a question word (never indexed), or indexed as its stem.
        if (
            not 3 <= len(low) <= LONGEST_CORRECTED
            or low in QUESTION_WORDS
            or any(src.doc_frequency(f, stem(low)) for f in FIELDS)
        ):
            corrected.append(word)
            continue
        best: list[str] = []
        for fieldname in ("term", "body"):
            try:
                best = src.searcher.suggest(fieldname, low, limit=1, maxdist=2, prefix=1)
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


def _nearest_rules(src: OpenIndex, number: str) -> list[str]:
    """The rule numbers of the index nearest ``number`` (which it does not have)."""
    from ..model import nearest_numbers
    from ..numbers import InvalidRuleReferenceError, parse_rule_number

    known: list[str] = []
    for raw in src.searcher.lexicon("number"):
        text = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
        try:
            parse_rule_number(text)
        except InvalidRuleReferenceError:
            continue
        known.append(text)
    return nearest_numbers(known, number)
