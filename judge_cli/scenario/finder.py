"""Finding state-based actions: one small function per :class:`Kind`, run in the order of 704.5.

Each function is registered against its kind with :func:`check`, saying what it looks at:

* ``Scope.PLAYERS`` — the players (and what the board says about them); run on every check.
* ``Scope.OBJECTS`` — one object at a time: those with its ``trait`` (every object without one);
  after the first check, only the objects that changed (and what is attached to them), see
  :mod:`.tracker`.
* ``Scope.GROUP`` — the objects with its ``trait``, compared with each other (the legend rule,
  Roles…); run again only when one of them changed.

A trait looks only at what no state-based action changes (types, names, keywords, being a
token), so which objects have it is worked out once per board.

The order is written once: :class:`Kind` lists the kinds as rule 704.5 and 704.6 do, and the
finder runs them in that order, so actions (and notes) come out in it. Interactions between two
kinds on one object are the :data:`SUPERSEDES` table. The check functions live in
``checks_players``, ``checks_objects`` and ``checks_groups``; importing :mod:`.replayer` (or
:mod:`.sba`) imports them, which registers them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from .actions import Action, Note, StateBasedAction
from .board import Permanent, Player, Variant
from .editions import EditionRules, Kind
from .tracker import BoardIndex

__all__ = ["CHECKS", "SUPERSEDES", "Check", "Finder", "Scope", "check"]


class Scope(enum.Enum):
    """What a check function looks at."""

    PLAYERS = "players"
    OBJECTS = "objects"
    GROUP = "group"


@dataclass(frozen=True)
class Check:
    """A registered check: the function that finds one kind of state-based action."""

    kind: Kind
    scope: Scope
    find: Callable[..., None]
    """``find(finder)``, ``find(finder, obj)`` or ``find(finder, members)``, by scope."""
    trait: Callable[[Permanent], bool] | None = None
    """Which objects it can apply to (required for a group): what no state-based action changes."""
    phased_out: bool = False
    """Also shown the phased-out objects (the token rule of 2009–2013 looks at them)."""


CHECKS: dict[Kind, Check] = {}
"""Every kind's check; run in the order of :class:`Kind`."""

F = TypeVar("F", bound=Callable[..., None])


def check(
    kind: Kind,
    scope: Scope = Scope.OBJECTS,
    trait: Callable[[Permanent], bool] | None = None,
    phased_out: bool = False,
) -> Callable[[F], F]:
    """Registers the decorated function as the check of ``kind``."""

    def register(find: F) -> F:
        if kind in CHECKS:
            raise ValueError(f"{kind} has two checks")
        CHECKS[kind] = Check(kind, scope, find, trait, phased_out)
        return find

    return register


SUPERSEDES: tuple[tuple[Kind, Kind, str], ...] = (
    (
        Kind.TOKEN_ZONE,
        Kind.COPY_ZONE,
        "a token that is also a copy ceases to exist once, as a token",
    ),
    (
        Kind.ZERO_TOUGHNESS,
        Kind.LETHAL_DAMAGE,
        "toughness 0 or less puts the creature into the graveyard: it isn't destroyed, so "
        "indestructible and regeneration don't help (704.5f and 704.5g both apply; 704.5f wins)",
    ),
    (
        Kind.ZERO_TOUGHNESS,
        Kind.DEATHTOUCH,
        "toughness 0 or less: put into the graveyard, not destroyed by deathtouch",
    ),
    (
        Kind.LETHAL_DAMAGE,
        Kind.DEATHTOUCH,
        "a creature with lethal damage is destroyed once, whatever dealt the damage",
    ),
    (
        Kind.ILLEGAL_ATTACHMENT,
        Kind.ILLEGAL_AURA,
        "a creature or battle attached to anything becomes unattached, even an Aura creature",
    ),
    (
        Kind.ILLEGAL_ATTACHMENT,
        Kind.ILLEGAL_EQUIPMENT,
        "a creature or battle attached to anything becomes unattached, even an Equipment creature",
    ),
    (
        Kind.BATTLE_DEFENSE,
        Kind.BATTLE_PROTECTOR,
        "a battle with defense 0 goes to the graveyard: nobody chooses a protector for it",
    ),
    (
        Kind.BATTLE_DEFENSE,
        Kind.SIEGE_PROTECTOR,
        "a battle with defense 0 goes to the graveyard: its protector doesn't change",
    ),
)
"""``(winner, loser, why)``: when ``winner`` acts on an object, ``loser`` does not."""


