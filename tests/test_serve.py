"""`judge serve` on a free loopback port: the CLI's JSON, Academy Ruins' shapes, refusals, load.

Every ``/api`` route is compared with its command run by ``CliRunner`` on the same store.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge_cli.cli import cli

from .servefixture import cli_json, corpus_home, fetch, quoted, running

pytest.importorskip("starlette", reason="the serve extra is not installed")
pytest.importorskip("uvicorn", reason="the serve extra is not installed")

ROOT = Path(__file__).resolve().parents[1]
BOARD = ROOT / "examples" / "legend-rule.yaml"


@pytest.fixture(scope="module")
def home() -> Path:
    return corpus_home()


@pytest.fixture(scope="module")
def base(home: Path) -> Iterator[str]:
    with running(home) as url:
        yield url


# (CLI arguments, the route that must answer the same JSON)
SAME_JSON = [
    (["rule", "704.5j", "--json"], "/api/rule/704.5j"),
    (["rule", "704.5", "--json"], "/api/rule/704.5"),
    (["rule", "704.5", "--no-subrules", "--json"], "/api/rule/704.5?no_subrules=true"),
    (["rule", "704.5.", "--json"], "/api/rule/704.5."),
    (["rule", "601.2a-h", "--json"], "/api/rule/601.2a-h"),
    (["rule", "7", "--json"], "/api/rule/7"),
    (["rule", "704.5k", "-e", "2013-07-13", "--json"], "/api/rule/704.5k?edition=2013-07-13"),
    (["define", "legend rules", "--json"], "/api/define/" + quoted("legend rules")),
    (["define", "phased out", "--json"], "/api/define/" + quoted("phased out")),
    (["define", "partner with [name]", "--json"], "/api/define/" + quoted("partner with [name]")),
    (["define", "legend/rule", "--json"], "/api/define/" + quoted("legend/rule")),
    (["define", "legnd rul", "--json"], "/api/define/" + quoted("legnd rul")),
    (["define", "mana burn", "-e", "2013", "--json"], "/api/define/mana%20burn?edition=2013"),
    (["search", "legend rule", "--json"], "/api/search?q=legend+rule"),
    (["search", "legend rule", "--limit", "3", "--json"], "/api/search?q=legend+rule&limit=3"),
    (["search", "first strike", "--in", "glossary", "--json"],
     "/api/search?q=first+strike&in=glossary"),
    (["search", "704.5", "--json"], "/api/search?q=704.5"),
    (["search", "xyzzyq plugh", "--json"], "/api/search?q=xyzzyq+plugh"),
    (["search", "sba", "-e", "2013-07-13", "--json"], "/api/search?q=sba&edition=2013-07-13"),
    (["editions", "--json"], "/api/editions"),
    (["diff", "704.5", "--from", "2013-07-13", "--to", "2026-01-16", "--json"],
     "/api/diff?ref=704.5&from=2013-07-13&to=2026-01-16"),
    (["diff", "704.5j", "--to", "2026-01-16", "--json"], "/api/diff?ref=704.5j&to=2026-01-16"),
    (["history", "704.5j", "--json"], "/api/history/704.5j"),
    (["history", "704.5k", "--edition", "2013-07-13", "--json"],
     "/api/history/704.5k?edition=2013-07-13"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "route"), SAME_JSON, ids=[r for _, r in SAME_JSON])
def test_every_api_route_answers_the_cli_json(
    home: Path, base: str, argv: list[str], route: str
) -> None:
    answer = fetch(base, route)
    assert answer.status == 200, answer.body
    assert answer.json() == cli_json(home, argv)


@pytest.mark.parametrize(
    ("argv", "query"),
    [
        (["check", str(BOARD), "--json"], ""),
        (["check", str(BOARD), "--edition", "2013-07-13", "--json"], "?edition=2013-07-13"),
    ],
)
def test_check_answers_the_cli_json(home: Path, base: str, argv: list[str], query: str) -> None:
    for kind in ("application/yaml", "text/plain", ""):
        headers = {"content-type": kind} if kind else {}
        answer = fetch(
            base, "/api/check" + query, method="POST", body=BOARD.read_bytes(), headers=headers
        )
        assert answer.status == 200, answer.body
        assert answer.json() == cli_json(home, argv)


def test_check_reads_json_and_markdown_boards(home: Path, base: str, tmp_path: Path) -> None:
    import yaml

    board = yaml.safe_load(BOARD.read_text(encoding="utf-8"))
    as_json = json.dumps(board).encode("utf-8")
    (tmp_path / "board.json").write_bytes(as_json)
    answer = fetch(
        base,
        "/api/check",
        method="POST",
        body=as_json,
        headers={"content-type": "application/json"},
    )
    assert answer.json() == cli_json(home, ["check", str(tmp_path / "board.json"), "--json"])
    question = (
        "# Two Isamarus\n\nWhat happens?\n\n```yaml\n" + BOARD.read_text(encoding="utf-8") + "```\n"
    )
    (tmp_path / "board.md").write_text(question, encoding="utf-8")
    answer = fetch(
        base,
        "/api/check",
        method="POST",
        body=question.encode(),
        headers={"content-type": "text/markdown"},
    )
    assert answer.json() == cli_json(home, ["check", str(tmp_path / "board.md"), "--json"])
    assert answer.json()["question"] == "What happens?"


def _cli_error(home: Path, argv: list[str], code: int = 1) -> str:
    result = CliRunner().invoke(cli, argv, env={"JUDGE_HOME": str(home)})
    assert result.exit_code == code, result.output
    (line,) = [x for x in result.stderr.splitlines() if x.startswith("Error: ")]
    return line[len("Error: ") :]


# (CLI arguments, its exit code, the route, the route's status)
SAME_ERROR = [
    (["rule", "704.5zz", "--json"], 1, "/api/rule/704.5zz", 404),
    (["rule", "999", "--json"], 1, "/api/rule/999", 404),
    (["rule", "abc", "--json"], 2, "/api/rule/abc", 400),
    (["rule", "704.5j", "-e", "1999-04-23"], 1, "/api/rule/704.5j?edition=1999-04-23", 404),
    (["rule", "704.5j", "-e", "20", "--json"], 1, "/api/rule/704.5j?edition=20", 400),
    (["define", "xyzzy", "--json"], 1, "/api/define/xyzzy", 404),
    (["search", "((", "--json"], 1, "/api/search?q=((", 400),
    (["search", "x" * 5001, "--json"], 1, "/api/search?q=" + "x" * 5001, 400),
    (["diff", "--from", "2026-01-16", "--to", "2013-07-13", "999.9z", "--json"], 1,
     "/api/diff?from=2026-01-16&to=2013-07-13&ref=999.9z", 404),
    (["diff", "--to", "2013-07-13", "--json"], 1, "/api/diff?to=2013-07-13", 404),
    (["history", "999.9z", "--json"], 1, "/api/history/999.9z", 404),
]  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "code", "route", "status"), SAME_ERROR, ids=[r[2][:40] for r in SAME_ERROR]
)
def test_errors_are_json_with_the_cli_message(
    home: Path, base: str, argv: list[str], code: int, route: str, status: int
) -> None:
    answer = fetch(base, route)
    assert answer.status == status
    assert answer.json() == {"error": _cli_error(home, argv, code), "status": status}


def test_check_errors_name_the_line_and_key(base: str) -> None:
    answer = fetch(
        base, "/api/check", method="POST", body=b"players:\n  - name: Al\n    life: twenty\n"
    )
    assert answer.status == 400
    assert answer.json()["error"] == (
        "board.yaml, line 3, key 'players[0].life': expected a whole number, got 'twenty'. "
        "Fix the file and run `judge check board.yaml` again."
    )
    answer = fetch(base, "/api/check", method="POST", body=b"\xff\xfe\x00")
    assert answer.status == 400 and "not UTF-8 text" in answer.json()["error"]
    answer = fetch(
        base, "/api/check", method="POST", body=b"{", headers={"content-type": "application/json"}
    )
    assert answer.status == 400 and answer.json()["error"].startswith("board.json, line 1")


BAD_REQUESTS = [
    ("GET", "/api/search", 400, "give the query parameter q="),
    ("GET", "/api/search?q=legend&limit=0", 400, "limit='0' is not a whole number from 1 to 200"),
    ("GET", "/api/search?q=legend&limit=ten", 400, "limit='ten' is not a whole number from 1"),
    (
        "GET",
        "/api/search?q=legend&in=cards",
        400,
        "in='cards' is not one of rules, glossary, mtr, ipg, jar, dmtr, dipg, documents, "
        "rulings, all",
    ),
    ("GET", "/api/rule/704.5?no_subrules=maybe", 400, "no_subrules='maybe' is not true or false"),
    ("GET", "/api/nothing/here", 404, "no such route: /api/nothing/here. The routes are"),
    ("GET", "/nothing", 404, "no such page or route: /nothing."),
    ("POST", "/api/rule/704.5j", 405, "POST is not allowed on /api/rule/704.5j"),
    ("DELETE", "/api/editions", 405, "DELETE is not allowed on /api/editions"),
    ("GET", "/api/check", 405, "GET is not allowed on /api/check"),
]  # fmt: skip


@pytest.mark.parametrize(("method", "route", "status", "start"), BAD_REQUESTS)
def test_bad_requests_get_json_errors(
    base: str, method: str, route: str, status: int, start: str
) -> None:
    answer = fetch(base, route, method=method)
    assert answer.status == status
    data = answer.json()
    assert data["status"] == status and data["error"].startswith(start), data


def test_a_1_mb_body_is_refused(base: str) -> None:
    # The refusal comes from the Content-Length, before the body is read: send the head and
    # the first 64 KiB, then read the answer (the server closes without reading the rest).
    head = b"POST /api/check HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n"
    data = _raw(base, head + b"#" * 65536)
    assert data.startswith(b"HTTP/1.1 413 ")
    body = json.loads(data.split(b"\r\n\r\n", 1)[1])
    assert body == {"error": "the request body is larger than 262144 bytes", "status": 413}


def _raw(base: str, request: bytes, read: int = 1 << 20) -> bytes:
    url = urllib.parse.urlsplit(base)
    with socket.create_connection((url.hostname, url.port), timeout=30) as sock:
        # The server may answer and close before the body is all sent.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(request)
        data = b""
        while len(data) < read:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
        return data


def test_a_chunked_body_without_length_is_cut_off_too(base: str) -> None:
    chunk = b"#" * 65536
    body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(20)) + b"0\r\n\r\n"
    head = b"POST /api/check HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    data = _raw(base, head + body)
    assert data.startswith(b"HTTP/1.1 413 ")
    assert data.split(b"\r\n\r\n", 1)[1].startswith(b'{"error": "the request body is larger')


def test_long_urls_are_refused(base: str) -> None:
    answer = fetch(base, "/api/search?q=" + "a" * 9000)
    assert answer.status == 414
    assert answer.json()["error"] == "the query string is longer than 8192 bytes"
    answer = fetch(base, "/api/rule/" + "7" * 9000)
    assert answer.status == 414


def test_a_client_that_disconnects_mid_answer_does_not_stop_the_server(base: str) -> None:
    url = urllib.parse.urlsplit(base)
    for _ in range(20):
        sock = socket.create_connection((url.hostname, url.port), timeout=30)
        sock.sendall(b"GET /file/cr HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sock.recv(1000).startswith(b"HTTP/1.1 200 ")
        # Close with a reset (SO_LINGER 0), the rudest way to leave.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        sock.close()
    assert fetch(base, "/api/rule/704.5j").status == 200


MIXED = [
    "/api/rule/704.5j",
    "/api/rule/601.2a-h",
    "/api/define/legend%20rules",
    "/api/search?q=legend+rule&limit=5",
    "/api/search?q=what+happens+to+a+creature+with+0+toughness",
    "/api/search?q=sba&edition=2013-07-13",
    "/cr/704.5j",
    "/cr/glossary/legend%20rule",
    "/api/rule/704.5zz",
    "/rules/704",
]


def test_1000_mixed_requests_from_8_clients_all_answer_correctly(base: str) -> None:
    expected = {path: fetch(base, path) for path in MIXED}
    assert expected["/api/rule/704.5zz"].status == 404
    failures: list[str] = []
    done = [0]
    lock = threading.Lock()
    deadline = time.monotonic() + 240

    def client(index: int) -> None:
        import http.client

        url = urllib.parse.urlsplit(base)
        conn = http.client.HTTPConnection(url.hostname or "", url.port, timeout=30)
        try:
            for i in range(125):
                if time.monotonic() > deadline:
                    failures.append(f"client {index}: out of time")
                    return
                path = MIXED[(index * 7 + i) % len(MIXED)]
                conn.request("GET", path)
                response = conn.getresponse()
                body = response.read()
                want = expected[path]
                if (response.status, body) != (want.status, want.body):
                    failures.append(f"{path}: {response.status} {body[:80]!r}")
                with lock:
                    done[0] += 1
        except Exception as exc:
            failures.append(f"client {index}: {exc!r}")
        finally:
            conn.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not failures, failures[:5]
    assert done[0] == 1000


def test_an_edition_stored_while_serving_answers_at_once(tmp_path: Path) -> None:
    from .httpfixture import make_cr_text

    home = tmp_path / "home"
    with running(home) as url:
        assert fetch(url, "/api/editions").json() == []
        assert fetch(url, "/api/rule/704.5j").status == 404  # the sample has no rules
        import datetime as dt

        from index.search import build_search_index
        from index.store import EditionStore

        text = make_cr_text(dt.date(2025, 2, 7))
        EditionStore(home).add_bytes(text.encode(), "mini.txt", extra=build_search_index)
        answer = fetch(url, "/api/rule/704.5j").json()
        assert answer["edition"] == "2025-02-07"
        assert fetch(url, "/api/search?q=legend+rule").json()["results"][0]["id"] == "704.5j"


def _start(home: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "JUDGE_HOME": str(home), "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "judge_cli", "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_judge_serve_listens_on_loopback_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    import signal

    process = _start(tmp_path / "home", "--port", "0")
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("Serving sample on http://127.0.0.1:"), line
        url = line.split(" on ", 1)[1].split(" ", 1)[0]
        answer = fetch(url, "/api/define/mana%20burn")
        assert answer.status == 200 and answer.json()["term"] == "Mana Burn"
        process.send_signal(signal.SIGINT)
        assert process.wait(20) == 0
    finally:
        process.kill()
        process.wait(10)


def test_judge_serve_refuses_a_public_host_without_public(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["serve", "--host", "0.0.0.0"], env={"JUDGE_HOME": str(tmp_path)}
    )
    assert result.exit_code == 2
    assert (
        "Error: 0.0.0.0 is not a loopback address: other machines could reach the server. "
        "Add --public if that is what you want."
    ) in result.stderr


def test_judge_serve_says_when_the_port_is_taken(tmp_path: Path) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        port = str(taken.getsockname()[1])
        result = CliRunner().invoke(
            cli, ["serve", "--port", port], env={"JUDGE_HOME": str(tmp_path)}
        )
    finally:
        taken.close()
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: cannot listen on 127.0.0.1 port {port} (Address already in use). "
        "Give another with --port, or stop what is using it.\n"
    )


def test_judge_serve_without_the_extra_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn now fails
    result = CliRunner().invoke(cli, ["serve"], env={"JUDGE_HOME": str(tmp_path)})
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: this needs uvicorn, which is not installed. "
        'Install it with: pip install "judge-cli[serve]"\n'
    )


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.1.2.3", True), ("localhost", True), ("::1", True),
     ("[::1]", True), ("0.0.0.0", False), ("::", False), ("192.168.1.10", False),
     ("example.org", False)],
)  # fmt: skip
def test_is_loopback(host: str, loopback: bool) -> None:
    from judge_cli.serve.command import is_loopback

    assert is_loopback(host) is loopback
