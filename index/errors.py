"""Errors about the user's own files and the data folder that several parts of the library share.

Each carries data (the file, the reason, the folder) and no advice: the CLI and the server turn
them into their ``Error:`` line and next step in one table (``judge_cli/errors.py``).
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "AmbiguousEditionError",
    "FileReadError",
    "NoEditionError",
    "NoNotesError",
    "StoreError",
    "StoreWriteError",
]


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


class StoreError(ValueError):
    """Raised when a stored edition's files cannot be read (damaged or half-deleted by hand)."""

    def __init__(self, edition: str, path: Path, reason: str) -> None:
        self.edition = edition
        self.path = path
        super().__init__(f"the stored edition {edition} is damaged: {path} ({reason})")


class NoEditionError(LookupError):
    """Raised when the edition asked for is not stored."""

    def __init__(self, wanted: str | None, stored: list[str], purpose: str = "read") -> None:
        self.wanted = wanted
        self.stored = stored
        self.purpose = purpose
        """What the edition was wanted for: ``read`` (answer from it) or ``remove``."""
        if wanted is None:
            super().__init__("no edition is stored")
        else:
            have = ", ".join(stored) if stored else "none"
            super().__init__(f"edition {wanted} is not stored (stored: {have})")


class NoNotesError(LookupError):
    """Raised when notes asked for by name are not stored."""

    def __init__(self, name: str, stored: list[str]) -> None:
        self.name = name
        self.stored = stored
        have = ", ".join(stored) if stored else "none"
        super().__init__(f"no notes named {name} are stored (stored: {have})")


class AmbiguousEditionError(NoEditionError):
    """Raised when a partial date (``2025``) names more than one stored edition."""

    def __init__(self, wanted: str, matches: list[str], stored: list[str]) -> None:
        super().__init__(wanted, stored)
        self.matches = matches
        LookupError.__init__(
            self, f"edition {wanted} is ambiguous: it could be {', '.join(matches)}"
        )


def os_reason(exc: OSError) -> str:
    """The short reason of an ``OSError`` ("No space left on device")."""
    return exc.strerror or str(exc) or type(exc).__name__
