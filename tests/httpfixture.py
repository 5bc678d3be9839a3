"""A real HTTP server on 127.0.0.1 for the update tests, and small CR files to serve from it.

The server answers from a table of routes (path → :class:`Route`): a status, a body, headers,
and misbehaviour on request (a delay before answering, a body cut short of its Content-Length, a
redirect). It records every request so tests can assert what was fetched, how often, and with which
headers.
"""

from __future__ import annotations

import datetime as dt
import ssl
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

__all__ = ["Recorded", "Route", "Server", "make_certificate", "make_cr_text", "serve"]

_SECTIONS = [
    "Game Concepts",
    "Parts of a Card",
    "Card Types",
    "Zones",
    "Turn Structure",
    "Spells, Abilities, and Effects",
    "Additional Rules",
    "Multiplayer Rules",
    "Casual Variants",
]


def make_cr_text(effective: dt.date, *, extra_rule: str = "") -> str:
    """A small Comprehensive Rules file in the modern layout, effective on ``effective``."""
    date_line = f"These rules are effective as of {effective:%B} {effective.day}, {effective.year}."
    contents = []
    for number, title in enumerate(_SECTIONS, start=1):
        contents += [f"{number}. {title}", f"{number}00. General", ""]
    lines = [
        "Magic: The Gathering Comprehensive Rules",
        "",
        date_line,
        "",
        "Introduction",
        "",
        "This document is the ultimate authority for Magic: The Gathering\u00ae competitive game"
        " play. It consists of a series of numbered rules followed by a glossary.",
        "",
        "Contents",
        "",
        *contents,
        "Glossary",
        "",
        "Credits",
        "",
        "1. Game Concepts",
        "",
        "100. General",
        "",
        "100.1. These Magic rules apply to any Magic game with two or more players.",
        "",
        "100.1a A two-player game is a game that begins with only two players.",
        "",
        "100.2. To play, each player needs their own deck of traditional Magic cards.",
        "",
        "101. The Magic Golden Rules",
        "",
        "101.1. Whenever a card\u2019s text directly contradicts these rules, the card takes"
        " precedence.",
        "",
        "101.2. When a rule or effect allows or directs something to happen, and another effect"
        " states that it can\u2019t happen, the \u201ccan\u2019t\u201d effect takes precedence.",
        "Example: If one effect reads \u201cYou may play an additional land this turn\u201d and"
        " another reads \u201cYou can\u2019t play lands this turn,\u201d the effect that precludes"
        " you from playing lands wins.",
        "",
        "7. Additional Rules",
        "",
        "704. State-Based Actions",
        "",
        "704.1. State-based actions are game actions that happen automatically whenever certain"
        " conditions (listed below) are met.",
        "",
        "704.3. Whenever a player would get priority, the game checks for any of the listed"
        " conditions for state-based actions. See rule 704.5.",
        "",
        "704.5. The state-based actions are as follows:",
        "",
        "704.5a If a player has 0 or less life, that player loses the game.",
        "",
        "704.5f If a creature has toughness 0 or less, it\u2019s put into its owner\u2019s"
        " graveyard.",
        "",
        "704.5j If two or more legendary permanents with the same name are controlled by the same"
        " player, that player chooses one of them, and the rest are put into their owners\u2019"
        " graveyards. This is called the \u201clegend rule.\u201d",
        "",
        *([extra_rule, ""] if extra_rule else []),
        "Glossary",
        "",
        "Legend Rule",
        "A state-based action that causes a player who controls two or more legendary permanents"
        " with the same name to choose one and put the rest into their owners\u2019 graveyards."
        " See rule 704.5j.",
        "",
        "State-Based Actions",
        "Game actions that happen automatically whenever certain conditions are met. See rule 704,"
        " \u201cState-Based Actions.\u201d",
        "",
        "",
        "Credits",
        "",
        "Magic: The Gathering Original Game Design: Richard Garfield",
        "",
        date_line,
        "",
        "Published by Wizards of the Coast LLC. \u00a92025 Wizards.",
        "",
    ]
    return "\r\n".join(lines)


