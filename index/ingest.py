"""Storing the files a user gives ``judge index build``: CR files as editions, Markdown as notes.

Each file is stored whole or not at all (see :class:`~index.store.EditionStore`); a file that
cannot be stored raises, naming the file, and leaves everything stored as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import FileReadError, StoreWriteError, os_reason

if TYPE_CHECKING:
    from .model import Document
    from .store import EditionStore

__all__ = ["NotesError", "StoredFile", "read_input", "store_file"]

IndexBuilder = Callable[["Document", Path], None]
"""Builds the search index of a new edition inside its build folder (before it goes live)."""


class NotesError(ValueError):
    """Raised when a Markdown notes file has nothing to store or is not text."""

    def __init__(self, file: str, reason: str, *, empty: bool = False) -> None:
        self.file = file
        self.reason = reason
        self.empty = empty
        super().__init__(f"{file}: {reason}")


@dataclass
class StoredFile:
    """What storing one file did: an edition or a tournament document (with its parse problems),
    or notes."""

    kind: str
    """``edition``, ``notes`` or ``document`` (a tournament document)."""
    file: str
    edition: str | None = None
    rules: int = 0
    glossary: int = 0
    name: str | None = None
    """The notes' name (the file name without ``.md``)."""
    sections: int = 0
    problems: list[dict[str, Any]] = field(default_factory=list)
    dangling: list[dict[str, str]] = field(default_factory=list)
    document: str | None = None
    """For a tournament document: ``mtr``, ``ipg``, ``jar``, ``dmtr`` or ``dipg``."""
    title: str | None = None
    """For a tournament document: its name (and, below, the title it prints)."""
    printed_title: str | None = None
    encoding: str = ""
    """For an edition: the encoding its file was read with, and the bytes it could not read."""
    undecodable: int = 0

    def to_json(self) -> dict[str, Any]:
        """The ``judge index build --json`` record."""
        if self.kind == "notes":
            return {
                "kind": "notes",
                "file": self.file,
                "name": self.name,
                "sections": self.sections,
            }
        if self.kind == "document":
            return {
                "kind": "document",
                "file": self.file,
                "document": self.document,
                "edition": self.edition,
                "title": self.title,
                "printed_title": self.printed_title,
                "sections": self.sections,
                "problems": len(self.problems),
                "problem_lines": self.problems,
                "dangling": self.dangling,
            }
        return {
            "kind": "edition",
            "file": self.file,
            "edition": self.edition,
            "rules": self.rules,
            "glossary": self.glossary,
            "encoding": self.encoding,
            "undecodable": self.undecodable,
            "problems": len(self.problems),
            "problem_lines": self.problems,
            "dangling": self.dangling,
        }


def read_input(name: str, role: str = "rules") -> bytes:
    """The bytes of a file the user named (``-``: standard input), never more than the cap.

    Raises :class:`~index.errors.FileReadError` or :class:`~index.decode.FileTooLargeError`
    (with ``role`` set: what the file was meant to be, for the advice).
    """
    import sys

    from .decode import FileTooLargeError, read_rules_file, read_rules_stream

    try:
        if name == "-":
            return read_rules_stream(sys.stdin.buffer, "<stdin>")
        return read_rules_file(name)
    except FileTooLargeError as exc:
        exc.role = role
        raise
    except OSError as exc:
        missing = isinstance(exc, FileNotFoundError)
        raise FileReadError(name, os_reason(exc), missing=missing, role=role) from None


def store_file(
    store: EditionStore,
    name: str,
    *,
    index_builder: IndexBuilder | None = None,
    replace: bool = False,
) -> StoredFile:
    """Stores one file: ``.md`` as notes, a tournament document (PDF or text) by document and
    date, anything else as a CR edition.

    Raises :class:`~index.errors.FileReadError`, :class:`~index.decode.FileTooLargeError`,
    :class:`~index.reader.CRReadError`, :class:`~index.store.ReplaceRefusedError` (a file that
    reads worse than the stored edition of its date, unless ``replace``) or
    :class:`~index.tournament.model.DocumentReadError` (with ``file`` set), :class:`NotesError`
    or :class:`~index.errors.StoreWriteError`.
    """
    from .reader import CRReadError
    from .store import ReplaceRefusedError
    from .tournament.ingest import is_tournament_file

    path = Path(name)
    data = read_input(name)
    if path.suffix.lower() in (".md", ".markdown"):
        return _store_notes(store, str(path), path, data)
    if is_tournament_file(data):
        return _store_document(store, name, data)
    try:
        info = store.add_bytes(data, path.name, extra=index_builder, replace=replace)
    except (CRReadError, ReplaceRefusedError) as exc:
        exc.file = name
        raise
    except OSError as exc:
        raise StoreWriteError(store.root, os_reason(exc), name) from None
    stored = store.load(info.edition)
    doc = stored.document
    return StoredFile(
        "edition",
        name,
        edition=info.edition,
        rules=info.rules,
        glossary=info.glossary,
        encoding=info.encoding,
        undecodable=info.undecodable,
        problems=[{"line": p.line, "text": p.text, "reason": p.reason} for p in doc.problems],
        dangling=[{"source": d.source, "text": d.text} for d in stored.xrefs.dangling],
    )


def _store_notes(store: EditionStore, name: str, path: Path, data: bytes) -> StoredFile:
    from .decode import DecodeError, decode_rules_bytes
    from .documents import read_markdown

    try:
        text, _ = decode_rules_bytes(data)
    except DecodeError as exc:
        raise NotesError(name, str(exc)) from None
    sections = read_markdown(text, path.stem)
    if not sections:
        raise NotesError(name, "no text found", empty=True)
    try:
        store.add_notes(path.stem, text)
    except OSError as exc:
        raise StoreWriteError(store.root, os_reason(exc), name) from None
    return StoredFile("notes", name, name=path.stem, sections=len(sections))


def _store_document(store: EditionStore, name: str, data: bytes) -> StoredFile:
    from .tournament.ingest import store_tournament_bytes
    from .tournament.model import DocumentReadError

    try:
        stored = store_tournament_bytes(store.root, data, Path(name).name)
    except DocumentReadError as exc:
        exc.file = name
        raise
    except OSError as exc:
        raise StoreWriteError(store.root, os_reason(exc), name) from None
    return StoredFile("document", name, **stored)
