"""The checker's shape: one check per kind in 704.5 order, interactions as data, the PERFORM and
RULE_CHANGES tables, and looking only at what changed (a chain of 10,000 Auras)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from index.model import Document
from judge_cli.scenario import BoardState, Permanent, Player
from judge_cli.scenario import replayer as replay_module
from judge_cli.scenario.actions import Action
from judge_cli.scenario.editions import RULE_CHANGES, Change, EditionRules, Kind, LegendMode
from judge_cli.scenario.finder import CHECKS, SUPERSEDES, Scope
from judge_cli.scenario.perform import PERFORM
from judge_cli.scenario.replayer import MAX_WORK, _replay, replay
from judge_cli.scenario.ruling import ruling_json
from tests.test_scenario_properties import EDITIONS, boards

RULES_2025 = EditionRules.for_document(Document(edition="2025-02-07"))


def test_every_kind_has_one_check_and_every_action_a_row() -> None:
    assert set(CHECKS) == set(Kind)
    assert set(PERFORM) == set(Action)
    assert all(row.sentence.endswith(".") for row in PERFORM.values())
    for kind, registered in CHECKS.items():
        assert registered.kind is kind
        assert registered.find.__doc__, f"{kind}: a check says which rule it is"
        if registered.scope is Scope.GROUP:
            assert registered.trait is not None


def test_supersedes_pairs_are_per_object_checks() -> None:
    for winner, loser, why in SUPERSEDES:
        assert CHECKS[winner].scope is CHECKS[loser].scope is Scope.OBJECTS
        assert winner is not loser and why


def test_actions_come_out_in_the_order_of_the_rules() -> None:
    board = BoardState.from_text(
        "players: [{name: Alice, life: 0}, Bob]\n"
        "objects:\n"
        "  - {id: aura, controller: Bob, subtypes: [Aura], enchant: creature}\n"
        "  - {id: wolf, controller: Bob, types: [creature], pt: 2/2, damage: 3}\n"
        "  - {id: token, controller: Bob, types: [creature], pt: 1/1, token: true,"
        " zone: graveyard}\n",
        "b.yaml",
    )
    result = replay(board, RULES_2025)
    assert [(a.rule, a.object or a.player) for a in result.checks[0]] == [
        ("704.5a", "Alice"),
        ("704.5d", "token"),
        ("704.5g", "wolf"),
        ("704.5m", "aura"),
    ]


# Each row: a board where two kinds apply to one object, and the one that wins.
INTERACTIONS = [
    ("{id: w, types: [creature], pt: 0/0, damage: 3, keywords: [indestructible]}", "704.5f"),
    ("{id: w, types: [creature], pt: 2/2, damage: 2, deathtouch_damage: true}", "704.5g"),
    ("{id: w, types: [creature], token: true, copy: true, zone: exile}", "704.5d"),
    (
        "{id: w, types: [creature], subtypes: [Aura], pt: 1/1, attached_to: Bob, enchant: player}",
        "704.5p",
    ),
    (
        "{id: w, types: [battle], subtypes: [Siege], counters: {defense: 0}, protector: Alice}",
        "704.5v",
    ),
]


def test_interactions_are_data() -> None:
    for obj, rule in INTERACTIONS:
        board = BoardState.from_text(
            f"players: [Alice, Bob]\nobjects: [{obj[:-1]}, controller: Alice}}]\n", "b.yaml"
        )
        first = replay(board, RULES_2025).checks[0]
        assert [a.rule for a in first if a.object == "w"] == [rule], obj


def test_rule_changes_are_one_dated_table() -> None:
    dates = [since for since, _, _ in RULE_CHANGES]
    assert dates == sorted(dates)
    assert {change for _, change, _ in RULE_CHANGES} == set(Change)
    assert all(source for _, _, source in RULE_CHANGES)
    for edition, mode, attached in [
        ("2004-09-30", LegendMode.OLDEST, False),
        ("2004-10-01", LegendMode.ALL, False),
        ("2013-07-13", LegendMode.PER_CONTROLLER, True),
    ]:
        rules = EditionRules.for_document(Document(edition=edition))
        assert rules.legend_mode is mode
        assert rules.creatures_attached_rule is attached


def aura_chain(length: int) -> BoardState:
    """A creature with lethal damage, and ``length`` Auras each enchanting the one before."""
    objects = [
        Permanent(
            "bear", "Bear", controller="Alice", types=["creature"], power=2, toughness=2, damage=2
        )
    ]
    for i in range(length):
        host = f"a{i - 1}" if i else "bear"
        objects.append(
            Permanent(
                f"a{i}",
                "Aura",
                controller="Alice",
                types=["enchantment"],
                subtypes=["Aura"],
                enchant="permanent",
                attached_to=host,
            )
        )
    return BoardState([Player("Alice"), Player("Bob")], objects, "2025-02-07")


def test_a_chain_of_10000_auras_finishes() -> None:
    result = replay(aura_chain(10_000), RULES_2025)
    # One check per link: each Aura goes once the one it enchants has gone (704.5m).
    assert len(result.checks) == 10_001
    assert [a.object for a in result.checks[-1]] == ["a9999"]
    assert all(o.zone == "graveyard" for o in result.final.objects)
    assert not [n for n in result.notes if "stopped" in n.note]


def test_the_work_limit_stops_a_replay_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay_module, "MAX_WORK", 50)
    result = replay(aura_chain(100), RULES_2025)
    assert result.notes[-1].note.startswith("stopped after ")
    assert "more than 50 times, the checker's limit" in result.notes[-1].note
    assert len(result.checks) < 100
    assert MAX_WORK > 100_000


def test_the_check_limit_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay_module, "MAX_CHECKS", 5)
    result = replay(aura_chain(20), RULES_2025)
    assert result.notes[-1].note == "stopped after 5 checks, the limit"


SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(boards(), st.sampled_from(EDITIONS))
def test_looking_only_at_what_changed_finds_what_looking_at_everything_does(
    board: BoardState, edition: str
) -> None:
    rules = EditionRules.for_document(Document(edition=edition))
    fast = ruling_json(_replay(board, rules, incremental=True))
    slow = ruling_json(_replay(board, rules, incremental=False))
    assert fast == slow
