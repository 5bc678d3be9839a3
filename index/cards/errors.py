"""The narrow errors of the card store; each carries the data its message is made of."""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "CardFileError",
    "CardStoreError",
    "CardWriteError",
    "NoCardStoreError",
    "OlderSnapshotError",
    "UnknownCardError",
]


class CardFileError(ValueError):
    """Raised when a file is not a readable MTGJSON AtomicCards file; nothing was stored."""

    def __init__(self, file: str, reason: str, *, card: str | None = None) -> None:
        self.file = file
        self.reason = reason
        self.card = card
        """The card entry being read when it went wrong, if any."""
        self.kept: str | None = None
        """The date of the snapshot that still answers, if one was stored."""
        super().__init__(f"{file}: {reason}")


class OlderSnapshotError(ValueError):
    """Raised when a file is older than the snapshot stored: importing it would change nothing."""

    def __init__(self, file: str, date: str, stored: str) -> None:
        self.file = file
        self.date = date
        self.stored = stored
        super().__init__(
            f"{file}: its card data is of {date}, older than the snapshot stored ({stored})"
        )


class NoCardStoreError(LookupError):
    """Raised when no card snapshot is stored in the data folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        super().__init__(f"no card data is stored in {root}")


class CardStoreError(ValueError):
    """Raised when the stored snapshot cannot be read (damaged, or changed by hand)."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"the stored card data is damaged: {path} ({reason})")


class CardWriteError(OSError):
    """Raised when the new snapshot cannot be written (a full disk); nothing stored changed."""

    def __init__(self, path: Path, reason: str, root: Path | None = None) -> None:
        self.path = path
        self.reason = reason
        self.root = root or path.parent
        """The data folder that could not be written."""
        self.kept: str | None = None
        """The date of the snapshot that still answers, if one was stored."""
        super().__init__(f"{path}: {reason}")


class UnknownCardError(LookupError):
    """Raised when no card answers a name; carries the closest names."""

    def __init__(self, name: str, suggestions: list[str], *, ambiguous: bool = False) -> None:
        self.name = name
        self.suggestions = suggestions
        self.ambiguous = ambiguous
        """True when the name is the start of several cards' names (the suggestions)."""
        if ambiguous:
            super().__init__(f"several cards' names start with {name!r}")
        else:
            super().__init__(f"no card named {name!r}")
