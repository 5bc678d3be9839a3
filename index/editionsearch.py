"""The search side of an :class:`~index.edition.Edition`: its index, notes, cards and re-rank.

:class:`EditionSearch` is a base of :class:`~index.edition.Edition` (which owns the state it
reads: the store, the date, the notice, the pools a kept-warm edition opens); here are
:meth:`~EditionSearch.search` and what it needs: the edition's search index (rebuilt when
stale, cached for the sample), the notes' index, the stored cards whose names questions are
read for, and the semantic re-rank (forked on a one-shot process's first search).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .cards.mentions import CardNames
    from .model import Document
    from .search import Searcher, SearchResults
    from .semantic.forked import Child
    from .semantic.searching import SemanticSearch
    from .store import EditionStore
    from .warm import SearcherPool

__all__ = ["EditionIndexError", "EditionSearch", "Notice"]

_Stamp = tuple[tuple[int, int, int, int], ...]

Notice = Callable[[str], None]
"""Where the library says what it is doing that the user should know (a rebuild, a warning)."""


class EditionIndexError(LookupError):
    """Raised when a stored edition has no usable search index and none can be made."""

    def __init__(self, edition: str, reason: str, source: str | None = None) -> None:
        self.edition = edition
        self.reason = reason
        self.source = source
        """The file the edition was built from, when the fix is to build it again."""
        super().__init__(f"edition {edition} {reason}")


class EditionSearch:
    """Search over one edition (see :class:`~index.edition.Edition`, which derives from it)."""

    store: EditionStore
    date: str | None
    notice: Notice | None
    _searchers: SearcherPool | None
    _semantic: SemanticSearch | None
    _forked: bool
    _cards: CardNames | None
    _cards_looked_for: bool
    _folder_checked: tuple[_Stamp | None, Path] | None = None
    """The last folder :meth:`_search_folder` checked, and its pointers' stamp then."""

    if TYPE_CHECKING:

        @property
        def path(self) -> Path | None: ...

        @property
        def document(self) -> Document: ...

    def search(
        self, query: str, *, limit: int = 10, scope: str = "all", semantic: bool = True
    ) -> SearchResults:
        """Ranked search over the rules, examples, glossary and notes, and the tournament
        documents and card rulings stored (see :mod:`index.search`).

        With ``semantic`` (the default), the results are re-ranked by meaning when the semantic
        extra and a model are installed and this edition's vectors are current (see
        :mod:`index.semantic.searching`); the results' ``semantic_status`` says whether they
        were and why not. In a process that has not loaded the model, the first re-ranked
        search loads it in a child process while it searches (:mod:`index.semantic.forked`),
        with the same results. Raises :class:`~index.search.QuerySyntaxError` for a query that
        cannot be searched, and, for a scope that searches only the tournament documents or
        only the rulings, :class:`~index.tournament.store.NoDocumentError` or
        :class:`~index.cards.errors.NoCardStoreError` when none is stored.

        Each search opens the indexes afresh (right for a one-shot run); a process that
        searches many times should call :meth:`keep_warm` first.
        """
        # The model's part of a one-shot re-rank starts first, beside all the rest.
        child = self._fork_for(scope) if semantic else None
        try:
            status = self.semantic_status(scope) if semantic else "off"
            if child is not None and status != "current":
                child.close()
                child = None
            return self._search(query, limit, scope, status, child)
        finally:
            if child is not None:
                child.close()

    def _search(
        self, query: str, limit: int, scope: str, status: str, child: Child | None
    ) -> SearchResults:
        from .extras import extra_indexes
        from .search import Searcher, get_scope

        where = get_scope(scope)
        folder = self._search_folder()
        notes = self._notes_folders() if "notes" in where.sources else []
        # A kept-warm edition opens every extra index whatever the scope, so that its pool
        # lends the same Searchers to every scope (a Searcher reads only what the scope names).
        pooled = self._searchers is not None
        extras = extra_indexes(self, where.sources, where.documents, every=pooled)
        cards = self.card_names()
        if self._searchers is None:
            with Searcher.open(
                folder, notes, edition=self.date, cards=cards, extras=extras
            ) as searcher:
                found = self._search_with(searcher, folder, query, limit, scope, status, child)
        else:
            with self._searchers.borrow(folder, notes, self.date, extras) as searcher:
                searcher.cards = cards
                found = self._search_with(searcher, folder, query, limit, scope, status)
        found.edition = self.date
        return found

    def _fork_for(self, scope: str) -> Child | None:
        """The first re-ranked search of a one-shot process: the model's part in a child
        (:mod:`index.semantic.forked`), started before whoosh is imported; else ``None``."""
        if self._searchers is not None or self._forked or self.date is None:
            return None  # kept warm, or a second search: the model is loaded here, once
        from .semantic.forked import start

        self._forked = True
        folder = self.path
        return start(self.semantic, folder, scope) if folder is not None else None

    def _search_with(
        self,
        searcher: Searcher,
        folder: Path,
        query: str,
        limit: int,
        scope: str,
        status: str,
        child: Child | None = None,
    ) -> SearchResults:
        if status == "current":
            from .semantic import ModelLoadError, NoModelError, VectorsError

            try:
                if child is not None:
                    from .semantic.forked import forked_search

                    fast = forked_search(
                        self.semantic, searcher, query, folder, child, limit, scope
                    )
                    if fast is not None:
                        return fast  # else the child died, hung or answered something else
                return self.semantic.search(searcher, query, folder, limit=limit, scope=scope)
            except (ModelLoadError, NoModelError, VectorsError) as exc:
                # A damaged model or vectors file must not stop a search: search alone answers.
                if self.notice is not None:
                    self.notice(f"Warning: the semantic re-rank is off ({exc}).")
                status = "error"
        found = searcher.search(query, limit=limit, scope=scope)
        found.semantic_status = status
        return found

    @property
    def semantic(self) -> SemanticSearch:
        """The data folder's semantic re-rank (the installed model, loaded on first use)."""
        if self._semantic is None:
            from .semantic.searching import SemanticSearch

            self._semantic = SemanticSearch.for_root(self.store.root)
        return self._semantic

    def semantic_status(self, scope: str = "all") -> str:
        """Whether :meth:`search` re-ranks by meaning: ``current``, or why not (cheap to ask).

        ``off`` for the bundled sample and the scopes without vectors, ``unavailable`` without
        the extra, ``no-model``, or the vectors' state (``missing``, ``model``, ``adapter``,
        ``edition``, ``phrasings``), which :meth:`build_vectors` fixes; a search whose re-rank
        failed says ``error``.
        """
        return self.semantic.status(self.path, scope)

    def build_vectors(self, progress: Callable[[int, int], None] | None = None) -> bool:
        """Embeds this edition for the semantic re-rank if its vectors are missing or stale.

        Passages whose text another stored edition's vectors hold are not embedded again.
        Returns whether anything was built; raises ``NoModelError``,
        ``SemanticUnavailableError`` or ``ModelLoadError`` (:mod:`index.semantic`).
        """
        folder = self.path
        if folder is None:
            return False
        from .semantic.searching import nearest_builds

        others = nearest_builds(self.store, self.date, but=self.date)
        return self.semantic.build(folder, lambda: self.document, reuse=others, progress=progress)

    def card_names(self) -> CardNames | None:
        """The stored card snapshot, to read card names in questions with; ``None`` when no
        cards are stored (or they cannot be read: search then reads words only, as before)."""
        if not self._cards_looked_for:
            self._cards_looked_for = True
            # Only a data folder with cards pays for opening them (sqlite3 and all).
            if (self.store.root / "cards" / "CURRENT").is_file():
                from .cards.mentions import CardNames
                from .cards.store import CardStore

                self._cards = CardNames.find(CardStore(self.store.root))
        return self._cards

    @property
    def _cache(self) -> Path:
        return self.store.root / "cache"

    def _search_folder(self) -> Path:
        """The folder whose ``search/`` index answers, rebuilt first if it is stale."""
        if self.date is None:
            return self._sample_index()
        # The checks read four files and look for four more (~1 ms of a warm search): they are
        # made again only when the edition's pointer or its index's has been replaced (each
        # is written aside and renamed: a new file) since they last passed.
        checked = self._folder_checked
        stamp = None if checked is None else self._stamp(checked[1])
        if checked is not None and stamp is not None and checked[0] == stamp:
            return checked[1]
        build = self._check_search_folder(self.date)
        self._folder_checked = (stamp, build)
        return build

    def _stamp(self, build: Path) -> _Stamp | None:
        """The edition's ``CURRENT`` and its build's ``search/CURRENT`` as they are now."""
        try:
            pointers = (
                self.store.editions_dir / str(self.date) / "CURRENT",
                build / "search" / "CURRENT",
            )
            return tuple(
                (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) for st in map(os.stat, pointers)
            )
        except OSError:
            return None

    def _check_search_folder(self, date: str) -> Path:
        from .search import index_is_current

        build = self.store.build_path(date)
        if build is None:
            raise EditionIndexError(date, "could not be read")
        if not (build / "search").is_dir():
            source = self.store.info(date).source
            raise EditionIndexError(date, "has no search index", source)
        if not index_is_current(build):
            self._rebuild_index(build)
        return build

    def _rebuild_index(self, build: Path) -> None:
        from .search import rebuild_search_index

        if self.notice is not None:
            self.notice(
                f"Rebuilding the search index of edition {self.date} (it was built by another"
                " version of judge or its search tables)…"
            )
        rebuild_search_index(self.document, build)

    def _sample_index(self) -> Path:
        from .search import build_cached_index

        # Measured: building the sample's index takes ~0.1 s, opening a cached one ~5 ms, so the
        # index is cached on disk per content hash (in the temporary folder when the data folder
        # cannot be written).
        try:
            return build_cached_index(self.document, self._cache, "sample")
        except OSError:
            import tempfile

            temp = Path(tempfile.gettempdir()) / "judge-cache"
            return build_cached_index(self.document, temp, "sample")

    def _notes_folders(self) -> list[Path]:
        """The notes' index folder, if any notes are stored (notes are extras: never fatal)."""
        if not self.store.notes_dir.is_dir():
            return []
        notes = self.store.notes()
        if not notes:
            return []
        from .search import build_notes_index, search_index_folder

        try:
            folder = build_notes_index(self._cache, notes)
            if search_index_folder(folder) is None:
                raise OSError(f"no index in {folder}")
        except Exception as exc:  # a broken notes index must not stop a search
            if self.notice is not None:
                self.notice(f"Warning: notes not searched ({exc}).")
            return []
        return [folder]
