"""The scenario format in one place: the keys, types and defaults of a file, and writing one.

The keys of a player, an object and an effect, their types and defaults are the fields of the
dataclasses (``Player``, ``Permanent``, ``Effect``: their type hints and defaults). What a type
cannot say is in the field's metadata:

``key``       the file's name for it, when not the field's (``copy`` for ``copy_of``)
``lower``     text, or each word, is lower-cased
``valid``     the values allowed (after ``lower``), called ``what`` in messages (``zone``)
``ref``       it names a ``"player"``, an ``"object"`` or an ``"object or player"`` of the board
``ref_keys``  the keys of its mapping name objects (``"object"``: commander damage)
``pair``      it is power or toughness, also written together under that key (``pt: 2/2``);
              the first of the two says ``example`` (for messages), ``exclusive`` (both forms may
              not be given) and ``signed`` (written ``+1/+1``)
``required``  the message when it is missing or empty
``example``   for a list of mappings: what one looks like, for messages
``last``      written after the other keys
``always``    written even when it has its default value
``fill``      the key names a record another source fills the object from (``card:``, "the
              card data"); a file that writes it must be read with a :data:`Fill`
``internal``  not a key of the file: what the reader recorded (:class:`Given`)

So a new key is one field with its metadata. :class:`.reading.Reader` reads a file's values by
these specs, :func:`to_dict` writes them. Neither imports a dataclass: they are handed the class
(``BoardState``) and find the others through its type hints, so the board imports them and not
the other way round.

Keys from another source. An object's keys can come from somewhere besides the file (a card
database, for ``card: NAME``): pass a :data:`Fill` to the reader (``load_scenario_text(…,
fill=…)``). It is called with the object's
keys as the file wrote them, and what it returns is applied first; the file's own keys win, and
a key the file writes also wins over the other form of its pair (``pt:`` over a filled
``power:``). ``Reader.written`` (``Scenario.written``) remembers which keys the file itself
wrote, by object id. A fill that cannot fill (no such card) raises :class:`.errors.FillError`
with the key and the nearest names; the reader reports it with the file's line. That is
``Reader._filled`` in :mod:`.reading`.

A filled ``power``/``toughness`` is the printed value (a card's): the object's P/T counters and
the changes its ``effects`` make are added to it (:func:`pt_change`), because the file's ``pt``
is the value after them. An object that was filled remembers it in ``given`` (:class:`Given`),
and :func:`to_dict` writes the keys the file wrote and those that now differ from what the
source gave, so that the board read back with the same source is the same board.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = [
    "CHOICES",
    "CHOICE_NAMES",
    "MAX_OBJECTS",
    "MAX_PLAYERS",
    "SECTORS",
    "Fill",
    "Given",
    "Spec",
    "board_to_dict",
    "format_pt",
    "hint_item",
    "keys_of",
    "object_to_dict",
    "pairs_of",
    "parse_pt",
    "player_to_dict",
    "pt_change",
    "specs",
    "to_dict",
    "top_keys",
]

MAX_OBJECTS = 20_000
"""The most objects a scenario may have."""
MAX_PLAYERS = 100
"""The most players a scenario may have."""

SECTORS = ("alpha", "beta", "gamma")
"""The sector designations of space sculptor (rule 702.158)."""

CHOICES: dict[str, str] = {
    "legend_rule": "object",
    "planeswalker_uniqueness_rule": "object",
    "battle_protector": "player",
    "sector_designation": "sector",
    "commander_to_command_zone": "object",
}
"""The rules a file's ``choices:`` may answer for, and what a choice names."""
CHOICE_NAMES = tuple(CHOICES)
"""Rule names a scenario's ``choices`` may answer for."""

Fill = Callable[[Mapping[str, Any], str], Mapping[str, Any]]
"""Keys for an object from another source: ``fill(file_keys, path)`` → keys applied first."""


