"""Errors about the user's own files and the data folder that several parts of the library share.

Each carries data (the file, the reason, the folder) and no advice: the CLI and the server turn
them into their ``Error:`` line and next step in one table (``judge_cli/errors.py``).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["FileReadError", "StoreWriteError"]


class FileReadError(OSError):
    """Raised when a file the user named cannot be read."""

    def __init__(self, file: str, reason: str, *, missing: bool = False, role: str = "") -> None:
        self.file = file
        self.reason = reason
        self.missing = missing
        """True when there is no such file."""
        self.role = role
        """What the file was meant to be (``rules``, ``scenario``, ``text``), for the advice."""
        super().__init__(f"{file}: cannot read it ({reason})")


class StoreWriteError(OSError):
    """Raised when the data folder cannot be written (full disk, read-only, not a folder)."""

    def __init__(self, root: Path, reason: str, file: str | None = None) -> None:
        self.root = root
        self.reason = reason
        self.file = file
        """The file being stored, if any."""
        super().__init__(f"could not write to {root} ({reason})")


def os_reason(exc: OSError) -> str:
    """The short reason of an ``OSError`` ("No space left on device")."""
    return exc.strerror or str(exc) or type(exc).__name__
