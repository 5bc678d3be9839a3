"""Boards that name cards (``card: Darksteel Citadel``) on a small card fixture of our own.

What a card gives and what the file wins, keyword lines, multi-face cards, the errors, the round
trip, one open of the card database per file, and ``judge check``'s output (text, Markdown,
JSON) naming the cards and what came from them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from index.cards.lookup import CardDB, Face
from index.cards.store import CardStore
from index.model import Document, Rule
from index.store import EditionStore
from judge_cli.cli import cli as judge
from judge_cli.scenario import BoardState, ScenarioReferenceError, ScenarioValueError
from judge_cli.scenario.cards import CardFill, card_values, face_keywords, load_with_cards
from judge_cli.scenario.loader import Scenario, load_scenario_text
from judge_cli.scenario.sba import replay

from .cardfixture import atomic, face, small_cards, write_cards


def fixture_cards() -> dict[str, list[dict[str, Any]]]:
    """The shared fixture's cards and a few more that boards need (Auras, a split card …)."""
    cards = small_cards()
    cards.update(
        {
            "March of the Machines": [
                face(
                    "March of the Machines",
                    "Enchantment",
                    manaCost="{3}{U}",
                    text="Each noncreature artifact is an artifact creature with power and "
                    "toughness each equal to its mana value.",
                )
            ],
            "Pacifism": [
                face(
                    "Pacifism",
                    "Enchantment — Aura",
                    manaCost="{1}{W}",
                    text="Enchant creature\nEnchanted creature can't attack or block.",
                    keywords=["Enchant"],
                )
            ],
            "Animate Dead": [
                face(
                    "Animate Dead",
                    "Enchantment — Aura",
                    manaCost="{1}{B}",
                    text="Enchant creature card in a graveyard\nWhen this Aura enters, if it's "
                    'on the battlefield, it loses "enchant creature card in a graveyard" and '
                    'gains "enchant creature put onto the battlefield with this Aura." Return '
                    "enchanted creature card to the battlefield under your control.",
                    keywords=["Enchant"],
                )
            ],
            "White Knight": [
                face(
                    "White Knight",
                    "Creature — Human Knight",
                    manaCost="{W}{W}",
                    power="2",
                    toughness="2",
                    text="First strike (This creature deals combat damage before creatures "
                    "without first strike.)\nProtection from black",
                    keywords=["First strike", "Protection"],
                )
            ],
            "Jace, the Mind Sculptor": [
                face(
                    "Jace, the Mind Sculptor",
                    "Legendary Planeswalker — Jace",
                    manaCost="{2}{U}{U}",
                    loyalty="3",
                    text="[+2]: Look at the top card of target player's library.",
                )
            ],
            "Tarmogoyf": [
                face(
                    "Tarmogoyf",
                    "Creature — Lhurgoyf",
                    manaCost="{1}{G}",
                    power="*",
                    toughness="1+*",
                )
            ],
            "Life // Death": [
                face(
                    "Life // Death",
                    "Sorcery",
                    faceName="Life",
                    side="a",
                    layout="split",
                    manaCost="{G}",
                    text="All lands you control become 1/1 creatures until end of turn.",
                ),
                face(
                    "Life // Death",
                    "Sorcery",
                    faceName="Death",
                    side="b",
                    layout="split",
                    manaCost="{1}{B}",
                    text="Return target creature card from your graveyard to the battlefield.",
                ),
            ],
        }
    )
    return cards


RULES = {
    "704.5f": Rule("704.5f", "If a creature has toughness 0 or less, it's put into its owner's "
                   "graveyard. Regeneration can't replace this event."),
    "704.5j": Rule("704.5j", "If two or more legendary permanents with the same name are "
                   "controlled by the same player, that player chooses one of them, and the rest "
                   "are put into their owners' graveyards. This is called the \"legend rule.\""),
    "704.5m": Rule("704.5m", "If an Aura is attached to an illegal object or player, or is not "
                   "attached to an object or player, that Aura is put into its owner's graveyard."),
}  # fmt: skip


@pytest.fixture
def home(judge_home: Path, tmp_path: Path) -> Path:
    """A data folder with the fixture's cards and one small edition (2025-02-07)."""
    doc = Document(edition="2025-02-07", rules=dict(RULES))
    EditionStore(judge_home).add_document(doc, "test", "0" * 64)
    cards = write_cards(tmp_path / "cards.json.xz", atomic(fixture_cards()))
    CardStore(judge_home).import_cards(cards)
    return judge_home


