"""`judge check FILE`: plain text, --json, --markdown, and errors without tracebacks."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from index.model import Document, Rule
from index.store import EditionStore
from judge_cli.cli import cli as judge

RULES = {
    "704.5": Rule("704.5", "The state-based actions are as follows:"),
    "704.5a": Rule("704.5a", "If a player has 0 or less life, that player loses the game."),
    "704.5g": Rule("704.5g", "If a creature has lethal damage, it is destroyed."),
}
BOARD = """\
players: [{name: Alice}, {name: Bob, life: 0}]
objects:
  - {id: bears, name: Grizzly Bears, controller: Alice, types: [creature], pt: 2/2, damage: 2}
"""


@pytest.fixture
def cli(judge_home: Path) -> click.Group:
    """``judge``, with one small edition stored through the library (no command patched)."""
    doc = Document(edition="2025-02-07", rules=dict(RULES))
    EditionStore(judge_home).add_document(doc, "test", "0" * 64)
    return judge


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_text(cli: click.Group, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["check", write(tmp_path, "b.yaml", BOARD)])
    assert result.exit_code == 0
    assert result.output.startswith(
        "Edition 2025-02-07: state-based actions, checked as rule 704.3 says.\n\n"
        "Check 1:\n"
        "  704.5a  “If a player has 0 or less life, that player loses the game.”\n"
        "    - Bob loses the game (0 life).\n"
        "  704.5g  “If a creature has lethal damage, it is destroyed.”\n"
        "    - Grizzly Bears (bears) is destroyed (2 damage, toughness 2).\n\n"
        "Check 2: nothing applies, so the checking stops.\n"
    )
    assert result.output.endswith("Outcome: Bob loses the game; Alice wins.\n")


def test_json_shape(cli: click.Group, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["check", write(tmp_path, "b.yaml", BOARD), "--json"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["edition"] == "2025-02-07"
    assert data["checks"] == [
        {
            "actions": [
                {
                    "rule": "704.5a",
                    "action": "loses",
                    "object": None,
                    "name": None,
                    "player": "Bob",
                    "text": RULES["704.5a"].text,
                    "kind": "player_life",
                    "detail": "0 life",
                    "value": None,
                },
                {
                    "rule": "704.5g",
                    "action": "destroyed",
                    "object": "bears",
                    "name": "Grizzly Bears",
                    "player": None,
                    "text": RULES["704.5g"].text,
                    "kind": "lethal_damage",
                    "detail": "2 damage, toughness 2",
                    "value": None,
                },
            ]
        }
    ]
    assert data["notes"] == []
    assert data["outcome"] == {"losers": ["Bob"], "winners": ["Alice"], "draw": False}
    assert data["final"]["players"] == [
        {"name": "Alice", "life": 20},
        {"name": "Bob", "life": 0, "lost": True},
    ]
    assert data["final"]["objects"][0]["zone"] == "graveyard"


def test_markdown_with_question(cli: click.Group, tmp_path: Path) -> None:
    text = "# Bears\n\nWhat happens to the bears?\n\n```yaml\n" + BOARD + "```\n"
    result = CliRunner().invoke(cli, ["check", write(tmp_path, "q.md", text), "--markdown"])
    assert result.exit_code == 0
    assert result.output.startswith(
        "## Bears\n\n**Question**\n\n> What happens to the bears?\n\n"
        "**Answer** (state-based actions, Comprehensive Rules 2025-02-07, rule 704.3):\n\n"
        "1. Check 1:\n"
        "   - **704.5a**: Bob loses the game (0 life).\n"
    )
    assert "**Outcome:** Bob loses the game; Alice wins." in result.output
    assert "| Grizzly Bears (`bears`) | graveyard | Alice | 2/2 |" in result.output


def test_json_and_markdown_together_is_a_usage_error(cli: click.Group, tmp_path: Path) -> None:
    path = write(tmp_path, "b.yaml", BOARD)
    result = CliRunner().invoke(cli, ["check", path, "--json", "--markdown"])
    assert result.exit_code == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "players: [{name: Alice, life: lots}]\n",
            "b.yaml, line 1, key 'players[0].life': expected a whole number, got 'lots'.",
        ),
        (
            "players: [Alice]\nobjects: [{id: a, controller: Alice, attached_to: b}]\n",
            "b.yaml, line 2, key 'objects[0].attached_to': no object or player 'b'",
        ),
        ("players: [Alice\n", "b.yaml, line 2: not valid YAML"),
    ],
)
def test_bad_file_is_an_error_line(
    cli: click.Group, tmp_path: Path, text: str, message: str
) -> None:
    path = write(tmp_path, "b.yaml", text)
    result = CliRunner().invoke(cli, ["check", path])
    assert result.exit_code == 1
    assert result.output.startswith("Error: " + str(tmp_path / message.split(",")[0].split(":")[0]))
    assert message.split(" ", 1)[1] in result.output
    assert "Traceback" not in result.output
    assert result.output.rstrip().endswith(f"Fix the file and run `judge check {path}` again.")


def test_missing_file(cli: click.Group, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["check", str(tmp_path / "nope.yaml")])
    assert result.exit_code == 1
    assert result.output.startswith("Error: no such file:")


def test_edition_not_stored(cli: click.Group, tmp_path: Path) -> None:
    path = write(tmp_path, "b.yaml", "edition: 2010-01-01\n" + BOARD)
    result = CliRunner().invoke(cli, ["check", path])
    assert result.exit_code == 1
    assert result.output.startswith(
        "Error: edition 2010-01-01 is not stored (stored: 2025-02-07). Run `judge editions`"
    )


def test_option_overrides_the_file_edition(cli: click.Group, tmp_path: Path) -> None:
    path = write(tmp_path, "b.yaml", "edition: 2010-01-01\n" + BOARD)
    result = CliRunner().invoke(cli, ["check", path, "--edition", "2025-02-07", "--json"])
    assert result.exit_code == 0
    notes = json.loads(result.output)["notes"]
    assert notes[0]["note"] == "--edition 2025-02-07 overrides the file's edition 2010-01-01"
