"""Performing state-based actions: the :data:`PERFORM` table, and what follows from them.

Each :class:`Action` has one row: the function that carries it out and the sentence a ruling
says about it. :func:`perform` does a check's actions simultaneously (rule 704.3), then what
follows (continuous effects of sources that left end; whatever was attached to them is no longer
attached; players who lost a multiplayer game leave it, rule 800.4a).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .actions import Action, Note, StateBasedAction
from .board import BoardState, Permanent, Variant
from .editions import EditionRules
from .tracker import BoardIndex, end_effects

__all__ = ["PERFORM", "Perform", "Step", "apply_actions", "end_of_check", "perform"]


@dataclass
class Step:
    """One check's actions being performed, and what they changed."""

    index: BoardIndex
    leaving: dict[int, str] = field(default_factory=dict)
    """Position → the zone the object is put into."""
    gone: set[str] = field(default_factory=set)
    """Ids of objects that cease to exist or leave the game."""
    lost: list[str] = field(default_factory=list)
    """Players who lost in this step."""
    changed: set[int] = field(default_factory=set)
    """Positions of objects whose state changed."""
    moved: set[int] = field(default_factory=set)
    """Positions of objects that changed zones."""
    everything: bool = False
    """Something changed that any object may depend on (a player left): look at all again."""


_Apply = Callable[[Step, StateBasedAction, Permanent], None]


@dataclass(frozen=True)
class Perform:
    """How an action is carried out, and what a ruling says about it."""

    apply: _Apply | None
    """Applies the action to its object; ``None`` for actions on players or that change nothing."""
    sentence: str
    """The ruling's sentence: ``{what}`` (the object), ``{player}``, ``{value}``, ``{detail}``."""


def _to(zone: str) -> _Apply:
    def put(step: Step, a: StateBasedAction, o: Permanent) -> None:
        step.leaving[step.index.by_id[o.id]] = zone

    return put


def _cease(step: Step, a: StateBasedAction, o: Permanent) -> None:
    step.gone.add(o.id)


def _unattach(step: Step, a: StateBasedAction, o: Permanent) -> None:
    o.attached_to = None


def _remove_counters(step: Step, a: StateBasedAction, o: Permanent) -> None:
    for kind, amount in a.counters:
        have = o.counters.get(kind, 0)
        removed = min(have, amount)
        left = have - removed
        if left:
            o.counters[kind] = left
        else:
            o.counters.pop(kind, None)
        # pt is after counters, so it changes with them.
        sign = 1 if kind == "+1/+1" else -1 if kind == "-1/-1" else 0
        if sign:
            if o.power is not None:
                o.power -= sign * removed
            if o.toughness is not None:
                o.toughness -= sign * removed


def _regenerate(step: Step, a: StateBasedAction, o: Permanent) -> None:
    o.regeneration_shields -= 1
    o.tapped = True
    o.damage = 0
    o.deathtouch_damage = False
    o.in_combat = False


def _set_protector(step: Step, a: StateBasedAction, o: Permanent) -> None:
    o.protector = a.value


def _set_sector(step: Step, a: StateBasedAction, o: Permanent) -> None:
    o.sector = a.value


def _turn_face_down(step: Step, a: StateBasedAction, o: Permanent) -> None:
    o.face_up = False