@dataclasses.dataclass(frozen=True)
class Given:
    """What a :data:`Fill` gave an object, and what the file wrote over it."""

    values: Mapping[str, Any]
    """The filled fields' values as read, by field name (``power``/``toughness``: printed)."""
    written: frozenset[str]
    """The keys the file itself wrote for the object."""

    def keys(self, cls: type) -> tuple[str, ...]:
        """The file keys of ``cls`` whose values came from the source, in the format's order.

        A pair the source gave whole is named by its pair key (``pt``), else by its members.
        """
        out: list[str] = []
        for spec in specs(cls):
            pair = spec.meta.get("pair")
            if spec.name not in self.values or spec.key in self.written or pair in self.written:
                continue
            key = spec.key
            if pair:
                members = [s for s in specs(cls) if s.meta.get("pair") == pair]
                if all(s.name in self.values and s.key not in self.written for s in members):
                    key = pair
            if key not in out:
                out.append(key)
        return tuple(out)


def pt_change(counters: Mapping[str, int], effects: Iterable[Any]) -> tuple[int, int]:
    """What P/T counters (``+1/+1``, ``-1/-1``, ``+2/+0`` …) and effects add to a printed P/T."""
    power = toughness = 0
    for kind, count in counters.items():
        if "/" in kind and kind[:1] in "+-":
            try:
                p, t = parse_pt(kind)
            except ValueError:
                continue  # a counter kind that only looks like one ("+x/+x")
            power += p * count
            toughness += t * count
    for effect in effects:
        power += effect.power
        toughness += effect.toughness
    return power, toughness


def parse_pt(text: str) -> tuple[int, int]:
    """Parses ``"2/2"``, ``"+1/+1"`` or ``"-1/3"`` into ``(power, toughness)``."""
    parts = str(text).replace(" ", "").split("/")
    if len(parts) != 2 or any(len(p.lstrip("+-")) > 18 for p in parts):
        raise ValueError(f"invalid power/toughness: {text!r}")
    try:
        return int(parts[0]), int(parts[1])
    except ValueError:
        raise ValueError(f"invalid power/toughness: {text!r}") from None


def format_pt(power: int, toughness: int, signed: bool = False) -> str:
    """The inverse of :func:`parse_pt`: ``"2/2"``, or ``"+1/+1"`` when ``signed``."""
    if signed:
        return f"{power:+d}/{toughness:+d}"
    return f"{power}/{toughness}"


# ---------------------------------------------------------------------------------------------
# The fields of a dataclass, as the file sees them


@dataclasses.dataclass(frozen=True)
class Spec:
    """A field of a scenario dataclass as the file sees it."""

    name: str
    key: str
    kind: str
    """``text``, ``whole``, ``truth``, ``words``, ``counts`` or ``items``; ``?`` when optional."""
    meta: Mapping[str, Any]
    """The field's metadata (see the module)."""
    has_default: bool
    item: type | None = None
    """The dataclass of a list's items."""
    factory: Callable[[], Any] | None = None
    fixed: Any = None

    @property
    def default(self) -> Any:
        """The field's default value (a new one for a list or a mapping)."""
        return self.factory() if self.factory is not None else self.fixed


_KINDS: dict[Any, str] = {
    str: "text",
    str | None: "text?",
    int: "whole",
    int | None: "whole?",
    bool: "truth",
    list[str]: "words",
    dict[str, int]: "counts",
}


@functools.cache
def specs(cls: type) -> tuple[Spec, ...]:
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        if f.metadata.get("internal"):
            continue
        hint = hints[f.name]
        kind = _KINDS.get(hint)
        item = None
        if kind is None:
            args = typing.get_args(hint)
            if typing.get_origin(hint) is list and args and dataclasses.is_dataclass(args[0]):
                kind, item = "items", typing.cast(type, args[0])
            else:
                kind = "other"  # read by the board's own code (choices)
        factory = None if f.default_factory is dataclasses.MISSING else f.default_factory
        fixed = None if f.default is dataclasses.MISSING else f.default
        has_default = factory is not None or f.default is not dataclasses.MISSING
        key = f.metadata.get("key", f.name)
        out.append(Spec(f.name, key, kind, dict(f.metadata), has_default, item, factory, fixed))
    return tuple(out)


@functools.cache
def pairs_of(cls: type) -> dict[str, tuple[str, ...]]:
    """``pair key → member keys`` (``pt → (power, toughness)``)."""
    out: dict[str, tuple[str, ...]] = {}
    for spec in specs(cls):
        pair = spec.meta.get("pair")
        if pair:
            out[pair] = (*out.get(pair, ()), spec.key)
    return out


