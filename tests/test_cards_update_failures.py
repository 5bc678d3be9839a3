"""``judge cards update`` failures against a real HTTP server on 127.0.0.1.

Every failure must leave the stored snapshot byte-identical (``tree_digest`` of the whole data
folder) and answering, with nothing half-written beside it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from index.cards.store import CardStore
from index.cards.update import update_cards
from index.fetch import DownloadTimeoutError, FetchError, TooLargeError, UnreachableError
from judge_cli.errors import describe

from .cardfixture import write_cards
from .cardupdatefixture import (
    FAST,
    FILE,
    FIND,
    KEPT,
    ROOT,
    answers,
    cards_bytes,
    leftovers,
    publish,
    run,
    sha,
)
from .conftest import tree_digest
from .httpfixture import Route, Server, serve


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    # A proxy from the environment would send loopback requests elsewhere.
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[Server]:
    with serve() as running:
        yield running


@pytest.fixture
def stored(judge_home: Path, tmp_path: Path) -> Path:
    """A data folder with the fixture's snapshot of 2030-01-01, imported from a file."""
    code, out, _ = run("cards", "import", str(write_cards(tmp_path / "first.json")))
    assert code == 0, out
    return judge_home


# --- failures: the stored snapshot byte-identical and answering ------------------------------