def load(text: str, home: Path, filename: str = "b.yaml") -> Scenario:
    scenario, _ = load_with_cards(
        lambda fill: load_scenario_text(text, filename, fill=fill), CardStore(home)
    )
    return scenario


def actions(board: BoardState) -> list[list[str]]:
    result = replay(board, Document(edition="2025-02-07"))
    return [sorted(f"{a.rule} {a.action} {a.object or a.player}" for a in c) for c in result.checks]


CITADEL = """\
players: [Alice, Bob]
objects:
  - id: citadel
    card: Darksteel Citadel
    controller: Alice
    types: [artifact, land, creature]   # March of the Machines: written, so it wins
    pt: 0/0
  - {id: march, card: March of the Machines, controller: Bob}
"""


def test_the_card_gives_characteristics_and_the_file_wins(home: Path) -> None:
    board = load(CITADEL, home).board
    citadel, march = board.objects
    assert (citadel.name, citadel.card) == ("Darksteel Citadel", "Darksteel Citadel")
    assert citadel.types == ["artifact", "land", "creature"]
    assert (citadel.power, citadel.toughness) == (0, 0)
    assert citadel.keywords == ["indestructible"]
    assert (citadel.supertypes, citadel.subtypes, citadel.colors) == ([], [], [])
    assert (march.types, march.colors, march.power) == (["enchantment"], ["blue"], None)
    # 0 toughness: put into the graveyard (704.5f), which indestructible does not stop.
    assert actions(board) == [["704.5f put_into_graveyard citadel"]]


def test_a_file_writing_every_characteristic_needs_nothing_from_the_card(home: Path) -> None:
    text = (
        "players: [Alice]\nobjects:\n  - {id: b, card: Grizzly Bears, name: Bear,"
        " types: [artifact], supertypes: [snow], subtypes: [Golem], colors: [], pt: 1/1,"
        " keywords: [], enchant: x}\n"
    )
    bear = load(text, home).board.objects[0]
    assert (bear.name, bear.types, bear.supertypes, bear.subtypes) == (
        "Bear",
        ["artifact"],
        ["snow"],
        ["Golem"],
    )
    assert (bear.colors, bear.power, bear.toughness, bear.keywords) == ([], 1, 1, [])
    assert bear.given is not None and bear.given.keys(type(bear)) == ()


@pytest.mark.parametrize(
    ("extra", "pt"),
    [
        ("", (2, 2)),
        (", counters: {+1/+1: 2}", (4, 4)),
        (", counters: {-1/-1: 2}", (0, 0)),
        (", counters: {+1/+1: 1, -1/-1: 1, +2/+0: 1, lore: 3}", (4, 2)),
        (", effects: [{source: anthem, pt: +1/+1}]", (3, 3)),
        (", power: 5", (5, 2)),
        (", toughness: 7, counters: {+1/+1: 1}", (3, 7)),
        (", pt: 9/9, counters: {+1/+1: 1}", (9, 9)),
    ],
)
def test_a_printed_pt_counts_the_counters_and_effects(
    home: Path, extra: str, pt: tuple[int, int]
) -> None:
    text = (
        "players: [Alice]\nobjects:\n  - {id: anthem, name: Anthem, types: [enchantment]}\n"
        f"  - {{id: b, card: Grizzly Bears{extra}}}\n"
    )
    bear = load(text, home).board.objects[1]
    assert (bear.power, bear.toughness) == pt


def test_counters_that_kill_a_card_creature(home: Path) -> None:
    text = "players: [Alice]\nobjects:\n  - {id: b, card: Grizzly Bears, counters: {-1/-1: 2}}\n"
    assert actions(load(text, home).board) == [["704.5f put_into_graveyard b"]]


def test_legend_rule_with_two_copies_named_by_card(home: Path) -> None:
    text = (
        "players: [Alice]\nobjects:\n"
        "  - {id: thrun-1, card: 'Thrun, the Last Troll'}\n"
        "  - {id: thrun-2, card: thrun the last troll}\n"
        "choices: {legend_rule: {Alice: thrun-2}}\n"
    )
    board = load(text, home).board
    assert [o.name for o in board.objects] == ["Thrun, the Last Troll"] * 2
    assert board.objects[0].supertypes == ["legendary"]
    assert actions(board) == [["704.5j put_into_graveyard thrun-1"]]


