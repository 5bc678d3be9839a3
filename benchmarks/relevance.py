"""Relevance of ``judge search`` on real questions and on our own, beside a plain BM25 baseline.

Usage::

    python benchmarks/relevance.py                 # real questions + our halves, every engine
    python benchmarks/relevance.py --misses        # also list and classify the real misses
    python benchmarks/relevance.py --no-semantic   # lexical engines only (no model needed)
    python benchmarks/relevance.py --sweep         # the re-rank's weight/depth/add on a grid
    python benchmarks/relevance.py --show-answers  # print each answer's text (for verification)
    python benchmarks/relevance.py --halves ABCD   # only these halves (tune without seeing E)
    python benchmarks/relevance.py --pool pool.tsv # hits to judge blind (see judgments.tsv)
    python benchmarks/relevance.py --cards PATH    # card store: a data folder or AtomicCards file
    python benchmarks/relevance.py --no-cards      # without the judge+cards engine
    python benchmarks/relevance.py --cards-weight W  # judge+cards+sem's weight (cards read)
    python benchmarks/relevance.py --no-extras     # without the judge+docs engine

Two question sets. The real ones (``../shared/questions/real-questions.jsonl``: players' and
judges' questions asked in public, skipped with a note when absent) are scored in the
2025-02-07 edition their answer keys are written in, as their README says (success@1/5/10,
MRR@10, a parent rule counting for its lettered subrule; ``_real_questions.py``), overall and
per topic. Ours (``benchmarks/questions.tsv``, written by hand, see its header; plus the blind
pooled judgments of ``judgments.tsv``) are scored in the newest corpus edition (recall@k: an
answer or a rule below one in the top k; MRR: 1/rank of the first, 0 past 10), per half.

The real questions are also scored by half, as fixed before any tuning on them
(``_real_questions.HALVES``): ``T``, the odd ids, tuned on; ``H``, the even ids, held back.
Each engine's count of the classified misses of ``real-misses.tsv`` it answers in its top 5 is
printed by kind of miss.

Engines (``_engines.py``): ``bm25`` (sqlite FTS5, porter, the question's words OR-ed, over the
same documents; examples folded into their rule); ``judge`` (``judge search``); ``judge-phr``
(the phrasing files removed); ``judge+cards`` (``judge search`` with a card store, reading card
names in questions: ``--cards``, default ``../shared/cards/AtomicCards.json.xz``, imported once
into the cache; skipped with a note when absent); ``judge+docs`` (that, with the shared
tournament documents and card rulings searched beside the rules, as ``judge search`` does when
they are stored: ``_extras.py``); ``+sem`` (the semantic re-rank,
``index.semantic.searching.reranked_search``, of that engine's pool — ``judge+cards+sem`` is
what a user with both cards and a model runs, re-ranked at ``index.semantic.CARDS_WEIGHT``
(``--cards-weight``) when cards were read — with ``--model``, default
``../shared/models/all-MiniLM-L6-v2``; skipped with a note when the model or the extra is
absent); ``dense`` (the model's nearest documents alone).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "benchmarks"))

from _engines import DEPTH, Bm25Baseline, load_model  # noqa: E402
from _real_questions import (  # noqa: E402
    HALVES,
    REAL_EDITION,
    REAL_FILE,
    RealQuestion,
    half_of,
    read_miss_kinds,
    read_real_questions,
    real_rank,
)

from index.model import Document  # noqa: E402
from index.reader import read_cr_path  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
MODEL = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2"
CARDS = ROOT.parent / "shared" / "cards" / "AtomicCards.json.xz"
CACHE = ROOT / "benchmarks" / ".cache"
QUESTIONS = Path(__file__).with_name("questions.tsv")
JUDGMENTS = Path(__file__).with_name("judgments.tsv")


@dataclass(frozen=True)
class Question:
    half: str
    text: str
    answers: tuple[str, ...]
    note: str


def read_questions(path: Path = QUESTIONS) -> list[Question]:
    """The question set: one line per question, ``#`` comments skipped."""
    out: list[Question] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        half, text, answers, note = line.split("\t")
        out.append(Question(half, text, tuple(a.strip() for a in answers.split(";")), note))
    return out


