"""The semantic re-rank wired into search: one code path for the CLI, the server and benchmarks.

:func:`reranked_search` is search then the re-rank: the lexical pool (:data:`DEPTH` deep, or
the limit if larger), then :func:`~index.semantic.rerank` with the model's own nearest
documents added, cut to the limit. :meth:`index.edition.Edition.search` calls it through a
:class:`SemanticSearch` (the data folder's model, loaded once, and each edition's vectors) when
the extra and a model are installed and the edition's vectors are current; otherwise it
searches as before and says why in :attr:`~index.search.SearchResults.semantic_status`.
``benchmarks/relevance.py`` calls :func:`reranked_search` too, so what it measures is what a
user gets.

Nothing here imports numpy or onnxruntime until a model is loaded or vectors are read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .reranking import ADD, CARDS_WEIGHT, DEPTH, WEIGHT, question_matrix

if TYPE_CHECKING:
    from ..model import Document
    from ..search import Searcher, SearchResult, SearchResults
    from ..store import EditionStore
    from .model import Embedder, Encoder
    from .models import InstalledModel, ModelStore
    from .vectors import Vectors

__all__ = [
    "CURRENT",
    "NO_MODEL",
    "OFF",
    "UNAVAILABLE",
    "SemanticSearch",
    "nearest_builds",
    "nothing_to_add",
    "reranked",
    "reranked_search",
]

CURRENT = "current"
"""The re-rank runs: the extra, a model and the edition's current vectors are there."""
OFF = "off"
"""The re-rank was not asked for (``judge search --no-semantic``, the bundled sample)."""
UNAVAILABLE = "unavailable"
"""The semantic extra (numpy, onnxruntime, tokenizers) is not installed."""
NO_MODEL = "no-model"
"""The extra is installed but no model is (``judge model install``)."""

_RERANKED_SCOPES = ("all", "rules", "glossary")
"""The scopes whose documents have vectors (rules, players' phrasings, glossary entries)."""


def reranked_search(
    searcher: Searcher,
    query: str,
    vectors: Vectors,
    model: Encoder,
    *,
    limit: int = 10,
    scope: str = "all",
    weight: float = WEIGHT,
    depth: int = DEPTH,
    add: int = ADD,
    name: str | None = None,
    cards_weight: float = CARDS_WEIGHT,
) -> SearchResults:
    """``searcher.search(query)`` re-ranked by meaning; ``name``: the model's, for the record.

    ``cards_weight`` replaces ``weight`` when search read card names in the query (see
    :data:`~index.semantic.reranking.CARDS_WEIGHT`).

    Rules the query names by number stay first; the model's nearest documents join the pool
    only if ``scope`` searches them. Results past the re-ranked ones keep their order with a
    score of 0 (their lexical score stays in ``lexical_score``).
    """

    from .reranking import rerank

    found = searcher.search(query, limit=max(limit, depth), scope=scope)
    if nothing_to_add(found):
        found.results = found.results[:limit]
        return found

    def make(doc_id: str) -> SearchResult | None:
        return searcher.find_record(doc_id, scope)

    keep = found.pinned
    if found.cards:
        weight = cards_weight
    ranked = rerank(
        found.searched or query,
        found.results,
        vectors,
        model,
        weight=weight,
        depth=depth,
        add=add,
        keep=keep,
        make=make,
    )
    record = {
        "model": name,
        "digest": vectors.model[:12],
        "weight": weight,
        "depth": depth,
        "add": add,
    }
    return reranked(found, ranked, limit, record)


def nothing_to_add(found: SearchResults) -> bool:
    """Whether the model has nothing to add to ``found``: a rule number alone (that rule, then
    its subrules), or nothing found but a "did you mean"."""
    bare_number = found.jumped and found.pinned >= len(found.results)
    return bare_number or (not found.results and bool(found.suggestions))


def reranked(
    found: SearchResults, ranked: list[SearchResult], limit: int, record: dict[str, Any]
) -> SearchResults:
    """``found`` with its first ``limit`` re-ranked hits and the re-rank's ``record``.

    Hits past the re-ranked ones keep search's order, with a score below theirs (0; their
    lexical score stays in ``lexical_score``).
    """
    import dataclasses

    from ..search.asks import glossary_later

    keep = found.pinned
    shown = ranked[:keep]
    # The re-ranked hits (scores 0-1) come first; only they are ordered again.
    done = keep
    while done < len(ranked) and not (
        ranked[done].similarity is None and ranked[done].lexical_score is None
    ):
        done += 1
    ranked = [
        *shown,
        *glossary_later(ranked[keep:done], found.searched or found.query),
        *ranked[done:],
    ]
    for hit in ranked[keep:limit]:
        if hit.similarity is None and hit.lexical_score is None:
            hit = dataclasses.replace(hit, score=0.0, lexical_score=hit.score)
        shown.append(hit)
    found.results = shown
    found.semantic = record
    found.semantic_status = CURRENT
    return found


