"""Building, opening and checking search indexes.

An index lives in ``<folder>/search/``, an :class:`index.atomic.Slot`: each build of it is a
``b-<id>`` folder, live once ``search/CURRENT`` names it, so an index rebuilt beside a running
search replaces the old one whole (a search that opened the old one finishes in it). An
edition's first index is written while its build folder is still private (the store's ``extra``
hook), so it goes live with the rest of the edition. Indexes written before the slot (whoosh's
files straight in ``search/``) are still read, and are reported stale.

Each index records, in ``judge-search.json``, what it was built from: the schema version, a
digest of the package's build inputs (:func:`inputs_digest`: the phrasing files and the word
tables the analysis uses) and a digest of the document (:func:`content_digest`).
:func:`index_is_current` compares them with what this process would build.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .schema import SCHEMA_VERSION

if TYPE_CHECKING:
    from whoosh.index import Index

    from ..model import Document
    from ..section import Section

META = "judge-search.json"
"""The file, beside whoosh's, that says what an index was built from."""

Progress = Callable[[int, int], None]
"""Told ``(documents added, documents in all)`` while an index is written."""


class NoSearchIndexError(LookupError):
    """Raised when a folder holds no (readable) search index.

    ``reason`` is ``"missing"``, ``"version"`` (built by another version of the schema) or
    ``"unreadable"``.
    """

    def __init__(self, folder: Path, reason: str, detail: str = "") -> None:
        self.folder = folder
        self.reason = reason
        self.detail = detail
        if reason == "version":
            message = f"the search index in {folder} was built by another version"
        elif reason == "unreadable":
            message = f"the search index in {folder} cannot be read ({detail})"
        else:
            message = f"no search index in {folder}"
        super().__init__(message)


# --- digests ----------------------------------------------------------------------------------


def inputs_digest() -> str:
    """A digest of what this package builds every index with, besides the document.

    The schema version, the phrasing files (:func:`index.search.phrasings.asked_digest`, read
    once per process) and the tables the analysis indexes words with: the token pattern, the
    question words left out, the negations indexed under their roots. The query-time tables
    (shorthand, players' words) are not in it: they change what a query asks, not what an
    index holds, so an index need not be rebuilt for them.
    """
    from .phrasings import asked_digest
    from .schema import NEGATION_RE, NOT_NEGATIONS
    from .words import QUESTION_WORDS, TOKEN_PATTERN

    h = hashlib.sha256(f"judge-search-{SCHEMA_VERSION}\n".encode())
    h.update(asked_digest().encode())
    tables = [TOKEN_PATTERN, sorted(QUESTION_WORDS), NEGATION_RE.pattern, sorted(NOT_NEGATIONS)]
    h.update(json.dumps(tables).encode())
    return h.hexdigest()


def content_digest(doc: Document) -> str:
    """A digest of the parts of ``doc`` an index holds (rules, glossary, sections)."""
    h = hashlib.sha256(f"{doc.edition}\n".encode())
    for r in doc.rules.values():
        h.update(json.dumps([r.number, r.text, r.examples]).encode())
    for g in doc.glossary:
        h.update(json.dumps([g.term, g.definition]).encode())
    for s in doc.sections:
        h.update(json.dumps([s.id, s.title, s.text, s.source]).encode())
    return h.hexdigest()


def document_hash(doc: Document) -> str:
    """A hash of everything the index of ``doc`` is built from (inputs and document)."""
    return _combined(inputs_digest(), content_digest(doc))


def _combined(inputs: str, content: str) -> str:
    return hashlib.sha256(f"{inputs}\n{content}\n".encode()).hexdigest()


# --- building ---------------------------------------------------------------------------------


