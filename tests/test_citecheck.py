"""judge cite-check: finding citations in text and checking them against an edition."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from index.citecheck import check_citations, find_citations
from index.store import EditionStore
from judge_cli.diff_commands import cite_check

from .conftest import corpus_document, corpus_file

RULING = "A ruling.\nWhen both stay, apply 704.5k (legend rule).\nSee rule 613 and 999.9z.\n"


def test_find_citations_lines_and_context() -> None:
    found = [(c.line, c.column, c.text, c.context) for c in find_citations(RULING)]
    assert found == [
        (2, 23, "704.5k", "legend rule"),
        (3, 5, "rule 613", "See and"),
        (3, 18, "999.9z", "and"),
    ]


def test_context_of_parenthesised_citation() -> None:
    (c,) = find_citations("Deathtouch (702.2b) matters.")
    assert c.context == "Deathtouch"


def _check(text: str, edition: str, written_for: str | None = None) -> list[tuple[str, ...]]:
    then = corpus_document(written_for) if written_for else None
    checks = check_citations(find_citations(text), corpus_document(edition), then)
    return [(c.citation.text, c.status, c.suggest or "") for c in checks]


def test_written_for_2013_checked_against_2025() -> None:
    assert _check(RULING, "20250207", "20130713") == [
        ("704.5k", "moved", "704.5j"),
        ("rule 613", "ok", ""),
        ("999.9z", "missing", ""),
    ]


def test_reworded_citation_is_changed() -> None:
    assert _check("per 704.5a", "20250207", "20130713") == [("704.5a", "changed", "704.5a")]


def test_without_written_for_suspicious() -> None:
    assert _check(RULING, "20250207") == [
        ("704.5k", "suspicious", "704.5j"),
        ("rule 613", "ok", ""),
        ("999.9z", "missing", ""),
    ]


def test_fitting_context_is_ok() -> None:
    text = "The legend rule (704.5j) applies. Trample: 702.19b (trample)."
    assert _check(text, "20250207") == [("704.5j", "ok", ""), ("702.19b", "ok", "")]


@pytest.fixture
def store_2013_2025(judge_home: Path) -> EditionStore:
    store = EditionStore.from_env()
    for date in ("20130713", "20250207"):
        path = corpus_file(date)
        store.add_bytes(path.read_bytes(), path.name)
    return store


def _cli() -> click.Group:
    group = click.Group("judge")
    group.add_command(cite_check)
    return group


def test_cli_json_from_stdin(store_2013_2025: EditionStore) -> None:
    result = CliRunner().invoke(
        _cli(), ["cite-check", "-", "--written-for", "2013-07-13", "--json"], input=RULING
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["edition"] == "2025-02-07"
    first = data["citations"][0]
    assert {k: first[k] for k in ("line", "text", "status", "suggest")} == {
        "line": 2,
        "text": "704.5k",
        "status": "moved",
        "suggest": "704.5j",
    }


def test_cli_plain_file(store_2013_2025: EditionStore, tmp_path: Path) -> None:
    ruling = tmp_path / "ruling.txt"
    ruling.write_text("Apply 704.5k (legend rule).\n", encoding="utf-8")
    result = CliRunner().invoke(_cli(), ["cite-check", str(ruling)])
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"{ruling}:1:7: 704.5k: suspicious: “legend rule” fits 704.5j better than 704.5k\n"
        "1 citations checked against 2025-02-07; 1 to look at.\n"
    )


def test_cli_errors(store_2013_2025: EditionStore, tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(_cli(), ["cite-check", str(tmp_path / "nope.txt")])
    assert missing.exit_code == 2 and "Error:" in missing.output
    unknown = runner.invoke(_cli(), ["cite-check", "-", "--written-for", "1990"], input="704.5k")
    assert unknown.exit_code == 1
    assert "Error: edition 1990 is not stored" in unknown.output