def test_two_copies_without_ids_are_an_error_at_the_object(home: Path) -> None:
    text = "players: [Alice]\nobjects:\n  - {card: Grizzly Bears}\n  - {card: Grizzly Bears}\n"
    with pytest.raises(ScenarioReferenceError) as info:
        load(text, home)
    assert str(info.value) == (
        "b.yaml, line 3, key 'objects[0]': the name 'Grizzly Bears' is not unique, so this "
        "object needs an `id:`"
    )


def test_an_aura_by_card_falls_off_a_creature_with_protection(home: Path) -> None:
    text = (
        "players: [Alice, Bob]\nobjects:\n"
        "  - {id: knight, card: Grizzly Bears, controller: Alice,"
        " keywords: [protection from white]}\n"
        "  - {id: pacifism, card: Pacifism, controller: Bob, attached_to: knight}\n"
    )
    board = load(text, home).board
    pacifism = board.objects[1]
    assert (pacifism.enchant, pacifism.subtypes, pacifism.colors) == (
        "creature",
        ["Aura"],
        ["white"],
    )
    assert actions(board) == [["704.5m put_into_graveyard pacifism"]]
    # Without the protection it gained, Pacifism stays.
    assert actions(load(text.replace(", keywords: [protection from white]", ""), home).board) == []


def test_a_creatures_own_protection_from_its_card(home: Path) -> None:
    text = (
        "players: [Alice, Bob]\nobjects:\n"
        "  - {id: knight, card: White Knight, controller: Alice}\n"
        "  - {id: aura, name: Dark Aura, types: [enchantment], subtypes: [Aura], colors: [black],"
        " enchant: creature, controller: Bob, attached_to: knight}\n"
    )
    board = load(text, home).board
    assert board.objects[0].keywords == ["first strike", "protection from black"]
    assert actions(board) == [["704.5m put_into_graveyard aura"]]


def test_animate_dead_has_the_enchant_it_gains_on_the_battlefield(home: Path) -> None:
    text = (
        "players: [Alice]\nobjects:\n  - {id: bears, card: Grizzly Bears}\n"
        "  - {id: ad, card: Animate Dead, attached_to: bears}\n"
    )
    board = load(text, home).board
    assert board.objects[1].enchant == "creature"
    assert actions(board) == []


def test_a_planeswalkers_printed_loyalty_is_not_a_counter(home: Path, tmp_path: Path) -> None:
    text = "players: [Alice]\nobjects:\n  - {id: jace, card: 'Jace, the Mind Sculptor'}\n"
    scenario, uses = load_with_cards(
        lambda fill: load_scenario_text(text, "b.yaml", fill=fill), CardStore(home)
    )
    jace = scenario.board.objects[0]
    assert (jace.types, jace.counters) == (["planeswalker"], {})
    assert uses[0].printed == {"loyalty": "3"}
    with_counters = text.replace("'}", "', counters: {loyalty: 3}}")
    assert load(with_counters, home).board.objects[0].counters == {"loyalty": 3}


def test_a_pt_that_is_not_a_number_is_not_given(home: Path) -> None:
    text = "players: [Alice]\nobjects:\n  - {id: goyf, card: Tarmogoyf}\n"
    scenario, uses = load_with_cards(
        lambda fill: load_scenario_text(text, "b.yaml", fill=fill), CardStore(home)
    )
    goyf = scenario.board.objects[0]
    assert (goyf.power, goyf.toughness) == (None, None)
    assert uses[0].printed == {"pt": "*/1+*"}
    assert "CREATURE_WITHOUT_TOUGHNESS" in (scenario.board.status().name or "")


# --- multi-face cards ---------------------------------------------------------------------


def _one(home: Path, card: str) -> Any:
    text = f"players: [Alice]\nobjects:\n  - {{id: x, card: '{card}'}}\n"
    return load(text, home).board.objects[0]


