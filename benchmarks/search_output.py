"""``judge search``'s JSON for a few hundred questions, to compare two checkouts' answers.

Usage: ``python benchmarks/search_output.py [--checkout DIR] [--scope all] > out.jsonl``, with
``JUDGE_HOME`` naming a data folder (an edition stored, and cards for the rulings). One line
per question and scope: the JSON ``judge search QUESTION --json --no-semantic`` prints. The
questions: ../shared/questions/real-questions.jsonl and ``questions.tsv`` beside this file,
each also asked with the name of a card with rulings in front (so that rulings are shown).
``--checkout`` runs another checkout's code (its own ``index``), for output before and after a
change: ``cmp`` the two files.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

CARDS = ("Platinum Angel", "Darksteel Citadel", "Humility", "Blood Moon", "Tarmogoyf")
"""Cards with rulings in the shared card file, put in front of some questions."""


def questions() -> list[str]:
    """The real questions, ours, and some of ours naming a card (read here, not through
    ``relevance``, which would import this checkout's ``index`` first)."""
    real = HERE.parents[1] / "shared" / "questions" / "real-questions.jsonl"
    lines = real.read_text(encoding="utf-8").splitlines() if real.is_file() else []
    texts = [json.loads(line)["question"] for line in lines if line.strip()]
    ours = [
        line.split("\t")[1]
        for line in (HERE / "questions.tsv").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    named = [f"{CARDS[i % len(CARDS)]} {q}" for i, q in enumerate(ours[::4])]
    return texts + ours + named


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkout", type=Path, default=HERE.parent)
    parser.add_argument("--scope", action="append", help="scopes to search (default: all)")
    args = parser.parse_args(argv)
    texts = questions()
    sys.path.insert(0, str(args.checkout.resolve()))
    from index.edition import open_edition

    ed = open_edition(None, notice=lambda text: print(text, file=sys.stderr))
    for scope in args.scope or ["all"]:
        for text in texts:
            found = ed.search(text, limit=10, scope=scope, semantic=False)
            print(json.dumps({"scope": scope, **found.to_json()}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