PERFORM: dict[Action, Perform] = {
    Action.LOSES: Perform(None, "{player} loses the game{detail}."),
    Action.DESTROYED: Perform(_to("graveyard"), "{what} is destroyed{detail}."),
    Action.PUT_INTO_GRAVEYARD: Perform(
        _to("graveyard"), "{what} is put into its owner's graveyard{detail}."
    ),
    Action.SACRIFICED: Perform(_to("graveyard"), "{player} sacrifices {what}{detail}."),
    Action.CEASES_TO_EXIST: Perform(_cease, "{what} ceases to exist{detail}."),
    Action.UNATTACHED: Perform(_unattach, "{what} becomes unattached{detail}."),
    Action.COUNTERS_REMOVED: Perform(_remove_counters, "{what}: {bare_detail}."),
    Action.REMOVED_FROM_GAME: Perform(_cease, "{player} removes {what} from the game{detail}."),
    Action.REGENERATED: Perform(
        _regenerate,
        "{what} regenerates instead of being destroyed: it's tapped, its damage is "
        "removed, and it's removed from combat{detail}.",
    ),
    Action.NOT_DESTROYED: Perform(None, "{what} is not destroyed{detail}."),
    Action.SPEED_SET: Perform(None, "{player}'s speed becomes {value}{detail}."),
    Action.PROTECTOR_CHOSEN: Perform(
        _set_protector, "{player} chooses {value} as the protector of {what}."
    ),
    Action.SECTOR_CHOSEN: Perform(_set_sector, "{player} chooses sector {value} for {what}."),
    Action.PUT_INTO_COMMAND_ZONE: Perform(
        _to("command"), "{player} puts {what} into the command zone."
    ),
    Action.PUT_ON_BOTTOM_OF_SCHEME_DECK: Perform(
        _turn_face_down,
        "{what} is turned face down and put on the bottom of {player}'s scheme deck.",
    ),
    Action.PLANESWALKS: Perform(_turn_face_down, "{player} planeswalks away from {what}."),
}
"""Every action: how it is performed, and the sentence a ruling says about it."""


def _leave_battlefield(o: Permanent, zone: str) -> None:
    """Moves an object to ``zone`` as a new object: damage, counters and attachments go."""
    if o.zone == "battlefield":
        for e in o.effects:
            if o.power is not None:
                o.power -= e.power
            if o.toughness is not None:
                o.toughness -= e.toughness
        net = o.counters.get("+1/+1", 0) - o.counters.get("-1/-1", 0)
        if o.power is not None:
            o.power -= net
        if o.toughness is not None:
            o.toughness -= net
        o.effects = []
        o.counters = {}
        o.damage = 0
        o.deathtouch_damage = False
        o.attached_to = None
        o.tapped = False
        o.in_combat = False
        o.regeneration_shields = 0
        o.attacked = False
        o.protector = None
        o.sector = None
    o.zone = zone
    o.moved_since_check = True


def perform(
    index: BoardIndex, actions: Iterable[StateBasedAction], rules: EditionRules | None
) -> tuple[list[Note], Step]:
    """Performs ``actions`` simultaneously on the indexed board, then what follows from them.

    Returns notes about consequences that are not state-based actions (a Two-Headed Giant
    teammate losing too), and the :class:`Step` saying what changed.
    """
    step = Step(index)
    players = index.players
    notes: list[Note] = []
    for a in actions:
        if not a.changes_state:
            continue
        if a.action == Action.LOSES:
            if a.player in players:
                if not players[a.player].lost:
                    step.lost.append(a.player)
                players[a.player].lost = True
                step.everything = True
            continue
        o = index.find_real(a.object) if a.object else None
        if o is None:
            if a.action == Action.SPEED_SET and a.player in players:
                players[a.player].speed = int(a.value or 1)
            continue
        row = PERFORM.get(a.action)
        apply = row.apply if row is not None else None
        if apply is not None:
            apply(step, a, o)
            step.changed.add(index.by_id[o.id])
    for i, zone in step.leaving.items():
        o = index.items[i]
        if o.zone != zone:
            step.moved.add(i)
        _leave_battlefield(o, zone)
    if step.lost:
        notes += _players_leave(index, step, rules)
    if step.gone:
        removed = index.remove(step.gone)
        step.changed |= removed
        step.moved -= removed
    left = {index.items[i].id for i in step.leaving} | step.gone
    if left:
        _after_leaving(index, step, left)
    variant = Variant.of(index.board.variant)
    if variant is Variant.TWO_HEADED_GIANT:
        lost_teams = {p.team or p.name for p in index.board.players if p.lost}
        for p in index.board.players:
            if not p.lost and (p.team or p.name) in lost_teams:
                p.lost = True
                step.everything = True
                rule = rules.notes.get("team_loses", "810.8a") if rules else "810.8a"
                notes.append(Note(rule, f"{p.name} loses with their team", None, p.name))
    if left & index.hidden:
        step.changed |= index.refresh_phasing()
    return notes, step


