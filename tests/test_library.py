"""The library without click: what the README's examples do, through the public API only."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from glossary.lookup import UnknownTermError
from index import Edition, open_edition
from index.edition import NotInSampleError
from index.model import UnknownRuleError
from index.search import build_search_index
from index.store import AmbiguousEditionError, EditionStore, NoEditionError
from judge_cli.scenario import load_scenario_path, replay

from .conftest import corpus_file

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EditionStore]:
    store = EditionStore(tmp_path_factory.mktemp("home"))
    path = corpus_file("20260116")
    store.add_bytes(path.read_bytes(), path.name, extra=build_search_index)
    yield store


def test_rule_with_its_cross_references(store: EditionStore) -> None:
    ed = open_edition(store=store)
    assert isinstance(ed, Edition) and ed.date == "2026-01-16" and not ed.is_sample
    (legend,) = ed.rules("704.5j")
    assert legend.text.endswith("This is called the “legend rule.”")
    assert ed.parent("704.5j") == "704.5"
    assert ed.cited_by("704.5j") == ["205.4d", "306.4", "glossary:Legend Rule"]
    assert ed.cited_by("704.5a") == ["704.7"]
    assert [r.number for r in ed.rules("601.2a-h")] == [f"601.2{c}" for c in "abcdefgh"]
    assert [r.number for r in ed.subrules("704.5")][:3] == ["704.5a", "704.5b", "704.5c"]


def test_a_lookup_reads_only_the_rules_it_needs(store: EditionStore) -> None:
    ed = open_edition("2026-01-16", store=store)
    ed.rules("704.5j")
    assert ed._document is None  # the whole edition was not read for one rule
    assert ed.rule("704.5a").text == "If a player has 0 or less life, that player loses the game."
    with pytest.raises(UnknownRuleError) as caught:
        ed.rules("704.5zz")
    assert caught.value.nearest and caught.value.where == "the 2026-01-16 edition"


def test_a_definition_reads_only_the_glossary(store: EditionStore) -> None:
    ed = open_edition("2026-01-16", store=store)
    match = ed.define("legend rule")
    assert ed._document is None  # the whole edition was not read for one term
    assert ed.cited_by(match.entry.ref_id) == ed.load().cited_by(match.entry.ref_id)
    assert [r.number for r in ed.known_rules(["704.5j", "999.9z", "704.5a"])] == [
        "704.5j",
        "704.5a",
    ]


def _definition(ed: Edition, term: str) -> tuple[object, ...]:
    try:
        match = ed.define(term)
    except UnknownTermError as exc:
        return ("unknown", exc.suggestions)
    entry = match.entry
    rules = [(r.number, r.text) for r in ed.known_rules(entry.see)]
    return (entry.term, entry.definition, entry.see, match.how, ed.cited_by(entry.ref_id), rules)


def test_a_definition_from_the_glossary_alone_is_the_whole_edition_s(
    store: EditionStore,
) -> None:
    whole = open_edition("2026-01-16", store=store).load()
    asked = [e.term for e in whole.document.glossary]
    asked += ["first-strike", "lethal damages", "deathtuch", "life", "xyzzy", "Legend Rules"]
    asked += [term.upper()[:-1] for term in asked[::40]]  # misspelt: a letter short
    alone = open_edition("2026-01-16", store=store)
    for term in asked:
        assert _definition(alone, term) == _definition(whole, term), term
    assert alone._document is None


def test_define(store: EditionStore) -> None:
    match = open_edition(store=store).define("legend rules")
    assert (match.entry.term, match.how, match.entry.see) == ("Legend Rule", "plural", ["704.5j"])
    with pytest.raises(UnknownTermError) as caught:
        open_edition(store=store).define("xyzzy")
    assert caught.value.edition == "2026-01-16"


def test_search(store: EditionStore) -> None:
    found = open_edition(store=store).search("legend rule", limit=3)
    assert found.edition == "2026-01-16"
    assert [r.id for r in found.results] == ["704.5j", "205.4d", "306.4"]


def test_check(store: EditionStore) -> None:
    ed = open_edition(store=store)
    board = load_scenario_path(str(ROOT / "examples" / "legend-rule.yaml")).board
    result = replay(board, ed)
    actions = [(a.rule, a.action, a.object) for check in result.checks for a in check]
    assert actions == [
        ("704.5g", "destroyed", "bears"),
        ("704.5j", "put_into_graveyard", "isamaru-1"),
    ]
    assert result.outcome.losers == [] and not result.outcome.draw


def test_names_of_editions(store: EditionStore, tmp_path: Path) -> None:
    with pytest.raises(NoEditionError):
        open_edition("1999-04-23", store=store)
    sample = open_edition(store=EditionStore(tmp_path / "empty"))
    assert sample.is_sample and sample.label == "sample" and sample.date is None
    with pytest.raises(NotInSampleError):
        sample.rules("704.5j")
    assert sample.define("mana burn").entry.term == "Mana Burn"
    assert open_edition("sample", store=store).is_sample
    assert open_edition("2026", store=store).date == "2026-01-16"


def test_a_partial_date_naming_two_editions_is_ambiguous(tmp_path: Path) -> None:
    from index.model import Document, Rule

    store = EditionStore(tmp_path)
    for date in ("2025-02-07", "2025-11-14"):
        store.add_document(Document(edition=date, rules={"1": Rule("1", "Game")}), "t", "0" * 64)
    with pytest.raises(AmbiguousEditionError) as caught:
        open_edition("2025", store=store)
    assert caught.value.matches == ["2025-02-07", "2025-11-14"]


def test_the_readme_example_prints_what_its_comments_say(store: EditionStore) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    code = readme.split("```python\n", 1)[1].split("```", 1)[0]
    env = {**os.environ, "JUDGE_HOME": str(store.root), "NO_COLOR": "1"}
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert run.returncode == 0, run.stderr
    printed = run.stdout.splitlines()
    said = [line.split("#", 1)[1].strip() for line in code.splitlines() if "print(" in line]
    assert len(printed) == len(said)
    for out, comment in zip(printed, said, strict=True):
        assert out.startswith(comment.removesuffix("…").rstrip()), (out, comment)
