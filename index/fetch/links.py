"""Finding the Comprehensive Rules .txt links on a page such as Wizards' rules page.

Wizards' links are untidy: a literal space in the file name, ``%20``, ``_`` or nothing between
the stem and the date, other stems (``Comprehensive Rules``, ``MagicComp Rules``,
``MagicCompRulesWOE``), month-first dates and a 9-digit typo. The date in a file name is
therefore only used to *order* the candidates (see :mod:`index.fetch.update`).
"""

from __future__ import annotations

import dataclasses
import re
import urllib.parse
from html.parser import HTMLParser

from ..dates import find_name_date
from .urls import file_name, quote_url

__all__ = ["CandidateLink", "candidate", "find_rules_links", "is_rules_txt_name"]


@dataclasses.dataclass(frozen=True)
class CandidateLink:
    """A link that looks like a Comprehensive Rules .txt file."""

    url: str
    """The absolute URL, with spaces and other unsafe characters percent-encoded."""
    name: str
    """The file name as written (percent-decoded), e.g. ``MagicCompRules 20250207.txt``."""
    name_date: str | None
    """The ISO date read from the file name, or ``None``; only used to order candidates."""


# The stems seen in the wild, once spaces, underscores and dashes are removed and case folded:
# MagicCompRules, Comprehensive Rules, MagicComp Rules, MagicCompRulesWOE,
# MagicCompRules_CN2_Update.
_STEM_RE = re.compile(r"(?:magic|mtg)?comp(?:rehensive)?rules[a-z0-9]*")
_SEPARATORS_RE = re.compile(r"[\s_\-.+]+")
# Links inside scripts may hold a literal space, as Wizards' file names do; never a line break.
_TXT_URL_IN_TEXT_RE = re.compile(r"""https?:(?://|\\/\\/)[^\r\n"'<>]+?\.txt\b""", re.IGNORECASE)


def is_rules_txt_name(name: str) -> bool:
    """Checks if a file name looks like a Comprehensive Rules .txt file."""
    if not name.lower().endswith(".txt"):
        return False
    compact = _SEPARATORS_RE.sub("", name[: -len(".txt")]).lower()
    return _STEM_RE.fullmatch(compact) is not None


def candidate(url: str) -> CandidateLink:
    """The link to ``url`` (already percent-encoded), named and dated by its file name."""
    name = file_name(url)
    return CandidateLink(url=url, name=name, name_date=find_name_date(name))


class _LinkParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []
        self.base: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key == "href" and value:
                if tag == "base" and self.base is None:
                    self.base = value.strip()
                else:
                    self.hrefs.append(value.strip())


def _join(base: str, href: str) -> str | None:
    try:
        return urllib.parse.urljoin(base, href)
    except ValueError:  # a malformed href ("http://[::1") is no link
        return None


def find_rules_links(html: str, base_url: str) -> list[CandidateLink]:
    """Finds the Comprehensive Rules .txt links on a page, in page order, without duplicates."""
    parser = _LinkParser()
    parser.feed(html)
    parser.close()
    hrefs = parser.hrefs

    def named_like_rules(href: str) -> bool:
        try:
            return is_rules_txt_name(file_name(href))
        except ValueError:
            return False

    if not any(named_like_rules(h) for h in hrefs):
        # Some pages carry their links only inside scripts (JSON, with escaped slashes).
        hrefs = [m.group(0).replace("\\/", "/") for m in _TXT_URL_IN_TEXT_RE.finditer(html)]
    base = (_join(base_url, parser.base) or base_url) if parser.base else base_url
    links: list[CandidateLink] = []
    seen: set[str] = set()
    for href in hrefs:
        absolute = _join(base, href)
        if absolute is None or not named_like_rules(absolute):
            continue
        try:
            if urllib.parse.urlsplit(absolute).scheme.lower() not in ("http", "https"):
                continue
            url = quote_url(absolute)
        except ValueError:
            continue
        if url in seen:
            continue
        seen.add(url)
        links.append(candidate(url))
    return links
