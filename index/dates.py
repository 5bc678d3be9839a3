"""Effective dates as the rules documents write them, read into ISO ``YYYY-MM-DD``.

One month table and one set of patterns for every reader: the CR's "These rules are effective
as of January 16, 2026." (before 2009 "… current as of …"), the tournament documents' "Effective
May 13, 2024" and "Updated September 25, 2020", and the dates in file names, digits
(``MagicCompRules 20260116.txt``, ``070713``) or with a month abbreviation
(``mtg_ipg_2024apr15_en.pdf``, ``MTG_MTR_2025_Apr_21_EN.pdf``, ``mtg_jar_25sep20_en.pdf``).
"""

from __future__ import annotations

import datetime as dt
import re

__all__ = [
    "MONTHS",
    "find_document_date",
    "find_effective_date",
    "find_name_date",
    "iso_date",
    "parse_month",
    "parse_name_date",
]

MONTHS: dict[str, int] = {
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
"""Month names and their abbreviations, lower case, to the month's number."""

FIRST_YEAR = 1993
"""No rules document is older than the game; a year outside 1993–2100 is a misreading."""
LAST_YEAR = 2100

# "January 16, 2026", "Feb. 7 2025": a month word, a day, a year; the tournament documents also
# print "July 26,2024" and "June 7. 2024". Every pattern names its groups month, day and year
# (two-digit years in file names: see _century).
_MONTH_DAY_YEAR = r"(?P<month>[A-Za-z]+)\.?\s+(?P<day>\d{1,2})(?:\s*[,.]\s*|\s+)(?P<year>\d{4})\b"
_EFFECTIVE_RE = re.compile(
    r"these\s+rules\s+are\s+(?:effective|current)\s+as\s+of\s+" + _MONTH_DAY_YEAR, re.IGNORECASE
)
_DOCUMENT_RE = re.compile(
    r"\b(?:(?:effective|updated)(?:\s+as\s+of|\s+on)?|current\s+as\s+of):?\s+" + _MONTH_DAY_YEAR,
    re.IGNORECASE,
)
# In file names: 2024apr15, 2024Sep23, 2025_Apr_21 (year first) and 25sep20 (day, month, year).
_NAME_YEAR_FIRST_RE = re.compile(
    r"(?<!\d)(?P<year>\d{4})[ _-]?(?P<month>[a-z]{3,9})[ _-]?(?P<day>\d{1,2})(?!\d)", re.I
)
_NAME_DAY_FIRST_RE = re.compile(
    r"(?<!\d)(?P<day>\d{1,2})[ _-]?(?P<month>[a-z]{3,9})[ _-]?(?P<year>\d{2})(?!\d)", re.I
)
_DIGIT_RUN_RE = re.compile(r"\d+")


def parse_month(name: str) -> int | None:
    """The number of a month written out or abbreviated ("Sept", "apr."); ``None`` if not one."""
    return MONTHS.get(name.strip().rstrip(".").lower())


def iso_date(year: int, month: int, day: int) -> str | None:
    """The ISO date, or ``None`` when there is no such day or the year is out of range."""
    if not FIRST_YEAR <= year <= LAST_YEAR:
        return None
    try:
        return dt.date(year, month, day).isoformat()
    except ValueError:
        return None


def _first_date(pattern: re.Pattern[str], text: str) -> str | None:
    """The first match of ``pattern`` that is a real date (a later one may be, when it is not)."""
    for match in pattern.finditer(text):
        month = parse_month(match["month"])
        year = int(match["year"])
        if month is not None:
            found = iso_date(_century(year) if year < 100 else year, month, int(match["day"]))
            if found is not None:
                return found
    return None


def find_effective_date(text: str) -> str | None:
    """The first "These rules are effective (current) as of …" date of a CR; ``None`` if none."""
    return _first_date(_EFFECTIVE_RE, text)


def find_document_date(text: str) -> str | None:
    """The first "Effective May 13, 2024" or "Updated September 25, 2020" date; ``None`` if none.

    Give it the opening of a tournament document (the reader gives it the lines under the
    title): later lines may date other things (a set's legality, "effective April 17, 2026").
    A date alone ("May 13, 2024", an entry of a list of changes) is not one.
    """
    return _first_date(_DOCUMENT_RE, text)


def _eight_digit_date(digits: str) -> str | None:
    # Year first (20250207) is the rule; month first (04102024) has been seen once.
    return iso_date(int(digits[:4]), int(digits[4:6]), int(digits[6:])) or iso_date(
        int(digits[4:]), int(digits[:2]), int(digits[2:4])
    )


def _century(two: int) -> int:
    return 1900 + two if two >= 90 else 2000 + two


def _six_digit_date(digits: str) -> str | None:
    # 2007-era names: 070713 (year first) and 031503 (month first).
    first, middle, last = int(digits[:2]), int(digits[2:4]), int(digits[4:])
    return iso_date(_century(first), middle, last) or iso_date(_century(last), first, middle)


def parse_name_date(digits: str) -> str | None:
    """Reads a date from the digits of a file name, leniently; ``None`` when it cannot."""
    if not (digits.isascii() and digits.isdigit()):
        return None
    if len(digits) == 8:
        return _eight_digit_date(digits)
    if len(digits) == 6:
        return _six_digit_date(digits)
    if len(digits) == 9:
        # A typo'd extra digit (202109224): prefer dropping one of a doubled digit, the usual slip.
        doubled = [i for i in range(1, 9) if digits[i] == digits[i - 1]]
        for i in doubled:
            date = _eight_digit_date(digits[:i] + digits[i + 1 :])
            if date is not None:
                return date
        found = {_eight_digit_date(digits[:i] + digits[i + 1 :]) for i in range(9)} - {None}
        if len(found) == 1:
            return found.pop()
    return None


def find_name_date(name: str) -> str | None:
    """The date in a file name (its extension ignored); ``None`` when it names none.

    A month word wins (``mtg_ipg_2024apr15_en.pdf``, ``mtg_jar_25sep20_en.pdf``); otherwise the
    last run of digits that :func:`parse_name_date` can read (``MagicCompRules 20260116.txt``).
    """
    stem = name.rsplit(".", 1)[0] if "." in name else name
    found = _first_date(_NAME_YEAR_FIRST_RE, stem) or _first_date(_NAME_DAY_FIRST_RE, stem)
    if found is not None:
        return found
    for digits in reversed(_DIGIT_RUN_RE.findall(stem)):
        found = parse_name_date(digits)
        if found is not None:
            return found
    return None
