"""Helpers the benchmark scripts share: timing child processes and finding the corpus."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"


def newest_corpus_file() -> Path:
    """The newest real CR file beside the repository; exits with a message if there is none."""
    files = sorted(CORPUS.glob("cr-*.txt"))
    if not files:
        sys.exit(f"no CR files in {CORPUS}: the benchmarks need ../shared/corpus")
    return files[-1]


def time_command(argv: list[str], env: dict[str, str], runs: int) -> list[float]:
    """Wall-clock seconds of ``runs`` runs of ``argv`` (after one warm-up run)."""
    subprocess.run(argv, env=env, check=True, capture_output=True)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def peak_child_memory_mib(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds and peak resident memory (MiB) of one run of ``argv`` in a child process."""
    start = time.perf_counter()
    code = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], check=True, capture_output=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *argv], env=env, check=True, capture_output=True, text=True
    ).stdout
    seconds = time.perf_counter() - start
    return seconds, int(out.strip()) / 1024


def median_ms(times: list[float]) -> float:
    return statistics.median(times) * 1000


_VECTOR_FLAGS = (("avx512_vnni", "AVX-512 VNNI"), ("avx512f", "AVX-512"), ("avx2", "AVX2"))
"""CPU flags of vector instructions, widest first. onnxruntime picks its matrix products'
kernels by them, and the figures move with the machine: the same code's warm re-rank took
17.5 / 32.9 ms (p50 / p95) on a 2-CPU machine with AVX2 alone and 8.0 / 13.1 ms on a 2-CPU
AMD EPYC with AVX-512 VNNI (2026-12-02), either side of the issue's goal of 20."""


def machine() -> str:
    """The CPU the figures were measured on: its model, how many, its widest vector
    instructions ("AMD EPYC, 2 CPUs, AVX-512 VNNI"); what the system tells, where it does not."""
    import platform

    model, flags = platform.processor() or platform.machine(), set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and value.strip():
                    model = value.strip()
                elif key.strip() == "flags":
                    flags = set(value.split())
    except OSError:
        pass
    widest = next((name for flag, name in _VECTOR_FLAGS if flag in flags), None)
    return ", ".join(x for x in (model, f"{os.cpu_count()} CPUs", widest) if x)


def environment(**extra: str) -> dict[str, str]:
    """The environment for timed runs: bytecode caching on, as in an installed package.

    A developer shell may set PYTHONDONTWRITEBYTECODE, which makes every cold run recompile
    the project's sources; an installed wheel ships compiled bytecode, so measure that.
    """
    import compileall

    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(extra)
    for package in ("glossary", "index", "judge_cli"):
        compileall.compile_dir(str(ROOT / package), quiet=1)
    return env


__all__ = [
    "CORPUS",
    "ROOT",
    "environment",
    "machine",
    "median_ms",
    "newest_corpus_file",
    "peak_child_memory_mib",
    "time_command",
]
