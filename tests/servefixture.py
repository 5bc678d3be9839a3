"""A real `judge serve` application on a free loopback port, and the stores it answers from.

The stores are built once per test process (two real editions take a while) in a temporary
folder removed at exit; :func:`running` starts uvicorn in a thread on ``127.0.0.1`` port 0 and
stops it afterwards. :func:`fetch` is a small HTTP client that returns errors instead of
raising them.
"""

from __future__ import annotations

import atexit
import http.client
import json
import shutil
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .conftest import corpus_file

EDITIONS = ("20260116", "20130713")
"""The corpus editions stored for the server tests: the newest, and one before renumbering."""

_homes: dict[str, Path] = {}


def _temp_home(name: str) -> Path:
    home = Path(tempfile.mkdtemp(prefix=f"judge-{name}-"))
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    return home


def corpus_home() -> Path:
    """A data folder holding :data:`EDITIONS`, built once (skips when the corpus is absent)."""
    if "corpus" not in _homes:
        from index.search import build_search_index
        from index.store import EditionStore

        paths = [corpus_file(date) for date in EDITIONS]
        home = _temp_home("corpus")
        store = EditionStore(home)
        for path in paths:
            store.add_bytes(path.read_bytes(), path.name, extra=build_search_index)
        _homes["corpus"] = home
    return _homes["corpus"]


HOSTILE_RULE = (
    "704.6. A rule that reads <script>alert(1)</script> & “<b>bold</b>” and 'quotes' "
    '"<img src=x onerror=alert(2)>", citing rule 704.5j.'
)
"""A rule whose text is markup: every page must show it as text."""


def hostile_home() -> Path:
    """A data folder with one small edition whose rule 704.6 is :data:`HOSTILE_RULE`."""
    if "hostile" not in _homes:
        import datetime as dt

        from index.search import build_search_index
        from index.store import EditionStore

        from .httpfixture import make_cr_text

        home = _temp_home("hostile")
        text = make_cr_text(dt.date(2025, 3, 1), extra_rule=HOSTILE_RULE)
        EditionStore(home).add_bytes(text.encode("utf-8"), "hostile.txt", extra=build_search_index)
        _homes["hostile"] = home
    return _homes["hostile"]


@contextmanager
def running(home: Path, notice: Callable[[str], None] | None = None) -> Iterator[str]:
    """The server answering from ``home``, as its base URL (``http://127.0.0.1:PORT/``);
    ``notice`` is told what the server tells its console."""
    from index.store import EditionStore
    from judge_cli.serve.app import make_app
    from judge_cli.serve.command import bind, make_server
    from judge_cli.serve.state import Editions

    editions = Editions(EditionStore(home), notice)
    server = make_server(make_app(editions))
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the server did not start within 30 s")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(15)
        editions.close()
        sock.close()


@dataclass
class Answer:
    """What the server answered."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        assert self.headers.get("content-type", "").startswith("application/json"), self.headers
        return json.loads(self.body)


def fetch(
    base: str,
    path: str,
    *,
    method: str = "GET",
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 30,
) -> Answer:
    """One request (no redirects followed, errors returned, not raised)."""
    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        data = response.read()
        found = {k.lower(): v for k, v in response.getheaders()}
        return Answer(response.status, found, data)
    finally:
        conn.close()


def cli_json(home: Path, argv: list[str]) -> Any:
    """What ``judge ARGV`` prints as JSON, run in-process against ``home`` (it must succeed)."""
    from click.testing import CliRunner

    from judge_cli.cli import cli

    result = CliRunner().invoke(cli, argv, env={"JUDGE_HOME": str(home)})
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def quoted(text: str) -> str:
    """``text`` as one path segment of a URL."""
    return urllib.parse.quote(text, safe="")
