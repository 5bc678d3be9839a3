"""Speed of ``judge search`` beside bare whoosh doing the same work.

Usage: ``python benchmarks/search_speed.py [--runs 10] [--no-build] [--baseline DIR]``
(needs ../shared/corpus).

1. Build: ``index.search.build_search_index`` for the newest edition vs a bare whoosh build of
   the same documents with the same schema (create_in, one writer, add_document, commit).
2. Cold one-shot: ``judge search "legend rule"`` as a new process vs a bare Python script that
   imports whoosh, opens the same index and runs the same parsed query (median of N runs each,
   interleaved), both with bytecode caching on and the project precompiled (see
   ``_common.environment``). ``--baseline DIR`` times another checkout of judge in the same
   runs (its own code, and a data folder it built), for figures before and after a change.
3. Warm: p50/p95 of queries on an open :class:`index.search.Searcher` (the question set plus
   shorthand, misspellings and rule numbers): first each of half the questions asked once, in
   a Searcher warmed on the other half (what a bot sees for a new question); then every query
   three times after a pass over all of them (the goal's figure).
4. The check that an index is current (``index_is_current``: the digest of the phrasing files
   and word tables), first in a new process and then again in it.
5. Pasted questions: questions of the set, each inside a forum post of about 3,000 characters,
   warm on the open Searcher.
6. Card names (``--cards``, default ``../shared/cards/AtomicCards.json.xz``, imported once into
   ``benchmarks/.cache``; skipped when absent): the warm queries again with a card store, as
   ``judge search`` reads them when cards are stored, plus the real questions (most name
   cards), each also with the rulings' index beside the edition's (as ``judge search`` opens
   it), the real ones also each asked once after ours (``new``: what a bot meets); the
   reading of names alone; and the cold one-shot with cards stored, for "legend rule" and for
   a question naming a card with rulings (a ``--baseline`` gets a copy of the cards, whose
   rulings' index it builds itself in the first, untimed run).
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import environment, machine  # noqa: E402

from index.reader import read_cr_path  # noqa: E402
from index.search import Searcher, build_search_index, search_index_folder  # noqa: E402
from index.search.schema import documents, make_schema  # noqa: E402
from index.store import EditionStore  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
NAMED_QUESTION = "Platinum Angel legend rule"
"""A cold question naming a card with rulings: the rulings' index is opened and searched."""
CARDS = ROOT.parent / "shared" / "cards" / "AtomicCards.json.xz"
CACHE = ROOT / "benchmarks" / ".cache"

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

CHECK_CURRENT = """
import sys, time
from pathlib import Path
from index.search import index_is_current
folder = Path(sys.argv[1])
start = time.perf_counter()
assert index_is_current(folder)
first = time.perf_counter()
assert index_is_current(folder)
print(first - start, time.perf_counter() - first)
"""

PREAMBLE = """\
Hi everyone, long time lurker, first time poster. Our playgroup meets every Friday at the back \
of a comic shop, four or five of us, mostly Commander but sometimes we draft when someone \
brings a box. Last week something came up that started a twenty-minute argument and nobody \
could find the answer in the comprehensive rules on their phone, so I promised to ask here. \
Some background: I was on my graveyard deck, my buddy on artifacts, and the other two on \
tokens and burn. The game had been going for over an hour and everybody was low on cards. \
My friend insists he is right because he has been playing since the nineties, but I am \
pretty sure he is mixing things up with how the old rules used to work before all the changes.
Anyway, here's what happened, as best as I can remember it:
"""
SIGN_OFF = """
Sorry for the wall of text, and sorry if this has been asked before. Any help would be \
greatly appreciated, and a rule number would be awesome so I can show my playgroup. Thanks!
EDIT: formatting."""


def _pasted(question: str, size: int = 3_000) -> str:
    body = question + SIGN_OFF
    text = PREAMBLE + body
    while len(text) < size:
        text = PREAMBLE + "\n" + text
    return text


def _bare_build(docs: list[dict[str, object]], folder: Path) -> None:
    from whoosh.index import create_in

    ix = create_in(str(folder), make_schema())
    w = ix.writer()
    for d in docs:
        w.add_document(**d)
    w.commit()


def _run(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    # A run of another checkout starts inside it (PYTHONPATH names it): `python -m` puts the
    # working folder first on sys.path, and this venv's `judge` script may name an entry point
    # that checkout lacks.
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, cwd=env.get("PYTHONPATH"))
    return time.perf_counter() - start


