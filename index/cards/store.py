"""The stored card snapshot: one sqlite database per import, switched in atomically.

Layout under the data folder (``$JUDGE_HOME``, else the user data folder)::

    cards/CURRENT                         the name of the build in use (replaced atomically)
    cards/b-<id>/snapshot.json            what ``judge cards`` shows (date, counts, source)
    cards/b-<id>/cards-2026-07-03.sqlite  the snapshot, named by the file's ``meta.date``

``cards/`` is an :class:`index.atomic.Slot`: an import fills a fresh ``b-<id>`` folder, checks
it, and only then names it in ``CURRENT``; a failed or killed import leaves the snapshot that was
answering in place, and the next import removes its folder. The database holds one row per card
(``cards``), one per face (``faces``), the rulings (``rulings``), the folded names each card is
found by (``names``, indexed), FTS5 tables over face names and text (``faces_fts``) and rulings
(``rulings_fts``), and a trigram index of the names (``name_grams``) for "did you mean".
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, NamedTuple

from ..atomic import Slot, write_text_atomic
from .errors import (
    CardFileError,
    CardStoreError,
    CardWriteError,
    NoCardStoreError,
    OlderSnapshotError,
)

__all__ = ["FORMAT", "CardStore", "SnapshotInfo", "import_cards"]

FORMAT = 1
"""The database layout's version, in ``snapshot.json``; a snapshot of another is not read."""

_BATCH = 2000

