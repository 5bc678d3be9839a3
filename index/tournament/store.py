"""Storing tournament documents beside the CR editions, one folder per document and date.

Layout under the data folder::

    documents/ipg/2024-09-23/CURRENT               the name of the build in use
    documents/ipg/2024-09-23/b-<id>/meta.json      what `judge editions` lists
    documents/ipg/2024-09-23/b-<id>/index.json     every section's number and title, the
                                                   cross-references (small: lookups read it)
    documents/ipg/2024-09-23/b-<id>/sections/2.json  section 2 with 2.1, 2.2, … in full

Each folder is an :class:`index.atomic.Slot`, as CR editions are: a build is written aside
and only then named in ``CURRENT``, so a reader sees the old build or the new one, whole.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from index.atomic import Slot, clean_slots, private_dir, sweep, write_json
from index.errors import StoreWriteError, os_reason

from .kinds import KINDS

if TYPE_CHECKING:
    from .model import DocSection, TournamentDocument

# Lookups answer from the stored records themselves: no dataclass is built on their way,
# since making one costs a cold start a millisecond or two.

__all__ = [
    "DocumentInfo",
    "DocumentStore",
    "DocumentStoreError",
    "NoDocumentError",
    "NoOlderDocumentError",
    "SectionIndex",
    "group_of",
]

FORMAT = 1


class DocumentStoreError(ValueError):
    """Raised when a stored document's files cannot be read (damaged or edited by hand)."""

    def __init__(self, kind: str, edition: str, path: Path, reason: str) -> None:
        self.kind = kind
        self.edition = edition
        self.path = path
        super().__init__(f"the stored {kind} {edition} is damaged: {path} ({reason})")


class NoDocumentError(LookupError):
    """Raised when no edition of a document (or not the one asked for) is stored."""

    def __init__(self, kind: str, wanted: str | None, stored: list[str]) -> None:
        self.kind = kind
        self.wanted = wanted
        self.stored = stored
        if wanted is None:
            super().__init__(f"no {kind} is stored")
        else:
            have = ", ".join(stored) if stored else "none"
            super().__init__(f"{kind} {wanted} is not stored (stored: {have})")


class NoOlderDocumentError(LookupError):
    """Raised when a comparison needs an edition of a document older than the one given."""

    def __init__(self, kind: str, newer: str) -> None:
        self.kind = kind
        self.newer = newer
        super().__init__(f"no {kind} older than {newer} is stored")


class DocumentInfo(NamedTuple):
    """What ``judge editions`` lists for one stored document edition."""

    document: str
    edition: str
    title: str
    sections: int
    source: str
    sha256: str = ""
    problems: int = 0

    def to_json(self) -> dict[str, Any]:
        """The ``judge editions --json`` record."""
        return {
            "document": self.document,
            "edition": self.edition,
            "title": self.title,
            "sections": self.sections,
            "source": self.source,
            "sha256": self.sha256,
        }


class SectionIndex:
    """The small index of one stored edition: numbers, titles and cross-references."""

    def __init__(
        self,
        kind: str,
        edition: str,
        title: str,
        entries: list[dict[str, Any]],
        cites: dict[str, list[str]],
        cited_by: dict[str, list[str]],
        path: Path,
    ) -> None:
        self.kind = kind
        self.edition = edition
        self.title = title
        self.entries = entries
        """``{"number", "title", "penalty", "parent", "group", "parts"}`` per section, in order
        (``parts``: the headings of its headed parts)."""
        self.cites = cites
        self.cited_by = cited_by
        """Who cites each section within the same document (others are read at lookup time)."""
        self.path = path
        """The build folder."""

    def find(self, number: str) -> dict[str, Any] | None:
        """The entry of the section with this exact number, or ``None``."""
        return next((e for e in self.entries if e["number"] == number), None)

    @property
    def numbers(self) -> list[str]:
        return [e["number"] for e in self.entries]


def group_of(section: DocSection) -> str:
    """The file a section is stored in: its top-level number, or its own number's slug."""
    if section.number[:1].isdigit():
        return section.number.split(".", 1)[0]
    return section.number.lower().replace(" ", "-")


