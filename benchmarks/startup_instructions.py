"""Cold start counted in instructions (valgrind), this tree beside an older commit.

Wall time on a shared machine swings by tenths of the goal; the instructions a process runs
do not, so this is the steady companion of ``startup.py``: each command once under
``valgrind --tool=cachegrind --cache-sim=no`` (about fifty times slower), its instruction
count beside ``python -c "import click"``'s. Needs valgrind (the Debian package ``valgrind``).

    python benchmarks/startup_instructions.py [--before a435ca1] [CR-FILE]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

from _common import newest_corpus_file
from startup import COMMANDS, GOALS, prepared_trees

VALGRIND = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]


def instructions(argv: list[str], env: dict[str, str]) -> int:
    """The instructions (``I refs``) one run of ``argv`` executes."""
    run = [*VALGRIND, *argv]
    # Started in the tree PYTHONPATH names (see startup._env).
    done = subprocess.run(
        run, env=env, capture_output=True, text=True, check=True, cwd=env["PYTHONPATH"]
    )
    m = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if m is None:
        raise SystemExit(f"valgrind printed no instruction count:\n{done.stderr[-2000:]}")
    return int(m.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", help="CR file (default: newest in the corpus)")
    parser.add_argument("--before", default="a435ca1", help="the older commit to compare with")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    path = str(Path(args.file).resolve()) if args.file else str(newest_corpus_file())
    with prepared_trees(args.before, path) as (_, envs):
        for env in envs.values():  # one run each first: byte code written, caches filled
            warm = [sys.executable, "-m", "judge_cli", "--help"]
            subprocess.run(warm, env=env, check=True, capture_output=True, cwd=env["PYTHONPATH"])
        click = instructions([sys.executable, "-c", "import click"], envs["now"])
        counts = {
            (name, " ".join(argv)): instructions([sys.executable, "-m", "judge_cli", *argv], env)
            for argv in COMMANDS
            if argv[0] != "search"  # its figure is whoosh's, not start-up's
            for name, env in envs.items()
        }
    print(f"instructions of one run; before = {args.before}, now = this tree")
    click_label = 'python -c "import click"'
    print(f"{click_label:28} {click / 1e6:8.1f} M  (1.00x click)")
    for argv in COMMANDS:
        label = " ".join(argv)
        if ("now", label) not in counts:
            continue
        old, new = counts[("before", label)], counts[("now", label)]
        goal = GOALS.get(label)
        verdict = (
            f"  goal <= {goal:.2f}x: {'met' if new <= goal * click else 'NOT met'}" if goal else ""
        )
        print(
            f"judge {label:22} before {old / 1e6:8.1f} M ({old / click:.2f}x)"
            f"   now {new / 1e6:8.1f} M ({new / click:.2f}x){verdict}"
        )


if __name__ == "__main__":
    main()
