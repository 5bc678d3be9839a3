"""``judge cards import`` and ``judge card`` on the real card file (../shared/cards).

The file is imported once for the module, beside the 2026-01-16 edition of the CR; the tests
skip with the reason when ../shared is absent, and fail under CI.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from index.store import EditionStore
from judge_cli.cli import cli

from .conftest import cards_file, corpus_file


@pytest.fixture(scope="module")
def real_home() -> Iterator[Path]:
    cards = cards_file()
    cr = corpus_file("20260116")
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        # The edition without its search index: `judge card` reads only rule families.
        EditionStore(home).add_bytes(cr.read_bytes(), cr.name)
        result = CliRunner().invoke(
            cli, ["cards", "import", str(cards)], env={"JUDGE_HOME": str(home)}
        )
        assert result.exit_code == 0, result.output
        assert result.output == (
            "Stored the card data of 2026-07-03 from AtomicCards.json.xz: 34632 cards, "
            "35033 faces, 46241 rulings.\n"
        )
        yield home


def run(home: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env={"JUDGE_HOME": str(home)})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


DARKSTEEL = (
    "Darksteel Citadel\n"
    "Artifact Land\n"
    "Indestructible\n"
    "{T}: Add {C}.\n"
    "Keywords: Indestructible\n"
    "\n"
    "Rulings:\n"
    "  2014-07-18  Although Darksteel Citadel is an artifact, it can't be cast as a "
    "spell. Playing it follows the normal rules for playing a land.\n"
    "\n"
    "Rules for its keywords in the 2026-01-16 edition:\n"
    "  702.12  Indestructible\n"
    "\n"
    "Oracle card data of 2026-07-03 (34632 cards); Comprehensive Rules effective "
    "2026-01-16.\n"
)

DELVER = (
    "Delver of Secrets // Insectile Aberration (transform)\n"
    "\n"
    "Delver of Secrets {U}\n"
    "Creature — Human Wizard\n"
    "At the beginning of your upkeep, look at the top card of your library. You may "
    "reveal that card. If an instant or sorcery card is revealed this way, transform "
    "this creature.\n"
    "1/1\n"
    "Keywords: Flying, Transform\n"
    "\n"
    "Insectile Aberration\n"
    "Creature — Human Insect\n"
    "Flying\n"
    "3/2\n"
    "Keywords: Flying, Transform\n"
    "\n"
    "Rulings:\n"
    "  2011-09-22  You may reveal the card even if it's not an instant or sorcery. "
    "Whether or not you reveal it, the card stays on top of your library.\n"
    "  2016-07-13  For more information on double-faced cards, see the Shadows over "
    "Innistrad mechanics article "
    "(http://magic.wizards.com/en/articles/archive/feature/shadows-over-innistrad-mechanics).\n"
    "\n"
    "Rules for its keywords in the 2026-01-16 edition:\n"
    "  702.9  Flying\n"
    "  701.27  Transform\n"
    "  712  Double-Faced Cards\n"
    "\n"
    "Oracle card data of 2026-07-03 (34632 cards); Comprehensive Rules effective "
    "2026-01-16.\n"
)

PLATINUM = (
    "Platinum Angel {7}\n"
    "Artifact Creature — Angel\n"
    "Flying\n"
    "You can't lose the game and your opponents can't win the game.\n"
    "4/4\n"
    "Keywords: Flying\n"
    "\n"
    "Rulings:\n"
    "  2004-12-01  Effects that say the game is a draw, such as the _Legends_(TM) card "
    "Divine Intervention, are not affected by Platinum Angel. They'll still work.\n"
    "  2004-12-01  You can concede a game while Platinum Angel on the battlefield. A "
    "concession causes you to leave the game, which then causes you to lose the game "
    "(Once you concede, you no longer control a Platinum Angel, so its ability can't "
    "prevent you from losing the game).\n"
    "  2009-10-01  No game effect can cause you to lose the game or cause any opponent "
    "to win the game while you control Platinum Angel. It doesn't matter whether you "
    "have 0 or less life, you're forced to draw a card while your library is empty, you "
    "have ten or more poison counters, you're dealt combat damage by Phage the "
    "Untouchable, your opponent has Mortal Combat with twenty or more creature cards in "
    "their graveyard, or so on. You keep playing.\n"
    "  2009-10-01  Other circumstances can still cause you to lose the game, however. "
    "You will lose a game if you concede, if you're penalized with a Game Loss or a "
    "Match Loss during a sanctioned tournament due to a DCI rules infraction, or if your "
    "_Magic Online_(R) game clock runs out of time.\n"
    "  2009-10-01  If you control Platinum Angel in a Two-Headed Giant game, your team "
    "can't lose the game and the opposing team can't win the game.\n"
    "\n"
    "Rules for its keywords in the 2026-01-16 edition:\n"
    "  702.9  Flying\n"
    "\n"
    "Oracle card data of 2026-07-03 (34632 cards); Comprehensive Rules effective "
    "2026-01-16.\n"
)

THRUN = (
    "Thrun, the Last Troll {2}{G}{G}\n"
    "Legendary Creature — Troll Shaman\n"
    "This spell can't be countered.\n"
    "Hexproof (This creature can't be the target of spells or abilities your opponents "
    "control.)\n"
    "{1}{G}: Regenerate Thrun.\n"
    "4/4\n"
    "Keywords: Hexproof\n"
    "\n"
    "Rules for its keywords in the 2026-01-16 edition:\n"
    "  702.11  Hexproof\n"
    "\n"
    "Oracle card data of 2026-07-03 (34632 cards); Comprehensive Rules effective "
    "2026-01-16.\n"
)


def test_import_counts(real_home: Path) -> None:
    code, out = run(real_home, "cards", "--json")
    info = json.loads(out)
    assert (info["date"], info["cards"], info["faces"], info["rulings"]) == (
        "2026-07-03",
        34632,
        35033,
        46241,
    )
    assert info["sha256"] == ("89a822403e998aaa5d2cf02f6a87067846deef76f003795b450e10f1e99e2289")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Darksteel Citadel", DARKSTEEL),
        ("Delver of Secrets", DELVER),
        ("insectile aberration", DELVER),
        ("Platinum Angel", PLATINUM),
        ("thrun the last troll", THRUN),
    ],
)
def test_card_output(real_home: Path, name: str, expected: str) -> None:
    assert run(real_home, "card", name) == (0, expected)


def test_misspelling_did_you_mean(real_home: Path) -> None:
    code, out = run(real_home, "card", "Platnum Angel")
    assert (code, out) == (
        0,
        "No card named “Platnum Angel”; did you mean Platinum Angel?\n\n" + PLATINUM,
    )
    code, out = run(real_home, "card", "Platnm Angle")
    assert (code, out) == (
        1,
        "Error: no card named “Platnm Angle” in the card data. Did you mean: Platinum Angel, "
        "Tangle, Platinum Angel Avatar, Ripclaw Wrangler, Tempest Angler?\n",
    )


def test_card_json_per_design(real_home: Path) -> None:
    code, out = run(real_home, "card", "Darksteel Citadel", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["source"] == {"date": "2026-07-03", "cards": 34632}
    assert data["edition"] == "2026-01-16"
    (card,) = data["cards"]
    assert {k: card[k] for k in ("name", "match", "layout", "rules")} == {
        "name": "Darksteel Citadel",
        "match": "exact",
        "layout": "normal",
        "rules": ["702.12"],
    }
    assert card["faces"] == [
        {
            "name": "Darksteel Citadel",
            "mana_cost": None,
            "type_line": "Artifact Land",
            "types": ["Artifact", "Land"],
            "supertypes": [],
            "subtypes": [],
            "colors": [],
            "text": "Indestructible\n{T}: Add {C}.",
            "power": None,
            "toughness": None,
            "loyalty": None,
            "defense": None,
            "keywords": ["Indestructible"],
        }
    ]
    assert card["rulings"][0]["date"] == "2014-07-18"


@pytest.mark.parametrize(
    ("name", "card", "how"),
    [
        ("Lim-Dul's Vault", "Lim-Dûl's Vault", "exact"),
        ("lim-dûl’s vault", "Lim-Dûl's Vault", "exact"),
        ("Insectile Aberration", "Delver of Secrets // Insectile Aberration", "face"),
        ("jace the mind sculptor", "Jace, the Mind Sculptor", "folded"),
        ("Thrun, the La", "Thrun, the Last Troll", "prefix"),
        ("Darksteal Citadel", "Darksteel Citadel", "fuzzy"),
    ],
)
def test_match_kinds(real_home: Path, name: str, card: str, how: str) -> None:
    code, out = run(real_home, "card", name, "--json")
    assert code == 0, out
    (record,) = json.loads(out)["cards"]
    assert (record["name"], record["match"]) == (card, how)


def test_keywords_found_in_older_editions(real_home: Path) -> None:
    # The numbers come from the edition: Transform was 701.28 in 2025-02-07.
    cr = corpus_file("20250207")
    EditionStore(real_home).add_bytes(cr.read_bytes(), cr.name)
    code, out = run(real_home, "card", "delver of secrets", "--edition", "2025-02-07", "--json")
    assert code == 0
    assert json.loads(out)["cards"][0]["rules"] == ["702.9", "701.28", "712"]
