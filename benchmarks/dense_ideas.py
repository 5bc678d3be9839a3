"""Ideas on the dense side of the semantic re-rank, scored on the real halves and our A–P.

Usage::

    python benchmarks/dense_ideas.py                   # every idea on the tuning half T
    python benchmarks/dense_ideas.py --held            # H and our A–P too
    python benchmarks/dense_ideas.py --only csls,prf   # some families (csls, split, prf, pooled,
                                                       # weight, idioms, impute)
    python benchmarks/dense_ideas.py --must-show       # the issue's 0/0 question, per idea
    python benchmarks/dense_ideas.py --no-cards        # judge+sem instead (no card names read)

The engine is ``judge+cards+sem`` (``relevance.py``'s): ``judge+cards`` on the 2025-02-07
edition for the real questions, on the newest for ours (half Q is never read), the vectors from
``--cache`` as ``relevance.py`` builds them. Each question's lexical pool and vector are
remembered, so an idea costs only its re-rank; every idea runs through
``index.semantic.searching.reranked_search`` with ``rerank`` (or the vectors) replaced, so the
line ``today`` is ``relevance.py``'s judge+cards+sem to the last digit. The families:

* ``csls``: hubness reduction (cross-domain similarity local scaling, Lample et al. 2018): each
  passage's cosine minus ``alpha`` times its hubness, its mean cosine with its ``k`` nearest
  passages of other documents (``same``: any other passage, its own document's too). Made from
  the passages alone, never from questions;
* ``split``: the same, in the fusion's cosines only or in the choice of the model's nearest only;
* ``prf``: pseudo-relevance feedback in vector space (Rocchio; ANCE-PRF, Li et al. 2021): the
  question's vector plus ``beta`` times the mean of the first ``k`` fused candidates' best
  passages (``weighted`` by their fused score; ``centroid``: all their passages' mean),
  normalised; the cosines (and the model's nearest) recomputed and fused again. No second
  embedding;
* ``pooled``: a document's passages pooled by a soft maximum of their cosines instead of the
  best one (:class:`Pooled`);
* ``weight``: the fusion's weight moved per question, by the lexical pool's doubt (its second
  score over its first), the model's confidence (its first cosine less its fifth) or its first
  cosine.
* ``idioms``: a player's "N/M" read as power and toughness, "is it gone", "dies" as "put into
  a graveyard", in the text embedded only (:func:`read_pt`, :func:`read_death`).
* ``impute``: the model's nearest (not in the lexical pool) given a share of the pool's lowest
  lexical score instead of 0, the question embedded as asked or with the idioms read.

The figures measured are in ``index/semantic/reranking.py``'s docstring; none was kept. They
were measured before the question adapter (``index.semantic.adapter``), ``weight`` after it
too, ``idioms`` after it only; run now, ``today`` has it, as do ``prf`` and ``weight`` (through
``Vectors.similarities``), while :class:`Hubbed` and :class:`Pooled` take their cosines
without it.
"""

from __future__ import annotations

import argparse
import copy
import functools
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _engines import DEPTH, Lexical, card_names, edition_vectors, load_model  # noqa: E402
from _real_questions import REAL_EDITION, half_of, read_real_questions, real_rank  # noqa: E402
from relevance import (  # noqa: E402
    CACHE,
    CARDS,
    CORPUS,
    MODEL,
    metrics,
    newest_corpus_file,
    rank_of,
    read_questions,
)

import index.semantic.reranking as reranking  # noqa: E402
from index.reader import read_cr_path  # noqa: E402
from index.semantic.reranking import _nearest_positions, combine, question_matrix  # noqa: E402

ORIGINAL = reranking.rerank


def hubness(vectors: Any, k: int, *, same: bool = False) -> Any:
    """Each passage's mean cosine with its ``k`` nearest passages of other documents (``same``:
    with any other passage)."""
    import numpy as np

    matrix, starts = vectors._decode()
    rows = len(matrix)
    owner = np.zeros(rows, dtype=np.intp)
    owner[starts[1:]] = 1
    owner = np.cumsum(owner)
    out = np.zeros(rows, dtype=np.float32)
    for start in range(0, rows, 1024):
        here = np.arange(start, min(start + 1024, rows))
        block = matrix[here] @ matrix.T
        if same:
            block[here - start, here] = -np.inf
        else:
            block[owner[here][:, None] == owner[None, :]] = -np.inf
        top = np.partition(block, rows - k, axis=1)[:, rows - k :]
        out[here] = np.where(np.isfinite(top), top, 0.0).mean(axis=1)
    return out


