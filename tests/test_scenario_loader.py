"""Loading scenario files: the board model, and one bad-input case per validation rule."""

from __future__ import annotations

import pytest

from judge_cli.scenario import (
    BoardState,
    Effect,
    Permanent,
    Player,
    ScenarioError,
    ScenarioReferenceError,
    ScenarioSyntaxError,
    ScenarioValueError,
    Status,
    load_scenario_text,
)

BOARD = """\
edition: 2025-02-07
players:
  - name: Alice
    life: 20
  - name: Bob
    life: 3
objects:
  - name: Grizzly Bears
    controller: Alice
    types: [creature]
    pt: 2/2
    damage: 1
  - id: anthem
    name: Glorious Anthem
    controller: Bob
    types: [enchantment]
"""


def test_load_yaml() -> None:
    board = BoardState.from_text(BOARD, "board.yaml")
    assert board.edition == "2025-02-07"
    assert [p.name for p in board.players] == ["Alice", "Bob"]
    bears = board.find_object("Grizzly Bears")
    assert bears is not None
    assert (bears.power, bears.toughness, bears.damage) == (2, 2, 1)
    assert bears.zone == "battlefield"
    assert board.find_object("nope") is None
    assert board.is_valid()


def test_unquoted_date_edition() -> None:
    board = BoardState.from_text("edition: 2013-07-13\nplayers: [Alice, Bob]\n", "b.yaml")
    assert board.edition == "2013-07-13"


def test_load_json() -> None:
    text = '{"players": [{"name": "Alice"}, {"name": "Bob", "life": 0}], "objects": []}'
    board = BoardState.from_text(text, "board.json")
    assert board.players[1].life == 0


def test_load_markdown_question() -> None:
    text = (
        "# Angel question\n\nAlice is at 0 life. What happens?\n\n"
        "```yaml\nplayers: [{name: Alice, life: 0}, {name: Bob}]\n```\n\nThanks.\n"
    )
    scenario = load_scenario_text(text, "q.md")
    assert scenario.title == "Angel question"
    assert scenario.question == "Alice is at 0 life. What happens?\n\nThanks."
    assert scenario.board.players[0].life == 0


def test_markdown_error_lines_count_from_the_file() -> None:
    text = "# Q\n\nprose\n\n```yaml\nplayers:\n  - name: Alice\n    lfe: 3\n```\n"
    with pytest.raises(ScenarioValueError) as info:
        load_scenario_text(text, "q.md")
    assert info.value.line == 8
    assert (
        str(info.value) == "q.md, line 8, key 'players[0].lfe': unknown key; did you mean 'life'?"
    )


def test_repr_rebuilds_and_str_draws_a_table() -> None:
    board = BoardState.from_text(BOARD, "board.yaml")
    rebuilt = eval(
        repr(board),
        {"BoardState": BoardState, "Player": Player, "Permanent": Permanent, "Effect": Effect},
    )
    assert rebuilt == board
    text = str(board)
    assert "Grizzly Bears" in text and "2/2" in text and "Bob: life 3" in text
    assert text.splitlines()[5].split() == [
        "id",
        "name",
        "zone",
        "controller",
        "type",
        "P/T",
        "dmg",
        "counters",
        "notes",
    ]


def test_copy_is_independent() -> None:
    board = BoardState.from_text(BOARD, "board.yaml")
    clone = board.copy()
    assert clone == board
    clone.players[0].life = 1
    clone.objects[0].counters["+1/+1"] = 1
    clone.objects[0].types.append("artifact")
    assert board.players[0].life == 20
    assert board.objects[0].counters == {}
    assert board.objects[0].types == ["creature"]


def test_text_round_trip() -> None:
    board = BoardState.from_text(BOARD, "board.yaml")
    assert BoardState.from_text(board.to_text(), "again.yaml") == board


