"""The board a scenario describes: players, objects, and the choices players have announced.

Like ``chess.Board``, a :class:`BoardState` is read from one notation (the scenario file, see
DESIGN.md), its ``repr`` pastes back into Python, its ``str`` is the table a judge reads, and
:meth:`BoardState.copy` gives an independent board. Every attribute of :class:`Player` and
:class:`Permanent` is safe to set; :meth:`BoardState.status` reports boards that make no sense
instead of refusing them.
"""

from __future__ import annotations

import enum
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from .format import (
    SECTORS,
    Given,
    board_to_dict,
    format_pt,
    object_to_dict,
    parse_pt,
    player_to_dict,
)
from .table import board_table

__all__ = [
    "SECTORS",
    "VARIANTS",
    "ZONES",
    "BoardState",
    "ChoiceValue",
    "Effect",
    "Permanent",
    "Player",
    "Status",
    "Variant",
    "format_pt",
    "object_to_dict",
    "parse_pt",
    "player_to_dict",
]

ZONES = ("battlefield", "graveyard", "hand", "library", "exile", "stack", "command")
"""The zones an object may be in."""


class Variant(str, enum.Enum):
    """The kinds of game a scenario may describe; the value is what the file says."""

    TWO_PLAYER = "two-player"
    MULTIPLAYER = "multiplayer"
    TWO_HEADED_GIANT = "two-headed-giant"
    COMMANDER = "commander"
    ARCHENEMY = "archenemy"
    PLANECHASE = "planechase"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def of(cls, text: str) -> Variant | None:
        """The variant a file's ``variant:`` names, or ``None`` for one the checker doesn't know."""
        try:
            return cls(text)
        except ValueError:
            return None


VARIANTS = tuple(v.value for v in Variant)
"""The kinds of game a scenario may describe, as the file writes them."""

ChoiceValue = str | bool | int | list[str] | dict[str, str]
"""What a player chose for one state-based action: an object id, a player, a list, a mapping."""


class Status(enum.IntFlag):
    """Odd things on a board: loaded anyway, reported by :meth:`BoardState.status`."""

    VALID = 0
    NO_PLAYERS = enum.auto()
    """The board has no players."""
    DUPLICATE_PLAYER = enum.auto()
    """Two players share a name."""
    DUPLICATE_ID = enum.auto()
    """Two objects share an id."""
    UNKNOWN_CONTROLLER = enum.auto()
    """An object's controller or owner is not a player on the board."""
    DANGLING_ATTACHMENT = enum.auto()
    """An object is attached to something that is neither an object nor a player."""
    DANGLING_SOURCE = enum.auto()
    """An effect's source, or a ``cant_lose`` source, is not an object on the board."""
    UNKNOWN_ZONE = enum.auto()
    """An object is in a zone that does not exist."""
    CREATURE_WITHOUT_TOUGHNESS = enum.auto()
    """A creature on the battlefield has no power/toughness."""
    AURA_WITHOUT_ENCHANT = enum.auto()
    """An Aura does not say what it may enchant."""
    SAGA_WITHOUT_FINAL_CHAPTER = enum.auto()
    """A Saga does not give its final chapter number."""
    NEGATIVE_COUNT = enum.auto()
    """A negative number of counters, damage or poison."""
    TEAM_LIFE_MISMATCH = enum.auto()
    """Two-Headed Giant teammates show different shared life totals."""
    UNKNOWN_VARIANT = enum.auto()
    """The variant is not one the checker knows."""
    SELF_ATTACHED = enum.auto()
    """An object is attached to itself."""


@dataclass
class Effect:
    """A continuous effect on an object that ends when its source leaves the battlefield."""

    source: str = field(
        metadata={"ref": "object", "required": "an effect needs a `source:` (the id of its source)"}
    )
    """The id of the object whose ability creates the effect."""
    power: int = field(
        default=0, metadata={"pair": "pt", "example": "a change such as +1/+1", "signed": True}
    )
    """What the effect adds to power (already included in the object's power)."""
    toughness: int = field(default=0, metadata={"pair": "pt"})
    """What the effect adds to toughness (already included in the object's toughness)."""

    def __repr__(self) -> str:
        return _compact_repr(self)


