"""``judge card`` and the card library on a small fixture of our own: lookups, output, rules."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from index.cards.errors import UnknownCardError
from index.cards.lookup import CardDB
from index.cards.names import fold_name, loose_name
from index.cards.rows import colors_of
from index.cards.store import CardStore
from index.store import EditionStore
from judge_cli.cli import cli
from judge_cli.render import safe

from .cardfixture import write_cards

FIXTURES = Path(__file__).parent / "fixtures"
MINI_CR = FIXTURES / "mini-cr-keywords.txt"
ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


@pytest.fixture
def cards_home(judge_home: Path, tmp_path: Path) -> Path:
    """A data folder with the fixture's cards and the keyword CR excerpt (2031-04-01)."""
    EditionStore(judge_home).add_bytes(MINI_CR.read_bytes(), MINI_CR.name)
    CardStore(judge_home).import_cards(write_cards(tmp_path / "cards.json.xz"))
    return judge_home


@pytest.fixture
def db(cards_home: Path) -> CardDB:
    return CardDB.open(CardStore(cards_home))


def _check(db: CardDB, query: str, name: str, how: str) -> None:
    matches = db.get(query)
    assert [(m.card.name, m.how) for m in matches] == [(name, how)], query


def test_lookups(db: CardDB) -> None:
    delver = "Delver of Secrets // Insectile Aberration"
    _check(db, "Darksteel Citadel", "Darksteel Citadel", "exact")
    _check(db, "DARKSTEEL citadel", "Darksteel Citadel", "exact")
    _check(db, "  darksteel   citadel ", "Darksteel Citadel", "exact")
    _check(db, "Lim-Dul's Vault", "Lim-Dûl's Vault", "exact")
    _check(db, "Lim-Dûl’s Vault", "Lim-Dûl's Vault", "exact")
    _check(db, "lim-dul’s vault", "Lim-Dûl's Vault", "exact")
    _check(db, delver, delver, "exact")
    _check(db, "insectile aberration", delver, "face")
    _check(db, "Delver of Secrets", delver, "face")
    _check(db, "Ice", "Fire // Ice", "face")  # a back face the data lacks, found by the name
    _check(db, "thrun the last troll", "Thrun, the Last Troll", "folded")
    _check(db, "limduls vault", "Lim-Dûl's Vault", "folded")
    _check(db, "platinum an", "Platinum Angel", "prefix")
    _check(db, "thrun", "Thrun, the Last Troll", "prefix")
    _check(db, "Platnum Angel", "Platinum Angel", "fuzzy")
    _check(db, "Insectle Aberation", delver, "fuzzy")


def test_lookup_misses(db: CardDB) -> None:
    with pytest.raises(UnknownCardError) as ambiguous:
        db.get("Platinum")
    assert ambiguous.value.ambiguous
    assert ambiguous.value.suggestions == ["Platinum Angel", "Platinum Emperion"]
    with pytest.raises(UnknownCardError) as miss:
        db.get("Xyzzy Quux Frobnitz")
    assert miss.value.suggestions == [] and not miss.value.ambiguous
    with pytest.raises(UnknownCardError):
        db.get("   ")
    assert db.find("Nothing Like It") == []


def test_names_fold() -> None:
    assert fold_name("Lim-Dûl’s  Vault") == "lim-dul's vault"
    assert fold_name("Æther Vial") == fold_name("aether vial") == "aether vial"
    assert loose_name("Thrun, the Last Troll") == "thrunthelasttroll"
    assert loose_name("Ratonhnhaké\ua789ton") == "ratonhnhaketon"


@pytest.mark.parametrize(
    ("face", "colors"),
    [
        ({"manaCost": "{2}{W}{U}"}, ["W", "U"]),
        ({"manaCost": "{G/P}{2/U}{R}"}, ["U", "R", "G"]),
        ({"manaCost": "{7}"}, []),
        ({}, []),
        ({"manaCost": "{4}{B}", "keywords": ["Devoid"]}, []),
        ({"colorIndicator": ["U"]}, ["U"]),
        ({"manaCost": "{R}", "colors": ["B"]}, ["B"]),
    ],
)
def test_colors(face: dict[str, object], colors: list[str]) -> None:
    assert colors_of(face) == colors


def test_card_faces_and_rulings(db: CardDB) -> None:
    (match,) = db.get("delver of secrets")
    card = match.card
    assert [f.name for f in card.faces] == ["Delver of Secrets", "Insectile Aberration"]
    assert card.faces[0].colors == ["U"] and card.faces[1].mana_cost is None
    # The ruling MTGJSON repeats on each face is shown once; rulings come by date.
    assert [(r.date, r.text) for r in card.rulings] == [
        ("2020-01-01", "Both faces share this ruling."),
        ("2021-01-01", "Later ruling."),
    ]
    assert card.keywords == ["Flying", "Transform"]


