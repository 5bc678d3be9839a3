"""A TAB completion against ``python -c "import click"``: rule numbers and card names.

Goal (issues 12 and 15): each TAB <= 1.5x ``python -c "import click"`` (median of the runs,
interleaved, in one run of this script), importing no whoosh. A TAB is a fresh process, the
console script ``judge`` with click's completion variables set, as the bash script runs it.

    python benchmarks/completion_speed.py [--runs 20] [--home JUDGE_HOME]

Without ``--home`` a scratch data folder is filled with the newest CR of ../shared/corpus and
the card file of ../shared/cards.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, environment, newest_corpus_file

CARDS = ROOT.parent / "shared" / "cards" / "AtomicCards.json.xz"

TABS = [
    ("judge rule 704.5<TAB>", "judge\nrule\n704.5"),
    ("judge card plat<TAB>", "judge\ncard\nplat"),
    ("judge card 'platinum a<TAB>", "judge\ncard\n'platinum a"),
    ("judge card lim-d<TAB>", "judge\ncard\nlim-d"),
]


def _fill(home: str) -> None:
    sys.path.insert(0, str(ROOT))
    from index.cards.store import CardStore
    from index.store import EditionStore

    if not CARDS.is_file():
        sys.exit(f"no card file at {CARDS}: the benchmark needs ../shared/cards")
    cr = newest_corpus_file()
    EditionStore(Path(home)).add_bytes(cr.read_bytes(), cr.name)  # numbers.json: no index needed
    CardStore(Path(home)).import_cards(CARDS)


def _once(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, check=True, capture_output=True, text=True)
    return time.perf_counter() - start, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="timed runs of each (default 20)")
    parser.add_argument("--home", help="a JUDGE_HOME with an edition and card data")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        home = args.home or scratch
        if not args.home:
            _fill(home)
        env = environment(JUDGE_HOME=home)
        judge = str(Path(sys.executable).parent / "judge")
        commands: list[tuple[str, list[str], dict[str, str]]] = [
            ('python -c "import click"', [sys.executable, "-c", "import click"], env)
        ]
        for label, words in TABS:
            cword = str(words.count("\n"))
            tab = {**env, "_JUDGE_COMPLETE": "bash_complete", "COMP_WORDS": words}
            commands.append((label, [judge], {**tab, "COMP_CWORD": cword}))
        times: dict[str, list[float]] = {label: [] for label, _, _ in commands}
        answers: dict[str, str] = {}
        for label, argv, run_env in commands:  # warm-up: bytecode, the page cache
            answers[label] = _once(argv, run_env)[1]
        for _ in range(args.runs):  # interleaved, so that a busy moment hits all alike
            for label, argv, run_env in commands:
                times[label].append(_once(argv, run_env)[0])
        base = statistics.median(times[commands[0][0]]) * 1000
        print(f"{args.runs} runs each, interleaved; median wall time")
        for label, _, _ in commands:
            ms = statistics.median(times[label]) * 1000
            ratio = ms / base
            first = answers[label].splitlines()[:2]
            shown = f"  -> {', '.join(first)}" if label.startswith("judge") else "  (baseline)"
            print(f"  {label:32} {ms:7.1f} ms  {ratio:4.2f}x{shown}")
        worst = max(statistics.median(times[label]) * 1000 for label, _, _ in commands[1:])
        print(f"  goal: every TAB <= 1.50x  {'met' if worst <= 1.5 * base else 'NOT met'}")


if __name__ == "__main__":
    main()
