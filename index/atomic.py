"""Writing to the data folder so that a reader never sees half of anything.

Two mechanisms, used by every store (CR editions, card snapshots, tournament documents):

* :func:`write_text_atomic` / :func:`write_bytes_atomic` for one file: written beside the target
  under a temporary name, flushed, then renamed over it with :func:`os.replace`;
  :func:`open_atomic` does the same for a file written piece by piece (a download).
* :class:`Slot` for a folder of files that must change together: each version is built in a
  fresh ``b-<id>`` folder, and only when it is complete is its name written to ``CURRENT``
  (atomically, as above). A reader resolves ``CURRENT`` once and keeps using that build.

A build that was abandoned (its process killed, the disk full) is a ``b-*`` folder that
``CURRENT`` does not name and whose builder is gone; the next write to the same slot (or to any
slot beside it, :func:`clean_slots`) removes it. Builds that stop being current are kept a minute
(:data:`STALE_SECONDS`), so that a search that opened one just before a rebuild can finish.
Whatever is set aside (``.tmp-*``, ``.trash-*`` …) carries its process id in its name
(:func:`private_dir`), so :func:`sweep` removes it as soon as that process is gone.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

__all__ = [
    "STALE_SECONDS",
    "Slot",
    "clean_slots",
    "open_atomic",
    "private_dir",
    "private_prefix",
    "sweep",
    "write_bytes_atomic",
    "write_json",
    "write_text_atomic",
]

STALE_SECONDS = 60.0
"""How long a build that is no longer current is kept for readers still inside it."""

_OWNER = ".owner"
_STALE = ".stale"


@contextlib.contextmanager
def open_atomic(path: Path) -> Iterator[BinaryIO]:
    """A binary file to fill that replaces ``path`` when the ``with`` block ends normally.

    It is written beside ``path`` under a temporary name; on any exception (``KeyboardInterrupt``
    included) it is removed and ``path`` is left as it was.
    """
    import tempfile  # here, not at the top: reading the store (judge rule) never writes

    fd, tmp = tempfile.mkstemp(prefix=private_prefix(".tmp-"), dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Replaces ``path`` with ``data``: readers see the old file or the new one, never a part."""
    with open_atomic(path) as fh:
        fh.write(data)


def write_text_atomic(path: Path, text: str) -> None:
    """Replaces ``path`` with ``text`` in UTF-8, atomically (see :func:`write_bytes_atomic`)."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_json(path: Path, obj: Any) -> None:
    """Writes ``obj`` as compact UTF-8 JSON to a file of a build that is not yet live."""
    with path.open("w", encoding="utf-8") as fh:
        json.dump(obj, fh, ensure_ascii=False, separators=(",", ":"))


def private_prefix(prefix: str) -> str:
    """``prefix`` with this process's id: ``.tmp-1234-``, so that :func:`sweep` knows its owner."""
    return f"{prefix}{os.getpid()}-"


def private_dir(parent: Path, prefix: str) -> Path:
    """A fresh folder in ``parent`` named ``<prefix><pid>-<random>``, for work set aside."""
    import tempfile

    return Path(tempfile.mkdtemp(prefix=private_prefix(prefix), dir=parent))


def sweep(folder: Path, prefix: str) -> None:
    """Removes what killed processes left in ``folder`` under ``prefix`` (files or folders).

    A name made by :func:`private_prefix` goes as soon as its process is gone; one without a
    process id (written by an older version) a minute after it was last changed.
    """
    import glob
    import shutil

    now = time.time()
    try:
        children = list(folder.glob(glob.escape(prefix) + "*"))
    except OSError:
        return
    for child in children:
        owner, _, rest = child.name[len(prefix) :].partition("-")
        if rest and owner.isdigit():
            if _pid_alive(int(owner)):
                continue
        else:
            with contextlib.suppress(OSError):
                if now - child.lstat().st_mtime <= STALE_SECONDS:
                    continue
        with contextlib.suppress(OSError):
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child, ignore_errors=True)
            else:
                child.unlink()


