"""judge diff and judge history: pairing rules across editions, word diffs, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from index.diff import Change, diff_documents, history, match_documents, word_diff
from index.model import Document, Rule, UnknownRuleError
from index.store import EditionStore
from judge_cli.diff_commands import diff
from judge_cli.diff_commands import history as history_command

from .conftest import corpus_document, corpus_file


def _doc(edition: str, rules: dict[str, str]) -> Document:
    return Document(edition, {n: Rule(n, t) for n, t in rules.items()})


def _kinds(changes: list[Change]) -> list[tuple[str, str | None, str | None]]:
    return [(c.kind, c.old, c.new) for c in changes]


# --- small documents: one case per line ------------------------------------------------------

OLD = _doc(
    "2000-01-01",
    {
        "704": "State-Based Actions",
        "704.5": "The state-based actions are as follows:",
        "704.5a": "If a player has 0 or less life, he or she loses the game.",
        "704.5j": "If two or more planeswalkers share a planeswalker type, all are put into "
        "their owners' graveyards.",
        "704.5k": "If two or more legendary permanents with the same name are on the "
        "battlefield, all are put into their owners' graveyards. This is the legend rule.",
        "704.6": "See rule 704.5k for the legend rule.",
    },
)
NEW = _doc(
    "2001-01-01",
    {
        "704": "State-Based Actions",
        "704.5": "The state-based actions are as follows:",
        "704.5a": "If a player has 0 or less life, that player loses the game.",
        "704.5j": "If two or more legendary permanents with the same name are on the "
        "battlefield, all are put into their owners\u2019 graveyards. This is the legend rule.",
        "704.5k": "If a permanent is a brand new thing, it is sacrificed at once.",
        "704.6": "See rule 704.5j for the legend rule.",
    },
)


def test_small_diff_kinds() -> None:
    assert _kinds(diff_documents(OLD, NEW)) == [
        ("changed", "704.5a", "704.5a"),
        ("removed", "704.5j", None),
        ("moved", "704.5k", "704.5j"),
        ("added", None, "704.5k"),
    ]


def test_reference_renumbered_is_not_a_change() -> None:
    # 704.6 cites 704.5k, which became 704.5j: the text moved with the rule it cites.
    assert "704.6" not in {c.new for c in diff_documents(OLD, NEW)}


def test_ref_limits_the_diff() -> None:
    assert _kinds(diff_documents(OLD, NEW, "704.5j")) == [
        ("removed", "704.5j", None),
        ("moved", "704.5k", "704.5j"),
    ]
    with pytest.raises(UnknownRuleError):
        diff_documents(OLD, NEW, "999.1")


def _ops(old: str, new: str) -> list[tuple[str, str]]:
    return [(o.op, o.text) for o in word_diff(old, new)]


def test_word_diff() -> None:
    assert _ops("he or she loses", "that player loses") == [
        ("delete", "he or she"),
        ("insert", "that player"),
        ("equal", " loses"),
    ]
    assert _ops("the owner's hand", "the owner\u2019s hand") == [("equal", "the owner\u2019s hand")]
    assert _ops("a b", "a b c") == [("equal", "a b"), ("insert", " c")]


def test_history_small() -> None:
    events = history([NEW, OLD], "704.5j")
    assert [(e.edition, e.kind, e.number) for e in events] == [
        ("2000-01-01", "earliest", "704.5k"),
        ("2001-01-01", "moved", "704.5j"),
    ]
    gone = history([OLD, NEW], "704.5j", anchor="2000-01-01")
    assert [(e.edition, e.kind, e.number) for e in gone] == [
        ("2000-01-01", "earliest", "704.5j"),
        ("2001-01-01", "removed", "704.5j"),
    ]


# --- the real corpus -------------------------------------------------------------------------


def test_legend_rule_moved_2013_to_2018() -> None:
    old, new = corpus_document("20130713"), corpus_document("20180713")
    changes = {(c.kind, c.old, c.new) for c in diff_documents(old, new)}
    assert ("moved", "704.5k", "704.5j") in changes
    # 704.5j of 2013 was the planeswalker uniqueness rule, dropped in 2017.
    assert ("removed", "704.5j", None) in changes
    legend = next(c for c in diff_documents(old, new, "704.5j") if c.kind == "moved")
    assert legend.to_json()["old"] == "704.5k"
    assert "legend rule" in (legend.new_text or "")
    assert not legend.is_text_changed  # only the quotes turned curly


def test_state_based_effects_2007_onto_704_5_2009() -> None:
    old, new = corpus_document("20070713"), corpus_document("20090711")
    m = match_documents(old, new)
    letters = "abcdefghijkmn"
    assert {f"420.5{x}" for x in letters} <= set(m.forward)
    assert all(m.forward[f"420.5{x}"].startswith("704.5") for x in letters)
    assert m.forward["420.5"] == "704.5"
    assert m.forward["420.5e"] == "704.5k"  # the legend rule
    assert m.forward["420.5a"] == "704.5a"  # 0 or less life


def test_history_of_legend_rule_on_corpus() -> None:
    dates = ["20070713", "20090711", "20130713", "20180713", "20250207"]
    events = history([corpus_document(d) for d in dates], "704.5j")
    got = [(e.edition, e.kind, e.number) for e in events]
    assert got == [
        ("2007-07-13", "earliest", "420.5e"),
        ("2009-07-11", "moved", "704.5k"),
        ("2013-07-13", "changed", "704.5k"),
        ("2018-07-13", "moved", "704.5j"),
        ("2025-02-07", "changed", "704.5j"),
    ]
    wording = events[2]
    assert wording.previous_text is not None and "all are put" in wording.previous_text
    assert wording.text is not None and "that player chooses one" in wording.text


def test_whole_diff_is_consistent() -> None:
    old, new = corpus_document("20250207"), corpus_document("20251114")
    changes = diff_documents(old, new)
    olds = [c.old for c in changes if c.old]
    news = [c.new for c in changes if c.new]
    assert len(olds) == len(set(olds)) and len(news) == len(set(news))
    assert {c.kind for c in changes} <= {"added", "removed", "changed", "moved"}


# --- the CLI ---------------------------------------------------------------------------------


@pytest.fixture
def store_2013_2018(judge_home: Path) -> EditionStore:
    store = EditionStore.from_env()
    for date in ("20130713", "20180713"):
        path = corpus_file(date)
        store.add_bytes(path.read_bytes(), path.name)
    return store


def _cli() -> click.Group:
    group = click.Group("judge")
    group.add_command(diff)
    group.add_command(history_command)
    return group


def test_cli_diff_json(store_2013_2018: EditionStore) -> None:
    result = CliRunner().invoke(
        _cli(), ["diff", "704.5j", "--from", "2013-07-13", "--to", "2018-07-13", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["from"], data["to"]) == ("2013-07-13", "2018-07-13")
    assert [(c["kind"], c["old"], c["new"]) for c in data["changes"]] == [
        ("removed", "704.5j", None),
        ("moved", "704.5k", "704.5j"),
    ]
    assert set(data["changes"][0]) >= {"kind", "old", "new", "old_text", "new_text"}


def test_cli_diff_plain_marks_words(store_2013_2018: EditionStore) -> None:
    result = CliRunner().invoke(_cli(), ["diff", "704.5a", "--from", "2013"])
    assert result.exit_code == 0, result.output
    assert result.output == (
        "Changes to rule 704.5a from 2013-07-13 to 2018-07-13: 1 changed.\n"
        "\n"
        "changed 704.5a\n"
        "    If a player has 0 or less life, [-he or she-]{+that player+} loses the game.\n"
    )


def test_cli_history_json(store_2013_2018: EditionStore) -> None:
    result = CliRunner().invoke(_cli(), ["history", "704.5j", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["rule"] == "704.5j"
    assert [(e["edition"], e["kind"], e["number"]) for e in data["events"]] == [
        ("2013-07-13", "earliest", "704.5k"),
        ("2018-07-13", "moved", "704.5j"),
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["diff", "999.9", "--from", "2013"], "Error: no rule 999.9 in either"),
        (["diff", "--from", "1990-01-01"], "Error: edition 1990-01-01 is not stored"),
        (["history", "999.9"], "Error: no rule 999.9 in any stored edition"),
    ],
)
def test_cli_errors(store_2013_2018: EditionStore, args: list[str], message: str) -> None:
    result = CliRunner().invoke(_cli(), args)
    assert result.exit_code == 1
    assert message in result.output
    assert "Traceback" not in result.output