def test_card_plain_output(cards_home: Path) -> None:
    code, out = run("card", "Platinum Angel")
    assert code == 0
    assert out == (
        "Platinum Angel {7}\n"
        "Artifact Creature — Angel\n"
        "Flying\n"
        "You can't lose the game and your opponents can't win the game.\n"
        "4/4\n"
        "Keywords: Flying\n"
        "\n"
        "Rulings:\n"
        "  2004-12-01  First.\n"
        "  2009-10-01  Second.\n"
        "\n"
        "Rules for its keywords in the 2031-04-01 edition:\n"
        "  702.2  Flying\n"
        "\n"
        "Oracle card data of 2030-01-01 (13 cards); Comprehensive Rules effective 2031-04-01.\n"
    )


def test_card_several_and_keyword_rules(cards_home: Path) -> None:
    code, out = run("card", "moonrage brute", "eagles of the north", "Steppe Lynx", "pir")
    assert code == 0
    assert out == (
        "Brutal Cathar // Moonrage Brute (transform)\n"
        "\n"
        "Brutal Cathar {2}{W}\n"
        "Creature — Human Soldier\n"
        "3/3\n"
        "Keywords: Daybound\n"
        "\n"
        "Moonrage Brute\n"
        "Creature — Human Werewolf\n"
        "3/3\n"
        "Keywords: Nightbound\n"
        "\n"
        "Rules for its keywords in the 2031-04-01 edition:\n"
        "  702.4  Daybound and Nightbound\n"
        "  712  Double-Faced Cards\n"
        "\n"
        "Eagles of the North {5}{W}\n"
        "Creature — Bird Soldier\n"
        "3/3\n"
        "Keywords: Flying, Plainscycling\n"
        "\n"
        "Rules for its keywords in the 2031-04-01 edition:\n"
        "  702.2  Flying\n"
        "  702.5  Cycling\n"
        "\n"
        "Steppe Lynx {W}\n"
        "Creature — Cat\n"
        "0/1\n"
        "Keywords: Landfall\n"
        "\n"
        "Rules for its keywords in the 2031-04-01 edition:\n"
        "  207.2c  An ability word appears in italics at the beginning of some abilities…\n"
        "\n"
        "Pir, Imaginative Rascal {2}{G}\n"
        "Legendary Creature — Human\n"
        "1/1\n"
        "Keywords: Partner with\n"
        "\n"
        "Rules for its keywords in the 2031-04-01 edition:\n"
        "  702.6  Partner\n"
        "\n"
        "Oracle card data of 2030-01-01 (13 cards); Comprehensive Rules effective 2031-04-01.\n"
    )