GOOD = cards_bytes()
FAILURES: list[tuple[str, dict[str, Route], str]] = [
    (
        "html-error-page",
        {FILE: Route(b"<!DOCTYPE html><html><body>Oops</body></html>", content_type="text/html")},
        "{url}: it is an HTML or XML page, not JSON (an error page saved in place of the file?). "
        f"{KEPT} Use MTGJSON's AtomicCards file (.json, .json.gz or .json.xz).",
    ),
    (
        "truncated-xz",
        {FILE: Route(GOOD[: len(GOOD) // 2])},
        f"{{url}}: the xz data is truncated. {KEPT} Use MTGJSON's AtomicCards file "
        "(.json, .json.gz or .json.xz).",
    ),
    (
        "connection-cut",
        {FILE: Route(GOOD, send_bytes=len(GOOD) // 3)},
        f"the download of {{url}} stopped after {len(GOOD) // 3} of {len(GOOD)} bytes; "
        f"try again. {KEPT}",
    ),
    ("404", {}, f"{{url}} answered 404 Not Found; {FIND} {KEPT}"),
    (
        "server-error",
        {FILE: Route(b"busy", status=503, content_type="text/plain")},
        f"{{url}} answered 503 Service Unavailable; the server has a problem; try again later. "
        f"{KEPT}",
    ),
    (
        "redirect-loop",
        {FILE: Route(status=302, headers={"Location": FILE})},
        f"{{url}} redirects too many times; {FIND} {KEPT}",
    ),
    (
        "wrong-sha256",
        {FILE: Route(GOOD), FILE + ".sha256": Route(b"ab" * 32 + b"  AtomicCards.json.xz\n")},
        f"the download of {{url}} has sha256 {sha(GOOD)}, not the expected {'ab' * 32}. {KEPT}",
    ),
]


@pytest.mark.parametrize(
    ("routes", "message"), [f[1:] for f in FAILURES], ids=[f[0] for f in FAILURES]
)
def test_a_failed_update_changes_nothing(
    server: Server, stored: Path, routes: dict[str, Route], message: str
) -> None:
    server.routes.update(routes)
    url = server.url(FILE)
    before = tree_digest(stored)
    for args in ((), ("--json",)):
        code, out, err = run("cards", "update", "--url", url, *args)
        assert (code, out) == (1, "")
        assert err == f"Error: {message.format(url=url)}\n"
        assert tree_digest(stored) == before
        assert leftovers(stored) == []
        assert answers(stored, "2030-01-01")


def test_a_failed_first_update_leaves_no_folder(server: Server, judge_home: Path) -> None:
    server.routes[FILE] = Route(GOOD[:100])
    code, out, err = run("cards", "update", "--url", server.url(FILE))
    assert code == 1
    assert err.endswith(" Nothing was stored. Use MTGJSON's AtomicCards file (.json, .json.gz or"
                        " .json.xz).\n")  # fmt: skip
    assert tree_digest(judge_home) == {}
    assert not (judge_home / "cards").exists()


def _unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_offline_is_an_error_and_the_snapshot_keeps_answering(stored: Path) -> None:
    url = f"http://127.0.0.1:{_unused_port()}/api/v5/AtomicCards.json.xz"
    before = tree_digest(stored)
    for args in ((), ("--check",), ("--json",)):
        code, out, err = run("cards", "update", "--url", url, *args)
        assert (code, out) == (1, "")
        assert err == (
            f"Error: could not reach {url} (connection refused). The card data stored before "
            "still answers; try again when online, or pass --url with a file you downloaded "
            "(a path or a file:// URL).\n"
        )
    assert tree_digest(stored) == before
    assert answers(stored, "2030-01-01")
    # With nothing stored, it says so instead.
    empty = CardStore(stored / "elsewhere")
    with pytest.raises(UnreachableError) as raised:
        update_cards(empty, url, **FAST)
    assert describe(raised.value).message.startswith(  # type: ignore[union-attr]
        f"could not reach {url} (connection refused). No card data is stored yet; try again"
    )


def test_a_slow_server_times_out_and_changes_nothing(server: Server, stored: Path) -> None:
    store = CardStore(stored)
    before = tree_digest(stored)
    # Silent before answering: the first request (for the .sha256) waits its time-out, and the
    # error names the card file, not the small file asked for first.
    server.routes[FILE + ".sha256"] = Route(b"x", delay=30)
    publish(server, FILE, GOOD, sidecar=False)
    started = time.monotonic()
    with pytest.raises(DownloadTimeoutError) as raised:
        update_cards(store, server.url(FILE), timeout=0.5, total_timeout=10)
    assert time.monotonic() - started < 5
    assert raised.value.url == server.url(FILE)
    assert raised.value.kept == "2030-01-01"
    # A file that trickles in: the deadline of the whole download ends it.
    server.routes[FILE + ".sha256"] = Route(status=404)
    server.routes[FILE] = Route(GOOD, trickle=0.05)
    with pytest.raises(DownloadTimeoutError) as raised:
        update_cards(store, server.url(FILE), timeout=2, total_timeout=1)
    assert raised.value.deadline
    assert describe(raised.value).message.startswith(  # type: ignore[union-attr]
        f"could not reach {server.url(FILE)} (the download took longer than 1 s). The card data"
        " stored before still answers;"
    )
    assert tree_digest(stored) == before
    assert answers(stored, "2030-01-01")


def test_a_file_larger_than_the_cap_is_refused(server: Server, stored: Path) -> None:
    url = publish(server, FILE, GOOD, sidecar=False)
    before = tree_digest(stored)
    with pytest.raises(TooLargeError) as raised:
        update_cards(CardStore(stored), url, max_bytes=1000, **FAST)
    assert describe(raised.value).message == (  # type: ignore[union-attr]
        f"{url} is {len(GOOD)} bytes, more than the 1000 a card file can be; {FIND} {KEPT}"
    )
    assert tree_digest(stored) == before


def test_the_cr_update_keeps_its_own_words(server: Server) -> None:
    # The same error, raised by the CR update, names the rules page (`judge update` unchanged).
    error = FetchError("x", "y")
    assert error.purpose == "rules"
    from index.fetch import HTTPStatusError

    cr = HTTPStatusError("http://h/r.txt", 404, "Not Found")
    assert describe(cr).message == (  # type: ignore[union-attr]
        "http://h/r.txt answered 404 Not Found; find the .txt link on"
        " https://magic.wizards.com/en/rules and pass it with --url."
    )
    cr.purpose, cr.kept = "cards", None
    assert describe(cr).message == (  # type: ignore[union-attr]
        f"http://h/r.txt answered 404 Not Found; {FIND} Nothing was stored."
    )


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[Server, Path]]:
    """An HTTPS server with a self-signed certificate, and the certificate."""
    import ssl

    from .httpfixture import make_certificate

    cert, key = make_certificate(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    with serve(context) as running:
        yield running, cert


def test_tls_is_verified(
    tls_server: tuple[Server, Path], stored: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ssl

    from index.fetch import http

    server, cert = tls_server
    url = publish(server, FILE, GOOD)
    before = tree_digest(stored)
    code, out, err = run("cards", "update", "--url", url)
    assert (code, out) == (1, "")
    assert err.startswith(f"Error: could not reach {url} (TLS certificate not verified: ")
    assert tree_digest(stored) == before
    assert server.requests == []  # not a byte asked for over a connection not trusted
    # Trusting the certificate, the same server is fine.
    trusting = ssl.create_default_context(cafile=str(cert))
    monkeypatch.setattr(http, "_tls_context", lambda: trusting)
    code, out, err = run("cards", "update", "--url", url)
    assert (code, err) == (0, "")
    assert answers(stored, "2031-02-02")


@pytest.mark.parametrize("phase", ["download", "import"])
def test_an_interrupted_update_changes_nothing(server: Server, stored: Path, phase: str) -> None:
    url = publish(server, FILE, cards_bytes(), sidecar=False)
    before = tree_digest(stored)

    def interrupt(done: int, total: int | None) -> None:
        raise KeyboardInterrupt

    hooks: dict[str, Any] = {"progress" if phase == "download" else "import_progress": interrupt}
    with pytest.raises(KeyboardInterrupt):
        update_cards(CardStore(stored), url, **hooks, **FAST)
    assert tree_digest(stored) == before
    assert leftovers(stored) == []
    assert answers(stored, "2030-01-01")


def test_kill_9_mid_download_leaves_the_snapshot_and_is_cleaned_up(
    server: Server, stored: Path
) -> None:
    live = tree_digest(stored)
    body = cards_bytes("2031-02-02", kind="json")
    server.routes[FILE] = Route(body, trickle=0.001)  # a byte a millisecond: minutes in all
    argv = [sys.executable, "-m", "judge_cli", "cards", "update", "--url", server.url(FILE)]
    env = {**os.environ, "JUDGE_HOME": str(stored)}
    proc = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        while not any(p.stat().st_size > 0 for p in (stored / "cards").glob(".tmp-*")):
            assert proc.poll() is None and time.monotonic() < deadline, "no download began"
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert answers(stored, "2030-01-01")
    left = list((stored / "cards").glob(".tmp-*"))
    assert len(left) == 1 and left[0].name.endswith(".download")
    # Everything but the abandoned download is as it was.
    assert {k: v for k, v in tree_digest(stored).items() if ".tmp-" not in k} == live
    # A minute later, the next update removes it as it stores its own.
    old = time.time() - 120
    os.utime(left[0], (old, old))
    url = publish(server, "/good/AtomicCards.json.xz", cards_bytes("2031-02-02"))
    assert run("cards", "update", "--url", url)[0] == 0
    assert leftovers(stored) == []
    assert answers(stored, "2031-02-02")