def test_faces(home: Path) -> None:
    delver = _one(home, "Delver of Secrets // Insectile Aberration")
    assert (delver.name, delver.subtypes, delver.power, delver.colors) == (
        "Delver of Secrets",
        ["Human", "Wizard"],
        1,
        ["blue"],
    )
    # The front face doesn't fly: MTGJSON lists the card's keywords, its text says the face's.
    assert delver.keywords == []
    assert _one(home, "delver of secrets").name == "Delver of Secrets"
    back = _one(home, "insectile aberration")
    assert (back.name, back.subtypes, back.power, back.toughness, back.keywords) == (
        "Insectile Aberration",
        ["Human", "Insect"],
        3,
        2,
        ["flying"],
    )
    # A split card by its whole name: both halves combined, and both names (rule 709.4).
    split = _one(home, "Life // Death")
    assert (split.name, split.types, split.colors) == (
        "Life // Death",
        ["sorcery"],
        ["black", "green"],
    )
    assert _one(home, "Death").colors == ["black"]


def test_a_face_the_data_lacks_is_an_error(home: Path) -> None:
    for card, missing in (("Ice", "Ice"), ("Fire // Ice", "Ice")):
        with pytest.raises(ScenarioReferenceError) as info:
            _one(home, card)
        assert str(info.value) == (
            f"b.yaml, line 3, key 'objects[0].card': the card data lacks the face '{missing}' of "
            "'Fire // Ice'; write its characteristics in the file instead of `card:`"
        )


# --- keyword lines ------------------------------------------------------------------------


def _face(text: str, keywords: list[str]) -> Face:
    return Face(
        "X", None, "Creature", ["Creature"], [], [], [], text, "1", "1", None, None, keywords
    )


@pytest.mark.parametrize(
    ("text", "keywords", "want", "enchant"),
    [
        (
            "Flying, protection from red",
            ["Flying", "Protection"],
            ["flying", "protection from red"],
            None,
        ),
        (
            "Protection from white and from blue",
            ["Protection"],
            ["protection from white and from blue"],
            None,
        ),
        (
            "Hexproof (This creature can't be the target of spells.)",
            ["Hexproof"],
            ["hexproof"],
            None,
        ),
        ("Hexproof from black", ["Hexproof from"], ["hexproof from black"], None),
        ("Hexproof from monocolored", ["Hexproof"], ["hexproof from monocolored"], None),
        ("Ward—Pay 2 life.", ["Ward"], ["ward"], None),
        ("Equip {2}", ["Equip"], ["equip"], None),
        ("Landfall — Whenever a land you control enters, draw a card.", ["Landfall"], [], None),
        ("When this enters, scry 2.\nScry 1.", ["Scry"], [], None),
        ("Enchanted creature gets +1/+1 and has flying.", ["Flying"], [], None),
        ("At the beginning of your upkeep, transform it.", ["Transform", "Flying"], [], None),
        ("Indestructible\n{T}: Add {C}.", [], ["indestructible"], None),
        ("Enchant land you control\nFlash", ["Enchant", "Flash"], ["flash"], "land you control"),
        ("Start your engines!", [], ["start your engines!"], None),
        (
            "Trample, flying; vigilance",
            ["Trample", "Flying", "Vigilance"],
            ["trample", "flying", "vigilance"],
            None,
        ),
        ("Flying, and it draws a card", ["Flying"], [], None),
        ("", ["Flying"], [], None),
    ],
)
def test_keyword_lines(
    text: str, keywords: list[str], want: list[str], enchant: str | None
) -> None:
    assert face_keywords(_face(text, keywords)) == (want, enchant)


def test_card_values_of_one_face() -> None:
    face = Face(
        "Thrun, the Last Troll", "{2}{G}{G}", "Legendary Creature — Troll Shaman", ["Creature"],
        ["Legendary"], ["Troll", "Shaman"], ["G"], "Hexproof\n{1}{G}: Regenerate Thrun.", "4", "4",
        None, None, ["Hexproof"],
    )  # fmt: skip
    assert card_values(face.name, (face,)) == {
        "name": "Thrun, the Last Troll",
        "types": ["creature"],
        "supertypes": ["legendary"],
        "subtypes": ["Troll", "Shaman"],
        "colors": ["green"],
        "keywords": ["hexproof"],
        "power": 4,
        "toughness": 4,
    }