def read_judgments(path: Path = JUDGMENTS) -> dict[str, tuple[str, ...]]:
    """Pooled answers: per question, the ids an assessor judged to answer it (blind to engine)."""
    out: dict[str, list[str]] = {}
    if not path.exists():
        return {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        _half, question, rid, verdict, _note = line.split("\t")
        if verdict.strip().lower() == "yes":
            out.setdefault(question, []).append(rid)
    return {q: tuple(ids) for q, ids in out.items()}


def pooled(questions: list[Question], judgments: dict[str, tuple[str, ...]]) -> list[Question]:
    """``questions`` with the answers the pooled assessment added."""
    return [
        dataclasses.replace(q, answers=q.answers + judgments.get(q.text, ())) for q in questions
    ]


def is_answer(result_id: str, answers: tuple[str, ...]) -> bool:
    """Checks if a result id answers: the same id, or a rule below an answer's rule."""
    for answer in answers:
        if answer.startswith("glossary:"):
            if result_id.lower() == answer.lower():
                return True
        elif result_id == answer or (
            result_id.startswith(answer)
            and len(result_id) > len(answer)
            and not result_id[len(answer)].isdigit()
        ):
            return True
    return False


def rank_of(ids: list[str], answers: tuple[str, ...]) -> int | None:
    for i, rid in enumerate(ids, 1):
        if is_answer(rid, answers):
            return i
    return None


def score(questions: list[Question], engine: Callable[[str], list[str]]) -> dict[str, float]:
    """recall at 1, 5 and 10 and MRR of ``engine`` on our questions."""
    return metrics([rank_of(engine(q.text), q.answers) for q in questions])


def write_pool(
    out: Path, doc: Document, questions: list[Question], engines: list[Callable[[str], list[str]]]
) -> None:
    """The pool to judge: per question, every top-5 hit of any engine not already an answer.

    Candidates are shuffled (seeded) and carry no engine name or rank, so whoever judges them
    cannot favour one engine.
    """
    glossary = {g.ref_id.lower(): g.definition for g in doc.glossary}
    rng = random.Random(20261129)
    lines = ["# half\tquestion\tcandidate\tverdict (yes/no)\ttext of the candidate"]
    for q in questions:
        ids = sorted({rid for engine in engines for rid in engine(q.text)[:5]})
        ids = [rid for rid in ids if not is_answer(rid, q.answers)]
        rng.shuffle(ids)
        for rid in ids:
            if rid.startswith("glossary:"):
                text = glossary.get(rid.lower(), "")
            else:
                rule = doc.rules.get(rid)
                text = rule.text if rule is not None else ""
            text = " ".join(text.split())
            lines.append(f"{q.half}\t{q.text}\t{rid}\t\t{text}")
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines) - 1} candidates for {len(questions)} questions written to {out}")


def newest_corpus_file() -> Path:
    files = sorted(CORPUS.glob("cr-*.txt"))
    if not files:
        raise SystemExit(f"no corpus in {CORPUS}: the real CR files must sit beside the repo")
    return files[-1]


Engine = Callable[[str], list[str]]


def metrics(ranks: list[int | None]) -> dict[str, float]:
    """success (recall) at 1, 5 and 10 and MRR@10 of a list of first-answer ranks."""
    n = len(ranks) or 1
    return {
        "n": float(len(ranks)),
        "r@1": sum(1 for r in ranks if r is not None and r <= 1) / n,
        "r@5": sum(1 for r in ranks if r is not None and r <= 5) / n,
        "r@10": sum(1 for r in ranks if r is not None and r <= 10) / n,
        "mrr": sum(1 / r for r in ranks if r is not None) / n,
    }


def score_real(questions: list[RealQuestion], engine: Engine) -> dict[str, float]:
    return metrics([real_rank(engine(q.text), q.expected) for q in questions])


def _line(label: str, s: dict[str, float]) -> str:
    return (
        f"{label:<24}{int(s['n']):>4}{s['r@1']:>8.3f}{s['r@5']:>8.3f}{s['r@10']:>8.3f}"
        f"{s['mrr']:>8.3f}"
    )


_HEAD = f"{'engine':<24}{'n':>4}{'@1':>8}{'@5':>8}{'@10':>8}{'MRR':>8}"


