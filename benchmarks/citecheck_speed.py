"""Benchmark: ``cite-check`` on 40,000 citations (goal: a few seconds; it took 179 s).

Run: ``python benchmarks/citecheck_speed.py [--citations N]`` (needs ../shared/corpus beside the
repository). The text is every line of the 2022, 2025 and 2026 editions that cites a rule (rules,
examples, glossary), repeated until it holds N citations; it is checked against the 2025-02-07
edition without ``--written-for`` (the suspicious test, the slow one). Reading the edition is not
counted; building the word index is. The figure is the best of three runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

from index import citecheck
from index.citecheck import ContextIndex, check_citations, find_citations
from index.numbers import find_references
from index.reader import read_cr_path

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
BASELINE_SECONDS = 179.0
"""40,000 citations before this benchmark existed (4.5 ms each), as measured in issue 16."""
GOAL_SECONDS = 10.0


def citing_lines() -> list[str]:
    """The lines of three modern editions that cite a rule, each once, in document order."""
    lines: list[str] = []
    seen: set[str] = set()
    for date in ("20220429", "20250207", "20260116"):
        doc = read_cr_path(CORPUS / f"cr-{date}.txt")
        texts = [t for r in doc.rules.values() for t in (r.text, *r.examples)]
        texts += [f"{g.term}: {' '.join(g.definition.split())}" for g in doc.glossary]
        for text in texts:
            if text not in seen and find_references(text):
                seen.add(text)
                lines.append(text)
    return lines


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--citations", type=int, default=40_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"skipped: {CORPUS} is absent (the real CR files live there)")
        return 0
    lines = citing_lines()
    distinct = len(find_citations("\n".join(lines)))
    text_lines: list[str] = []
    count = 0
    while count < args.citations:
        for line in lines:
            text_lines.append(line)
            count += len(find_references(line))
            if count >= args.citations:
                break
    text = "\n".join(text_lines)
    timings, builds = [], []
    for _ in range(args.runs):
        # A fresh document and cold caches each run, so that no run helps the next.
        cache = getattr(citecheck, "_line_citations", None)  # absent before it existed
        if cache is not None:
            cache.cache_clear()
        document = read_cr_path(CORPUS / "cr-20250207.txt")
        start = time.perf_counter()
        checks = check_citations(find_citations(text), document)
        timings.append(time.perf_counter() - start)
        start = time.perf_counter()
        ContextIndex(document)
        builds.append(time.perf_counter() - start)
    best = min(timings)
    statuses = Counter(c.status for c in checks)
    print(
        f"{len(checks)} citations ({distinct} distinct) in {len(text_lines)} lines: "
        f"{best:.2f} s, {best / len(checks) * 1000:.3f} ms each; "
        + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()))
    )
    scaled = BASELINE_SECONDS * len(checks) / 40_000
    print(f"(of which building the word index of the edition: {min(builds):.2f} s)")
    print(f"baseline: {scaled:.0f} s (4.5 ms each); goal ≤ {GOAL_SECONDS:.0f} s")
    verdict = "ok" if best <= GOAL_SECONDS * len(checks) / 40_000 else "OVER GOAL"
    print(verdict)
    return 0 if verdict == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