class Hubbed:
    """Vectors whose passages' cosines are lowered by ``alpha`` times their hubness."""

    def __init__(self, inner: Any, hubs: Any, alpha: float) -> None:
        self.inner = inner
        self.ids, self.position, self.model = inner.ids, inner.position, inner.model
        self.path = inner.path
        self.penalty = hubs * alpha

    def _decode(self) -> Any:
        return self.inner._decode()

    def similarities(self, query: Any) -> Any:
        import numpy as np

        matrix, starts = self.inner._decode()
        rows = np.einsum("ij,j->i", matrix, np.asarray(query, dtype=np.float32).reshape(-1))
        return np.maximum.reduceat(rows - self.penalty, starts)


class Pooled:
    """Vectors whose document score is a soft maximum of its passages' cosines:
    ``tau * log(sum(exp(cos / tau)))``, less ``tau * log(passages)`` when ``sized`` (a mean
    more than a sum; ``tau`` to 0: the max)."""

    def __init__(self, inner: Any, tau: float, *, sized: bool = True) -> None:
        import numpy as np

        self.inner, self.tau, self.sized = inner, tau, sized
        self.ids, self.position, self.model = inner.ids, inner.position, inner.model
        self.path = inner.path
        matrix, starts = inner._decode()
        self.sizes = np.diff(np.append(starts, len(matrix))).astype(np.float32)

    def _decode(self) -> Any:
        return self.inner._decode()

    def similarities(self, query: Any) -> Any:
        import numpy as np

        matrix, starts = self.inner._decode()
        rows = np.einsum("ij,j->i", matrix, np.asarray(query, dtype=np.float32).reshape(-1))
        best = np.maximum.reduceat(rows, starts)
        shifted = np.exp((rows - np.repeat(best, self.sizes.astype(np.intp))) / self.tau)
        total = np.add.reduceat(shifted, starts)
        return best + self.tau * (np.log(total) - (np.log(self.sizes) if self.sized else 0.0))


class Remembered:
    """A Searcher whose searches and records are remembered (a copy handed out each time)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self._found: dict[tuple[str, int, str], Any] = {}
        self._records: dict[tuple[str, str], Any] = {}

    def search(self, query: str, *, limit: int, scope: str) -> Any:
        key = (query, limit, scope)
        if key not in self._found:
            self._found[key] = self.inner.search(query, limit=limit, scope=scope)
        found = copy.copy(self._found[key])
        found.results = list(found.results)  # reranked() replaces them
        return found

    def find_record(self, doc_id: str, scope: str) -> Any:
        key = (doc_id, scope)
        if key not in self._records:
            self._records[key] = self.inner.find_record(doc_id, scope)
        return self._records[key]


class Set:
    """One question set on its edition: the engine, the vectors, the questions by half."""

    def __init__(
        self,
        name: str,
        path: Path,
        tmp: Path,
        cards: Any,
        model: Any,
        enc: Any,
        cache: Path = CACHE,
    ) -> None:
        self.name = name
        self.doc = read_cr_path(path)
        self.lexical = Lexical(self.doc, tmp / name, cards=cards)
        self.searcher = Remembered(self.lexical.searcher)
        self.vectors = edition_vectors(self.doc, cache, enc, phrasings=True)
        self.model = model
        self.hubs: dict[tuple[int, bool], Any] = {}
        self.questions: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        if name == "real":
            real = read_real_questions()
            for half in "TH":
                self.questions[half] = [(q.text, q.expected) for q in real if half_of(q.id) == half]
        else:
            own = [q for q in read_questions() if q.half != "Q"]
            self.questions["ours"] = [(q.text, q.answers) for q in own]

    def hub(self, k: int, same: bool = False) -> Any:
        if (k, same) not in self.hubs:
            start = time.perf_counter()
            self.hubs[k, same] = hubness(self.vectors, k, same=same)
            spent = time.perf_counter() - start
            print(f"  hubness k {k} of {self.name}'s vectors: {spent:.2f} s", file=sys.stderr)
        return self.hubs[k, same]

    def ranks(self, half: str, vectors: Any) -> list[int | None]:
        from index.semantic.searching import reranked_search

        out = []
        for text, want in self.questions[half]:
            found = reranked_search(self.searcher, text, vectors, self.model, limit=DEPTH)  # type: ignore[arg-type]
            ids = [r.id for r in found.results]
            out.append(real_rank(ids, want) if self.name == "real" else rank_of(ids, want))
        return out


Idea = tuple[str, Callable[[Set], Any]]
"""A label, and what makes a set's vectors for the idea (replacing ``rerank`` if it must)."""


