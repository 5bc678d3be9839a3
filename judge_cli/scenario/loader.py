"""Scenario files: YAML, JSON, or a Markdown question whose first ```yaml block is the board.

Every complaint names the file, the line and the key, and suggests the closest valid key or
name. Only structural problems a replay cannot work around are errors (bad syntax, wrong types,
unknown keys, duplicate ids, references to objects or players that do not exist, files beyond
the limits of :mod:`.parse` and :mod:`.format`); odd but meaningful boards load and are reported
by :meth:`BoardState.status`.

Reading is two steps: :func:`.parse.parse_text` turns the text into plain values within fixed
limits, and :class:`.reading.Reader` checks them against the scenario format, whose keys are the
fields of the board's dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .board import BoardState, Effect, Permanent, Player
from .errors import (
    ScenarioError,
    ScenarioLimitError,
    ScenarioReferenceError,
    ScenarioSyntaxError,
    ScenarioValueError,
)
from .format import CHOICE_NAMES, SECTORS, Fill, keys_of, top_keys
from .parse import MAX_BYTES, parse_text
from .reading import Reader

__all__ = [
    "CHOICE_NAMES",
    "EFFECT_KEYS",
    "OBJECT_KEYS",
    "PLAYER_KEYS",
    "SECTORS",
    "TOP_KEYS",
    "Fill",
    "Scenario",
    "ScenarioError",
    "ScenarioLimitError",
    "ScenarioReferenceError",
    "ScenarioSyntaxError",
    "ScenarioValueError",
    "load_scenario_path",
    "load_scenario_text",
]

TOP_KEYS = top_keys(BoardState)
"""The keys of a scenario file."""
PLAYER_KEYS = keys_of(Player)
"""The keys of a player."""
OBJECT_KEYS = keys_of(Permanent)
"""The keys of an object."""
EFFECT_KEYS = keys_of(Effect)
"""The keys of a continuous effect."""


@dataclass
class Scenario:
    """A loaded scenario file."""

    board: BoardState
    """The board."""
    filename: str
    """The file it came from."""
    question: str | None = None
    """The prose of a Markdown question file (without the board), else ``None``."""
    title: str | None = None
    """The first heading of a Markdown question file, else ``None``."""
    written: dict[str, frozenset[str]] = field(default_factory=dict)
    """The keys the file itself wrote for each object, by id (not those a ``fill`` gave)."""


def load_scenario_path(path: str | Path, *, fill: Fill | None = None) -> Scenario:
    """Reads a scenario file; raises :class:`ScenarioError` (and ``OSError`` if unreadable)."""
    with open(path, "rb") as handle:
        # Read one byte past the limit, not the whole of a huge file, to say it is too large.
        data = handle.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ScenarioLimitError(
            str(path),
            None,
            None,
            f"the file is larger than {MAX_BYTES:,} bytes (the limit)",
            MAX_BYTES,
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioSyntaxError(str(path), None, None, f"not UTF-8 text ({exc.reason})") from None
    return load_scenario_text(text, str(path), fill=fill)


def load_scenario_text(
    text: str, filename: str = "<board>", *, fill: Fill | None = None
) -> Scenario:
    """Reads scenario text; the file name's extension picks Markdown, JSON or YAML.

    ``fill`` gives an object keys from another source before the file's own (see
    :mod:`.format`); :attr:`Scenario.written` says which keys the file wrote.
    """
    parsed = parse_text(text, filename)
    reader = Reader(filename, parsed.lines, fill)
    board: BoardState = reader.read_board(BoardState, parsed.data, parsed.first_line)
    return Scenario(board, filename, parsed.question, parsed.title, reader.written)