def _pct(times: list[float], share: float) -> float:
    return sorted(times)[min(len(times) - 1, int(len(times) * share))] * 1000


def _cards_folder(source: Path) -> Path:
    """The ``cards/`` folder of the data folder :func:`_engines.card_names` imported into."""
    if source.is_dir():
        return source / "cards"
    import hashlib

    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    return CACHE / f"cards-{digest[:16]}" / "cards"


def _warm_with_cards(
    ix: object, queries: list[str], cards: object, build: Path, snapshot: Path | None
) -> None:
    """Step 6: the warm queries (and the real questions) with a card store, and the reading;
    with ``snapshot`` (a card snapshot's folder), also beside its rulings' index."""
    from _real_questions import read_real_questions

    from index.search.cardquery import read_cards
    from index.search.source import OpenIndex

    real = [q.text for q in read_real_questions()]
    runs: list[tuple[str, list[str], bool]] = [
        ("cards", queries, False),
        ("cards, real", real, False),
    ]
    if snapshot is not None:
        runs += [("rulings", queries, True), ("rulings, real", real, True)]
    for label, texts, rulings in runs:
        if not texts:
            continue
        if snapshot is not None and rulings:
            extras = [("rulings", snapshot, 1.0)]
            opened = Searcher.open(build, cards=cards, extras=extras)  # type: ignore[arg-type]
        else:
            opened = Searcher([ix], cards=cards)  # type: ignore[arg-type]
        with opened as searcher:
            if texts is real:
                # First as a bot meets them: each asked once, after our questions only.
                for q in queries:
                    searcher.search(q, limit=10)
                fresh = _timed(searcher, texts)
                print(
                    f"warm, {label + ', new':<18} p50 {_pct(fresh, 0.5):5.1f} ms   p95 "
                    f"{_pct(fresh, 0.95):5.1f} ms  each asked once, after our questions"
                )
            for q in texts:
                searcher.search(q, limit=10)
            times = [t for _ in range(3) for t in _timed(searcher, texts)]
        print(
            f"warm, {label:<13} p50 {_pct(times, 0.5):5.1f} ms   p95 {_pct(times, 0.95):5.1f} ms"
            f"  over {len(times)} queries (goal p95 ≤ 10 ms; load {_load()})"
        )
    src = OpenIndex(ix)
    texts = queries + real
    for q in texts:
        read_cards(q, cards, src)  # type: ignore[arg-type]
    reading = []
    for q in texts:
        start = time.perf_counter()
        read_cards(q, cards, src)  # type: ignore[arg-type]
        reading.append(time.perf_counter() - start)
    src.close()
    print(
        f"names      p50 {_pct(reading, 0.5):5.2f} ms   p95 {_pct(reading, 0.95):5.2f} ms  "
        f"reading the card names of {len(texts)} queries (one sqlite query each, no scan)"
    )


def _timed(searcher: Searcher, texts: list[str]) -> list[float]:
    """Each text searched once (limit 10): the seconds each took."""
    times = []
    for q in texts:
        start = time.perf_counter()
        searcher.search(q, limit=10)
        times.append(time.perf_counter() - start)
    return times


