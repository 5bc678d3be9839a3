"""The server's pages for people: ``/``, ``/rules/{number}``, ``/glossary``, ``/search``.

URLs a judge can paste: ``/rules/704.5j`` redirects to ``/rules/704#R7045j``; ``edition=``
keeps to one edition (``/rules/704?edition=2013-07-13#R7045k``). A browser that asks for
something missing gets an HTML page with the message and status; anything else gets the
server's JSON error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..serve.routes import Ask, Reply, error_body, get
from . import assets

if TYPE_CHECKING:
    from starlette.routing import Route

    from index.edition import Edition

    from .html import Site

__all__ = ["routes"]


def _headers() -> dict[str, str]:
    return {
        "content-security-policy": assets.content_security_policy(static=False),
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
    }


def _html(text: str, status: int = 200) -> Reply:
    return Reply(text, "text/html; charset=utf-8", status, _headers())


def _site(ask: Ask) -> Site:
    from .html import Site

    return Site(
        static=False,
        edition=ask.query.get("edition") or None,
        base=ask.base,
        editions=tuple(ask.editions.store.dates()),
    )


def _page_error(ask: Ask, exc: BaseException, message: str, status: int) -> Any:
    from .html import error_page

    if ask.wants_html:
        return _html(error_page(message, status), status)
    return error_body(message, status)


def home(ask: Ask) -> Any:
    """The contents of an edition, with the search box."""
    from .html import index_page

    return _html(index_page(ask.edition(), _site(ask)))


def rules(ask: Ask) -> Any:
    """A section's or a three-digit rule's page; a subrule redirects to its anchor."""
    from index.numbers import parse_rule_number

    from .html import page_of, rule_page, section_page

    ed = ask.edition()
    number = str(parse_rule_number(ask.path["number"].rstrip(".")))
    site = _site(ask)
    if page_of(number) != number:
        ed.rule(number)  # a missing rule is an error here, not after the redirect
        return Reply(b"", status=302, headers={"location": site.rule(number)})
    if len(number) == 1:
        return _html(section_page(ed, number, site))
    return _html(rule_page(ed, number, site))


def glossary(ask: Ask) -> Any:
    """Every glossary entry."""
    from .html import glossary_page

    return _html(glossary_page(ask.edition(), _site(ask)))


def search(ask: Ask) -> Any:
    """Search results as a page; a query that is one rule number goes to that rule."""
    from .html import search_page

    ed = ask.edition()
    site = _site(ask)
    query = ask.query.get("q", "").strip()
    if not query:
        return Reply(b"", status=302, headers={"location": site.page("index")})
    number = _one_rule(ed, query)
    if number is not None:
        return Reply(b"", status=302, headers={"location": site.rule(number)})
    found = ed.search(query, limit=ask.whole_number("limit", 25, 1, 200))
    return _html(search_page(ed, found, site))


def _one_rule(ed: Edition, query: str) -> str | None:
    """The rule a query names when it is nothing but a rule number that the edition has."""
    from index.edition import NotInSampleError
    from index.model import UnknownRuleError
    from index.numbers import InvalidRuleReferenceError, parse_rule_ref

    try:
        ref = parse_rule_ref(query)
        return None if ref.end is not None else ed.rule(str(ref.start)).number
    except (InvalidRuleReferenceError, UnknownRuleError, NotInSampleError):
        return None


def routes() -> list[Route]:
    """The page routes."""
    return [
        get("/", home, _page_error),
        get("/rules/{number}", rules, _page_error),
        get("/glossary", glossary, _page_error),
        get("/search", search, _page_error),
    ]
