"""The README runs: its set-up commands, its examples' output, and every command documented.

``python -m tests.test_docs --update`` rewrites the README's example output from the newest
corpus edition (like cog), and the tests fail while the README is stale.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge_cli.cli import cli

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
EDITION = "20260116"
_BLOCK_RE = re.compile(r"```console\n\$ (judge [^\n]*)\n(.*?)```", re.DOTALL)


def _commands_block() -> list[str]:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", text, re.DOTALL)
    assert block is not None
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_readme_starts_with_two_setup_commands() -> None:
    commands = _commands_block()
    assert len(commands) == 2
    install, tests = commands
    assert "pip install" in install and "judge " in install
    assert tests.endswith("python -m pytest")


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert _commands_block()[1] in ci.splitlines()


def test_every_command_has_help_and_is_documented() -> None:
    readme = README.read_text(encoding="utf-8")
    ctx = cli.make_context("judge", [], resilient_parsing=True)
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None and command.help, name
        assert f"`judge {name}" in readme, f"judge {name} is not in the README"
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0


def _run(argv: list[str], home: Path) -> str:
    result = CliRunner().invoke(cli, argv, env={"JUDGE_HOME": str(home), "COLUMNS": "80"})
    return result.output


def _build_home(home: Path) -> None:
    corpus = ROOT.parent / "shared" / "corpus" / f"cr-{EDITION}.txt"
    result = CliRunner().invoke(cli, ["index", "build", str(corpus)], env={"JUDGE_HOME": str(home)})
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def readme_home() -> Iterator[Path]:
    from .conftest import corpus_file

    corpus_file(EDITION)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        _build_home(home)
        yield home


def _examples() -> list[tuple[str, str]]:
    return _BLOCK_RE.findall(README.read_text(encoding="utf-8"))


@pytest.mark.parametrize(("command", "expected"), _examples())
def test_readme_example_output(readme_home: Path, command: str, expected: str) -> None:
    argv = shlex.split(command)[1:]
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        assert _run(argv, readme_home) == expected, (
            "README is stale: python -m tests.test_docs --update"
        )
    finally:
        os.chdir(cwd)


def update() -> None:
    """Rewrites the README's example output."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        _build_home(home)
        os.chdir(ROOT)

        def replace(m: re.Match[str]) -> str:
            output = _run(shlex.split(m.group(1))[1:], home)
            return f"```console\n$ {m.group(1)}\n{output}```"

        README.write_text(_BLOCK_RE.sub(replace, README.read_text(encoding="utf-8")), "utf-8")


if __name__ == "__main__" and "--update" in sys.argv:
    update()