def _after_leaving(index: BoardIndex, step: Step, left: set[str]) -> None:
    """Effects whose source left end; what was attached to an object that left is unattached."""

    def on_battlefield(source: str) -> bool:
        return index.is_on_battlefield(source)

    if not index.swept:
        # The first time, every effect whose source is off the battlefield ends (a file may
        # list such effects); from then on only effects of sources that just left can.
        index.swept = True
        candidates: Iterable[int] = range(len(index.items))
    else:
        candidates = {i for object_id in left for i in index.sourced.get(object_id, ())}
        candidates = candidates | {i for object_id in left for i in index.attachments(object_id)}
    for i in sorted(candidates):
        if not index.is_live(i):
            continue
        o = index.items[i]
        if o.zone != "battlefield":
            continue
        if o.attached_to is not None and o.attached_to in left:
            o.attached_to = None
            step.changed.add(i)
        if end_effects(o, on_battlefield):
            step.changed.add(i)


def _players_leave(index: BoardIndex, step: Step, rules: EditionRules | None) -> list[Note]:
    """Rule 800.4a: players who lost a multiplayer game that goes on leave it, with their things.

    Everything they own leaves the game (added to the step's ``gone``); what they control through
    an effect goes back to its owner. Only in a game that began with three or more players and
    still has two or more in it (in two players' games the game is over; Two-Headed Giant
    teams lose together, rule 810.8a), and only in editions that have the rule.
    """
    board = index.board
    rule = rules.notes.get("leaves_game") if rules is not None else "800.4a"
    two_headed = Variant.of(board.variant) is Variant.TWO_HEADED_GIANT
    if rule is None or two_headed or len(board.players) < 3:
        return []
    if sum(1 for p in board.players if not p.lost) < 2:
        return []
    notes: list[Note] = []
    gone = step.gone
    for name in step.lost:
        owned = [o for o in index.live() if o.owner_name == name and o.id not in gone]
        gone.update(o.id for o in owned)
        things = f"the {len(owned)} object{'s' if len(owned) != 1 else ''} they own leave"
        notes.append(Note(rule, f"{name} leaves the game; {things} with them", None, name))
        for i, o in enumerate(index.items):
            if not index.is_live(i) or o.id in gone:
                continue
            if o.controller_name == name and o.owner_name != name:
                o.controller = None  # the control effect ends: the owner controls it again
                notes.append(Note(rule, f"{o.name} goes back to {o.owner_name}", o.id, name))
    return notes


def end_of_check(index: BoardIndex, moved: set[int]) -> set[int]:
    """What "since the last time state-based actions were checked" forgets after a check.

    Returns the positions of objects that changed.
    """
    for p in index.board.players:
        if not p.lost:
            p.drew_from_empty_library = False
    changed = set()
    for i in index.deathtouched:
        if index.is_live(i):
            index.items[i].deathtouch_damage = False
            changed.add(i)
    index.deathtouched = set()
    # Only commanders care (704.6d); other objects keep the default so files stay short.
    for i in index.fresh_commanders - moved:
        if index.is_live(i):
            index.items[i].moved_since_check = False
            changed.add(i)
    index.fresh_commanders = {i for i in moved if index.items[i].commander}
    return changed


def apply_actions(
    board: BoardState,
    actions: Iterable[StateBasedAction],
    rules: EditionRules | None = None,
) -> list[Note]:
    """Performs ``actions`` simultaneously on ``board`` (in place), then what follows from them.

    What follows: continuous effects whose source left the battlefield end, and whatever was
    attached to an object that left is no longer attached to it. Returns notes about
    consequences that are not state-based actions (a Two-Headed Giant teammate losing too).
    """
    index = BoardIndex(board)
    notes, _ = perform(index, actions, rules)
    index.sync()
    return notes
