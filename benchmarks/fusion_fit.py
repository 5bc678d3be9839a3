"""A learned fusion for the semantic re-rank, fitted and scored on the same candidates.

Usage::

    python benchmarks/fusion_fit.py                     # dump candidates (cached), fit, score
    python benchmarks/fusion_fit.py --on AP,T           # fit on our A–P and the real half T
    python benchmarks/fusion_fit.py --loss list         # a listwise (softmax) loss
    python benchmarks/fusion_fit.py --features sum,section   # only these features
    python benchmarks/fusion_fit.py --held              # score the held-back half H too
    python benchmarks/fusion_fit.py --above             # what stands above answers 2nd to 5th

For each question, the re-rank's candidates (the ``judge+cards`` pool's first
``index.semantic.DEPTH`` and the model's ``ADD`` nearest, as ``reranked_search`` makes them)
are described by ``_fusion.features`` and labelled (an answer or not, each set scored its own
way: ``_real_questions.is_expected`` for the real questions, ``relevance.is_answer`` for ours).
A logistic model (gradient descent, L2 ``--l2``) is fitted on the sets ``--on`` names, pointwise
(log-loss per candidate) or listwise (per question, minus the log of its answers' softmax
share); the held-back half ``H`` is never fitted on and scored only with ``--held``; our
unseen half ``Q`` is not even read. Printed: success@5 / MRR of the weighted sum
(``combine``'s score today, glossary entries cut as ``reranked`` cuts them) and of the fitted
model, on T, H and (recall@5 / MRR) our A–P, beside the coefficients. The weighted sum's
figures here are ``relevance.py``'s for judge+cards+sem, to the last digit.

Measured 2026-12-01 (2025-02-07 edition for the real questions, 2026-01-16 for ours; T, H
success@5 / MRR, ours recall@5 / MRR; H only where named). The weighted sum: T 0.696 / 0.499,
H 0.533 / 0.353, ours 0.871 / 0.748. All 12 first features, fitted on A–P: pointwise T 0.674 /
0.510, H 0.556 / 0.338, ours 0.878 / 0.747; listwise T 0.674 / 0.509, H 0.511 / 0.346, ours
0.891 / 0.753; listwise L2 0.001 T 0.717 / 0.495, H 0.511 / 0.327, ours 0.884 / 0.757; fitted
on A–P and T, listwise H 0.489 / 0.331, pointwise H 0.556 / 0.338. With ``family`` and
``first`` added: pointwise T 0.696 / 0.507, ours 0.879 / 0.747; listwise T 0.674 / 0.519,
ours 0.888 / 0.754; listwise L2 0.001 T 0.717 / 0.511, H 0.489 / 0.335, ours 0.883 / 0.758.
Fewer features, pointwise then listwise (T; ours): sum + section 0.652 / 0.509, 0.873 / 0.759
and 0.652 / 0.505, 0.873 / 0.754; + family 0.674 / 0.508, 0.874 / 0.758 and 0.652 / 0.506,
0.873 / 0.756; + first too 0.674 / 0.508, 0.874 / 0.757 and 0.652 / 0.512, 0.873 / 0.756; sum
and both ranks 0.717 / 0.506, 0.876 / 0.743 and 0.717 / 0.505, 0.878 / 0.744; sum and the
three kinds 0.696 / 0.516, 0.856 / 0.740 and 0.674 / 0.498, 0.871 / 0.751; lexical, cosine and
section 0.652 / 0.503, 0.868 / 0.748 and 0.696 / 0.512, 0.881 / 0.755 (the one lifting both T
and ours; its H 0.511 / 0.361: one question out of H's top 5). The fusion lifts our own
questions (which it is fitted on) and not the real ones held back: not shipped, ``combine``
keeps the weighted sum.

``--above`` (the weighted sum): of T's 14 questions answered 2nd to 5th, the hit just above
the answer is a rule of another section for 9, of the same rule (702.55c above 702.55a) for 4,
of the same section for 1; ours A–P 97, 16 and 20 of 133. What outranks an answer is mostly a
rule about something else the question also mentions, not a sibling: an order of siblings would
move few.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _engines import Lexical, card_names, edition_vectors, load_model  # noqa: E402
from _real_questions import (  # noqa: E402
    REAL_EDITION,
    half_of,
    is_expected,
    read_real_questions,
)
from relevance import CACHE, CARDS, CORPUS, MODEL, is_answer, newest_corpus_file  # noqa: E402
from relevance import read_questions as read_own  # noqa: E402

from index.reader import read_cr_path  # noqa: E402

Row = dict[str, Any]


def candidates(engine: Lexical, vectors: Any, model: Any, text: str) -> tuple[list[Any], int]:
    """What the re-rank orders for ``text``: its candidates' features, and how many are pinned."""
    from _fusion import features

    from index.semantic import ADD, CARDS_WEIGHT, DEPTH, WEIGHT
    from index.semantic.reranking import _nearest_positions

    found = engine.searcher.search(text, limit=max(10, DEPTH), scope="all")
    question = found.searched or text
    sims = vectors.similarities(model.embed_query(question)[0])
    keep = found.pinned
    body = list(found.results[keep : keep + DEPTH])
    seen = {h.id for h in found.results}
    added = []
    for i in _nearest_positions(sims, ADD + len(seen)):
        rid = vectors.ids[int(i)]
        if rid in seen:
            continue
        made = engine.searcher.find_record(rid, "all")
        if made is not None:
            added.append(made)
            seen.add(rid)
        if len(added) >= ADD:
            break
    weight = CARDS_WEIGHT if found.cards else WEIGHT
    rows = features(sims, vectors.position, body, added, weight)
    head = [h.id for h in found.results[:keep]]
    tail = [h.id for h in found.results[keep + DEPTH :]]
    ids = [h.id for h in body] + [h.id for h in added]
    return [head, ids, rows, tail, bool(found.cards)], keep


