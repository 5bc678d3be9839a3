"""The scenario checker: a board model, its loader, and the state-based actions of each edition."""

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
