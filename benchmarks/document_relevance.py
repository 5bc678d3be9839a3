"""Relevance of ``judge search`` on questions about tournament documents and card rulings.

Usage::

    python benchmarks/document_relevance.py               # every half, every engine
    python benchmarks/document_relevance.py --halves S    # only the tuning half
    python benchmarks/document_relevance.py --show        # each question's first results
    python benchmarks/document_relevance.py --sweep       # the documents' and rulings' weights

The questions are ``document-questions.tsv`` beside this file (ours; see its header). They are
searched in the newest CR edition of ``../shared/corpus`` with the shared tournament documents
and card data stored beside it (``_extras.py``), and scored as ``relevance.py`` scores ours:
recall@1/5/10 (an answer, or a section below one, in the first k results; for ``card:NAME``, a
ruling of that card: in ``all``, among the rulings shown beside the results) and MRR@10.

Engines: ``bm25`` (sqlite FTS5, porter, the question's words OR-ed, over the same sections and
rulings alone, no rules: a baseline for the documents' own ranking); ``all`` (``judge search``,
everything: rules, glossary, documents, rulings, merged by score); and the scope of the half
alone (``documents`` for S and T, ``rulings`` for R).
"""

from __future__ import annotations

import argparse
import re
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _engines import DEPTH, Lexical  # noqa: E402
from _extras import extra_indexes, extras_home  # noqa: E402
from relevance import Question, is_answer, metrics, newest_corpus_file, read_questions  # noqa: E402

from index.reader import read_cr_path  # noqa: E402
from index.search import SearchResult  # noqa: E402

QUESTIONS = Path(__file__).with_name("document-questions.tsv")

Engine = Callable[[str], list[SearchResult]]


def keys_of(result: SearchResult) -> list[str]:
    """The ids an answer may name a result by: its own, and ``card:NAME`` per card of a ruling."""
    return [result.id, *(f"card:{card}" for card in result.cards)]


def rank_of(results: list[SearchResult], answers: tuple[str, ...]) -> int | None:
    for i, result in enumerate(results[:DEPTH], 1):
        if any(is_answer(key, answers) for key in keys_of(result)):
            return i
    return None


def score(questions: list[Question], engine: Engine) -> dict[str, float]:
    return metrics([rank_of(engine(q.text), q.answers) for q in questions])


class Bm25Sections:
    """sqlite FTS5 (porter) over the sections and rulings of the indexes searched, by bm25()."""

    def __init__(self, lexical: Lexical) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute(
            "CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, kind UNINDEXED, "
            "cards UNINDEXED, text, tokenize='porter unicode61')"
        )
        rows = []
        for ix in lexical.others:
            with ix.searcher() as s:
                for fields in s.all_stored_fields():
                    if fields.get("kind") == "asked":
                        continue  # the phrasings are judge's own, not the documents' text
                    details = fields.get("details") or {}
                    text = " ".join(str(fields.get(f) or "") for f in ("title", "body"))
                    cards = "\n".join(details.get("cards") or ())
                    rows.append((fields["id"], fields["kind"], cards, text))
        self.db.executemany("INSERT INTO docs VALUES (?, ?, ?, ?)", rows)

    def __call__(self, question: str, kind: str | None = None) -> list[SearchResult]:
        words = re.findall(r"\w+", question.lower())
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        where = "" if kind is None else " AND kind = ?"
        args: tuple[object, ...] = (match,) if kind is None else (match, kind)
        rows = self.db.execute(
            f"SELECT id, kind, cards FROM docs WHERE docs MATCH ?{where} "
            f"ORDER BY bm25(docs) LIMIT {DEPTH}",
            args,
        )
        return [
            SearchResult(
                rid, kind, None, None, 0.0, "", cards=tuple(filter(None, cards.split("\n")))
            )
            for rid, kind, cards in rows
        ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--halves", default="", help="only these halves, e.g. S")
    parser.add_argument("--show", action="store_true", help="print each question's results")
    parser.add_argument("--sweep", action="store_true", help="the extras' weights on a grid")
    parser.add_argument("--file", type=Path, default=None, help="CR file (default: newest)")
    args = parser.parse_args(argv)
    home = extras_home()
    if home is None:
        return 0
    path = args.file or newest_corpus_file()
    doc = read_cr_path(path)
    questions = read_questions(QUESTIONS)
    if args.halves:
        questions = [q for q in questions if q.half in args.halves]
    with tempfile.TemporaryDirectory() as tmp:
        lexical = Lexical(doc, Path(tmp) / "ed", extras=extra_indexes(home))
        bm25 = Bm25Sections(lexical)
        alone = {"S": "documents", "T": "documents", "R": "rulings"}
        engines: dict[str, Callable[[Question], list[SearchResult]]] = {
            "bm25": lambda q: bm25(q.text, "ruling" if q.half == "R" else "section"),
            # In a search of everything, rulings stand beside the results, not among them.
            "all": lambda q: (
                lexical.searcher.search(q.text, limit=DEPTH, scope="all").rulings
                if q.half == "R"
                else lexical.results(q.text)
            ),
        }
        scoped = {scope: lexical.with_scope(scope) for scope in set(alone.values())}
        engines["alone"] = lambda q: scoped[alone.get(q.half, "documents")].results(q.text)
        print(
            f"questions: {len(questions)}, edition {doc.edition} ({path.name}); "
            f"weights {lexical.searcher.weights[1:]} (documents, rulings)"
        )
        print(f"{'half':<6}{'n':>4}" + "".join(f"{n:>22}" for n in engines))
        halves = sorted({q.half for q in questions})
        for half in [*halves, "all"]:
            subset = [q for q in questions if half in ("all", q.half)]
            cells = []
            for engine in engines.values():
                s = metrics([rank_of(engine(q), q.answers) for q in subset])
                cells.append(f"{s['r@1']:.2f} {s['r@5']:.2f} {s['mrr']:.3f}")
            print(f"{half:<6}{len(subset):>4}" + "".join(f"{c:>22}" for c in cells))
        print("(each cell: recall@1 recall@5 MRR@10; 'alone': --in documents / --in rulings)")
        if args.show:
            for q in questions:
                found = engines["all"](q)
                rank = rank_of(found, q.answers)
                print(f"\n[{q.half}] {q.text}  (want {'; '.join(q.answers)}; rank {rank})")
                for r in found[:6]:
                    print(f"    {r.score:7.2f}  {r.id}  {r.title or ''}"[:110])
        if args.sweep:
            print("\nsweep: documents weight, rulings weight | S, T, R recall@5 MRR (all)")
            for wd in (0.6, 0.8, 1.0, 1.25, 1.5, 2.0):
                for wr in (0.5, 0.75, 1.0):
                    lexical.set_weights([1.0, wd, wr])
                    cells = []
                    for half in halves:
                        s = score([q for q in questions if q.half == half], lexical.results)
                        cells.append(f"{half} {s['r@5']:.2f} {s['mrr']:.3f}")
                    print(f"  {wd:4.2f} {wr:4.2f} | " + " | ".join(cells))
        lexical.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