def combined(sims: Any, vectors: Any, pool: Any, close: Any = None, **kw: Any) -> Any:
    """``combine`` on the cosines ``sims``, the model's nearest chosen by ``close`` (or them)."""
    by = sims if close is None else close

    def nearest(n: int) -> list[str]:
        return [vectors.ids[int(i)] for i in _nearest_positions(by, n)]

    return combine(sims, vectors.position, nearest, pool, **kw)


def _plain(s: Set) -> Any:
    reranking.rerank = ORIGINAL
    reranking.normalised = ORIGINAL_NORMALISED
    return s.vectors


def csls_ideas() -> list[Idea]:
    grid = [(k, a, False) for k in (3, 5, 10, 20, 50) for a in (0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5)]
    grid += [(10, a, True) for a in (0.2, 0.5, 1.0)]
    out: list[Idea] = []
    for k, alpha, same in grid:

        def make(s: Set, k: int = k, alpha: float = alpha, same: bool = same) -> Any:
            _plain(s)
            return Hubbed(s.vectors, s.hub(k, same), alpha)

        out.append((f"csls k {k} alpha {alpha}{' same' if same else ''}", make))
    return out


def _split(fuse_alpha: float, near_alpha: float, k: int) -> Callable[[Set], Any]:
    import numpy as np

    def make(s: Set) -> Any:
        fuse = Hubbed(s.vectors, s.hub(k), fuse_alpha)
        near = Hubbed(s.vectors, s.hub(k), near_alpha)

        def rerank(question: str, pool: Any, vectors: Any, model: Any, **kw: Any) -> Any:
            q = np.asarray(question_matrix(model, question)[0], dtype=np.float32).reshape(-1)
            return combined(fuse.similarities(q), vectors, pool, near.similarities(q), **kw)

        reranking.rerank = rerank
        return s.vectors

    return make


def split_ideas() -> list[Idea]:
    out: list[Idea] = []
    for alpha in (0.5, 1.0):
        out.append((f"csls k 10 alpha {alpha} fusion only", _split(alpha, 0.0, 10)))
        out.append((f"csls k 10 alpha {alpha} nearest only", _split(0.0, alpha, 10)))
    return out


def prf_rerank(k: int, beta: float, weighted: bool, centroid: bool) -> Callable[..., Any]:
    """``rerank`` with one round of feedback: the question's vector moved towards the first
    ``k`` fused candidates' vectors (their best passage, or all their passages' mean)."""
    import numpy as np

    def rerank(question: str, pool: Any, vectors: Any, model: Any, **kw: Any) -> Any:
        q = np.asarray(question_matrix(model, question)[0], dtype=np.float32).reshape(-1)

        def fused(query: Any) -> Any:
            return combined(vectors.similarities(query), vectors, pool, **kw)

        first = fused(q)
        matrix, starts = vectors._decode()
        ends = [*starts[1:], len(matrix)]
        picked, weights = [], []
        for hit in first[kw["keep"] :]:
            at = vectors.position.get(hit.id)
            if at is None:
                continue
            rows = matrix[starts[at] : ends[at]]
            v = rows.mean(axis=0) if centroid else rows[int(np.argmax(rows @ q))]
            picked.append(v / (np.linalg.norm(v) or 1.0))
            weights.append(hit.score if weighted else 1.0)
            if len(picked) >= k:
                break
        if not picked:
            return first
        w = np.asarray(weights, dtype=np.float32)
        moved = q + beta * (np.stack(picked) * w[:, None]).sum(axis=0) / (w.sum() or 1.0)
        return fused((moved / (np.linalg.norm(moved) or 1.0)).astype(np.float32))

    return rerank


