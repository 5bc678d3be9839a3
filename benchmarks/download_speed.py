"""Streaming ``download_to`` against the in-memory ``download``: seconds and peak memory.

A loopback server sends a file the size of the ONNX model (90 MiB by default); each way of
downloading runs in its own child process, so peak resident memory is that method's alone. Goal:
the streaming download's peak does not grow with the file (within 32 MiB of a bare interpreter
that imports the HTTP module), and it is about as fast as the in-memory one (within 1.25x: it
also writes, syncs and hashes the file).

    python benchmarks/download_speed.py [--mib 90]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from _common import ROOT, environment, peak_child_memory_mib

sys.path.insert(0, str(ROOT))

from tests.httpfixture import Route, serve

_IMPORT_ONLY = "import index.fetch.http"
_IN_MEMORY = (
    "import sys, index.fetch.http as h\n"
    "h.download(sys.argv[1], max_bytes=1 << 40, total_timeout=600)\n"
)
_STREAMING = (
    "import sys, index.fetch.http as h\n"
    "h.download_to(sys.argv[1], sys.argv[2], max_bytes=1 << 40, total_timeout=600)\n"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=90, help="size of the file served")
    args = parser.parse_args()
    body = bytes(range(256)) * (4096 * args.mib)
    with serve() as server, tempfile.TemporaryDirectory() as folder:
        server.routes["/model.onnx"] = Route(body, content_type="application/octet-stream")
        url = server.url("/model.onnx")
        env = environment(PYTHONPATH=str(ROOT))
        python = [sys.executable, "-c"]
        _, bare = peak_child_memory_mib([*python, _IMPORT_ONLY], env)
        memory_s, memory_peak = peak_child_memory_mib([*python, _IN_MEMORY, url], env)
        target = str(Path(folder) / "model.onnx")
        stream_s, stream_peak = peak_child_memory_mib([*python, _STREAMING, url, target], env)
        assert Path(target).stat().st_size == len(body)
    print(f"file served on 127.0.0.1: {args.mib} MiB")
    print(f"{'import index.fetch.http only':34} peak {bare:6.0f} MiB  (baseline)")
    for label, seconds, peak in (
        ("download() into memory", memory_s, memory_peak),
        ("download_to(path), streaming", stream_s, stream_peak),
    ):
        rate = args.mib / seconds
        print(f"{label:34} peak {peak:6.0f} MiB  {seconds:5.2f} s  {rate:6.0f} MiB/s")
    flat = stream_peak <= bare + 32
    print(f"goal: streaming peak <= baseline + 32 MiB  {'met' if flat else 'NOT met'}")
    fast = stream_s <= 1.25 * memory_s
    print(f"goal: streaming within 1.25x of in memory  {'met' if fast else 'NOT met'}")


if __name__ == "__main__":
    main()
