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
        (3, 5, "rule 613", ""),
        (3, 18, "999.9z", ""),
    ]


def _context(text: str, wanted: str) -> tuple[str, str]:
    (c,) = [c for c in find_citations(text) if c.text == wanted]
    return c.context_kind, c.context


@pytest.mark.parametrize(
    ("text", "cited", "kind", "words"),
    [
        ("See rule 702.16, “Protection.”", "702.16", "title", "Protection"),
        ('(see rule 709, "Split Cards")', "rule 709", "title", "Split Cards"),
        ("Apply 704.5k (legend rule).", "704.5k", "parenthesis", "legend rule"),
        ("(rule 704.5k, the legend rule)", "704.5k", "appositive", "the legend rule"),
        ("Deathtouch (702.2b) matters.", "702.2b", "clause", "Deathtouch"),
        (
            "A mana ability: it doesn’t require a target (see rule 115.6), it triggers (see "
            "rule 605.1a).",
            "605.1a",
            "clause",
            "it triggers",
        ),
        (
            "You don't lose the game at 0 life. Strange. (704.5a)",
            "704.5a",
            "clause",
            "You don't lose the game at 0 life. Strange.",
        ),
        (
            "Neither is controlled by any player. See rule 108.4.",
            "108.4",
            "sentence",
            "Neither is controlled by any player.",
        ),
        (
            "Rule 704.5a says a player with 0 or less life loses.",
            "704.5a",
            "words",
            "says a player with 0 or less life loses",
        ),
        ("See rule 613 and 999.9z.", "rule 613", "none", ""),
        ("This follows rules 712.9–10 and 712.18.", "712.18", "none", ""),
    ],
)
def test_context_as_people_write_it(text: str, cited: str, kind: str, words: str) -> None:
    assert _context(text, cited) == (kind, words)


def test_context_from_a_file_has_no_control_characters() -> None:
    (c,) = find_citations("704.5k (legend\x1b[2J \u202erule\x07)")
    assert c.context == "legend 2J rule"  # ESC, U+202E and BEL are gone


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
        "1 citation checked against 2025-02-07; 1 to look at.\n"
    )


def test_cli_errors(store_2013_2025: EditionStore, tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(_cli(), ["cite-check", str(tmp_path / "nope.txt")])
    assert missing.exit_code == 2 and "Error:" in missing.output
    unknown = runner.invoke(_cli(), ["cite-check", "-", "--written-for", "1990"], input="704.5k")
    assert unknown.exit_code == 1
    assert "Error: edition 1990 is not stored" in unknown.output


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 16: right citations in plain prose are not flagged …
        ("Rule 704.5a says a player with 0 or less life loses.", ("704.5a", "ok", "")),
        ("See rule 100.1 for basics.", ("100.1", "ok", "")),
        ("You don't lose the game if you're at or below 0 life. (704.5a)", ("704.5a", "ok", "")),
        # … and the legend rule cited by its 2013 number in a 2025 text is.
        ("(rule 704.5k, the legend rule)", ("704.5k", "suspicious", "704.5j")),
        ("See rule 609, “Resolving Spells and Abilities.”", ("rule 609", "suspicious", "608")),
        # The words describe an exception to the rule cited, not the rule.
        ("This is an exception to rule 613.7m.", ("613.7m", "ok", "")),
    ],
)
def test_suspicious_on_real_writing_2025(text: str, expected: tuple[str, str, str]) -> None:
    (found,) = _check(text, "20250207")
    assert found == expected


def test_the_cr_own_stale_citations_are_found() -> None:
    # Real errors of the 2026 CR (see benchmarks/citecheck_quality.py, CR_ERRATA).
    doc = corpus_document("20260116")
    lines = [doc.rules["201.4e"].text, doc.rules["607.2m"].text]
    lines += [f"{g.term}: {g.definition}" for g in doc.glossary if g.term == "Endure"]
    checks = check_citations(find_citations("\n".join(lines)), doc)
    assert [(c.citation.text, c.status, c.suggest) for c in checks] == [
        ("rule 713", "suspicious", "712.19"),
        ("614.12b", "suspicious", "614.12c"),
        ("702.62", "suspicious", "701.63"),
    ]


