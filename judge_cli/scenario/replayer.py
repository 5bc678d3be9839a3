"""The loop of rule 704.3 and the outcome of rule 104.

:func:`check_state_based_actions` looks at a board once; :func:`replay` checks, performs and
repeats until nothing applies, then works out who won. Nothing here prints.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from index.model import Document

from . import checks_groups, checks_objects, checks_players  # noqa: F401  (they register checks)
from .actions import Note, Outcome, Replay, StateBasedAction
from .board import BoardState, Variant
from .editions import EditionRules
from .finder import Finder
from .perform import end_of_check, perform
from .tracker import BoardIndex

if TYPE_CHECKING:
    from index.edition import Edition

__all__ = [
    "MAX_CHECKS",
    "MAX_WORK",
    "check_state_based_actions",
    "find_actions",
    "replay",
]

MAX_CHECKS = 100_000
"""The most checks a replay makes: each check changes the board, so this is never reached by a
board the loader accepts (at most 10,000 objects), only by one built in code."""

MAX_WORK = 500_000
"""The most object examinations a replay makes over all its checks (each check looks only at
what changed; a board that makes every check look at thousands of objects stops here, after
seconds rather than hours)."""


def as_rules(edition_rules: EditionRules | Document | Edition) -> EditionRules:
    """The :class:`EditionRules` of an edition or a document, or the rules themselves."""
    from index.edition import Edition

    if isinstance(edition_rules, Edition):
        edition_rules = edition_rules.document
    if isinstance(edition_rules, Document):
        return EditionRules.for_document(edition_rules)
    return edition_rules


def check_state_based_actions(
    board: BoardState, edition_rules: EditionRules | Document | Edition
) -> list[StateBasedAction]:
    """Every state-based action that applies to ``board`` now, in the order of rule 704.5."""
    return find_actions(board, as_rules(edition_rules))[0]


def find_actions(
    board: BoardState, rules: EditionRules
) -> tuple[list[StateBasedAction], list[Note]]:
    """The applicable actions and the notes that go with them.

    Phased-out objects are treated as though they do not exist (rule 702.26b): the checks see
    the board without them and without their continuous effects; only the token rule of
    2009-2013 (and the phased-out zone before that) looks at them.
    """
    finder = Finder(BoardIndex(board), rules).run()
    return finder.actions, finder.notes


def replay(board: BoardState, edition_rules: EditionRules | Document | Edition) -> Replay:
    """Checks, performs and repeats until no state-based action applies (704.3); then 104."""
    return _replay(board, as_rules(edition_rules), incremental=True)


def _replay(board: BoardState, rules: EditionRules, incremental: bool) -> Replay:
    """:func:`replay`; with ``incremental`` off every check looks at everything (for tests)."""
    current = board.copy()
    index = BoardIndex(current)
    checks: list[list[StateBasedAction]] = []
    notes: list[Note] = []
    seen_notes: set[Note] = set()
    reported_not_destroyed: set[str] = set()
    two_headed = Variant.of(current.variant) is Variant.TWO_HEADED_GIANT
    teams_at_start = _teams(current, only_active=True)
    dirty: set[int] | None = None  # the first check looks at everything
    work = 0

    def keep(found: list[Note]) -> None:
        for n in found:
            if n not in seen_notes:
                seen_notes.add(n)
                notes.append(n)

    for count in range(MAX_CHECKS):
        finder = Finder(index, rules, dirty).run()
        keep(finder.notes)
        performed = [a for a in finder.actions if a.changes_state]
        if not performed:
            end_of_check(index, set())
            break
        shown = []
        for a in finder.actions:
            if not a.changes_state:
                if a.object in reported_not_destroyed:
                    continue
                reported_not_destroyed.add(a.object or "")
            shown.append(a)
        checks.append(shown)
        found, step = perform(index, performed, rules)
        keep(found)
        changed = step.changed | end_of_check(index, step.moved)
        dirty = index.closure(changed)  # brings views of what changed up to date, too
        if step.everything or not incremental:
            dirty = None
        if (
            len(teams_at_start) >= 2
            and step.everything
            and len(_teams(current, True, two_headed)) <= 1
        ):
            # The game is over (rule 104.2a, 104.4a): nobody checks again.
            break
        work += finder.looked_at
        if work > MAX_WORK:
            notes.append(
                Note(
                    rules.loop_rule,
                    f"stopped after {count + 1:,} checks: they examined objects more than "
                    f"{MAX_WORK:,} times, the checker's limit",
                )
            )
            break
    else:
        notes.append(Note(rules.loop_rule, f"stopped after {MAX_CHECKS:,} checks, the limit"))
    index.sync()
    return Replay(board, current, checks, notes, _outcome(board, current), rules)


def _teams(board: BoardState, only_active: bool, two_headed: bool | None = None) -> set[str]:
    if two_headed is None:
        two_headed = Variant.of(board.variant) is Variant.TWO_HEADED_GIANT
    return {
        (p.team or p.name) if two_headed else p.name
        for p in board.players
        if not (only_active and p.lost)
    }


def _outcome(initial: BoardState, final: BoardState) -> Outcome:
    was_in = {p.name for p in initial.players if not p.lost}
    losers = [p.name for p in final.players if p.lost and p.name in was_in]
    remaining = [p for p in final.players if not p.lost]
    teams_left = _teams(final, only_active=True)
    teams_at_start = _teams(initial, only_active=True)
    if losers and not remaining:
        return Outcome(losers, [], True)
    if len(teams_at_start) >= 2 and len(teams_left) == 1:
        return Outcome(losers, [p.name for p in remaining], False)
    return Outcome(losers, [], False)
