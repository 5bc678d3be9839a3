"""Search indexes kept open for a long-lived process (a server): one Searcher per caller.

Opening an edition's index costs ~150 ms; a search on a :class:`~index.search.Searcher` that is
already open takes ~1 ms, and it remembers what it read for the next query. A Searcher runs
one query at a time, so a :class:`SearcherPool` lends each caller a Searcher of its own and
takes it back afterwards: the pool grows to the number of callers searching at the same time
and keeps at most :attr:`SearcherPool.keep` idle ones.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .search import Searcher
    from .search.searcher import Extra

__all__ = ["SearcherPool"]


class SearcherPool:
    """Idle Searchers of one build folder (and its notes and extras), shared by threads."""

    def __init__(self, keep: int = 16) -> None:
        self.keep = keep
        """How many idle Searchers are kept open at most."""
        self.opened = 0
        """How many Searchers were opened (for tests and benchmarks)."""
        self._lock = threading.Lock()
        self._key: tuple[Path, tuple[Path, ...], tuple[Extra, ...]] | None = None
        self._idle: list[Searcher] = []

    @contextlib.contextmanager
    def borrow(
        self,
        folder: Path,
        notes: Sequence[Path] = (),
        edition: str | None = None,
        extras: Sequence[Extra] = (),
    ) -> Iterator[Searcher]:
        """A Searcher of ``folder`` (and ``notes``, and ``extras``: see
        :meth:`~index.search.Searcher.open`) that nobody else uses until the block ends.

        Raises :class:`~index.search.NoSearchIndexError` when ``folder`` has no usable index.
        """
        from .search import Searcher

        key = (folder, tuple(notes), tuple(extras))
        with self._lock:
            if key != self._key:
                # A rebuilt edition (or changed notes) answers from the new index.
                self._close_idle()
                self._key = key
            searcher = self._idle.pop() if self._idle else None
        if searcher is None:
            searcher = Searcher.open(folder, notes, edition=edition, extras=extras)
            with self._lock:
                self.opened += 1
        try:
            yield searcher
        finally:
            with self._lock:
                kept = key == self._key and len(self._idle) < self.keep
                if kept:
                    self._idle.append(searcher)
            if not kept:
                searcher.close()

    def _close_idle(self) -> None:
        for searcher in self._idle:
            searcher.close()
        self._idle = []

    def close(self) -> None:
        """Closes the idle Searchers; the pool opens new ones when it is used again."""
        with self._lock:
            self._close_idle()
            self._key = None