# --- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "message", "nearest"),
    [
        ("Platnum Angel", "no card named 'Platnum Angel' in the card data; did you mean "
         "'Platinum Angel'?", ("Platinum Angel",)),
        ("Platinum", "no card named 'Platinum' in the card data; did you mean 'Platinum Angel' "
         "or 'Platinum Emperion'?", ("Platinum Angel", "Platinum Emperion")),
        ("thrun", "no card named 'thrun' in the card data; did you mean 'Thrun, the Last "
         "Troll'?", ("Thrun, the Last Troll",)),
        ("Xyzzy Quux Frobnitz", "no card named 'Xyzzy Quux Frobnitz' in the card data", ()),
        ("[1]", "expected a card's name, got [1]", ()),
        ("ab" * 101, "no card named '" + "ab" * 20 + "…': a card's name is at most 200 characters",
         ()),
    ],
)  # fmt: skip
def test_a_name_not_in_the_store(
    home: Path, card: str, message: str, nearest: tuple[str, ...]
) -> None:
    text = f"players: [Alice]\nobjects:\n  - id: x\n    card: {card}\n"
    with pytest.raises(ScenarioReferenceError) as info:
        load(text, home)
    assert str(info.value) == f"b.yaml, line 4, key 'objects[0].card': {message}"
    assert info.value.nearest == nearest


def test_a_card_read_without_card_data_is_an_error() -> None:
    text = "players: [Alice]\nobjects:\n  - {id: x, card: Grizzly Bears}\n"
    with pytest.raises(ScenarioValueError) as info:
        BoardState.from_text(text, "b.yaml")
    assert str(info.value) == (
        "b.yaml, line 3, key 'objects[0].card': `card:` is filled from the card data, and the "
        "board was read without it"
    )