@functools.cache
def keys_of(cls: type) -> tuple[str, ...]:
    """The keys a file may write for one ``cls`` (a player, an object, an effect), in order."""
    out: list[str] = []
    for spec in specs(cls):
        pair = spec.meta.get("pair")
        if pair and pair not in out:
            out.append(pair)
        out.append(spec.key)
    return tuple(out)


def hint_item(cls: type, name: str) -> type:
    """The dataclass a ``list[...]`` field of ``cls`` holds."""
    args = typing.get_args(typing.get_type_hints(cls)[name])
    item: type = args[0]
    return item


@functools.cache
def top_keys(cls: type) -> tuple[str, ...]:
    """The keys of a board file, in the order files write them (``order`` in the metadata)."""
    fields = dataclasses.fields(cls)
    ordered = sorted(fields, key=lambda f: f.metadata.get("order", len(fields)))
    return tuple(f.metadata.get("key", f.name) for f in ordered)


# ---------------------------------------------------------------------------------------------
# Writing


def to_dict(obj: Any) -> dict[str, Any]:
    """A player, object or effect in the scenario-file format (defaults left out).

    For an object a :data:`Fill` filled, the keys the file wrote and those whose values now
    differ from what the source gave (see the module).
    """
    out: dict[str, Any] = {}
    last: dict[str, Any] = {}
    pairs: set[str] = set()
    cls: type = type(obj)
    fields = specs(cls)
    given: Given | None = getattr(obj, "given", None)
    for spec in fields:
        meta = spec.meta
        target = last if meta.get("last") else out
        pair = meta.get("pair")
        if pair:
            if pair in pairs:
                continue
            pairs.add(pair)
            members = [s for s in fields if s.meta.get("pair") == pair]
            values = [getattr(obj, s.name) for s in members]
            kept = [
                (s, v)
                for i, (s, v) in enumerate(zip(members, values, strict=True))
                if v is not None and not _as_given(obj, given, pair, s, i, v)
            ]
            if len(kept) == len(members):
                power, toughness = values
                target[pair] = format_pt(power, toughness, signed=bool(meta.get("signed")))
            else:
                target.update({s.key: v for s, v in kept})
            continue
        value = getattr(obj, spec.name)
        if given is not None and spec.key in given.written:
            pass  # over what the source gave, even when it is the default (`keywords: []`)
        elif given is not None and spec.name in given.values:
            if value == given.values[spec.name]:
                continue
        elif spec.has_default and not meta.get("always") and value == spec.default:
            continue
        if spec.kind == "items":
            value = [to_dict(item) for item in value]
        elif isinstance(value, list):
            value = list(value)
        elif isinstance(value, dict):
            value = dict(value)
        target[spec.key] = value
    out.update(last)
    return out


def _as_given(obj: Any, given: Given | None, pair: str, spec: Spec, index: int, value: Any) -> bool:
    """Checks if a member of a pair has the value the source gave and the file didn't write."""
    if given is None or spec.name not in given.values:
        return False
    if pair in given.written or spec.key in given.written:
        return False
    printed = given.values[spec.name]
    if printed is None:
        return False
    change = pt_change(getattr(obj, "counters", {}), getattr(obj, "effects", ()))
    return bool(value == printed + change[index])


def player_to_dict(p: Any) -> dict[str, Any]:
    """A player in the scenario-file format (defaults left out)."""
    return to_dict(p)


def object_to_dict(o: Any) -> dict[str, Any]:
    """An object in the scenario-file format (defaults left out)."""
    return to_dict(o)


def board_to_dict(board: Any) -> dict[str, Any]:
    """A board in the scenario-file format (only what differs from the defaults)."""
    out: dict[str, Any] = {}
    if board.edition is not None:
        out["edition"] = board.edition
    out["variant"] = board.variant
    out["players"] = [to_dict(p) for p in board.players]
    out["objects"] = [to_dict(o) for o in board.objects]
    if board.choices:
        out["choices"] = {k: dict(v) for k, v in board.choices.items()}
    return out