class Setup:
    """The engines of one edition: lexical with and without phrasings, and their re-ranks."""

    def __init__(self, doc: Document, folder: Path, args: argparse.Namespace) -> None:
        from _engines import Lexical

        self.doc = doc
        self.args = args
        self.engines: dict[str, Engine] = {"bm25": Bm25Baseline(doc).search}
        self.lexical = {True: Lexical(doc, folder / "phrasings", phrasings=True)}
        self.engines["judge"] = self.lexical[True]
        self.with_cards: Lexical | None = None
        if args.card_names is not None:
            self.with_cards = Lexical(
                doc, folder, cards=args.card_names, index=self.lexical[True].folder
            )
            self.engines["judge+cards"] = self.with_cards
            if not args.no_extras:
                from _extras import extra_indexes, extras_home

                home = extras_home()
                if home is not None:
                    # What judge search does with the shared documents and cards stored.
                    self.engines["judge+docs"] = Lexical(
                        doc,
                        folder,
                        cards=args.card_names,
                        index=self.lexical[True].folder,
                        extras=extra_indexes(home),
                    )
        if not args.only_judge:
            self.lexical[False] = Lexical(doc, folder / "bare", phrasings=False)
            self.engines["judge-phr"] = self.lexical[False]
        self.vectors: dict[bool, object] = {}
        self.model: object = None

    def add_semantic(self, model: object, encoder: object) -> None:
        from _engines import Dense, RememberingVectors, Reranked, edition_vectors

        self.model = model
        for phrasings, lexical in self.lexical.items():
            vectors = RememberingVectors(
                edition_vectors(
                    self.doc, self.args.cache, encoder, phrasings=phrasings, dtype=self.args.dtype
                )
            )
            self.vectors[phrasings] = vectors
            name = "judge+sem" if phrasings else "judge-phr+sem"
            self.engines[name] = Reranked(
                lexical,
                vectors,
                model,
                weight=self.args.weight,
                depth=self.args.depth,
                add=self.args.add,
            )
        if self.with_cards is not None:
            # What a user with both cards and a model runs: cards read, then the re-rank.
            self.engines["judge+cards+sem"] = Reranked(
                self.with_cards,
                self.vectors[True],
                model,
                weight=self.args.weight,
                depth=self.args.depth,
                add=self.args.add,
                cards_weight=self.args.cards_weight,
            )
        self.engines["dense"] = Dense(self.vectors[True], model)

    def reranked(self, weight: float, depth: int, add: int) -> Engine:
        from _engines import Reranked

        return Reranked(
            self.lexical[True], self.vectors[True], self.model, weight=weight, depth=depth, add=add
        )

    def close(self) -> None:
        for lexical in self.lexical.values():
            lexical.close()
        if self.with_cards is not None:
            self.with_cards.close()


def run_real(args: argparse.Namespace, loaded: tuple[object, object] | None, tmp: Path) -> None:
    questions = read_real_questions(args.real)
    if not questions:
        print(f"real questions skipped: {args.real} is absent (see its README)\n")
        return
    path = CORPUS / f"cr-{REAL_EDITION}.txt"
    doc = read_cr_path(path)
    setup = Setup(doc, tmp / "real", args)
    if loaded is not None:
        setup.add_semantic(*loaded)
    print(f"real questions: {len(questions)}, edition {doc.edition} ({path.name}), depth {DEPTH}")
    print(_HEAD)
    for name, engine in setup.engines.items():
        print(_line(name, score_real(questions, engine)))
    for half, label in HALVES.items():
        subset = [q for q in questions if half_of(q.id) == half]
        print(f"\nhalf {half}, {label}:")
        print(_HEAD)
        for name, engine in setup.engines.items():
            print(_line(name, score_real(subset, engine)))
    print_miss_kinds(questions, setup)
    topics = sorted({q.topic for q in questions})
    names = list(setup.engines)
    print("\nper topic, success@5 / MRR:")
    print(f"{'topic':<24}{'n':>4}" + "".join(f"{n:>16}" for n in names))
    for topic in topics:
        subset = [q for q in questions if q.topic == topic]
        cells = []
        for name in names:
            s = score_real(subset, setup.engines[name])
            cells.append(f"{s['r@5']:.2f} / {s['mrr']:.2f}")
        print(f"{topic:<24}{len(subset):>4}" + "".join(f"{c:>16}" for c in cells))
    if args.misses:
        print_real_misses(questions, setup)
    if args.sweep and loaded is not None:
        sweep(setup, questions, args)
    if args.times:
        print_times(setup)
    setup.close()
    print()


def print_miss_kinds(questions: list[RealQuestion], setup: Setup) -> None:
    """Per kind of the classified misses (``real-misses.tsv``): how many each engine answers
    in its top 5, by half."""
    kinds = read_miss_kinds()
    if not kinds:
        return
    names = list(setup.engines)
    print("\nclassified misses answered in the top 5 (T + H of n):")
    print(f"{'kind of miss':<20}{'n':>4}" + "".join(f"{n:>16}" for n in names))
    order = sorted(
        {k for k, _ in kinds.values()}, key=lambda k: -sum(1 for v in kinds.values() if v[0] == k)
    )
    for kind in order:
        subset = [q for q in questions if kinds.get(q.id, ("", ""))[0] == kind]
        cells = []
        for name in names:
            found = [
                q
                for q in subset
                if (r := real_rank(setup.engines[name](q.text), q.expected)) and r <= 5
            ]
            t = sum(1 for q in found if half_of(q.id) == "T")
            cells.append(f"{t} + {len(found) - t}")
        print(f"{kind:<20}{len(subset):>4}" + "".join(f"{c:>16}" for c in cells))


