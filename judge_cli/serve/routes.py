"""What a route is, and how its answer or its error becomes an HTTP response.

A route is a plain function of an :class:`Ask` (the request's path parameters, query and
body, and the warm editions) that returns JSON-ready data, or a :class:`Reply` for anything
else (HTML, text, a redirect). It runs in a worker thread, so it may call the library directly.
A library error it lets rise is answered as ``{"error": <the CLI's Error: message>, "status":
N}`` with the status of the one error table (:func:`judge_cli.errors.describe`); a mistake in
the query (:class:`BadRequest`) as the same shape, 400.

Adding a route is one small function and one line in a table::

    def card(ask: Ask) -> Any:
        return card_record(ask.edition(), ask.path["name"])

    ROUTES = [..., get("/api/card/{name}", card)]
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from index.edition import Edition

    from .state import Editions

__all__ = [
    "Ask",
    "BadRequest",
    "Handler",
    "Reply",
    "error_body",
    "get",
    "json_response",
    "post",
    "problem",
]

log = logging.getLogger("judge.serve")


class BadRequest(ValueError):
    """Raised by a route for a query parameter it cannot use (a server's own usage error)."""

    def __init__(self, message: str, status: int = 400) -> None:
        self.message = message
        self.status = status
        super().__init__(message)


@dataclass
class Reply:
    """An answer that is not plain JSON: a body with its media type, status and headers."""

    body: bytes | str
    media_type: str = "application/json"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Ask:
    """One request as a route sees it."""

    editions: Editions
    path: dict[str, str]
    """The path parameters (``{"ref": "704.5j"}``), percent-decoded."""
    query: Mapping[str, str]
    body: bytes = b""
    content_type: str = ""
    wants_html: bool = False
    """True when the client asked for HTML first (a browser), for the pages' error pages."""
    base: str = "/"
    """The URL prefix the application is mounted at."""

    def edition(self) -> Edition:
        """The edition ``edition=`` names (default: the newest stored), kept warm."""
        return self.editions.get(self.query.get("edition") or None)

    def flag(self, name: str) -> bool:
        """A true/false query parameter (``1``, ``true``, ``yes``, ``on``; absent is false)."""
        raw = self.query.get(name)
        if raw is None:
            return False
        value = raw.strip().lower()
        if value in ("", "1", "true", "yes", "on"):
            return True
        if value in ("0", "false", "no", "off"):
            return False
        raise BadRequest(f"{name}={raw!r} is not true or false; use {name}=true or {name}=false")

    def whole_number(self, name: str, default: int, lo: int, hi: int) -> int:
        """An integer query parameter within ``lo``..``hi``."""
        raw = self.query.get(name)
        if raw is None or raw == "":
            return default
        try:
            value = int(raw)
        except ValueError:
            value = lo - 1
        if not lo <= value <= hi:
            raise BadRequest(f"{name}={raw!r} is not a whole number from {lo} to {hi}")
        return value

    def choice(self, name: str, options: tuple[str, ...], default: str) -> str:
        """A query parameter that must be one of ``options``."""
        raw = self.query.get(name) or default
        if raw not in options:
            raise BadRequest(f"{name}={raw!r} is not one of {', '.join(options)}")
        return raw

    def every(self, name: str) -> list[str]:
        """Each value of a query parameter given several times (``name=A&name=B``)."""
        getlist = getattr(self.query, "getlist", None)
        if getlist is not None:
            return [str(value) for value in getlist(name)]
        return [self.query[name]] if name in self.query else []

    def required(self, name: str) -> str:
        """A query parameter that must be given and not be empty."""
        raw = self.query.get(name, "").strip()
        if not raw:
            raise BadRequest(f"give the query parameter {name}=")
        return raw


Handler = Callable[[Ask], Any]


def problem(exc: BaseException) -> tuple[str, int] | None:
    """The message and HTTP status for an error a route raised, or ``None`` for a bug."""
    from ..errors import describe
    from ..render import safe

    if isinstance(exc, BadRequest):
        return safe(exc.message), exc.status
    found = describe(exc)
    if found is None:
        return None
    return safe(found.message), found.status


def error_body(message: str, status: int) -> dict[str, Any]:
    """The JSON of every error the server answers."""
    return {"error": message, "status": status}


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """Compact UTF-8 JSON (the same data as the CLI's ``--json``, without its indentation)."""
    from starlette.responses import Response

    from ..render import safe_json

    # Escaped as the CLI's are: a lone surrogate (JSON's "\ud800" sent back) cannot be UTF-8.
    body = safe_json(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    return Response(body, status, headers=headers, media_type="application/json")


def _response(answer: Any) -> Response:
    from starlette.responses import Response

    if isinstance(answer, Reply):
        return Response(answer.body, answer.status, answer.headers, answer.media_type)
    return json_response(answer)


ErrorShape = Callable[[Ask, BaseException, str, int], Any]
"""Turns an error into the body a route family answers with (the API's, Academy Ruins')."""


def _api_error(ask: Ask, exc: BaseException, message: str, status: int) -> Any:
    return error_body(message, status)


def _endpoint(handler: Handler, shape: ErrorShape) -> Callable[[Request], Any]:
    async def endpoint(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        body = await request.body() if request.method == "POST" else b""
        accept = request.headers.get("accept", "")
        ask = Ask(
            editions=request.app.state.editions,
            path={k: str(v) for k, v in request.path_params.items()},
            query=request.query_params,
            body=body,
            content_type=request.headers.get("content-type", ""),
            wants_html=accept.startswith("text/html"),
            base=request.scope.get("root_path", "") + "/",
        )
        try:
            answer = await run_in_threadpool(handler, ask)
        except Exception as exc:
            found = problem(exc)
            if found is None:
                log.exception("error answering %s", request.url.path)
                message, status = "the server failed to answer; see its log", 500
            else:
                message, status = found
            return _response(_shaped(shape, ask, exc, message, status))
        return _response(answer)

    endpoint.__name__ = handler.__name__
    endpoint.__doc__ = handler.__doc__
    return endpoint


def _shaped(shape: ErrorShape, ask: Ask, exc: BaseException, message: str, status: int) -> Any:
    """The error body of a route family; a :class:`Reply` keeps its own status."""
    answer = shape(ask, exc, message, status)
    if isinstance(answer, Reply):
        return answer
    return Reply(json.dumps(answer, ensure_ascii=False, separators=(",", ":")), status=status)


def get(path: str, handler: Handler, shape: ErrorShape = _api_error) -> Route:
    """A ``GET`` (and ``HEAD``) route answered by ``handler``."""
    from starlette.routing import Route

    return Route(path, _endpoint(handler, shape), methods=["GET", "HEAD"])


def post(path: str, handler: Handler, shape: ErrorShape = _api_error) -> Route:
    """A ``POST`` route answered by ``handler`` (the body is read before it runs)."""
    from starlette.routing import Route

    return Route(path, _endpoint(handler, shape), methods=["POST"])
