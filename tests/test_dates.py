"""The effective-date parser shared by the CR reader, the rules update and the documents."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from index.dates import (
    MONTHS,
    find_document_date,
    find_effective_date,
    find_name_date,
    iso_date,
    parse_month,
    parse_name_date,
)
from index.fetch import sniff_edition

from .conftest import CORPUS_FILES

JUDGE_DOCS = Path(__file__).resolve().parents[2] / "shared" / "judge-docs"


def test_month_table() -> None:
    assert len(set(MONTHS.values())) == 12
    assert [parse_month(m) for m in ("January", "feb", "Sept", "sep.", "MAY", "Dec")] == [
        1,
        2,
        9,
        9,
        5,
        12,
    ]
    assert parse_month("Mai") is None
    assert parse_month("") is None


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((2025, 2, 7), "2025-02-07"),
        ((2024, 2, 29), "2024-02-29"),
        ((2023, 2, 29), None),  # no such day
        ((2025, 13, 1), None),
        ((1992, 1, 1), None),  # before the game
        ((2101, 1, 1), None),
    ],
)
def test_iso_date(args: tuple[int, int, int], expected: str | None) -> None:
    assert iso_date(*args) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("These rules are effective as of January 16, 2026.", "2026-01-16"),
        ("These rules are current as of July 13, 2007.", "2007-07-13"),  # before 2009
        ("these rules are EFFECTIVE as of february 7 2025", "2025-02-07"),  # case, no comma
        ("These rules are effective as of Feb. 7, 2025.", "2025-02-07"),  # abbreviated
        ("These rules are\r\neffective as of\r\nJuly 11, 2009.", "2009-07-11"),  # wrapped
        # An impossible date is skipped for the next one (the file repeats it after Credits).
        (
            "These rules are effective as of February 30, 2025. … "
            "These rules are effective as of February 7, 2025.",
            "2025-02-07",
        ),
        ("These rules are effective as of Smarch 7, 2025.", None),
        ("Effective May 13, 2024", None),  # a tournament document, not a CR
        ("The changes are effective as of May 1, 2025.", None),  # not the CR's own line
        ("", None),
    ],
)
def test_find_effective_date(text: str, expected: str | None) -> None:
    assert find_effective_date(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Magic: The Gathering Tournament Rules\nEffective May 13, 2024\n", "2024-05-13"),
        ("Judging at Regular\nUpdated September 25, 2020\n", "2020-09-25"),
        ("Infraction Procedure Guide\nEffective September 23, 2024", "2024-09-23"),
        ("Effective as of Apr. 15, 2024", "2024-04-15"),
        ("Updated on Sept 23 2024", "2024-09-23"),
        ("Effective: June 6, 2025", "2025-06-06"),
        ("This document is updated periodically. Effective May 13, 2024", "2024-05-13"),
        ("Effective Smarch 13, 2024", None),
        ("Effective immediately.", None),
        # As the tournament documents print them (the reader hands over the lines under the title).
        ("Effective May 13, 2024", "2024-05-13"),
        ("Effective July 26,2024", "2024-07-26"),
        ("Effective June 7. 2024", "2024-06-07"),
        ("Updated Sept 3, 2030", "2030-09-03"),
        ("updated: september 23, 2024", "2024-09-23"),
        ("Last updated September 23, 2024", "2024-09-23"),
        ("Current as of March 3, 2031", "2031-03-03"),
        ("Effective May 32, 2030", None),
        ("May 13, 2024", None),  # a date alone is a changes-list entry, not the effective date
    ],
)
def test_find_document_date(text: str, expected: str | None) -> None:
    assert find_document_date(text) == expected


@pytest.mark.parametrize(
    ("digits", "expected"),
    [
        ("20260116", "2026-01-16"),
        ("04102024", "2024-04-10"),  # month first
        ("070713", "2007-07-13"),  # YYMMDD
        ("031503", "2003-03-15"),  # MMDDYY
        ("202109224", "2021-09-24"),  # a doubled digit
        ("20251399", None),
        ("12345", None),
        ("2026O116", None),  # not digits
        ("²²²²²²²²", None),  # digits to str.isdigit, not to int()
    ],
)
def test_parse_name_date(digits: str, expected: str | None) -> None:
    assert parse_name_date(digits) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("MagicCompRules 20260116.txt", "2026-01-16"),
        ("MagicCompRules070713.txt", "2007-07-13"),
        ("MagicCompRules_CN2_Update_20160826.txt", "2016-08-26"),
        ("MagicCompRules 20250207 (1).txt", "2025-02-07"),  # a browser's second copy
        ("mtg_ipg_2024apr15_en.pdf", "2024-04-15"),
        ("MTG_IPG_2024Sep23_EN.pdf", "2024-09-23"),
        ("MTG_MTR_2025_Apr_21_EN.pdf", "2025-04-21"),
        ("mtg_jar_25sep20_en.pdf", "2020-09-25"),  # day, month, two-digit year
        ("MagicCompRules.txt", None),
        ("mtg_mtr_2024xyz15_en.pdf", None),
    ],
)
def test_find_name_date(name: str, expected: str | None) -> None:
    assert find_name_date(name) == expected


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=80), st.text("0123456789²٢ ,._-janfebsepSEPT", max_size=20)))
def test_any_text_gives_a_date_or_none(text: str) -> None:
    for found in (
        find_effective_date("These rules are effective as of " + text),
        find_document_date("Effective " + text),
        find_name_date(text),
        parse_name_date(text),
    ):
        assert found is None or iso_date(*map(int, found.split("-"))) == found


# --- real files ---------------------------------------------------------------------------------


def _corpus_files() -> list[Path]:
    if not CORPUS_FILES:
        if os.environ.get("CI"):
            pytest.fail("../shared/corpus is missing: CI must run the corpus tests")
        pytest.skip("../shared/corpus is not beside this clone (the real CR files live there)")
    return CORPUS_FILES


def test_every_corpus_edition_is_dated_by_its_text_and_its_first_bytes() -> None:
    from index.decode import decode_rules_bytes

    for path in _corpus_files():
        named = find_name_date(path.name)
        data = path.read_bytes()
        text, _encoding = decode_rules_bytes(data)
        assert find_effective_date(text) == named, path.name
        # The update reads the first 16 KiB; only the 1999 file dates itself at the end.
        assert sniff_edition(data[: 16 * 1024]) == (None if named == "1999-04-23" else named)


@pytest.mark.parametrize("name", ["mtr-20260227.txt", "ipg-20240923.txt", "jar-20240923.txt"])
def test_tournament_documents_are_dated_by_their_opening(name: str) -> None:
    path = JUDGE_DOCS / name
    if not path.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing: CI must run the real-data tests")
        pytest.skip("../shared/judge-docs is not beside this clone")
    opening = path.read_text(encoding="utf-8")[:500]
    assert find_document_date(opening) == find_name_date(name)
