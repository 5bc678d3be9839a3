"""Rule numbers, rule references and ranges, and finding references in rule text.

A rule number names one numbered item of the Comprehensive Rules: a section (``7``), a rule
(``704``), a numbered rule (``704.5``) or a lettered subrule (``704.5j``, and ``704.5aa`` once a
rule runs past z). Letters are not arithmetic: later editions skip l and o, so ranges such as
``601.2a-h`` are resolved against the rules an edition actually has, in document order.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any

from .records import FrozenRecord

if TYPE_CHECKING:
    from .textrefs import find_references

__all__ = [
    "MAX_SUB_DIGITS",
    "InvalidRuleReferenceError",
    "RuleNumber",
    "RuleRef",
    "find_references",
    "parse_rule_number",
    "parse_rule_ref",
]


def __getattr__(name: str) -> Any:
    # Finding references in text is for building and checking: a look-up by number never
    # loads it (index.textrefs).
    if name in ("TextReference", "find_references"):
        from . import textrefs

        return getattr(textrefs, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class InvalidRuleReferenceError(ValueError):
    """Raised when text is not a rule number or a rule reference."""


# Dashes that may separate the two ends of a range: hyphen-minus, en dash, em dash, minus sign.
DASHES = "-\u2010\u2011\u2012\u2013\u2014\u2212"

MAX_SUB_DIGITS = 4
"""The most digits the number after a rule's dot may have (the CR's longest have three): a
longer one is no rule number, and turning thousands of digits into an ``int`` is refused."""

_NUMBER_RE = re.compile(
    rf"(?:(?P<rule>\d{{3}})(?:\.(?P<sub>\d{{1,{MAX_SUB_DIGITS}}})(?P<letters>[a-z]{{1,2}})?)?"
    r"|(?P<section>\d))"
)


def _quoted(text: str) -> str:
    """``text`` as an error message quotes it: ``repr``, cut to 40 characters."""
    return repr(text) if len(text) <= 40 else repr(text[:37]) + "…"


class RuleNumber(FrozenRecord):
    """One rule number: a section, a rule, a numbered rule or a lettered subrule."""

    __slots__ = _fields = ("section", "rule", "sub", "letters")
    section: int
    """The section, 1 to 9 (the first digit of a rule)."""
    rule: int | None
    """The three-digit rule (``704``), or ``None`` for a section."""
    sub: int | None
    """The number after the dot (``5`` in ``704.5j``), or ``None``."""
    letters: str
    """The subrule letters (``j``, ``aa``), or ``""``."""

    def __init__(
        self, section: int, rule: int | None = None, sub: int | None = None, letters: str = ""
    ) -> None:
        # Unrolled, not FrozenRecord._init: numbers are made by the thousand.
        init = object.__setattr__
        init(self, "section", section)
        init(self, "rule", rule)
        init(self, "sub", sub)
        init(self, "letters", letters)

    @classmethod
    def from_match(cls, m: re.Match[str]) -> RuleNumber:
        """Builds a number from a match of the number pattern."""
        if m.group("section") is not None:
            return cls(int(m.group("section")))
        rule = int(m.group("rule"))
        sub = m.group("sub")
        return cls(
            rule // 100, rule, int(sub) if sub is not None else None, m.group("letters") or ""
        )

    @property
    def depth(self) -> int:
        """0 for a section, 1 for a rule, 2 for a numbered rule, 3 for a subrule."""
        if self.rule is None:
            return 0
        if self.sub is None:
            return 1
        return 3 if self.letters else 2

    def parent(self) -> RuleNumber | None:
        """The number one level up (``704.5j`` → ``704.5`` → ``704`` → ``7``), or ``None``."""
        if self.rule is None:
            return None
        if self.sub is None:
            return RuleNumber(self.section)
        if self.letters:
            return RuleNumber(self.section, self.rule, self.sub)
        return RuleNumber(self.section, self.rule)

    def is_within(self, other: RuleNumber) -> bool:
        """Checks if this number is ``other`` or one of its descendants."""
        node: RuleNumber | None = self
        while node is not None:
            if node == other:
                return True
            node = node.parent()
        return False

    def sort_key(self) -> tuple[int, int, int, int, str]:
        """A key that orders numbers as the rules are printed (z before aa)."""
        return (
            self.section,
            -1 if self.rule is None else self.rule,
            -1 if self.sub is None else self.sub,
            len(self.letters),
            self.letters,
        )

    def __lt__(self, other: RuleNumber) -> bool:
        return self.sort_key() < other.sort_key()

    def __str__(self) -> str:
        if self.rule is None:
            return str(self.section)
        if self.sub is None:
            return f"{self.rule}"
        return f"{self.rule}.{self.sub}{self.letters}"


def parse_rule_number(text: str) -> RuleNumber:
    """Parses a bare rule number such as ``704.5j``; ``str()`` is the inverse.

    >>> str(parse_rule_number("704.5J"))
    '704.5j'
    """
    cleaned = text.strip().lower()
    m = _NUMBER_RE.fullmatch(cleaned)
    if m is None:
        raise InvalidRuleReferenceError(f"invalid rule number: {_quoted(text)}")
    return RuleNumber.from_match(m)


class RuleRef(FrozenRecord):
    """A reference a user or a rule makes: one number, or a range of numbers."""

    __slots__ = _fields = ("start", "end", "with_subrules")
    start: RuleNumber
    """The rule named, or the first of a range."""
    end: RuleNumber | None
    """The last of a range, or ``None`` for a single rule."""
    with_subrules: bool
    """Whether the rules below ``start`` are meant too (a trailing period means the rule alone)."""

    def __init__(
        self, start: RuleNumber, end: RuleNumber | None = None, with_subrules: bool = True
    ) -> None:
        self._init(start, end, with_subrules)

    @property
    def is_range(self) -> bool:
        """Checks if this reference names a range of rules."""
        return self.end is not None

    def __str__(self) -> str:
        if self.end is None:
            return str(self.start) + ("" if self.with_subrules else ".")
        end = str(self.end)
        start = str(self.start)
        # Write "601.2a-h" when both ends share everything but the letters.
        if (
            self.end.letters
            and self.start.letters
            and (self.start.rule, self.start.sub) == (self.end.rule, self.end.sub)
        ):
            end = self.end.letters
        return f"{start}-{end}"


@functools.cache
def _ref_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    # Compiled on first use: a bare number ("704.5j", what is usually typed) needs neither.
    prefix_re = re.compile(r"^(?:rules?|sections?|cr|§)\s*", re.IGNORECASE)
    ref_re = re.compile(
        r"(?P<start>\d{3}(?:\.\d+[a-z]{0,2})?|\d)"
        r"(?:\s*[" + DASHES + r"]\s*(?P<end>\d{3}(?:\.\d+[a-z]{0,2})?|[a-z]{1,2}|\d))?"
        r"(?P<period>\.)?"
    )
    return prefix_re, ref_re


def range_end(start: RuleNumber, end_text: str) -> RuleNumber:
    """The end of a range that starts at ``start``: ``h`` in ``601.2a-h``, or a whole number."""
    if end_text.isalpha():
        if not start.letters or start.sub is None:
            raise InvalidRuleReferenceError(
                f"a range ending in letters needs a lettered start, not {start}"
            )
        end = RuleNumber(start.section, start.rule, start.sub, end_text)
    else:
        end = parse_rule_number(end_text)
    if end.depth != start.depth:
        raise InvalidRuleReferenceError(f"the ends of a range differ in kind: {start} and {end}")
    if end < start:
        raise InvalidRuleReferenceError(f"a range must run forwards: {start} comes after {end}")
    return end


def parse_rule_ref(text: str) -> RuleRef:
    """Parses what a user types for a rule: ``704.5j``, ``rule 704.5J``, ``704.5.``, ``601.2a-h``.

    A trailing period means the rule alone, without its subrules.
    """
    stripped = text.strip()
    if stripped[:1].isdigit():  # no prefix: perhaps a bare number, read as the pattern would
        bare = _NUMBER_RE.fullmatch(stripped.lower())
        if bare is not None:
            return RuleRef(RuleNumber.from_match(bare))
    prefix_re, ref_re = _ref_patterns()
    cleaned = prefix_re.sub("", stripped).strip().lower()
    m = ref_re.fullmatch(cleaned)
    if m is None:
        raise InvalidRuleReferenceError(f"invalid rule reference: {_quoted(text)}")
    start = parse_rule_number(m.group("start"))
    if m.group("end") is None:
        return RuleRef(start, None, with_subrules=m.group("period") is None)
    return RuleRef(start, range_end(start, m.group("end")), with_subrules=True)