@dataclass
class Route:
    """How the server answers one path."""

    body: bytes = b""
    status: int = 200
    content_type: str = "text/plain"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to wait before answering (bounded: the server's stop event ends the wait)."""
    send_bytes: int | None = None
    """Send only this many bytes of the body, then close, while announcing the full length."""
    trickle: float = 0.0
    """Seconds between 1-byte writes of the body (a server that never quite stops)."""
    honour_range: bool = True
    """Answer ``Range: bytes=0-N`` with 206 and the first bytes, as a real server does."""
    content_length: bool = True
    """Send Content-Length (else the body ends when the connection closes)."""


@dataclass(frozen=True)
class Recorded:
    """One request the server received."""

    method: str
    path: str
    """Percent-decoded path, as the route table is keyed."""
    raw_path: str
    """The path exactly as requested (with its %20s)."""
    headers: dict[str, str]

    @property
    def is_ranged(self) -> bool:
        """Checks if this request asked for a byte range (a peek at the first bytes)."""
        return "range" in {key.lower() for key in self.headers}


class Server:
    """A loopback HTTP server answering from ``routes``; see :func:`serve`."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[Recorded] = []
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self.httpd.daemon_threads = True
        scheme = "http"
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
            scheme = "https"
        self.base = f"{scheme}://127.0.0.1:{self.httpd.server_address[1]}"

    def url(self, path: str) -> str:
        """The absolute URL for ``path`` (which may hold literal spaces, as Wizards' links do)."""
        return self.base + path

    def full_downloads(self, path: str) -> int:
        """How many times ``path`` was fetched whole (not a ranged peek)."""
        return sum(1 for r in self.requests if r.path == path and not r.is_ranged)

    def fetched(self, path: str) -> int:
        """How many times ``path`` was requested at all."""
        return sum(1 for r in self.requests if r.path == path)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass  # keep test output clean

            def do_GET(self) -> None:
                path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
                with server._lock:
                    server.requests.append(
                        Recorded("GET", path, self.path, {k: v for k, v in self.headers.items()})
                    )
                route = server.routes.get(path)
                if route is None:
                    route = Route(b"<html><body>Not found</body></html>", 404, "text/html")
                if route.delay and server.stop.wait(route.delay):
                    return
                body, status = route.body, route.status
                extra = dict(route.headers)
                wanted = self.headers.get("Range", "")
                if wanted.startswith("bytes=0-") and route.honour_range and status == 200:
                    end = int(wanted[len("bytes=0-") :])
                    if end + 1 < len(body):
                        body, status = body[: end + 1], 206
                        extra["Content-Range"] = f"bytes 0-{end}/{len(route.body)}"
                self.send_response(status)
                self.send_header("Content-Type", route.content_type)
                if route.content_length:
                    self.send_header("Content-Length", str(len(body)))
                else:
                    self.send_header("Connection", "close")
                for key, value in extra.items():
                    self.send_header(key, value)
                self.end_headers()
                try:
                    if route.trickle:
                        for i in range(len(body)):
                            if server.stop.wait(route.trickle):
                                return
                            self.wfile.write(body[i : i + 1])
                            self.wfile.flush()
                    elif route.send_bytes is not None and status == 200:
                        self.wfile.write(body[: route.send_bytes])
                    else:
                        self.wfile.write(body)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    return
                if route.send_bytes is not None or not route.content_length:
                    self.close_connection = True

        return Handler


@contextmanager
def serve(tls: ssl.SSLContext | None = None) -> Iterator[Server]:
    """Runs a :class:`Server` (HTTPS with ``tls``) in a thread for the ``with`` block."""
    server = Server(tls)
    thread = threading.Thread(
        target=server.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.stop.set()
        server.httpd.shutdown()
        server.httpd.server_close()
        thread.join(timeout=5)


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate and key for 127.0.0.1, made with the openssl tool.

    Skips the test when the tool is not installed.
    """
    import shutil
    import subprocess

    import pytest

    if shutil.which("openssl") is None:
        pytest.skip("the openssl tool is not installed")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True, timeout=30,
    )  # fmt: skip
    return cert, key
