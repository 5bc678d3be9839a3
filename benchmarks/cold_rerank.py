"""The cold one-shot re-rank, in process and through the forked child (index.semantic.forked).

Usage: ``python benchmarks/cold_rerank.py [--runs 9] [--home DIR] [--before CHECKOUT]`` (needs
../shared/corpus, ../shared/models and the semantic extra; ``DIR``: a data folder made by an
earlier run, kept with ``--keep``; ``CHECKOUT``: another version, e.g. a worktree of main with
its own ``.venv``, timed in the same rounds).

``judge search QUESTION`` is run in fresh processes, interleaved, as the installed ``judge``
runs it (:func:`judge_cli.launch.main`): with the child (as shipped),
with the child refused (``can_fork`` false: the model loaded in process, as before the child),
and ``--no-semantic``. Beside the wall time, which a busy machine makes meaningless for a
parallel path, each forked run reports its CPU critical path, from CPU clocks:
the parent's CPU until the fork, then the longer of the parent's CPU from the fork until it
waits for the answer and the child's main thread (its threads, the vectors' decoding,
overlapped: on a second core, which is free only once the parent waits), then the parent's
CPU after the answer. On an idle machine with two cores that is the wall
time, less process start and exit. Goal (issue 14): cold one-shot with the re-rank ≤ 400 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import environment, machine  # noqa: E402

QUESTIONS = ("we both went to zero at once, what happens?", "legend rule")

RUN = r"""
import json, os, sys, threading, time
mode, record = sys.argv[1], sys.argv[2]
from index.semantic import forked
parent = {}
child = {}
if mode == "in-process":
    forked.can_fork = lambda: False
else:
    start, answer = forked.start, forked.Child.answer
    loaded, answered = forked._loaded, forked._answer
    prestart = getattr(forked, "prestart", None)  # absent before the command line forked
    def timed_prestart(*a):
        parent["fork"] = time.process_time()
        return prestart(*a)
    def timed_start(*a):
        parent.setdefault("fork", time.process_time())
        return start(*a)
    if prestart is not None:
        forked.prestart = timed_prestart
    def timed_answer(self, q):
        parent["wait"] = time.process_time()
        out = answer(self, q)
        parent["answered"] = time.process_time()
        return out
    run, join = threading.Thread.run, threading.Thread.join
    def timed_run(self):  # the vectors' decoding (the longest, if there are more threads)
        t = time.thread_time()
        run(self)
        child["thread"] = max(child.get("thread", 0.0), time.thread_time() - t)
    def timed_join(self, *a):
        child["joining"] = time.thread_time()  # the last join: the main thread's work before
        join(self, *a)
    def timed_loaded(*a):
        # In the child: its main thread's clock starts at the fork.
        threading.Thread.run, threading.Thread.join = timed_run, timed_join
        child["threaded"] = time.thread_time()
        out = loaded(*a)
        child["joined"] = time.thread_time()
        return out
    def timed_answered(*a):
        out = answered(*a)
        child["end"] = time.thread_time()
        with open(record + ".child", "w") as fh:
            json.dump(child, fh)
        return out
    forked.start, forked.Child.answer = timed_start, timed_answer
    forked._loaded, forked._answer = timed_loaded, timed_answered
import atexit
def report():
    parent["end"] = time.process_time()
    with open(record, "w") as fh:
        json.dump(parent, fh)
atexit.register(report)
sys.argv = ["judge", "search", *sys.argv[3:]]
try:
    from judge_cli.launch import main  # as the installed `judge` runs
except ImportError:  # a checkout from before judge_cli.launch
    from judge_cli.cli import cli as main
main()
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _critical(parent: dict[str, float], child: dict[str, float]) -> float | None:
    """The CPU critical path of one forked run (see the module), in seconds."""
    if "wait" not in parent or not {"end", "joining", "threaded", "joined"} <= set(child):
        return None  # no child (or it did not answer)
    main = child["joining"] - child["threaded"]
    loading = child["threaded"] + max(main, child.get("thread", 0.0))
    after_join = child["end"] - child["joined"]
    in_child = loading + after_join
    return (
        parent["fork"]
        + max(parent["wait"] - parent["fork"], in_child)
        + (parent["end"] - parent["answered"])
    )


