"""Finding rule references in rule and glossary text: ``704.5j``, ``rules 601.2a–h``.

Apart from :mod:`index.numbers` (which re-exports these names) because only building and
checking scan text: a rule looked up by number never compiles these patterns.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .numbers import DASHES, InvalidRuleReferenceError, RuleRef, parse_rule_number, range_end

__all__ = ["TextReference", "find_references"]


# References inside rule and glossary text. A number with a dot ("704.5j") is always a
# reference; a bare three-digit rule ("rule 613") or a section ("section 7") only after the word
# that introduces it, so that "20 life" or "100 cards" are never read as rules.
_TEXT_NUMBER = r"\d{3}\.\d+[a-z]{0,2}\b"


@functools.cache
def _text_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    # Compiled on first use: a rule lookup never scans text, and compiling costs start-up time.
    text_re = re.compile(
        r"(?P<dotted>(?<![\d.])" + _TEXT_NUMBER + r")"
        r"(?:\s*[" + DASHES + r"]\s*(?P<dotted_end>" + _TEXT_NUMBER + r"|[a-z]{1,2}\b))?"
        r"|(?P<word>\brules?|\bsections?)\s+(?P<bare>\d{3}|\d)\b(?!\.\d)"
        r"(?:\s*[" + DASHES + r"]\s*(?P<bare_end>\d{3}|\d)\b(?!\.\d))?",
        re.IGNORECASE,
    )
    list_tail_re = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+)(\d{3})\b(?!\.\d)")
    return text_re, list_tail_re


@dataclass(frozen=True)
class TextReference:
    """A rule reference found in text, with where it stands."""

    ref: RuleRef
    start: int
    end: int
    text: str


def find_references(text: str) -> list[TextReference]:
    """Finds every rule reference in ``text``: ``704.5j``, ``rules 601.2a–h``, ``section 7``."""
    text_re, list_tail_re = _text_patterns()
    found: list[TextReference] = []
    for m in text_re.finditer(text):
        try:
            if m.group("dotted"):
                start = parse_rule_number(m.group("dotted"))
                end_text = m.group("dotted_end")
                if end_text and end_text.isalpha() and not start.letters:
                    end_text = None  # "702.8-a" never happens; a word after a dash is prose
                ref = RuleRef(start, range_end(start, end_text) if end_text else None)
            else:
                word = m.group("word").lower()
                bare = m.group("bare")
                if word.startswith("section") and len(bare) != 1:
                    continue
                if word.startswith("rule") and len(bare) != 3:
                    continue
                start = parse_rule_number(bare)
                end_text = m.group("bare_end")
                ref = RuleRef(start, range_end(start, end_text) if end_text else None)
        except InvalidRuleReferenceError:
            continue
        span_end = (
            m.end() if ref.end is not None else m.start() + len(m.group("dotted") or m.group(0))
        )
        found.append(TextReference(ref, m.start(), span_end, text[m.start() : span_end]))
        # "rules 103, 104, and 105": the numbers after a plural "rules" are references too.
        if m.group("word") and m.group("word").lower() == "rules":
            pos = m.end()
            while (tail := list_tail_re.match(text, pos)) is not None:
                number = parse_rule_number(tail.group(1))
                found.append(
                    TextReference(RuleRef(number), tail.start(1), tail.end(1), tail.group(1))
                )
                pos = tail.end()
    return found
