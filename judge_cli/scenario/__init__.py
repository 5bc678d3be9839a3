"""The scenario checker: a board model, its loader, and the state-based actions of each edition.

Names are imported lazily (PEP 562) so that registering ``judge check`` costs nothing for
``judge --help``: PyYAML and the checker load only when a name is first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .board import BoardState, Effect, Permanent, Player, Status
    from .editions import EditionRules, Kind
    from .loader import (
        Scenario,
        ScenarioError,
        ScenarioReferenceError,
        ScenarioSyntaxError,
        ScenarioValueError,
        load_scenario_path,
        load_scenario_text,
    )
    from .sba import (
        Note,
        Outcome,
        Replay,
        StateBasedAction,
        apply_actions,
        check_state_based_actions,
        replay,
    )

_WHERE = {
    "BoardState": "board",
    "Effect": "board",
    "Permanent": "board",
    "Player": "board",
    "Status": "board",
    "EditionRules": "editions",
    "Kind": "editions",
    "Scenario": "loader",
    "ScenarioError": "loader",
    "ScenarioReferenceError": "loader",
    "ScenarioSyntaxError": "loader",
    "ScenarioValueError": "loader",
    "load_scenario_path": "loader",
    "load_scenario_text": "loader",
    "Note": "sba",
    "Outcome": "sba",
    "Replay": "sba",
    "StateBasedAction": "sba",
    "apply_actions": "sba",
    "check_state_based_actions": "sba",
    "replay": "sba",
}

__all__ = [
    "BoardState",
    "EditionRules",
    "Effect",
    "Kind",
    "Note",
    "Outcome",
    "Permanent",
    "Player",
    "Replay",
    "Scenario",
    "ScenarioError",
    "ScenarioReferenceError",
    "ScenarioSyntaxError",
    "ScenarioValueError",
    "StateBasedAction",
    "Status",
    "apply_actions",
    "check_state_based_actions",
    "load_scenario_path",
    "load_scenario_text",
    "replay",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
