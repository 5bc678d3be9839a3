"""What the state-based actions find and what a replay returns: plain, frozen records."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from .board import BoardState
from .editions import EditionRules, Kind

__all__ = ["ACTIONS", "Action", "Note", "Outcome", "Replay", "StateBasedAction"]


class Action(str, enum.Enum):
    """What a state-based action does; the value is the ``action`` key of ``judge check --json``.

    DESIGN.md lists the first ten; the rest came with newer rules. ``perform.PERFORM`` says how
    each is carried out and the sentence a ruling uses for it.
    """

    LOSES = "loses"
    DESTROYED = "destroyed"
    PUT_INTO_GRAVEYARD = "put_into_graveyard"
    SACRIFICED = "sacrificed"
    CEASES_TO_EXIST = "ceases_to_exist"
    UNATTACHED = "unattached"
    COUNTERS_REMOVED = "counters_removed"
    REMOVED_FROM_GAME = "removed_from_game"
    REGENERATED = "regenerated"
    NOT_DESTROYED = "not_destroyed"
    """Reported, but it changes nothing: the check does not repeat for it."""
    SPEED_SET = "speed_set"
    PROTECTOR_CHOSEN = "protector_chosen"
    SECTOR_CHOSEN = "sector_chosen"
    PUT_INTO_COMMAND_ZONE = "put_into_command_zone"
    PUT_ON_BOTTOM_OF_SCHEME_DECK = "put_on_bottom_of_scheme_deck"
    PLANESWALKS = "planeswalks"

    def __str__(self) -> str:
        return self.value

    @property
    def changes_state(self) -> bool:
        """Checks if performing it changes the board (``not_destroyed`` does not)."""
        return self is not Action.NOT_DESTROYED


ACTIONS = tuple(a.value for a in Action)
"""Every value of :attr:`StateBasedAction.action` (DESIGN.md's list, then the additions)."""


@dataclass(frozen=True)
class StateBasedAction:
    """One state-based action on one object or one player, citing its rule."""

    rule: str
    """The rule number in the edition in force (``704.5g``)."""
    kind: Kind
    """Which state-based action this is."""
    action: Action
    """What happens (compares equal to its string value, ``"destroyed"``)."""
    object: str | None = None
    """The id of the object it happens to."""
    player: str | None = None
    """The name of the player it happens to (or who performs it)."""
    name: str | None = None
    """The object's name, for the reader."""
    detail: str = ""
    """A short explanation (``2 damage, toughness 2``)."""
    value: str | None = None
    """What was chosen or set: a protector, a sector, a speed."""
    counters: tuple[tuple[str, int], ...] = ()
    """Counters removed, by kind."""

    @property
    def changes_state(self) -> bool:
        """Checks if performing it changes the board (``not_destroyed`` does not)."""
        return self.action != Action.NOT_DESTROYED


@dataclass(frozen=True)
class Note:
    """Something a judge would expect to happen that does not (or a choice someone must make)."""

    rule: str
    """The rule that explains it."""
    note: str
    """The explanation."""
    object: str | None = None
    """The object concerned, if any."""
    player: str | None = None
    """The player concerned, if any."""


@dataclass
class Outcome:
    """The game's result after the state-based actions (rule 104)."""

    losers: list[str] = field(default_factory=list)
    """Players who lost during the replay, in turn order."""
    winners: list[str] = field(default_factory=list)
    """Players who won: the last player or team left."""
    draw: bool = False
    """All players remaining lost at once (rule 104.4a)."""

    @property
    def is_game_over(self) -> bool:
        """Checks if someone won or the game is a draw."""
        return self.draw or bool(self.winners)


@dataclass
class Replay:
    """The result of replaying a board through the state-based actions."""

    initial: BoardState
    """The board as given."""
    final: BoardState
    """The board once no state-based action applies."""
    checks: list[list[StateBasedAction]]
    """One entry per check that did something, in order (the last, empty check is not listed)."""
    notes: list[Note]
    """Things a judge might expect that don't happen, and choices players must make."""
    outcome: Outcome
    """Who won and lost."""
    rules: EditionRules
    """The edition in force."""
