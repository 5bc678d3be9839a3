"""What the fuzz suites share: the property, the settings, and mutations of real files.

The property every reader must keep (issue 16): for any input it returns, or raises one of the
library's own errors (the exceptions of ``judge_cli/errors.py``, which the CLI words), never
another exception, and within a bound of CPU time. :func:`bounded` checks it for one call.

The bound is CPU time (``time.process_time``), not wall time: on a shared two-core machine the
wall clock measures the neighbours. A wall-clock alarm stops a true runaway so that it fails
the test instead of hanging it. Hypothesis' own ``deadline`` is off for the same reason.

Settings: ``JUDGE_FUZZ_EXAMPLES`` multiplies every test's examples (a long local run); under
``CI`` the examples are derandomized, so that a failure there is the same on every run.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from judge_cli.errors import describe, library_errors

from .conftest import CORPUS

T = TypeVar("T")

SHARED = CORPUS.parent
LIBRARY_ERRORS = library_errors()

_SCALE = max(1, int(os.environ.get("JUDGE_FUZZ_EXAMPLES", "1") or 1))


def fuzz_settings(examples: int) -> settings:
    """Settings for a fuzz test of ``examples`` examples (scaled by ``JUDGE_FUZZ_EXAMPLES``)."""
    return settings(
        max_examples=examples * _SCALE,
        deadline=None,  # the bound is CPU time, checked by bounded()
        derandomize=bool(os.environ.get("CI")),
        database=None if os.environ.get("CI") else settings.default.database,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
        print_blob=True,
    )


class Runaway(Exception):
    """Raised by the wall-clock alarm inside a call that went on far too long."""


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: Any) -> None:
        raise Runaway(f"still running after {seconds:.0f} s of wall time")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def bounded(call: Callable[[], T], cpu: float = 2.0, *, what: str = "") -> T | BaseException:
    """Runs ``call``: its result, or the library error it raised; fails the test otherwise.

    Fails on any exception that is not a library error (or that the CLI could not word), and
    when the call used more than ``cpu`` seconds of CPU time.
    """
    start = time.process_time()
    outcome: T | BaseException
    try:
        with _alarm(max(30.0, cpu * 15)):
            outcome = call()
    except Runaway as exc:
        pytest.fail(f"runaway {what}: {exc}")
    except LIBRARY_ERRORS as exc:
        check_error(exc)
        outcome = exc
    used = time.process_time() - start
    assert used <= cpu, f"{what or 'the call'} took {used:.2f} s of CPU time (bound {cpu} s)"
    return outcome


def check_error(exc: BaseException) -> None:
    """Re-raises ``exc`` unless it is a library error that the CLI words on one line."""
    if not isinstance(exc, LIBRARY_ERRORS):
        raise exc
    problem = describe(exc)
    assert problem is not None, f"{type(exc).__name__} has no message in the error table"
    assert "\n" not in problem.message.strip(), problem.message


# -- real files ---------------------------------------------------------------------------------


def shared_file(relative: str) -> Path:
    """A file of ``../shared``, skipping the test when it is absent (failing under CI)."""
    path = SHARED / relative
    if not path.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing: CI must run the fuzz tests on the real files")
        pytest.skip(f"../shared/{relative} is not beside this clone (the real files live there)")
    return path


def shared_bytes(relative: str) -> bytes:
    """The bytes of a file of ``../shared`` (see :func:`shared_file`)."""
    return shared_file(relative).read_bytes()


def cut_cr(data: bytes, rules: int = 160, glossary: int = 120) -> bytes:
    """A real CR file cut down, still a CR: its head, the first ``rules`` lines of its body,
    the first ``glossary`` lines of its glossary, and its credits, in its own bytes."""
    lines = data.splitlines(keepends=True)
    stripped = [ln.strip() for ln in lines]
    body = next(i for i, ln in enumerate(stripped) if ln.startswith(b"100.1"))
    gloss = max(i for i, ln in enumerate(stripped) if ln == b"Glossary")
    credits = max(i for i, ln in enumerate(stripped) if ln == b"Credits")
    kept = (
        lines[: body + rules]
        + lines[gloss - 1 : min(gloss + glossary, credits)]
        + lines[credits - 1 :]
    )
    return b"".join(kept)


# -- mutations ----------------------------------------------------------------------------------

# Pieces that have broken readers before, or that a reader must take in its stride.
HOSTILE = [
    b"\x00",
    b"\xff",
    b"\xfe\xff",
    codecs.BOM_UTF8,
    b"\xed\xa0\x80",  # a UTF-8-encoded surrogate
    b"\xc3",  # a cut UTF-8 sequence
    b"\x1b[2J\x1b]52;c;aGk=\x07\x1b]0;pwned\x07",
    "\u202e\u2028\u0301".encode(),
    b"\r",
    b"\r\n",
    b"\n\n\n",
    b" " * 3000,
    b"\t" * 200,
    b"704." + b"9" * 5000,
    b"704.5" + b"0" * 4400 + b"a",
    b"9" * 5000,
    b"(" * 400,
    b"[" * 400,
    b"{" * 400,
    b'"' * 40,
    b"Glossary\r\n",
    b"Credits\r\n",
    b"Contents\r\n",
    b"Introduction\r\n",
    b"100.1. ",
    b"100.1a ",
    b"1. Game Concepts\r\n\r\n",
    b"704.5j ",
    b"601.2a-h ",
    b"rules 103, 104, and 105 ",
    b"See rule 704.5k (legend rule). ",
    b"These rules are effective as of February 30, 2026.\r\n",
    b"These rules are effective as of February 7, 99999.\r\n",
    b"Example: ",
    b"-----\r\n",
    b"%PDF-1.4\n",
    b"<html>",
    b"\xe2\x80\x9c",
    b"\x92\x93\x94",
]


@st.composite
def mutated(draw: st.DrawFn, base: bytes, pool: list[bytes] | None = None) -> bytes:
    """``base`` after one to four edits: cut, splice, bytes flipped, lines duplicated or joined,
    a part re-encoded, line endings changed, a hostile piece inserted."""
    data = base
    donors = pool or [base]
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(
            st.sampled_from(
                ["cut", "drop", "splice", "flip", "dup", "join", "encode", "endings", "insert"]
            )
        )
        size = len(data)
        a = int(draw(st.floats(0, 1)) * size)
        b = min(size, a + int(draw(st.floats(0, 1)) ** 3 * size))
        if kind == "cut":
            data = data[:a]
        elif kind == "drop":
            data = data[:a] + data[b:]
        elif kind == "splice":
            donor = draw(st.sampled_from(donors))
            c = int(draw(st.floats(0, 1)) * len(donor))
            d = min(len(donor), c + draw(st.integers(0, 5000)))
            data = data[:a] + donor[c:d] + data[a:]
        elif kind == "flip":
            out = bytearray(data)
            for _ in range(draw(st.integers(1, 8))):
                if out:
                    out[draw(st.integers(0, len(out) - 1))] ^= draw(st.integers(1, 255))
            data = bytes(out)
        elif kind == "dup":
            times = draw(st.integers(2, 30))
            chunk = data[a : min(b, a + 4000)]
            data = data[:a] + chunk * times + data[a:]
        elif kind == "join":
            data = data[:a] + data[a:b].replace(b"\r", b" ").replace(b"\n", b" ") + data[b:]
        elif kind == "encode":
            codec = draw(
                st.sampled_from(["cp1252", "cp437", "mac_roman", "utf-16-le", "utf-16-be", "utf-8"])
            )
            part = data[a:b].decode("utf-8", "replace").encode(codec, "replace")
            data = data[:a] + part + data[b:]
        elif kind == "endings":
            ending = draw(st.sampled_from([b"\r", b"\n", b"\r\n", b"\n\r"]))
            part = data[a:b].replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            data = data[:a] + part.replace(b"\n", ending) + data[b:]
        else:
            data = data[:a] + draw(st.sampled_from(HOSTILE)) + data[a:]
    return data


def decoded(data: bytes) -> str:
    """Bytes as text, the way a reader that refuses nothing would see them."""
    return data.decode("utf-8", "replace")


# Text: any code point, with the characters readers split and match on well represented.
ANY_TEXT = st.text(
    st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(list("0123456789.-–—()[]{}\"'“”’ \t\r\n:;,*?~^\\/ab")),
    ),
    max_size=400,
)