def test_card_json(cards_home: Path) -> None:
    code, out = run("card", "insectile aberration", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["source"] == {"date": "2030-01-01", "cards": 13}
    assert data["edition"] == "2031-04-01"
    (card,) = data["cards"]
    assert card["name"] == "Delver of Secrets // Insectile Aberration"
    assert card["match"] == "face" and card["layout"] == "transform"
    assert card["rules"] == ["702.2", "701.2", "712"]
    assert card["faces"][1] == {
        "name": "Insectile Aberration",
        "mana_cost": None,
        "type_line": "Creature — Human Insect",
        "types": ["Creature"],
        "supertypes": [],
        "subtypes": ["Human", "Insect"],
        "colors": [],
        "text": "Flying",
        "power": "3",
        "toughness": "2",
        "loyalty": None,
        "defense": None,
        "keywords": ["Flying", "Transform"],
    }
    assert card["rulings"][0] == {"date": "2020-01-01", "text": "Both faces share this ruling."}
    assert {"name", "match", "layout", "faces", "rulings", "rules"} <= set(card)


def test_card_fuzzy_says_did_you_mean(cards_home: Path) -> None:
    code, out = run("card", "Platnum Angel")
    assert code == 0
    assert out.startswith(
        "No card named “Platnum Angel”; did you mean Platinum Angel?\n\nPlatinum Angel {7}\n"
    )
    code, out = run("card", "Platnum Angel", "--json")
    assert json.loads(out)["cards"][0]["match"] == "fuzzy"


def test_card_errors(cards_home: Path) -> None:
    code, out = run("card", "Platinum")
    assert code == 1
    assert out == (
        "Error: several cards' names start with “Platinum”: Platinum Angel, Platinum Emperion."
        " Give more of the name.\n"
    )
    code, out = run("card", "Grizly Baers Xq")
    assert code == 1
    assert (
        out
        == "Error: no card named “Grizly Baers Xq” in the card data. Did you mean: Grizzly Bears?\n"
    )
    code, out = run("card", "Platinum Angel", "Qqqqqqq")
    assert (code, out) == (1, "Error: no card named “Qqqqqqq” in the card data.\n")
    code, out = run("card", "Platinum Angel", "--edition", "1999-01-01")
    assert code == 1 and out.startswith(
        "Error: edition 1999-01-01 is not stored (stored: 2031-04-01)"
    )
    code, out = run("card", "Platinum Angel", "--edition", "sample")
    assert code == 0 and "the bundled sample has no numbered rules" in out
    assert "Rules for its keywords" not in out


def test_control_characters_made_harmless(cards_home: Path) -> None:
    code, out = run("card", "gleaming oddity")
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "Odd\\x1b[31mly red\\x07 text." in out
    assert "Beware \\x1b]0;title\\x07 here." in out
    assert "(no rule found for Xyzzyfold)" in out
    assert safe("a\tb\x9bc\u202ed\ne") == "a\tb\\x9bc\\u202ed\ne"
    # JSON is escaped by the encoder; the text is the card's own.
    code, out = run("card", "gleaming oddity", "--json")
    assert json.loads(out)["cards"][0]["faces"][0]["text"] == "Odd\x1b[31mly red\x07 text."


def test_no_card_store(judge_home: Path) -> None:
    code, out = run("card", "Platinum Angel")
    assert code == 1
    assert out == (
        f"Error: no card data is stored in {judge_home}. Run `judge cards update` to download "
        "MTGJSON's AtomicCards file, or download it (https://mtgjson.com/api/v5/AtomicCards.json.xz)"
        " and run `judge cards import FILE`.\n"
    )
    code, out = run("cards")
    assert code == 0 and out.startswith(f"No card data is stored in {judge_home}.")
    assert run("cards", "--json") == (0, "null\n")


def test_no_edition_stored(judge_home: Path, tmp_path: Path) -> None:
    CardStore(judge_home).import_cards(write_cards(tmp_path / "c.json"))
    code, out = run("card", "darksteel citadel")
    assert code == 0
    assert "No rules shown: no Comprehensive Rules edition is stored." in out
    assert out.endswith("Oracle card data of 2030-01-01 (13 cards).\n")
    code, out = run("card", "darksteel citadel", "--json")
    data = json.loads(out)
    assert data["edition"] is None and data["cards"][0]["rules"] == []


def test_damaged_store(cards_home: Path) -> None:
    build = (
        CardStore(cards_home).folder
        / (CardStore(cards_home).folder / "CURRENT").read_text(encoding="utf-8").strip()
    )
    (build / "snapshot.json").write_text("{not json", encoding="utf-8")
    code, out = run("card", "Platinum Angel")
    assert code == 1
    assert out.startswith("Error: the stored card data is damaged: ")
    assert out.endswith(
        "Download it again with `judge cards update`, or import the file again with"
        " `judge cards import FILE`.\n"
    )
    code, out = run("cards")
    assert code == 1 and "damaged" in out


def test_card_does_not_import_whoosh(cards_home: Path) -> None:
    code = (
        "import sys\n"
        "from judge_cli.cli import cli\n"
        "try:\n"
        "    cli(['card', 'Darksteel Citadel', 'delver'], prog_name='judge')\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('whoosh', 'markdown_it', 'onnxruntime'))\n"
        "print('imported:', heavy)\n"
    )
    env = {"JUDGE_HOME": str(cards_home), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout
    assert out.endswith("imported: []\n")


def test_did_you_mean_without_trigram_index(cards_home: Path) -> None:
    # A snapshot built by an SQLite without the trigram tokenizer: every name is compared.
    import sqlite3

    _, path = CardStore(cards_home).database_path()
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE name_grams")
    with CardDB.open(CardStore(cards_home)) as db:
        _check(db, "Platnum Angel", "Platinum Angel", "fuzzy")
        assert db.suggest("Grizly Baers Xq") == ["Grizzly Bears"]


def test_a_very_long_name_is_answered_at_once(cards_home: Path) -> None:
    import time

    start = time.monotonic()
    code, out = run("card", "x" * 20_000)
    assert code == 1 and out.startswith("Error: no card named")
    assert time.monotonic() - start < 5  # was minutes: every name compared with the paragraph
