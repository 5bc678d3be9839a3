"""Speed and memory of the semantic re-rank (``index.semantic``) beside search alone.

Usage: ``python benchmarks/semantic_speed.py [--runs 7] [--without-extra VENV] [--before VENV]
[--weights float,int8] [--warm-only]`` (needs ../shared/corpus, ../shared/models and the
semantic extra; ``VENV``: judge installed without the extra, e.g. ``python3 -m venv VENV &&
VENV/bin/pip install -e .``; ``--before``: another version's judge with the extra, e.g. a
worktree of main's, timed in the same rounds, on the first of the weights' data folders;
``--warm-only``: the warm figures alone).

The model is installed twice, in two data folders: ``float`` as published, ``int8`` with the
copy search loads quantised (``ModelStore.import_folder(..., quantise=True)``, with the ``onnx``
package); every figure of the re-rank is printed for each, the runs interleaved.

1. Cold one-shot: ``judge search`` with the re-rank and with ``--no-semantic``, beside a bare
   whoosh script running the same query on the same index, and the library's steps timed one
   by one in a new process (imports, model, vectors, question, search + re-rank); medians of N
   interleaved runs, wall and CPU time.
2. Warm: p50/p95 in one process with everything loaded, over the real questions and ours:
   search alone, and search then the re-rank (question embedding included, each question new);
   with ``--before``, the same in two processes kept warm, the other version's and this one's,
   asked each question in turn, with their answers compared; then the re-rank of questions new
   to search too, the question embedded one step after search, in a thread beside it, and so
   with the model on two threads.
3. Memory: peak resident memory of the cold runs.
4. Vectors: file size per dtype, time to read and decode them, and how fast passages embed.

Goals (issue 14): warm p95 ≤ 20 ms with the extra, cold one-shot ≤ 400 ms with it. The
machine is shared: the load average is printed beside the figures, and CPU time beside wall time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import environment, machine, peak_child_memory_mib  # noqa: E402
from _engines import RememberingEncoder  # noqa: E402
from _real_questions import read_real_questions  # noqa: E402
from relevance import read_questions  # noqa: E402

from index.search import build_search_index  # noqa: E402
from index.store import EditionStore  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
MODEL = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2"
QUESTION = "we both went to zero at once, what happens?"

ONE_SHOT = """
import json, sys, time
start = time.perf_counter()
from index.search import Searcher
from index.store import EditionStore
store = EditionStore.from_env()
build = store.build_path(store.resolve(None))
semantic = sys.argv[2] == "1"
times = {}
searcher = Searcher.open(build)
times["open"] = time.perf_counter() - start
if semantic:
    t = time.perf_counter()
    import numpy  # noqa: F401
    times["numpy"] = time.perf_counter() - t
    t = time.perf_counter()
    import onnxruntime  # noqa: F401
    times["onnxruntime"] = time.perf_counter() - t
    t = time.perf_counter()
    import tokenizers  # noqa: F401
    times["tokenizers"] = time.perf_counter() - t
    t = time.perf_counter()
    from index.semantic.searching import SemanticSearch, reranked_search
    semantic_search = SemanticSearch.for_root(store.root)
    status = semantic_search.status(build)
    times["status"] = time.perf_counter() - t
    t = time.perf_counter()
    model = semantic_search.model()
    times["model"] = time.perf_counter() - t
    t = time.perf_counter()
    vectors = semantic_search.vectors(build)
    vectors.similarities(model.embed_query("warm the decoding"))
    times["vectors"] = time.perf_counter() - t
    t = time.perf_counter()
    model.embed_query(sys.argv[1])
    times["question"] = time.perf_counter() - t
    t = time.perf_counter()
    found = reranked_search(searcher, sys.argv[1], vectors, model).results
    times["search + re-rank"] = time.perf_counter() - t
else:
    t = time.perf_counter()
    found = searcher.search(sys.argv[1], limit=10).results
    times["search"] = time.perf_counter() - t