@dataclass(frozen=True)
class _Step:
    """One check of an edition's plan, with what :data:`SUPERSEDES` means for it."""

    check: Check
    earlier_winners: tuple[int, ...]
    """Steps before this one that supersede it (by their place in the plan)."""
    later_winners: tuple[int, ...]
    """Steps after this one that supersede it."""
    supersedes: bool
    """Whether it supersedes another step, so must remember the objects it acted on."""


_PLANS: dict[frozenset[Kind], tuple[_Step, ...]] = {}


def _plan(rules: EditionRules) -> tuple[_Step, ...]:
    """The checks of an edition, in the order of :class:`Kind` (worked out once per edition)."""
    kinds = frozenset(rules.numbers)
    plan = _PLANS.get(kinds)
    if plan is None:
        order = [kind for kind in Kind if kind in kinds]
        place = {kind: n for n, kind in enumerate(order)}
        steps = []
        for n, kind in enumerate(order):
            winners = [place[w] for w, loser, _ in SUPERSEDES if loser is kind and w in place]
            steps.append(
                _Step(
                    CHECKS[kind],
                    tuple(w for w in winners if w < n),
                    tuple(w for w in winners if w > n),
                    any(w is kind and loser in place for w, loser, _ in SUPERSEDES),
                )
            )
        plan = _PLANS[kinds] = tuple(steps)
    return plan


@dataclass
class _Found:
    actions: list[StateBasedAction]
    notes: list[Note]