class SemanticSearch:
    """The data folder's installed model (loaded once) and the vectors of each edition.

    ``warm``: for a long-lived process (a server), which loads the model more slowly to run it
    faster (see :meth:`~index.semantic.InstalledModel.load`) and embeds each question in a
    thread while search runs (:attr:`overlap`). Thread-safe: a server's threads share one.
    """

    def __init__(self, store: ModelStore, *, warm: bool = False, threads: int = 1) -> None:
        self.store = store
        self.warm = warm
        self.threads = threads
        self.overlap = warm
        """Whether :meth:`search` embeds the question in a thread of its own while the lexical
        search runs (see :class:`_Ahead`), once the model is loaded. onnxruntime lets go of
        the GIL while it runs, so with a core free the search costs about the longer of the
        two; on a machine whose cores are all busy the thread waits for one and the search
        costs what it did (``benchmarks/semantic_speed.py --before``: the same p50 and p95)."""
        self._pool: Any = None  # a ThreadPoolExecutor, made on the first overlapped search
        self._lock = threading.Lock()
        self._installed: InstalledModel | None = None
        self._looked = False
        self._model: Embedder | None = None
        self._builder: Encoder | None = None
        self._vectors: dict[Path, tuple[float, Vectors]] = {}
        self._status: dict[Path, tuple[tuple[int, int] | None, str]] = {}

    @classmethod
    def for_root(cls, root: Path, *, warm: bool = False) -> SemanticSearch:
        """The re-rank of the data folder ``root`` (models under ``root / 'models'``)."""
        from .models import ModelStore

        return cls(ModelStore(root), warm=warm)

    @property
    def loaded(self) -> bool:
        """Checks if the model is loaded in this process (a search needs no more than a query)."""
        return self._model is not None

    def installed(self) -> InstalledModel | None:
        """The active model, looked up once (``None``: none is installed)."""
        with self._lock:
            if not self._looked:
                self._installed = self.store.find()
                self._looked = True
            return self._installed

    def status(self, folder: Path | None, scope: str = "all") -> str:
        """Whether the re-rank can run for an edition's build folder: see :data:`CURRENT`.

        Cheap (no numpy, no model): the extra is looked for, then the model's record and the
        vectors file's header are read, the header again only when the file changed. The
        model is looked up once: a long-lived process sees a model installed later when it
        starts again.
        """
        from . import is_available
        from .vectors import FILE, vectors_status

        if folder is None or scope not in _RERANKED_SCOPES:
            return OFF
        if not is_available():
            return UNAVAILABLE
        installed = self.installed()
        if installed is None:
            return NO_MODEL
        try:
            st = (folder / FILE).stat()
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        with self._lock:
            kept = self._status.get(folder)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        status = vectors_status(folder, installed.digest)
        with self._lock:
            self._status[folder] = (stamp, status)
        return status

    def model(self) -> Embedder:
        """The active model, loaded on first use; raises ``NoModelError``, ``ModelLoadError``."""
        from .models import NoModelError

        installed = self.installed()
        if installed is None:
            raise NoModelError(None, self.store.names())
        with self._lock:
            if self._model is None:
                self._model = installed.load(threads=self.threads, prepack=self.warm)
            return self._model

    def vectors(self, folder: Path) -> Vectors:
        """The vectors of a build folder, read once (again if the file was replaced)."""
        from .vectors import FILE, load_vectors

        try:
            stamp = (folder / FILE).stat().st_mtime
        except OSError:
            stamp = -1.0
        with self._lock:
            kept = self._vectors.get(folder)
            if kept is not None and kept[0] == stamp:
                return kept[1]
        loaded = load_vectors(folder)
        with self._lock:
            self._vectors[folder] = (stamp, loaded)
        return loaded

    def search(
        self, searcher: Searcher, query: str, folder: Path, *, limit: int, scope: str
    ) -> SearchResults:
        """:func:`reranked_search` with this folder's vectors and the active model.

        With :attr:`overlap`, the question is embedded in a thread while search runs; the
        results are the same (the same text is embedded by the same model, and a failure there
        is raised where the re-rank would have raised it)."""
        installed = self.installed()
        vectors = self.vectors(folder)
        loaded = self.model()
        model = self._ahead(loaded, query) if self.overlap else loaded
        return reranked_search(
            searcher,
            query,
            vectors,
            model,
            limit=limit,
            scope=scope,
            name=installed.name if installed is not None else None,
        )

    def _ahead(self, model: Encoder, query: str) -> Encoder:
        """``model``, with ``query``'s question being embedded in a thread (if one starts).

        For an :class:`~index.semantic.model.Embedder`, only onnxruntime's run is left to
        the thread: it lets go of Python's lock while it runs, so search goes on beside it on
        another core. What holds the lock (the question found in a pasted post, the word
        pieces, the pooling) is done here, and the thread is waited for until it has entered
        onnxruntime: a thread that wants the lock while search holds it waits up to Python's
        switch interval (5 ms) each time: a question that takes 9 ms alone took 20 beside a
        busy Python thread. Another encoder embeds the question in the thread whole.
        """
        from ..search.query import MAX_QUERY_CHARS

        if len(query) > MAX_QUERY_CHARS or not any(c.isalpha() for c in query):
            return model  # refused, or rule numbers: search answers alone
        text = _asked(query)
        started = threading.Event()
        mask = None
        if isinstance(model, _Steps):
            if model.recalled(text) is not None:
                return model
            try:
                feed, mask = model.query_feed(text)
            except Exception:  # the re-rank embeds it again, and raises what it raises there
                return model

            def work() -> Any:
                started.set()
                return model.forward(feed)

        else:

            def work() -> Any:
                started.set()
                return question_matrix(model, text)

        try:
            with self._lock:
                if self._pool is None:
                    from concurrent.futures import ThreadPoolExecutor

                    self._pool = ThreadPoolExecutor(
                        max_workers=_EMBEDDING_THREADS, thread_name_prefix="judge-embed"
                    )
                pool = self._pool
            future = pool.submit(work)
        except RuntimeError:  # no thread can start (or the interpreter is exiting)
            return model
        started.wait(_START_WAIT)
        return _Ahead(model, text, future, mask)

    def close(self) -> None:
        """Stops the threads that embed questions ahead (a later search starts them again)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)

    def build(
        self,
        folder: Path,
        document: Document | Callable[[], Document],
        *,
        reuse: Sequence[Path] = (),
        progress: Callable[[int, int], None] | None = None,
    ) -> bool:
        """(Re)builds a build folder's vectors if missing or stale; returns whether it did.

        Texts whose vectors ``reuse`` (other build folders) holds are not embedded again.
        """
        from .vectors import ensure_vectors

        return ensure_vectors(folder, self.builder(), document, progress=progress, reuse=reuse)

    def builder(self) -> Encoder:
        """The active model loaded to embed many texts (every core, weights prepacked), once."""
        import os

        from .models import NoModelError

        installed = self.installed()
        if installed is None:
            raise NoModelError(None, self.store.names())
        with self._lock:
            if self._builder is None:
                threads = min(4, os.cpu_count() or 1)
                self._builder = installed.load(threads=threads, prepack=True)
            return self._builder


_EMBEDDING_THREADS = 4
"""Questions embedded at the same time at most (one per server thread searching at once)."""
_START_WAIT = 0.01
"""Seconds a search waits at most for its question's thread to enter onnxruntime (all the
threads may be busy with other searches' questions)."""


