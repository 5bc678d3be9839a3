"""``/api/card`` on a warm ``judge serve``, and how the server holds the card database.

sqlite connections belong to the thread that opened them, and the server answers in a pool of
worker threads; three ways to share the snapshot, measured in one process with 8 threads doing
the lookups ``judge card`` does: one connection shared by all (``check_same_thread=False``,
sqlite's own lock), one per thread (what :class:`judge_cli.serve.state.WarmCards` keeps), and
one opened per request. Then over loopback: p50 and p95 of ``/api/card/NAME``, requests per
second from 8 clients, beside one-shot ``judge card NAME --json`` processes.

    python benchmarks/card_server_speed.py [--requests 400] [--runs 10] [--home JUDGE_HOME]
"""

from __future__ import annotations

import argparse
import http.client
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

from _common import ROOT, environment, median_ms, newest_corpus_file, time_command

CARDS = ROOT.parent / "shared" / "cards" / "AtomicCards.json.xz"
NAMES = [
    "Platinum Angel",
    "Darksteel Citadel",
    "delver of secrets",
    "thrun the last troll",
    "Lim-Dul's Vault",
    "Insectile Aberration",
    "Fire // Ice",
]


def _fill(home: str) -> None:
    from index.cards.store import CardStore
    from index.store import EditionStore

    if not CARDS.is_file():
        sys.exit(f"no card file at {CARDS}: the benchmark needs ../shared/cards")
    cr = newest_corpus_file()
    EditionStore(Path(home)).add_bytes(cr.read_bytes(), cr.name)
    CardStore(Path(home)).import_cards(CARDS)


def _strategies(home: Path) -> dict[str, Callable[[], Callable[[str], object]]]:
    from index.cards.lookup import CardDB
    from index.cards.store import CardStore, _uri_path
    from judge_cli.serve.state import WarmCards

    store = CardStore(home)

    def shared() -> Callable[[str], object]:
        info, path = store.database_path()
        uri = f"file:{_uri_path(path)}?immutable=1"
        db = CardDB(info, sqlite3.connect(uri, uri=True, check_same_thread=False))
        return db.get

    def per_thread() -> Callable[[str], object]:
        warm = WarmCards(home)
        return lambda name: warm.get().get(name)

    def per_request() -> Callable[[str], object]:
        def lookup(name: str) -> object:
            with CardDB.open(store) as db:
                return db.get(name)

        return lookup

    return {
        "one shared connection": shared,
        "one per thread (WarmCards)": per_thread,
        "one per request": per_request,
    }


def _in_process(home: Path, threads: int, each: int) -> None:
    strategies = _strategies(home)
    rates: dict[str, list[float]] = {label: [] for label in strategies}
    for _ in range(3):  # interleaved rounds: the machine's load moves
        for label, make in strategies.items():
            lookup = make()

            def work(lookup: Callable[[str], object] = lookup) -> None:
                for i in range(each):
                    lookup(NAMES[i % len(NAMES)])

            pool = [threading.Thread(target=work) for _ in range(threads)]
            start = time.perf_counter()
            for t in pool:
                t.start()
            for t in pool:
                t.join()
            rates[label].append(threads * each / (time.perf_counter() - start))
    for label, found in rates.items():
        best = max(found)
        print(f"  in-process, {threads} threads, {label:28} {best:9.0f} lookups/s (best of 3)")


def _percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return ordered[len(ordered) // 2] * 1000, ordered[int(len(ordered) * 0.95)] * 1000


def _latencies(port: int, path: str, count: int) -> list[float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for _ in range(20):
        conn.request("GET", path)
        conn.getresponse().read()
    times = []
    for _ in range(count):
        start = time.perf_counter()
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        times.append(time.perf_counter() - start)
        assert response.status == 200, path
    conn.close()
    return times


def _throughput(port: int, clients: int, each: int) -> float:
    paths = ["/api/card/" + urllib.parse.quote(name) for name in NAMES]

    def client(index: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for i in range(each):
            conn.request("GET", paths[(i + index) % len(paths)])
            response = conn.getresponse()
            response.read()
            assert response.status == 200
        conn.close()

    pool = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return clients * each / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400, help="timed requests per route")
    parser.add_argument("--runs", type=int, default=10, help="runs of the one-shot command")
    parser.add_argument("--home", help="a JUDGE_HOME with an edition and card data")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as scratch:
        home = args.home or scratch
        if not args.home:
            _fill(home)
        _in_process(Path(home), 8, 2000)
        env = environment(JUDGE_HOME=home)
        judge = [sys.executable, "-m", "judge_cli"]
        server = subprocess.Popen(
            [*judge, "serve", "--port", "0"], env=env, stdout=subprocess.PIPE, text=True
        )
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            port = int(line.rsplit(":", 1)[1].split("/", 1)[0])
            for name in ("Platinum Angel", "Delver of Secrets"):
                path = "/api/card/" + urllib.parse.quote(name)
                p50, p95 = _percentiles(_latencies(port, path, args.requests))
                print(f"  warm {path:38} p50 {p50:6.2f} ms  p95 {p95:6.2f} ms")
            rate = _throughput(port, 8, max(25, args.requests // 8))
            print(f"  8 clients, {len(NAMES)} names in turn: {rate:7.0f} requests/s")
        finally:
            server.terminate()
            server.wait(20)
        times = time_command([*judge, "card", "Platinum Angel", "--json"], env, args.runs)
        label = 'judge card "Platinum Angel" --json (one-shot)'
        print(f"  {label:48} median {median_ms(times):7.1f} ms")


if __name__ == "__main__":
    main()
