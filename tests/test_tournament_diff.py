"""``judge diff --doc`` and ``judge history --doc``: tournament-document sections across editions.

Small documents made here pin each case (a renumbering, a reference that moved with it, a table
re-wrapped, a section rewritten under its title); the real MTR 2024-05-13 (PDF) → 2026-02-27
(text) diff is checked against a comparison made here without the matcher.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from index.tournament.diff import diff_sections, section_history
from index.tournament.lookup import UnknownSectionError
from index.tournament.model import DocSection, Part, TournamentDocument
from judge_cli.cli import cli

FIXTURES = Path(__file__).parent / "fixtures"


def _doc(edition: str, sections: list[tuple[str, str | None, str]]) -> TournamentDocument:
    doc = TournamentDocument("mtr", edition, "Magic: The Gathering Tournament Rules")
    for number, title, text in sections:
        parent = number.split(".")[0] if "." in number else None
        doc.sections.append(DocSection(number, title, [Part(None, text)], parent=parent))
    return doc


def _kinds(changes: list) -> list[tuple[str, str | None, str | None, bool]]:  # type: ignore[type-arg]
    return [(c.kind, c.old, c.new, c.is_text_changed) for c in changes]


OLD = _doc(
    "2030-01-01",
    [
        ("2", "Tournament Mechanics", "How a tournament runs."),
        ("2.1", "Match Structure", "A match is a series of games (see section 2.2)."),
        ("2.2", "Conceding", "Players may concede a match at any time before it ends."),
        ("2.3", "Time Limits", "Rounds last 50 minutes. Appendix B lists the others. See IPG 2.2."),
        ("Appendix B", "Time Limits", "Round Minutes\nConstructed 50\nLimited 50"),
        ("Appendix C", "Changes", "1.1: A first change was made to the document."),
    ],
)
NEW = _doc(
    "2031-01-01",
    [
        ("2", "Tournament Mechanics", "How a tournament runs."),
        ("2.1", "Match Structure", "A match is a series of games (see section 2.3)."),
        ("2.2", "Intentional Draws", "Players may agree to draw a match before it ends."),
        ("2.3", "Conceding", "Players may concede a match at any time before it ends."),
        ("2.4", "Time Limits", "Rounds last 50 minutes. Appendix B lists the others. See IPG 2.2."),
        ("Appendix B", "Time Limits", "Round\nMinutes Constructed\n50 Limited 50"),
        ("Appendix C", "Changes", "2.2: Intentional draws have a section of their own now."),
    ],
)


def test_a_renumbering_is_moves_and_references_follow_it() -> None:
    assert _kinds(diff_sections(OLD, NEW)) == [
        # 2.1's reference became "2.3" because 2.2 became 2.3: not a change.
        ("added", None, "2.2", False),
        ("moved", "2.2", "2.3", False),
        # "IPG 2.2" names another document: untouched by the MTR's renumbering.
        ("moved", "2.3", "2.4", False),
        # Appendix B only re-wraps its table; Appendix C is rewritten under its title.
        ("changed", "Appendix C", "Appendix C", True),
    ]


@pytest.mark.parametrize(
    ("old_text", "new_text", "changed"),
    [
        ("Cards must be “authentic”.", 'Cards must be "authentic".', False),  # quotes folded
        ("A  table\nrow   one", "A table row one", False),  # whitespace alone
        ("Rounds last 50 minutes.", "Rounds last 55 minutes.", True),
    ],
)
def test_what_counts_as_a_change(old_text: str, new_text: str, changed: bool) -> None:
    old = _doc("2030-01-01", [("3.1", "Cards", old_text)])
    new = _doc("2031-01-01", [("3.1", "Cards", new_text)])
    assert _kinds(diff_sections(old, new)) == ([("changed", "3.1", "3.1", True)] if changed else [])


def test_the_same_words_citing_a_renumbered_section_are_a_change() -> None:
    # Old 2.2 (Conceding) is 2.3 now; a text still saying "section 2.2" now means another one.
    old = _doc("2030-01-01", [*(s for s in _rows(OLD) if s[0] != "2.1"), ("2.9", "X", "See 2.2.")])
    new = _doc("2031-01-01", [*(s for s in _rows(NEW) if s[0] != "2.1"), ("2.9", "X", "See 2.2.")])
    assert ("changed", "2.9", "2.9", True) in _kinds(diff_sections(old, new))


def _rows(doc: TournamentDocument) -> list[tuple[str, str | None, str]]:
    return [(s.number, s.title, s.text) for s in doc.sections]


def test_a_title_change_is_a_change() -> None:
    old = _doc("2030-01-01", [("3.1", "Cards", "Text that stays.")])
    new = _doc("2031-01-01", [("3.1", "Authorized Cards", "Text that stays.")])
    (change,) = diff_sections(old, new)
    assert (change.kind, change.to_json()["old_title"], change.to_json()["new_title"]) == (
        "changed",
        "Cards",
        "Authorized Cards",
    )


def test_a_section_limits_the_diff() -> None:
    assert _kinds(diff_sections(OLD, NEW, "2.2")) == [
        ("added", None, "2.2", False),
        ("moved", "2.2", "2.3", False),
    ]
    # A whole section: 2 and everything under it, in either edition.
    assert [c.new for c in diff_sections(OLD, NEW, "2")] == ["2.2", "2.3", "2.4"]
    assert _kinds(diff_sections(OLD, NEW, "appendix c")) == [
        ("changed", "Appendix C", "Appendix C", True)
    ]
    assert [c.new for c in diff_sections(OLD, NEW, "conceding")] == ["2.3"]  # by its title
    with pytest.raises(UnknownSectionError) as caught:
        diff_sections(OLD, NEW, "2.9")
    assert (caught.value.wanted, caught.value.nearest) == ("2.9", ["2.2", "2.3", "2.4"])


def test_history_follows_a_section_across_renumbering() -> None:
    newest = _doc(
        "2032-01-01",
        [*_rows(NEW)[:3], ("2.3", "Conceding", "Players may concede a match before it ends.")],
    )
    events = section_history([NEW, OLD, newest], "2.3")
    assert [(e.edition, e.kind, e.number, e.previous) for e in events] == [
        ("2030-01-01", "earliest", "2.2", None),
        ("2031-01-01", "moved", "2.3", "2.2"),
        ("2032-01-01", "changed", "2.3", "2.3"),
    ]
    assert events[-1].to_json()["title"] == "Conceding"
    # Anchored in the oldest edition, 2.3 is Time Limits, which 2032 no longer has.
    events = section_history([NEW, OLD, newest], "2.3", anchor="2030-01-01")
    assert [(e.edition, e.kind, e.number) for e in events] == [
        ("2030-01-01", "earliest", "2.3"),
        ("2031-01-01", "moved", "2.4"),
        ("2032-01-01", "removed", "2.4"),
    ]
    with pytest.raises(UnknownSectionError) as caught:
        section_history([OLD, NEW], "7.7")
    assert caught.value.edition == "2031-01-01"


# --- the command ------------------------------------------------------------------------------

MINI_MTR = FIXTURES / "mini-mtr.txt"


def _newer_mtr(tmp_path: Path) -> Path:
    """The mini MTR a year on: a new 2.2 (the old 2.2 is 2.3, and 2.1 cites it so), a longer
    minimum match time."""
    text = MINI_MTR.read_text(encoding="utf-8")
    text = text.replace("Effective June 2, 2030", "Effective June 2, 2031")
    text = text.replace("(see section 2.2)", "(see section 2.3)")
    text = text.replace(
        "2.2 Conceding or Intentionally Drawing Games\nPlayers may",
        "2.2 Byes\nA player with a bye wins the match.\n"
        "2.3 Conceding or Intentionally Drawing Games\nPlayers may",
    )
    text = text.replace("is 40 minutes", "is 50 minutes")
    path = tmp_path / "mini-mtr-2031.txt"
    path.write_text(text, encoding="utf-8")
    return path


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


@pytest.fixture
def two_mtrs(judge_home: Path, tmp_path: Path) -> Path:
    code, out = run("index", "build", str(MINI_MTR), str(_newer_mtr(tmp_path)))
    assert code == 0, out
    return judge_home


def test_diff_doc_text(two_mtrs: Path) -> None:
    code, out = run("diff", "--doc", "mtr")
    assert (code, out) == (
        0,
        "Changes to the MTR from 2030-06-02 to 2031-06-02: 1 changed, 1 moved, 1 added.\n"
        "\n"
        "added MTR 2.2 Byes\n"
        "    A player with a bye wins the match.\n"
        "\n"
        "moved 2.2 → MTR 2.3 Conceding or Intentionally Drawing Games\n"
        "\n"
        "changed MTR Appendix B Time Limits\n"
        "    The minimum time for a match is [-40-]{+50+} minutes.\n",
    )
    code, out = run("diff", "--doc", "mtr", "2.1")
    assert (code, out) == (0, "No changes to MTR section 2.1 from 2030-06-02 to 2031-06-02.\n")


def test_diff_doc_json_has_the_cr_keys_and_the_document(two_mtrs: Path) -> None:
    code, out = run("diff", "--doc", "mtr", "2", "--from", "2030", "--json")
    record = json.loads(out)
    assert list(record) == ["document", "from", "to", "changes", "section"]
    assert (record["document"], record["from"], record["to"]) == ("mtr", "2030-06-02", "2031-06-02")
    moved = record["changes"][1]
    assert list(moved) == [
        "kind",
        "old",
        "new",
        "old_text",
        "new_text",
        "text_changed",
        "old_examples",
        "new_examples",
        "old_title",
        "new_title",
    ]
    assert (moved["kind"], moved["old"], moved["new"], moved["text_changed"]) == (
        "moved",
        "2.2",
        "2.3",
        False,
    )


def test_history_doc(two_mtrs: Path) -> None:
    code, out = run("history", "--doc", "mtr", "2.3")
    assert (code, out) == (
        0,
        "History of MTR section 2.3 across 2 stored editions:\n"
        "\n"
        "2030-06-02  MTR 2.2 Conceding or Intentionally Drawing Games (the oldest edition stored)\n"
        "\n"
        "2031-06-02  moved 2.2 → MTR 2.3 Conceding or Intentionally Drawing Games\n",
    )
    code, out = run("history", "--doc", "mtr", "2.1", "--json")
    record = json.loads(out)
    assert [list(record), record["document"], record["rule"]] == [
        ["document", "rule", "events", "section", "editions"],
        "mtr",
        "2.1",
    ]
    assert [(e["edition"], e["kind"], e["number"]) for e in record["events"]] == [
        ("2030-06-02", "earliest", "2.1")
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["diff", "--doc", "mtr", "7.7"],
            "Error: no section 7.7 in the MTR 2030-06-02 or 2031-06-02. Nearest: 2.3, 4, 4.3.\n",
        ),
        (
            ["diff", "--doc", "mtr", "--to", "2030-06-02"],
            "Error: no MTR older than 2030-06-02 is stored: give --from, or store an older one"
            " with `judge index build FILE`.\n",
        ),
        (
            ["diff", "--doc", "mtr", "--from", "2029"],
            "Error: MTR 2029 is not stored (stored: 2030-06-02, 2031-06-02). Run `judge editions`"
            " to list them.\n",
        ),
        (
            ["history", "--doc", "ipg", "2.1"],
            "Error: no IPG is stored. Download the PDF from https://wpn.wizards.com/en/"
            "rules-documents and run `judge index build FILE`.\n",
        ),
        (
            ["history", "--doc", "mtr", "2.3", "--edition", "2030-06-02"],
            "Error: no section 2.3 in the MTR 2030-06-02. Nearest: 2, 2.1, 2.2.\n",
        ),
    ],
)
def test_errors(two_mtrs: Path, args: list[str], message: str) -> None:
    assert run(*args) == (1, message)


def test_doc_must_be_a_document(judge_home: Path) -> None:
    code, out = run("diff", "--doc", "cr")
    assert code == 2
    assert "'cr' is not one of 'mtr', 'ipg', 'jar', 'dmtr', 'dipg'" in out


# --- the real MTR: a PDF and a text copy ------------------------------------------------------


def _flat(text: str | None) -> str:
    return " ".join((text or "").split())


def test_real_mtr_diff_lists_the_changed_sections_and_nothing_from_the_layout() -> None:
    from .test_tournament_documents import document

    old, new = document("mtr-20240513.pdf"), document("mtr-20260227.txt")
    before = {s.number: (s.title, s.text) for s in old.sections}
    after = {s.number: (s.title, s.text) for s in new.sections}
    # The comparison made here: both editions number the same sections; a section differs
    # when its title or its words (whitespace ignored) do.
    assert before.keys() == after.keys()
    raw = [n for n in before if before[n] != after[n]]
    layout_only = [
        n for n in raw if before[n][0] == after[n][0] and _flat(before[n][1]) == _flat(after[n][1])
    ]
    different = [n for n in raw if n not in layout_only]
    assert layout_only == ["Appendix C", "Appendix E"]  # tables the PDF breaks otherwise
    assert len(different) == 24
    changes = diff_sections(old, new)
    assert [(c.kind, c.old, c.new) for c in changes] == [("changed", n, n) for n in different]
    assert all(c.is_text_changed for c in changes)


def test_changed_paragraphs_are_shown_and_the_rest_elided() -> None:
    from judge_cli.docs_diff import _changed_paragraphs

    old = "One stays.\nTwo stays.\nA table row\nthat wraps here.\nThree changes a little."
    new = "One stays.\nTwo stays.\nA table\nrow that wraps\nhere.\nThree changes a lot."
    # Only a gap between two changed paragraphs is marked.
    assert _changed_paragraphs(old, new, color=False) == ["    Three changes a [-little-]{+lot+}."]
    assert _changed_paragraphs("A.\nB.\nC.", "X.\nB.\nY.", color=False) == [
        "    [-A-]{+X+}.",
        "    …",
        "    [-C-]{+Y+}.",
    ]
    # A rewrite too long to align word by word reads as its paragraphs removed and added.
    long_old = " ".join(f"old{i}" for i in range(2000))
    long_new = " ".join(f"new{i}" for i in range(2000))
    assert _changed_paragraphs(f"Kept.\n{long_old}", f"Kept.\n{long_new}", color=False) == [
        f"    [-{long_old}-]",
        f"    {{+{long_new}+}}",
    ]
