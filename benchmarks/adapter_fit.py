"""The question adapter's settings (``index.semantic.adapter``), scored on the real halves and ours.

Usage::

    python benchmarks/adapter_fit.py                  # none, today's settings, and the grid
    python benchmarks/adapter_fit.py --quick          # none and today's settings only
    python benchmarks/adapter_fit.py --no-cards       # judge+sem instead (no card names read)
    python benchmarks/adapter_fit.py --quick --int8   # with the int8 copy (questions, vectors)

The engine is ``relevance.py``'s ``judge+cards+sem`` (the 2025-02-07 edition for the real
questions, the newest for ours; half Q is never read). For each setting the adapter is fitted
again, as a build fits it (``build_vectors`` in a temporary folder, every passage's vector
taken from ``relevance.py``'s cache, so only the fit costs time), and each half is scored
through ``index.semantic.searching.reranked_search``: the line ``today`` is ``relevance.py``'s
judge+cards+sem to the last digit. ``none`` is the re-rank without an adapter. ``--int8``: the
model as ``judge model install --int8`` leaves it (a quantised copy, made once in the cache
folder with the ``onnx`` package), embedding both the questions and the passages.

The fit reads the phrasings alone: neither the real questions nor ours are fitted on, so every
half is held back from it; the settings were chosen on the tuning half T. Figures of the grid
(2026-12-02) are in ``index/semantic/adapter.py``'s docstring.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _engines import RememberingEncoder  # noqa: E402
from _real_questions import REAL_EDITION  # noqa: E402
from dense_ideas import Set, figures, loaded, model_options  # noqa: E402
from relevance import CORPUS, metrics, newest_corpus_file  # noqa: E402

from index.semantic import adapter  # noqa: E402

GRID = [
    {"TAU": tau, "DECAY": decay}
    for tau in (0.05, 0.1, 0.15, 0.2)
    for decay in (0.03, 0.1, 0.3)
    if (tau, decay) != (adapter.TAU, adapter.DECAY)
] + [
    {"STRIDE": 1},
    {"STEPS": 30, "RATE": 0.001},
]


@contextmanager
def setting(changes: dict[str, Any]) -> Iterator[None]:
    """``index.semantic.adapter``'s constants changed for a while (``MIN_ROWS`` huge: none)."""
    saved = {name: getattr(adapter, name) for name in changes}
    for name, value in changes.items():
        setattr(adapter, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(adapter, name, value)


def refitted(s: Set, tmp: Path) -> Any:
    """``s``'s vectors with the adapter fitted again under the current settings."""
    from index.semantic import build_vectors, load_vectors

    folder = tmp / f"{s.name}-{time.perf_counter_ns()}"
    folder.mkdir()
    start = time.perf_counter()
    header = build_vectors(s.doc, folder, s.model, reuse=[s.vectors.path.parent])
    spent = time.perf_counter() - start
    print(f"  {s.name}: fitted in {spent:.1f} s ({header['reused']} rows reused)", file=sys.stderr)
    return load_vectors(folder)


def int8_cache(args: argparse.Namespace) -> Path:
    """Where the int8 copy's passages and vectors are kept: the cache folder's ``int8`` part."""
    return Path(args.cache) / "int8"


def quantised(args: argparse.Namespace) -> tuple[Any, Any]:
    """The int8 copy (installed once in the cache folder) and an encoder remembering its
    passages in :func:`int8_cache`, where its vectors are built too."""
    import functools

    from index.semantic import ModelStore

    store = ModelStore(args.cache / "int8-home")
    installed = store.get() if store.names() else None
    if installed is None:
        installed = store.import_folder(args.model, quantise=True)
    if not installed.quantised:
        raise SystemExit("the copy could not be quantised (is the onnx package installed?)")
    model = installed.load(threads=2)
    model.embed_query = functools.lru_cache(maxsize=None)(model._embed_one)
    folder = int8_cache(args)
    folder.mkdir(parents=True, exist_ok=True)
    return model, RememberingEncoder(model, folder)


def label_of(changes: dict[str, Any]) -> str:
    if not changes:
        return "today"
    if changes.get("MIN_ROWS"):
        return "none"
    return ", ".join(f"{k.lower()} {v}" for k, v in changes.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="none and today's settings only")
    parser.add_argument("--int8", action="store_true", help="the quantised copy of the model")
    model_options(parser)
    args = parser.parse_args(argv)
    model, enc, cards = loaded(args, quantised) if args.int8 else loaded(args)
    with tempfile.TemporaryDirectory() as tmp:
        cache = int8_cache(args) if args.int8 else args.cache
        real = Set("real", CORPUS / f"cr-{REAL_EDITION}.txt", Path(tmp), cards, model, enc, cache)
        own = Set("own", newest_corpus_file(), Path(tmp), cards, model, enc, cache)
        halves = [(real, "T"), (real, "H"), (own, "ours")]
        today = ", ".join(f"{k} {v}" for k, v in adapter.settings().items())
        print(f"today's settings: {today}; success@5 / MRR (ours: recall@5 / MRR)")
        print(
            f"{'adapter':<34}" + "".join(f"{s.name + ' ' + h:>16}" for s, h in halves) + "   all 91"
        )
        settings: list[dict[str, Any]] = [{}, {"MIN_ROWS": 10**9}]
        if not args.quick:
            settings += GRID
        for changes in settings:
            with setting(changes):
                made = {s.name: refitted(s, Path(tmp)) for s in (real, own)}
                ranks = {(s.name, h): s.ranks(h, made[s.name]) for s, h in halves}
            cells = [figures(ranks[s.name, h]) for s, h in halves]
            both = metrics(ranks["real", "T"] + ranks["real", "H"])
            every = f"   {both['r@5']:.3f} / {both['mrr']:.3f}"
            print(f"{label_of(changes):<34}" + "".join(f"{c:>16}" for c in cells) + every)
        real.lexical.close()
        own.lexical.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
