"""The engines ``relevance.py`` compares, built for one edition.

* :class:`Bm25Baseline`: sqlite FTS5 with its bm25() ranking (the baseline);
* :class:`Lexical`: ``judge search`` (``index.search.Searcher``) on a whoosh index of
  the edition, with the phrasing files or without them (:func:`phrasings_removed`);
* :class:`Reranked`: the same with the semantic re-rank, through
  ``index.semantic.searching.reranked_search`` (what ``Edition.search`` runs for a user with the
  extra and a model);
* :class:`Dense`: the model's nearest documents alone (for information).

Vectors are built with ``index.semantic.ensure_vectors`` in a cache folder, so a second run
reuses them (and rebuilds them when the edition, the phrasings or the model change); texts
already embedded are remembered on disk too (:class:`RememberingEncoder`), so that the
phrasings-off vectors and other dtypes cost nothing more.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import re
import sqlite3
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from index.model import Document
from index.search import Searcher, SearchResult, build_search_index, open_search_index
from index.search.schema import documents

DEPTH = 10


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


@contextlib.contextmanager
def phrasings_removed() -> Iterator[None]:
    """Builds inside see no phrasing files (``index/search/asked/``), as if they were deleted."""
    import index.search.phrasings as ph

    saved = ph._files
    ph._files = lambda: ()  # type: ignore[assignment]
    try:
        yield
    finally:
        ph._files = saved


class Lexical:
    """``judge search`` on one edition's index; results remembered per (question, limit).

    ``cards``: a card store (``index.cards.mentions.CardNames``) to read card names with, as
    ``judge search`` does when cards are stored; ``index``: an index folder already built
    (another engine's) to share instead of building one; ``extras``: the indexes searched
    beside the edition's, as ``(source, folder, weight)`` (see ``_extras.extra_indexes``);
    ``scope``: the ``--in`` searched.
    """

    def __init__(
        self,
        doc: Document,
        folder: Path,
        *,
        phrasings: bool = True,
        cards: Any = None,
        index: Path | None = None,
        extras: Sequence[tuple[str, Path, float]] = (),
        scope: str = "all",
    ) -> None:
        if index is None:
            folder.mkdir(parents=True, exist_ok=True)
            with contextlib.nullcontext() if phrasings else phrasings_removed():
                build_search_index(doc, folder)
        self.folder = index or folder
        self.phrasings = phrasings
        self.scope = scope
        self.ix, _ = open_search_index(self.folder)
        self.others = [open_search_index(extra)[0] for _, extra, _ in extras]
        self.searcher = Searcher(
            [self.ix, *self.others],
            edition=doc.edition,
            cards=cards,
            sources=["edition", *(source for source, _, _ in extras)],
            weights=[1.0, *(weight for _, _, weight in extras)],
        )
        self._memo: dict[tuple[str, int], list[SearchResult]] = {}
        self.seconds: list[float] = []

    def with_scope(self, scope: str) -> Lexical:
        """The same engine (the same open indexes) searching another scope."""
        other = object.__new__(Lexical)
        other.__dict__.update(self.__dict__)
        other.scope = scope
        other._memo = {}
        other.seconds = []
        return other

    def set_weights(self, weights: Sequence[float]) -> None:
        """Scales the indexes' scores anew (the edition's first) and forgets what was asked."""
        self.searcher.weights = tuple(weights)
        self._memo.clear()

    def results(self, text: str, limit: int = DEPTH) -> list[SearchResult]:
        key = (text, limit)
        if key not in self._memo:
            start = time.perf_counter()
            found = self.searcher.search(text, limit=limit, scope=self.scope)
            self.seconds.append(time.perf_counter() - start)
            self._memo[key] = found.results
        return self._memo[key]

    def __call__(self, text: str) -> list[str]:
        return [r.id for r in self.results(text, DEPTH)]

    def close(self) -> None:
        self.searcher.close()
        self.ix.close()
        for ix in self.others:
            ix.close()


def card_names(source: Path | None, cache: Path) -> Any:
    """The card store to read names with (``index.cards.mentions.CardNames``), or None.

    ``source``: a data folder with cards stored, or an AtomicCards file, imported once into a
    data folder of ``cache`` named by the file's digest.
    """
    from index.cards.mentions import CardNames
    from index.cards.store import CardStore

    if source is None or not source.exists():
        return None
    if source.is_dir():
        return CardNames.find(CardStore(source))
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    store = CardStore(cache / f"cards-{digest[:16]}")
    if store.find_info() is None:
        print(f"  importing {source.name} into {store.root}", file=sys.stderr)
        store.import_cards(source)
    return CardNames.find(store)


class Reranked:
    """``judge search`` with the semantic re-rank: ``index.semantic.reranked_search``, the
    function ``Edition.search`` calls, on the same Searcher as :class:`Lexical`."""

    def __init__(
        self,
        lexical: Lexical,
        vectors: Any,
        model: Any,
        *,
        weight: float,
        depth: int,
        add: int,
        cards_weight: float | None = None,
    ) -> None:
        self.lexical, self.vectors, self.model = lexical, vectors, model
        self.weight, self.depth, self.add = weight, depth, add
        self.cards_weight = cards_weight
        self.seconds: list[float] = []

    def __call__(self, text: str) -> list[str]:
        from index.semantic import CARDS_WEIGHT
        from index.semantic.searching import reranked_search

        start = time.perf_counter()
        found = reranked_search(
            self.lexical.searcher,
            text,
            self.vectors,
            self.model,
            limit=DEPTH,
            weight=self.weight,
            depth=self.depth,
            add=self.add,
            cards_weight=CARDS_WEIGHT if self.cards_weight is None else self.cards_weight,
        )
        self.seconds.append(time.perf_counter() - start)
        return [r.id for r in found.results]


class Dense:
    """The model's nearest documents to the question, nothing lexical."""

    def __init__(self, vectors: Any, model: Any) -> None:
        self.vectors, self.model = vectors, model

    def __call__(self, text: str) -> list[str]:
        import numpy as np

        sims = self.vectors.similarities(self.model.embed_query(text)[0])
        return [self.vectors.ids[int(i)] for i in np.argsort(-sims, kind="stable")[:DEPTH]]


