"""``judge rule``, ``define``, ``editions`` and ``index``: exact output and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from judge_cli.cli import cli

from .conftest import corpus_file, tree_digest


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


@pytest.fixture
def built(judge_home: Path, cr_excerpt: Path) -> Path:
    code, out = run("index", "build", str(cr_excerpt))
    assert code == 0, out
    return judge_home


def test_index_build_and_editions(built: Path) -> None:
    code, out = run("editions")
    assert code == 0
    assert out == ("2030-03-01     37 rules     5 glossary entries  mini-cr.txt  (newest)\n")
    code, out = run("editions", "--json")
    assert json.loads(out)[0]["edition"] == "2030-03-01"
    assert {"edition", "rules", "glossary", "source"} <= set(json.loads(out)[0])


def test_rule_plain_exact(built: Path) -> None:
    code, out = run("rule", "704.5j")
    assert code == 0
    assert out == (
        "704.5j If two or more legendary permanents with the same name are controlled by the "
        "same player, that player chooses one of them, and the rest are put into their owners’ "
        "graveyards. This is called the “legend rule.”\n"
        "\n"
        "Cited by: Legend Rule (glossary)\n"
        "\n"
        "Comprehensive Rules effective 2030-03-01.\n"
    )


def test_rule_json_exact(built: Path) -> None:
    code, out = run("rule", "704.5j", "--json")
    assert code == 0
    assert json.loads(out) == {
        "edition": "2030-03-01",
        "rules": [
            {
                "number": "704.5j",
                "text": "If two or more legendary permanents with the same name are controlled "
                "by the same player, that player chooses one of them, and the rest are put into "
                "their owners’ graveyards. This is called the “legend rule.”",
                "examples": [],
                "parent": "704.5",
                "title": None,
                "subrules": [],
                "cites": [],
                "cited_by": ["glossary:Legend Rule"],
            }
        ],
    }


def test_rule_with_examples_and_cites(built: Path) -> None:
    code, out = run("rule", "704.2")
    assert out == (
        "704.2 State-based actions are checked throughout the game (see rules 704.5a–d) and are "
        "not controlled by any player.\n"
        "\n"
        "    Example: A creature with toughness 0 is put into its owner’s graveyard (see rule "
        "704.5f).\n"
        "\n"
        "    Example: A player with 0 life loses the game.\n"
        "\n"
        "Cites: 704.5a, 704.5b, 704.5c, 704.5d, 704.5f\n"
        "\n"
        "Comprehensive Rules effective 2030-03-01.\n"
    )


def test_subrules_have_no_gaps_and_run_past_z(built: Path) -> None:
    code, out = run("rule", "704.5", "--json")
    subrules = [r["number"] for r in json.loads(out)["rules"][0]["subrules"]]
    letters = [n.removeprefix("704.5") for n in subrules]
    assert letters == [*"abcdefghijkmnpqrstuvwxyz", "aa"]
    code, out = run("rule", "704.5", "--no-subrules", "--json")
    assert json.loads(out)["rules"][0]["subrules"] == []
    code, out = run("rule", "704.5.", "--json")
    assert json.loads(out)["rules"][0]["subrules"] == []


def test_ranges_and_several_refs(built: Path) -> None:
    assert run("rule", "rules", "704.5a", "-", "d")[1] == run("rule", "704.5a-d")[1]
    code, out = run("rule", "704.5a-d", "rule", "704.5J", "--json")
    assert [r["number"] for r in json.loads(out)["rules"]] == [
        "704.5a",
        "704.5b",
        "704.5c",
        "704.5d",
        "704.5j",
    ]


def test_section_and_whole_rule(built: Path) -> None:
    code, out = run("rule", "7", "--json")
    section = json.loads(out)["rules"][0]
    assert section["title"] == "Additional Rules"
    assert [r["number"] for r in section["subrules"]] == ["704"]


def test_unknown_rule_names_the_nearest(built: Path) -> None:
    code, out = run("rule", "704.5zz")
    assert code == 1
    assert (
        out
        == "Error: no rule 704.5zz in the 2030-03-01 edition. Nearest: 704.5y, 704.5z, 704.5aa.\n"
    )
    code, out = run("rule", "704.5o")
    assert out == (
        "Error: no rule 704.5o in the 2030-03-01 edition. Nearest: 704.5m, 704.5n, 704.5p.\n"
    )


def test_bad_reference_is_a_usage_error(built: Path) -> None:
    code, out = run("rule", "seven-oh-four")
    assert code == 2
    assert "Error: invalid rule reference: 'seven-oh-four'." in out


def test_unknown_edition(built: Path) -> None:
    code, out = run("rule", "704.5j", "--edition", "2001-01-01")
    assert code == 1
    assert out == (
        "Error: edition 2001-01-01 is not stored (stored: 2030-03-01). Run `judge editions` to "
        "list them, or store it with `judge index build FILE`.\n"
    )


def test_define_exact_plural_fuzzy(built: Path) -> None:
    code, out = run("define", "legend rule")
    assert code == 0
    assert out.startswith("Legend Rule\n\nA state-based action that causes a player")
    assert "    704.5j If two or more legendary permanents" in out
    code, out = run("define", "lethal", "damages", "--json")
    record = json.loads(out)
    assert (record["term"], record["match"], record["see"]) == (
        "Lethal Damage",
        "plural",
        ["120.6", "704.5g"],
    )
    assert "Not in this edition: 120.6" in run("define", "lethal damage")[1]
    code, out = run("define", "deathtuch")
    assert code == 0
    assert out.startswith("No entry for “deathtuch”; did you mean Deathtouch?\n\nDeathtouch\n")
    code, out = run("define", "banding")
    assert out.startswith("Banding (Obsolete)\n")


def test_define_json_keys(built: Path) -> None:
    code, out = run("define", "LEGEND RULE", "--json")
    record = json.loads(out)
    assert {"edition", "term", "definition", "see"} <= set(record)
    assert record["edition"] == "2030-03-01"
    assert record["see"] == ["704.5j"]


def test_define_unknown(built: Path) -> None:
    code, out = run("define", "xyzzy")
    assert code == 1
    assert out == (
        "Error: no glossary entry for “xyzzy” in the 2030-03-01 edition. "
        'Try `judge search "xyzzy"`.\n'
    )


# --- the bundled sample, with nothing stored -------------------------------------------------


def test_sample_defines(judge_home: Path) -> None:
    code, out = run("define", "legend rule")
    assert code == 0
    assert out.startswith("“legend rule” is defined in the entry Legendary.\n\nLegendary\n")
    assert out.rstrip().endswith("run `judge index build FILE`.")
    code, out = run("define", "lethal damages", "--json")
    assert json.loads(out)["term"] == "Lethal Damage"
    assert json.loads(out)["edition"] is None
    code, out = run("define", "deathtuch")
    assert code == 1
    assert out.startswith("Error: no glossary entry for “deathtuch” in the bundled sample.")


def test_sample_has_no_numbered_rules(judge_home: Path) -> None:
    code, out = run("rule", "704.5j")
    assert code == 1
    assert out.startswith(
        "Error: rule 704.5j is not in the bundled sample, which has no numbered rules."
    )


# --- bad input never changes what is stored --------------------------------------------------

BAD_FILES = {
    "empty.txt": (b"", "the file is empty"),
    "binary.bin": (bytes(range(256)) * 8, "binary file"),
    "rules.pdf": (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n", "this is a PDF"),
    "error.html": (
        b"<!DOCTYPE html><html><head><title>404</title></head><body>Not found</body></html>",
        "this is an HTML page",
    ),
    "nodate.txt": (
        b"Magic: The Gathering Comprehensive Rules\r\n\r\n100.1. A rule.\r\n",
        "no effective date found",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_input_leaves_store_untouched(built: Path, tmp_path: Path, name: str) -> None:
    data, reason = BAD_FILES[name]
    bad = tmp_path / name
    bad.write_bytes(data)
    before = tree_digest(built)
    code, out = run("index", "build", str(bad))
    assert code == 1
    assert out.startswith(f"Error: {bad}: ")
    assert reason in out
    assert "Nothing was stored." in out
    assert tree_digest(built) == before


def test_truncated_cr_is_refused(built: Path, tmp_path: Path, cr_excerpt: Path) -> None:
    data = cr_excerpt.read_bytes()
    bad = tmp_path / "truncated.txt"
    bad.write_bytes(data[: data.index(b"704.5k")])
    before = tree_digest(built)
    code, out = run("index", "build", str(bad))
    assert code == 1
    assert "looks truncated" in out
    assert tree_digest(built) == before


def test_missing_file(judge_home: Path) -> None:
    code, out = run("index", "build", "no-such-file.txt")
    assert code == 1
    assert out.startswith("Error: no-such-file.txt: cannot read it")


def test_remove(built: Path) -> None:
    assert run("index", "remove", "2030-03-01") == (0, "Removed edition 2030-03-01.\n")
    code, out = run("index", "remove", "2030-03-01")
    assert code == 1
    assert out.startswith("Error: edition 2030-03-01 is not stored")


def test_rebuild_replaces_atomically(built: Path, cr_excerpt: Path) -> None:
    code, out = run("index", "build", str(cr_excerpt))
    assert code == 0
    assert run("rule", "704.5j")[0] == 0


_KEPT_OUT_OF_RULE = (
    "whoosh",
    "markdown_it",
    "rich",
    "glossary.entry",
    # Each costs start-up time that a look-up by number does not need: the dataclass machinery
    # (its classes compile their methods at import), scanning text for references, writing the
    # store, the store's commands and the tournament documents.
    "dataclasses",
    "index.textrefs",
    "index.storing",
    "index.section",
    "index.xref",
    "judge_cli.store_commands",
    "index.tournament",
    "textwrap",
)


def _run_keeping_out(built: Path, argv: list[str], kept_out: tuple[str, ...]) -> str:
    """What ``judge ARGV`` prints in a new process, ending with the modules of ``kept_out``
    it imported (``HEAVY [...]``)."""
    code = (
        "import sys\n"
        "from judge_cli.cli import cli\n"
        "try:\n"
        f"    cli({argv!r}, prog_name='judge')\n"
        "except SystemExit:\n"
        "    pass\n"
        f"heavy = [m for m in {kept_out!r} if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    env = dict(os.environ, JUDGE_HOME=str(built))
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout


def test_rule_never_imports_whoosh(built: Path) -> None:
    out = _run_keeping_out(built, ["rule", "704.5j"], _KEPT_OUT_OF_RULE)
    assert "704.5j If two or more" in out
    assert out.strip().endswith("HEAVY []")


# A definition reads the glossary alone: neither the whole edition's cross-reference machinery
# nor the close-spelling matcher (a term not found) loads for a term that is found.
_KEPT_OUT_OF_DEFINE = (
    "whoosh",
    "difflib",
    "index.storing",
    "index.textrefs",
    "index.section",
    "index.xref",
    "judge_cli.store_commands",
    "index.tournament",
)


def test_define_reads_only_the_glossary(built: Path) -> None:
    out = _run_keeping_out(built, ["define", "legend rules"], _KEPT_OUT_OF_DEFINE)
    assert "704.5j If two or more" in out
    assert out.strip().endswith("HEAVY []")


def test_modern_edition_end_to_end(judge_home: Path) -> None:
    path = corpus_file("20250207")
    assert run("index", "build", str(path))[0] == 0
    code, out = run("rule", "704.5j", "--json")
    assert "glossary:Legend Rule" in json.loads(out)["rules"][0]["cited_by"]
    code, out = run("rule", "601.2a-h", "--json")
    assert [r["number"] for r in json.loads(out)["rules"]] == [f"601.2{c}" for c in "abcdefgh"]
    code, out = run("rule", "704.5", "--json")
    letters = [r["number"][5:] for r in json.loads(out)["rules"][0]["subrules"]]
    assert letters == [c for c in "abcdefghijkmnpqrstuvwxyz"][: len(letters)]
    assert letters[-1] == "z"
    code, out = run("define", "legend rule", "--json")
    assert json.loads(out)["see"] == ["704.5j"]
    assert json.loads(out)["edition"] == "2025-02-07"
    code, out = run("define", "lethal damages")
    assert out.startswith("Lethal Damage\n")
    code, out = run("define", "deathtuch")
    assert out.startswith("No entry for “deathtuch”; did you mean Deathtouch?")


def test_damaged_edition_is_an_error_not_a_traceback(built: Path, cr_excerpt: Path) -> None:
    build = next((built / "editions" / "2030-03-01").glob("b-*"))
    (build / "meta.json").write_text("{damaged", encoding="utf-8")
    (build / "edition.json").write_text("{damaged", encoding="utf-8")
    for argv in (["editions"], ["rule", "704.5j"], ["define", "legend rule"]):
        code, out = run(*argv)
        assert code == 1, argv
        assert out.startswith("Error: the stored edition 2030-03-01 is damaged: "), argv
        assert out.rstrip().endswith("or remove it with `judge index remove 2030-03-01`."), argv
    assert run("index", "build", str(cr_excerpt))[0] == 0  # a rebuild repairs it
    assert run("rule", "704.5j")[0] == 0
    (next((built / "editions" / "2030-03-01").glob("b-*")) / "edition.json").unlink()
    assert run("index", "remove", "2030-03-01") == (0, "Removed edition 2030-03-01.\n")


def test_index_build_draws_progress_only_on_a_terminal(
    judge_home: Path, cr_excerpt: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import judge_cli.common

    result = CliRunner().invoke(cli, ["index", "build", str(cr_excerpt)])
    assert "Indexing" not in result.output  # piped: no progress
    monkeypatch.setattr(judge_cli.common, "stderr_is_terminal", lambda: True)
    result = CliRunner().invoke(cli, ["index", "build", str(cr_excerpt)])
    assert result.exit_code == 0
    assert "\rIndexing 2030-03-01 [" in result.output
    assert result.output.endswith("Stored edition 2030-03-01: 37 rules, 5 glossary entries.\n")


def test_the_commands_listed_without_importing_them_read_as_their_own_help() -> None:
    import importlib

    from judge_cli.cli import LAZY_COMMANDS, cli

    ctx = click.Context(cli)
    for name, (target, _summary) in LAZY_COMMANDS.items():
        module, attr = target.split(":")
        real = getattr(importlib.import_module(module), attr)
        listed = cli.listed(ctx, name)  # type: ignore[attr-defined]
        assert listed is not None and listed.hidden == real.hidden, name
        for limit in (30, 45, 60, 100, 400):
            assert listed.get_short_help_str(limit) == real.get_short_help_str(limit), name


def test_help_and_a_tab_import_no_command_module() -> None:
    code = (
        "import sys\n"
        "from judge_cli.cli import LAZY_COMMANDS, cli\n"
        "try:\n"
        "    cli(['--help'], prog_name='judge')\n"
        "except SystemExit:\n"
        "    pass\n"
        "from click.shell_completion import ShellComplete\n"
        "print([c.value for c in ShellComplete(cli, {}, 'judge', '_J').get_completions([], 'c')])\n"
        "loaded = {t.split(':')[0] for t, _ in LAZY_COMMANDS.values()} & set(sys.modules)\n"
        "print('LOADED', sorted(loaded))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "  search " in out and "Search rules, examples" in out
    assert "['card', 'cards', 'check', 'cite-check', 'completion']" in out
    assert out.strip().endswith("LOADED []")
