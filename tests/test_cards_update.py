"""``judge cards update`` against a real HTTP server on 127.0.0.1 serving copies of our fixture.

Every failure must leave the stored snapshot byte-identical (``tree_digest`` of the whole data
folder) and answering, with nothing half-written beside it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import lzma
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
from click.testing import CliRunner

from index.cards.store import CardStore
from index.cards.update import CardUpdateResult, update_cards
from index.fetch import (
    DownloadTimeoutError,
    FetchError,
    TooLargeError,
    UnreachableError,
)
from judge_cli.cli import cli
from judge_cli.errors import describe

from .cardfixture import atomic, write_cards
from .conftest import cards_file, tree_digest
from .httpfixture import Route, Server, serve

ROOT = Path(__file__).resolve().parents[1]
KEPT = "Nothing was stored; the card data stored before still answers."
FIND = (
    "find the AtomicCards link on https://mtgjson.com/downloads/all-files/ and pass it with --url."
)
FILE = "/api/v5/AtomicCards.json.xz"
FAST = {"timeout": 2.0, "total_timeout": 10.0}


def cards_bytes(date: str = "2031-02-02", kind: str = "xz", version: str = "5.test") -> bytes:
    raw = json.dumps(atomic(date=date, version=version), ensure_ascii=False).encode("utf-8")
    if kind == "gzip":
        return gzip.compress(raw)
    if kind == "xz":
        return lzma.compress(raw)
    return raw


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def publish(
    server: Server,
    path: str,
    body: bytes,
    *,
    sidecar: bool = True,
    meta: tuple[str, str] | None = None,
) -> str:
    """Serves ``body`` at ``path`` as MTGJSON does: with its ``.sha256`` and ``Meta.json``."""
    server.routes[path] = Route(body, content_type="application/octet-stream")
    if sidecar:
        server.routes[path + ".sha256"] = Route(sha(body).encode())
    if meta is not None:
        folder = path.rsplit("/", 1)[0]
        doc = {"data": {"date": meta[0], "version": meta[1]}, "meta": {"date": meta[0]}}
        server.routes[folder + "/Meta.json"] = Route(json.dumps(doc).encode())
    return server.url(path)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def answers(home: Path, date: str) -> bool:
    """Checks that ``judge card`` answers from the card data of ``date``."""
    code, out, _ = run("card", "Platinum Angel")
    return code == 0 and out.endswith(f"Oracle card data of {date} (13 cards).\n")


def leftovers(home: Path) -> list[str]:
    folder = home / "cards"
    return sorted(p.name for p in folder.glob(".tmp-*")) if folder.is_dir() else []


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
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


# --- success ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["xz", "gzip", "json"])
def test_update_reads_each_compression_by_content(
    server: Server, judge_home: Path, kind: str
) -> None:
    # Every copy is served under the .json.xz name: its first bytes say what it is.
    body = cards_bytes(kind=kind)
    url = publish(server, FILE, body)
    code, out, err = run("cards", "update", "--url", url)
    assert (code, out, err) == (
        0,
        f"Stored the card data of 2031-02-02 from {url}: 13 cards, 15 faces, 6 rulings.\n",
        "",
    )
    assert answers(judge_home, "2031-02-02")
    info = json.loads(run("cards", "--json")[1])
    assert (info["source"], info["sha256"], info["date"]) == (url, sha(body), "2031-02-02")
    assert sorted(p.name for p in (judge_home / "cards").iterdir())[0] == "CURRENT"
    assert leftovers(judge_home) == []
    assert server.fetched(FILE) == 1


def test_the_default_address_is_mtgjsons_xz() -> None:
    from index.cards.update import DEFAULT_URL
    from judge_cli.errors import CARDS_URL

    assert DEFAULT_URL == CARDS_URL == "https://mtgjson.com/api/v5/AtomicCards.json.xz"
    result = CliRunner().invoke(cli, ["cards", "update", "--help"], prog_name="judge")
    assert result.exit_code == 0
    out = " ".join(result.output.split())
    assert out.startswith("Usage: judge cards update [OPTIONS]")
    for option in ("--url URL", "--check", "--json", "AtomicCards.json.xz"):
        assert option in out


def test_a_local_file_is_read_without_asking_for_hashes(judge_home: Path, tmp_path: Path) -> None:
    path = write_cards(tmp_path / "AtomicCards.json.gz", atomic(date="2031-03-03"))
    code, out, _ = run("cards", "update", "--url", str(path), "--json")
    assert code == 0, out
    assert json.loads(out) == {
        "status": "added",
        "date": "2031-03-03",
        "url": str(path),
        "stored": "2031-03-03",
        "checked": "download",
    }


def test_a_redirect_is_followed_and_the_address_asked_is_recorded(
    server: Server, judge_home: Path
) -> None:
    publish(server, "/mirror/AtomicCards.json.xz", cards_bytes(), sidecar=False)
    server.routes["/latest"] = Route(
        status=302, headers={"Location": "/mirror/AtomicCards.json.xz"}
    )
    code, out, _ = run("cards", "update", "--url", server.url("/latest"), "--json")
    assert code == 0, out
    assert json.loads(out)["status"] == "added"
    assert json.loads(run("cards", "--json")[1])["source"] == server.url("/latest")


# --- already stored: without downloading where the server says so ---------------------------


def test_already_stored_by_the_published_sha256(server: Server, judge_home: Path) -> None:
    url = publish(server, FILE, cards_bytes())
    assert run("cards", "update", "--url", url)[0] == 0
    before = tree_digest(judge_home)
    code, out, _ = run("cards", "update", "--url", url)
    assert (code, out) == (
        0,
        f"The card data of 2031-02-02 ({url}) is already stored; nothing to do.\n",
    )
    code, out, _ = run("cards", "update", "--url", url, "--check", "--json")
    assert json.loads(out) == {
        "status": "up-to-date",
        "date": "2031-02-02",
        "url": url,
        "stored": "2031-02-02",
        "checked": "sha256",
    }
    assert run("cards", "update", "--url", url, "--check")[1] == (
        "Up to date: the card data offered, 2031-02-02, is already stored.\n"
    )
    assert server.fetched(FILE) == 1  # 30 MB once, then 64 bytes each time
    assert tree_digest(judge_home) == before


def test_the_same_build_in_another_compression_is_not_fetched(
    server: Server, judge_home: Path
) -> None:
    # MTGJSON's files of one build say its version in their own meta, as Meta.json does.
    meta = ("2031-02-02", "5.2.2+20310202")
    gz = publish(server, "/api/v5/AtomicCards.json.gz", cards_bytes(kind="gzip", version=meta[1]))
    publish(server, FILE, cards_bytes(version=meta[1]), meta=meta)
    assert run("cards", "update", "--url", gz)[0] == 0
    code, out, _ = run("cards", "update", "--url", server.url(FILE), "--json")
    assert (json.loads(out)["status"], json.loads(out)["checked"]) == ("already-stored", "meta")
    assert server.fetched(FILE) == 0


def test_meta_json_tells_newer_and_older_without_a_download(server: Server, stored: Path) -> None:
    before = tree_digest(stored)
    url = publish(server, FILE, cards_bytes("2031-02-02"), meta=("2031-02-02", "5.x"))
    code, out, _ = run("cards", "update", "--url", url, "--check")
    assert (code, out) == (
        0,
        f"Newer card data of 2031-02-02 is available: {url}.\n"
        "Run `judge cards update` to download it.\n",
    )
    url = publish(server, FILE, cards_bytes("2029-09-09"), meta=("2029-09-09", "5.x"))
    for args in ((), ("--check",)):
        code, out, _ = run("cards", "update", "--url", url, *args)
        assert (code, out) == (
            0,
            "Up to date: the card data offered, 2029-09-09, is older than the stored 2030-01-01.\n",
        )
    assert server.fetched(FILE) == 0
    assert tree_digest(stored) == before


def test_check_with_nothing_stored_downloads_nothing(server: Server, judge_home: Path) -> None:
    url = publish(server, FILE, cards_bytes(), sidecar=False)
    code, out, _ = run("cards", "update", "--url", url, "--check", "--json")
    assert json.loads(out) == {
        "status": "newer-available",
        "date": None,
        "url": url,
        "stored": None,
        "checked": "nothing-stored",
    }
    assert run("cards", "update", "--url", url, "--check")[1] == (
        f"Newer card data is available: {url}.\nRun `judge cards update` to download it.\n"
    )
    assert server.fetched(FILE) == 0
    assert not (judge_home / "cards").exists()


def test_without_hashes_or_meta_the_download_decides(
    server: Server, stored: Path, tmp_path: Path
) -> None:
    before = tree_digest(stored)
    # The very file stored: downloaded, its sha256 matches, nothing changes.
    first = (tmp_path / "first.json").read_bytes()
    url = publish(server, FILE, first, sidecar=False)
    code, out, _ = run("cards", "update", "--url", url, "--json")
    assert (json.loads(out)["status"], json.loads(out)["checked"]) == ("already-stored", "download")
    # A newer file: --check reads the date inside it and stores nothing.
    url = publish(server, FILE, cards_bytes("2031-02-02"), sidecar=False)
    code, out, _ = run("cards", "update", "--url", url, "--check", "--json")
    assert json.loads(out)["status"] == "newer-available"
    assert json.loads(out)["date"] == "2031-02-02"
    # An older file is not stored over a newer one.
    url = publish(server, FILE, cards_bytes("2029-09-09"), sidecar=False)
    code, out, _ = run("cards", "update", "--url", url)
    assert (code, out) == (
        0,
        "Up to date: the card data offered, 2029-09-09, is older than the stored 2030-01-01.\n",
    )
    assert tree_digest(stored) == before
    assert leftovers(stored) == []


def test_a_damaged_snapshot_is_replaced(server: Server, stored: Path) -> None:
    build = stored / "cards" / (stored / "cards" / "CURRENT").read_text().strip()
    (build / "snapshot.json").write_text("{damaged", encoding="utf-8")
    url = publish(server, FILE, cards_bytes())
    code, out, _ = run("cards", "update", "--url", url)
    assert code == 0, out
    assert answers(stored, "2031-02-02")


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


# --- the command's output ----------------------------------------------------------------------


def test_progress_on_a_terminal(
    server: Server, judge_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from judge_cli import common

    body = cards_bytes(kind="json")
    url = publish(server, FILE, body)
    monkeypatch.setattr(common, "stderr_is_terminal", lambda: True)
    code, out, err = run("cards", "update", "--url", url)
    assert code == 0 and out.startswith("Stored the card data of 2031-02-02")
    size = len(body) // 1024
    assert f"\rDownloading [{'#' * 30}] {size} / {size} KiB\n" in err
    assert f"\rImporting [{'#' * 30}] {size} / {size} KiB\n" in err
    # --json keeps standard error clean.
    code, out, err = run("cards", "update", "--url", url, "--json")
    assert (code, err) == (0, "")


def test_the_result_record() -> None:
    result = CardUpdateResult("already-stored", "2031-02-02", "u", "sha256", None)
    assert result.to_json() == {
        "status": "already-stored",
        "date": "2031-02-02",
        "url": "u",
        "stored": None,
        "checked": "sha256",
    }


def test_no_card_data_names_the_update(judge_home: Path) -> None:
    code, out, _ = run("cards")
    assert code == 0 and "Run `judge cards update` to download MTGJSON's AtomicCards file" in out


# --- the real card file, served over loopback -------------------------------------------------


def test_update_with_the_real_card_file(server: Server, judge_home: Path) -> None:
    body = cards_file().read_bytes()
    url = publish(server, FILE, body)
    code, out, _ = run("cards", "update", "--url", url)
    assert (code, out) == (
        0,
        f"Stored the card data of 2026-07-03 from {url}: 34632 cards, 35033 faces, "
        "46241 rulings.\n",
    )
    code, out, _ = run("cards", "update", "--url", url, "--check", "--json")
    assert json.loads(out)["status"] == "up-to-date"
    assert server.fetched(FILE) == 1
