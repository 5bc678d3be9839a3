"""Cold ``judge rule 704.5j`` against ``python -c "import click"``, and ``judge index build``.

Goals (issue 2): the cold lookup within 1.5x of importing click, measured side by side as the
median of at least 10 runs; the build's seconds and peak memory reported.

    python benchmarks/rule_speed.py [--runs 15] [CR-FILE]
"""

from __future__ import annotations

import argparse
import sys
import tempfile

from _common import environment, median_ms, newest_corpus_file, peak_child_memory_mib, time_command


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", help="CR file to build (default: newest in the corpus)")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    path = args.file or str(newest_corpus_file())
    with tempfile.TemporaryDirectory() as home:
        env = environment(JUDGE_HOME=home)
        judge = [sys.executable, "-m", "judge_cli"]
        seconds, peak = peak_child_memory_mib([*judge, "index", "build", path], env)
        print(f"judge index build {path.rsplit('/', 1)[-1]}: {seconds:.2f} s, peak {peak:.0f} MiB")
        baseline = time_command([sys.executable, "-c", "import click"], env, args.runs)
        lookup = time_command([*judge, "rule", "704.5j"], env, args.runs)
        base_ms, rule_ms = median_ms(baseline), median_ms(lookup)
        base_label, rule_label = 'python -c "import click"', "judge rule 704.5j (cold)"
        print(f"{base_label:32} median {base_ms:6.1f} ms  (baseline)")
        print(f"{rule_label:32} median {rule_ms:6.1f} ms  ({rule_ms / base_ms:.2f}x)")
        print(f"goal: <= 1.50x  {'met' if rule_ms <= 1.5 * base_ms else 'NOT met'}")


if __name__ == "__main__":
    main()
