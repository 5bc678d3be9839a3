"""What a search returns: plain records copied out of whoosh, with their snippets.

:class:`SearchResults` holds :class:`SearchResult` records; :func:`snippet_of` cuts a stored
text around the query's words. How each kind of document becomes a record is the ``record``
column of :data:`index.search.kinds.KINDS` (:func:`rule_record`, :func:`glossary_record`,
:func:`section_record`, :func:`ruling_record`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .words import stems

Marks = tuple[tuple[int, int], ...]
"""Spans of a snippet that matched the query."""


@dataclass(frozen=True)
class SearchResult:
    """One hit: a rule, a glossary entry, a section or a card ruling, with a snippet."""

    id: str
    """``704.5j``, ``glossary:Legend Rule``, a tournament document's section ``ipg:2.1``, a
    section of notes ``section:<id>``, or a card ruling ``ruling:<card>#<n>``."""
    kind: str
    """``rule``, ``glossary``, ``section`` or ``ruling`` (examples are folded under their rule)."""
    number: str | None
    """A rule's number, or a tournament document's section number (``2.1``)."""
    term: str | None
    score: float
    snippet: str
    """Plain text around the matches."""
    marks: tuple[tuple[int, int], ...] = ()
    """Spans of ``snippet`` that matched the query (for bold output)."""
    title: str | None = None
    """The rule's title, the section's heading, or the ruling's card."""
    example: str | None = None
    """For a rule found through one of its examples: that example's snippet."""
    source: str | None = None
    """For a section: the document it comes from (its printed title, or the notes' name)."""
    document: str | None = None
    """For a tournament document's section: ``mtr``, ``ipg``, ``jar``, ``dmtr`` or ``dipg``."""
    document_edition: str | None = None
    """For a tournament document's section: that document's edition (its effective date)."""
    penalty: str | None = None
    """For an IPG infraction: its penalty (``Warning``, ``No Penalty``, …)."""
    cards: tuple[str, ...] = ()
    """For a ruling: the cards it was published for (one text may be on several)."""
    date: str | None = None
    """For a ruling: its date."""
    lexical_score: float | None = None
    """After the semantic re-rank: the score search alone gave (``None``: the model added it)."""
    similarity: float | None = None
    """After the semantic re-rank: the cosine of the question and the document's closest text
    (``None``: the document has no vector, or it was not re-ranked)."""

    def to_json(self, *, reranked: bool = False) -> dict[str, Any]:
        """The ``judge search --json`` record (stable keys first; the re-rank's parts when
        ``reranked``)."""
        out = {
            "id": self.id,
            "kind": self.kind,
            "number": self.number,
            "term": self.term,
            "score": round(self.score, 3),
            "snippet": self.snippet,
            "title": self.title,
            "example": self.example,
            "source": self.source,
            "document": self.document,
            "document_edition": self.document_edition,
            "penalty": self.penalty,
            "cards": list(self.cards),
            "date": self.date,
        }
        if reranked:
            lexical, similarity = self.lexical_score, self.similarity
            out["lexical_score"] = None if lexical is None else round(lexical, 3)
            out["similarity"] = None if similarity is None else round(similarity, 4)
        return out


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
    searched: str | None = None
    """For a long pasted question: the part of it that was searched (see
    :mod:`index.search.pasted`)."""
    pinned: int = 0
    """How many of the first results the query named by number (a re-rank leaves them first)."""
    semantic: dict[str, Any] | None = None
    """When the semantic re-rank ordered the results: the model and the settings
    (see :func:`index.semantic.searching.reranked_search`)."""
    semantic_status: str = "off"
    """Why the re-rank did or did not run: ``current`` (it ran), ``off`` (not asked),
    ``unavailable`` (the extra is not installed), ``no-model``, the vectors' state
    (``missing``, ``model``, ``adapter``, ``edition``, ``phrasings``: see
    :func:`index.semantic.vectors_status`), or ``error`` (the model or the vectors could not
    be read: search alone answered, with a warning)."""
    cards: list[str] = field(default_factory=list)
    """The cards the query was read as naming (see :mod:`index.search.cardquery`)."""
    cards_misspelt: dict[str, str] = field(default_factory=dict)
    """Of those, the names read as misspellings: as typed → the card's name."""
    rulings: list[SearchResult] = field(default_factory=list)
    """In a search of everything: the rulings of the cards the question names, best first,
    shown beside the results (see :data:`index.search.extra.RULINGS_IN_ALL`)."""

    def to_json(self) -> dict[str, Any]:
        """The ``judge search --json`` object (``semantic`` only when the re-rank ran;
        ``semantic_status`` always, so a bot can tell why it did not)."""
        reranked = self.semantic is not None
        out: dict[str, Any] = {
            "edition": self.edition,
            "query": self.query,
            "results": [r.to_json(reranked=reranked) for r in self.results],
            "suggestions": self.suggestions,
            "searched": self.searched,
            "cards": self.cards,
            "cards_misspelt": self.cards_misspelt,
            "rulings": [r.to_json() for r in self.rulings],
            "semantic_status": self.semantic_status,
        }
        if reranked:
            out["semantic"] = self.semantic
        return out


