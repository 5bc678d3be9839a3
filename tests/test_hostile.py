"""Hostile text, odd terminals, odd data folders: clean errors, nothing acted on, nothing lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from index.atomic import write_text_atomic
from judge_cli.cli import cli
from judge_cli.render import safe, show

from .conftest import FIXTURES, tree_digest

ROOT = Path(__file__).resolve().parents[1]
# Clear screen, OSC 52 (write the clipboard), OSC 0 (window title), right-to-left override.
EVIL = "\x1b[2J\x1b]52;c;aGk=\x07\x1b]0;pwned\x07\u202e"


def run(*argv: str, home: Path | None = None) -> tuple[int, str]:
    env = {"JUDGE_HOME": str(home)} if home is not None else None
    result = CliRunner().invoke(cli, list(argv), env=env)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def _is_harmless(text: str) -> bool:
    return not any(ch in text for ch in ("\x1b", "\x07", "\u202e", "\x9b"))


@pytest.fixture
def evil_home(judge_home: Path, tmp_path: Path) -> Path:
    data = (FIXTURES / "mini-cr.txt").read_bytes()
    at = data.index(b"704.5j ") + len(b"704.5j ")
    evil = tmp_path / "evil.txt"
    evil.write_bytes(data[:at] + EVIL.encode() + data[at:])
    assert run("index", "build", str(evil))[0] == 0
    notes = tmp_path / "evil-notes.md"
    notes.write_text(f"# Notes {EVIL}\n\nThe legend rule {EVIL} applies.\n", encoding="utf-8")
    assert run("index", "build", str(notes))[0] == 0
    return judge_home


@pytest.mark.parametrize(
    "argv",
    [
        ["rule", "704.5j"],
        ["rule", "704.5j", "--json"],
        ["rule", "704.5"],
        ["define", "legend rule"],
        ["search", "legend"],
        ["search", "legend", "--in", "all"],
        ["search", "legend", "--json"],
        ["history", "704.5j"],
        ["notes"],
    ],
)
def test_text_from_files_is_printed_harmless(evil_home: Path, argv: list[str]) -> None:
    code, out = run(*argv)
    assert code == 0, out
    assert _is_harmless(out)


def test_the_escapes_are_shown_not_dropped(evil_home: Path) -> None:
    out = run("rule", "704.5j")[1]
    assert "\\x1b[2J\\x1b]52;c;aGk=\\x07" in out and "\\u202e" in out
    rule = json.loads(run("rule", "704.5j", "--json")[1])["rules"][0]
    assert rule["text"].startswith(EVIL)  # JSON keeps the text as stored, escaped by JSON


def test_json_keeps_the_data_and_escapes_what_json_dumps_leaves() -> None:
    from judge_cli.render import safe_json

    data = {"text": f"{EVIL} \x9b[31m C1, \ud800 a lone surrogate, \t\u00e9\u2019 kept"}
    out = safe_json(json.dumps(data, ensure_ascii=False))
    assert json.loads(out) == data
    assert _is_harmless(out) and "\ud800" not in out
    assert "\\u009b[31m" in out and "\\u202e" in out and "\u00e9\u2019" in out
    out.encode("utf-8")  # a lone surrogate cannot be printed; its escape can


def test_an_undecodable_byte_on_the_command_line_is_shown_escaped(evil_home: Path) -> None:
    # A byte that is not UTF-8 reaches Python as a lone surrogate ("\xff" as "\udcff").
    for argv in (["search", "legend \udcff rule"], ["search", "legend \udcff", "--json"]):
        code, out = run(*argv)
        assert code == 0 and "legend \\udcff" in out and "\udcff" not in out
    code, out = run("define", "legend\udcff")
    assert "\udcff" not in out and "Traceback" not in out


def test_terminal_rendering_is_harmless_too() -> None:
    rendered = show(f"**704.5j** {EVIL}text\n\n> quoted {EVIL}\n", terminal=True)
    styles = ("\x1b[1m", "\x1b[0m", "\x1b[2m", "\x1b[3m", "\x1b[1;4m")
    for style in styles:
        rendered = rendered.replace(style, "")
    assert _is_harmless(rendered)


def test_a_scenario_name_and_an_error_are_harmless(judge_home: Path, tmp_path: Path) -> None:
    board = tmp_path / "b.yaml"
    board.write_text(
        "players: [{name: Alice}, {name: Bob, life: 0}]\n"
        # YAML refuses raw control characters; its escapes write the same text.
        'objects: [{id: bears, name: "Bears \\e[2J\\e]52;c;aGk=\\a\\e]0;pwned\\a\\u202e",'
        " controller: Alice, types: [creature], pt: 2/2, damage: 2}]\n",
        encoding="utf-8",
    )
    for extra in ([], ["--markdown"]):
        code, out = run("check", str(board), *extra)
        assert code == 0 and "Bears" in out and _is_harmless(out)
    bad = tmp_path / "bad.yaml"
    bad.write_text('players: [{name: Alice, "\\e]0;pwned\\a": 1}]\n', encoding="utf-8")
    code, out = run("check", str(bad))
    assert code == 1 and out.startswith("Error: ") and _is_harmless(out)


def test_safe_keeps_ordinary_text() -> None:
    text = "Tab\tand newline\nand “quotes”, Æther, 2/2 — fine."
    assert safe(text) is text


# Not "ascii": click itself writes UTF-8 to a stream that claims to be ASCII.
@pytest.mark.parametrize("encoding", ["latin-1", "cp437"])
def test_a_terminal_that_cannot_show_quotes_gets_look_alikes(
    evil_home: Path, encoding: str
) -> None:
    env = {**os.environ, "JUDGE_HOME": str(evil_home), "PYTHONIOENCODING": encoding}
    env.pop("PYTHONUTF8", None)
    for argv in (["rule", "704.5j"], ["define", "legend rule"], ["search", "legend rule"]):
        proc = subprocess.run(
            [sys.executable, "-m", "judge_cli", *argv], env=env, capture_output=True, check=False
        )
        assert proc.returncode == 0, proc.stderr.decode(encoding, "replace")
        out = proc.stdout.decode(encoding)
        assert "owners' graveyards" in out and '"legend rule."' in out


def test_index_remove_takes_only_stored_names(evil_home: Path) -> None:
    before = tree_digest(evil_home)
    for name in ("some/folder", "/etc", "2030-03-01/../../../x", "..", ".", ""):
        code, out = run("index", "remove", name)
        assert code == 1, name
        assert "is not stored (stored: 2030-03-01)" in out, name
    assert tree_digest(evil_home) == before
    assert not list((evil_home / "editions").glob(".trash-*"))


def test_index_build_tries_every_file_and_says_what_was_stored(
    judge_home: Path, tmp_path: Path
) -> None:
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("not the rules\n", encoding="utf-8")
    notes = tmp_path / "n.md"
    notes.write_text("# A heading\n\ntext\n", encoding="utf-8")
    code, out = run("index", "build", str(FIXTURES / "mini-cr.txt"), str(garbage), str(notes))
    assert code == 1
    assert "Stored edition 2030-03-01: 37 rules, 5 glossary entries." in out
    assert "Stored notes n: 1 section." in out
    assert f"Error: {garbage}: " in out
    assert out.rstrip().endswith(
        f"Error: 1 of 3 files not stored ({garbage}); stored: {FIXTURES / 'mini-cr.txt'}, {notes}."
    )
    assert run("editions")[1].startswith("2030-03-01")


@pytest.mark.parametrize(
    "home", ["/dev/null", "a-file", "/proc/judge-home"], ids=["dev-null", "file", "read-only"]
)
def test_an_unusable_data_folder_is_an_error(tmp_path: Path, home: str) -> None:
    if home == "a-file":
        (tmp_path / "a-file").write_text("x", encoding="utf-8")
        home = str(tmp_path / "a-file")
    notes = tmp_path / "n.md"
    notes.write_text("# Notes\n\ntext\n", encoding="utf-8")
    for argv in (["index", "build", str(notes)], ["index", "build", str(FIXTURES / "mini-cr.txt")]):
        code, out = run(*argv, home=Path(home))
        assert code == 1 and out.startswith("Error: ") and "could not write to" in out, out
    code, out = run("define", "mana burn", home=Path(home))  # reading still works: the sample
    assert code == 0 and out.startswith("Mana Burn")


def test_notes_are_listed_and_removed(judge_home: Path, tmp_path: Path) -> None:
    notes = tmp_path / "house-rules.md"
    notes.write_text("# House rules\n\nNo proxies.\n\n## More\n\ntext\n", encoding="utf-8")
    assert run("index", "build", str(notes))[0] == 0
    assert run("notes")[1] == "house-rules  2 sections  42 bytes\n"
    assert json.loads(run("notes", "--json")[1]) == [
        {"name": "house-rules", "sections": 2, "bytes": 42}
    ]
    code, out = run("notes", "remove", "../editions")
    assert code == 1 and "no notes named ../editions are stored (stored: house-rules)" in out
    assert run("notes", "remove", "house-rules") == (0, "Removed notes house-rules.\n")
    assert run("notes")[1].startswith("No notes are stored.")
    assert "No proxies" not in run("search", "proxies")[1]


def _build(judge_home: Path) -> Path:
    assert run("index", "build", str(FIXTURES / "mini-cr.txt"))[0] == 0
    return next((judge_home / "editions" / "2030-03-01").glob("b-*"))


def test_meta_of_the_wrong_shape_is_a_damaged_edition(judge_home: Path) -> None:
    build = _build(judge_home)
    (build / "meta.json").write_text('{"edition": 1}', encoding="utf-8")
    for argv in (["editions"], ["rule", "704.5j"]):
        code, out = run(*argv)
        assert code == 1 and out.startswith("Error: the stored edition 2030-03-01 is damaged")


def test_a_missing_rule_file_is_damage_not_a_missing_rule(judge_home: Path) -> None:
    build = _build(judge_home)
    (build / "rules" / "704.json").unlink()
    code, out = run("rule", "704.5j")
    assert code == 1 and out.startswith("Error: the stored edition 2030-03-01 is damaged")
    assert "judge index build FILE" in out


@pytest.mark.parametrize(
    "content", ['{"glossary": 1}', '{"glossary": [["Legend Rule"]], "cites": {}, "cited_by": {}}']
)
def test_a_glossary_file_of_the_wrong_shape_is_damage(judge_home: Path, content: str) -> None:
    build = _build(judge_home)
    (build / "glossary.json").write_text(content, encoding="utf-8")
    code, out = run("define", "legend rule")
    assert code == 1 and out.startswith("Error: the stored edition 2030-03-01 is damaged")
    assert "glossary.json" in out and "judge index build FILE" in out


def test_a_build_without_a_glossary_file_defines_from_the_whole_edition(
    judge_home: Path,
) -> None:
    build = _build(judge_home)
    before = run("define", "legend rule", "--json")
    (build / "glossary.json").unlink()  # as stored before the glossary had a file of its own
    assert run("define", "legend rule", "--json") == before and before[0] == 0


@pytest.mark.parametrize("pointer", ["", "b-gone\n"], ids=["empty", "dangling"])
def test_a_broken_pointer_is_reported_not_hidden(judge_home: Path, pointer: str) -> None:
    _build(judge_home)
    write_text_atomic(judge_home / "editions" / "2030-03-01" / "CURRENT", pointer)
    code, out = run("editions")
    assert code == 0
    assert "2030-03-01  damaged: no complete build." in out
    code, out = run("rule", "704.5j", "--edition", "2030-03-01")
    assert code == 1 and out.startswith("Error: the stored edition 2030-03-01 is damaged")
    assert run("index", "remove", "2030-03-01") == (0, "Removed edition 2030-03-01.\n")
    assert "damaged" not in run("editions")[1]


def test_rule_rule_is_a_usage_error(judge_home: Path) -> None:
    code, out = run("rule", "rule")
    assert code == 2 and "give a rule number" in out


def test_no_color_empty_keeps_colour_and_dumb_terminal_drops_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from judge_cli.render import use_color

    monkeypatch.setenv("NO_COLOR", "")
    monkeypatch.setenv("TERM", "xterm")
    assert use_color()
    monkeypatch.setenv("TERM", "dumb")
    assert not use_color()
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color()