def clean_slots(parent: Path) -> None:
    """What killed writes left in a folder of slots (editions, documents of a kind, models).

    Each slot is cleaned (:meth:`Slot.clean`), a slot whose only build was abandoned is removed,
    and set-aside ``.tmp-*`` and ``.trash-*`` names of processes that are gone are swept.
    """
    try:
        children = [c for c in parent.iterdir() if c.is_dir() and not c.name.startswith(".")]
    except OSError:
        return
    for child in children:
        slot = Slot(child)
        slot.clean()
        slot.remove_if_empty()
    sweep(parent, ".tmp-")
    sweep(parent, ".trash-")


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists but belongs to someone else
        return True
    return True


class Slot:
    """One thing stored as a series of builds, the live one named by ``folder/CURRENT``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @property
    def pointer(self) -> Path:
        return self.folder / "CURRENT"

    def current_name(self) -> str | None:
        """What ``CURRENT`` says, or ``None`` when it is missing, empty or unreadable."""
        try:
            name = self.pointer.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None
        return name or None

    def current(self) -> Path | None:
        """The live build folder, or ``None`` (nothing stored, or ``CURRENT`` names nothing)."""
        name = self.current_name()
        if name is None or "/" in name or name.startswith("."):
            return None
        build = self.folder / name
        return build if build.is_dir() else None

    @contextlib.contextmanager
    def new_build(self) -> Iterator[Path]:
        """A fresh build folder to fill; it goes live when the ``with`` block ends normally.

        On any exception (``KeyboardInterrupt`` included) the folder is removed and the build
        that was live stays live.
        """
        import shutil

        self.folder.mkdir(parents=True, exist_ok=True)
        self.clean()
        # A ``b-*`` folder has its owner from the first instant (made aside, then renamed), and
        # keeps it until it is live: one without an owner has been live, so a kill at any point
        # leaves either a swept ``.tmp-<pid>-*`` or an abandoned build, never a "complete" one.
        staging = private_dir(self.folder, ".tmp-")
        build = self.folder / ("b-" + staging.name.rsplit("-", 1)[1])
        try:
            (staging / _OWNER).write_text(str(os.getpid()), encoding="utf-8")
            os.rename(staging, build)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        try:
            yield build
            write_text_atomic(self.pointer, build.name + "\n")
        except BaseException:
            shutil.rmtree(build, ignore_errors=True)
            self.remove_if_empty()
            raise
        with contextlib.suppress(OSError):
            (build / _OWNER).unlink()
        self.clean()

    def is_abandoned(self, build: Path) -> bool:
        """Checks if a build that is not live was left behind by a builder that is gone."""
        try:
            pid = int((build / _OWNER).read_text(encoding="utf-8").strip() or 0)
        except FileNotFoundError:
            return False  # complete: an old build, retired by :meth:`clean` after a delay
        except (OSError, ValueError):
            pid = 0
        return not _pid_alive(pid)

    def clean(self) -> None:
        """Removes abandoned builds, and builds retired more than a minute ago."""
        import shutil

        if not self.folder.is_dir():
            return
        live = self.current_name()
        now = time.time()
        for child in self.folder.iterdir():
            if child.name == live or not child.name.startswith("b-") or not child.is_dir():
                continue
            if self.is_abandoned(child):
                shutil.rmtree(child, ignore_errors=True)
                continue
            if (child / _OWNER).exists():
                continue  # another process is building it right now
            stale = child / _STALE
            try:
                if not stale.exists():
                    stale.write_text(str(now), encoding="utf-8")
                elif now - float(stale.read_text(encoding="utf-8") or 0) > STALE_SECONDS:
                    shutil.rmtree(child, ignore_errors=True)
            except (OSError, ValueError):
                continue
        sweep(self.folder, ".tmp-")

    def is_damaged(self) -> bool:
        """Checks if the slot held a complete build that no longer answers.

        ``CURRENT`` is there but names nothing usable, or a complete build (one without an
        owner) is there with no ``CURRENT``. A build in progress, or one whose builder was killed,
        is neither: nothing was stored yet.
        """
        if self.current() is not None:
            return False
        if self.pointer.exists():
            return True
        try:
            children = list(self.folder.iterdir())
        except OSError:
            return False
        return any(
            c.name.startswith("b-") and c.is_dir() and not (c / _OWNER).exists() for c in children
        )

    def remove_if_empty(self) -> None:
        """Removes the slot's folder if nothing is in it (a first build that failed)."""
        with contextlib.suppress(OSError):
            self.folder.rmdir()