def prf_ideas() -> list[Idea]:
    grid = [(k, b, False, False) for k in (2, 3, 5, 8, 10, 15) for b in (0.3, 0.6, 1.0, 1.5)]
    grid += [(k, b, True, False) for k in (2, 3, 5, 8, 10, 15) for b in (0.3, 0.6, 1.0)]
    grid += [(k, b, False, True) for k in (2, 3, 5) for b in (0.3, 0.6, 1.0)]
    out: list[Idea] = []
    for k, beta, weighted, centroid in grid:

        def make(
            s: Set, k: int = k, b: float = beta, w: bool = weighted, c: bool = centroid
        ) -> Any:
            reranking.rerank = prf_rerank(k, b, w, c)
            return s.vectors

        label = f"prf k {k} beta {beta}"
        label += " weighted" if weighted else " centroid" if centroid else ""
        out.append((label, make))
    return out


def held_ideas() -> list[Idea]:
    """The best of each family on T (scored on H and ours with ``--held``)."""

    def both(s: Set) -> Any:
        reranking.rerank = prf_rerank(5, 1.0, False, False)
        return Hubbed(s.vectors, s.hub(10), 0.7)

    def prf(k: int, beta: float, weighted: bool) -> Callable[[Set], Any]:
        def make(s: Set) -> Any:
            reranking.rerank = prf_rerank(k, beta, weighted, False)
            return s.vectors

        return make

    return [
        ("csls k 10 alpha 0.7", lambda s: Hubbed(_plain(s), s.hub(10), 0.7)),
        ("csls k 10 alpha 1.0 same", lambda s: Hubbed(_plain(s), s.hub(10, True), 1.0)),
        ("prf k 5 beta 0.6", prf(5, 0.6, False)),
        ("prf k 5 beta 1.0", prf(5, 1.0, False)),
        ("prf k 5 beta 0.6 weighted", prf(5, 0.6, True)),
        ("csls k 10 alpha 0.7 + prf k 5 beta 1.0", both),
        ("soft max of passages tau 0.05", lambda s: Pooled(_plain(s), 0.05)),
    ]


def pooled_ideas() -> list[Idea]:
    out: list[Idea] = []
    for sized in (True, False):
        for tau in (0.01, 0.02, 0.05, 0.1):

            def make(s: Set, tau: float = tau, sized: bool = sized) -> Any:
                return Pooled(_plain(s), tau, sized=sized)

            out.append((f"soft max of passages tau {tau}{'' if sized else ' summed'}", make))
    return out


def _weighted(signal: Callable[[list[float], Any], float], slope: float, pivot: float) -> Any:
    """``rerank`` whose fusion weight is ``weight + slope * (signal - pivot)`` (0.05–0.95)."""
    import numpy as np

    def rerank(question: str, pool: Any, vectors: Any, model: Any, **kw: Any) -> Any:
        q = np.asarray(question_matrix(model, question)[0], dtype=np.float32).reshape(-1)
        sims = vectors.similarities(q)
        lexical = [float(h.score) for h in pool[kw["keep"] : kw["keep"] + kw["depth"]]]
        moved = kw["weight"] + slope * (signal(lexical, sims) - pivot)
        kw["weight"] = float(min(0.95, max(0.05, moved)))
        return combined(sims, vectors, pool, **kw)

    return rerank


def _doubt(lexical: list[float], sims: Any) -> float:
    """The pool's second lexical score over its first (1: search cannot tell them apart)."""
    return lexical[1] / lexical[0] if len(lexical) > 1 and lexical[0] > 0 else 0.0


def _confidence(lexical: list[float], sims: Any) -> float:
    """The model's first cosine less its fifth."""
    import numpy as np

    top = np.sort(sims)[::-1]
    return float(top[0] - top[min(4, len(top) - 1)])


def _first(lexical: list[float], sims: Any) -> float:
    return float(sims.max())


def weight_ideas() -> list[Idea]:
    """A fusion weight that follows the question: lexical doubt, the model's confidence."""
    grid: list[tuple[str, Callable[[list[float], Any], float], float, float]] = []
    grid += [("doubt", _doubt, k, p) for k in (-0.6, -0.3, 0.3, 0.6) for p in (0.7, 0.85)]
    grid += [
        ("confidence", _confidence, k, p) for k in (-3, -1.5, 1.5, 3) for p in (0.03, 0.05, 0.1)
    ]
    grid += [("first cosine", _first, k, p) for k in (-1.5, -0.75, 0.75, 1.5) for p in (0.5, 0.6)]
    out: list[Idea] = []
    for name, signal, slope, pivot in grid:

        def make(s: Set, f: Any = signal, k: float = slope, p: float = pivot) -> Any:
            reranking.rerank = _weighted(f, k, p)
            return s.vectors

        out.append((f"weight: {name} {slope:+} at {pivot}", make))
    return out


