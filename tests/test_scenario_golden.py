"""The golden scenarios in tests/scenarios/: each board, each edition, each check's actions.

A golden file holds a title, a comment citing its source, the board, and under ``expect`` one entry
per edition: the actions of each check (``"704.5g destroyed bears"``: rule, action, object or
player), optionally the outcome, notes that must appear (``"702.12b wall"``), objects that must be
gone from the board (``gone``: they left the game with their owner, rule 800.4a) and attributes
of the final board. Adding a case is a text edit.

Each case runs twice: against the real edition from ../shared/corpus (skipped when the corpus is
absent), and against a bare document of that date, which exercises the numbering table.

The boards in tests/scenarios/cards/ name their cards (``card:``): they are read with the real
card data of ../shared/cards, imported once per test run, and skipped with the reason when it is
absent (failing under CI, as the corpus tests do). A card board may expect an ``error`` instead:
the key and the message of the loader's error.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from index.model import Document
from judge_cli.scenario import BoardState
from judge_cli.scenario.sba import Replay, check_state_based_actions, replay

SCENARIOS = Path(__file__).parent / "scenarios"
CARD_SCENARIOS = SCENARIOS / "cards"
CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
SKIP_CORPUS = "../shared/corpus is absent: the real CR editions are not available here"


def _cases(sources: tuple[str, ...] = ("table", "corpus")) -> list[Any]:
    out = []
    paths = sorted(SCENARIOS.glob("*.yaml")) + sorted(CARD_SCENARIOS.glob("*.yaml"))
    for path in paths:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for n, expected in enumerate(data.get("expect", [])):
            edition = str(expected["edition"])
            for source in sources:
                out.append(pytest.param(path, n, source, id=f"{path.stem}-{edition}-{source}"))
    return out


@functools.cache
def corpus_document(edition: str) -> Document:
    from index.reader import read_cr_path

    return read_cr_path(CORPUS / f"cr-{edition.replace('-', '')}.txt")


def document_for(edition: str, source: str) -> Document:
    if source == "table":
        return Document(edition=edition)
    if not CORPUS.is_dir():
        pytest.skip(SKIP_CORPUS)
    return corpus_document(edition)


def action_key(rule: str, action: str, subject: str | None) -> str:
    return f"{rule} {action} {subject}"


@functools.cache
def real_card_home() -> Path:
    """A data folder holding the real card data (../shared/cards), imported once."""
    from index.cards.store import CardStore

    from .conftest import cards_file

    cards = cards_file()  # skips (or fails under CI) when the file is absent
    home = Path(tempfile.mkdtemp(prefix="judge-golden-cards-"))
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    CardStore(home).import_cards(cards)
    return home


def load_golden(path: Path) -> tuple[BoardState, dict[str, Any]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    text = yaml.safe_dump(data["board"])
    if path.parent != CARD_SCENARIOS:
        return BoardState.from_text(text, path.name), data
    from index.cards.store import CardStore
    from judge_cli.scenario.cards import load_with_cards
    from judge_cli.scenario.loader import load_scenario_text

    store = CardStore(real_card_home())
    scenario, _ = load_with_cards(
        lambda fill: load_scenario_text(text, path.name, fill=fill), store
    )
    return scenario.board, data


def run_case(path: Path, n: int, source: str) -> tuple[Replay, dict[str, Any]]:
    board, data = load_golden(path)
    expected = data["expect"][n]
    doc = document_for(str(expected["edition"]), source)
    return replay(board, doc), expected


@pytest.mark.parametrize(("path", "n", "source"), _cases())
def test_golden(path: Path, n: int, source: str) -> None:
    result, expected = run_case(path, n, source)
    got = [
        sorted(action_key(a.rule, a.action, a.object or a.player) for a in check)
        for check in result.checks
    ]
    want = [sorted(check) for check in expected["checks"]]
    assert got == want
    if "outcome" in expected:
        o = result.outcome
        assert {"losers": o.losers, "winners": o.winners, "draw": o.draw} == expected["outcome"]
    notes = {f"{note.rule} {note.object or note.player}" for note in result.notes}
    for wanted in expected.get("notes", []):
        assert wanted in notes
    for subject in expected.get("gone", []):
        assert result.final.find_object(subject) is None, f"{subject} is still on the board"
    for subject, attributes in (expected.get("final") or {}).items():
        thing: Any = result.final.find_object(subject) or result.final.find_player(subject)
        assert thing is not None, f"{subject} not on the final board"
        for key, value in attributes.items():
            assert getattr(thing, key) == value, f"{subject}.{key}"
    # The fixpoint: nothing left to do on the final board.
    assert not [a for a in check_state_based_actions(result.final, result.rules) if a.changes_state]


@pytest.mark.parametrize(("path", "n", "source"), _cases(("corpus",)))
def test_golden_rule_text_is_quoted_from_the_edition(path: Path, n: int, source: str) -> None:
    result, _ = run_case(path, n, source)
    for check in result.checks:
        for a in check:
            text = result.rules.text(a.rule)
            assert text, f"{a.rule} has no text in {result.rules.edition}"
            assert text == corpus_document(str(result.rules.edition)).rules[a.rule].text


ERRORS = [
    pytest.param(path, id=path.stem)
    for path in sorted(CARD_SCENARIOS.glob("*.yaml"))
    if "error" in yaml.safe_load(path.read_text(encoding="utf-8"))
]


@pytest.mark.parametrize("path", ERRORS)
def test_golden_card_board_errors(path: Path) -> None:
    from judge_cli.scenario import ScenarioError

    expected = yaml.safe_load(path.read_text(encoding="utf-8"))["error"]
    with pytest.raises(ScenarioError) as info:
        load_golden(path)
    assert (info.value.key, info.value.reason) == (expected["key"], expected["message"])


def test_card_boards_name_cards_and_say_where_they_come_from() -> None:
    files = sorted(CARD_SCENARIOS.glob("*.yaml"))
    assert len(files) >= 4 and ERRORS
    for path in files:
        text = path.read_text(encoding="utf-8")
        data = yaml.safe_load(text)
        assert text.startswith("# Source:") and data["title"], path
        assert all("card" in o for o in data["board"]["objects"]), path
        assert ("expect" in data) != ("error" in data), path


def test_golden_suite_size_and_editions() -> None:
    files = sorted(SCENARIOS.glob("*.yaml"))
    assert len(files) >= 40
    several = 0
    for path in files:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert data["title"], path
        assert path.read_text(encoding="utf-8").startswith("# Source:"), path
        if len({str(e["edition"]) for e in data["expect"]}) > 1:
            several += 1
    assert several >= 10


def test_editions_with_different_outcomes() -> None:
    """Some boards really do end differently under two editions (not only different numbers)."""
    differing = 0
    for path in sorted(SCENARIOS.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        shapes = {
            str([sorted(c.split(" ", 1)[1] for c in check) for check in e["checks"]])
            for e in data["expect"]
        }
        if len(shapes) > 1:
            differing += 1
    assert differing >= 8


def test_the_card_example_with_the_real_card_data() -> None:
    from index.cards.store import CardStore
    from judge_cli.scenario.cards import load_with_cards
    from judge_cli.scenario.loader import load_scenario_path

    example = Path(__file__).resolve().parents[1] / "examples" / "march-of-the-machines.md"
    store = CardStore(real_card_home())
    scenario, cards = load_with_cards(lambda fill: load_scenario_path(example, fill=fill), store)
    result = replay(scenario.board, document_for("2026-01-16", "corpus"))
    assert [[f"{a.rule} {a.action} {a.object}" for a in c] for c in result.checks] == [
        ["704.5f put_into_graveyard citadel"]
    ]
    assert [(c.object, c.card, c.from_file) for c in cards] == [
        ("march", "March of the Machines", ()),
        ("citadel", "Darksteel Citadel", ("types", "pt")),
        ("ornithopter", "Ornithopter", ()),
        ("bonesplitter", "Bonesplitter", ("types", "pt")),
    ]
    ornithopter = result.final.find_object("ornithopter")
    assert ornithopter is not None
    assert (ornithopter.power, ornithopter.toughness, ornithopter.keywords) == (0, 2, ["flying"])
