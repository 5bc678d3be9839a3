"""A warm ``judge serve`` against one-shot CLI processes, and a TAB against ``import click``.

Goals (issue 15): over loopback, warm p95 of ``/api/rule/704.5j`` <= 5 ms and of
``/api/search?q=legend+rule`` <= 15 ms; requests per second with 8 clients; the same answers
from one-shot ``judge … --json`` processes side by side; a TAB completion <= 1.5x
``python -c "import click"``. In-process, a warm search (pooled searcher) beside a search that
opens the index each time, which is what a server without the pool would pay.

    python benchmarks/serve_speed.py [--requests 400] [--runs 10] [--home JUDGE_HOME]
"""

from __future__ import annotations

import argparse
import http.client
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from _common import environment, median_ms, newest_corpus_file, time_command

RULE = "/api/rule/704.5j"
SEARCH = "/api/search?q=legend+rule"


def _percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return ordered[len(ordered) // 2] * 1000, ordered[int(len(ordered) * 0.95)] * 1000


def _latencies(port: int, path: str, count: int) -> list[float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for _ in range(20):  # warm: the edition read, the searchers opened, the connection up
        conn.request("GET", path)
        conn.getresponse().read()
    times = []
    for _ in range(count):
        start = time.perf_counter()
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        times.append(time.perf_counter() - start)
        assert response.status == 200
    conn.close()
    return times


def _throughput(port: int, clients: int, each: int) -> float:
    def client(index: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for i in range(each):
            conn.request("GET", RULE if (i + index) % 2 else SEARCH)
            response = conn.getresponse()
            response.read()
            assert response.status == 200
        conn.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return clients * each / (time.perf_counter() - start)


def _in_process(home: str, count: int) -> None:
    from index.edition import open_edition
    from index.store import EditionStore

    store = EditionStore(Path(home))
    cold = open_edition(store=store).load()
    warm = open_edition(store=store).keep_warm()
    for label, ed in (("opens the index each time", cold), ("pooled searcher (keep_warm)", warm)):
        ed.search("legend rule")
        times = []
        for _ in range(count):
            start = time.perf_counter()
            ed.search("legend rule")
            times.append(time.perf_counter() - start)
        p50, p95 = _percentiles(times)
        print(f"  in-process search, {label:28} p50 {p50:6.2f} ms  p95 {p95:6.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400, help="timed requests per route")
    parser.add_argument("--runs", type=int, default=10, help="runs of each one-shot command")
    parser.add_argument("--home", help="a JUDGE_HOME with editions (default: build the newest)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        home = args.home or scratch
        env = environment(JUDGE_HOME=home)
        judge = [sys.executable, "-m", "judge_cli"]
        if not args.home:
            build = [*judge, "index", "build", str(newest_corpus_file())]
            subprocess.run(build, env=env, check=True, capture_output=True)
        server = subprocess.Popen(
            [*judge, "serve", "--port", "0"], env=env, stdout=subprocess.PIPE, text=True
        )
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            port = int(line.rsplit(":", 1)[1].split("/", 1)[0])
            print(line.strip())
            for path, goal in ((RULE, 5.0), (SEARCH, 15.0)):
                p50, p95 = _percentiles(_latencies(port, path, args.requests))
                met = "met" if p95 <= goal else "NOT met"
                print(
                    f"  warm {path:32} p50 {p50:6.2f} ms  p95 {p95:6.2f} ms  "
                    f"(goal p95 <= {goal:g} ms: {met})"
                )
            rate = _throughput(port, 8, max(25, args.requests // 8))
            print(f"  8 clients, half rule, half search: {rate:7.0f} requests/s")
        finally:
            server.terminate()
            server.wait(20)
        for argv in (["rule", "704.5j", "--json"], ["search", "legend rule", "--json"]):
            times = time_command([*judge, *argv], env, args.runs)
            label = "judge " + " ".join(argv) + " (one-shot process)"
            print(f"  {label:48} median {median_ms(times):7.1f} ms")
        _in_process(home, 100)

        baseline = time_command([sys.executable, "-c", "import click"], env, args.runs)
        tab_env = {**env, "_JUDGE_COMPLETE": "bash_complete", "COMP_CWORD": "2"}
        tab_env["COMP_WORDS"] = "judge rule 704.5"
        console = str(Path(sys.executable).parent / "judge")
        tab = time_command([console], tab_env, args.runs)
        base_ms, tab_ms = median_ms(baseline), median_ms(tab)
        base_label, tab_label = 'python -c "import click"', "TAB: judge rule 704.5<TAB>"
        print(f"  {base_label:48} median {base_ms:7.1f} ms  (baseline)")
        print(f"  {tab_label:48} median {tab_ms:7.1f} ms  ({tab_ms / base_ms:.2f}x)")
        print(f"  goal: TAB <= 1.50x  {'met' if tab_ms <= 1.5 * base_ms else 'NOT met'}")


if __name__ == "__main__":
    main()
