"""The word-order factor of the coverage re-rank (``index.search.proximity``) on a grid.

Usage::

    python benchmarks/proximity_sweep.py                 # judge, judge+cards: T and ours A-P
    python benchmarks/proximity_sweep.py --semantic      # also judge+sem, judge+cards+sem
    python benchmarks/proximity_sweep.py --held-back     # H too (only for the chosen variants)
    python benchmarks/proximity_sweep.py --only "0.3 3 mean 0 0"  # one variant (and off)

Each variant is ``lambda window weight triples ordered``; the first row is the factor off.
Real questions: the tuning half T (success@5 / MRR), and the held-back half H only when asked
(``--held-back``: score it for the variant chosen on T and ours, not to choose one). Ours: the
written halves A-P (recall@5 / MRR), in the newest edition, as ``relevance.py`` scores them.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import relevance  # noqa: E402
from _engines import card_names, load_model  # noqa: E402
from _real_questions import REAL_EDITION, half_of, read_real_questions  # noqa: E402

from index.reader import read_cr_path  # noqa: E402
from index.search import proximity as px  # noqa: E402

GRID = [
    "0 1 mean 0 0",
    *(f"{lam} {w} mean 0 0" for w in (1, 3) for lam in (0.1, 0.2, 0.3, 0.5, 1.0)),
    *(f"{lam} {w} mean 1 0" for w in (1, 3) for lam in (0.2, 0.5)),
    *(f"{lam} {w} one 0 0" for w in (1, 3) for lam in (0.2, 0.5)),
    *(f"{lam} {w} min 0 0" for w in (1, 3) for lam in (0.2, 0.5)),
    *(f"{lam} 1 mean 0 1" for lam in (0.2, 0.5)),
]


def set_variant(spec: str) -> None:
    lam, window, weight, triples, ordered = spec.split()
    px.PROXIMITY = float(lam)
    px.WINDOW = int(window)
    px.WEIGHT = weight
    px.TRIPLES = triples == "1"
    px.ORDERED = ordered == "1"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--semantic", action="store_true", help="the re-ranked engines too")
    parser.add_argument("--held-back", action="store_true", help="score H as well")
    parser.add_argument("--only", action="append", default=[], help="one variant (repeatable)")
    parser.add_argument("--no-own", action="store_true", help="skip our halves")
    args = parser.parse_args()
    ns = argparse.Namespace(
        no_extras=True,
        only_judge=True,
        no_semantic=not args.semantic,
        model=relevance.MODEL,
        cache=relevance.CACHE,
        dtype="int8",
        card_names=card_names(relevance.CARDS, relevance.CACHE),
    )
    from index.semantic import ADD, CARDS_WEIGHT, DEPTH, WEIGHT

    ns.weight, ns.cards_weight, ns.depth, ns.add = WEIGHT, CARDS_WEIGHT, DEPTH, ADD
    loaded = load_model(ns)
    questions = read_real_questions()
    halves = ["T", "H"] if args.held_back else ["T"]
    real = {h: [q for q in questions if half_of(q.id) == h] for h in halves}
    own = [q for q in relevance.read_questions() if q.half != "Q"]
    grid = ["0 1 mean 0 0", *args.only] if args.only else GRID
    print(f"load {os.getloadavg()[0]:.2f}; variant: lambda window weight triples ordered")
    with tempfile.TemporaryDirectory() as tmp:
        setups = {
            "real": relevance.Setup(
                read_cr_path(relevance.CORPUS / f"cr-{REAL_EDITION}.txt"), Path(tmp) / "r", ns
            )
        }
        if not args.no_own:
            setups["own"] = relevance.Setup(
                read_cr_path(relevance.newest_corpus_file()), Path(tmp) / "o", ns
            )
        for s in setups.values():
            if loaded is not None:
                s.add_semantic(*loaded)
            del s.engines["bm25"]
            s.engines.pop("dense", None)
        for spec in grid:
            set_variant(spec)
            for s in setups.values():
                for lex in [*s.lexical.values(), s.with_cards]:
                    if lex is not None:
                        lex._memo.clear()
            cells = []
            for name in setups["real"].engines:
                parts = []
                for h in halves:
                    m = relevance.score_real(real[h], setups["real"].engines[name])
                    parts.append(f"{h} {m['r@5']:.3f}/{m['mrr']:.3f}")
                if "own" in setups:
                    m = relevance.score(own, setups["own"].engines[name])
                    parts.append(f"ours {m['r@5']:.3f}/{m['mrr']:.3f}")
                cells.append(f"{name}: " + " ".join(parts))
            print(f"{spec:<16} | " + " | ".join(cells), flush=True)
        for s in setups.values():
            s.close()
    print(f"load {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
