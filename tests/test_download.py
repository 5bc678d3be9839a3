"""The HTTP layer (``index.fetch.http``) against a real server on 127.0.0.1: streaming downloads
to a path or a file object, their caps and checks, and addresses that cannot be fetched."""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import os
import socket
import threading
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from index.fetch import (
    BadURLError,
    DownloadTimeoutError,
    FetchError,
    HashMismatchError,
    HTTPStatusError,
    RedirectError,
    TooLargeError,
    TruncatedDownloadError,
    check_url,
    download,
    download_to,
    find_rules_links,
    peek,
    update,
)
from index.store import EditionStore

from .httpfixture import Route, Server, make_cr_text, serve

FAST = {"timeout": 2.0, "total_timeout": 5.0}
BODY = bytes(range(256)) * 4096  # 1 MiB that is not all one byte
BODY_SHA = hashlib.sha256(BODY).hexdigest()
OLD = b"the previous snapshot\n"


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
def target(tmp_path: Path) -> Path:
    """A file already there, which a failed download must leave as it was."""
    path = tmp_path / "data" / "AtomicCards.json.xz"
    path.parent.mkdir()
    path.write_bytes(OLD)
    return path


def untouched(target: Path) -> bool:
    """Checks that ``target`` still holds the old bytes and nothing was left beside it."""
    return target.read_bytes() == OLD and os.listdir(target.parent) == [target.name]


# --- download_to: success ---------------------------------------------------------------------


