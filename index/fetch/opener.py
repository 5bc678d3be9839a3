"""The urllib machinery under :mod:`index.fetch.http`: a deadline that shuts sockets, redirects.

:func:`build_opener` gives an opener whose connections a :class:`Watchdog` shuts down when the
whole request's deadline passes, and which follows at most :data:`MAX_REDIRECTS` redirects, only
to http(s), never from https to http, never to an address :func:`~index.fetch.urls.check_url`
refuses.
"""

from __future__ import annotations

import functools
import http.client
import socket
import ssl
import threading
import urllib.parse
import urllib.request
from collections.abc import Callable
from contextlib import suppress
from typing import IO, Any

from .errors import BadURLError, RedirectError, printable
from .urls import check_url

__all__ = ["MAX_REDIRECTS", "Watchdog", "build_opener"]

MAX_REDIRECTS = 5
"""Redirects followed for one request."""


class Watchdog:
    """Shuts a request's sockets down when its deadline passes, whatever they are waiting for.

    The time-out bounds each wait; this bounds their sum (connecting, TLS, headers, body and
    redirects), so a server that sends a byte now and then cannot hold a download forever.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        with self._lock:
            for sock in self._sockets:
                sock.close()
            self._sockets.clear()

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)

    def watching(self, create: Callable[..., socket.socket]) -> Callable[..., socket.socket]:
        """``create`` (``socket.create_connection``), registering each socket it makes."""

        def create_and_watch(*args: Any, **kwargs: Any) -> socket.socket:
            sock = create(*args, **kwargs)
            # A duplicate of our own: TLS detaches the original, and shutting down either one
            # ends the connection under both.
            watched = sock.dup()
            with self._lock:
                self._sockets.append(watched)
                expired = self.expired
            if expired:
                _shut(watched)
            return sock

        return create_and_watch


def _shut(sock: socket.socket) -> None:
    with suppress(OSError):  # already closed by its owner
        sock.shutdown(socket.SHUT_RDWR)


# http.client makes its socket through the instance's _create_connection, before any TLS
# handshake: wrapping it is the one way to watch the socket from the very first byte.
class _WatchedHTTP(http.client.HTTPConnection):
    def __init__(self, *args: Any, watchdog: Watchdog, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        create = getattr(self, "_create_connection", socket.create_connection)
        self._create_connection = watchdog.watching(create)


class _WatchedHTTPS(http.client.HTTPSConnection):
    def __init__(self, *args: Any, watchdog: Watchdog, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        create = getattr(self, "_create_connection", socket.create_connection)
        self._create_connection = watchdog.watching(create)


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, watchdog: Watchdog) -> None:
        super().__init__()
        self.connection = functools.partial(_WatchedHTTP, watchdog=watchdog)

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self.connection, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, watchdog: Watchdog, tls: ssl.SSLContext) -> None:
        self.tls = tls
        super().__init__(context=tls)
        self.connection = functools.partial(_WatchedHTTPS, watchdog=watchdog)

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self.connection, req, context=self.tls)


class _LimitedRedirects(urllib.request.HTTPRedirectHandler):
    """Follows at most MAX_REDIRECTS redirects, and only to http(s), never https → http."""

    max_redirections = MAX_REDIRECTS
    max_repeats = 2

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: http.client.HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        old_scheme = urllib.parse.urlsplit(req.full_url).scheme.lower()
        new_scheme = urllib.parse.urlsplit(newurl).scheme.lower()
        shown = printable(newurl)
        if new_scheme not in ("http", "https") or (old_scheme == "https" and new_scheme == "http"):
            reason = f"to {shown}, which is not followed (only https, or http from http)"
            raise RedirectError(req.full_url, reason, newurl)
        try:
            check_url(newurl)
        except BadURLError as error:
            raise RedirectError(req.full_url, f"to {shown}, where {error.reason}", newurl) from None
        return super().redirect_request(req, fp, code, msg, headers, newurl)

    def http_error_302(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: http.client.HTTPMessage,
    ) -> IO[bytes] | None:
        try:
            return super().http_error_302(req, fp, code, msg, headers)
        except ValueError as error:  # urllib cannot even join the Location to the old address
            location = printable(headers.get("Location", ""))
            reason = f"to {location}, which is malformed ({printable(str(error))})"
            raise RedirectError(req.full_url, reason, headers.get("Location")) from None

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


def build_opener(watchdog: Watchdog, tls: ssl.SSLContext) -> urllib.request.OpenerDirector:
    """An opener for one request: its sockets watched by ``watchdog``, TLS verified by ``tls``."""
    return urllib.request.build_opener(
        _HTTPHandler(watchdog), _HTTPSHandler(watchdog, tls), _LimitedRedirects()
    )