class Finder:
    """One look at the board: every applicable action, in the order of rule 704.5."""

    def __init__(
        self, index: BoardIndex, rules: EditionRules, dirty: set[int] | None = None
    ) -> None:
        self.index = index
        self.rules = rules
        self.board = index.board
        self.players: dict[str, Player] = index.players
        self.variant = Variant.of(self.board.variant)
        self.actions: list[StateBasedAction] = []
        self.notes: list[Note] = []
        self.looked_at = 0
        """How many objects this look examined (what the replay's work limit counts)."""
        self._dirty = dirty
        self._out: _Found | None = None
        self._plan = _plan(rules)
        self._acted: dict[int, set[int]] = {}
        self._early: dict[int, dict[int, _Found]] = {}

    # -- what check functions call --------------------------------------------------------------

    def add(self, kind: Kind, action: Action, obj: Permanent | None = None, **extra: Any) -> None:
        """Records an action of ``kind`` on ``obj`` (or on ``player=``)."""
        found = StateBasedAction(
            rule=self.rules.number(kind),
            kind=kind,
            action=action,
            object=obj.id if obj is not None else None,
            name=obj.display_name if obj is not None else None,
            **extra,
        )
        (self._out.actions if self._out is not None else self.actions).append(found)

    def note(
        self, rule: str, text: str, obj: Permanent | None = None, player: str | None = None
    ) -> None:
        """Records a note citing ``rule``."""
        found = Note(rule, text, obj.id if obj is not None else None, player)
        (self._out.notes if self._out is not None else self.notes).append(found)

    def find(self, object_id: str) -> Permanent | None:
        """The object with this id as the game sees it now (``None`` if phased out or gone)."""
        return self.index.find(object_id)

    def choice(self, rule_name: str, player: str) -> object:
        """What ``player`` chose for the rule named ``rule_name`` (``choices:`` in the file)."""
        return self.board.choices.get(rule_name, {}).get(player)

    def is_phased_out(self, o: Permanent) -> bool:
        """Checks if ``o`` is phased out (itself, or with what it is attached to)."""
        return o.id in self.index.hidden

    @property
    def is_two_headed(self) -> bool:
        """Checks if the game is Two-Headed Giant."""
        return self.variant is Variant.TWO_HEADED_GIANT

    def team_of(self, player: Player) -> str:
        """The player's team in Two-Headed Giant, else the player."""
        return (player.team or player.name) if self.is_two_headed else player.name

    def name_of(self, object_id: str) -> str:
        """An object's name for the reader, or the id when it is not on the board."""
        obj = self.find(object_id)
        return obj.display_name if obj is not None else object_id

    # -- running the checks ---------------------------------------------------------------------

    def run(self) -> Finder:
        """Runs every check the edition has, in order; returns ``self``."""
        index = self.index
        dirty = self._dirty
        positions = index.positions(dirty)
        if index.hidden:
            visible = [i for i in positions if not index.is_hidden(i)]
            hidden = [i for i in positions if index.is_hidden(i)]
        else:
            visible, hidden = positions, []
        self.looked_at += len(positions) + len(self.players)
        for n, step in enumerate(self._plan):
            registered = step.check
            trait = registered.trait
            if registered.scope is Scope.PLAYERS:
                registered.find(self)
            elif registered.scope is Scope.OBJECTS:
                objects = visible
                if trait is not None:
                    if dirty is None:
                        objects = index.having(trait)
                    else:
                        have = index.trait_set(trait)
                        objects = [i for i in visible if i in have]
                if objects:
                    self._objects(n, step, objects, index.view)
                if registered.phased_out and hidden:
                    some = index.trait_set(trait) if trait is not None else None
                    self._objects(
                        n,
                        step,
                        [i for i in hidden if some is None or i in some],
                        index.items.__getitem__,
                    )
            else:
                assert trait is not None
                # Looked at again when a possible member changed, even one that left the game.
                if dirty is None or not index.trait_set(trait).isdisjoint(dirty):
                    group = index.members(trait)
                    self.looked_at += len(group)
                    registered.find(self, group)
        return self

    def _objects(
        self, n: int, step: _Step, positions: list[int], see: Callable[[int], Permanent]
    ) -> None:
        """Runs the per-object check of step ``n`` over the objects at ``positions``, leaving
        out those a winner took (:data:`SUPERSEDES`)."""
        find = step.check.find
        taken = [self._acted[w] for w in step.earlier_winners if w in self._acted]
        later = step.later_winners
        # A winner remembers which objects it acted on, for the kinds it supersedes.
        acted = self._acted.setdefault(n, set()) if step.supersedes else None
        early = self._early.pop(n, {})
        if not (taken or later or early or acted is not None):
            for i in positions:
                find(self, see(i))
            return
        actions = self.actions
        for i in positions:
            o = see(i)
            if taken and any(i in t for t in taken):
                continue
            if later and self._taken_later(later, i, o):
                continue
            if i in early:
                found = early[i]
                actions += found.actions
                self.notes += found.notes
                if acted is not None and found.actions:
                    acted.add(i)
                continue
            before = len(actions)
            find(self, o)
            if acted is not None and len(actions) > before:
                acted.add(i)

    def _taken_later(self, winners: tuple[int, ...], i: int, o: Permanent) -> bool:
        """Checks if a winner later in the order acts on ``o``; keeps what it found for then."""
        for w in winners:
            early = self._early.setdefault(w, {})
            found = early.get(i)
            if found is None:
                self._out = found = _Found([], [])
                try:
                    self._plan[w].check.find(self, o)
                finally:
                    self._out = None
                early[i] = found
            if found.actions:
                return True
        return False
