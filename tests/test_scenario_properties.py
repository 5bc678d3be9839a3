"""Properties of the replay (hypothesis): a fixpoint, idempotent, independent of object order."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from index.model import Document
from judge_cli.scenario import BoardState, Effect, Permanent, Player
from judge_cli.scenario.board import object_to_dict
from judge_cli.scenario.sba import check_state_based_actions, replay

EDITIONS = [
    "1999-04-23",
    "2003-03-15",
    "2007-07-13",
    "2009-07-11",
    "2013-07-13",
    "2018-07-13",
    "2022-04-29",
    "2025-02-07",
]
PLAYERS = ["Alice", "Bob", "Carol"]
NAMES = ["Isamaru", "Thalia", "Bears", "Jace"]


@st.composite
def boards(draw: st.DrawFn) -> BoardState:
    count = draw(st.integers(2, 3))
    players = [
        Player(
            name,
            life=draw(st.integers(-2, 20)),
            poison=draw(st.integers(0, 12)),
            drew_from_empty_library=draw(st.booleans()),
            team=("A" if i % 2 == 0 else "B"),
        )
        for i, name in enumerate(PLAYERS[:count])
    ]
    n = draw(st.integers(0, 12))
    ids = [f"o{i}" for i in range(n)]
    objects: list[Permanent] = []
    for i, object_id in enumerate(ids):
        kind = draw(
            st.sampled_from(
                [
                    "creature",
                    "aura",
                    "equipment",
                    "planeswalker",
                    "world",
                    "saga",
                    "battle",
                    "token",
                    "role",
                ]
            )
        )
        controller = draw(st.sampled_from(players)).name
        o = Permanent(
            object_id, name=draw(st.sampled_from(NAMES)), controller=controller, timestamp=i + 1
        )
        if kind in ("creature", "token"):
            o.types = ["creature"]
            o.power = draw(st.integers(-1, 4))
            o.toughness = draw(st.integers(-1, 4))
            o.damage = draw(st.integers(0, 5))
            o.deathtouch_damage = draw(st.booleans())
            o.regeneration_shields = draw(st.integers(0, 1))
            o.counters = draw(
                st.dictionaries(st.sampled_from(["+1/+1", "-1/-1"]), st.integers(0, 3))
            )
            if draw(st.booleans()):
                o.keywords = [
                    draw(
                        st.sampled_from(
                            ["indestructible", "protection from white", "start your engines!"]
                        )
                    )
                ]
            if draw(st.booleans()):
                o.supertypes = ["legendary"]
            o.token = kind == "token"
            o.zone = draw(st.sampled_from(["battlefield", "battlefield", "graveyard", "exile"]))
            if i > 0 and draw(st.booleans()):
                source = draw(st.sampled_from(ids[:i]))
                o.effects = [Effect(source, 1, 1)]
                o.power = (o.power or 0) + 1
                o.toughness = (o.toughness or 0) + 1
        elif kind in ("aura", "equipment", "role"):
            o.types = ["enchantment"] if kind != "equipment" else ["artifact"]
            o.subtypes = {"aura": ["Aura"], "equipment": ["Equipment"], "role": ["Aura", "Role"]}[
                kind
            ]
            o.colors = [draw(st.sampled_from(["white", "green"]))]
            o.enchant = "creature"
            targets = [t for t in ids if t != object_id] + [None]
            o.attached_to = draw(st.sampled_from(targets))
        elif kind == "planeswalker":
            o.types = ["planeswalker"]
            o.subtypes = [draw(st.sampled_from(["Jace", "Chandra"]))]
            o.counters = {"loyalty": draw(st.integers(0, 3))}
        elif kind == "world":
            o.types = ["enchantment"]
            o.supertypes = ["world"]
            o.world_since = draw(st.integers(1, 3))
        elif kind == "saga":
            o.types = ["enchantment"]
            o.subtypes = ["Saga"]
            o.final_chapter = 3
            o.counters = {"lore": draw(st.integers(1, 4))}
            o.ability_on_stack = draw(st.booleans())
        elif kind == "battle":
            o.types = ["battle"]
            o.subtypes = ["Siege"]
            o.counters = {"defense": draw(st.integers(0, 2))}
            o.protector = draw(st.sampled_from([None, *[p.name for p in players]]))
        o.phased_out = draw(st.sampled_from([False, False, False, True]))
        objects.append(o)
    variant = draw(st.sampled_from(["two-player", "multiplayer", "two-headed-giant"]))
    return BoardState(players, objects, None, variant, {})


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(boards(), st.sampled_from(EDITIONS))
def test_after_replay_no_action_applies(board: BoardState, edition: str) -> None:
    result = replay(board, Document(edition=edition))
    if result.outcome.is_game_over:
        return  # the game ended: nobody checks again (rule 104)
    left = check_state_based_actions(result.final, result.rules)
    assert not [a for a in left if a.changes_state]


@SETTINGS
@given(boards(), st.sampled_from(EDITIONS))
def test_replaying_the_final_board_does_nothing(board: BoardState, edition: str) -> None:
    result = replay(board, Document(edition=edition))
    if result.outcome.is_game_over:
        return
    again = replay(result.final, Document(edition=edition))
    assert again.checks == []
    assert again.final == result.final


def _summary(board: BoardState, edition: str) -> tuple[object, ...]:
    result = replay(board, Document(edition=edition))
    checks = [
        sorted(f"{a.rule} {a.action} {a.object or a.player}" for a in c) for c in result.checks
    ]
    final = sorted((o.id, str(object_to_dict(o))) for o in result.final.objects)
    return checks, final, sorted(result.outcome.losers), result.outcome.draw


@SETTINGS
@given(boards(), st.sampled_from(EDITIONS), st.randoms(use_true_random=False))
def test_shuffling_objects_changes_nothing(
    board: BoardState, edition: str, rnd: random.Random
) -> None:
    shuffled = board.copy()
    rnd.shuffle(shuffled.objects)
    assert _summary(board, edition) == _summary(shuffled, edition)


@SETTINGS
@given(boards())
def test_board_text_round_trips(board: BoardState) -> None:
    assert BoardState.from_text(board.to_text(), "b.yaml") == board


@SETTINGS
@given(boards(), st.sampled_from(EDITIONS))
def test_replay_leaves_the_given_board_alone(board: BoardState, edition: str) -> None:
    before = board.copy()
    replay(board, Document(edition=edition))
    assert board == before
