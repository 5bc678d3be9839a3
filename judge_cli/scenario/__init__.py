"""The scenario checker: a board model, its loader, and the state-based actions of each edition.

Names are imported lazily (PEP 562) so that registering ``judge check`` costs nothing for
``judge --help``: PyYAML and the checker load only when a name is first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .actions import Action, Note, Outcome, Replay, StateBasedAction
    from .board import BoardState, Effect, Permanent, Player, Status, Variant
    from .cards import CardFill, CardUse, load_with_cards
    from .editions import Change, EditionRules, Kind
    from .errors import (
        FillError,
        ScenarioError,
        ScenarioLimitError,
        ScenarioReferenceError,
        ScenarioSyntaxError,
        ScenarioValueError,
    )
    from .format import Fill, Given
    from .loader import Scenario, load_scenario_path, load_scenario_text
    from .perform import apply_actions
    from .replayer import check_state_based_actions, replay

_WHERE = {
    "Action": "actions",
    "Note": "actions",
    "Outcome": "actions",
    "Replay": "actions",
    "StateBasedAction": "actions",
    "BoardState": "board",
    "Effect": "board",
    "Permanent": "board",
    "Player": "board",
    "Status": "board",
    "Variant": "board",
    "CardFill": "cards",
    "CardUse": "cards",
    "load_with_cards": "cards",
    "Change": "editions",
    "EditionRules": "editions",
    "Kind": "editions",
    "ScenarioError": "errors",
    "ScenarioLimitError": "errors",
    "ScenarioReferenceError": "errors",
    "ScenarioSyntaxError": "errors",
    "ScenarioValueError": "errors",
    "Fill": "format",
    "Given": "format",
    "FillError": "errors",
    "Scenario": "loader",
    "load_scenario_path": "loader",
    "load_scenario_text": "loader",
    "apply_actions": "perform",
    "check_state_based_actions": "replayer",
    "replay": "replayer",
}

__all__ = [
    "Action",
    "BoardState",
    "CardFill",
    "CardUse",
    "Change",
    "EditionRules",
    "Effect",
    "Fill",
    "FillError",
    "Given",
    "Kind",
    "Note",
    "Outcome",
    "Permanent",
    "Player",
    "Replay",
    "Scenario",
    "ScenarioError",
    "ScenarioLimitError",
    "ScenarioReferenceError",
    "ScenarioSyntaxError",
    "ScenarioValueError",
    "StateBasedAction",
    "Status",
    "Variant",
    "apply_actions",
    "check_state_based_actions",
    "load_scenario_path",
    "load_scenario_text",
    "load_with_cards",
    "replay",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
