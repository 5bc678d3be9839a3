"""State-based actions: finding them (as data that cite their rule), performing them, and the loop.

:func:`check_state_based_actions` looks at a board once and returns every applicable action as a
frozen :class:`StateBasedAction`; :func:`apply_actions` performs a list of them simultaneously;
:func:`replay` repeats the two until nothing applies (rule 704.3) and works out the outcome of
the game (rule 104). Nothing here prints.

The parts live in their own modules: the records in :mod:`.actions`, one check function per kind
in ``checks_*`` (run by :mod:`.finder`), performing in :mod:`.perform`, the loop in
:mod:`.replayer`, card text in :mod:`.cardtext`. This module gathers their public names.
"""

from __future__ import annotations

from .actions import ACTIONS, Action, Note, Outcome, Replay, StateBasedAction
from .cardtext import is_protected_from
from .perform import PERFORM, apply_actions
from .replayer import MAX_CHECKS, MAX_WORK, check_state_based_actions, find_actions, replay

__all__ = [
    "ACTIONS",
    "MAX_CHECKS",
    "MAX_WORK",
    "PERFORM",
    "Action",
    "Note",
    "Outcome",
    "Replay",
    "StateBasedAction",
    "apply_actions",
    "check_state_based_actions",
    "find_actions",
    "is_protected_from",
    "replay",
]
