"""Full-text search over an edition: one whoosh index per build folder, ranked for how players ask.

::

    with Searcher.open(build_folder, notes=[notes_folder]) as s:
        found = s.search("legend rule", limit=10, scope="all")

A :class:`Searcher` owns the opened indexes (an edition's, then notes' or others, merged by
score) and what it has read from them, and answers many queries. Queries are folded, MTG
shorthand and players' phrasing are expanded through :data:`SHORTHAND` and
:data:`PLAYER_WORDS`, a rule number goes straight to that rule, words missing from the index
are matched fuzzily, and a long pasted post is cut down to what it asks.

The parts:

* :mod:`index.search.words`: tokens and word tables (shorthand, players' words, stemming);
* :mod:`index.search.phrasings`: players' questions about rules, indexed with the rules;
* :mod:`index.search.schema`: the schema and the documents an index holds;
* :mod:`index.search.build`: building, opening and checking indexes (and their digests);
* :mod:`index.search.kinds`: the kinds of documents and the scopes, as tables;
* :mod:`index.search.query`: reading a query into a whoosh query;
* :mod:`index.search.pasted`: long pasted questions, cut down to what they ask;
* :mod:`index.search.scoring`: BM25F scored from the postings (whoosh's internals, isolated);
* :mod:`index.search.rank`: the re-ranking;
* :mod:`index.search.source`, :mod:`index.search.searcher`: an opened index, the Searcher;
* :mod:`index.search.results`: the records a search returns;
* this module: the public names, and :func:`search` / :func:`search_documents`, which open a
  Searcher for one query.

whoosh is imported only inside functions, lazily (:mod:`index.search.engine`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .build import (
    NoSearchIndexError,
    Progress,
    build_cached_index,
    build_notes_index,
    build_ram_index,
    build_search_index,
    document_hash,
    ensure_current_index,
    index_is_current,
    inputs_digest,
    open_search_index,
    rebuild_search_index,
    search_index_folder,
)
from .kinds import KINDS, SCOPE_TABLE, SCOPES, Kind, Scope, UnknownScopeError, get_scope
from .query import FIELD_BOOSTS, MAX_QUERY_CHARS, QuerySyntaxError, QueryTooLongError
from .rank import COMMON, COORDINATION, HEADING, LEND
from .results import SearchResult, SearchResults
from .schema import SCHEMA_VERSION
from .searcher import Searcher
from .words import PLAYER_WORDS, SHORTHAND, TOKEN_PATTERN

if TYPE_CHECKING:
    from whoosh.index import Index

__all__ = [
    "COMMON",
    "COORDINATION",
    "FIELD_BOOSTS",
    "HEADING",
    "KINDS",
    "LEND",
    "MAX_QUERY_CHARS",
    "PLAYER_WORDS",
    "SCHEMA_VERSION",
    "SCOPES",
    "SCOPE_TABLE",
    "SHORTHAND",
    "TOKEN_PATTERN",
    "Kind",
    "NoSearchIndexError",
    "Progress",
    "QuerySyntaxError",
    "QueryTooLongError",
    "Scope",
    "SearchResult",
    "SearchResults",
    "Searcher",
    "UnknownScopeError",
    "build_cached_index",
    "build_notes_index",
    "build_ram_index",
    "build_search_index",
    "document_hash",
    "ensure_current_index",
    "get_scope",
    "index_is_current",
    "inputs_digest",
    "open_search_index",
    "rebuild_search_index",
    "search",
    "search_documents",
    "search_index_folder",
]


def search(
    target: Path | Index,
    query: str,
    *,
    limit: int = 10,
    scope: str = "all",
    edition: str | None = None,
    extra: list[Index] | None = None,
) -> SearchResults:
    """Searches an index (a build folder or an opened whoosh index) and copies the hits out.

    ``extra`` indexes (notes) are searched too and merged by score. Raises
    :class:`QuerySyntaxError` for a query that cannot be searched and
    :class:`NoSearchIndexError` for a folder without an index. For many queries, open a
    :class:`Searcher` once instead.
    """
    get_scope(scope)
    if not isinstance(target, Path):
        return search_documents(
            target, query, limit=limit, scope=scope, edition=edition, extra=extra
        )
    ix, meta = open_search_index(target)
    try:
        return search_documents(
            ix, query, limit=limit, scope=scope, edition=edition or meta.get("edition"), extra=extra
        )
    finally:
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

    ``searcher``: an open whoosh searcher of ``ix`` to use. What is read from the index is
    remembered only for this query; a :class:`Searcher` remembers it across queries.
    """
    with Searcher([ix, *(extra or [])], edition=edition, searcher=searcher) as s:
        return s.search(query, limit=limit, scope=scope)
