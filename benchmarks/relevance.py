"""Relevance of ``judge search`` on players' questions, beside a plain BM25 baseline.

Usage::

    python benchmarks/relevance.py                 # newest corpus edition, every half
    python benchmarks/relevance.py --misses        # also list the questions not answered in top 5
    python benchmarks/relevance.py --show-answers  # print each answer's text (for verification)
    python benchmarks/relevance.py --halves ABCD   # only these halves (tune without seeing E)
    python benchmarks/relevance.py --pool pool.tsv # hits to judge blind (see judgments.tsv)

The questions are ``benchmarks/questions.tsv`` (see its header for where they come from). Both
engines index the same documents (``index.search.schema.documents``: rules, examples,
glossary) and both fold an example hit into its rule. The baseline is sqlite FTS5 (stdlib) with
its built-in ``bm25()`` ranking, the porter tokenizer and the question's words OR-ed together.
``benchmarks/judgments.tsv`` (blind pooled judgments, see ``--pool``) adds a second answer key.

Scores: recall@k is the share of questions with an answer in the top k; MRR is the mean of
1/rank of the first answer (0 when none is in the top 10).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import re
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from index.model import Document  # noqa: E402
from index.reader import read_cr_path  # noqa: E402
from index.search import build_search_index, open_search_index, search  # noqa: E402
from index.search.schema import documents  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
QUESTIONS = Path(__file__).with_name("questions.tsv")
JUDGMENTS = Path(__file__).with_name("judgments.tsv")
DEPTH = 10


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


class Bm25Baseline:
    """sqlite FTS5 over the same documents, ranked by its bm25()."""

    def __init__(self, doc: Document) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute(
            "CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, kind UNINDEXED, "
            "number UNINDEXED, text, tokenize='porter unicode61')"
        )
        rows = []
        for d in documents(doc):
            if d["kind"] == "asked":
                continue  # judge's own players' phrasings are not the rules' text
            # The text as published (without the roots judge indexes beside negated words).
            body = d.get("_stored_body", d.get("body", ""))
            text = " ".join(str(x) for x in (d.get("term", ""), d.get("title", ""), body))
            rows.append((d["id"], d["kind"], d.get("number", ""), text))
        self.db.executemany("INSERT INTO docs VALUES (?, ?, ?, ?)", rows)

    def search(self, query: str, limit: int = DEPTH) -> list[str]:
        words = re.findall(r"\w+", query.lower())
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        out: list[str] = []
        for rid, kind, number in self.db.execute(
            "SELECT id, kind, number FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?",
            (match, limit * 4),
        ):
            key = number if kind == "example" else rid
            if key not in out:
                out.append(key)
            if len(out) >= limit:
                break
        return out


def score(questions: list[Question], engine: Callable[[str], list[str]]) -> dict[str, float]:
    ranks = [rank_of(engine(q.text), q.answers) for q in questions]
    n = len(ranks) or 1
    return {
        "n": float(len(ranks)),
        "r@1": sum(1 for r in ranks if r is not None and r <= 1) / n,
        "r@5": sum(1 for r in ranks if r is not None and r <= 5) / n,
        "r@10": sum(1 for r in ranks if r is not None and r <= 10) / n,
        "mrr": sum(1 / r for r in ranks if r is not None) / n,
    }


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--file", type=Path, default=None, help="CR file (default: newest)")
    parser.add_argument("--misses", action="store_true", help="list questions missed in top 5")
    parser.add_argument("--show-answers", action="store_true", help="print each answer's text")
    parser.add_argument(
        "--pool",
        type=Path,
        default=None,
        help="write the unjudged top-5 hits of both engines, shuffled and unnamed, to this TSV",
    )
    parser.add_argument(
        "--halves",
        default="",
        help="only these halves, e.g. ABCD (keeps a held-out half unseen while tuning)",
    )
    args = parser.parse_args(argv)
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
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        build_search_index(doc, folder)
        ix, _meta = open_search_index(folder)

        def judge(text: str) -> list[str]:
            return [r.id for r in search(ix, text, limit=DEPTH).results]

        baseline = Bm25Baseline(doc)
        if args.pool:
            write_pool(args.pool, doc, questions, [judge, baseline.search])
            ix.close()
            return 0
        print(f"edition {doc.edition} ({path.name}), {len(questions)} questions, depth {DEPTH}")
        judgments = read_judgments()
        keys = [("written", questions)]
        if judgments:
            keys.append(("pooled", pooled(questions, judgments)))
        for key, qs in keys:
            print(f"answers as {key}:")
            print(f"{'set':<8}{'engine':<10}{'n':>4}{'R@1':>8}{'R@5':>8}{'R@10':>8}{'MRR':>8}")
            halves = sorted({q.half for q in qs})
            for name in [*halves, "all"]:
                subset = [q for q in qs if name in ("all", q.half)]
                for label, engine in (("judge", judge), ("bm25", baseline.search)):
                    s = score(subset, engine)
                    print(
                        f"{name:<8}{label:<10}{int(s['n']):>4}{s['r@1']:>8.3f}{s['r@5']:>8.3f}"
                        f"{s['r@10']:>8.3f}{s['mrr']:>8.3f}"
                    )
        if args.misses:
            for q in questions:
                ids = judge(q.text)
                r = rank_of(ids, q.answers)
                if r is None or r > 5:
                    print(f"MISS [{q.half}] rank={r} {q.text!r} want {q.answers} got {ids[:5]}")
        ix.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