def print_real_misses(questions: list[RealQuestion], setup: Setup) -> None:
    """The real questions judge misses in its top 5: our kind of miss, the re-rank's rank."""
    kinds = read_miss_kinds()
    judge = setup.engines["judge"]
    sem = setup.engines.get("judge+sem")
    counts: dict[str, list[int]] = {}
    print("\nreal misses of judge (not in the top 5): rank, re-ranked rank, kind, id, want, got")
    for q in questions:
        ids = judge(q.text)
        rank = real_rank(ids, q.expected)
        if rank is not None and rank <= 5:
            continue
        after = real_rank(sem(q.text), q.expected) if sem is not None else None
        kind, note = kinds.get(q.id, ("unclassified", ""))
        row = counts.setdefault(kind, [0, 0])
        row[0] += 1
        row[1] += int(after is not None and after <= 5)
        print(
            f"  {q.id} judge={rank} +sem={after} [{kind}] want {'; '.join(q.expected)} "
            f"got {', '.join(ids[:5])}" + (f"  -- {note}" if note else "")
        )
    print(f"\n{'kind of miss':<34}{'misses':>7}{'fixed by +sem (top 5)':>24}")
    for kind, (n, fixed) in sorted(counts.items(), key=lambda kv: -kv[1][0]):
        print(f"{kind:<34}{n:>7}{fixed:>24}")


def sweep(setup: Setup, questions: list[RealQuestion], args: argparse.Namespace) -> None:
    """The re-rank's settings on a grid, on the real questions and on our halves (if loaded)."""
    own: list[tuple[str, list[Question], Setup]] = args.own_for_sweep
    print("\nsweep: weight depth add | real s@5 MRR | " + " | ".join(n for n, _, _ in own))
    for weight in (0.5, 0.6, 0.7, 0.8, 0.9):
        for depth in (20, 30, 50):
            for add in (0, 5, 10):
                s = score_real(questions, setup.reranked(weight, depth, add))
                cells = [f"{s['r@5']:.3f} {s['mrr']:.3f}"]
                for _name, qs, other in own:
                    o = score(qs, other.reranked(weight, depth, add))
                    cells.append(f"{o['r@5']:.3f} {o['mrr']:.3f}")
                print(f"  {weight:.1f} {depth:>3} {add:>3} | " + " | ".join(cells))


def print_times(setup: Setup) -> None:
    import statistics

    for name, engine in setup.engines.items():
        seconds = getattr(engine, "seconds", None)
        if seconds:
            ms = sorted(x * 1000 for x in seconds)
            p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
            print(f"  {name}: median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms")


def run_own(
    args: argparse.Namespace, loaded: tuple[object, object] | None, tmp: Path
) -> tuple[list[Question], Setup, Document]:
    path = args.file or newest_corpus_file()
    doc = read_cr_path(path)
    questions = read_questions()
    if args.halves:
        questions = [q for q in questions if q.half in args.halves]
    setup = Setup(doc, tmp / "own", args)
    if loaded is not None:
        setup.add_semantic(*loaded)
    return questions, setup, doc


