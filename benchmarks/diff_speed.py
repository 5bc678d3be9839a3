"""Benchmark: whole-document diff of two modern editions (goal: at most 2 s).

Run: ``python benchmarks/diff_speed.py`` (needs ../shared/corpus beside the repository).
Reading the two files is not counted; the figure is the best of three runs of
``diff_documents`` on fresh documents (so no cache from an earlier run helps).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from index.diff import diff_documents
from index.reader import read_cr_path

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
PAIRS = [("20250207", "20251114"), ("20220429", "20260116"), ("20130713", "20180713")]
GOAL = 2.0


def main() -> int:
    if not CORPUS.is_dir():
        print(f"skipped: {CORPUS} is absent (the real CR files live there)")
        return 0
    worst = 0.0
    for old_date, new_date in PAIRS:
        timings = []
        for _ in range(3):
            from index import diff as diff_module

            # Start cold: the text caches would otherwise remember the previous run.
            diff_module._plain.cache_clear()
            diff_module._references.cache_clear()
            old = read_cr_path(CORPUS / f"cr-{old_date}.txt")
            new = read_cr_path(CORPUS / f"cr-{new_date}.txt")
            start = time.perf_counter()
            changes = diff_documents(old, new)
            timings.append(time.perf_counter() - start)
        best = min(timings)
        worst = max(worst, best)
        print(f"diff {old_date} → {new_date}: {best:.2f} s, {len(changes)} changes")
    verdict = "ok" if worst <= GOAL else "OVER GOAL"
    print(f"slowest: {worst:.2f} s (goal ≤ {GOAL:.0f} s): {verdict}")
    return 0 if worst <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