def _mini(cr_excerpt: Path, text: str) -> list[tuple[str, str, str]]:
    from index.reader import read_cr_path

    checks = check_citations(find_citations(text), read_cr_path(cr_excerpt))
    return [(c.citation.text, c.status, c.suggest or "") for c in checks]


def test_neighbouring_rule_is_suspicious(cr_excerpt: Path) -> None:
    text = (
        "Damage dealt by a source with deathtouch (704.5g).\n"
        "Damage dealt by a source with deathtouch (704.5h).\n"
    )
    assert _mini(cr_excerpt, text) == [("704.5g", "suspicious", "704.5h"), ("704.5h", "ok", "")]


def test_words_for_any_number_of_one_sentence(cr_excerpt: Path) -> None:
    # The words fit 704.5a and 704.5c together; neither is suspicious.
    text = "A player with 0 or less life or ten or more poison counters loses (704.5a, 704.5c)."
    assert _mini(cr_excerpt, text) == [("704.5a", "ok", ""), ("704.5c", "ok", "")]


def test_many_missing_citations_are_checked_once_each(cr_excerpt: Path) -> None:
    text = "\n".join(f"See 704.9{chr(97 + i % 20)} and 999.{i % 7}." for i in range(2000))
    results = _mini(cr_excerpt, text)
    assert len(results) == 4000 and {r[1] for r in results} == {"missing"}


def _mini_store(judge_home: Path, cr_excerpt: Path) -> None:
    EditionStore.from_env().add_bytes(cr_excerpt.read_bytes(), cr_excerpt.name)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "cp1252", "utf-8-sig"])
def test_cli_reads_files_as_index_build_does(
    judge_home: Path, cr_excerpt: Path, tmp_path: Path, encoding: str
) -> None:
    _mini_store(judge_home, cr_excerpt)
    ruling = tmp_path / "ruling.txt"
    ruling.write_bytes("Apply 704.5k (“legend rule”).\n".encode(encoding))
    result = CliRunner().invoke(_cli(), ["cite-check", str(ruling), "--json"])
    assert result.exit_code == 0, result.output
    (citation,) = json.loads(result.output)["citations"]
    assert (citation["text"], citation["status"], citation["suggest"]) == (
        "704.5k",
        "suspicious",
        "704.5j",
    )


def test_cli_standard_input_is_bytes_too(judge_home: Path, cr_excerpt: Path) -> None:
    _mini_store(judge_home, cr_excerpt)
    data = "Apply 704.5j (legend rule).\n".encode("utf-16")
    result = CliRunner().invoke(_cli(), ["cite-check", "-"], input=data)
    assert result.exit_code == 0, result.output
    assert result.output == (
        "<stdin>:1:7: 704.5j: ok\n1 citation checked against 2030-03-01; 0 to look at.\n"
    )


def test_cli_refuses_binary(judge_home: Path, cr_excerpt: Path, tmp_path: Path) -> None:
    _mini_store(judge_home, cr_excerpt)
    blob = tmp_path / "image.png"
    blob.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    result = CliRunner().invoke(_cli(), ["cite-check", str(blob)])
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {blob}: this is a binary file, not text")
    noisy = tmp_path / "noise.bin"
    noisy.write_bytes(bytes(b for b in range(1, 256) if b != 10) * 40)
    result = CliRunner().invoke(_cli(), ["cite-check", str(noisy)])
    assert result.exit_code == 1 and "control bytes" in result.output


def test_cli_refuses_a_runaway_input(judge_home: Path, cr_excerpt: Path) -> None:
    from index.decode import MAX_RULES_BYTES

    _mini_store(judge_home, cr_excerpt)
    result = CliRunner().invoke(_cli(), ["cite-check", "-"], input=b"7" * (MAX_RULES_BYTES + 1))
    assert result.exit_code == 1
    assert result.output == (
        "Error: <stdin>: it is larger than 16 MiB, the most a rules file may be. "
        "Check a smaller text.\n"
    )


def test_cli_note_has_no_control_characters(
    judge_home: Path, cr_excerpt: Path, tmp_path: Path
) -> None:
    _mini_store(judge_home, cr_excerpt)
    ruling = tmp_path / "ruling.txt"
    ruling.write_text("Apply 704.5k (legend\x1b]52;c;ZXZpbA==\x07 rule).\n", encoding="utf-8")
    result = CliRunner().invoke(_cli(), ["cite-check", str(ruling)])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