def _parts(parent: dict[str, float], child: dict[str, float]) -> dict[str, float] | None:
    """The critical path's parts (seconds of CPU): until the fork, the parent's search,
    the child's work, the parent's after the answer."""
    if _critical(parent, child) is None:
        return None
    main = child["joining"] - child["threaded"]
    in_child = child["threaded"] + max(main, child.get("thread", 0.0))
    return {
        "fork": parent["fork"],
        "parent": parent["wait"] - parent["fork"],
        "child": in_child + child["end"] - child["joined"],
        "after": parent["end"] - parent["answered"],
    }


def _one(
    mode: str, question: list[str], env: dict[str, str], tmp: Path, before: Path | None = None
) -> dict[str, float]:
    """One run; ``before``: a checkout of another version (its ``.venv``) runs it instead."""
    record = tmp / "record.json"
    for path in (record, Path(str(record) + ".child")):
        path.unlink(missing_ok=True)
    python = str(before / ".venv" / "bin" / "python") if before is not None else sys.executable
    argv = [python, "-c", RUN, mode, str(record), *question]
    cpu, start = _children_cpu(), time.perf_counter()
    subprocess.run(argv, env=env, check=True, capture_output=True, cwd=before or ROOT)
    out = {"wall": time.perf_counter() - start, "cpu": _children_cpu() - cpu}
    if mode == "forked":
        parent = json.loads(record.read_text())
        child_file = Path(str(record) + ".child")
        child = json.loads(child_file.read_text()) if child_file.is_file() else {}
        critical = _critical(parent, child)
        if critical is not None:
            out["critical"] = critical
            out.update({f"part {k}": v for k, v in (_parts(parent, child) or {}).items()})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--home", type=Path, default=None, help="a data folder made before")
    parser.add_argument("--keep", type=Path, default=None, help="make the data folder here")
    parser.add_argument(
        "--before",
        type=Path,
        default=None,
        metavar="CHECKOUT",
        help="another checkout (with its own .venv, e.g. a worktree of main) timed alongside",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        home = args.home
        if home is None:
            from semantic_speed import MODEL, _home

            if not (MODEL / "onnx" / "model.onnx").is_file():
                sys.exit(f"no model in {MODEL}: this benchmark needs ../shared/models")
            home = _home(args.keep or tmp, "float")
        env = environment(JUDGE_HOME=str(home))
        modes: dict[str, list[str]] = {
            **({"before, forked": []} if args.before is not None else {}),
            "forked": [],
            "in-process": [],
            "--no-semantic": ["--no-semantic"],
        }
        if args.before is not None:
            import compileall

            for package in ("glossary", "index", "judge_cli"):  # as environment() does here
                compileall.compile_dir(str(args.before / package), quiet=1)
        for question in QUESTIONS:
            runs: dict[str, list[dict[str, float]]] = {m: [] for m in modes}
            loads = []
            for _ in range(args.runs + 1):  # the first round warms the disk cache
                loads.append(os.getloadavg()[0])
                for mode, flags in modes.items():
                    kind = "in-process" if mode == "in-process" else "forked"
                    before = args.before if mode.startswith("before") else None
                    done = _one(kind, [*flags, question], env, tmp, before)
                    if len(loads) > 1:
                        runs[mode].append(done)
            print(
                f"{question!r}, median of {args.runs} (ms), load average "
                f"{min(loads):.1f}-{max(loads):.1f} on {machine()}:"
            )
            for mode, found in runs.items():
                wall = statistics.median(r["wall"] for r in found) * 1000
                cpu = statistics.median(r["cpu"] for r in found) * 1000
                line = f"   judge search, {mode:<15} wall {wall:6.0f}  CPU {cpu:6.0f}"
                paths = [r["critical"] for r in found if "critical" in r]
                if paths:
                    line += f"  CPU critical path {statistics.median(paths) * 1000:5.0f}"
                print(line)
                parts = [k for k in found[0] if k.startswith("part ")] if found else []
                if parts and len(paths) == len(found):
                    print(
                        "      the path's parts (median CPU ms): "
                        + ", ".join(
                            f"{k[5:]} {statistics.median(r[k] for r in found) * 1000:.0f}"
                            for k in parts
                        )
                    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
