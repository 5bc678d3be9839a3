"""``judge mtr``, ``ipg``, ``jar``, and documents in ``index build`` and ``editions``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge_cli.cli import cli

from .conftest import tree_digest

FIXTURES = Path(__file__).parent / "fixtures"
MINI = [FIXTURES / n for n in ("mini-ipg.txt", "mini-mtr.txt", "mini-jar.txt", "mini-cr.txt")]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


@pytest.fixture
def stocked(judge_home: Path) -> Path:
    code, out = run("index", "build", *map(str, MINI))
    assert code == 0, out
    return judge_home


def test_index_build_names_each_document(judge_home: Path) -> None:
    code, out = run("index", "build", *map(str, MINI))
    assert code == 0
    assert out == (
        "Stored Magic Infraction Procedure Guide 2030-05-01: 9 sections.\n"
        "Stored Magic: The Gathering Tournament Rules 2030-06-02: 9 sections.\n"
        "Stored Judging at Regular Rules Enforcement Level 2030-07-03: 3 sections.\n"
        "Stored edition 2030-03-01: 37 rules, 5 glossary entries.\n"
    )
    code, out = run("index", "build", "--json", str(MINI[1]))
    assert json.loads(out) == [
        {
            "kind": "document",
            "file": str(MINI[1]),
            "document": "mtr",
            "edition": "2030-06-02",
            "title": "Magic: The Gathering Tournament Rules",
            "printed_title": "MAGIC: THE GATHERING® TOURNAMENT RULES",
            "sections": 9,
            "problems": 0,
            "problem_lines": [],
            "dangling": [],
        }
    ]


def test_editions_lists_documents_after_the_cr(stocked: Path) -> None:
    code, out = run("editions")
    assert code == 0
    assert out == (
        "2030-03-01     37 rules     5 glossary entries  mini-cr.txt  (newest)\n"
        "MTR         2030-06-02     9 sections  mini-mtr.txt  (newest)\n"
        "IPG         2030-05-01     9 sections  mini-ipg.txt  (newest)\n"
        "JAR         2030-07-03     3 sections  mini-jar.txt  (newest)\n"
    )
    code, out = run("editions", "--json")
    records = json.loads(out)
    assert {"edition", "rules", "glossary", "source"} <= set(records[0])  # the CR, unchanged
    assert [(r["document"], r["edition"]) for r in records] == [
        ("cr", "2030-03-01"),
        ("mtr", "2030-06-02"),
        ("ipg", "2030-05-01"),
        ("jar", "2030-07-03"),
    ]
    assert set(records[2]) == {"document", "edition", "title", "sections", "source", "sha256"}


def test_editions_with_only_documents(judge_home: Path) -> None:
    run("index", "build", str(MINI[2]))
    assert run("editions") == (0, "JAR         2030-07-03     3 sections  mini-jar.txt  (newest)\n")


def test_index_remove_doc(stocked: Path) -> None:
    assert run("index", "remove", "--doc", "ipg", "2030-05-01") == (
        0,
        "Removed the IPG 2030-05-01.\n",
    )
    code, out = run("editions")
    assert "IPG" not in out and "2030-03-01" in out and "MTR" in out
    assert run("index", "remove", "--doc", "ipg", "2030-05-01") == (
        1,
        "Error: IPG 2030-05-01 is not stored (stored: none). Run `judge editions` to list them.\n",
    )
    # The CR edition of that name is another thing: --doc removes only the document's.
    assert run("index", "remove", "--doc", "mtr", "2030-03-01")[0] == 1
    assert "2030-03-01" in run("editions")[1]


def test_index_remove_doc_takes_only_stored_names(stocked: Path) -> None:
    (stocked / "documents" / "mtr" / "some" / "folder").mkdir(parents=True)
    before = tree_digest(stocked)
    for name in ("some/folder", "some", "/etc", "2030-06-02/../../ipg", "..", ".", "", "CURRENT"):
        code, out = run("index", "remove", "--doc", "mtr", name)
        assert code == 1, name
        assert "is not stored (stored: 2030-06-02)" in out, name
    assert tree_digest(stocked) == before
    assert not list((stocked / "documents" / "mtr").glob(".trash-*"))
    code, out = run("index", "remove", "--doc", "../editions", "2030-03-01")
    assert code == 2 and "is not one of" in out


def test_index_remove_doc_removes_a_damaged_edition(stocked: Path) -> None:
    folder = stocked / "documents" / "jar" / "2030-07-03"
    (folder / "CURRENT").write_text("b-gone\n", encoding="utf-8")  # names no build
    assert run("editions")[1].endswith(
        "JAR         2030-07-03  damaged: no complete build. Rebuild it with `judge index build"
        " FILE`, or remove it with `judge index remove --doc jar 2030-07-03`.\n"
    )
    assert run("index", "remove", "--doc", "jar", "2030-07-03") == (
        0,
        "Removed the JAR 2030-07-03.\n",
    )
    assert not folder.exists()


IPG_21 = """\
IPG 2.1 Game Play Error — Missed Trigger

