"""``judge_cli.launch.main``: what it sets up before the command line runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    ("args", "collecting"),
    [
        (["rule", "704.5j"], False),
        (["search", "legend rule"], False),
        (["define", "token"], False),
        (["index", "list"], True),
        (["serve", "--help"], True),
        (["--help"], True),
    ],
)
def test_look_ups_run_without_the_cyclic_collector(
    tmp_path: Path, args: list[str], collecting: bool
) -> None:
    # A command that answers and exits runs without the collector; building, importing and
    # serving keep it. Its own process: the collector's state is the whole process's.
    script = (
        "import gc, sys\n"
        "import judge_cli.cli as c\n"
        "c.cli = lambda **kw: print(gc.isenabled())\n"
        "from judge_cli import launch\n"
        f"sys.argv = ['judge', *{args!r}]\n"
        "launch.main()\n"
    )
    env = dict(os.environ, JUDGE_HOME=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == str(collecting)
