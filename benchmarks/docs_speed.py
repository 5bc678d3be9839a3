"""Reading the tournament documents, and cold ``judge ipg 2.1`` against ``import click``.

Goals (issue 13): the cold lookup within 1.5x of ``python -c "import click"`` (median of at
least 10 runs, side by side); reading the MTR PDF reported in seconds and peak memory, beside
reading the same document as text.

    python benchmarks/docs_speed.py [--runs 15]
"""

from __future__ import annotations

import argparse
import sys
import tempfile

from _common import ROOT, environment, median_ms, peak_child_memory_mib, time_command

DOCS = ROOT.parent / "shared" / "judge-docs"


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
            print(f"{label:42} {seconds:6.2f} s, peak {peak:4.0f} MiB")
        seconds, peak = peak_child_memory_mib([*judge, "index", "build", str(ipg)], env)
        baseline = time_command([sys.executable, "-c", "import click"], env, args.runs)
        lookup = time_command([*judge, "ipg", "2.1"], env, args.runs)
        named = time_command([*judge, "ipg", "missed", "trigger"], env, args.runs)
        base_ms = median_ms(baseline)
        rows = [
            ('python -c "import click"', base_ms),
            ("judge ipg 2.1 (cold)", median_ms(lookup)),
            ('judge ipg "missed trigger" (cold)', median_ms(named)),
        ]
        for label, ms in rows:
            ratio = "(baseline)" if ms is base_ms else f"({ms / base_ms:.2f}x)"
            print(f"{label:42} median {ms:6.1f} ms  {ratio}")
        ok = rows[1][1] <= 1.5 * base_ms
        print(f"goal: judge ipg 2.1 <= 1.50x  {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
