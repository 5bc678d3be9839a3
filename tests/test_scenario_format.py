"""The scenario format in one place: keys from the dataclass fields, keys from another source
(``fill``), and the loader's wording."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import pytest

from judge_cli.scenario import (
    BoardState,
    FillError,
    Permanent,
    Player,
    ScenarioReferenceError,
    ScenarioValueError,
    load_scenario_text,
)
from judge_cli.scenario.format import keys_of, to_dict
from judge_cli.scenario.loader import EFFECT_KEYS, OBJECT_KEYS, PLAYER_KEYS, TOP_KEYS
from judge_cli.scenario.reading import Reader


def test_keys_are_the_fields() -> None:
    assert TOP_KEYS == ("edition", "variant", "players", "objects", "choices")
    assert tuple(f.name for f in fields(Player)) == PLAYER_KEYS
    assert EFFECT_KEYS == ("source", "pt", "power", "toughness")
    # `given` records what a fill gave (internal: not a key of the file).
    names = [f.name for f in fields(Permanent) if not f.metadata.get("internal")]
    assert set(OBJECT_KEYS) == (set(names) - {"copy_of"}) | {"copy", "pt"}
    assert OBJECT_KEYS[:13] == (
        "id", "name", "card", "zone", "owner", "controller", "types", "supertypes", "subtypes",
        "colors", "pt", "power", "toughness",
    )  # fmt: skip


@dataclass
class Gadget:
    """A made-up object kind: what a new key costs is one field with its metadata."""

    id: str
    mode: str = field(default="on", metadata={"valid": ("on", "off"), "what": "mode"})
    owner: str | None = field(default=None, metadata={"ref": "player"})
    tags: list[str] = field(default_factory=list, metadata={"lower": True, "key": "tag"})


def test_a_new_key_is_one_field_with_metadata() -> None:
    assert keys_of(Gadget) == ("id", "mode", "owner", "tag")
    reader = Reader("g.yaml", {"g.mode": 4})
    values = reader.read_fields(
        Gadget, {"tag": ["Red", "Big"], "owner": "Al"}, "g", ["Al"], ("id",)
    )
    assert Gadget("x", **values) == Gadget("x", "on", "Al", ["red", "big"])
    assert to_dict(Gadget("x", "off", tags=["red"])) == {"id": "x", "mode": "off", "tag": ["red"]}
    with pytest.raises(ScenarioValueError, match="unknown mode 'of'; did you mean 'off'") as info:
        reader.read_fields(Gadget, {"mode": "of"}, "g", [])
    assert (info.value.key, info.value.line) == ("g.mode", 4)
    with pytest.raises(ScenarioReferenceError, match="unknown player 'Bo'"):
        reader.read_fields(Gadget, {"owner": "Bo"}, "g", ["Al"])


# A tiny stand-in for a card database: what `card: NAME` will fill in.
CARDS = {
    "Darksteel Citadel": {"name": "Darksteel Citadel", "types": ["artifact", "land"],
                          "keywords": ["indestructible"]},
    "Grizzly Bears": {"name": "Grizzly Bears", "types": ["creature"], "subtypes": ["Bear"],
                      "colors": ["green"], "power": 2, "toughness": 2},
}  # fmt: skip


def fill_from_cards(keys: Mapping[str, Any], path: str) -> Mapping[str, Any]:
    # The real key will be `card:`; the test borrows `enchant:` to name the card.
    return CARDS.get(str(keys.get("enchant")), {})


BOARD = """\
players: [Alice, Bob]
objects:
  - {enchant: Grizzly Bears, controller: Alice, pt: 3/3, damage: 3}
  - {id: citadel, enchant: Darksteel Citadel, controller: Bob, keywords: []}
  - {id: plain, name: Plain Bears, controller: Alice, types: [creature], power: 1, toughness: 1}