def test_one_open_of_the_card_database_per_file(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[object] = []
    real = CardDB.open.__func__  # type: ignore[attr-defined]

    def counting(cls: type[CardDB], store: CardStore | None = None) -> CardDB:
        opened.append(store)
        db: CardDB = real(cls, store)
        return db

    monkeypatch.setattr(CardDB, "open", classmethod(counting))
    cards = "\n".join(f"  - {{id: b{i}, card: Grizzly Bears}}" for i in range(50))
    load(f"players: [Alice]\nobjects:\n{cards}\n  - {{id: c, card: Pacifism}}\n", home)
    assert len(opened) == 1
    # A board that names no card opens nothing, so it needs no card data.
    with CardFill(CardStore(home / "nowhere")) as fill:
        load_scenario_text("players: [Alice]\nobjects: [{id: a}]\n", "b.yaml", fill=fill)
        assert not fill.opened
    assert len(opened) == 1


# --- round trip ---------------------------------------------------------------------------


ROUND = """\
players: [Alice, Bob]
objects:
  - {id: citadel, card: Darksteel Citadel, controller: Alice, types: [artifact, land, creature],
     pt: 0/0}
  - {id: t1, card: 'Thrun, the Last Troll', controller: Alice, counters: {+1/+1: 1, -1/-1: 1}}
  - {id: t2, card: 'Thrun, the Last Troll', controller: Alice, pt: 4/4}
  - {id: lord, name: Lord, types: [creature], pt: 1/1, controller: Bob, damage: 1}
  - {id: b, card: Grizzly Bears, controller: Bob, effects: [{source: lord, pt: +1/+1}]}
  - {id: w, card: White Knight, controller: Bob, power: 0}
  - {id: lignified, card: White Knight, controller: Alice, keywords: [], zone: battlefield}
choices: {legend_rule: {Alice: t2}}
"""


def test_to_dict_writes_the_files_keys_and_card(home: Path) -> None:
    board = load(ROUND, home).board
    objects = board.to_dict()["objects"]
    assert objects[0] == {
        "id": "citadel",
        "card": "Darksteel Citadel",
        "controller": "Alice",
        "types": ["artifact", "land", "creature"],
        "pt": "0/0",
    }
    assert objects[1] == {
        "id": "t1",
        "card": "Thrun, the Last Troll",
        "controller": "Alice",
        "counters": {"+1/+1": 1, "-1/-1": 1},
    }
    assert objects[2]["pt"] == "4/4"  # written in the file, though the card says the same
    assert "pt" not in objects[4]  # 3/3: the printed 2/2 and the lord's +1/+1
    assert objects[5] == {"id": "w", "card": "White Knight", "controller": "Bob", "power": 0}
    # Written, so kept even where it is the default: the card's keywords would come back.
    assert objects[6] == {
        "id": "lignified",
        "card": "White Knight",
        "zone": "battlefield",
        "controller": "Alice",
        "keywords": [],
    }
    again = load(board.to_text(), home, "again.yaml").board
    assert again == board
    assert [o.given for o in again.objects] == [o.given for o in board.objects]


def test_the_final_board_reads_back_the_same(home: Path) -> None:
    board = load(ROUND, home).board
    result = replay(board, Document(edition="2025-02-07"))
    final = result.final
    # The lord died, so the bears lost +1/+1; the counters annihilated (704.5q).
    bears = final.find_object("b")
    assert bears is not None and (bears.power, bears.toughness, bears.effects) == (2, 2, [])
    again = load(final.to_text(), home, "final.yaml").board
    assert again == final
    # Set in code too: what is written is what differs from the card now.
    t2 = final.find_object("t2")
    assert t2 is not None
    t2.counters = {"+1/+1": 2}
    assert load(final.to_text(), home, "set.yaml").board == final


def test_repr_pastes_back(home: Path) -> None:
    from judge_cli.scenario import Effect, Permanent  # noqa: F401 (for eval)

    board = load(ROUND, home).board
    assert eval(repr(board.objects[0])) == board.objects[0]


# --- judge check ----------------------------------------------------------------------------


@pytest.fixture
def cli(home: Path) -> click.Group:
    return judge


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_check_text_names_the_cards(cli: click.Group, tmp_path: Path) -> None:
    jace = (
        "  - {id: jace, card: 'Jace, the Mind Sculptor', controller: Bob, counters: {loyalty: 3}}\n"
    )
    result = CliRunner().invoke(cli, ["check", write(tmp_path, "b.yaml", CITADEL + jace)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(
        "Edition 2025-02-07: state-based actions, checked as rule 704.3 says.\n\n"
        "Cards:\n"
        "  - citadel is Darksteel Citadel; from the card data: name, supertypes,\n"
        "    subtypes, colors, keywords; written in the file: types, pt.\n"
        "  - march is March of the Machines; from the card data: name, types, supertypes,\n"
        "    subtypes, colors, keywords.\n"
        "  - jace is Jace, the Mind Sculptor; from the card data: name, types,\n"
        "    supertypes, subtypes, colors, keywords. Printed loyalty 3 is not a counter:\n"
        "    the file gives the counters.\n\n"
        "Check 1:\n"
        "  704.5f  “If a creature has toughness 0 or less, it's put into its owner's\n"
        "  graveyard. Regeneration can't replace this event.”\n"
        "    - Darksteel Citadel (citadel) is put into its owner's graveyard (toughness\n"
        "      0).\n\n"
    )
    # The final board's notes say which objects are cards.
    assert "  card; indestructible\n" in result.output


def test_check_json_names_the_cards(cli: click.Group, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["check", write(tmp_path, "b.yaml", CITADEL), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["cards"] == [
        {
            "object": "citadel",
            "card": "Darksteel Citadel",
            "face": "Darksteel Citadel",
            "match": "exact",
            "from_card": ["name", "supertypes", "subtypes", "colors", "keywords"],
            "from_file": ["types", "pt"],
            "printed": {},
        },
        {
            "object": "march",
            "card": "March of the Machines",
            "face": "March of the Machines",
            "match": "exact",
            "from_card": ["name", "types", "supertypes", "subtypes", "colors", "keywords"],
            "from_file": [],
            "printed": {},
        },
    ]
    assert [a["object"] for a in data["checks"][0]["actions"]] == ["citadel"]
    assert data["final"]["objects"][0] == {
        "id": "citadel",
        "card": "Darksteel Citadel",
        "zone": "graveyard",
        "controller": "Alice",
        "types": ["artifact", "land", "creature"],
        "pt": "0/0",
    }


def test_check_json_of_a_board_without_cards_has_an_empty_list(
    judge_home: Path, tmp_path: Path
) -> None:
    doc = Document(edition="2025-02-07", rules=dict(RULES))
    EditionStore(judge_home).add_document(doc, "test", "0" * 64)
    text = "players: [Alice]\nobjects: [{id: a, types: [creature], pt: 0/0}]\n"
    result = CliRunner().invoke(judge, ["check", write(tmp_path, "b.yaml", text), "--json"])
    assert result.exit_code == 0, result.output  # no card data stored, none needed
    assert json.loads(result.output)["cards"] == []


def test_check_markdown_names_the_cards(cli: click.Group, tmp_path: Path) -> None:
    text = "players: [Alice]\nobjects:\n  - {id: goyf, card: Tarmogoyf, pt: 0/1}\n"
    result = CliRunner().invoke(cli, ["check", write(tmp_path, "b.yaml", text), "--markdown"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(
        "## Ruling\n\n**Cards**\n\n"
        "- goyf is Tarmogoyf; from the card data: name, types, supertypes, subtypes, colors, "
        "keywords; written in the file: pt. Printed P/T \\*/1+\\* is not a number: the file gives "
        "the P/T.\n\n**Answer**"
    )


def test_check_unknown_card_is_an_error_line(cli: click.Group, tmp_path: Path) -> None:
    path = write(tmp_path, "b.yaml", "players: [Alice]\nobjects:\n  - {card: Platnum Angel}\n")
    result = CliRunner().invoke(cli, ["check", path])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {path}, line 3, key 'objects[0].card': no card named 'Platnum Angel' in the "
        f"card data; did you mean 'Platinum Angel'? Fix the file and run `judge check {path}` "
        "again.\n"
    )


def test_check_without_card_data_says_how_to_get_it(judge_home: Path, tmp_path: Path) -> None:
    doc = Document(edition="2025-02-07", rules=dict(RULES))
    EditionStore(judge_home).add_document(doc, "test", "0" * 64)
    path = write(tmp_path, "b.yaml", CITADEL)
    result = CliRunner().invoke(judge, ["check", path])
    assert result.exit_code == 1
    from judge_cli.errors import GET_CARDS

    assert result.output == f"Error: no card data is stored in {judge_home}. {GET_CARDS}\n"


def test_card_text_is_shown_safely(cli: click.Group, tmp_path: Path) -> None:
    text = 'players: [Alice]\nobjects:\n  - {id: odd, card: "Gleaming Oddity\\e[31m"}\n'
    result = CliRunner().invoke(cli, ["check", write(tmp_path, "b.yaml", text)])
    assert result.exit_code == 1
    assert "\x1b" not in result.output and "\\x1b" in result.output


# --- the server ---------------------------------------------------------------------------


def test_api_check_answers_the_cli_json_for_a_board_with_cards(home: Path, tmp_path: Path) -> None:
    pytest.importorskip("starlette", reason="the serve extra is not installed")
    pytest.importorskip("uvicorn", reason="the serve extra is not installed")
    from .servefixture import fetch, running

    path = write(tmp_path, "board.yaml", CITADEL)
    cli_json = CliRunner().invoke(judge, ["check", path, "--json"])
    assert cli_json.exit_code == 0, cli_json.output
    bad = b"players: [Alice]\nobjects:\n  - {card: Platnum Angel}\n"
    with running(home) as base:
        answer = fetch(base, "/api/check", method="POST", body=CITADEL.encode())
        refused = fetch(base, "/api/check", method="POST", body=bad)
    assert answer.status == 200, answer.body
    assert answer.json() == json.loads(cli_json.output)
    assert answer.json()["cards"][0]["from_file"] == ["types", "pt"]
    assert refused.status == 400
    assert refused.json() == {
        "error": "board.yaml, line 3, key 'objects[0].card': no card named 'Platnum Angel' in "
        "the card data; did you mean 'Platinum Angel'? Fix the file and run "
        "`judge check board.yaml` again.",
        "status": 400,
    }


def test_api_check_without_card_data(judge_home: Path) -> None:
    pytest.importorskip("starlette", reason="the serve extra is not installed")
    pytest.importorskip("uvicorn", reason="the serve extra is not installed")
    from .servefixture import fetch, running

    doc = Document(edition="2025-02-07", rules=dict(RULES))
    EditionStore(judge_home).add_document(doc, "test", "0" * 64)
    plain = b"players: [Alice]\nobjects: [{id: a, types: [creature], pt: 0/0}]\n"
    with running(judge_home) as base:
        answer = fetch(base, "/api/check", method="POST", body=CITADEL.encode())
        fine = fetch(base, "/api/check", method="POST", body=plain)
    assert answer.status == 404
    assert answer.json()["error"].startswith(
        f"no card data is stored in {judge_home}. Run `judge cards update`"
    )
    assert fine.status == 200 and fine.json()["cards"] == []


# --- round trip, as a property ------------------------------------------------------------

CARD_NAMES = [
    "Grizzly Bears",
    "Darksteel Citadel",
    "Thrun, the Last Troll",
    "insectile aberration",
    "Pacifism",
    "White Knight",
    "Tarmogoyf",
    "Jace, the Mind Sculptor",
    "Life // Death",
]
_OVERRIDES = st.fixed_dictionaries(
    {},
    optional={
        "pt": st.sampled_from(["0/0", "4/4", "2/2", "1/3"]),
        "power": st.integers(-1, 5),
        "types": st.sampled_from([[], ["creature"], ["artifact", "creature"]]),
        "keywords": st.sampled_from([[], ["indestructible"], ["protection from white"]]),
        "colors": st.sampled_from([[], ["white"]]),
        "name": st.sampled_from(["Other", "Grizzly Bears"]),
        "counters": st.dictionaries(
            st.sampled_from(["+1/+1", "-1/-1", "+2/+0", "loyalty"]), st.integers(0, 3), max_size=3
        ),
        "effects": st.lists(st.just({"source": "anthem", "pt": "+1/+1"}), max_size=2),
        "damage": st.integers(0, 5),
        "zone": st.sampled_from(["battlefield", "graveyard"]),
    },
).filter(lambda d: not ("pt" in d and "power" in d))


@pytest.fixture(scope="module")
def card_store(tmp_path_factory: pytest.TempPathFactory) -> CardStore:
    folder = tmp_path_factory.mktemp("cards")
    store = CardStore(folder / "home")
    store.import_cards(write_cards(folder / "cards.json.xz", atomic(fixture_cards())))
    return store


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.tuples(st.sampled_from(CARD_NAMES), _OVERRIDES), min_size=1, max_size=6))
def test_a_board_with_cards_reads_back_the_same(
    card_store: CardStore, objects: list[tuple[str, dict[str, Any]]]
) -> None:
    raw = [{"id": "anthem", "name": "Anthem", "types": ["enchantment"]}]
    raw += [{"id": f"o{i}", "card": name, **extra} for i, (name, extra) in enumerate(objects)]
    text = json.dumps({"players": ["Alice"], "objects": raw})

    def read(text: str) -> BoardState:
        scenario, _ = load_with_cards(
            lambda fill: load_scenario_text(text, "b.json", fill=fill), card_store
        )
        return scenario.board

    board = read(text)
    assert read(json.dumps(board.to_dict())) == board
    final = replay(board, Document(edition="2025-02-07")).final
    assert read(json.dumps(final.to_dict())) == final


def test_a_lone_surrogate_in_a_board_is_shown_escaped_by_the_cli_and_the_server(
    home: Path, tmp_path: Path
) -> None:
    # JSON's "\ud800" reads as a lone surrogate, which neither SQLite nor UTF-8 output takes:
    # the lookup folds it away, the text shows it as its escape, JSON as JSON's escape.
    pytest.importorskip("starlette", reason="the serve extra is not installed")
    pytest.importorskip("uvicorn", reason="the serve extra is not installed")
    from .servefixture import fetch, running

    board = '{"players": ["Alice"], "objects": [{"id": "x", "card": "Platnum Angel\\ud800"}]}'
    path = write(tmp_path, "board.json", board)
    text = CliRunner().invoke(judge, ["check", path])
    assert text.exit_code == 1 and "Traceback" not in text.output
    assert "Platnum Angel\\ud800" in text.output and "did you mean 'Platinum Angel'" in text.output
    as_json = CliRunner().invoke(judge, ["check", path, "--json"])
    assert as_json.exit_code == 1 and as_json.output == text.output  # errors are text
    found = write(tmp_path, "found.json", board.replace("Platnum", "Platinum"))
    answer = CliRunner().invoke(judge, ["check", found, "--json"])
    assert answer.exit_code == 0, answer.output
    assert '"Platinum Angel\\ud800"' in answer.output
    with running(home) as base:
        refused = fetch(base, "/api/check", method="POST", body=board.encode())
        served = fetch(base, "/api/check", method="POST", body=Path(found).read_bytes())
    assert refused.status == 400 and "Platnum Angel\\ud800" in refused.json()["error"]
    assert served.status == 200 and served.json() == json.loads(answer.output)
