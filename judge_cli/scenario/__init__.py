"""The scenario checker: a board model, its loader, and the state-based actions of each edition."""

from .board import BoardState, Effect, Permanent, Player, Status
from .loader import (
    Scenario,
    ScenarioError,
    ScenarioReferenceError,
    ScenarioSyntaxError,
    ScenarioValueError,
    load_scenario_path,
    load_scenario_text,
)

__all__ = [
    "BoardState",
    "Effect",
    "Permanent",
    "Player",
    "Scenario",
    "ScenarioError",
    "ScenarioReferenceError",
    "ScenarioSyntaxError",
    "ScenarioValueError",
    "Status",
    "load_scenario_path",
    "load_scenario_text",
]
