"""The Starlette application: the routes, the limits on what a client may send, the errors.

Limits, checked before a route runs (:class:`Limits`): a request body over
:data:`MAX_BODY` bytes is refused with 413 (by its ``Content-Length``, or as it streams in), a
path or query string over :data:`MAX_URL` bytes with 414, and more than :data:`MAX_IN_FLIGHT`
requests at once with 503. Every refusal, an unknown path (404), a wrong method (405) and a
failure (500) is JSON: ``{"error": "…", "status": N}``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from .routes import error_body, json_response, log

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

    from .state import Editions

__all__ = ["API_ROUTES", "MAX_BODY", "MAX_IN_FLIGHT", "MAX_URL", "Limits", "make_app"]

MAX_BODY = 256 * 1024
"""Bytes a request body may have: a board is a few kilobytes."""
MAX_URL = 8 * 1024
"""Bytes the path and the query string may each have (a search is at most 500 characters)."""
API_ROUTES = (
    "/api/rule/REF, /api/define/TERM, /api/search?q=, /api/check (POST), /api/editions, "
    "/api/diff?from=&to=&ref=&doc=, /api/history/REF, /api/card/NAME, /api/ipg/REF, /api/mtr/REF,"
    " /api/jar"
)
"""What a 404 under ``/api/`` lists."""
MAX_IN_FLIGHT = 64
"""Requests answered at the same time; more are refused (503) rather than queued."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class _BodyTooLarge(Exception):
    pass


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps(error_body(message, status), ensure_ascii=False).encode("utf-8")
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Limits:
    """ASGI middleware that refuses oversized requests and too many at once, in JSON."""

    def __init__(
        self,
        app: ASGIApp,
        max_body: int = MAX_BODY,
        max_url: int = MAX_URL,
        max_in_flight: int = MAX_IN_FLIGHT,
    ) -> None:
        self.app = app
        self.max_body = max_body
        self.max_url = max_url
        self.max_in_flight = max_in_flight
        self.in_flight = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if len(scope.get("raw_path") or b"") > self.max_url:
            await _refuse(send, 414, f"the path is longer than {self.max_url} bytes")
            return
        if len(scope.get("query_string") or b"") > self.max_url:
            await _refuse(send, 414, f"the query string is longer than {self.max_url} bytes")
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        too_large = f"the request body is larger than {self.max_body} bytes"
        if declared is not None:
            if not declared.isdigit():
                await _refuse(send, 400, "the Content-Length header is not a number")
                return
            if int(declared) > self.max_body:
                await _refuse(send, 413, too_large)
                return
        if self.in_flight >= self.max_in_flight:
            await _refuse(send, 503, "the server is answering too many requests; try again")
            return
        received = 0
        started = False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise _BodyTooLarge
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = True
            await send(message)

        self.in_flight += 1
        try:
            await self.app(scope, counted, watched)
        except _BodyTooLarge:
            if not started:
                await _refuse(send, 413, too_large)
        finally:
            self.in_flight -= 1


async def _http_error(request: Request, exc: Exception) -> Response:
    from starlette.exceptions import HTTPException

    status = exc.status_code if isinstance(exc, HTTPException) else 500
    path = request.url.path
    if status == 404 and path.startswith("/api/"):
        message = f"no such route: {path}. The routes are {API_ROUTES}"
    elif status == 404:
        message = f"no such page or route: {path}. The API is under /api/, the pages at /"
    elif status == 405:
        message = f"{request.method} is not allowed on {request.url.path}"
    else:
        message = str(getattr(exc, "detail", "")) or "the request could not be answered"
    headers = getattr(exc, "headers", None)
    return json_response(error_body(message, status), status, headers=headers)


async def _server_error(request: Request, exc: Exception) -> Response:
    log.error("error answering %s", request.url.path, exc_info=exc)
    return json_response(error_body("the server failed to answer; see its log", 500), 500)


def make_app(editions: Editions) -> Starlette:
    """The application answering from ``editions`` (see :mod:`judge_cli.serve`)."""
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware

    from ..web.pages import routes as page_routes
    from .academy import routes as academy_routes
    from .api import routes as api_routes

    app = Starlette(
        routes=[*api_routes(), *academy_routes(), *page_routes()],
        middleware=[Middleware(Limits)],
        exception_handlers={HTTPException: _http_error, Exception: _server_error},
    )
    app.state.editions = editions
    return app