"""


def test_keys_from_another_source_come_first_and_the_file_wins() -> None:
    scenario = load_scenario_text(BOARD, "b.yaml", fill=fill_from_cards)
    bears, citadel, plain = scenario.board.objects
    # The id defaults to the name the card gave; `pt:` in the file beats the card's P/T.
    assert (bears.id, bears.types, bears.colors) == ("Grizzly Bears", ["creature"], ["green"])
    assert (bears.power, bears.toughness, bears.damage) == (3, 3, 3)
    assert citadel.types == ["artifact", "land"]
    assert citadel.keywords == []  # written in the file, so it wins
    assert (plain.power, plain.toughness) == (1, 1)
    assert scenario.written == {
        "Grizzly Bears": frozenset({"enchant", "controller", "pt", "damage"}),
        "citadel": frozenset({"id", "enchant", "controller", "keywords"}),
        "plain": frozenset({"id", "name", "controller", "types", "power", "toughness"}),
    }
    without = load_scenario_text(BOARD.replace("enchant: Grizzly Bears", "id: b"), "b.yaml")
    assert without.written["plain"] == scenario.written["plain"]
    assert without.board.objects[1].types == []


def test_a_source_that_cannot_fill_names_the_line_and_the_nearest() -> None:
    def no_such_card(keys: Mapping[str, Any], path: str) -> Mapping[str, Any]:
        raise FillError("enchant", "no card 'Grizly Bears'", ("Grizzly Bears",))

    with pytest.raises(ScenarioReferenceError) as info:
        load_scenario_text(BOARD, "b.yaml", fill=no_such_card)
    assert (info.value.line, info.value.key) == (3, "objects[0].enchant")
    assert info.value.nearest == ("Grizzly Bears",)
    assert str(info.value) == "b.yaml, line 3, key 'objects[0].enchant': no card 'Grizly Bears'"


def test_a_source_giving_unknown_keys_is_an_error() -> None:
    with pytest.raises(ScenarioValueError, match="unknown key; did you mean 'colors'"):
        load_scenario_text(BOARD, "b.yaml", fill=lambda keys, path: {"colour": ["red"]})


def test_round_trip_of_every_key() -> None:
    text = (
        "edition: 2025-02-07\nvariant: commander\n"
        "players:\n  - {name: Alice, life: 3, poison: 2, commander_damage: {k: 4}, speed: 1}\n"
        "  - {name: Bob, cant_lose: k, team: B, lost: true, drew_from_empty_library: true}\n"
        "objects:\n"
        "  - {id: k, name: Kaalia, owner: Alice, controller: Bob, types: [Creature],"
        " supertypes: [Legendary], subtypes: [Human], colors: [Red], pt: 2/3, damage: 1,"
        " deathtouch_damage: true, counters: {+1/+1: 1}, keywords: [Flying],"
        " regeneration_shields: 1, token: true, copy: true, commander: true, attached_to: Bob,"
        " enchant: player, final_chapter: 3, chapter_abilities: false, ability_on_stack: true,"
        " venture_on_last_room: true, protector: Alice, attacked: true, sector: Alpha,"
        " world_since: 2, timestamp: 3, max_counters: {verse: 3}, tapped: true,"
        " in_combat: true, face_up: false, phased_out: true, moved_since_check: false,"
        " effects: [{source: k, pt: +1/-1}]}\n"
        "choices: {legend_rule: {Alice: k}}\n"
    )
    board = BoardState.from_text(text, "b.yaml")
    again = board.to_dict()
    assert again["objects"][0]["sector"] == "alpha" and again["objects"][0]["copy"] is True
    assert list(again["players"][0]) == ["name", "life", "poison", "speed", "commander_damage"]
    assert list(again["objects"][0])[-2:] == ["pt", "effects"]
    assert BoardState.from_text(board.to_text(), "again.yaml") == board


# The wording fixes of issue 16 item 12.
def test_no_empty_list_of_valid_values() -> None:
    text = "players: [Alice, Bob]\nchoices: {legend_rule: {Alice: x}}\n"
    with pytest.raises(ScenarioReferenceError) as info:
        load_scenario_text(text, "b.yaml")
    assert str(info.value).endswith("no object with id 'x'; the board has no objects")
    assert "valid:" not in str(info.value)


def test_the_message_as_a_sentence_has_one_final_mark() -> None:
    with pytest.raises(ScenarioValueError) as info:
        load_scenario_text("players: [Alice, Bob]\nobjects: [{id: x, tuoghness: 2}]", "b.yaml")
    assert info.value.sentence.endswith("did you mean 'toughness'?")
    assert info.value.nearest == ("toughness",)
    with pytest.raises(ScenarioValueError) as info:
        load_scenario_text("players: [{name: Alice, life: lots}]\n", "b.yaml")
    assert info.value.sentence.endswith("got 'lots'.")
    assert f"{info.value.sentence} Fix the file".count("..") == 0


def test_a_top_level_key_path_has_no_leading_dot() -> None:
    with pytest.raises(ScenarioValueError) as info:
        load_scenario_text("edition: [1]\nplayers: [Alice]\n", "b.yaml")
    assert (info.value.key, info.value.line) == ("edition", 1)