def dump(args: argparse.Namespace) -> list[Row]:
    """Every question's candidates (cached in ``--cache``, keyed by the code's features)."""
    from _fusion import NAMES

    out = args.cache / "fusion-candidates.json"
    if out.is_file() and not args.again:
        data: list[Row] = json.loads(out.read_text(encoding="utf-8"))
        if data and data[0].get("names") == list(NAMES):
            return data
    loaded = load_model(args)
    if loaded is None:
        raise SystemExit("the model and the semantic extra are needed")
    model, encoder = loaded
    cards = card_names(args.cards, args.cache)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        sets = [
            ("real", CORPUS / f"cr-{REAL_EDITION}.txt"),
            ("own", newest_corpus_file()),
        ]
        for name, path in sets:
            doc = read_cr_path(path)
            engine = Lexical(doc, Path(tmp) / name, cards=cards)
            vectors = edition_vectors(doc, args.cache, encoder, phrasings=True)
            if name == "real":
                qs = [
                    (half_of(q.id), q.id, q.text, list(q.expected)) for q in read_real_questions()
                ]
            else:
                qs = [
                    (q.half, f"own{i}", q.text, list(q.answers))
                    for i, q in enumerate(read_own())
                    if q.half != "Q"  # never seen: not even candidates
                ]
            for half, qid, text, want in qs:
                (head, ids, feats, tail, cards_read), _ = candidates(engine, vectors, model, text)
                check = is_expected if name == "real" else is_answer
                rows.append(
                    {
                        "names": list(NAMES),
                        "set": name,
                        "half": half,
                        "id": qid,
                        "head": [check(i, tuple(want)) for i in head],
                        "ids": ids,
                        "glossary": [i.startswith("glossary:") for i in ids],
                        "x": feats,
                        "y": [check(i, tuple(want)) for i in ids],
                        "tail": [check(i, tuple(want)) for i in tail],
                        "cards": cards_read,
                        "question": len(text.split()) >= 5,
                    }
                )
            engine.close()
    args.cache.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows), encoding="utf-8")
    return rows


def ranks(rows: list[Row], scorer: Any) -> list[int | None]:
    """The first answer's rank (1-based, up to 10) per question when ``scorer`` orders."""
    out: list[int | None] = []
    for row in rows:
        scores = [scorer(j, row) for j in range(len(row["x"]))]
        if row["question"]:  # reranked() cuts a glossary entry's score in a question
            scores = [s * 0.5 if g else s for s, g in zip(scores, row["glossary"], strict=True)]
        order = sorted(range(len(scores)), key=lambda j: -scores[j])
        labels = [*row["head"], *(row["y"][j] for j in order), *row["tail"]]
        first = next((i for i, y in enumerate(labels[:10], 1) if y), None)
        out.append(first)
    return out


def _columns(row: Row) -> list[list[float]]:
    """A row's every feature (``--features`` zeroes some in ``x``)."""
    found: list[list[float]] = row["all"] if "all" in row else row["x"]
    return found


def above(rows: list[Row]) -> dict[str, int]:
    """What stands above the first answer when it is 2nd to 5th by the weighted sum: per
    question, the kind of the hit just above the answer, printed; their counts returned."""
    from _fusion import NAMES, family

    counts: dict[str, int] = {}
    for row in rows:
        scores = [x[NAMES.index("sum")] for x in _columns(row)]
        if row["question"]:
            scores = [s * 0.5 if g else s for s, g in zip(scores, row["glossary"], strict=True)]
        order = sorted(range(len(scores)), key=lambda j: -scores[j])
        ids = [row["ids"][j] for j in order]
        labels = [row["y"][j] for j in order]
        if row["head"] or not any(labels[:5]) or labels[0]:
            continue
        first = labels.index(True)
        answer, over = ids[first], ids[:first]
        kinds = [_kind_above(o, answer, family) for o in over]
        kind = kinds[-1]
        counts[kind] = counts.get(kind, 0) + 1
        print(
            f"  {row['id']:<8} answer {answer} at {first + 1}; above: "
            + ", ".join(f"{o} ({k})" for o, k in zip(over, kinds, strict=True))
        )
    return counts