Penalty: No Penalty

Definition

A triggered ability triggers, but its controller does not show that they noticed it before it \
would first have affected the game in a visible way.

Examples

A. A player forgets the upkeep trigger of a creature they control and moves to their draw step.

B. A player forgets a trigger whose effect is detrimental to them.

Philosophy

Players should not be harshly penalized when forgetting one of their own triggers. The \
Out-of-Order Sequencing rules (MTR section 4.3) may apply, and so may rule 603.2 of the \
Comprehensive Rules.

Upgrade

If the trigger is usually detrimental for its controller, the penalty is a Warning.

References: MTR 4.3 Out-of-Order Sequencing (2030-06-02); CR 603.2

    CR 603.2 (not in the CR 2030-03-01)

Cited by: IPG 2.2 Game Play Error — Game Rule Violation

Magic Infraction Procedure Guide effective 2030-05-01; CR rules from the 2030-03-01 edition.
"""


def test_ipg_plain_exact(stocked: Path) -> None:
    assert run("ipg", "2.1") == (0, IPG_21)


def test_ipg_by_name_and_misspelt_name(stocked: Path) -> None:
    assert run("ipg", "missed", "trigger") == (0, IPG_21)
    code, out = run("ipg", "missd trigger")
    assert code == 0
    assert out == (
        "No IPG section is named “missd trigger”; did you mean IPG 2.1 Game Play Error — "
        "Missed Trigger?\n\n" + IPG_21
    )
    code, out = run("ipg", "missd trigger", "--json")
    assert (json.loads(out)["match"], json.loads(out)["sections"][0]["number"]) == ("fuzzy", "2.1")


def test_ipg_json_exact(stocked: Path) -> None:
    code, out = run("ipg", "2.1", "--json")
    assert code == 0
    record = json.loads(out)
    assert list(record) == [
        "document",
        "edition",
        "title",
        "sections",
        "query",
        "match",
        "cr_edition",
    ]
    assert (record["document"], record["edition"], record["title"]) == (
        "ipg",
        "2030-05-01",
        "Magic Infraction Procedure Guide",
    )
    (section,) = record["sections"]
    assert list(section) == [
        "number",
        "title",
        "penalty",
        "parent",
        "subsections",
        "parts",
        "cites",
        "cited_by",
        "references",
    ]
    assert section["penalty"] == "No Penalty"
    assert [list(p) for p in section["parts"]] == [["heading", "text"]] * 4
    assert [p["heading"] for p in section["parts"]] == [
        "Definition",
        "Examples",
        "Philosophy",
        "Upgrade",
    ]
    assert section["cites"] == ["mtr:4.3", "cr:603.2"]
    assert section["cited_by"] == ["ipg:2.2"]
    assert section["references"] == [
        {
            "id": "mtr:4.3",
            "document": "mtr",
            "number": "4.3",
            "edition": "2030-06-02",
            "title": "Out-of-Order Sequencing",
            "text": None,
            "found": True,
        },
        {
            "id": "cr:603.2",
            "document": "cr",
            "number": "603.2",
            "edition": "2030-03-01",
            "title": None,
            "text": None,
            "found": False,
        },
    ]
    assert (record["query"], record["match"], record["cr_edition"]) == (
        "2.1",
        "number",
        "2030-03-01",
    )


def test_mtr_cites_the_cr_and_is_cited_by_the_ipg(stocked: Path) -> None:
    assert run("mtr", "2.1") == (
        0,
        "MTR 2.1 Match Structure\n\n"
        "A match is a series of games. Drawn games do not count (see section 2.2), and a mulligan "
        "is taken as the Comprehensive Rules, rule 100.1a, say.\n\n"
        "References: MTR 2.2 Conceding or Intentionally Drawing Games; CR 100.1a\n\n"
        "    CR 100.1a A two-player game is a game that begins with only two players.\n\n"
        "Magic: The Gathering Tournament Rules effective 2030-06-02; CR rules from the "
        "2030-03-01 edition.\n",
    )
    code, out = run("mtr", "4.3", "--json")
    assert json.loads(out)["sections"][0]["cited_by"] == ["ipg:2.1"]


def test_mtr_whole_section_and_appendix(stocked: Path) -> None:
    code, out = run("mtr", "2", "--json")
    assert [s["number"] for s in json.loads(out)["sections"]] == ["2", "2.1", "2.2"]
    assert json.loads(out)["sections"][0]["subsections"] == ["2.1", "2.2"]
    code, out = run("mtr", "appendix", "b")
    assert code == 0
    assert out == (
        "MTR Appendix B Time Limits\n\n"
        "The minimum time for a match is 40 minutes.\n\n"
        "Booster Draft Timing\n\n"
        "Each pick takes at most 40 seconds.\n\n"
        "Magic: The Gathering Tournament Rules effective 2030-06-02.\n"
    )
    code, out = run("ipg", "2.1", "3.1", "--json")
    assert [s["number"] for s in json.loads(out)["sections"]] == ["2.1", "3.1"]


def test_jar_whole_and_by_heading(stocked: Path) -> None:
    code, out = run("jar", "--json")
    assert [s["number"] for s in json.loads(out)["sections"]] == [
        "introduction",
        "common-issues",
        "serious-problems",
    ]
    assert run("jar", "sees", "a", "card") == (
        0,
        "JAR Common Issues\n\n"
        "A player sees a card they should not have seen\n\n"
        "Shuffle that card into the unknown part of the library.\n\n"
        "Judging at Regular Rules Enforcement Level updated 2030-07-03.\n",
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ipg", "2.9"], "Error: no section 2.9 in the IPG 2030-05-01. Nearest: 2, 2.1, 2.2.\n"),
        (["mtr", "7"], "Error: no section 7 in the MTR 2030-06-02. Nearest: 1, 2, 4.\n"),
        (
            ["ipg", "xyzzy"],
            "Error: no IPG 2030-05-01 section is named “xyzzy”. Give a section number "
            "(`judge ipg 2.1`) or part of its title.\n",
        ),
        (
            ["ipg", "errors"],
            "Error: no IPG 2030-05-01 section is named “errors”. Did you mean: 2, 3? Give a "
            "section number (`judge ipg 2.1`) or part of its title.\n",
        ),
        (
            ["ipg", "2.1", "--edition", "2001-01-01"],
            "Error: IPG 2001-01-01 is not stored (stored: 2030-05-01). Run `judge editions` to "
            "list them.\n",
        ),
        (
            ["ipg", "--digital", "2.1"],
            "Error: no Digital IPG is stored. Download the PDF from "
            "https://wpn.wizards.com/en/rules-documents and run `judge index build FILE`.\n",
        ),
        (
            ["mtr", "2.1", "--cr-edition", "1999"],
            "Error: CR edition 1999 is not stored (stored: 2030-03-01). Leave out --cr-edition.\n",
        ),
    ],
)
def test_lookup_errors(stocked: Path, argv: list[str], message: str) -> None:
    assert run(*argv) == (1, message)


def test_nothing_stored(judge_home: Path) -> None:
    assert run("mtr", "2.5") == (
        1,
        "Error: no MTR is stored. Download the PDF from https://wpn.wizards.com/en/"
        "rules-documents and run `judge index build FILE`.\n",
    )


def test_a_damaged_store_is_an_error_not_a_traceback(stocked: Path) -> None:
    build = next((stocked / "documents" / "ipg" / "2030-05-01").glob("b-*"))
    (build / "sections" / "2.json").write_text("{not json", encoding="utf-8")
    code, out = run("ipg", "2.1")
    assert code == 1
    assert out.startswith("Error: the stored ipg 2030-05-01 is damaged: ")
    assert out.endswith(
        "Rebuild it with `judge index build FILE`, or remove it with"
        " `judge index remove --doc ipg 2030-05-01`.\n"
    )
    assert run("index", "remove", "--doc", "ipg", "2030-05-01")[0] == 0


def test_control_characters_in_stored_text_are_not_printed(stocked: Path) -> None:
    build = next((stocked / "documents" / "mtr" / "2030-06-02").glob("b-*"))
    path = build / "sections" / "2.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["sections"][1]["parts"][0][1] = "Bell\x07 and \x1b[31mred\x1b[0m."
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out = run("mtr", "2.1")
    assert code == 0 and "\x07" not in out and "\x1b" not in out
    assert "Bell\\x07 and \\x1b[31mred\\x1b[0m." in out  # shown, never acted on


def test_rebuilding_a_document_replaces_it_atomically(stocked: Path) -> None:
    before = tree_digest(stocked / "documents" / "jar")
    code, out = run("index", "build", str(MINI[2]))
    assert code == 0
    after = tree_digest(stocked / "documents" / "jar")
    builds = {name.split("/")[1] for name in after if "/b-" in f"/{name}"}
    assert len(builds) >= 1 and after != before
    assert run("jar", "serious", "problems")[0] == 0


def test_lookups_import_neither_pypdf_nor_whoosh(stocked: Path) -> None:
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from judge_cli.cli import cli\n"
        "for argv in (['ipg', '2.1'], ['mtr', '2'], ['jar'], ['ipg', 'missd trigger']):\n"
        "    result = CliRunner().invoke(cli, argv)\n"
        "    assert result.exit_code == 0, result.output\n"
        "print(sorted(m for m in ('pypdf', 'whoosh', 'markdown_it') if m in sys.modules))\n"
    )
    env = dict(os.environ, JUDGE_HOME=str(stocked))
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert out == "[]\n"


@pytest.mark.parametrize("encoding", ["utf-16", "cp1252", "utf-8-sig"])
def test_documents_saved_in_other_encodings_read_the_same(
    judge_home: Path, tmp_path: Path, encoding: str
) -> None:
    path = tmp_path / "jar.txt"
    path.write_bytes(MINI[2].read_text(encoding="utf-8").encode(encoding))
    code, out = run("index", "build", str(path))
    assert (code, out) == (
        0,
        "Stored Judging at Regular Rules Enforcement Level 2030-07-03: 3 sections.\n",
    )
    code, out = run("jar", "forgets", "--json")
    assert json.loads(out)["sections"][0]["parts"][0]["heading"].endswith("“at the beginning”)")


def test_terminal_rendering_keeps_numbered_steps(stocked: Path) -> None:
    """On a terminal the answer goes through markdown-it: "1. Players …" stays text."""
    from index.store import EditionStore
    from index.tournament.answer import References, look_up
    from index.tournament.store import DocumentStore
    from judge_cli.docs_answers import answer_markdown, answer_record
    from judge_cli.render import render_markdown

    editions = EditionStore.from_env()
    documents = DocumentStore(editions.root)
    answer = look_up(documents, "mtr", ["1.1"], None)
    refs = References(documents, editions, "mtr", answer.catalog.edition)
    markdown = answer_markdown(answer, answer_record(answer, refs), refs)
    assert render_markdown(markdown, width=80, color=False) == (
        "MTR 1.1 Tournament Types\n\n"
        "There are rated and casual tournaments. A numbered list follows:\n\n"
        "1. Players shuffle their decks.\n\n"
        "2. Players draw seven cards.\n\n"
        "Magic: The Gathering Tournament Rules effective 2030-06-02.\n"
    )
