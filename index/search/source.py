"""One opened index: its whoosh searcher and what has been read from it so far.

A question asks for the same words several times (the fuzzy check, the weights, the pruning),
and a long-lived process for the same common words, rules and phrases in most questions; each
lookup through whoosh unpickles or decodes something. :class:`OpenIndex` remembers what it has
read. Everything it remembers is read-only data of the index, valid as long as its whoosh
searcher is open (an index on disk is never changed in place: a rebuild is a new folder).

An :class:`OpenIndex` is not thread-safe (whoosh's readers seek in shared files):
:class:`index.search.searcher.Searcher` uses each under its lock.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .rulingcards import RulingCards

REMEMBERED = 20_000
"""Terms (and phrases) remembered per index before that memory is cleared."""
PARSED = 1024
"""Parsed queries remembered per index before that memory is cleared (about 8 KB each for
questions like the real ones: some 8 MB in all)."""
PARSED_LONGEST = 1000
"""The longest query text whose parse is remembered (a pasted post's question is shorter)."""


class OpenIndex:
    """A whoosh index opened for searching, with its caches.

    ``searcher``: a whoosh searcher to use (the caller closes it); by default one is opened
    with :func:`index.search.scoring.weighting` and closed by :meth:`close`.
    """

    def __init__(self, ix: Any, searcher: Any = None) -> None:
        from .scoring import weighting

        self.ix = ix
        self._owns_searcher = searcher is None
        self.searcher: Any = ix.searcher(weighting=weighting()) if searcher is None else searcher
        self.reader: Any = self.searcher.reader()
        # ``ix.schema`` re-reads the index's table of contents (a new object) on every call.
        self.schema: Any = self.searcher.schema
        self.frequencies: dict[tuple[str, str], int] = {}
        """Document frequencies looked up so far, by (field, text)."""
        self.lengths: dict[str, dict[int, float]] = {}
        """Field lengths looked up so far, by field and document number."""
        self.stored: dict[int, dict[str, Any]] = {}
        """Stored fields read so far, by document number (unpickling them was a tenth of a
        warm query)."""
        self.by_id: dict[str, dict[str, Any] | None] = {}
        """Stored fields looked up by ``id`` (None: no such document)."""
        self.scored: dict[tuple[str, bytes], tuple[list[int], list[float]] | None] = {}
        """A term's BM25F score in each document it is in, as read so far (None: not in the
        index); decoding the common words' postings was a fifth of a warm query, scoring them
        again in every question a third of a long one."""
        self.matched: dict[Any, list[tuple[int, float]]] = {}
        """What each phrase or group of a question matched, with its score."""
        self.lexicon: dict[tuple[str, str], list[str]] = {}
        """The indexed words of a field that start with a letter (for fuzzy matching)."""
        self.analyzed: dict[tuple[str, str], tuple[str, ...]] = {}
        """The words a field's analyzer made of a query token, by (field, token)."""
        self.near: dict[str, tuple[str, ...]] = {}
        """The indexed words nearest a word the index lacks (see ``query.fuzzify``)."""
        self.own_words: dict[tuple[int, str], dict[bytes, float]] = {}
        """A document's indexed words in a field and their posting weights, by (document
        number, field): its own postings, analysed again from its stored text."""
        self.parsed: dict[str, Any] = {}
        """The whoosh query each cleaned query text was parsed to (see ``query.parse``)."""
        self._parser: Any = None

    def doc_frequency(self, fieldname: str, text: str) -> int:
        """``reader.doc_frequency(fieldname, text)``, remembered."""
        key = (fieldname, text)
        found = self.frequencies.get(key)
        if found is None:
            found = self.frequencies[key] = int(self.reader.doc_frequency(fieldname, text))
        return found

    def find_document(self, doc_id: str) -> dict[str, Any] | None:
        """The stored fields of the document with this ``id``, or None."""
        if doc_id not in self.by_id:
            if self.reader.has_deletions():
                found = self.searcher.document(id=doc_id)  # skips deleted documents
            else:
                # The id's first posting (whoosh's own shortcut in ``document_number``), not
                # ``document(id=…)``'s query and matcher: ~1 ms less per id a re-rank adds.
                docnum = self.searcher.document_number(id=doc_id)
                found = None if docnum is None else self.stored_fields(docnum)
            self.by_id[doc_id] = found
        return self.by_id[doc_id]

    def stored_fields(self, docnum: int) -> dict[str, Any]:
        """The stored fields of a document number."""
        fields = self.stored.get(docnum)
        if fields is None:
            fields = self.stored[docnum] = self.searcher.stored_fields(docnum)
        return fields

    def words_of(self, docnum: int, fieldname: str) -> dict[bytes, float]:
        """Each word a document was indexed with in a text field, and its posting weight (its
        count times the field's boost, as whoosh stored it: a 32-bit float), from its stored
        fields; ``{}`` for a field without a stored value."""
        key = (docnum, fieldname)
        found = self.own_words.get(key)
        if found is None:
            from array import array

            from .schema import indexed_text

            value = indexed_text(self.stored_fields(docnum), fieldname)
            field = self.schema[fieldname]
            pairs = [] if not value else [(t, w) for t, _f, w, _v in field.index(value)]
            rounded = array("f", [w for _, w in pairs])
            found = self.own_words[key] = {t: w for (t, _), w in zip(pairs, rounded, strict=True)}
        return found

    def words_starting(self, fieldname: str, letter: str) -> list[str]:
        """The indexed words of ``fieldname`` that start with ``letter``."""
        key = (fieldname, letter)
        if key not in self.lexicon:
            self.lexicon[key] = [
                cand.decode("utf-8") if isinstance(cand, bytes) else cand
                for cand in self.reader.expand_prefix(fieldname, letter)
            ]
        return self.lexicon[key]

    def parser(self) -> Any:
        """whoosh's query parser for this index's schema, made on first use."""
        if self._parser is None:
            from .query import make_parser

            self._parser = make_parser(self.schema)
        return self._parser

    def analyse_as(self, other: OpenIndex) -> None:
        """Shares ``other``'s memory of the words its fields' analyzers made of query tokens,
        when this index's searched fields analyse as ``other``'s do (the rulings' and the
        documents' indexes do as the edition's: a question is analysed once, not per index)."""
        from .query import FIELDS

        mine, theirs = self.schema, other.schema
        if all(
            f in mine and f in theirs and mine[f].analyzer == theirs[f].analyzer for f in FIELDS
        ):
            self.analyzed = other.analyzed

    def forget_if_full(self) -> None:
        """Clears the postings and phrases remembered once a process has read most of them."""
        if len(self.scored) > REMEMBERED or len(self.matched) > REMEMBERED:
            self.scored.clear()
            self.matched.clear()
        if len(self.own_words) > REMEMBERED:
            self.own_words.clear()
        if len(self.parsed) > PARSED:
            self.parsed.clear()
        if len(self.analyzed) > REMEMBERED or len(self.near) > REMEMBERED:
            self.analyzed.clear()
            self.near.clear()

    def close(self) -> None:
        """Closes the whoosh searcher, if this object opened it."""
        if self._owns_searcher:
            self.searcher.close()


class Deferred:
    """An index found, to be opened when it is first searched (see
    :meth:`index.search.Searcher.open`): ``folder``'s live index, ``live``."""

    def __init__(self, folder: Path, live: Path) -> None:
        self.folder = folder
        self.live = live
        self._cards: tuple[RulingCards | None] | None = None

    def open(self) -> Any:
        """The whoosh index, opened (see :func:`index.search.build.open_live_index`)."""
        from .build import open_live_index

        return open_live_index(self.folder, self.live)

    def ruling_cards(self) -> RulingCards | None:
        """The cards a rulings index holds rulings of (:mod:`index.search.rulingcards`), read
        once; ``None`` when it has no such record."""
        if self._cards is None:
            from .rulingcards import RulingCards

            self._cards = (RulingCards.read(self.live),)
        return self._cards[0]