_GONE = re.compile(r"\b(is|are|was|were) (it|they|that|this|he|she) (gone|dead)\b", re.I)
_DIE = re.compile(r"\b(die|dies|died|dying)\b", re.I)


def read_death(text: str) -> str:
    """A player's "is it gone?", "does it die?" read as the rules say it, in the text embedded."""
    text = _GONE.sub(lambda m: f"{m[0]} (put into its owner's graveyard)", text)
    return _DIE.sub(lambda m: f"{m[0]} (is put into a graveyard)", text)


def embedding(read: Callable[[str], str], rerank: Any) -> Callable[..., Any]:
    """``rerank`` with the question it embeds read by ``read`` first (the lexical pool is the
    question's as asked)."""

    def reread(question: str, *args: Any, **kw: Any) -> Any:
        return rerank(read(question), *args, **kw)

    return reread


def _same(text: str, _question: str) -> str:
    return text


def idiom_ideas() -> list[Idea]:
    """A player's idioms read in the rules' words, in the text embedded only."""
    readings: list[tuple[str, Callable[[str], str]]] = [
        ("N/M as power and toughness", read_pt),
        ("gone, dies as put into a graveyard", read_death),
        ("both", lambda t: read_death(read_pt(t))),
    ]
    out: list[Idea] = []
    for name, read in readings:

        def make(s: Set, read: Callable[[str], str] = read) -> Any:
            reranking.rerank = embedding(read, ORIGINAL)
            return s.vectors

        out.append((f"idioms: {name}", make))
    return out


ORIGINAL_NORMALISED = reranking.normalised


def _imputed(share: float) -> Callable[..., Any]:
    """``normalised`` giving each of the model's nearest ``share`` of the lowest lexical score
    among the pool's candidates (instead of 0): not read by search, it is at most as good."""

    def normalised(similarities: Any, position: Any, body: Any, added: Any) -> Any:
        where, lexical, raw, cos = ORIGINAL_NORMALISED(similarities, position, body, added)
        if added and len(body):
            floor = share * min(lexical[: len(body)])
            lexical = lexical[: len(body)] + [floor] * len(added)
        return where, lexical, raw, cos

    return normalised


def impute_ideas() -> list[Idea]:
    """The model's nearest given a lexical score (a share of the pool's lowest), with the
    idioms read in the text embedded or not."""
    out: list[Idea] = []
    for share in (0.5, 1.0):
        for name, read in (("as asked", None), ("idioms read", lambda t: read_death(read_pt(t)))):

            def make(s: Set, share: float = share, read: Any = read) -> Any:
                reranking.normalised = _imputed(share)
                reranking.rerank = ORIGINAL if read is None else embedding(read, ORIGINAL)
                return s.vectors

            out.append((f"impute {share} of the lowest, {name}", make))
    return out


FAMILIES: dict[str, Callable[[], list[Idea]]] = {
    "csls": csls_ideas,
    "split": split_ideas,
    "prf": prf_ideas,
    "pooled": pooled_ideas,
    "weight": weight_ideas,
    "idioms": idiom_ideas,
    "impute": impute_ideas,
}

ZERO = "my 0/0 artifact land thing, is it gone?"
"""The issue's must-show question (``tests/test_semantic_model.py``); its rule is 704.5f."""
_PT = re.compile(r"(?<![\w/])(\d+)/(\d+)(?![\w/])")


def read_pt(text: str) -> str:
    """``N/M`` read as power and toughness, in the text embedded only (a general reading)."""
    return _PT.sub(lambda m: f"{m[0]} (power {m[1]}, toughness {m[2]})", text)