@dataclass
class Player:
    """A player in the game."""

    name: str = field(metadata={"required": "a player needs a `name:`"})
    """The player's name, unique on the board."""
    life: int = field(default=20, metadata={"always": True})
    """The life total (in Two-Headed Giant, the team's shared life total)."""
    poison: int = 0
    """Poison counters this player has."""
    drew_from_empty_library: bool = False
    """Attempted to draw from an empty library since state-based actions were last checked."""
    cant_lose: str | None = field(default=None, metadata={"ref": "object"})
    """The id of the object whose effect says this player can't lose the game."""
    commander_damage: dict[str, int] = field(
        default_factory=dict, metadata={"ref_keys": "object", "last": True}
    )
    """Combat damage taken from each commander over the game, by the commander's id."""
    team: str | None = None
    """The player's team (Two-Headed Giant)."""
    speed: int | None = None
    """The player's speed; ``None`` when the player has no speed."""
    lost: bool = False
    """Has already lost the game (and left it)."""

    def __repr__(self) -> str:
        return _compact_repr(self)

    def copy(self) -> Player:
        """An independent copy."""
        return Player(
            self.name,
            self.life,
            self.poison,
            self.drew_from_empty_library,
            self.cant_lose,
            dict(self.commander_damage),
            self.team,
            self.speed,
            self.lost,
        )


@dataclass
class Permanent:
    """A game object: usually a permanent, but any zone is allowed (tokens, copies, commanders)."""

    id: str
    """The object's id, unique on the board."""
    name: str = ""
    """The object's name (the legend rule compares names)."""
    card: str | None = field(default=None, metadata={"fill": "the card data"})
    """The card it is, as the file names it: its characteristics come from the card data, and
    what the file writes wins (see :mod:`.cards`)."""
    zone: str = field(default="battlefield", metadata={"valid": ZONES, "what": "zone"})
    """The zone the object is in."""
    owner: str | None = field(default=None, metadata={"ref": "player"})
    """The owner's name; ``None`` means the controller."""
    controller: str | None = field(default=None, metadata={"ref": "player"})
    """The controller's name; ``None`` means the owner."""
    types: list[str] = field(default_factory=list, metadata={"lower": True})
    """Card types, lower case: ``creature``, ``planeswalker``, ``battle``, …"""
    supertypes: list[str] = field(default_factory=list, metadata={"lower": True})
    """Supertypes, lower case: ``legendary``, ``world``, ``basic``, ``snow``."""
    subtypes: list[str] = field(default_factory=list)
    """Subtypes as printed: ``Aura``, ``Equipment``, ``Saga``, ``Siege``, ``Role``, ``Jace``, …"""
    colors: list[str] = field(default_factory=list, metadata={"lower": True})
    """Colours, lower case."""
    power: int | None = field(
        default=None,
        metadata={
            "pair": "pt",
            "example": "power/toughness such as 2/2",
            "exclusive": True,
            "last": True,
        },
    )
    """Power after counters and every continuous effect (``pt: 2/2`` gives both)."""
    toughness: int | None = field(default=None, metadata={"pair": "pt", "last": True})
    """Toughness after counters and every continuous effect."""
    damage: int = 0
    """Damage marked on the object this turn."""
    deathtouch_damage: bool = False
    """Dealt damage by a source with deathtouch since state-based actions were last checked."""
    counters: dict[str, int] = field(default_factory=dict)
    """Counters by kind: ``+1/+1``, ``-1/-1``, ``loyalty``, ``lore``, ``defense``, …"""
    keywords: list[str] = field(default_factory=list, metadata={"lower": True})
    """Keyword abilities, lower case: ``indestructible``, ``protection from red``, …"""
    regeneration_shields: int = 0
    """Regeneration shields waiting to replace the next destructions."""
    token: bool = False
    """Is a token."""
    copy_of: bool = field(default=False, metadata={"key": "copy"})
    """Is a copy of a card or a spell (``copy:`` in the file)."""
    commander: bool = False
    """Is a player's commander."""
    attached_to: str | None = field(default=None, metadata={"ref": "object or player"})
    """The id of the object, or the name of the player, this is attached to."""
    enchant: str | None = None
    """What an Aura may legally enchant: a type (``creature``), ``player``, ``land you control``…"""
    final_chapter: int | None = None
    """A Saga's final chapter number."""
    chapter_abilities: bool = True
    """A Saga has one or more chapter abilities."""
    ability_on_stack: bool = False
    """Is the source of a triggered ability that hasn't left the stack yet."""
    venture_on_last_room: bool = False
    """A dungeon whose venture marker is on its bottommost room."""
    protector: str | None = field(default=None, metadata={"ref": "player"})
    """A battle's protector (a player's name)."""
    attacked: bool = False
    """A battle that attacking creatures are currently attacking."""
    sector: str | None = field(
        default=None, metadata={"lower": True, "valid": SECTORS, "what": "sector"}
    )
    """A creature's sector designation (with space sculptor): alpha, beta or gamma."""
    world_since: int | None = None
    """When it got the world supertype (larger is newer)."""
    timestamp: int | None = None
    """When it became this permanent (larger is newer)."""
    max_counters: dict[str, int] = field(default_factory=dict)
    """Counter caps from abilities: "can't have more than N counters of this kind"."""
    effects: list[Effect] = field(
        default_factory=list,
        metadata={
            "example": "{source: anthem, pt: +1/+1}",
            "shape": "{source:, pt:}",
            "last": True,
        },
    )
    """Continuous effects on it that end when their source leaves the battlefield."""
    tapped: bool = False
    """Is tapped."""
    in_combat: bool = False
    """Is attacking or blocking."""
    face_up: bool = True
    """A scheme or phenomenon in the command zone is face up."""
    phased_out: bool = False
    """Phased out (rule 702.26): treated as though it does not exist; whatever is attached to it
    is phased out with it."""
    moved_since_check: bool = True
    """Was put into its zone since state-based actions were last checked (commanders)."""
    given: Given | None = field(
        default=None, compare=False, repr=False, metadata={"internal": True}
    )
    """What the card data gave it and the keys the file wrote (set by the reader; not a key)."""

    def __repr__(self) -> str:
        return _compact_repr(self)

    @property
    def owner_name(self) -> str:
        """The owner, defaulting to the controller."""
        return self.owner or self.controller or ""

    @property
    def controller_name(self) -> str:
        """The controller, defaulting to the owner."""
        return self.controller or self.owner or ""

    @property
    def display_name(self) -> str:
        """The name, or the id when it has none."""
        return self.name or self.id

    def is_type(self, card_type: str) -> bool:
        """Checks if the object has this card type."""
        return card_type in self.types

    def has_subtype(self, subtype: str) -> bool:
        """Checks if the object has this subtype (case-insensitive)."""
        if subtype in self.subtypes:
            return True
        wanted = subtype.lower()
        return any(s.lower() == wanted for s in self.subtypes)

    def has_keyword(self, keyword: str) -> bool:
        """Checks if the object has this keyword ability (case-insensitive)."""
        if keyword in self.keywords:
            return True
        wanted = keyword.lower()
        return any(k.lower() == wanted for k in self.keywords)

    def copy(self) -> Permanent:
        """An independent copy."""
        clone = Permanent.__new__(Permanent)
        clone.__dict__.update(self.__dict__)
        clone.types = list(self.types)
        clone.supertypes = list(self.supertypes)
        clone.subtypes = list(self.subtypes)
        clone.colors = list(self.colors)
        clone.counters = dict(self.counters)
        clone.keywords = list(self.keywords)
        clone.max_counters = dict(self.max_counters)
        clone.effects = [Effect(e.source, e.power, e.toughness) for e in self.effects]
        return clone


