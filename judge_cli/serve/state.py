"""The editions and card data a server keeps warm, shared by the threads that answer requests.

Which edition a request names is decided by the library's own policy on every request
(:func:`index.edition.open_edition`: ``latest``, partial dates, the sample when nothing is
stored), so an edition stored while the server runs answers at once, and a rebuilt one answers
from its new build. What is kept is the :class:`~index.edition.Edition` of each (date, build):
read once, under a lock, and made warm (:meth:`~index.edition.Edition.keep_warm`), after which
it is read-only apart from its searcher pool, which is thread-safe.

The card snapshot (:class:`WarmCards`) is one read-only sqlite connection per worker thread.

An edition whose vectors for the semantic re-rank are missing or stale (a model installed after
it was stored) is embedded in a background thread, once; until that is done its searches are
search alone, as the results' ``semantic_status`` says.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from index.cards.lookup import CardDB
    from index.cards.rules import KeywordFinder
    from index.edition import Edition
    from index.store import EditionStore

__all__ = ["Editions", "WarmCards"]

_Key = tuple[str, str, bool]


class Editions:
    """Editions opened by the library's policy, read once and kept warm for every thread."""

    def __init__(self, store: EditionStore, notice: Callable[[str], None] | None = None) -> None:
        self.store = store
        self.notice = notice
        self._lock = threading.Lock()
        self._loading: dict[_Key, threading.Lock] = {}
        self._warm: dict[_Key, Edition] = {}
        self._scenario_rules: dict[_Key, Any] = {}
        self._keyword_finders: dict[_Key, KeywordFinder] = {}
        self._embedding: dict[_Key, threading.Thread] = {}
        self.cards = WarmCards(store.root)
        """The card snapshot of the same data folder."""

    @staticmethod
    def _key(ed: Edition) -> _Key:
        return (ed.label, str(ed.path), ed.named_sample)

    def _keep(self, probe: Edition) -> Edition:
        """The warm edition for ``probe``'s date and build, made warm on first use."""
        key = self._key(probe)
        with self._lock:
            found = self._warm.get(key)
            if found is not None:
                return found
            loading = self._loading.setdefault(key, threading.Lock())
        # One thread reads an edition; the others asking for it wait for that one.
        with loading:
            with self._lock:
                found = self._warm.get(key)
            if found is not None:
                return found
            probe.keep_warm()
            with self._lock:
                stale = [k for k in self._warm if k[0] == key[0] and k != key]
                for old in stale:  # an edition rebuilt while we serve: drop the old build
                    self._warm.pop(old).close()
                    self._scenario_rules.pop(old, None)
                    self._keyword_finders.pop(old, None)
                self._warm[key] = probe
            self._embed_later(key, probe)
        return probe

    def _embed_later(self, key: _Key, ed: Edition) -> None:
        """Embeds ``ed`` in a background thread if a model is installed but its vectors are
        missing or stale (searches meanwhile are search alone)."""
        from index.semantic.vectors import STALE

        if ed.semantic_status() not in STALE:
            return

        def embed() -> None:
            try:
                ed.build_vectors()
            except Exception as exc:  # a model that cannot load: search alone goes on answering
                if self.notice is not None:
                    self.notice(f"Warning: edition {ed.label} not embedded ({exc}).")
                return
            if self.notice is not None:
                self.notice(f"Edition {ed.label} embedded: searches are re-ranked by meaning.")

        thread = threading.Thread(target=embed, name=f"embed-{ed.label}", daemon=True)
        with self._lock:
            if key in self._embedding:
                return
            self._embedding[key] = thread
        if self.notice is not None:
            self.notice(
                f"Embedding edition {ed.label} for the semantic re-rank, in the background…"
            )
        thread.start()

    def wait_embedded(self, timeout: float | None = None) -> None:
        """Waits for the background embedding threads (for tests and an orderly shutdown)."""
        with self._lock:
            threads = list(self._embedding.values())
        for thread in threads:
            thread.join(timeout)

    def get(self, wanted: str | None) -> Edition:
        """The edition ``wanted`` names (default: the newest stored, else the bundled sample)."""
        from index.edition import open_edition

        return self._keep(open_edition(wanted, store=self.store, notice=self.notice))

    def stored(self, wanted: str | None) -> Edition:
        """Like :meth:`get`, but never the sample (for comparing editions)."""
        from index.edition import open_stored_edition

        return self._keep(open_stored_edition(wanted, store=self.store))

    def all_stored(self) -> list[Edition]:
        """Every stored edition, oldest first (raises ``NoEditionError`` when none is)."""
        from index.edition import open_stored_editions

        return [self._keep(ed) for ed in open_stored_editions(self.store)]

    def scenario_rules(self, ed: Edition) -> Any:
        """The checker's rules of ``ed`` (an ``EditionRules``), made once per edition."""
        from ..scenario.editions import EditionRules

        key = self._key(ed)
        with self._lock:
            rules = self._scenario_rules.get(key)
        if rules is None:
            rules = EditionRules.for_document(ed.document)
            with self._lock:
                self._scenario_rules[key] = rules
        return rules

    def keyword_finder(self, ed: Edition) -> KeywordFinder:
        """The finder of the rules card keywords name in ``ed``, made once per edition."""
        from index.cards.rules import KeywordFinder

        key = self._key(ed)
        with self._lock:
            finder = self._keyword_finders.get(key)
        if finder is None:
            finder = KeywordFinder(ed.store, ed.date)
            with self._lock:
                finder = self._keyword_finders.setdefault(key, finder)
        return finder

    def close(self) -> None:
        """Closes every open searcher and card database."""
        with self._lock:
            for ed in self._warm.values():
                ed.close()
        self.cards.close()


class WarmCards:
    """The stored card snapshot, open in each thread that answers (see ``/api/card``).

    sqlite connections belong to the thread that made them, so each worker thread keeps its
    own, opened on its first card request (``benchmarks/card_server_speed.py`` measures it
    beside one connection shared under sqlite's lock and one opened per request). Every
    request looks at the snapshot's ``CURRENT`` (one ``stat``: it is replaced, never written
    in place, whenever new card data goes live), so card data stored while the server runs
    answers at once.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._pointer = root / "cards" / "CURRENT"
        self._local = threading.local()
        self._lock = threading.Lock()
        self._open: list[CardDB] = []

    def _stamp(self) -> tuple[int, int, int] | None:
        try:
            found = os.stat(self._pointer)
        except OSError:
            return None
        return found.st_ino, found.st_mtime_ns, found.st_size

    def get(self) -> CardDB:
        """This thread's connection to the live snapshot; raises if none is stored."""
        stamp = self._stamp()
        held: CardDB | None = getattr(self._local, "db", None)
        if held is not None and getattr(self._local, "stamp", None) == stamp:
            return held
        from index.cards.lookup import CardDB
        from index.cards.store import CardStore

        # Looked at before opening: a switch in between costs one more open, next request.
        db = CardDB.open(CardStore(self.root), check_same_thread=False)
        with self._lock:
            if held is not None:
                self._open.remove(held)
                held.close()
            self._open.append(db)
        self._local.db, self._local.stamp = db, stamp
        return db

    def close(self) -> None:
        """Closes every thread's connection (when the server stops)."""
        with self._lock:
            for db in self._open:
                db.close()
            self._open.clear()
