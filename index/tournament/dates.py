"""The dates tournament documents print: "Effective May 13, 2024", "Updated September 25, 2020".

Small and local on purpose: a shared date parser for downloads is being written elsewhere, and
the two will be folded together.
"""

from __future__ import annotations

import re

__all__ = ["find_effective_date", "parse_long_date"]

_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}

# "May 13, 2024"; the documents also print "July 26,2024" and "June 7. 2024".
_LONG_DATE_RE = re.compile(r"([A-Za-z]+)\.?\s+(\d{1,2})\s*[,.]?\s*(\d{4})")
_EFFECTIVE_RE = re.compile(
    r"^\s*(?:effective|updated|last updated|current as of)\b[\s:]*(?:as of\s+)?(.+)$",
    re.IGNORECASE,
)


def parse_long_date(text: str) -> str | None:
    """The ISO date in ``"May 13, 2024"``, or ``None`` when it is not such a date.

    >>> parse_long_date("September 25, 2020")
    '2020-09-25'
    """
    m = _LONG_DATE_RE.search(text)
    if m is None:
        return None
    month = _MONTHS.get(m.group(1).lower())
    day, year = int(m.group(2)), int(m.group(3))
    if month is None or not 1 <= day <= 31:
        return None
    return f"{year:04d}-{month:02d}-{day:02d}"


def find_effective_date(line: str) -> str | None:
    """The ISO date of an "Effective …" or "Updated …" line, or ``None`` for any other line."""
    m = _EFFECTIVE_RE.match(line)
    return parse_long_date(m.group(1)) if m else None
