"""Search indexes kept open for a long-lived process (a server): one searcher per caller.

Opening an edition's index and a searcher on it costs ~150 ms; a search on a searcher that is
already open takes ~1 ms. A whoosh searcher is not safe to use from two threads at once, so a
:class:`SearcherPool` lends each caller a searcher of its own and takes it back afterwards;
the pool grows to the number of callers searching at the same time, and keeps at most
:attr:`SearcherPool.keep` idle ones.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["SearcherPool"]


class SearcherPool:
    """The open index of one build folder and its idle searchers, shared by threads."""

    def __init__(self, keep: int = 16) -> None:
        self.keep = keep
        """How many idle searchers are kept open at most."""
        self.opened = 0
        """How many searchers were opened (for tests and benchmarks)."""
        self._lock = threading.Lock()
        self._folder: Path | None = None
        self._index: Any = None
        self._idle: list[Any] = []

    @contextlib.contextmanager
    def borrow(self, folder: Path) -> Iterator[tuple[Any, Any]]:
        """An open index of ``folder`` and a searcher that nobody else uses until the block ends.

        Raises :class:`~index.search.NoSearchIndexError` when ``folder`` has no usable index.
        """
        from .search import open_search_index

        # The weighting a one-shot search uses, so that scores are the same as the CLI's.
        from .search.rank import _weighting

        with self._lock:
            if folder != self._folder:
                # A rebuilt edition answers from its new build: retire the old searchers.
                self._close_idle()
                self._index, _ = open_search_index(folder)
                self._folder = folder
            index = self._index
            searcher = self._idle.pop() if self._idle else None
        if searcher is None:
            searcher = index.searcher(weighting=_weighting())
            with self._lock:
                self.opened += 1
        try:
            yield index, searcher
        finally:
            with self._lock:
                if index is self._index and len(self._idle) < self.keep:
                    self._idle.append(searcher)
                    searcher = None
            if searcher is not None:
                searcher.close()

    def _close_idle(self) -> None:
        for searcher in self._idle:
            searcher.close()
        self._idle = []

    def close(self) -> None:
        """Closes the idle searchers; the pool opens new ones when it is used again."""
        with self._lock:
            self._close_idle()
            self._folder = None
            self._index = None