def _kind_above(other: str, answer: str, family: Any) -> str:
    if other.startswith("glossary:"):
        return "glossary entry"
    if family(other) is not None and family(other) == family(answer):
        return "same rule"
    if other[:3] == answer[:3]:
        return "same section"
    return "another section"


def figures(found: list[int | None]) -> str:
    n = len(found) or 1
    s5 = sum(1 for r in found if r is not None and r <= 5) / n
    mrr = sum(1 / r for r in found if r is not None) / n
    return f"{s5:.3f} / {mrr:.3f}"


def fit(rows: list[Row], l2: float, steps: int = 3000) -> list[float]:
    """Logistic coefficients (bias first) over every candidate of ``rows``."""
    import numpy as np

    x = np.array([f for r in rows for f in r["x"]], dtype=np.float64)
    y = np.array([float(v) for r in rows for v in r["y"]])
    x = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(x.shape[1])
    rate = 0.5
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) / len(y) + l2 * np.r_[0.0, w[1:]]
        w -= rate * grad
    return [float(v) for v in w]


def fit_listwise(rows: list[Row], l2: float, steps: int = 3000) -> list[float]:
    """Coefficients (bias first, 0) maximising, per question with an answer among its
    candidates, the log of the softmax share of its answers (a listwise loss: the first rank)."""
    import numpy as np

    rows = [r for r in rows if any(r["y"])]
    width = max(len(r["x"]) for r in rows)
    f = len(rows[0]["x"][0])
    x = np.zeros((len(rows), width, f))
    mask = np.zeros((len(rows), width), dtype=bool)
    y = np.zeros((len(rows), width), dtype=bool)
    for i, r in enumerate(rows):
        n = len(r["x"])
        x[i, :n] = r["x"]
        mask[i, :n] = True
        y[i, :n] = r["y"]
    w = np.zeros(f)
    rate = 0.5
    for _ in range(steps):
        z = np.where(mask, x @ w, -np.inf)
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        p = e / e.sum(axis=1, keepdims=True)
        ey = np.where(y, e, 0.0)
        q = ey / ey.sum(axis=1, keepdims=True)
        # d(-log sum_y p)/dz = p - q
        grad = np.einsum("qc,qcf->f", p - q, x) / len(rows) + l2 * w
        w -= rate * grad
    return [0.0, *(float(v) for v in w)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--on", default="AP", help="fitted on: AP (our A–P), T, or AP,T")
    parser.add_argument("--l2", type=float, default=0.01)
    parser.add_argument("--loss", default="point", help="point (logistic) or list (softmax)")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--features", default="", help="only these features (comma-separated)")
    parser.add_argument("--above", action="store_true", help="what stands above answers 2-5")
    parser.add_argument("--held", action="store_true", help="score the held-back half H too")
    parser.add_argument("--again", action="store_true", help="dump the candidates again")
    parser.add_argument("--model", type=Path, default=MODEL)
    parser.add_argument("--cards", type=Path, default=CARDS)
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--no-semantic", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    from _fusion import NAMES, learned

    rows = dump(args)
    if args.features:
        # Only these features: the others' columns read as 0 (their coefficients stay 0).
        use = [NAMES.index(n) for n in args.features.split(",")]
        for r in rows:
            r["all"] = r["x"]
            r["x"] = [[x[i] if i in use else 0.0 for i in range(len(x))] for x in r["x"]]
    parts = {
        "T": [r for r in rows if r["set"] == "real" and r["half"] == "T"],
        "H": [r for r in rows if r["set"] == "real" and r["half"] == "H"],
        "AP": [r for r in rows if r["set"] == "own"],
    }
    if args.above:
        for key in ("T", "H", "AP") if args.held else ("T", "AP"):
            print(f"{key}: answers 2nd to 5th by the weighted sum, and what stands above")
            print(f"  {key}: " + ", ".join(f"{k} {n}" for k, n in above(parts[key]).items()))
        return 0
    train = [r for key in args.on.split(",") for r in parts[key]]
    fitter = fit_listwise if args.loss == "list" else fit
    coef = fitter(train, args.l2, args.steps)

    def today(j: int, row: Row) -> float:
        return float(_columns(row)[j][NAMES.index("sum")])

    def fitted(j: int, row: Row) -> float:
        return learned(row["x"][j], coef)

    size = sum(len(r["y"]) for r in train)
    print(f"{args.loss}wise, fitted on {args.on}: {size} candidates, l2 {args.l2}")
    print(f"{'':<10}{'T s@5/MRR':>16}{'H s@5/MRR':>16}{'ours R@5/MRR':>16}")
    for label, scorer in (("sum", today), ("fitted", fitted)):
        cells = [
            figures(ranks(parts[k], scorer)) if k != "H" or args.held else "(held back)"
            for k in ("T", "H", "AP")
        ]
        print(f"{label:<10}" + "".join(f"{c:>16}" for c in cells))
    print("coefficients (bias first):")
    for name, value in zip(("bias", *NAMES), coef, strict=True):
        print(f"    {name!r}: {value:.4f},")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