class RememberingEncoder:
    """An encoder that remembers every text it embedded, on disk (``texts-<model>.npz``)."""

    def __init__(self, inner: Any, cache: Path) -> None:
        import numpy as np

        self.inner = inner
        self.path = cache / f"texts-{inner.digest[:16]}.npz"
        self.memo: dict[str, Any] = {}
        if self.path.is_file():
            with np.load(self.path) as data:
                self.memo = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))

    @property
    def digest(self) -> str:
        return str(self.inner.digest)

    @property
    def dimension(self) -> int:
        return int(self.inner.dimension)

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        todo = list(dict.fromkeys(t for t in texts if self._key(t) not in self.memo))
        if todo:
            start = time.perf_counter()

            def tell(done: int, total: int) -> None:
                if done == total or done % 640 == 0:
                    spent = time.perf_counter() - start
                    print(f"  embedded {done}/{total} ({spent:.0f} s)", file=sys.stderr)

            for text, vector in zip(todo, self.inner.embed(todo, progress=tell), strict=True):
                self.memo[self._key(text)] = vector
            self.save()
        return np.stack([self.memo[self._key(t)] for t in texts]).astype(np.float32)

    def save(self) -> None:
        import numpy as np

        from index.atomic import write_bytes_atomic

        keys = np.array(list(self.memo))
        vectors = np.stack(list(self.memo.values())).astype(np.float32)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=keys, vectors=vectors)
        write_bytes_atomic(self.path, tmp.read_bytes())
        tmp.unlink()


def model_digest_of(folder: Path) -> str:
    """The digest ``judge model import`` would give this model folder."""
    from index.semantic.model import REQUIRED_FILES
    from index.semantic.models import model_digest

    hashes = {}
    for rel in (*REQUIRED_FILES, "sentence_bert_config.json", "1_Pooling/config.json"):
        if (folder / rel).is_file():
            hashes[rel] = hashlib.sha256((folder / rel).read_bytes()).hexdigest()
    return model_digest(hashes)


def edition_vectors(
    doc: Document, cache: Path, encoder: Any, *, phrasings: bool, dtype: str = "int8"
) -> Any:
    """The edition's vectors, built (or reused) in ``cache`` with ``index.semantic``."""
    from index.semantic import ensure_vectors, load_vectors

    folder = cache / f"{doc.edition}-{'phrasings' if phrasings else 'bare'}-{dtype}"
    folder.mkdir(parents=True, exist_ok=True)
    with contextlib.nullcontext() if phrasings else phrasings_removed():
        if ensure_vectors(folder, encoder, doc, dtype=dtype):
            print(f"  built vectors for {doc.edition} in {folder}", file=sys.stderr)
    return load_vectors(folder)


class RememberingVectors:
    """Vectors whose similarities are remembered per question (for sweeps)."""

    def __init__(self, vectors: Any) -> None:
        self.inner = vectors
        self.ids = vectors.ids
        self.position = vectors.position
        self.model = vectors.model
        self._memo: dict[bytes, Any] = {}

    def similarities(self, query: Any) -> Any:
        key = query.tobytes()
        if key not in self._memo:
            self._memo[key] = self.inner.similarities(query)
        return self._memo[key]


def load_model(args: argparse.Namespace) -> tuple[object, object] | None:
    """The model (for questions) and a remembering encoder (for vectors), or None with a note."""
    if args.no_semantic:
        return None
    try:
        from index.semantic import Embedder, SemanticUnavailableError, is_available
    except ImportError as exc:  # pragma: no cover - the package is part of the project
        print(f"semantic engines skipped: {exc}")
        return None
    if not is_available():
        print('semantic engines skipped: the extra is not installed (pip install ".[semantic]")')
        return None
    if not (args.model / "onnx" / "model.onnx").is_file():
        print(f"semantic engines skipped: no model in {args.model} (--model DIR)")
        return None
    import functools

    try:
        model = Embedder.from_folder(args.model, digest=model_digest_of(args.model), threads=2)
    except SemanticUnavailableError as exc:
        print(f"semantic engines skipped: {exc}")
        return None
    # Remember every question (sweeps ask each one many times).
    model.embed_query = functools.lru_cache(maxsize=None)(model._embed_one)
    return model, RememberingEncoder(model, args.cache)
