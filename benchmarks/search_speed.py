"""Speed of ``judge search`` beside bare whoosh doing the same work.

Usage: ``python benchmarks/search_speed.py [--runs 10]`` (needs ../shared/corpus).

1. Build: ``index.search.build_search_index`` for the newest edition vs a bare whoosh build of
   the same documents with the same schema (create_in, one writer, add_document, commit).
2. Cold one-shot: ``judge search "legend rule"`` as a new process vs a bare Python script that
   imports whoosh, opens the same index and runs the same parsed query (median of N runs each,
   interleaved), both with bytecode caching on and the project precompiled (see
   ``_common.environment``).
3. Warm: p50/p95 of in-process queries on an opened index (the question set plus shorthand,
   misspellings and rule numbers): first each of half the questions asked once, in a process
   warmed on the other half (what a bot sees for a new question); then every query three times
   after a pass over all of them (the goal's figure; per-reader caches are hot).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import environment  # noqa: E402

from index.reader import read_cr_path  # noqa: E402
from index.search import Searcher, build_search_index, search_index_folder  # noqa: E402
from index.search.schema import documents, make_schema  # noqa: E402
from index.store import EditionStore  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"

BARE_QUERY = """
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


def _bare_build(docs: list[dict[str, object]], folder: Path) -> None:
    from whoosh.index import create_in

    ix = create_in(str(folder), make_schema())
    w = ix.writer()
    for d in docs:
        w.add_document(**d)
    w.commit()


def _median_run(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args(argv)
    path = sorted(CORPUS.glob("cr-*.txt"))[-1]
    doc = read_cr_path(path)
    print(f"edition {doc.edition} ({path.name})")

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        # 1. build
        ours, bare = [], []
        for i in range(3):
            start = time.perf_counter()
            build_search_index(doc, root / f"ours-{i}")
            ours.append(time.perf_counter() - start)
            docs = list(documents(doc))  # bare gets its documents for free
            (root / f"bare-{i}").mkdir()
            start = time.perf_counter()
            _bare_build(docs, root / f"bare-{i}")
            bare.append(time.perf_counter() - start)
        o, b = statistics.median(ours), statistics.median(bare)
        print(
            f"build      judge {o:6.2f} s   bare whoosh {b:6.2f} s   "
            f"ratio {o / b:.2f}  (goal ≤ 1.5)"
        )

        # 2. cold one-shot
        home = root / "home"
        store = EditionStore(home)
        store.add_bytes(path.read_bytes(), path.name, extra=build_search_index)
        build = store.build_path(str(doc.edition))
        assert build is not None
        live = search_index_folder(build)
        assert live is not None
        # Both sides run with bytecode caching on and the project precompiled, as an installed
        # wheel would (a developer shell's PYTHONDONTWRITEBYTECODE would make judge recompile
        # its own sources on every run while whoosh's .pyc files are already in site-packages).
        env = environment(JUDGE_HOME=str(home))
        judge = [str(Path(sys.executable).with_name("judge")), "search", "legend rule"]
        script = [sys.executable, "-c", BARE_QUERY, str(live), "legend rule"]
        _median_run(judge, env), _median_run(script, env)  # warm the OS cache and .pyc files
        cold_j, cold_b = [], []
        for _ in range(args.runs):
            cold_j.append(_median_run(judge, env))
            cold_b.append(_median_run(script, env))
        cj, cb = statistics.median(cold_j), statistics.median(cold_b)
        print(
            f"cold       judge {cj * 1000:6.0f} ms  bare whoosh {cb * 1000:6.0f} ms  "
            f"ratio {cj / cb:.2f}  (goal ≤ 1.3; median of {args.runs})"
        )

        # 3. warm
        from relevance import read_questions
        from whoosh.index import open_dir

        queries = [q.text for q in read_questions()]
        queries += [
            "legend rule",
            "phasing",
            "deathtuch",
            "SBA",
            "ETB",
            "704.5j",
            "rule 613",
            '"owner\u2019s graveyard"',
            "deathtouch AND trample",
            "section:7 damage",
        ]
        ix = open_dir(str(live))
        # First, questions the process has not seen: warm it on every other question, then
        # time each of the rest once (an open Searcher holds only what other questions read).
        with Searcher([ix]) as searcher:
            for q in queries[::2]:
                searcher.search(q, limit=10)
            fresh = []
            for q in queries[1::2]:
                start = time.perf_counter()
                searcher.search(q, limit=10)
                fresh.append(time.perf_counter() - start)
        fresh.sort()
        print(
            f"warm, new  p50 {fresh[len(fresh) // 2] * 1000:5.1f} ms   "
            f"p95 {fresh[int(len(fresh) * 0.95)] * 1000:5.1f} ms  over {len(fresh)} questions "
            "asked once"
        )
        # Then every query again, three times over, after a pass over all of them.
        with Searcher([ix]) as searcher:
            for q in queries:
                searcher.search(q, limit=10)
            times = []
            for _ in range(3):
                for q in queries:
                    start = time.perf_counter()
                    searcher.search(q, limit=10)
                    times.append(time.perf_counter() - start)
        times.sort()
        p50 = times[len(times) // 2] * 1000
        p95 = times[int(len(times) * 0.95)] * 1000
        print(
            f"warm       p50 {p50:5.1f} ms   p95 {p95:5.1f} ms  over {len(times)} queries "
            "(goal p95 ≤ 10 ms)"
        )
        ix.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