SNIPPET_CHARS = 240


def snippet_of(text: str, wanted: frozenset[str]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The stored (published) text around the words in ``wanted``, with their spans.

    Short texts are shown whole; a long one is cut to the window of about
    :data:`SNIPPET_CHARS` characters that holds the most different matched words.
    """
    spans = [(st, a, b) for st, a, b in stems(text) if st in wanted] if wanted else []
    if len(text) <= SNIPPET_CHARS + 20:
        return text, tuple((a, b) for _, a, b in spans)
    lo = 0
    if spans:
        best = -1
        for i, (_, a, _b) in enumerate(spans):
            inside = {st for st, x, y in spans[i:] if y <= a + SNIPPET_CHARS - 60}
            if len(inside) > best:
                best, lo = len(inside), a
        lo = max(0, lo - 60)
        if lo:
            space = text.rfind(" ", 0, lo + 1)
            lo = space + 1 if space >= 0 else 0
    hi = min(len(text), lo + SNIPPET_CHARS)
    if hi < len(text):
        space = text.rfind(" ", lo, hi)
        hi = space if space > lo else hi
    head = "… " if lo else ""
    tail = " …" if hi < len(text) else ""
    shift = len(head) - lo
    marks = tuple((a + shift, b + shift) for _, a, b in spans if a >= lo and b <= hi)
    return head + text[lo:hi].strip() + tail, marks


def rule_record(fields: dict[str, Any], score: float, snippet: str, marks: Marks) -> SearchResult:
    """The result record of a rule document."""
    number = fields["number"]
    title = fields.get("title") or fields.get("group") or None
    return SearchResult(number, "rule", number, None, score, snippet, marks, title=title)


def glossary_record(
    fields: dict[str, Any], score: float, snippet: str, marks: Marks
) -> SearchResult:
    """The result record of a glossary entry."""
    term = fields["term"]
    return SearchResult(f"glossary:{term}", "glossary", None, term, score, snippet, marks)


def section_record(
    fields: dict[str, Any], score: float, snippet: str, marks: Marks
) -> SearchResult:
    """The result record of a section (of a tournament document, of the sample, of notes)."""
    document = fields.get("document") or None
    details = fields.get("details") or {}
    return SearchResult(
        fields["id"],
        "section",
        (fields.get("number") or None) if document else None,
        None,
        score,
        snippet,
        marks,
        title=fields.get("title") or None,
        source=fields.get("source"),
        document=document,
        document_edition=details.get("edition"),
        penalty=details.get("penalty"),
    )


def ruling_record(fields: dict[str, Any], score: float, snippet: str, marks: Marks) -> SearchResult:
    """The result record of a card ruling."""
    details = fields.get("details") or {}
    cards = tuple(details.get("cards") or ())
    return SearchResult(
        fields["id"],
        "ruling",
        None,
        None,
        score,
        snippet,
        marks,
        title=cards[0] if cards else fields.get("title") or None,
        source=fields.get("source"),
        cards=cards,
        date=details.get("date"),
    )