times["total"] = time.perf_counter() - start
print(" ".join(r.id for r in found[:5]))
print(json.dumps(times))
"""

BARE_WHOOSH = """
import sys, warnings
warnings.filterwarnings("ignore", message="invalid escape sequence")
from whoosh.index import open_dir
from whoosh.qparser import MultifieldParser, OrGroup
ix = open_dir(sys.argv[1])
with ix.searcher() as s:
    q = MultifieldParser(["term", "title", "group", "body"], ix.schema,
                         group=OrGroup.factory(0.9)).parse(sys.argv[2])
    for hit in s.search(q, limit=10):
        print(hit["id"], hit.highlights("body"))
"""


WARM_WORKER = """
import json, sys, time
from index.edition import open_edition
from index.store import EditionStore
ed = open_edition(None, store=EditionStore.from_env()).keep_warm()
for line in sys.stdin:
    question, semantic = json.loads(line)
    wall, cpu = time.perf_counter(), time.process_time()
    found = ed.search(question, semantic=semantic)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    answer = [repr(r) for r in found.results] + [found.semantic_status, repr(found.semantic)]
    print(json.dumps([wall, cpu, answer]), flush=True)
"""
"""A kept-warm edition in a process of its own, answering one question a line (for
``--before``: each checkout's library, asked in turn)."""


def _home(tmp: Path, weights: str) -> Path:
    """A data folder: the 2025-02-07 edition with its index and vectors, the model imported
    (its prepared copy quantised for ``weights`` int8)."""
    from index.semantic import ModelStore, build_vectors

    home = tmp / f"home-{weights}"
    store = EditionStore(home)
    path = CORPUS / "cr-20250207.txt"
    info = store.add_bytes(path.read_bytes(), path.name, extra=build_search_index)
    installed = ModelStore(home).import_folder(MODEL, quantise=weights == "int8")
    if (installed.quantised is not None) != (weights == "int8"):
        sys.exit(f"the {weights} model could not be installed (is the onnx package there?)")
    build = store.build_path(info.edition)
    assert build is not None
    # The benchmark's cache remembers texts already embedded by this model (same digest).
    encoder = RememberingEncoder(
        installed.load(threads=2, prepack=True), ROOT / "benchmarks" / ".cache"
    )
    build_vectors(store.load(info.edition).document, build, encoder)
    return home


def _cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cold(
    homes: dict[str, Path],
    runs: int,
    question: str,
    without: Path | None = None,
    before: Path | None = None,
) -> None:
    from index.search import search_index_folder

    home = next(iter(homes.values()))
    envs = {w: environment(JUDGE_HOME=str(h)) for w, h in homes.items()}
    env = envs[next(iter(homes))]
    judge = [str(Path(sys.executable).with_name("judge")), "search"]
    script = [sys.executable, "-c", ONE_SHOT, question]
    store = EditionStore(home)
    build = store.build_path(store.resolve(None))
    assert build is not None
    live = search_index_folder(build)
    runs_of = {
        "bare whoosh script": [sys.executable, "-c", BARE_WHOOSH, str(live), question],
        "judge search --no-semantic": [*judge, "--no-semantic", question],
        **(
            {"judge search, no extra": [str(without / "bin" / "judge"), "search", question]}
            if without is not None
            else {}
        ),
        **(
            {"judge search, before": [str(before / "bin" / "judge"), "search", question]}
            if before is not None
            else {}
        ),
        **{f"judge search (re-rank, {w})": [*judge, question] for w in homes},
        "library: search": [*script, "0"],
        **{f"library: search + re-rank, {w}": [*script, "1"] for w in homes},
    }
    env_of = {
        name: next((envs[w] for w in homes if name.endswith(f", {w})") or name.endswith(w)), env)
        for name in runs_of
    }
    walls: dict[str, list[float]] = {name: [] for name in runs_of}
    cpus: dict[str, list[float]] = {name: [] for name in runs_of}
    parts: dict[str, list[dict[str, float]]] = {w: [] for w in homes}
    for name, argv in runs_of.items():  # warm the disk cache once
        subprocess.run(argv, env=env_of[name], check=True, capture_output=True)
    for _ in range(runs):
        for name, argv in runs_of.items():  # interleaved: the load falls on all alike
            cpu, start = _cpu(), time.perf_counter()
            out = subprocess.run(argv, env=env_of[name], check=True, capture_output=True, text=True)
            walls[name].append(time.perf_counter() - start)
            cpus[name].append(_cpu() - cpu)
            if name.startswith("library: search + re-rank, "):
                parts[name.rsplit(", ", 1)[1]].append(json.loads(out.stdout.splitlines()[-1]))
    print(f"1. cold one-shot, {question!r}, median of {runs} (ms): wall, CPU (user + system)")
    bare = statistics.median(walls["bare whoosh script"])
    bare_cpu = statistics.median(cpus["bare whoosh script"])
    for name in runs_of:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        print(
            f"   {name:<34}{wall * 1000:>8.0f}{cpu * 1000:>8.0f}"
            f"   {wall / bare:.2f}x / {cpu / bare_cpu:.2f}x the bare whoosh script"
        )
    for weights, timed in parts.items():
        keys = list(timed[0]) if timed else []
        print(
            f"   the library's parts, {weights} (median ms): "
            + ", ".join(f"{k} {statistics.median(p[k] for p in timed) * 1000:.0f}" for k in keys)
        )
    shown = ("judge search --no-semantic", "judge search, before")
    for name in (*shown, *(f"judge search (re-rank, {w})" for w in homes)):
        if name not in runs_of:
            continue
        _seconds, mib = peak_child_memory_mib(runs_of[name], env_of[name])
        print(f"3. peak memory, {name}: {mib:.0f} MiB")


def _warm(homes: dict[str, Path]) -> None:
    """What a server pays: ``Edition.keep_warm()``, then ``Edition.search`` per question
    (each data folder's edition in turn, question by question)."""
    from index.edition import open_edition

    eds = {w: open_edition(None, store=EditionStore(h)).keep_warm() for w, h in homes.items()}
    questions = [q.text for q in read_real_questions()] + [q.text for q in read_questions()]
    for ed in eds.values():
        for q in questions[:20]:  # warm the searcher's caches and the session
            ed.search(q + " warm", semantic=False)
            assert ed.search(q + " warm").semantic_status == "current"
    lexical: dict[str, list[float]] = {w: [] for w in homes}
    both: dict[str, list[float]] = {w: [] for w in homes}
    cpu: dict[str, list[float]] = {w: [] for w in homes}
    for q in questions:  # each question new to the re-rank (its vector is not remembered)
        for w, ed in eds.items():
            start = time.perf_counter()
            ed.search(q, semantic=False)
            middle, used = time.perf_counter(), time.process_time()
            ed.search(q)
            end = time.perf_counter()
            cpu[w].append(time.process_time() - used)
            lexical[w].append(middle - start)
            both[w].append(end - middle)
    for ed in eds.values():
        ed.close()

    def p(xs: list[float], q: float) -> float:
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000

    n_real = len(read_real_questions())
    print(f"2. warm, {len(questions)} questions (ms): p50 / p95")
    for w in homes:
        semantic = [b - a for a, b in zip(lexical[w], both[w], strict=True)]
        print(f"   {w}:")
        print(
            f"   Edition.search, --no-semantic  {p(lexical[w], 0.5):6.1f} / "
            f"{p(lexical[w], 0.95):6.1f}"
        )
        print(
            f"   Edition.search, re-ranked      {p(both[w], 0.5):6.1f} / {p(both[w], 0.95):6.1f}"
            f"   (CPU {p(cpu[w], 0.5):.1f} / {p(cpu[w], 0.95):.1f})"
        )
        print(
            f"   the difference                 {p(semantic, 0.5):6.1f} / {p(semantic, 0.95):6.1f}"
        )
        print(
            f"   the difference, {n_real} real questions (~50 tokens) "
            f"{p(semantic[:n_real], 0.5):.1f} / "
            f"{p(semantic[:n_real], 0.95):.1f}; ours (~12 tokens) "
            f"{p(semantic[n_real:], 0.5):.1f} / {p(semantic[n_real:], 0.95):.1f}"
        )


_WAYS = {
    "one after the other": (False, 1),
    "overlapped": (True, 1),
    "overlapped, 2 threads": (True, 2),
}
"""How a kept-warm edition's question may be embedded: (``SemanticSearch.overlap``, the model's
intra-op threads)."""


def _warm_new(home: Path) -> None:
    """Re-ranked ``Edition.search`` of questions new to search too (as a server meets them;
    section 2 asks each lexically first, which fills search's caches), one edition kept warm per
    way of embedding (:data:`_WAYS`), asked each question in turn, the order turning; their
    answers compared."""
    from index.edition import open_edition

    eds = {}
    for way, (overlap, threads) in _WAYS.items():
        ed = open_edition(None, store=EditionStore(home)).keep_warm()
        semantic = ed._semantic
        assert semantic is not None
        semantic.overlap, semantic.threads = overlap, threads
        eds[way] = ed
    questions = [q.text for q in read_real_questions()] + [q.text for q in read_questions()]
    for ed in eds.values():
        for q in questions[:20]:
            ed.search(q + " warm")
    walls: dict[str, list[float]] = {way: [] for way in eds}
    differ = 0
    for i, q in enumerate(questions):
        ways = list(eds)
        ways = ways[i % len(ways) :] + ways[: i % len(ways)]
        answers = set()
        for way in ways:
            start = time.perf_counter()
            found = eds[way].search(q)
            walls[way].append(time.perf_counter() - start)
            answers.add(repr([(r.id, r.score) for r in found.results]))
        differ += len(answers) > 1
    for ed in eds.values():
        ed.close()

    def p(xs: list[float], q: float) -> float:
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000

    print(f"2c. warm, re-ranked, {len(questions)} questions new to search too (ms): p50 / p95")
    for way, xs in walls.items():
        print(f"   {way:<24}{p(xs, 0.5):6.1f} / {p(xs, 0.95):6.1f}")
    print(f"   questions whose answers differ between the ways: {differ}")


def _warm_before(home: Path, before: Path) -> None:
    """Warm figures of ``before``'s judge and this one, each in a process of its own kept
    warm, asked the same question in turn (the load falls on both alike); their answers
    (every result's repr, the re-rank's record) are compared question by question."""
    import os

    env = environment(JUDGE_HOME=str(home))
    pythons = {"before": before / "bin" / "python", "after": Path(sys.executable)}
    questions = [q.text for q in read_real_questions()] + [q.text for q in read_questions()]
    with tempfile.TemporaryDirectory() as cwd:  # not a checkout: `-c` puts cwd on sys.path
        workers = {
            name: subprocess.Popen(
                [str(python), "-c", WARM_WORKER],
                env=env,
                cwd=cwd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for name, python in pythons.items()
        }

        def ask(name: str, question: str, semantic: bool) -> tuple[float, float, list[str]]:
            worker = workers[name]
            assert worker.stdin is not None and worker.stdout is not None
            worker.stdin.write(json.dumps([question, semantic]) + "\n")
            worker.stdin.flush()
            wall, cpu, answer = json.loads(worker.stdout.readline())
            return wall, cpu, answer

        for q in questions[:20]:  # warm the searchers' caches and the sessions
            for name in workers:
                ask(name, q + " warm", False)
                assert ask(name, q + " warm", True)[2][-2] == "current", name
        times: dict[tuple[str, bool], list[tuple[float, float]]] = {
            (n, sem): [] for n in workers for sem in (False, True)
        }
        differ = []
        for i, q in enumerate(questions):
            answers = {}
            order = list(workers) if i % 2 == 0 else list(workers)[::-1]
            for semantic in (False, True):
                for name in order:
                    wall, cpu, answer = ask(name, q, semantic)
                    times[name, semantic].append((wall, cpu))
                    answers[name, semantic] = answer
            if any(answers["before", s] != answers["after", s] for s in (False, True)):
                differ.append(q)
        for worker in workers.values():
            assert worker.stdin is not None
            worker.stdin.close()
            worker.wait()

    def p(xs: list[float], q: float) -> float:
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000

    print(
        f"2b. warm, before / after, {len(questions)} questions asked in turn (ms): "
        f"p50 / p95 wall, (CPU p50 / p95)   load average {os.getloadavg()[0]:.1f}"
    )
    for semantic in (False, True):
        label = "re-ranked" if semantic else "--no-semantic"
        for name in workers:
            walls = [w for w, _ in times[name, semantic]]
            cpus = [c for _, c in times[name, semantic]]
            print(
                f"   {name:<7}{label:<15}{p(walls, 0.5):6.1f} / {p(walls, 0.95):6.1f}"
                f"   (CPU {p(cpus, 0.5):.1f} / {p(cpus, 0.95):.1f})"
            )
    print(f"   answers that differ: {len(differ)} of {len(questions)}")
    for q in differ[:5]:
        print(f"     {q[:70]!r}")


def _vectors(home: Path, *, dtypes: bool = True) -> None:
    from index.semantic import ModelStore, build_vectors, load_vectors, passages
    from index.semantic.vectors import FILE

    store = EditionStore(home)
    doc = store.load(store.resolve(None)).document
    installed = ModelStore(home).get()
    encoder = RememberingEncoder(
        installed.load(threads=2, prepack=True), ROOT / "benchmarks" / ".cache"
    )
    weights = "int8" if installed.quantised else "float"
    print(f"4. vectors of {len(passages(doc))} passages, {weights} model:")
    import numpy as np

    query = np.ones(installed.dimension, dtype=np.float32) / np.sqrt(installed.dimension)
    with tempfile.TemporaryDirectory() as tmp:
        for dtype in ("int8", "float16", "float32") if dtypes else ():
            folder = Path(tmp) / dtype
            folder.mkdir()
            build_vectors(doc, folder, encoder, dtype=dtype)
            size = (folder / FILE).stat().st_size / 2**20
            start = time.perf_counter()
            v = load_vectors(folder)
            middle = time.perf_counter()
            v.similarities(query)
            first = time.perf_counter()
            for _ in range(20):
                v.similarities(query)
            warm = (time.perf_counter() - first) / 20
            print(
                f"   {dtype:<8} {size:5.1f} MiB: read {(middle - start) * 1000:4.1f} ms, "
                f"decode + first question {(first - middle) * 1000:4.1f} ms, "
                f"then {warm * 1000:4.1f} ms a question"
            )
    model = installed.load(threads=2, prepack=True)
    sample = [p.text for p in passages(doc)][::8][:600]
    start = time.perf_counter()
    model.embed(sample)
    rate = len(sample) / (time.perf_counter() - start)
    print(
        f"   embedding: {rate:.0f} passages/s on 2 threads (a sample of {len(sample)}), so an "
        f"edition's {len(passages(doc))} take ≈ {len(passages(doc)) / rate:.0f} s"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--without-extra",
        type=Path,
        default=None,
        metavar="VENV",
        help="a virtual environment with judge installed without the semantic extra, timed too",
    )
    parser.add_argument(
        "--before",
        type=Path,
        default=None,
        metavar="VENV",
        help="a virtual environment with another version of judge and the extra, timed too",
    )
    parser.add_argument(
        "--weights",
        default="float,int8",
        help="the model's copies timed: float (as published), int8 (quantised), or both",
    )
    parser.add_argument(
        "--warm-only",
        action="store_true",
        help="only the warm figures (and, with --before, the warm ones before and after)",
    )
    args = parser.parse_args(argv)
    weights = [w for w in args.weights.split(",") if w]
    if not weights or any(w not in ("float", "int8") for w in weights):
        sys.exit("--weights: float, int8 or float,int8")
    if not (MODEL / "onnx" / "model.onnx").is_file():
        sys.exit(f"no model in {MODEL}: this benchmark needs ../shared/models")
    import os

    print(f"load average {os.getloadavg()[0]:.1f} on {machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        homes = {w: _home(Path(tmp), w) for w in weights}
        for question in (QUESTION, "legend rule") if not args.warm_only else ():
            _cold(homes, args.runs, question, args.without_extra, args.before)
            print(f"   (load average {os.getloadavg()[0]:.1f})")
        _warm(homes)
        print(f"   (load average {os.getloadavg()[0]:.1f})")
        _warm_new(next(iter(homes.values())))
        print(f"   (load average {os.getloadavg()[0]:.1f})")
        if args.before is not None:
            _warm_before(next(iter(homes.values())), args.before)
        for i, home in enumerate(homes.values() if not args.warm_only else ()):
            _vectors(home, dtypes=i == 0)
            print(f"   (load average {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