def _write(
    ix: Any,
    docs: Iterable[dict[str, Any]],
    progress: Progress | None = None,
    *,
    limitmb: int = 256,
    compound: bool = True,
    offsets: bool = False,
) -> None:
    from whoosh.writing import CLEAR

    pending = list(docs) if progress is not None else docs
    total = len(pending) if isinstance(pending, list) else 0
    # One segment, written in one go: a full rebuild (CLEAR) with a memory buffer of
    # ``limitmb`` (past it, whoosh spills sorted runs to disk and merges them at the end).
    # ``compound=False`` leaves the segment's files apart: whoosh then reads each from disk
    # rather than copying it whole out of one mapped file when it is opened.
    with ix.writer(limitmb=limitmb, procs=1, compound=compound) as w:
        w.mergetype = CLEAR
        if offsets:
            _write_offsets(w)
        for i, d in enumerate(pending, start=1):
            w.add_document(**d)
            if progress is not None and (i % 250 == 0 or i == total):
                progress(i, total)


def _write_offsets(writer: Any) -> None:
    """Makes a whoosh writer write where each document's stored fields start, as it does past
    2**15 documents: without them, the first read of a stored field in a process derives
    them document by document (for the rulings' 23,707: 3.3 ms, 0.5 ms with them)."""
    import contextlib

    # Another whoosh than 2.7.4 (pinned) may lack these: its own choice is read either way.
    with contextlib.suppress(AttributeError, KeyError):
        writer.perdocwriter._colwriters["_stored"]._child.cutoff = 0


def _build_into(doc: Document, target: Path, progress: Progress | None) -> None:
    """Writes the whoosh index of ``doc`` and its ``judge-search.json`` into ``target``."""
    from .engine import whoosh
    from .schema import documents, make_schema

    w = whoosh()
    inputs, content = inputs_digest(), content_digest(doc)
    ix = w.index.create_in(str(target), make_schema())
    _write(ix, documents(doc), progress)
    meta = {
        "schema": SCHEMA_VERSION,
        "hash": _combined(inputs, content),
        "inputs": inputs,
        "document": content,
        "edition": doc.edition,
        "title": doc.title,
    }
    (target / META).write_text(json.dumps(meta), encoding="utf-8")


def build_search_index(doc: Document, folder: Path, progress: Progress | None = None) -> None:
    """Writes the search index of ``doc`` into ``folder / "search"`` (a new build of its slot).

    The new index goes live whole when it is complete; until then searches use the one
    before, if any. ``progress``, if given, is told how many documents have been added.
    """
    from ..atomic import Slot

    target = folder / "search"
    if target.exists() and not target.is_dir():
        target.unlink()
    legacy = (target / META).is_file()
    with Slot(target).new_build() as build:
        _build_into(doc, build, progress)
    if legacy:
        _remove_legacy_files(target)


def rebuild_search_index(doc: Document, folder: Path) -> None:
    """Rebuilds ``folder / "search"`` (a stale index) beside the old one and switches to it."""
    build_search_index(doc, folder)


def _remove_legacy_files(target: Path) -> None:
    """Removes an index written straight into ``search/`` (before the slot), now replaced."""
    for child in target.iterdir():
        if child.is_file() and child.name != "CURRENT" and not child.name.startswith("."):
            with contextlib.suppress(OSError):
                child.unlink()


def ensure_current_index(folder: Path, load: Callable[[], Document]) -> bool:
    """Rebuilds the index in ``folder`` from ``load()`` unless it is current; True if it did."""
    if index_is_current(folder):
        return False
    rebuild_search_index(load(), folder)
    return True


def build_ram_index(doc: Document | None = None, sections: Iterable[Section] = ()) -> Index:
    """An in-memory index of a document (or of bare sections, for notes)."""
    from .engine import whoosh
    from .schema import documents, make_schema, section_documents

    whoosh()
    from whoosh.filedb.filestore import RamStorage

    ix = RamStorage().create_index(make_schema())
    docs = list(documents(doc)) if doc is not None else []
    docs += list(section_documents(sections, len(docs)))
    _write(ix, docs)
    return ix


