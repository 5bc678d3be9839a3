"""Writing to the data folder so that a reader never sees half of anything.

Two mechanisms, used by every store (CR editions, card snapshots, tournament documents):

* :func:`write_text_atomic` / :func:`write_bytes_atomic` for one file: written beside the target
  under a temporary name, flushed, then renamed over it with :func:`os.replace`.
* :class:`Slot` for a folder of files that must change together: each version is built in a
  fresh ``b-<id>`` folder, and only when it is complete is its name written to ``CURRENT``
  (atomically, as above). A reader resolves ``CURRENT`` once and keeps using that build.

A build that was abandoned (its process killed, the disk full) is a ``b-*`` folder that
``CURRENT`` does not name and whose builder is gone; the next write to the same slot removes it.
Builds that stop being current are kept a minute (:data:`STALE_SECONDS`), so that a search that
opened one just before a rebuild can finish.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["STALE_SECONDS", "Slot", "write_bytes_atomic", "write_json", "write_text_atomic"]

STALE_SECONDS = 60.0
"""How long a build that is no longer current is kept for readers still inside it."""

_OWNER = ".owner"
_STALE = ".stale"


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Replaces ``path`` with ``data``: readers see the old file or the new one, never a part."""
    import tempfile  # writers only: with shutil it costs a lookup ~15 ms of start-up (lzma)

    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    """Replaces ``path`` with ``text`` in UTF-8, atomically (see :func:`write_bytes_atomic`)."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_json(path: Path, obj: Any) -> None:
    """Writes ``obj`` as compact UTF-8 JSON to a file of a build that is not yet live."""
    with path.open("w", encoding="utf-8") as fh:
        json.dump(obj, fh, ensure_ascii=False, separators=(",", ":"))


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
        import tempfile

        self.folder.mkdir(parents=True, exist_ok=True)
        self.clean()
        build = Path(tempfile.mkdtemp(prefix="b-", dir=self.folder))
        try:
            (build / _OWNER).write_text(str(os.getpid()), encoding="utf-8")
            yield build
            (build / _OWNER).unlink()
            write_text_atomic(self.pointer, build.name + "\n")
        except BaseException:
            shutil.rmtree(build, ignore_errors=True)
            self.remove_if_empty()
            raise
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
        if not self.folder.is_dir():
            return
        import shutil

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
        for child in self.folder.glob(".tmp-*"):
            with contextlib.suppress(OSError):
                if now - child.stat().st_mtime > STALE_SECONDS:
                    child.unlink()

    def remove_if_empty(self) -> None:
        """Removes the slot's folder if nothing is in it (a first build that failed)."""
        with contextlib.suppress(OSError):
            self.folder.rmdir()