def print_own(questions: list[Question], setup: Setup, doc: Document, path_name: str) -> None:
    print(f"our questions: {len(questions)}, edition {doc.edition} ({path_name}), depth {DEPTH}")
    judgments = read_judgments()
    keys = [("written", questions)]
    if judgments:
        keys.append(("pooled", pooled(questions, judgments)))
    names = list(setup.engines)
    for key, qs in keys:
        print(f"answers as {key}, recall@5 / MRR:")
        print(f"{'set':<8}{'n':>4}" + "".join(f"{n:>16}" for n in names))
        halves = sorted({q.half for q in qs})
        seen = "".join(h for h in halves if h != "Q")
        for name in [*halves, seen, "all"]:
            subset = [q for q in qs if name == "all" or (len(name) > 1 and q.half in name)]
            if len(name) == 1:
                subset = [q for q in qs if q.half == name]
            label = f"{seen[0]}-{seen[-1]}" if name == seen and len(seen) > 1 else name
            cells = []
            for engine in names:
                s = score(subset, setup.engines[engine])
                cells.append(f"{s['r@5']:.3f} / {s['mrr']:.3f}")
            print(f"{label:<8}{len(subset):>4}" + "".join(f"{c:>16}" for c in cells))
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--file", type=Path, default=None, help="CR file (default: newest)")
    parser.add_argument("--misses", action="store_true", help="list and classify real misses")
    parser.add_argument("--show-answers", action="store_true", help="print each answer's text")
    parser.add_argument("--pool", type=Path, default=None, help="write unjudged top-5 hits")
    parser.add_argument("--halves", default="", help="only these halves of ours, e.g. ABCD")
    parser.add_argument("--real", type=Path, default=REAL_FILE, help="the real questions file")
    parser.add_argument("--no-real", action="store_true", help="skip the real questions")
    parser.add_argument("--no-own", action="store_true", help="skip our questions")
    parser.add_argument("--model", type=Path, default=MODEL, help="model folder")
    parser.add_argument("--no-semantic", action="store_true", help="lexical engines only")
    parser.add_argument("--cards", type=Path, default=CARDS, help="card data folder or file")
    parser.add_argument("--no-cards", action="store_true", help="skip the judge+cards engine")
    parser.add_argument(
        "--no-extras", action="store_true", help="skip judge+docs (documents and rulings too)"
    )
    parser.add_argument("--only-judge", action="store_true", help="skip the phrasings-off runs")
    parser.add_argument("--weight", type=float, default=None, help="re-rank weight")
    parser.add_argument(
        "--cards-weight", type=float, default=None, help="re-rank weight when cards were read"
    )
    parser.add_argument("--depth", type=int, default=None, help="re-rank depth")
    parser.add_argument("--add", type=int, default=None, help="model's own nearest added")
    parser.add_argument("--dtype", default="int8", help="stored vectors: int8, float16, float32")
    parser.add_argument("--sweep", action="store_true", help="re-rank settings on a grid")
    parser.add_argument("--times", action="store_true", help="per-query times of each engine")
    parser.add_argument("--cache", type=Path, default=CACHE, help="vectors cache folder")
    args = parser.parse_args(argv)
    from index.semantic import ADD, CARDS_WEIGHT, DEPTH, WEIGHT

    args.weight = WEIGHT if args.weight is None else args.weight
    args.cards_weight = CARDS_WEIGHT if args.cards_weight is None else args.cards_weight
    args.depth = DEPTH if args.depth is None else args.depth
    args.add = ADD if args.add is None else args.add
    if args.show_answers or args.pool:
        return legacy(args)
    from _engines import card_names

    args.card_names = None if args.no_cards else card_names(args.cards, args.cache)
    if args.card_names is None and not args.no_cards:
        print(f"judge+cards skipped: no card data at {args.cards} (--cards PATH)\n")
    loaded = load_model(args)
    if loaded is not None:
        print(
            f"semantic re-rank: weight {args.weight} ({args.cards_weight} with cards read), "
            f"depth {args.depth}, add {args.add}, vectors {args.dtype}\n"
        )
    with tempfile.TemporaryDirectory() as tmp:
        args.own_for_sweep = []
        own = None
        if not args.no_own:
            own = run_own(args, loaded, Path(tmp))
            if args.sweep:
                sweepable = [q for q in own[0] if q.half != "Q"]
                args.own_for_sweep = [("own A-P written R@5 MRR", sweepable, own[1])]
        if not args.no_real:
            run_real(args, loaded, Path(tmp))
        if own is not None:
            print_own(own[0], own[1], own[2], (args.file or newest_corpus_file()).name)
            if args.times:
                print_times(own[1])
            own[1].close()
    return 0


def legacy(args: argparse.Namespace) -> int:
    """``--show-answers`` and ``--pool``: our questions only, as before."""
    path = args.file or newest_corpus_file()
    doc = read_cr_path(path)
    questions = read_questions()
    if args.halves:
        questions = [q for q in questions if q.half in args.halves]
    if args.show_answers:
        glossary = {g.ref_id.lower(): g for g in doc.glossary}
        for q in questions:
            print(f"[{q.half}] {q.text}")
            for a in q.answers:
                if a.startswith("glossary:"):
                    g = glossary.get(a.lower())
                    print(f"    {a}: {g.definition[:150] if g else 'MISSING'}")
                else:
                    r = doc.find_rule(a)
                    print(f"    {a}: {r.text[:150] if r else 'MISSING'}")
        return 0
    from _engines import Lexical

    with tempfile.TemporaryDirectory() as tmp:
        judge = Lexical(doc, Path(tmp))
        write_pool(args.pool, doc, questions, [judge, Bm25Baseline(doc).search])
        judge.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