def _read_json(path: Path, kind: str, edition: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise DocumentStoreError(kind, edition, path, reason) from None


def _section_to_data(section: DocSection) -> dict[str, Any]:
    return {
        "number": section.number,
        "title": section.title,
        "penalty": section.penalty,
        "parent": section.parent,
        "line": section.line,
        "parts": [[p.heading, p.text, p.line] for p in section.parts],
    }


def _section_from_data(data: dict[str, Any]) -> DocSection:
    from .model import DocSection, Part

    return DocSection(
        data["number"],
        data["title"],
        [Part(heading, text, line) for heading, text, line in data["parts"]],
        penalty=data["penalty"],
        parent=data["parent"],
        line=data["line"],
    )


class DocumentStore:
    """The tournament documents stored in one data folder."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def documents_dir(self) -> Path:
        return self.root / "documents"

    def _current(self, kind: str, edition: str) -> Path | None:
        build = Slot(self.documents_dir / kind / edition).current()
        return build if build is not None and (build / "index.json").is_file() else None

    def dates(self, kind: str) -> list[str]:
        """The stored editions of ``kind``, oldest first."""
        folder = self.documents_dir / kind
        if kind not in KINDS or not folder.is_dir():
            return []
        return sorted(
            p.name
            for p in folder.iterdir()
            if p.is_dir() and not p.name.startswith(".") and self._current(kind, p.name)
        )

    def damaged(self, kind: str) -> list[str]:
        """The editions of ``kind`` whose folder is there but names no complete build."""
        folder = self.documents_dir / kind
        if kind not in KINDS or not folder.is_dir():
            return []
        return sorted(
            p.name
            for p in folder.iterdir()
            if p.is_dir()
            and not p.name.startswith(".")
            and self._current(kind, p.name) is None
            and (Slot(p).current() is not None or Slot(p).is_damaged())
        )

    def remove(self, kind: str, edition: str) -> None:
        """Deletes a stored edition of ``kind`` (damaged or not). Raises :class:`NoDocumentError`.

        Only the name of a stored (or damaged) edition is accepted: never a path.
        """
        import os
        import shutil

        # Compared with the names listed from the folder: "..", "/etc" or "a/b" are none.
        if kind not in KINDS or edition not in (*self.dates(kind), *self.damaged(kind)):
            raise NoDocumentError(kind, edition, self.dates(kind))
        folder = self.documents_dir / kind
        try:
            sweep(folder, ".trash-")  # what a killed removal left
            trash = private_dir(folder, ".trash-")
            try:
                os.replace(folder / edition, trash / edition)
            finally:
                shutil.rmtree(trash, ignore_errors=True)
        except OSError as exc:
            raise StoreWriteError(self.root, os_reason(exc)) from None

    def has(self, kind: str, edition: str) -> bool:
        """Checks if this edition of ``kind`` is stored (with a complete build)."""
        return kind in KINDS and self._current(kind, edition) is not None

    def resolve(self, kind: str, wanted: str | None) -> str:
        """The date an ``--edition`` value names for ``kind``: ``None``/``latest`` → newest."""
        dates = self.dates(kind)
        if wanted is None or wanted.strip().lower() in ("", "latest", "newest"):
            if not dates:
                raise NoDocumentError(kind, None, dates)
            return dates[-1]
        key = wanted.strip()
        matches = [d for d in dates if d == key] or [d for d in dates if d.startswith(key)]
        if len(matches) == 1:
            return matches[0]
        raise NoDocumentError(kind, key, dates)

    def edition_before(self, kind: str, wanted: str | None) -> str:
        """The newest stored edition of ``kind`` older than ``wanted`` (default: the newest).

        Raises :class:`NoDocumentError`, and :class:`NoOlderDocumentError` when none is older.
        """
        newer = self.resolve(kind, wanted)
        older = [d for d in self.dates(kind) if d < newer]
        if not older:
            raise NoOlderDocumentError(kind, newer)
        return older[-1]

    def in_force(self, kind: str, date: str) -> str | None:
        """The edition of ``kind`` in force on ``date`` (else the earliest stored after it)."""
        dates = self.dates(kind)
        before = [d for d in dates if d <= date]
        if before:
            return before[-1]
        return dates[0] if dates else None

    def _build(self, kind: str, edition: str) -> Path:
        build = self._current(kind, edition)
        if build is None:
            raise NoDocumentError(kind, edition, self.dates(kind))
        return build

    def info(self, kind: str, edition: str) -> DocumentInfo:
        """The listing record of one stored edition."""
        meta = _read_json(self._build(kind, edition) / "meta.json", kind, edition)
        try:
            return DocumentInfo(
                meta["document"],
                meta["edition"],
                meta["title"],
                meta["sections"],
                meta["source"],
                meta["sha256"],
                len(meta["problems"]),
            )
        except (KeyError, TypeError) as exc:
            path = self._build(kind, edition) / "meta.json"
            raise DocumentStoreError(kind, edition, path, f"missing {exc}") from None

    def editions(self) -> list[DocumentInfo]:
        """Every stored document edition: by document (as :data:`KINDS` orders them), by date."""
        return [self.info(kind, date) for kind in KINDS for date in self.dates(kind)]

    def index(self, kind: str, edition: str) -> SectionIndex:
        """The section index of a stored edition (a few kilobytes: every lookup reads it)."""
        build = self._build(kind, edition)
        data = _read_json(build / "index.json", kind, edition)
        try:
            return SectionIndex(
                kind,
                edition,
                data["title"],
                data["sections"],
                data["cites"],
                data["cited_by"],
                build,
            )
        except (KeyError, TypeError) as exc:
            raise DocumentStoreError(
                kind, edition, build / "index.json", f"missing {exc}"
            ) from None

    def section_records(self, index: SectionIndex, numbers: list[str]) -> list[dict[str, Any]]:
        """The stored records of the sections named, in document order, reading only the files
        that hold them: ``{"number", "title", "penalty", "parent", "line", "parts"}`` with
        ``parts`` as ``[heading, text, line]`` rows."""
        wanted = set(numbers)
        groups = list(dict.fromkeys(e["group"] for e in index.entries if e["number"] in wanted))
        found: dict[str, dict[str, Any]] = {}
        for group in groups:
            path = index.path / "sections" / f"{group}.json"
            data = _read_json(path, index.kind, index.edition)
            try:
                for row in data["sections"]:
                    if row["number"] in wanted:
                        if not all(len(part) == 3 for part in row["parts"]):
                            raise ValueError(f"parts of {row['number']}")
                        found[row["number"]] = row
            except (KeyError, TypeError, ValueError) as exc:
                raise DocumentStoreError(
                    index.kind, index.edition, path, f"bad record: {exc}"
                ) from None
        return [found[n] for n in index.numbers if n in found]

    def sections(self, index: SectionIndex, numbers: list[str]) -> list[DocSection]:
        """The sections named, as :class:`~index.tournament.model.DocSection`, in order."""
        return [_section_from_data(row) for row in self.section_records(index, numbers)]

    def load(self, kind: str, edition: str) -> TournamentDocument:
        """A whole stored edition (for reading it through, searching or comparing it)."""
        from glossary.entry import ParseProblem

        from .model import TournamentDocument

        index = self.index(kind, edition)
        meta = _read_json(index.path / "meta.json", kind, edition)
        doc = TournamentDocument(kind, edition, index.title)
        doc.sections = self.sections(index, index.numbers)
        doc.problems = [ParseProblem(*row) for row in meta.get("problems", [])]
        return doc

    def add(self, doc: TournamentDocument, source: str, sha256: str) -> DocumentInfo:
        """Stores a read document as the edition of its date, atomically (replacing any)."""
        from .refs import find_citations

        cites: dict[str, list[str]] = {}
        dangling: dict[str, list[str]] = {}
        for section in doc.sections:
            found, missing = find_citations(section, doc.kind, doc.sections)
            if found:
                cites[section.number] = found
            if missing:
                dangling[section.number] = missing
        cited_by: dict[str, list[str]] = {}
        for number, targets in cites.items():
            for target in targets:
                if target.startswith(f"{doc.kind}:"):
                    cited_by.setdefault(target.split(":", 1)[1], []).append(f"{doc.kind}:{number}")
        info = DocumentInfo(
            doc.kind, doc.edition, doc.title, len(doc.sections), source, sha256, len(doc.problems)
        )
        groups: dict[str, list[dict[str, Any]]] = {}
        entries = []
        for section in doc.sections:
            group = group_of(section)
            groups.setdefault(group, []).append(_section_to_data(section))
            entries.append(
                {
                    "number": section.number,
                    "title": section.title,
                    "penalty": section.penalty,
                    "parent": section.parent,
                    "group": group,
                    "parts": [p.heading for p in section.parts if p.heading],
                }
            )
        clean_slots(self.documents_dir / doc.kind)  # other builds killed before going live
        with Slot(self.documents_dir / doc.kind / doc.edition).new_build() as build:
            (build / "sections").mkdir()
            for group, rows in groups.items():
                write_json(build / "sections" / f"{group}.json", {"sections": rows})
            write_json(
                build / "index.json",
                {
                    "format": FORMAT,
                    "document": doc.kind,
                    "edition": doc.edition,
                    "title": doc.title,
                    "sections": entries,
                    "cites": cites,
                    "cited_by": cited_by,
                    "dangling": dangling,
                },
            )
            problems = [[p.line, p.text, p.reason] for p in doc.problems]
            write_json(
                build / "meta.json",
                info.to_json() | {"format": FORMAT, "problems": problems, "built": time.time()},
            )
        _index_for_search(self)
        return info

    def dangling(self, kind: str, edition: str) -> dict[str, list[str]]:
        """References into the document itself that name no section, by the section making them."""
        data = _read_json(self._build(kind, edition) / "index.json", kind, edition)
        result: dict[str, list[str]] = data.get("dangling", {})
        return result


def _index_for_search(store: DocumentStore) -> None:
    """Indexes the stored documents for search now rather than at the next search; a failure
    (a folder that cannot be written) leaves that to the next search, which builds it."""
    import contextlib

    from ..search.tournament import refresh_documents_index
    from ..store import EditionStore

    with contextlib.suppress(OSError, DocumentStoreError):
        refresh_documents_index(store, store.root / "cache", EditionStore(store.root).dates())
