"""The board a replay works on, indexed so that each check looks only at what the last one changed.

A check after the first cannot find anything new on an object whose state, and whose host's
state, did not change: it would find what the previous check found, and that was either done
(so the object changed) or changes nothing (``not_destroyed``, notes already made). So a
:class:`BoardIndex` keeps, besides the board, who is attached to whom, whose effects come from
whom, which objects are phased out, and the positions a step changed; :meth:`BoardIndex.closure`
turns those into the objects the next check must look at. Anything touching the players
(someone lost) makes the next check look at everything again. This is what makes a chain of
10,000 Auras, each waiting for the one it enchants, cost linear rather than quadratic time.

Objects are addressed by their position on the original board, so that two objects sharing an
id (an odd board, ``Status.DUPLICATE_ID``) are still both looked at, as before.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator

from .board import BoardState, Permanent

__all__ = ["BoardIndex", "end_effects"]


def end_effects(o: Permanent, keep: Callable[[str], bool]) -> bool:
    """Ends the effects on ``o`` whose source ``keep`` rejects, undoing their P/T; says if any."""
    if not o.effects or all(keep(e.source) for e in o.effects):
        return False
    kept = []
    for e in o.effects:
        if keep(e.source):
            kept.append(e)
            continue
        if o.power is not None:
            o.power -= e.power
        if o.toughness is not None:
            o.toughness -= e.toughness
    o.effects = kept
    return True


class BoardIndex:
    """A board (changed in place) with the indexes a replay keeps up to date as it goes."""

    def __init__(self, board: BoardState) -> None:
        self.board = board
        self.items: list[Permanent] = list(board.objects)
        """Every object, by its position on the board it started as."""
        self.gone: set[int] = set()
        """Positions of objects that ceased to exist or left the game."""
        self.players = {p.name: p for p in board.players}
        self.by_id: dict[str, int] = {}
        self.attached: defaultdict[str, set[int]] = defaultdict(set)
        self.sourced: defaultdict[str, set[int]] = defaultdict(set)
        self.deathtouched: set[int] = set()
        self.fresh_commanders: set[int] = set()
        for i, o in enumerate(self.items):
            self.by_id[o.id] = i  # the last wins, as a dict of the board's objects does
            if o.attached_to is not None:
                self.attached[o.attached_to].add(i)
            for e in o.effects:
                self.sourced[e.source].add(i)
            if o.deathtouch_damage:
                self.deathtouched.add(i)
            if o.commander and o.moved_since_check:
                self.fresh_commanders.add(i)
        self._traits: dict[Callable[[Permanent], bool], list[int]] = {}
        self._trait_sets: dict[Callable[[Permanent], bool], set[int]] = {}
        self.swept = False
        """Whether effects of sources off the battlefield were ended once, for every object."""
        self.hidden: set[str] = set()
        self.views: dict[int, Permanent] = {}
        self.refresh_phasing()

    # -- reading --------------------------------------------------------------------------------

    def is_live(self, i: int) -> bool:
        """Checks if the object at position ``i`` still exists."""
        return i not in self.gone

    def positions(self, dirty: Iterable[int] | None) -> list[int]:
        """The live positions among ``dirty`` (every live one for ``None``), in board order."""
        if dirty is None:
            return [i for i in range(len(self.items)) if i not in self.gone]
        return sorted(i for i in dirty if i not in self.gone)

    def view(self, i: int) -> Permanent:
        """The object at ``i`` as the checks see it: without effects of phased-out sources."""
        o = self.items[i]
        if not self.views:
            return o
        return self.views.get(i, o)

    def is_hidden(self, i: int) -> bool:
        """Checks if the object at ``i`` is phased out."""
        return bool(self.hidden) and self.items[i].id in self.hidden

    def having(self, trait: Callable[[Permanent], bool]) -> list[int]:
        """Positions of the live objects with ``trait``, not phased out, in board order.

        ``trait`` must only look at what no state-based action changes (types, names, keywords):
        the positions that have it are worked out once.
        """
        gone = self.gone
        have = self._positions_with(trait)
        if not self.hidden:
            return [i for i in have if i not in gone]
        return [i for i in have if i not in gone and self.items[i].id not in self.hidden]

    def trait_set(self, trait: Callable[[Permanent], bool]) -> set[int]:
        """The positions of every object with ``trait`` (see :meth:`having`), gone or not."""
        have = self._trait_sets.get(trait)
        if have is None:
            have = self._trait_sets[trait] = set(self._positions_with(trait))
        return have

    def _positions_with(self, trait: Callable[[Permanent], bool]) -> list[int]:
        have = self._traits.get(trait)
        if have is None:
            have = self._traits[trait] = [i for i, o in enumerate(self.items) if trait(o)]
        return have

    def members(self, trait: Callable[[Permanent], bool]) -> list[Permanent]:
        """The objects on the battlefield with ``trait``, not phased out, in board order."""
        out = []
        for i in self.having(trait):
            o = self.view(i)
            if o.zone == "battlefield":
                out.append(o)
        return out

    def find(self, object_id: str) -> Permanent | None:
        """The object with this id as the checks see it, or ``None`` (phased out, or gone)."""
        i = self.by_id.get(object_id)
        if i is None or object_id in self.hidden:
            return None
        return self.view(i)

    def find_real(self, object_id: str) -> Permanent | None:
        """The object with this id (the last one, for a shared id), phased out or not."""
        i = self.by_id.get(object_id)
        return None if i is None else self.items[i]

    def attachments(self, object_id: str) -> Iterator[int]:
        """Live positions of what is attached to ``object_id`` now."""
        for i in self.attached.get(object_id, ()):
            if i not in self.gone and self.items[i].attached_to == object_id:
                yield i

    def is_on_battlefield(self, object_id: str) -> bool:
        """Checks if an object with this id is on the battlefield (phased out or not)."""
        return any(o.zone == "battlefield" for _, o in self._with_id(object_id))

    # -- phasing (rule 702.26) ----------------------------------------------------------------

    def refresh_phasing(self) -> set[int]:
        """Works out what is phased out; returns positions whose view changed (to look again)."""
        roots = {
            o.id
            for i, o in enumerate(self.items)
            if i not in self.gone and o.phased_out and o.zone == "battlefield"
        }
        hidden = set(roots)
        frontier = list(roots)
        while frontier:
            # An Aura or Equipment phases out with its permanent (702.26g), however deep.
            host = frontier.pop()
            for i in self.attachments(host):
                o = self.items[i]
                if o.zone == "battlefield" and o.id not in hidden:
                    hidden.add(o.id)
                    frontier.append(o.id)
        changed_ids = hidden ^ self.hidden
        self.hidden = hidden
        touched: set[int] = set()
        for object_id in changed_ids:
            touched.update(i for i, o in self._with_id(object_id))
            touched.update(i for i in self.sourced.get(object_id, ()) if i not in self.gone)
        if hidden or self.views:
            for i in touched | set(self.views):
                self.refresh_view(i)
        return touched

    def refresh_view(self, i: int) -> None:
        """Recomputes the view of ``i`` after it changed."""
        o = self.items[i]
        if not self.hidden or i in self.gone or not any(e.source in self.hidden for e in o.effects):
            self.views.pop(i, None)
            return
        view = o.copy()
        end_effects(view, lambda source: source not in self.hidden)
        self.views[i] = view

    def _with_id(self, object_id: str) -> Iterator[tuple[int, Permanent]]:
        i = self.by_id.get(object_id)
        if i is None:
            return
        o = self.items[i]
        yield i, o
        if self._has_shared_ids:
            for j, other in enumerate(self.items):
                if j != i and j not in self.gone and other.id == object_id:
                    yield j, other

    @property
    def _has_shared_ids(self) -> bool:
        return len(self.by_id) != len(self.items) - len(self.gone)

    # -- changing -------------------------------------------------------------------------------

    def remove(self, ids: set[str]) -> set[int]:
        """Objects with these ids cease to exist; returns their positions.

        The board's list is rebuilt by :meth:`sync`, once, rather than after every check.
        """
        removed: set[int] = set()
        for object_id in ids:
            removed.update(i for i, _ in self._with_id(object_id))
        self.gone |= removed
        for object_id in ids:
            self.by_id.pop(object_id, None)
        return removed

    def live(self) -> Iterator[Permanent]:
        """Every object that still exists, in board order."""
        return (o for i, o in enumerate(self.items) if i not in self.gone)

    def sync(self) -> BoardState:
        """Brings the board's list of objects up to date and returns the board."""
        if self.gone:
            self.board.objects = list(self.live())
        return self.board

    def closure(self, changed: set[int]) -> set[int]:
        """What the next check must look at: what changed, and whatever is attached to it."""
        out = set(changed)
        for i in changed:
            out.update(self.attachments(self.items[i].id))
        if self.hidden or self.views:
            for i in changed:
                self.refresh_view(i)
        return out