def test_download_to_a_path(server: Server, target: Path) -> None:
    server.routes["/cards.json.xz"] = Route(BODY, content_type="application/x-xz")
    seen: list[tuple[int, int | None]] = []
    done = download_to(
        server.url("/cards.json.xz"),
        target,
        max_bytes=2 * len(BODY),
        sha256=BODY_SHA.upper(),  # as some sites print it
        progress=lambda d, t: seen.append((d, t)),
        **FAST,
    )
    assert target.read_bytes() == BODY
    assert (done.size, done.sha256, done.content_type) == (len(BODY), BODY_SHA, "application/x-xz")
    assert done.url == server.url("/cards.json.xz")
    assert os.listdir(target.parent) == [target.name]
    assert seen[-1] == (len(BODY), len(BODY))
    assert len(seen) > 1 and [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert server.requests[0].headers["User-Agent"].startswith("judge-cli/")


def test_download_to_a_file_object_as_bytes_arrive(server: Server) -> None:
    server.routes["/f"] = Route(BODY, content_length=False)  # the end is the connection closing

    class Sink(io.BytesIO):
        def __init__(self) -> None:
            super().__init__()
            self.writes: list[int] = []

        def write(self, data: bytes) -> int:  # type: ignore[override]
            self.writes.append(len(data))
            return super().write(data)

    sink = Sink()
    seen: list[tuple[int, int | None]] = []
    done = download_to(
        server.url("/f"), sink, max_bytes=len(BODY), progress=lambda d, t: seen.append((d, t))
    )
    assert sink.getvalue() == BODY
    assert done.sha256 == BODY_SHA
    # Many pieces, none larger than a read: the body was never gathered first.
    assert len(sink.writes) >= 16 and max(sink.writes) <= 64 * 1024
    assert seen[-1] == (len(BODY), None)


def test_download_to_a_new_path_follows_redirects(server: Server, tmp_path: Path) -> None:
    server.routes["/latest"] = Route(status=302, headers={"Location": "/files/model.onnx"})
    server.routes["/files/model.onnx"] = Route(BODY)
    path = tmp_path / "model.onnx"
    done = download_to(server.url("/latest"), path, max_bytes=len(BODY), sha256=BODY_SHA, **FAST)
    assert path.read_bytes() == BODY
    assert done.url == server.url("/files/model.onnx")


def test_download_to_keeps_memory_flat(server: Server, tmp_path: Path) -> None:
    big = BODY * 16
    server.routes["/big"] = Route(big)
    tracemalloc.start()
    try:
        download_to(server.url("/big"), tmp_path / "big", max_bytes=len(big), **FAST)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (tmp_path / "big").stat().st_size == len(big)
    assert peak < len(big) // 8, f"{peak} bytes traced for a {len(big)}-byte download"


def test_download_to_reads_local_files(tmp_path: Path) -> None:
    source = tmp_path / "saved by hand.json.xz"
    source.write_bytes(BODY)
    for url in (str(source), source.as_uri()):
        out = tmp_path / "copy"
        done = download_to(url, out, max_bytes=len(BODY), sha256=BODY_SHA)
        assert (out.read_bytes(), done.size) == (BODY, len(BODY))


# --- download_to: failures leave the target as it was ------------------------------------------

FAILURES: list[tuple[str, Route, dict[str, object], type[FetchError], str]] = [
    ("truncated", Route(BODY, send_bytes=300_000), {}, TruncatedDownloadError, "of 1048576"),
    ("too-large", Route(BODY), {"max_bytes": 1000}, TooLargeError, "more than the limit of 1000"),
    (
        "too-large-unannounced",
        Route(BODY, content_length=False),
        {"max_bytes": 1000},
        TooLargeError,
        "larger than the limit of 1000 bytes",
    ),
    ("slow", Route(BODY, delay=10), {"timeout": 0.3}, DownloadTimeoutError, "timed out after 0.3"),
    (
        "trickle",
        Route(BODY, trickle=0.01),
        {"total_timeout": 0.5},
        DownloadTimeoutError,
        "took longer than 0.5 s",
    ),
    ("wrong-hash", Route(BODY), {"sha256": "0" * 64}, HashMismatchError, "not the expected 000"),
    ("404", Route(b"gone", status=404), {}, HTTPStatusError, "answered 404 Not Found"),
    ("500", Route(b"down", status=500), {}, HTTPStatusError, "try again later"),
    (
        "redirect-loop",
        Route(status=302, headers={"Location": "/f"}),
        {},
        RedirectError,
        "redirects too many times",
    ),
    (
        "redirect-elsewhere",
        Route(status=301, headers={"Location": "file:///etc/passwd"}),
        {},
        RedirectError,
        "in a way not followed",
    ),
    (
        "redirect-malformed",
        Route(status=302, headers={"Location": "http://[::1/x"}),
        {},
        RedirectError,
        "which is malformed (Invalid IPv6 URL)",
    ),
    (
        "redirect-bad-port",
        Route(status=302, headers={"Location": "http://127.0.0.1:99999/x"}),
        {},
        RedirectError,
        "where the port '99999' is not a number from 1 to 65535",
    ),
]


@pytest.mark.parametrize(
    ("route", "options", "error", "message"),
    [pytest.param(r, o, e, m, id=i) for i, r, o, e, m in FAILURES],
)
def test_failed_download_to_leaves_the_target(
    server: Server,
    target: Path,
    route: Route,
    options: dict[str, object],
    error: type[FetchError],
    message: str,
) -> None:
    server.routes["/f"] = route
    kwargs: dict[str, object] = {"max_bytes": 2 * len(BODY), "timeout": 2.0, "total_timeout": 5.0}
    kwargs.update(options)
    with pytest.raises(error, match=r"http://127\.0\.0\.1:\d+/f\b") as raised:
        download_to(server.url("/f"), target, **kwargs)
    assert message in str(raised.value)
    assert untouched(target)


def test_errors_carry_their_data(server: Server, target: Path) -> None:
    server.routes["/big"] = Route(BODY)
    server.routes["/cut"] = Route(BODY, send_bytes=1000)
    with pytest.raises(TooLargeError) as large:
        download_to(server.url("/big"), target, max_bytes=10, **FAST)
    assert (large.value.limit, large.value.size) == (10, len(BODY))
    with pytest.raises(TruncatedDownloadError) as cut:
        download_to(server.url("/cut"), target, max_bytes=len(BODY), **FAST)
    assert (cut.value.received, cut.value.expected) == (1000, len(BODY))
    with pytest.raises(HashMismatchError) as wrong:
        download_to(server.url("/big"), target, max_bytes=len(BODY), sha256="ab" * 32, **FAST)
    assert (wrong.value.expected, wrong.value.actual) == ("ab" * 32, BODY_SHA)
    with pytest.raises(DownloadTimeoutError) as slow:
        server.routes["/slow"] = Route(BODY, delay=10)
        download_to(server.url("/slow"), target, max_bytes=len(BODY), timeout=0.2)
    assert (slow.value.limit, slow.value.deadline) == (0.2, False)
    assert untouched(target)


def test_download_to_a_missing_folder_is_an_os_error(server: Server, tmp_path: Path) -> None:
    server.routes["/f"] = Route(BODY)
    with pytest.raises(FileNotFoundError):
        download_to(server.url("/f"), tmp_path / "no" / "such" / "f", max_bytes=len(BODY))


def test_in_memory_download_checks_a_hash(server: Server) -> None:
    server.routes["/f"] = Route(BODY)
    assert download(server.url("/f"), sha256=BODY_SHA, **FAST) == BODY
    with pytest.raises(HashMismatchError):
        download(server.url("/f"), sha256="1" * 64, **FAST)


def test_peek_asks_for_a_range_and_reads_no_further(server: Server) -> None:
    server.routes["/ranged"] = Route(BODY)
    server.routes["/unranged"] = Route(BODY, honour_range=False)
    for path in ("/ranged", "/unranged"):
        assert peek(server.url(path), 100, **FAST).body == BODY[:100]
    assert all(r.headers.get("Range") == "bytes=0-99" for r in server.requests)


# --- addresses that cannot be fetched ----------------------------------------------------------

MALFORMED = [
    ("http://[::1", "the address is malformed (Invalid IPv6 URL)"),
    ("http://[zz]/x", "the address is malformed ('zz' does not appear to be an IPv4 or IPv6"),
    ("http://127.0.0.1:99999/x", "the port '99999' is not a number from 1 to 65535"),
    ("http://127.0.0.1:abc/x", "the port 'abc' is not a number from 1 to 65535"),
    ("http://127.0.0.1:-1/x", "the port '-1' is not a number from 1 to 65535"),
    ("http://[::1]:0/x", "the port '0' is not a number from 1 to 65535"),
    ("http://exa mple.com/x", "the host part holds a space or a control character"),
    ("http://ex\x1bample.com/x", "the host part holds a space or a control character"),
    ("http:///x", "the address names no host"),
    ("https://", "the address names no host"),
    ("http://user:secret@127.0.0.1/x", "addresses with a user name or password are not"),
    ("http://a..b/x", "the host name is not valid (label empty or too long)"),
    ("http://" + "a" * 64 + ".com/", "the host name is not valid (label empty or too long)"),
    ("ftp://example.com/MagicCompRules.txt", "neither an http(s):// address nor an existing file"),
    ("javascript:alert(1)", "neither an http(s):// address nor an existing file"),
    ("no/such/file.txt", "neither an http(s):// address nor an existing file"),
    ("x" * 5000, "neither an http(s):// address nor an existing file"),  # too long for a path
]


@pytest.mark.parametrize(("url", "reason"), MALFORMED)
def test_malformed_addresses_are_refused_before_any_request(url: str, reason: str) -> None:
    with pytest.raises(BadURLError) as raised:
        check_url(url)
    assert reason in raised.value.reason
    assert "\x1b" not in str(raised.value)  # shown escaped
    with pytest.raises(BadURLError):
        download(url, **FAST)


@pytest.mark.parametrize(("url", "reason"), MALFORMED[:6])
def test_judge_update_with_a_malformed_address(
    url: str, reason: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from judge_cli.update_command import update as command

    monkeypatch.setenv("JUDGE_HOME", str(tmp_path / "home"))
    result = CliRunner().invoke(command, ["--url", url])
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr == (
        f"Error: cannot fetch {url!r}: {raised_reason(url)}; check it, or leave out --url to use"
        " https://magic.wizards.com/en/rules.\n"
    )
    assert reason in result.stderr
    assert not (tmp_path / "home").exists() or not any((tmp_path / "home").iterdir())


def raised_reason(url: str) -> str:
    """The reason :func:`check_url` gives for ``url``."""
    try:
        check_url(url)
    except BadURLError as error:
        return error.reason
    raise AssertionError(f"{url!r} was accepted")


def test_good_addresses_are_kept() -> None:
    assert check_url("https://media.example/d/MagicCompRules 20250207.txt") == (
        "https://media.example/d/MagicCompRules%2020250207.txt"
    )
    assert check_url("http://[::1]:8470/x?q=a b") == "http://[::1]:8470/x?q=a%20b"
    assert check_url("http://bücher.example/x") == "http://bücher.example/x"


def test_a_page_with_malformed_links_still_gives_the_good_ones(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    html = (
        '<a href="http://[::1/MagicCompRules 20250101.txt">a</a>'
        '<a href="http://[zz]/MagicCompRules 20250102.txt">b</a>'
        '<a href="http://127.0.0.1:99999/MagicCompRules 20250103.txt">c</a>'
        '<a href="/d/MagicCompRules 20250207.txt">d</a>'
    )
    links = find_rules_links(html, server.url("/en/rules"))
    assert [link.name_date for link in links] == ["2025-01-03", "2025-02-07"]
    server.routes["/en/rules"] = Route(html.encode(), content_type="text/html")
    server.routes["/d/MagicCompRules 20250207.txt"] = Route(
        make_cr_text(dt.date(2025, 2, 7)).encode()
    )
    monkeypatch.setenv("JUDGE_HOME", str(tmp_path / "home"))
    result = update(EditionStore.from_env(), server.url("/en/rules"), **FAST)
    assert (result.status, result.edition) == ("added", "2025-02-07")
    assert len(result.problems) == 1 and isinstance(result.problems[0], BadURLError)


def test_what_a_server_says_is_shown_escaped(server: Server) -> None:
    from judge_cli.errors import describe

    osc52 = "\x1b]52;c;aGk=\x07"  # a clipboard write, if it reached a terminal raw
    server.routes["/a"] = Route(status=302, headers={"Location": f"file:///{osc52}"})
    server.routes["/b"] = Route(status=302, headers={"Location": f"http://[{osc52}"})
    for path in ("/a", "/b"):
        with pytest.raises(RedirectError) as raised:
            download(server.url(path), **FAST)
        for shown in (str(raised.value), describe(raised.value).message):
            assert "\x1b" not in shown and "\x07" not in shown
            assert "\\x1b]52;c;aGk=\\x07" in shown


# --- any text at all ------------------------------------------------------------------------------

_URL_BITS = st.sampled_from(
    ["http://", "https://", "file://", "ftp:", "[", "]", "::1", "@", ":", "%", "%2", "%20", "?",
     "#", "/", ".", "..", "a", "é", " ", "\t", "\x00", "\x1b", "\u202e", "0", "65536", "-1",
     "127.0.0.1", "xn--", "a" * 64, "\\"]
)  # fmt: skip
_TEXT = st.one_of(st.text(max_size=60), st.lists(_URL_BITS, max_size=12).map("".join))


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_check_url_returns_or_refuses_any_text(text: str) -> None:
    try:
        address = check_url(text)
    except BadURLError as error:
        assert error.reason and "\x1b" not in str(error)
    else:
        assert address.split(":", 1)[0] in ("http", "https", "file")


@settings(max_examples=150, deadline=None)
@given(_TEXT)
def test_any_path_on_a_closed_port_is_a_fetch_error(text: str) -> None:
    # Only loopback, so that no example makes a DNS lookup or leaves the machine; a port bound
    # but not listening refuses every connection.
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
        with pytest.raises(FetchError):
            download(f"http://127.0.0.1:{port}/{text}", timeout=1, total_timeout=2)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXT, max_size=4), _TEXT)
def test_find_rules_links_takes_any_hrefs(hrefs: list[str], base: str) -> None:
    html = "".join(f'<a href="{h}MagicCompRules 20250207.txt">x</a>' for h in hrefs)
    for link in find_rules_links(html, "https://media.example/en/" + base):
        assert link.url.startswith(("http://", "https://"))


# --- the deadline covers the whole request -----------------------------------------------------


@contextmanager
def raw_server(prefix: bytes, drip: bytes) -> Iterator[str]:
    """A loopback server that sends each client ``prefix``, then ``drip`` a byte every 50 ms
    forever (nothing at all when ``drip`` is empty); yields its ``host:port``."""
    stop = threading.Event()
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.05)
    clients: list[socket.socket] = []

    def run() -> None:
        while not stop.is_set():
            with suppress(TimeoutError):
                client, _ = listener.accept()
                client.sendall(prefix)
                clients.append(client)
            for client in clients:
                with suppress(OSError):
                    client.send(drip)
            stop.wait(0.05)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(timeout=5)
        for client in clients:
            client.close()
        listener.close()


@pytest.mark.parametrize(
    ("scheme", "prefix", "drip"),
    [
        pytest.param("http", b"HTTP/1.1 200 OK\r\nX-Slow: ", b"a", id="headers-trickle"),
        pytest.param("http", b"HTTP/1.1 200 OK\r\n\r\n", b"a", id="body-without-length"),
        pytest.param("https", b"", b"", id="silent-tls-handshake"),
    ],
)
def test_the_deadline_covers_every_phase(scheme: str, prefix: bytes, drip: bytes) -> None:
    with raw_server(prefix, drip) as where:
        start = time.monotonic()
        with pytest.raises(DownloadTimeoutError) as raised:
            download(f"{scheme}://{where}/f", timeout=5, total_timeout=0.5)
        took = time.monotonic() - start
    assert raised.value.deadline and raised.value.limit == 0.5
    assert took < 3, f"{took:.1f} s: the per-read time-out fired, not the deadline"
