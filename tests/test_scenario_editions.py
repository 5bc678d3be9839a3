"""Rule numbers per edition: the numbering table agrees with every corpus edition's own text."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from index.model import Document, Rule
from judge_cli.scenario import BoardState
from judge_cli.scenario.editions import (
    NUMBER_TABLE,
    SIGNATURES,
    EditionRules,
    Kind,
    LegendMode,
    normalise,
)
from judge_cli.scenario.sba import check_state_based_actions

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
SKIP = "../shared/corpus is absent: the real CR editions are not available here"
EDITIONS = [
    "1999-04-23",
    "2003-03-15",
    "2007-05-01",
    "2007-07-13",
    "2009-07-11",
    "2013-07-13",
    "2018-07-13",
    "2022-04-29",
    "2025-02-07",
    "2025-11-14",
    "2026-01-16",
]


@functools.cache
def corpus(edition: str) -> Document:
    from index.reader import read_cr_path

    return read_cr_path(CORPUS / f"cr-{edition.replace('-', '')}.txt")


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_cited_number_exists_and_says_the_right_thing(edition: str) -> None:
    if not CORPUS.is_dir():
        pytest.skip(SKIP)
    doc = corpus(edition)
    assert doc.edition == edition
    rules = EditionRules.for_document(doc)
    table = EditionRules.for_document(Document(edition=edition))
    assert rules.numbers == table.numbers, "the table and the edition's text disagree"
    for kind, number in rules.numbers.items():
        text = rules.text(number)
        assert text, f"{number} missing in {edition}"
        assert SIGNATURES[kind].search(normalise(text)), f"{number} in {edition}: {text}"
    assert rules.term == ("state-based effects" if edition < "2009" else "state-based actions")


# (edition, kind, number or None) — the history the issue names, one line each.
HISTORY = [
    ("2003-03-15", Kind.LEGEND_RULE, "420.5e"),
    ("2007-07-13", Kind.LEGEND_RULE, "420.5e"),
    ("2009-07-11", Kind.LEGEND_RULE, "704.5k"),
    ("2013-07-13", Kind.LEGEND_RULE, "704.5k"),
    ("2018-07-13", Kind.LEGEND_RULE, "704.5j"),
    ("2025-02-07", Kind.LEGEND_RULE, "704.5j"),
    ("2007-07-13", Kind.DEATHTOUCH, None),
    ("2009-07-11", Kind.DEATHTOUCH, "704.5h"),
    ("2009-07-11", Kind.PLANESWALKER_UNIQUENESS, "704.5j"),
    ("2013-07-13", Kind.PLANESWALKER_UNIQUENESS, "704.5j"),
    ("2018-07-13", Kind.PLANESWALKER_UNIQUENESS, None),
    ("2003-03-15", Kind.PLAYER_LIFE, "420.5a"),
    ("2022-04-29", Kind.SPEED, None),
    ("2025-02-07", Kind.SPEED, "704.5z"),
    ("2018-07-13", Kind.TEAM_LIFE, "704.5t"),
    ("2022-04-29", Kind.TEAM_LIFE, "704.6a"),
    ("2009-07-11", Kind.TEAM_LIFE, "806.8a"),
    ("2007-07-13", Kind.TEAM_LIFE, "606.8a"),
    ("2009-07-11", Kind.TEAM_POISON, None),
    ("1999-04-23", Kind.EMPTY_LIBRARY, None),
]


@pytest.mark.parametrize(("edition", "kind", "number"), HISTORY)
def test_history(edition: str, kind: Kind, number: str | None) -> None:
    rules = EditionRules.for_document(Document(edition=edition))
    assert rules.numbers.get(kind) == number
    if CORPUS.is_dir():
        assert EditionRules.for_document(corpus(edition)).numbers.get(kind) == number


@pytest.mark.parametrize(
    ("edition", "mode"),
    [
        ("1999-04-23", LegendMode.OLDEST),
        ("2003-03-15", LegendMode.OLDEST),
        ("2004-10-01", LegendMode.ALL),
        ("2013-07-12", LegendMode.ALL),
        ("2013-07-13", LegendMode.PER_CONTROLLER),
        ("2025-02-07", LegendMode.PER_CONTROLLER),
    ],
)
def test_legend_mode(edition: str, mode: LegendMode) -> None:
    assert EditionRules.for_document(Document(edition=edition)).legend_mode is mode


def test_table_eras_are_in_order() -> None:
    dates = [since for since, _ in NUMBER_TABLE]
    assert dates == sorted(dates)


def test_numbers_come_from_the_document_when_it_has_the_list() -> None:
    # An unknown edition that letters its rules differently: the document wins over the table.
    doc = Document(
        edition="2024-01-01",
        rules={
            "704.5": Rule("704.5", "The state-based actions are as follows:"),
            "704.5a": Rule("704.5a", "If a player has 0 or less life, that player loses the game."),
            "704.5b": Rule("704.5b", "If a planeswalker has loyalty 0, it's put away."),
        },
    )
    rules = EditionRules.for_document(doc)
    assert rules.numbers == {Kind.PLAYER_LIFE: "704.5a", Kind.ZERO_LOYALTY: "704.5b"}
    board = BoardState.from_text(
        "players: [{name: A, life: 0}, B]\n"
        "objects: [{id: pw, controller: B, types: [planeswalker]}]\n",
        "b.yaml",
    )
    got = [(a.rule, a.action) for a in check_state_based_actions(board, doc)]
    assert got == [("704.5a", "loses"), ("704.5b", "put_into_graveyard")]


def test_a_hand_built_excerpt_falls_back_to_the_table_and_quotes_what_it_has() -> None:
    doc = Document(
        edition="2025-02-07",
        rules={"704.5g": Rule("704.5g", "Lethal damage text as stored.")},
    )
    rules = EditionRules.for_document(doc)
    assert rules.number(Kind.LETHAL_DAMAGE) == "704.5g"
    assert rules.number(Kind.LEGEND_RULE) == "704.5j"
    assert rules.text("704.5g") == "Lethal damage text as stored."
    assert rules.text("704.5j") == ""


def test_undated_document_uses_the_newest_rules() -> None:
    rules = EditionRules.for_document(Document(edition=None))
    assert rules.has(Kind.SPEED)
    assert rules.legend_mode is LegendMode.PER_CONTROLLER