Progress = Callable[[int, int | None], None]
"""Called with the bytes read so far and the file's size (``None`` for a stream)."""

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE cards (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    layout TEXT
);
CREATE TABLE faces (
    id INTEGER PRIMARY KEY,
    card_id INTEGER NOT NULL REFERENCES cards (id),
    position INTEGER NOT NULL,
    side TEXT,
    name TEXT NOT NULL,
    mana_cost TEXT,
    type_line TEXT NOT NULL,
    types TEXT NOT NULL,
    supertypes TEXT NOT NULL,
    subtypes TEXT NOT NULL,
    colors TEXT NOT NULL,
    text TEXT,
    power TEXT,
    toughness TEXT,
    loyalty TEXT,
    defense TEXT,
    keywords TEXT NOT NULL
);
CREATE TABLE rulings (
    id INTEGER PRIMARY KEY,
    card_id INTEGER NOT NULL REFERENCES cards (id),
    date TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE TABLE names (
    id INTEGER PRIMARY KEY,
    card_id INTEGER NOT NULL REFERENCES cards (id),
    kind TEXT NOT NULL,
    folded TEXT NOT NULL,
    loose TEXT NOT NULL,
    face INTEGER
);
"""

_INDEXES = """
CREATE INDEX faces_card ON faces (card_id, position);
CREATE INDEX rulings_card ON rulings (card_id, date);
CREATE INDEX names_folded ON names (folded);
CREATE INDEX names_loose ON names (loose);
CREATE VIRTUAL TABLE faces_fts USING fts5 (
    name, text, content='faces', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
INSERT INTO faces_fts (rowid, name, text) SELECT id, name, coalesce(text, '') FROM faces;
CREATE VIRTUAL TABLE rulings_fts USING fts5 (
    text, content='rulings', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
INSERT INTO rulings_fts (rowid, text) SELECT id, text FROM rulings;
"""

# The trigram tokenizer came with SQLite 3.34 (2020); without it "did you mean" compares every
# name instead (see index.cards.lookup), slower but the same answers.
_TRIGRAMS = """
CREATE VIRTUAL TABLE name_grams USING fts5 (folded, content='names', content_rowid='id',
    tokenize='trigram');
INSERT INTO name_grams (rowid, folded) SELECT id, folded FROM names;
"""


class SnapshotInfo(NamedTuple):
    """What ``judge cards`` shows about the stored snapshot."""

    date: str
    """The card file's ``meta.date``."""
    cards: int
    faces: int
    rulings: int
    source: str
    """The file name (or address) it was imported from."""
    sha256: str
    """Of the file as given (compressed, if it was)."""
    version: str
    """The file's ``meta.version``."""
    imported: str
    """When it was imported (ISO 8601, UTC)."""
    file: str = ""
    """The database's file name inside the build folder."""

    def to_json(self) -> dict[str, Any]:
        """The ``judge cards --json`` record."""
        return {
            "date": self.date,
            "cards": self.cards,
            "faces": self.faces,
            "rulings": self.rulings,
            "source": self.source,
            "sha256": self.sha256,
            "version": self.version,
            "imported": self.imported,
        }


def _size_of(stream: IO[bytes]) -> int | None:
    """The size of a regular file; ``None`` for a pipe, a socket, or an object in memory."""
    import stat

    try:
        found = os.fstat(stream.fileno())
    except (OSError, AttributeError, ValueError):
        return None
    return found.st_size if stat.S_ISREG(found.st_mode) else None


def _read_snapshot(build: Path) -> SnapshotInfo:
    """The record in a build's ``snapshot.json``; raises :class:`CardStoreError` if damaged."""
    path = build / "snapshot.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            raise CardStoreError(path, f"format {data.get('format')!r}, not {FORMAT}")
        return SnapshotInfo(
            data["date"],
            data["cards"],
            data["faces"],
            data["rulings"],
            data["source"],
            data["sha256"],
            data["version"],
            data["imported"],
            data["file"],
        )
    except FileNotFoundError:
        raise CardStoreError(path, "missing") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CardStoreError(path, str(exc) or type(exc).__name__) from None


def _uri_path(path: Path) -> str:
    """``path`` for a sqlite ``file:`` URI (``Path.as_uri`` would import urllib)."""
    text = os.path.abspath(path)
    for char, code in (("%", "%25"), ("?", "%3f"), ("#", "%23")):
        text = text.replace(char, code)
    return text


class CardStore:
    """The card snapshot stored in one data folder."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def from_env(cls) -> CardStore:
        """The store at ``$JUDGE_HOME``, else the user data folder."""
        from ..store import _default_root

        return cls(_default_root())

    @property
    def folder(self) -> Path:
        return self.root / "cards"

    def find_info(self) -> SnapshotInfo | None:
        """The stored snapshot's record, or ``None`` when nothing is stored."""
        build = Slot(self.folder).current()
        return None if build is None else _read_snapshot(build)

    def get_info(self) -> SnapshotInfo:
        """The stored snapshot's record; raises :class:`NoCardStoreError` if there is none."""
        info = self.find_info()
        if info is None:
            raise NoCardStoreError(self.root)
        return info

    def database_path(self) -> tuple[SnapshotInfo, Path]:
        """The stored snapshot and its database file; raises if there is none."""
        build = Slot(self.folder).current()
        if build is None:
            raise NoCardStoreError(self.root)
        info = _read_snapshot(build)
        path = build / info.file
        if not path.is_file():
            raise CardStoreError(path, "the database named in snapshot.json is missing")
        return info, path

    def connect(self, *, check_same_thread: bool = True) -> tuple[SnapshotInfo, sqlite3.Connection]:
        """A read-only connection to the stored snapshot (which never changes once live).

        ``check_same_thread=False`` lets another thread close it (sqlite3's own check).
        """
        info, path = self.database_path()
        try:
            # immutable: a live snapshot is never written again, so sqlite may skip locking.
            conn = sqlite3.connect(
                f"file:{_uri_path(path)}?immutable=1", uri=True, check_same_thread=check_same_thread
            )
            conn.execute("SELECT 1 FROM cards LIMIT 1")
        except sqlite3.DatabaseError as exc:
            raise CardStoreError(path, str(exc)) from None
        return info, conn

    def import_cards(
        self,
        source: str | os.PathLike[str] | IO[bytes],
        *,
        name: str | None = None,
        progress: Progress | None = None,
    ) -> SnapshotInfo:
        """Reads an AtomicCards file (a path or a binary stream) and stores it, atomically.

        ``name`` is how the snapshot records its source (default: the file's name). Raises
        :class:`CardFileError` for a bad file and :class:`OlderSnapshotError` for one older
        than the stored snapshot; in every failure the snapshot that was answering stays.
        """
        stored = self.find_info_quietly()
        try:
            if not isinstance(source, (str, os.PathLike)):
                label = name or "stream"
                return self._import(source, label, label, _size_of(source), progress)
            path = Path(source)
            try:
                stream = path.open("rb")
            except OSError as exc:
                raise CardFileError(str(path), f"cannot read it ({exc.strerror or exc})") from None
            with stream:
                return self._import(
                    stream, str(path), name or path.name, _size_of(stream), progress
                )
        except (CardFileError, CardWriteError) as exc:
            exc.kept = stored.date if stored is not None else None
            raise

    def _import(
        self,
        stream: IO[bytes],
        file: str,
        label: str,
        size: int | None,
        progress: Progress | None,
    ) -> SnapshotInfo:
        from .reader import AtomicCardsReader

        stored = self.find_info_quietly()
        reader = AtomicCardsReader(
            stream, file, progress=None if progress is None else lambda done: progress(done, size)
        )
        with Slot(self.folder).new_build() as build:
            db_path = build / "cards.sqlite"
            try:
                counts = _write_database(db_path, reader, stored, file)
            except sqlite3.Error as exc:  # "database or disk is full", above all
                raise CardWriteError(db_path, str(exc), self.root) from None
            assert reader.meta is not None  # checked by the reader at the end of the entries
            date = reader.meta["date"]
            final = build / f"cards-{date}.sqlite"
            os.replace(db_path, final)
            info = SnapshotInfo(
                date=date,
                cards=counts[0],
                faces=counts[1],
                rulings=counts[2],
                source=label,
                sha256=reader.sha256,
                version=str(reader.meta.get("version", "")),
                imported=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                file=final.name,
            )
            record = {"format": FORMAT, **info.to_json(), "file": final.name}
            # Flushed to disk like the database, before CURRENT names the build.
            write_text_atomic(build / "snapshot.json", json.dumps(record, ensure_ascii=False))
            _index_rulings(build, final, info)
        return info

    def find_info_quietly(self) -> SnapshotInfo | None:
        """The stored snapshot's record, ``None`` if there is none or it cannot be read."""
        try:
            return self.find_info()
        except CardStoreError:
            return None


def _write_database(
    path: Path, reader: Any, stored: SnapshotInfo | None, file: str
) -> tuple[int, int, int]:
    """Fills a new database from the reader, checks it, and returns (cards, faces, rulings)."""
    from .rows import card_rows

    conn = sqlite3.connect(path, isolation_level=None)
    try:
        # The file is not live until it is complete, fsynced and named in CURRENT; a crash
        # mid-way leaves an abandoned build, never a half-written snapshot in use.
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.executescript(_SCHEMA)
        conn.execute("BEGIN")
        cards: list[tuple[int, str, str | None]] = []
        faces: list[tuple[Any, ...]] = []
        rulings: list[tuple[int, str, str]] = []
        names: list[tuple[int, str, str, str, int | None]] = []
        card_id = n_faces = n_rulings = 0
        checked = False
        for name, entry in reader.entries():
            if not checked and reader.meta is not None:
                _check_newer(reader.meta, stored, file)
                checked = True
            rows = card_rows(name, entry, file)
            card_id += 1
            cards.append((card_id, rows.name, rows.layout))
            faces.extend((card_id, *face) for face in rows.faces)
            rulings.extend((card_id, date, text) for date, text in rows.rulings)
            names.extend((card_id, *key) for key in rows.names)
            if len(cards) >= _BATCH:
                n_faces += len(faces)
                n_rulings += len(rulings)
                _flush(conn, cards, faces, rulings, names)
        n_faces += len(faces)
        n_rulings += len(rulings)
        _flush(conn, cards, faces, rulings, names)
        assert reader.meta is not None
        if not checked:
            _check_newer(reader.meta, stored, file)
        meta = {
            "date": reader.meta["date"],
            "version": str(reader.meta.get("version", "")),
            "format": str(FORMAT),
        }
        conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", meta.items())
        conn.execute("COMMIT")
        conn.executescript(f"BEGIN; {_INDEXES} COMMIT;")
        try:
            conn.executescript(f"BEGIN; {_TRIGRAMS} COMMIT;")
        except sqlite3.OperationalError as exc:
            if "trigram" not in str(exc):
                raise
            conn.execute("ROLLBACK")
        _verify(conn, path, card_id, n_faces)
    finally:
        conn.close()
    with path.open("rb") as fh:
        os.fsync(fh.fileno())
    return card_id, n_faces, n_rulings


def _flush(
    conn: sqlite3.Connection,
    cards: list[tuple[int, str, str | None]],
    faces: list[tuple[Any, ...]],
    rulings: list[tuple[int, str, str]],
    names: list[tuple[int, str, str, str, int | None]],
) -> None:
    conn.executemany("INSERT INTO cards (id, name, layout) VALUES (?, ?, ?)", cards)
    conn.executemany(
        "INSERT INTO faces (card_id, position, side, name, mana_cost, type_line, types, "
        "supertypes, subtypes, colors, text, power, toughness, loyalty, defense, keywords) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        faces,
    )
    conn.executemany("INSERT INTO rulings (card_id, date, text) VALUES (?, ?, ?)", rulings)
    conn.executemany(
        "INSERT INTO names (card_id, kind, folded, loose, face) VALUES (?, ?, ?, ?, ?)", names
    )
    for rows in (cards, faces, rulings, names):
        rows.clear()


def _check_newer(meta: dict[str, Any], stored: SnapshotInfo | None, file: str) -> None:
    date = meta.get("date")
    if stored is not None and isinstance(date, str) and date < stored.date:
        raise OlderSnapshotError(file, date, stored.date)


def _verify(conn: sqlite3.Connection, path: Path, cards: int, faces: int) -> None:
    """Checks the new database before it may go live: intact, and holding what was read."""
    problem = conn.execute("PRAGMA quick_check").fetchone()[0]
    if problem != "ok":
        raise CardStoreError(path, f"the new database failed its check: {problem}")
    stored_cards = conn.execute("SELECT count(*) FROM cards").fetchone()[0]
    stored_faces = conn.execute("SELECT count(*) FROM faces").fetchone()[0]
    if (stored_cards, stored_faces) != (cards, faces):
        raise CardStoreError(
            path, f"it holds {stored_cards} cards and {stored_faces} faces, not {cards} and {faces}"
        )


def import_cards(
    source: str | os.PathLike[str] | IO[bytes],
    *,
    root: Path | None = None,
    name: str | None = None,
    progress: Progress | None = None,
) -> SnapshotInfo:
    """Imports an AtomicCards file into the data folder (``root``, default ``$JUDGE_HOME``).

    See :meth:`CardStore.import_cards`.
    """
    store = CardStore(root) if root is not None else CardStore.from_env()
    return store.import_cards(source, name=name, progress=progress)


# Re-exported for callers that catch the store's errors from one place.
__all__ += [
    "CardFileError",
    "CardStoreError",
    "CardWriteError",
    "NoCardStoreError",
    "OlderSnapshotError",
]


def _index_rulings(build: Path, db_path: Path, info: SnapshotInfo) -> None:
    """Indexes a new snapshot's rulings for search inside its build, before it goes live (so
    that the first search need not); a failure (a full disk) leaves that to the first search."""
    import contextlib

    from ..search.rulings import index_snapshot

    with contextlib.suppress(OSError, sqlite3.Error):
        index_snapshot(build, db_path, info)
