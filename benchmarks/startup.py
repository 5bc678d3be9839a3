"""Cold start of one-shot commands, this tree beside an older commit, in one run.

Each command runs in a fresh process (median of N runs, the trees interleaved so that the
machine's load falls on both alike), next to ``python -c "import click"`` and a bare whoosh
script that opens the index and runs the same query. Each tree gets its own data folder, built
by its own ``judge index build``. Wall time is the goal's measure; the CPU time of the same runs
is printed after it, as it swings much less when others share the machine.

    python benchmarks/startup.py [--before a435ca1] [--runs 15] [CR-FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from _common import ROOT, median_ms, newest_corpus_file

COMMANDS = [
    ["rule", "704.5j"],
    ["define", "legend rule"],
    ["search", "legend rule"],
    ["--help"],
]
GOALS = {"rule 704.5j": 1.3, "define legend rule": 1.5}
"""Goals as a multiple of ``import click`` (issue 11: judge rule <= 1.3x)."""

BARE_WHOOSH = """
import sys
from whoosh import index
from whoosh.qparser import QueryParser
ix = index.open_dir(sys.argv[1])
with ix.searcher() as s:
    hits = s.search(QueryParser("body", ix.schema).parse("legend rule"), limit=10)
    [h.fields() for h in hits]
"""


def _env(tree: Path, home: str) -> dict[str, str]:
    # PYTHONPATH names the tree, and every run starts in it (cwd=env["PYTHONPATH"]): python -m
    # and -c put the working folder first on sys.path, so a run started in this checkout would
    # import this tree whatever PYTHONPATH says.
    env = dict(os.environ, JUDGE_HOME=home, PYTHONPATH=str(tree))
    env.pop("NO_COLOR", None)
    # As installed by pip: byte code written and used (else each run compiles the sources anew).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _time(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run, in seconds."""
    import time

    start = time.perf_counter()
    child = subprocess.Popen(
        argv,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        cwd=env["PYTHONPATH"],
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise subprocess.CalledProcessError(os.waitstatus_to_exitcode(status), argv)
    return wall, usage.ru_utime + usage.ru_stime


@contextlib.contextmanager
def prepared_trees(
    before_commit: str, cr_file: str
) -> Iterator[tuple[Path, dict[str, dict[str, str]]]]:
    """A scratch folder holding ``before_commit`` checked out, and each tree's environment.

    Yields ``(scratch, {"before": env, "now": env})``: each tree compiled, with its own data
    folder (``scratch/home-before``, ``scratch/home-now``) built by its own ``judge index build``.
    """
    with tempfile.TemporaryDirectory() as tmp:
        before = Path(tmp) / "before"
        subprocess.run(
            [
                "git",
                "-C",
                str(ROOT),
                "worktree",
                "add",
                "-q",
                "--detach",
                str(before),
                before_commit,
            ],
            check=True,
        )
        try:
            envs = {}
            for name, tree in {"before": before, "now": ROOT}.items():
                home = str(Path(tmp) / f"home-{name}")
                envs[name] = _env(tree, home)
                for package in ("glossary", "index", "judge_cli"):
                    compileall = [sys.executable, "-m", "compileall", "-q", str(tree / package)]
                    subprocess.run(
                        compileall, env=envs[name], check=True, capture_output=True, cwd=tree
                    )
                build = [sys.executable, "-m", "judge_cli", "index", "build", cr_file]
                subprocess.run(build, env=envs[name], check=True, capture_output=True, cwd=tree)
            yield Path(tmp), envs
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", help="CR file (default: newest in the corpus)")
    parser.add_argument("--before", default="a435ca1", help="the older commit to compare with")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    path = str(Path(args.file).resolve()) if args.file else str(newest_corpus_file())
    with prepared_trees(args.before, path) as (tmp, envs):
        trees = ("before", "now")
        search_dir = next((tmp / "home-now" / "editions").glob("*/b-*/search"))
        # The index itself is the build that search/CURRENT names (a versioned slot).
        current = search_dir / "CURRENT"
        if current.is_file():
            search_dir = search_dir / current.read_text(encoding="utf-8").strip()
        cases: list[tuple[str, str, list[str]]] = [
            ("baseline", 'python -c "import click"', [sys.executable, "-c", "import click"]),
            (
                "baseline",
                "bare whoosh query",
                [sys.executable, "-c", BARE_WHOOSH, str(search_dir)],
            ),
        ]
        for argv in COMMANDS:
            for name in trees:
                cases.append((name, " ".join(argv), [sys.executable, "-m", "judge_cli", *argv]))
        times: dict[tuple[str, str], list[float]] = {}
        cpu_times: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.runs + 1):  # the first round warms the disk cache: dropped
            for tree, label, argv in cases:
                env = envs["now"] if tree == "baseline" else envs[tree]
                wall, cpu = _time(argv, env)
                times.setdefault((tree, label), []).append(wall)
                cpu_times.setdefault((tree, label), []).append(cpu)
        med = {key: median_ms(values[1:]) for key, values in times.items()}
        cpu_med = {key: median_ms(values[1:]) for key, values in cpu_times.items()}
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"median of {args.runs} runs; before = {args.before}, now = this tree; load {load}")
    _table(med)
    # With other work on the machine, wall time swings by tenths; the CPU time a process
    # spends (user + system) swings much less, so it is printed too.
    print("\nCPU time (user + system), the same runs:")
    _table(cpu_med)


def _table(med: dict[tuple[str, str], float]) -> None:
    click_ms = med[("baseline", 'python -c "import click"')]
    whoosh_ms = med[("baseline", "bare whoosh query")]
    click_label, whoosh_label = 'python -c "import click"', "bare whoosh query"
    print(f"{click_label:28} {click_ms:7.1f} ms  (1.00x click)")
    print(f"{whoosh_label:28} {whoosh_ms:7.1f} ms  ({whoosh_ms / click_ms:.2f}x click)")
    for argv in COMMANDS:
        label = " ".join(argv)
        old, new = med[("before", label)], med[("now", label)]
        ref, ref_name = (whoosh_ms, "whoosh") if argv[0] == "search" else (click_ms, "click")
        goal = GOALS.get(label)
        verdict = ""
        if goal is not None:
            verdict = f"  goal <= {goal:.2f}x: {'met' if new <= goal * click_ms else 'NOT met'}"
        print(
            f"judge {label:22} before {old:7.1f} ms ({old / ref:.2f}x {ref_name})"
            f"   now {new:7.1f} ms ({new / ref:.2f}x {ref_name}){verdict}"
        )


if __name__ == "__main__":
    main()