def must_show(s: Set, tmp: Path) -> None:
    """704.5f's place for the issue's question: by cosine, and re-ranked (search without cards,
    as the test runs it), per idea, with and without reading N/M as power and toughness."""
    import numpy as np

    from index.semantic.searching import reranked_search

    bare = Lexical(s.doc, tmp / "bare", index=s.lexical.folder)
    found = bare.searcher.search(ZERO, limit=200, scope="all")
    lexical = [r.id for r in found.results]
    print(f"\n{ZERO!r}: 704.5f {_place(lexical)} by search alone (of {len(lexical)})")
    ideas: list[Idea] = [("today", _plain), *held_ideas()]
    for text in dict.fromkeys((ZERO, read_pt(ZERO), read_death(ZERO), read_death(read_pt(ZERO)))):
        q = s.model.embed_query(text)[0]
        for label, make in ideas:
            vectors = make(s)
            order = np.argsort(-vectors.similarities(q), kind="stable")
            by_cosine = 1 + [int(i) for i in order].index(s.vectors.position["704.5f"])
            chosen = reranking.rerank
            reranking.rerank = embedding(functools.partial(_same, text), chosen)
            places = []
            for depth, add in ((30, 5), (30, 50), (100, 5), (100, 50)):
                got = reranked_search(
                    bare.searcher, ZERO, vectors, s.model, limit=depth, depth=depth, add=add
                )
                places.append(f"{depth}/{add}: {_place([r.id for r in got.results])}")
            print(f"  {text[:24]!r:<28}{label:<40}cosine {by_cosine:>4}  " + ", ".join(places))
    reranking.rerank = ORIGINAL
    bare.close()


def _place(ids: list[str]) -> str:
    return str(ids.index("704.5f") + 1) if "704.5f" in ids else "-"


def figures(ranks: list[int | None]) -> str:
    m = metrics(ranks)
    return f"{m['r@5']:.3f} / {m['mrr']:.3f}"


def model_options(parser: argparse.ArgumentParser) -> None:
    """The options every script built on :class:`Set` takes: the model, the cards, the cache."""
    parser.add_argument("--model", type=Path, default=MODEL, help="model folder")
    parser.add_argument("--cards", type=Path, default=CARDS, help="card data folder or file")
    parser.add_argument("--cache", type=Path, default=CACHE, help="vectors cache folder")
    parser.add_argument("--no-cards", action="store_true", help="judge+sem: no card names read")
    parser.add_argument("--no-semantic", action="store_true", help=argparse.SUPPRESS)


def loaded(args: argparse.Namespace, load: Callable[..., Any] = load_model) -> tuple[Any, ...]:
    """The model, the encoder of passages and the card names (``None`` with ``--no-cards``)."""
    found = load(args)
    if found is None:
        raise SystemExit("the model and the semantic extra are needed")
    model, enc = found
    return model, enc, None if args.no_cards else card_names(args.cards, args.cache)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--held", action="store_true", help="H and ours: the best of each only")
    parser.add_argument(
        "--only", default="", help="families: csls, split, prf, pooled, weight, idioms, impute"
    )
    parser.add_argument("--must-show", action="store_true", help="the issue's 0/0 question")
    model_options(parser)
    args = parser.parse_args(argv)
    model, enc, cards = loaded(args)
    with tempfile.TemporaryDirectory() as tmp:
        real = Set("real", CORPUS / f"cr-{REAL_EDITION}.txt", Path(tmp), cards, model, enc)
        sets = [real]
        if args.held:
            sets.append(Set("own", newest_corpus_file(), Path(tmp), cards, model, enc))
        halves = [(s, h) for s in sets for h in s.questions if args.held or h == "T"]

        def line(label: str, make: Callable[[Set], Any]) -> None:
            reranking.normalised = ORIGINAL_NORMALISED  # only the impute ideas replace it
            cells = [figures(s.ranks(h, make(s))) for s, h in halves]
            print(f"{label:<40}" + "".join(f"{c:>18}" for c in cells), flush=True)

        if args.must_show:
            must_show(real, Path(tmp))
        else:
            print(f"{'idea':<40}" + "".join(f"{s.name + ' ' + h:>18}" for s, h in halves))
            line("today", _plain)
            if args.held:
                ideas = held_ideas()
            else:
                wanted = [f for f in args.only.split(",") if f] or list(FAMILIES)
                ideas = [i for f in wanted for i in FAMILIES[f]()]
            for label, make in ideas:
                line(label, make)
        reranking.rerank = ORIGINAL
        reranking.normalised = ORIGINAL_NORMALISED
        for s in sets:
            s.lexical.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
