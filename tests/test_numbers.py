"""Rule numbers and references: parsing, printing, ranges, and references in text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from index.numbers import (
    InvalidRuleReferenceError,
    find_references,
    parse_rule_number,
    parse_rule_ref,
)


def _ref(text: str) -> str:
    return str(parse_rule_ref(text))


@pytest.mark.parametrize(
    ("typed", "canonical", "with_subrules", "is_range"),
    [
        ("704.5j", "704.5j", True, False),
        ("704.5", "704.5", True, False),
        ("704", "704", True, False),
        ("7", "7", True, False),
        ("rule 704.5j", "704.5j", True, False),
        ("Rule 704.5J", "704.5j", True, False),
        ("704.5J", "704.5j", True, False),
        ("704.5.", "704.5.", False, False),
        ("704.5aa", "704.5aa", True, False),
        ("601.2a-h", "601.2a-h", True, True),
        ("601.2a–601.2h", "601.2a-h", True, True),
        ("704.5a-704.5d", "704.5a-d", True, True),
        ("rules 702.19b–c", "702.19b-c", True, True),
        ("100-105", "100-105", True, True),
        ("  section 7 ", "7", True, False),
    ],
)
def test_parse_rule_ref(typed: str, canonical: str, with_subrules: bool, is_range: bool) -> None:
    ref = parse_rule_ref(typed)
    assert str(ref) == canonical
    assert ref.with_subrules is with_subrules
    assert ref.is_range is is_range


@pytest.mark.parametrize(
    "bad", ["", "foo", "70", "7045", "704.5j-a", "704.5-h", "704.5d-704.5a", "704.5abc", "704-5"]
)
def test_bad_references_raise(bad: str) -> None:
    with pytest.raises(InvalidRuleReferenceError):
        parse_rule_ref(bad)


def test_parents_and_order() -> None:
    number = parse_rule_number("704.5j")
    assert [str(n) for n in (number.parent(), number.parent().parent())] == ["704.5", "704"]  # type: ignore[union-attr]
    assert parse_rule_number("704.5z") < parse_rule_number("704.5aa")
    assert parse_rule_number("704.5") < parse_rule_number("704.5a")
    assert parse_rule_number("704.9") < parse_rule_number("704.10")
    assert parse_rule_number("704.5j").is_within(parse_rule_number("7"))


_letters = st.sampled_from([c for c in "abcdefghijkmnpqrstuvwxyz"])
_numbers = st.one_of(
    st.integers(1, 9).map(str),
    st.integers(100, 999).map(str),
    st.tuples(st.integers(100, 999), st.integers(1, 40)).map(lambda t: f"{t[0]}.{t[1]}"),
    st.tuples(
        st.integers(100, 999), st.integers(1, 40), _letters, st.one_of(st.just(""), _letters)
    ).map(lambda t: f"{t[0]}.{t[1]}{t[2]}{t[3]}"),
)


@given(_numbers)
def test_rule_numbers_round_trip(text: str) -> None:
    assert str(parse_rule_number(text)) == text
    assert str(parse_rule_ref(text)) == text
    assert str(parse_rule_ref(text + ".")) == text + "."


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("See rule 704.5j.", ["704.5j"]),
        ("(see rules 601.2a–h)", ["601.2a-h"]),
        ("See rule 613, “Interaction of Continuous Effects.”", ["613"]),
        ("see section 7, “Additional Rules.”", ["7"]),
        ("This is a state-based effect. See rule 420.5.", ["420.5"]),
        ("See rules 704.5a-704.5d and 704.6.", ["704.5a-d", "704.6"]),
        ("Each player starts with 20 life and 100 cards.", []),
        ("See rules 103, 104, and 105.", ["103", "104", "105"]),
        ("rules 702.19b–c", ["702.19b-c"]),
    ],
)
def test_find_references(text: str, found: list[str]) -> None:
    assert [str(r.ref) for r in find_references(text)] == found


def _by_pattern(text: str) -> str:
    """What the reference pattern alone reads ``text`` as (the bare-number shortcut skipped)."""
    from index.numbers import RuleRef, _ref_patterns, range_end

    prefix_re, ref_re = _ref_patterns()
    m = ref_re.fullmatch(prefix_re.sub("", text.strip()).strip().lower())
    if m is None:
        return "invalid"
    try:
        start = parse_rule_number(m.group("start"))
        if m.group("end") is None:
            return repr(RuleRef(start, None, with_subrules=m.group("period") is None))
        return repr(RuleRef(start, range_end(start, m.group("end"))))
    except InvalidRuleReferenceError:
        return "invalid"


def _read(text: str) -> str:
    try:
        return repr(parse_rule_ref(text))
    except InvalidRuleReferenceError:
        return "invalid"


@given(st.from_regex(r"\s?[0-9]{1,3}(\.[0-9]{0,6}[a-zA-Z]{0,3})?\.?\s?", fullmatch=True))
def test_bare_numbers_read_as_the_pattern_reads_them(text: str) -> None:
    assert _read(text) == _by_pattern(text)


@pytest.mark.parametrize("text", ["704.5j", " 704.5J ", "7", "704", "704.5.", "704.12345", "0"])
def test_bare_number_shortcut(text: str) -> None:
    assert _read(text) == _by_pattern(text)
