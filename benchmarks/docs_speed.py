"""Reading the tournament documents, and cold ``judge ipg 2.1`` against ``import click``.

Goals (issue 13): the cold lookup within 1.5x of ``python -c "import click"`` (median of at
least 10 runs, side by side); reading the MTR PDF reported in seconds and peak memory, beside
reading the same document as text.

The lookups and the baseline run in turn (click, ipg, click, ipg, …) so that both meet the same
load; besides wall-clock time the CPU time of each child is reported, which a machine shared
with other work disturbs less.

    python benchmarks/docs_speed.py [--runs 15]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from _common import ROOT, environment, peak_child_memory_mib

DOCS = ROOT.parent / "shared" / "judge-docs"


def _one(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def interleaved(commands: dict[str, list[str]], env: dict[str, str], runs: int) -> dict[str, Any]:
    """Median wall-clock and CPU milliseconds of each command, run in turn ``runs`` times."""
    for argv in commands.values():
        subprocess.run(argv, env=env, check=True, capture_output=True)  # warm-up
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            times[name].append(_one(argv, env))
    return {
        name: (
            statistics.median(w for w, _ in runs_) * 1000,
            statistics.median(c for _, c in runs_) * 1000,
        )
        for name, runs_ in times.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    pdf, text, ipg = DOCS / "mtr-20240513.pdf", DOCS / "mtr-20260227.txt", DOCS / "ipg-20240923.txt"
    for path in (pdf, text, ipg):
        if not path.is_file():
            sys.exit(f"{path} is missing: the benchmarks need ../shared/judge-docs")
    with tempfile.TemporaryDirectory() as home:
        env = environment(JUDGE_HOME=home)
        judge = [sys.executable, "-m", "judge_cli"]
        for path in (text, pdf):
            seconds, peak = peak_child_memory_mib([*judge, "index", "build", str(path)], env)
            label = f"judge index build {path.name}"
            print(f"{label:36} {seconds:6.2f} s, peak {peak:4.0f} MiB")
        peak_child_memory_mib([*judge, "index", "build", str(ipg)], env)
        commands = {
            'python -c "import click"': [sys.executable, "-c", "import click"],
            "judge ipg 2.1 (cold)": [*judge, "ipg", "2.1"],
            'judge ipg "missed trigger" (cold)': [*judge, "ipg", "missed", "trigger"],
        }
        medians = interleaved(commands, env, args.runs)
        base_wall, base_cpu = medians['python -c "import click"']
        for label, (wall, cpu) in medians.items():
            print(
                f"{label:36} wall {wall:6.1f} ms ({wall / base_wall:.2f}x)  "
                f"cpu {cpu:6.1f} ms ({cpu / base_cpu:.2f}x)"
            )
        wall, cpu = medians["judge ipg 2.1 (cold)"]
        met = wall <= 1.5 * base_wall
        print(f"goal: judge ipg 2.1 <= 1.50x (wall)  {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
