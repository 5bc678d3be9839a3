"""Shell completion: the candidates, and the generated bash script in a real bash."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge_cli.cli import cli
from judge_cli.completion import rule_candidates, term_candidates

from .servefixture import hostile_home

NUMBERS = ["7", "700", "704", "704.1", "704.5", "704.5a", "704.5b", "704.6", "705", "705.1"]


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ("704.5", ["704.5", "704.5a", "704.5b"]),
        ("704", ["704", "704.1", "704.5", "704.6"]),
        ("70", ["700", "704", "705"]),
        ("7", ["7", "700", "704", "705"]),
        ("704.5b", ["704.5b"]),
        ("8", []),
    ],
)
def test_rule_candidates(prefix: str, expected: list[str]) -> None:
    assert rule_candidates(NUMBERS, prefix) == expected


TERMS = ["Legend", "Legend Rule", "Legendary", "Life, Life Total", "Lifelink"]


@pytest.mark.parametrize(
    ("words", "incomplete", "expected"),
    [
        ([], "legen", ["Legend", "Legend Rule", "Legendary"]),
        ([], "LIFE", ["Life, Life Total", "Lifelink"]),
        (["legend"], "r", ["Rule"]),
        (["life,"], "", ["Life Total"]),
        ([], "xyz", []),
    ],
)
def test_term_candidates(words: list[str], incomplete: str, expected: list[str]) -> None:
    assert term_candidates(TERMS, words, incomplete) == expected


def test_completion_prints_each_shells_script() -> None:
    for shell, mark in (
        ("bash", "complete -o nosort -F"),
        ("zsh", "#compdef judge"),
        ("fish", "complete --no-files --command judge"),
    ):
        result = CliRunner().invoke(cli, ["completion", shell])
        assert result.exit_code == 0, result.output
        assert mark in result.output and "_JUDGE_COMPLETE" in result.output
    assert CliRunner().invoke(cli, ["completion", "tcsh"]).exit_code == 2


def _bash_complete(script: Path, home: Path, words: str) -> list[str]:
    bin_dir = Path(sys.executable).parent
    assert (bin_dir / "judge").is_file(), "the judge command must be installed beside python"
    line = (
        f"source {script}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); "
        '_judge_completion judge; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    env = {
        **os.environ,
        "JUDGE_HOME": str(home),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
    }
    done = subprocess.run(["bash", "-c", line], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return [x for x in done.stdout.splitlines() if x]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_the_bash_script_completes_in_a_real_bash(tmp_path: Path) -> None:
    script = tmp_path / "judge.bash"
    script.write_text(CliRunner().invoke(cli, ["completion", "bash"]).output, encoding="utf-8")
    home = hostile_home()
    assert _bash_complete(script, home, "judge rule 704.5") == [
        "704.5",
        "704.5a",
        "704.5f",
        "704.5j",
    ]
    assert _bash_complete(script, home, "judge define legen") == ["Legend Rule"]
    assert _bash_complete(script, home, "judge define legend r") == ["Rule"]
    assert _bash_complete(script, home, "judge rule --edition 20") == ["2025-03-01"]
    assert _bash_complete(script, home, "judge se") == ["search", "serve"]
    # with nothing stored, the bundled sample's terms
    assert "Mana Burn" in _bash_complete(script, tmp_path / "empty", "judge define mana")


def test_a_tab_imports_neither_whoosh_nor_the_document_model(tmp_path: Path) -> None:
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('whoosh', 'markdown_it', 'yaml', 'starlette') or m in ('index.model', 'index.search')),"
        " file=sys.stderr))\n"
        "from judge_cli.cli import cli\n"
        "cli(prog_name='judge')\n"
    )
    env = {
        **os.environ,
        "JUDGE_HOME": str(hostile_home()),
        "_JUDGE_COMPLETE": "bash_complete",
        "COMP_WORDS": "judge rule 704.5",
        "COMP_CWORD": "2",
    }
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60
    )
    assert "plain,704.5j" in done.stdout.splitlines()
    assert done.stderr.strip() == "[]"