def test_status_flags_odd_boards_instead_of_refusing() -> None:
    board = BoardState(
        players=[Player("Alice")],
        objects=[
            Permanent("x", controller="Zed", types=["creature"]),
            Permanent("aura", controller="Alice", subtypes=["Aura"], attached_to="ghost"),
            Permanent("aura", controller="Alice", subtypes=["Saga"], damage=-1),
        ],
    )
    status = board.status()
    for flag in (
        Status.UNKNOWN_CONTROLLER,
        Status.CREATURE_WITHOUT_TOUGHNESS,
        Status.AURA_WITHOUT_ENCHANT,
        Status.DANGLING_ATTACHMENT,
        Status.DUPLICATE_ID,
        Status.SAGA_WITHOUT_FINAL_CHAPTER,
        Status.NEGATIVE_COUNT,
    ):
        assert flag in status
    assert not board.is_valid()
    assert BoardState().status() & Status.NO_PLAYERS


def test_zero_toughness_creature_loads() -> None:
    board = BoardState.from_text(
        "players: [Alice, Bob]\nobjects: [{id: w, controller: Alice, types: [creature], pt: 0/0}]",
        "b.yaml",
    )
    assert board.is_valid()


# One case per validation rule: (text, error type, line, key, words in the message).
BAD = [
    (
        "players: [Alice, Bob]\nobjects: [{id: x, controller: Alice, tuoghness: 2}]",
        ScenarioValueError,
        2,
        "objects[0].tuoghness",
        "did you mean 'toughness'",
    ),
    ("players: [Alice]\nplayres: []", ScenarioValueError, 2, "playres", "did you mean 'players'"),
    (
        "players:\n  - name: Alice\n    life: twenty\n",
        ScenarioValueError,
        3,
        "players[0].life",
        "expected a whole number, got 'twenty'",
    ),
    (
        "players:\n  - name: Alice\n    life: true\n",
        ScenarioValueError,
        3,
        "players[0].life",
        "expected a whole number",
    ),
    (
        "players:\n  - name: Alice\n    poison: 1.5\n",
        ScenarioValueError,
        3,
        "players[0].poison",
        "expected a whole number",
    ),
    (
        "players: [Alice, Bob]\nobjects:\n"
        "  - {id: a, controller: Alice}\n  - {id: a, controller: Bob}\n",
        ScenarioReferenceError,
        4,
        "objects[1].id",
        "duplicate id 'a'",
    ),
    (
        "players: [Alice, Bob]\nobjects:\n  - {name: Isamaru, controller: Alice}\n"
        "  - {name: Isamaru, controller: Bob}\n",
        ScenarioReferenceError,
        3,
        "objects[0].name",
        "needs an `id:`",
    ),
    (
        "players: [Alice, Bob]\nobjects:\n  - {id: aura, controller: Alice, attached_to: bares}\n"
        "  - {id: bears, controller: Alice}\n",
        ScenarioReferenceError,
        3,
        "objects[0].attached_to",
        "did you mean 'bears'",
    ),
    (
        "players: [Alice, Bob]\nobjects:\n  - {id: bears, controller: Alice,"
        " effects: [{source: anthm, pt: +1/+1}]}\n  - {id: anthem, controller: Alice}\n",
        ScenarioReferenceError,
        3,
        "objects[0].effects[0].source",
        "did you mean 'anthem'",
    ),
    (
        "players:\n  - {name: Alice, cant_lose: angle}\n  - Bob\nobjects:\n"
        "  - {id: angel, controller: Alice}\n",
        ScenarioReferenceError,
        2,
        "players[0].cant_lose",
        "did you mean 'angel'",
    ),
    (
        "players:\n  - {name: Alice, commander_damage: {kalia: 21}}\n  - Bob\nobjects:\n"
        "  - {id: kaalia, controller: Bob}\n",
        ScenarioReferenceError,
        2,
        "players[0].commander_damage.kalia",
        "did you mean 'kaalia'",
    ),
    (
        "players: [Alice, Bob]\nobjects:\n  - {id: x, controller: Alcie}\n",
        ScenarioReferenceError,
        3,
        "objects[0].controller",
        "unknown player 'Alcie'; did you mean 'Alice'",
    ),
    (
        "players: [Alice, Bob]\nobjects:\n  - {id: x, owner: Carol}\n",
        ScenarioReferenceError,
        3,
        "objects[0].owner",
        "unknown player 'Carol'",
    ),
    (
        "players: [Alice, Bob]\nobjects:\n"
        "  - {id: x, controller: Alice, types: [battle], protector: Bbo}\n",
        ScenarioReferenceError,
        3,
        "objects[0].protector",
        "did you mean 'Bob'",
    ),
    ("players: [Alice, Alice]\n", ScenarioReferenceError, 1, "players[1].name", "duplicate player"),
    (
        "players: [Alice, Bob]\nobjects:\n  - {id: x, controller: Alice, zone: graveyrd}\n",
        ScenarioValueError,
        3,
        "objects[0].zone",
        "did you mean 'graveyard'",
    ),
    (
        "players: [Alice, Bob]\nobjects:\n  - {id: x, controller: Alice, pt: big}\n",
        ScenarioValueError,
        3,
        "objects[0].pt",
        "expected power/toughness",
    ),
    (
        "players: [Alice, Bob]\nobjects:\n  - {id: x}\n",
        ScenarioValueError,
        3,
        "objects[0]",
        "needs a `controller:`",
    ),
    (
        "players: [Alice, Bob]\nobjects:\n  - {id: x, controller: Alice, token: yes please}\n",
        ScenarioValueError,
        3,
        "objects[0].token",
        "expected true or false",
    ),
    (
        "players: [Alice, Bob]\nobjects:\n"
        "  - {id: x, controller: Alice, counters: {+1/+1: lots}}\n",
        ScenarioValueError,
        3,
        "objects[0].counters.+1/+1",
        "expected a whole number",
    ),
    ("variant: 2hg\nplayers: [Alice, Bob]\n", ScenarioValueError, 1, "variant", "unknown variant"),
    (
        "players: [Alice, Bob]\nchoices:\n  legend_rul: {Alice: x}\n",
        ScenarioValueError,
        3,
        "choices.legend_rul",
        "did you mean 'legend_rule'",
    ),
    (
        "players: [Alice, Bob]\nchoices:\n  legend_rule: {Carol: x}\n",
        ScenarioReferenceError,
        3,
        "choices.legend_rule.Carol",
        "unknown player 'Carol'",
    ),
    (
        "players: [Alice, Bob]\nobjects: [{id: i1, controller: Alice}]\nchoices:\n"
        "  legend_rule: {Alice: i2}\n",
        ScenarioReferenceError,
        4,
        "choices.legend_rule.Alice",
        "no object with id 'i2'",
    ),
    (
        "players:\n  - name: Alice\n    name: Bob\n",
        ScenarioValueError,
        3,
        "players[0].name",
        "duplicate key",
    ),
    ("objects: []\n", ScenarioValueError, 1, "players", "expected a list of players"),
    ("players: [Alice, Bob\n", ScenarioSyntaxError, 2, None, "not valid YAML"),
    ('{"players": [', ScenarioSyntaxError, 1, None, "not valid JSON"),
    ("", ScenarioSyntaxError, None, None, "empty"),
    ("- just\n- a list\n", ScenarioValueError, 1, None, "must be a mapping"),
]


@pytest.mark.parametrize(("text", "error", "line", "key", "words"), BAD)
def test_bad_input(
    text: str, error: type[ScenarioError], line: int | None, key: str | None, words: str
) -> None:
    filename = "bad.json" if text.startswith("{") else "bad.yaml"
    with pytest.raises(error) as info:
        load_scenario_text(text, filename)
    exc = info.value
    assert isinstance(exc, ValueError)
    assert (exc.filename, exc.line, exc.key) == (filename, line, key)
    assert words in str(exc)
    assert str(exc).startswith(filename)


def test_markdown_without_yaml_block() -> None:
    with pytest.raises(ScenarioSyntaxError, match="no ```yaml block"):
        load_scenario_text("# Q\n\nNo board here.\n", "q.md")
