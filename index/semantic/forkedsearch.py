"""A one-shot search combined with the cosines its forked child sent (:mod:`.forked`).

:func:`forked_search` searches while the child works, then re-ranks in pure Python
(:func:`rerank_with`), exactly as :func:`~index.semantic.searching.reranked_search` does with
numpy: the same ids, order and scores, since every step is the same float64 operation in the
same order.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .reranking import ADD, CARDS_WEIGHT, DEPTH, WEIGHT, H, combine

if TYPE_CHECKING:
    from ..search import Searcher, SearchResult, SearchResults
    from .forked import Child
    from .searching import SemanticSearch

__all__ = ["forked_search", "rerank_with"]


def rerank_with(
    similarities: Sequence[float],
    ids: Sequence[str],
    pool: Sequence[H],
    *,
    weight: float = WEIGHT,
    depth: int = DEPTH,
    add: int = ADD,
    keep: int = 0,
    make: Callable[[str], H | None] | None = None,
) -> list[H]:
    """:func:`~index.semantic.rerank` of ``pool`` given the question's cosines, in pure Python.

    ``similarities[i]`` is the cosine with document ``ids[i]``. Both share
    :func:`~index.semantic.reranking.combine`; only the nearest documents are found without
    numpy (ties in index order, as numpy's stable sort), so the results are the same to the
    last bit.
    """
    position = {rid: i for i, rid in enumerate(ids)}

    def nearest(n: int) -> list[str]:
        # heapq.nsmallest is sorted(...)[:n]: ties in index order, as a stable argsort.
        closest = heapq.nsmallest(n, range(len(ids)), key=lambda i: -similarities[i])
        return [ids[i] for i in closest]

    return combine(
        similarities,
        position,
        nearest,
        pool,
        weight=weight,
        depth=depth,
        add=add,
        keep=keep,
        make=make,
    )


def forked_search(
    semantic: SemanticSearch,
    searcher: Searcher,
    query: str,
    folder: Path,
    child: Child,
    limit: int = 10,
    scope: str = "all",
) -> SearchResults | None:
    """:meth:`SemanticSearch.search <index.semantic.searching.SemanticSearch.search>` with the
    child's cosines (the same results, the model's name from ``semantic``).

    Searches while the child works, then combines. ``None`` when the child gave nothing
    usable (see :meth:`Child.answer`) or answered for other vectors than ``folder``'s now:
    re-rank in process then. Raises the child's errors (see :meth:`Child.answer`).
    """
    from .searching import nothing_to_add, reranked
    from .vectors import read_header

    found = searcher.search(query, limit=max(limit, DEPTH), scope=scope)
    if nothing_to_add(found):  # and it is not waited for
        child.close()
        found.results = found.results[:limit]
        return found
    answer = child.answer(found.searched or query)
    header = read_header(folder)
    if answer is None or header is None:
        return None
    ids = header.get("ids")
    if header.get("model") != answer.model or not isinstance(ids, list) or len(ids) != answer.ids:
        return None  # the vectors were replaced meanwhile

    def make(doc_id: str) -> SearchResult | None:
        return searcher.find_record(doc_id, scope)

    keep = found.pinned
    weight = CARDS_WEIGHT if found.cards else WEIGHT
    ranked = rerank_with(
        answer.similarities, ids, found.results, weight=weight, keep=keep, make=make
    )
    installed = semantic.installed()
    record = {
        "model": installed.name if installed is not None else None,
        "digest": answer.model[:12],
        "weight": weight,
        "depth": DEPTH,
        "add": ADD,
    }
    return reranked(found, ranked, limit, record)
