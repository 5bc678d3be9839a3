"""The scenario loader's errors: each names the file, line and key, and says what is wrong."""

from __future__ import annotations

__all__ = [
    "FillError",
    "ScenarioError",
    "ScenarioLimitError",
    "ScenarioReferenceError",
    "ScenarioSyntaxError",
    "ScenarioValueError",
    "shown",
]


class FillError(LookupError):
    """Raised by a ``fill`` (see :mod:`.format`) for a key it cannot fill from: ``card: Nope``.

    The reader turns it into a :class:`ScenarioReferenceError` naming the file, line and key.
    """

    def __init__(self, key: str, message: str, nearest: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.key = key
        self.message = message
        self.nearest = nearest


def shown(text: str) -> str:
    """``text`` with control and format characters escaped (``\\x1b``, ``\\u202e``)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


class ScenarioError(ValueError):
    """A scenario file that cannot be replayed; the message names the file, line and key."""

    def __init__(
        self,
        filename: str,
        line: int | None,
        key: str | None,
        message: str,
        *,
        nearest: tuple[str, ...] = (),
    ) -> None:
        self.filename = filename
        self.line = line
        self.key = key
        self.reason = message
        self.nearest = nearest
        """The closest valid names, when the message suggests some (for a caller's own list)."""
        where = filename
        if line is not None:
            where += f", line {line}"
        if key:
            where += f", key '{shown(key)}'"
        super().__init__(f"{where}: {message}")

    @property
    def sentence(self) -> str:
        """The message as a sentence: ending in exactly one full stop, question or exclamation mark.

        For a caller that goes on with another sentence (``f"{exc.sentence} Fix the file…"``)
        without doubling the question mark of "did you mean 'life'?".
        """
        text = str(self)
        return text if text.endswith((".", "?", "!")) else text + "."


class ScenarioSyntaxError(ScenarioError):
    """The text is not YAML, JSON or a Markdown file with a ```yaml block."""


class ScenarioValueError(ScenarioError):
    """An unknown key, or a value of the wrong type."""


class ScenarioReferenceError(ScenarioError):
    """A duplicate id, or a reference to an object or player that is not on the board."""


class ScenarioLimitError(ScenarioError):
    """The file is larger, deeper or expands to more than the loader reads (``limit``)."""

    def __init__(
        self, filename: str, line: int | None, key: str | None, message: str, limit: int
    ) -> None:
        self.limit = limit
        super().__init__(filename, line, key, message)