def _load() -> str:
    """The load average over the last minute (other work on the machine skews every figure)."""
    return f"{os.getloadavg()[0]:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--no-build", action="store_true", help="skip the build timing")
    parser.add_argument(
        "--baseline", type=Path, help="another checkout of judge to time in the same cold runs"
    )
    parser.add_argument("--cards", type=Path, default=CARDS, help="card data folder or file")
    args = parser.parse_args(argv)
    from _engines import card_names

    cards = card_names(args.cards, CACHE)
    path = sorted(CORPUS.glob("cr-*.txt"))[-1]
    doc = read_cr_path(path)
    print(f"edition {doc.edition} ({path.name}), on {machine()}")

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        # 1. build
        if not args.no_build:
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
        judge_exe = str(Path(sys.executable).with_name("judge"))
        commands = {
            "judge": ([judge_exe, "search", "legend rule"], env),
            "bare whoosh": ([sys.executable, "-c", BARE_QUERY, str(live), "legend rule"], env),
        }
        if args.baseline is not None:
            other = args.baseline.resolve()
            for package in ("glossary", "index", "judge_cli"):
                compileall.compile_dir(str(other / package), quiet=1)
            other_env = dict(env, PYTHONPATH=str(other), JUDGE_HOME=str(root / "baseline"))
            other_judge = [sys.executable, "-m", "judge_cli"]
            build_cmd = [*other_judge, "index", "build", str(path)]
            _run(build_cmd, other_env)
            commands["baseline"] = ([*other_judge, "search", "legend rule"], other_env)
        if cards is not None:
            # The same edition with the card snapshot beside it (linked, not copied).
            with_cards = root / "home-cards"
            with_cards.mkdir()
            for entry in home.iterdir():
                (with_cards / entry.name).symlink_to(entry)
            (with_cards / "cards").symlink_to(_cards_folder(args.cards))
            cards_env = environment(JUDGE_HOME=str(with_cards))
            commands["judge, cards stored"] = ([judge_exe, "search", "legend rule"], cards_env)
            named = [judge_exe, "search", NAMED_QUESTION]
            commands["judge, cards, a card named"] = (named, cards_env)
            if args.baseline is not None:
                # A copy: the baseline may build its rulings' index otherwise than this one.
                other_cards = root / "baseline-cards"
                other_cards.mkdir()
                (other_cards / "editions").symlink_to(root / "baseline" / "editions")
                shutil.copytree(_cards_folder(args.cards), other_cards / "cards")
                cards_other = dict(other_env, JUDGE_HOME=str(other_cards))
                search = [*other_judge, "search"]
                commands["baseline, cards stored"] = ([*search, "legend rule"], cards_other)
                commands["baseline, cards, a card named"] = ([*search, NAMED_QUESTION], cards_other)
        for cmd, cmd_env in commands.values():
            _run(cmd, cmd_env)  # warm the OS cache and .pyc files
        cold: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, (cmd, cmd_env) in commands.items():
                cold[name].append(_run(cmd, cmd_env))
        bare_ms = statistics.median(cold["bare whoosh"]) * 1000
        for name, times in cold.items():
            if name == "bare whoosh":
                continue
            ms = statistics.median(times) * 1000
            label = name.replace("baseline", f"baseline ({args.baseline})")
            print(
                f"cold       {label} {ms:6.0f} ms  bare whoosh {bare_ms:6.0f} ms  "
                f"ratio {ms / bare_ms:.2f}  (goal ≤ 1.3; median of {args.runs}; load {_load()})"
            )

        # 3. warm
        from relevance import read_questions
        from whoosh.index import open_dir

        questions = [q.text for q in read_questions()]
        queries = [
            *questions,
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
        # First, questions the Searcher has not seen: warm it on every other question, then
        # time each of the rest once (it holds only what other questions read).
        with Searcher([ix]) as searcher:
            for q in queries[::2]:
                searcher.search(q, limit=10)
            fresh = _timed(searcher, queries[1::2])
        print(
            f"warm, new  p50 {_pct(fresh, 0.5):5.1f} ms   p95 {_pct(fresh, 0.95):5.1f} ms  "
            f"over {len(fresh)} questions asked once"
        )
        # Then every query again, three times over, after a pass over all of them.
        with Searcher([ix]) as searcher:
            for q in queries:
                searcher.search(q, limit=10)
            times = [t for _ in range(3) for t in _timed(searcher, queries)]
            print(
                f"warm       p50 {_pct(times, 0.5):5.1f} ms   p95 {_pct(times, 0.95):5.1f} ms  "
                f"over {len(times)} queries (goal p95 ≤ 10 ms)"
            )

            # 5. pasted questions, on the same warm Searcher
            posts = [_pasted(q) for q in questions[::10]]
            pasted = []
            for post in posts:
                start = time.perf_counter()
                searcher.search(post, limit=10)
                pasted.append(time.perf_counter() - start)
            sizes = statistics.median(len(p) for p in posts)
            print(
                f"pasted     p50 {_pct(pasted, 0.5):5.1f} ms   p95 {_pct(pasted, 0.95):5.1f} ms  "
                f"over {len(posts)} questions in posts of about {sizes:,.0f} characters"
            )
        if cards is not None:
            from index.atomic import Slot

            snapshot = Slot(_cards_folder(args.cards)).current()
            _warm_with_cards(ix, queries, cards, build, snapshot)
        ix.close()

        # 4. the check that the index is current
        firsts, agains = [], []
        for _ in range(args.runs):
            out = subprocess.run(
                [sys.executable, "-c", CHECK_CURRENT, str(build)],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout.split()
            firsts.append(float(out[0]))
            agains.append(float(out[1]))
        print(
            f"current?   first in a process {statistics.median(firsts) * 1000:5.2f} ms   "
            f"again {statistics.median(agains) * 1000:5.3f} ms  (phrasing files read and "
            "hashed once per process)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