def _asked(query: str) -> str:
    """The text :func:`reranked_search` embeds for ``query``: what search searched (the
    question found in a pasted post, see :mod:`index.search.pasted`), else the query."""
    from ..search.pasted import find_question, is_pasted

    return find_question(query) if is_pasted(query) else query


@runtime_checkable
class _Steps(Protocol):
    """An encoder that embeds a question in steps (:class:`~index.semantic.model.Embedder`)."""

    def query_feed(self, text: str) -> tuple[dict[str, Any], Any]: ...

    def forward(self, feed: dict[str, Any]) -> Any: ...

    def recalled(self, text: str) -> Any: ...

    def remember(self, text: str, vector: Any) -> None: ...


class _Ahead:
    """An encoder whose next question is being embedded in a thread.

    :meth:`embed_query` waits for the thread (raising what it raised) when it is asked for
    the text the thread embeds: its vector, or, with a ``mask``, its token states, pooled
    here and remembered by the model. Other texts it embeds as the model does.
    """

    def __init__(self, model: Encoder, text: str, future: Any, mask: Any) -> None:
        self.model = model
        self.text = text
        self.future = future
        self.mask = mask

    @property
    def digest(self) -> str:
        return self.model.digest

    @property
    def dimension(self) -> int:
        return self.model.dimension

    def embed(self, texts: Sequence[str]) -> Any:
        return self.model.embed(texts)

    def embed_query(self, text: str) -> Any:
        if text != self.text:
            return question_matrix(self.model, text)
        if self.mask is None:
            return self.future.result()
        from .model import pooled

        vector = pooled(self.future.result(), self.mask)
        if isinstance(self.model, _Steps):
            self.model.remember(text, vector)
        return vector


def nearest_builds(store: EditionStore, date: str | None, *, but: str | None = None) -> list[Path]:
    """The build folders of the stored editions, the nearest to ``date`` first (not ``but``'s).

    What :func:`~index.semantic.build_vectors` looks in for vectors it need not make again:
    editions close in time share the most text.
    """
    from datetime import date as day

    def ordinal(name: str) -> int:
        try:
            return day.fromisoformat(name).toordinal()
        except ValueError:
            return 0

    here = ordinal(date) if date else 0
    found: list[Path] = []
    for name in sorted(store.dates(), key=lambda d: abs(ordinal(d) - here)):
        folder = store.build_path(name) if name != but else None
        if folder is not None:
            found.append(folder)
    return found