@dataclass
class BoardState:
    """A game state to replay through the state-based actions.

    Safe to set: every attribute, and every attribute of its players and objects.
    """

    players: list[Player] = field(default_factory=list, metadata={"order": 2})
    """The players, in turn order."""
    objects: list[Permanent] = field(default_factory=list, metadata={"order": 3})
    """Every object the scenario mentions, in any zone."""
    edition: str | None = field(default=None, metadata={"order": 0})
    """The edition the file asks for (ISO date), or ``None``."""
    variant: str = field(
        default="two-player", metadata={"order": 1, "valid": VARIANTS, "what": "variant"}
    )
    """``two-player``, ``multiplayer``, ``two-headed-giant``, … (a :class:`Variant` value)."""
    choices: dict[str, dict[str, ChoiceValue]] = field(default_factory=dict, metadata={"order": 4})
    """Choices the players make for state-based actions, by rule name, then by player."""

    def __repr__(self) -> str:
        return _compact_repr(self)

    @classmethod
    def from_text(cls, text: str, filename: str = "<board>") -> BoardState:
        """Reads a scenario (YAML, JSON or a Markdown question); raises ``ScenarioError``."""
        # Imported here: reading needs PyYAML, which a board made in code does not.
        from .parse import parse_text
        from .reading import Reader

        parsed = parse_text(text, filename)
        board: BoardState = Reader(filename, parsed.lines).read_board(
            cls, parsed.data, parsed.first_line
        )
        return board

    def to_dict(self) -> dict[str, Any]:
        """The board in the scenario-file format (only what differs from the defaults)."""
        return board_to_dict(self)

    def to_text(self) -> str:
        """The board as scenario YAML; :meth:`from_text` reads it back to an equal board."""
        import yaml

        return yaml.safe_dump(self.to_dict(), sort_keys=False, allow_unicode=True)

    def copy(self) -> BoardState:
        """An independent copy."""
        return BoardState(
            [p.copy() for p in self.players],
            [o.copy() for o in self.objects],
            self.edition,
            self.variant,
            {
                k: {
                    p: (list(c) if isinstance(c, list) else dict(c) if isinstance(c, dict) else c)
                    for p, c in v.items()
                }
                for k, v in self.choices.items()
            },
        )

    def find_player(self, name: str) -> Player | None:
        """The player with this name, or ``None``."""
        for player in self.players:
            if player.name == name:
                return player
        return None

    def find_object(self, object_id: str) -> Permanent | None:
        """The object with this id, or ``None``."""
        for obj in self.objects:
            if obj.id == object_id:
                return obj
        return None

    def battlefield(self) -> list[Permanent]:
        """The objects on the battlefield, in board order."""
        return [o for o in self.objects if o.zone == "battlefield"]

    def status(self) -> Status:
        """Flags for everything odd about the board; ``Status.VALID`` when nothing is."""
        status = Status.VALID
        if not self.players:
            status |= Status.NO_PLAYERS
        names = [p.name for p in self.players]
        if len(set(names)) != len(names):
            status |= Status.DUPLICATE_PLAYER
        ids = [o.id for o in self.objects]
        id_set = set(ids)
        if len(id_set) != len(ids):
            status |= Status.DUPLICATE_ID
        name_set = set(names)
        if self.variant not in VARIANTS:
            status |= Status.UNKNOWN_VARIANT
        for p in self.players:
            if p.cant_lose is not None and p.cant_lose not in id_set:
                status |= Status.DANGLING_SOURCE
            if p.poison < 0 or any(v < 0 for v in p.commander_damage.values()):
                status |= Status.NEGATIVE_COUNT
        if self.variant == "two-headed-giant":
            lives: dict[str, set[int]] = {}
            for p in self.players:
                lives.setdefault(p.team or p.name, set()).add(p.life)
            if any(len(v) > 1 for v in lives.values()):
                status |= Status.TEAM_LIFE_MISMATCH
        for o in self.objects:
            if o.zone not in ZONES:
                status |= Status.UNKNOWN_ZONE
            if o.controller_name not in name_set or o.owner_name not in name_set:
                status |= Status.UNKNOWN_CONTROLLER
            if o.attached_to is not None:
                if o.attached_to == o.id:
                    status |= Status.SELF_ATTACHED
                elif o.attached_to not in id_set and o.attached_to not in name_set:
                    status |= Status.DANGLING_ATTACHMENT
            if any(e.source not in id_set for e in o.effects):
                status |= Status.DANGLING_SOURCE
            if o.zone == "battlefield" and o.is_type("creature") and o.toughness is None:
                status |= Status.CREATURE_WITHOUT_TOUGHNESS
            if o.has_subtype("Aura") and not o.enchant:
                status |= Status.AURA_WITHOUT_ENCHANT
            if o.has_subtype("Saga") and o.final_chapter is None:
                status |= Status.SAGA_WITHOUT_FINAL_CHAPTER
            if o.damage < 0 or any(v < 0 for v in o.counters.values()):
                status |= Status.NEGATIVE_COUNT
        return status

    def is_valid(self) -> bool:
        """Checks if :meth:`status` finds nothing odd."""
        return self.status() == Status.VALID

    def __str__(self) -> str:
        return board_table(self)


def _compact_repr(obj: Any) -> str:
    """``Class(field=value, …)`` naming only fields that differ from their defaults."""
    parts: list[str] = []
    for f in fields(obj):
        if not f.repr:
            continue
        value = getattr(obj, f.name)
        if f.default is not MISSING:
            if value == f.default:
                continue
        elif f.default_factory is not MISSING and value == f.default_factory():
            continue
        parts.append(f"{f.name}={value!r}")
    return f"{type(obj).__name__}({', '.join(parts)})"