def build_cached_index(doc: Document, cache: Path, name: str, key: str | None = None) -> Path:
    """The folder of an on-disk index of ``doc`` under ``cache``, built once per content hash.

    Used for the bundled sample and for notes, which have no build folder of their own. The
    index is built in a private folder and renamed into place, so readers never see half of it.
    """
    import shutil

    from ..atomic import private_dir, sweep

    digest = key or document_hash(doc)[:16]
    final = cache / f"{name}-{digest}"
    if search_index_folder(final) is not None:
        return final
    cache.mkdir(parents=True, exist_ok=True)
    sweep(cache, f".{name}-")  # what a killed build left
    tmp = private_dir(cache, f".{name}-")
    try:
        build_search_index(doc, tmp)
        try:
            os.replace(tmp, final)
        except OSError:
            if search_index_folder(final) is None:
                raise
        else:
            for old in cache.glob(f"{name}-*"):
                if old != final:
                    shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final


def build_notes_index(cache: Path, notes: list[tuple[str, str]]) -> Path:
    """The folder of the index of stored Markdown notes, rebuilt only when the notes change."""
    raw = hashlib.sha256(f"notes-{inputs_digest()}".encode())
    for name, text in notes:
        raw.update(json.dumps([name, text]).encode())
    key = raw.hexdigest()[:16]
    final = cache / f"notes-{key}"
    if search_index_folder(final) is not None:
        return final
    from ..documents import read_markdown
    from ..model import Document

    doc = Document(edition=None, title="notes")
    for name, text in notes:
        doc.sections += read_markdown(text, name)
    return build_cached_index(doc, cache, "notes", key=key)


# --- opening and checking ---------------------------------------------------------------------


def search_index_folder(folder: Path) -> Path | None:
    """The folder holding the live whoosh index of ``folder``, or None if it has none."""
    from ..atomic import Slot

    target = folder / "search"
    build = Slot(target).current()
    if build is not None and (build / META).is_file():
        return build
    if (target / META).is_file():
        return target  # written before the slot
    return None


def _meta(live: Path) -> dict[str, Any] | None:
    try:
        meta = json.loads((live / META).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None


def index_is_current(folder: Path, doc_hash: str | None = None) -> bool:
    """Checks if ``folder`` holds a search index built from what this process would build it.

    The schema version and :func:`inputs_digest` are compared; the document too when its
    :func:`document_hash` is given. A store's build folder needs no ``doc_hash``: its document
    never changes (a new edition file is a new build folder).
    """
    live = search_index_folder(folder)
    meta = _meta(live) if live is not None else None
    if meta is None or meta.get("schema") != SCHEMA_VERSION:
        return False
    if meta.get("inputs") != inputs_digest():
        return False
    return doc_hash is None or meta.get("hash") == doc_hash


def open_search_index(folder: Path) -> tuple[Index, dict[str, Any]]:
    """Opens the index of ``folder``; raises :class:`NoSearchIndexError` if absent or unreadable.

    An index whose inputs changed (see :func:`index_is_current`) still opens: it answers as it
    did until it is rebuilt.
    """
    live, meta = live_search_index(folder)
    return open_live_index(folder, live), meta


def live_search_index(folder: Path) -> tuple[Path, dict[str, Any]]:
    """The live index folder of ``folder`` and its record, as :func:`open_search_index` finds
    them (and raises), without opening the index."""
    live = search_index_folder(folder)
    meta = _meta(live) if live is not None else None
    if live is None or meta is None:
        raise NoSearchIndexError(folder, "missing")
    if meta.get("schema") != SCHEMA_VERSION:
        raise NoSearchIndexError(folder, "version")
    return live, meta


def open_live_index(folder: Path, live: Path) -> Index:
    """Opens the whoosh index in ``live`` (the live index of ``folder``); raises
    :class:`NoSearchIndexError` when it cannot be read."""
    from .engine import whoosh

    w = whoosh()
    try:
        return w.index.open_dir(str(live))
    except (OSError, w.index.IndexError) as exc:
        raise NoSearchIndexError(folder, "unreadable", str(exc)) from None
