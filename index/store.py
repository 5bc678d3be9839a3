"""The on-disk store of editions: one folder per effective date, replaced atomically.

Layout under the data folder (``$JUDGE_HOME``, else the platform's user data folder)::

    editions/2025-02-07/CURRENT          the name of the build in use (replaced atomically)
    editions/2025-02-07/b-<id>/edition.json
    editions/2025-02-07/b-<id>/rules/704.json, numbers.json, glossary.json   (parts, for look-ups)
    editions/2025-02-07/b-<id>/search/   the whoosh index (see index.search)

Each edition folder is an :class:`index.atomic.Slot`: a build is written into a fresh ``b-<id>``
folder and only then named in ``CURRENT``, so a reader sees either the old build or the new one,
never half of one; abandoned and retired builds are cleaned on the next write.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .atomic import Slot
from .errors import AmbiguousEditionError, NoEditionError, NoNotesError, StoreError
from .records import FrozenRecord, Record

if TYPE_CHECKING:
    from .model import Document, XRefs
    from .storing import ReplaceRefusedError, document_to_data

# The document model is imported where documents are built, not here: `judge search` opens
# the store without building one, and importing the model costs start-up time. Writing lives
# in index.storing (re-exported here on first use): a look-up never loads it.

__all__ = [
    "AmbiguousEditionError",
    "EditionInfo",
    "EditionStore",
    "NoEditionError",
    "NoNotesError",
    "ReplaceRefusedError",
    "StoreError",
    "StoredEdition",
    "StoredFamilies",
    "document_from_data",
    "document_to_data",
    "families_for",
]

FORMAT = 1
GLOSSARY_FILE = "glossary.json"
"""The glossary of a build, apart (builds stored before 2026-12-01 lack it)."""


def __getattr__(name: str) -> Any:
    if name in ("ReplaceRefusedError", "document_to_data"):
        from . import storing

        return getattr(storing, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _read_json(path: Path, edition: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise StoreError(edition, path, reason) from None


class EditionInfo(FrozenRecord):
    """What ``judge editions`` lists for one stored edition."""

    __slots__ = _fields = (
        "edition",
        "rules",
        "glossary",
        "source",
        "sha256",
        "encoding",
        "undecodable",
    )
    edition: str
    rules: int
    glossary: int
    source: str
    sha256: str
    encoding: str
    """The codec the file was read with; ``""`` for editions stored before it was recorded."""
    undecodable: int
    """How many bytes of the file were not valid in that encoding."""

    def __init__(
        self,
        edition: str,
        rules: int,
        glossary: int,
        source: str,
        sha256: str = "",
        encoding: str = "",
        undecodable: int = 0,
    ) -> None:
        self._init(edition, rules, glossary, source, sha256, encoding, undecodable)

    def to_json(self) -> dict[str, Any]:
        """The ``judge editions --json`` record."""
        return {
            "edition": self.edition,
            "rules": self.rules,
            "glossary": self.glossary,
            "source": self.source,
            "sha256": self.sha256,
            "encoding": self.encoding or None,
            "undecodable": self.undecodable,
        }

    @property
    def is_guess(self) -> bool:
        """Checks if the file was read with a single-byte guess (Windows-1252, Mac Roman …)."""
        from .decode import DecodedText

        return DecodedText("", self.encoding or "utf-8").is_guess


class StoredEdition(Record):
    """A loaded edition: the document and its precomputed cross-references."""

    _fields = ("info", "document", "xrefs", "path")
    info: EditionInfo
    document: Document
    xrefs: XRefs
    path: Path
    """The build folder (``search/`` lives inside it)."""

    def __init__(self, info: EditionInfo, document: Document, xrefs: XRefs, path: Path) -> None:
        self.info = info
        self.document = document
        self.xrefs = xrefs
        self.path = path


def document_from_data(data: dict[str, Any]) -> Document:
    """Rebuilds a :class:`Document` from :func:`document_to_data` output."""
    from glossary.entry import GlossaryEntry, ParseProblem

    from .model import Document, Rule
    from .section import Section

    doc = Document(
        edition=data["edition"],
        title=data.get("title", ""),
        introduction=data.get("introduction", ""),
        contents=data.get("contents", ""),
        credits=data.get("credits", ""),
        encoding=data.get("encoding", ""),
        undecodable=data.get("undecodable", 0),
    )
    doc.rules = {n: Rule(n, text, examples, line) for n, text, examples, line in data["rules"]}
    doc.glossary = [GlossaryEntry(t, d, line, see) for t, d, line, see in data["glossary"]]
    doc.problems = [ParseProblem(line, text, reason) for line, text, reason in data["problems"]]
    doc.sections = [Section(*row) for row in data.get("sections", [])]
    return doc


def _default_root() -> Path:
    home = os.environ.get("JUDGE_HOME")
    if home:
        return Path(home).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("judge", appauthor=False))


class EditionStore:
    """The editions stored in one data folder."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def from_env(cls) -> EditionStore:
        """The store at ``$JUDGE_HOME``, else the user data folder."""
        return cls(_default_root())

    @property
    def editions_dir(self) -> Path:
        return self.root / "editions"

    def _current(self, edition: str) -> Path | None:
        build = Slot(self.editions_dir / edition).current()
        return build if build is not None and (build / "edition.json").is_file() else None

    def dates(self) -> list[str]:
        """The stored editions' dates, oldest first."""
        if not self.editions_dir.is_dir():
            return []
        return sorted(
            p.name
            for p in self.editions_dir.iterdir()
            if p.is_dir() and not p.name.startswith(".") and self._current(p.name) is not None
        )

    def has(self, edition: str) -> bool:
        """Checks if an edition with this date is stored."""
        return self._current(edition) is not None

    def resolve(self, wanted: str | None) -> str:
        """The date an ``--edition`` value names: ``None``/``latest`` → the newest stored."""
        dates = self.dates()
        if wanted is None or wanted.strip().lower() in ("", "latest", "newest"):
            if not dates:
                raise NoEditionError(None, dates)
            return dates[-1]
        key = wanted.strip()
        if key in dates:
            return key
        # Tolerate a partial date: "2025" or "2025-02" when exactly one edition matches.
        matches = [d for d in dates if d.startswith(key)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise AmbiguousEditionError(key, matches, dates)
        if self.is_damaged(key):
            raise StoreError(key, self.editions_dir / key, "it has no complete build")
        raise NoEditionError(key, dates)

    def is_damaged(self, edition: str) -> bool:
        """Checks if ``edition`` was stored but no complete build of it answers any more.

        A first build in progress, or killed, is not damage: that edition was never stored.
        """
        folder = self.editions_dir / edition
        if edition.startswith(".") or not folder.is_dir() or self._current(edition) is not None:
            return False
        slot = Slot(folder)
        return slot.current() is not None or slot.is_damaged()  # live but missing files, or lost

    def damaged(self) -> list[str]:
        """The editions whose folder is there but whose ``CURRENT`` names no complete build."""
        if not self.editions_dir.is_dir():
            return []
        return sorted(p.name for p in self.editions_dir.iterdir() if self.is_damaged(p.name))

    def info(self, edition: str) -> EditionInfo:
        """The listing record for one stored edition."""
        build = self._current(edition)
        if build is None:
            raise NoEditionError(edition, self.dates())
        path = build / "meta.json"
        meta = _read_json(path, edition)
        kinds = {"edition": str, "rules": int, "glossary": int, "source": str, "sha256": str}
        if not isinstance(meta, dict):
            raise StoreError(edition, path, "not a JSON object")
        for key, kind in kinds.items():
            if not isinstance(meta.get(key), kind):
                raise StoreError(edition, path, f"{key!r} is missing or not a {kind.__name__}")
        return EditionInfo(
            meta["edition"],
            meta["rules"],
            meta["glossary"],
            meta["source"],
            meta["sha256"],
            meta.get("encoding") or "",
            meta.get("undecodable") or 0,
        )

    def editions(self) -> list[EditionInfo]:
        """Every stored edition, oldest first."""
        return [self.info(d) for d in self.dates()]

    def _build(self, edition: str) -> Path:
        build = self._current(edition)
        if build is None:
            raise NoEditionError(edition, self.dates())
        return build

    def load(self, wanted: str | None = None) -> StoredEdition:
        """Loads an edition (default: the newest). Raises :class:`NoEditionError`."""
        edition = self.resolve(wanted)
        build = self._build(edition)
        path = build / "edition.json"
        data = _read_json(path, edition)
        from .xref import DanglingReference, XRefs

        try:
            doc = document_from_data(data)
            info = EditionInfo(
                edition,
                len(doc.rules),
                len(doc.glossary),
                data["source"],
                data["sha256"],
                doc.encoding,
                doc.undecodable,
            )
            dangling = [DanglingReference(s, t) for s, t in data["dangling"]]
            xrefs = XRefs(data["cites"], data["cited_by"], dangling)
            return StoredEdition(info, doc, xrefs, build)
        except (KeyError, TypeError, ValueError) as exc:
            raise StoreError(edition, path, f"unexpected content: {exc!r}") from None

    def numbers(self, edition: str) -> list[str]:
        """Every rule number of a stored edition, in document order."""
        path = self._build(edition) / "numbers.json"
        numbers = _read_json(path, edition)
        if not isinstance(numbers, list) or not all(isinstance(n, str) for n in numbers):
            raise StoreError(edition, path, "not a list of rule numbers")
        return numbers

    def stored_glossary(self, edition: str) -> StoredGlossary | None:
        """The glossary rows and their entries' cross-references, read from ``glossary.json``;
        ``None`` for a build stored before it was written (the whole edition has them)."""
        path = self._build(edition) / GLOSSARY_FILE
        if not path.is_file():
            return None
        data = _read_json(path, edition)
        try:
            rows, cites, cited_by = data["glossary"], data["cites"], data["cited_by"]
        except (KeyError, TypeError) as exc:
            raise StoreError(edition, path, f"unexpected content: {exc!r}") from None
        if not (isinstance(rows, list) and isinstance(cites, dict) and isinstance(cited_by, dict)):
            raise StoreError(edition, path, "not a glossary with its cross-references")
        if not all(isinstance(row, list) and len(row) == 4 for row in rows):
            raise StoreError(edition, path, "a glossary row is not [term, definition, line, see]")
        return StoredGlossary(rows, cites, cited_by)

    def read_families(
        self, edition: str, families: Iterable[str], *, missing_ok: bool = False
    ) -> StoredFamilies:
        """The rules of the given families (``704``, ``sections``) with their cross-references.

        A family whose file is missing means a damaged store (the edition's numbers named it),
        unless ``missing_ok``: a caller probing for families an edition may not have (``502``).
        """
        build = self._build(edition)
        out = StoredFamilies()
        for family in sorted(set(families)):
            path = build / "rules" / f"{family}.json"
            if missing_ok and not path.is_file():
                continue
            data = _read_json(path, edition)
            try:
                out.rules.extend(data["rules"])
                out.cites.update(data["cites"])
                out.cited_by.update(data["cited_by"])
            except (KeyError, TypeError, ValueError) as exc:
                raise StoreError(edition, path, f"unexpected content: {exc!r}") from None
        return out

    def load_rules(self, wanted: str | None, spans: list[tuple[str, str | None]]) -> StoredEdition:
        """Loads only the rule families that ``spans`` (``(start, end or None)``) touch.

        Enough for ``judge rule``: the document holds every section heading, each three-digit
        rule named with all its subrules, and ``all_numbers`` for "nearest" suggestions.
        """
        from .model import Document, Rule
        from .xref import XRefs

        edition = self.resolve(wanted)
        meta = self.info(edition)
        all_numbers = self.numbers(edition)
        found = self.read_families(edition, families_for(all_numbers, spans))
        position = {n: i for i, n in enumerate(all_numbers)}
        found.rules.sort(key=lambda row: position.get(row[0], 0))
        doc = Document(edition=edition, all_numbers=all_numbers)
        doc.rules = {n: Rule(n, text, examples, line) for n, text, examples, line in found.rules}
        xrefs = XRefs(found.cites, found.cited_by)
        return StoredEdition(meta, doc, xrefs, self._build(edition))

    def build_path(self, edition: str) -> Path | None:
        """The folder of the build in use for ``edition``, or ``None``."""
        return self._current(edition)

    def read_glossary(self, edition: str) -> list[list[Any]]:
        """The glossary rows ``[term, definition, line, see]`` of a stored edition."""
        build = self._current(edition)
        if build is None:
            raise NoEditionError(edition, self.dates())
        stored = self.stored_glossary(edition)
        if stored is not None:
            return stored.rows
        rows: list[list[Any]] = _read_json(build / "edition.json", edition)["glossary"]
        return rows

    def add_bytes(
        self,
        data: bytes,
        source: str,
        *,
        extra: Callable[[Document, Path], None] | None = None,
        replace: bool = False,
    ) -> EditionInfo:
        """Parses a CR file and stores it as an edition, atomically.

        ``extra`` is called with the document and the new build folder before it goes live (the
        search index is built there). Raises :class:`~index.reader.CRReadError` for bad input,
        and :class:`ReplaceRefusedError` (unless ``replace``) for a file that reads worse than
        the stored edition of its date; nothing stored changes unless the whole build succeeds.
        """
        import hashlib

        from .reader import read_cr_bytes

        doc = read_cr_bytes(data, source)
        assert doc.edition is not None
        sha = hashlib.sha256(data).hexdigest()
        return self.add_document(doc, source, sha, extra=extra, replace=replace)

    def add_document(
        self,
        doc: Document,
        source: str,
        sha256: str,
        *,
        extra: Callable[[Document, Path], None] | None = None,
        replace: bool = False,
    ) -> EditionInfo:
        """Stores a parsed document as an edition, atomically (see :meth:`add_bytes`)."""
        from .storing import add_document

        return add_document(self, doc, source, sha256, extra=extra, replace=replace)

    @property
    def notes_dir(self) -> Path:
        return self.root / "notes"

    def add_notes(self, name: str, text: str) -> None:
        """Stores a Markdown notes file (replacing one of the same name), atomically."""
        from .storing import add_notes

        add_notes(self, name, text)

    def notes(self) -> list[tuple[str, str]]:
        """The stored notes as ``(name, Markdown text)``, by name."""
        if not self.notes_dir.is_dir():
            return []
        return [
            (p.stem, p.read_text(encoding="utf-8")) for p in sorted(self.notes_dir.glob("*.md"))
        ]

    def notes_names(self) -> list[str]:
        """The names of the stored notes, sorted."""
        if not self.notes_dir.is_dir():
            return []
        return sorted(p.stem for p in self.notes_dir.glob("*.md"))

    def remove_notes(self, name: str) -> None:
        """Deletes stored notes by name. Raises :class:`NoNotesError` (never takes a path), or
        :class:`~index.errors.StoreWriteError`."""
        from .storing import remove_notes

        remove_notes(self, name)

    def remove(self, edition: str) -> None:
        """Deletes a stored edition, damaged or not. Raises :class:`NoEditionError` or
        :class:`~index.errors.StoreWriteError`.

        Only the name of a stored (or damaged) edition is accepted: never a path.
        """
        from .storing import remove_edition

        remove_edition(self, edition)


class StoredGlossary(Record):
    """Glossary rows (term, definition, line, see) and the entries' cross-references."""

    _fields = ("rows", "cites", "cited_by")
    rows: list[list[Any]]
    cites: dict[str, list[str]]
    cited_by: dict[str, list[str]]

    def __init__(
        self, rows: list[list[Any]], cites: dict[str, list[str]], cited_by: dict[str, list[str]]
    ) -> None:
        self.rows, self.cites, self.cited_by = rows, cites, cited_by


class StoredFamilies(Record):
    """Rule rows and cross-references read from some of an edition's ``rules/*.json`` files."""

    _fields = ("rules", "cites", "cited_by")
    rules: list[list[Any]]
    cites: dict[str, list[str]]
    cited_by: dict[str, list[str]]

    def __init__(
        self,
        rules: list[list[Any]] | None = None,
        cites: dict[str, list[str]] | None = None,
        cited_by: dict[str, list[str]] | None = None,
    ) -> None:
        self.rules = [] if rules is None else rules
        self.cites = {} if cites is None else cites
        self.cited_by = {} if cited_by is None else cited_by


def families_for(all_numbers: list[str], spans: list[tuple[str, str | None]]) -> set[str]:
    """The rule files a lookup of ``spans`` needs: every family they touch, and the sections."""
    heads = [n for n in all_numbers if len(n) == 3]
    families = {"sections"} if any(family_of(n) == "sections" for n in all_numbers) else set()
    for start, end in spans:
        first, last = start.split(".")[0], (end or start).split(".")[0]
        # A section stands for all its rules; a range for every rule in between.
        lo = first if len(first) == 3 else first + "00"
        hi = last if len(last) == 3 else last + "99"
        families.update(h for h in heads if lo <= h <= hi)
    return families


def family_of(number: str) -> str:
    """The file a rule's record lives in: its three-digit rule, or ``sections`` for a section."""
    head = number.split(".", 1)[0]
    return head if len(head) == 3 else "sections"
