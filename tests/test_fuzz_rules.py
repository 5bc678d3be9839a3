"""Fuzzing the readers of rules text: the CR reader, the glossary, Markdown notes, rule
references and cite-check, on arbitrary bytes and on real files cut, spliced and damaged.

The property (:func:`tests.fuzzkit.bounded`): each returns or raises the library's own error,
never another exception, within a bound of CPU time. The seeded cases are what fuzzing found
(or issue 16 reported) that no other test pinned; each names what it was.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from glossary.lookup import Glossary
from glossary.parse import parse_glossary_lines
from index.citecheck import check_citations, find_citations
from index.decode import split_lines
from index.documents import read_glossary_text, read_markdown, read_paragraphs, read_rulecard
from index.model import Document
from index.numbers import find_references, parse_rule_number, parse_rule_ref
from index.reader import read_cr_bytes, read_cr_path

from .conftest import FIXTURES
from .fuzzkit import (
    ANY_TEXT,
    bounded,
    check_error,
    cut_cr,
    decoded,
    fuzz_settings,
    mutated,
    shared_bytes,
)

MINI = FIXTURES / "mini-cr.txt"
ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def _mini() -> Document:
    return read_cr_path(MINI)


@functools.cache
def _real_crs() -> tuple[bytes, ...]:
    """Cut-down real CR files of every era and encoding (2026 UTF-8 with BOM and CRLF, 2018
    Windows-1252, 2007 Mac Roman with bare CR, 1999 hard-wrapped)."""
    names = ["cr-20260116.txt", "cr-20180713.txt", "cr-20070713.txt", "cr-19990423.txt"]
    return tuple(cut_cr(shared_bytes(f"corpus/{name}")) for name in names)


# -- the CR reader ------------------------------------------------------------------------------


def _read_cr(data: bytes) -> object:
    return bounded(lambda: read_cr_bytes(data, "fuzz.txt"), 3.0, what="read_cr_bytes")


def test_the_cut_down_files_are_still_read() -> None:
    for data in _real_crs():
        doc = read_cr_bytes(data)
        assert len(doc.rules) > 30 and len(doc.glossary) > 10


@fuzz_settings(150)
@given(st.data())
def test_cr_reader_on_damaged_real_files(data: st.DataObject) -> None:
    pool = list(_real_crs())
    base = data.draw(st.sampled_from(pool))
    _read_cr(data.draw(mutated(base, pool)))


@fuzz_settings(100)
@given(st.binary(max_size=2000))
def test_cr_reader_on_arbitrary_bytes(blob: bytes) -> None:
    _read_cr(blob)


@fuzz_settings(60)
@given(st.binary(max_size=600))
def test_cr_reader_on_bytes_inside_a_real_file(blob: bytes) -> None:
    base = _real_crs()[0]
    at = base.index(b"704.")
    _read_cr(base[:at] + blob + base[at:])


@fuzz_settings(4)
@given(st.data())
def test_cr_reader_on_whole_damaged_files(data: st.DataObject) -> None:
    base = shared_bytes("corpus/cr-20260116.txt")
    bounded(lambda: read_cr_bytes(data.draw(mutated(base)), "fuzz.txt"), 10.0)


# -- glossaries -----------------------------------------------------------------------------------


def _glossary_lines(data: bytes) -> list[str]:
    lines = split_lines(data.decode("utf-8-sig", "replace"))
    at = max(i for i, ln in enumerate(lines) if ln.strip() == "Glossary")
    return lines[at + 1 :]


def _glossary(text_lines: list[str], terms: list[str]) -> None:
    def run() -> None:
        entries, _ = parse_glossary_lines(text_lines, 0)
        glossary = Glossary(entries)
        for term in terms:
            try:
                glossary.get(term)
            except Exception as exc:
                check_error(exc)

    bounded(run, 3.0, what="the glossary")


@fuzz_settings(80)
@given(st.data())
def test_glossary_reader_on_damaged_real_glossaries(data: st.DataObject) -> None:
    base = _real_crs()[0]
    lines = _glossary_lines(base)
    damaged = decoded(data.draw(mutated("\n".join(lines).encode())))
    terms = data.draw(st.lists(ANY_TEXT, max_size=3))
    _glossary(split_lines(damaged), [*terms, "legend rule", "deathtuch"])


@fuzz_settings(80)
@given(st.lists(ANY_TEXT, max_size=30), st.lists(ANY_TEXT, min_size=1, max_size=4))
def test_glossary_lookup_of_arbitrary_terms(lines: list[str], terms: list[str]) -> None:
    _glossary(lines or ["Legend Rule", "A rule."], terms)


@fuzz_settings(60)
@given(st.data())
def test_excerpt_readers_on_damaged_seeds(data: st.DataObject) -> None:
    seeds = [shared_bytes(f"seeds/{name}") for name in _SEEDS]
    base = data.draw(st.sampled_from(seeds))
    text = decoded(data.draw(mutated(base, seeds)))
    for reader in (read_glossary_text, read_paragraphs, read_rulecard):
        bounded(lambda reader=reader: reader(text, "seed"), 2.0, what=reader.__name__)


_SEEDS = ["000_81a27208126c33ac.txt", "002_50f8f43f305e6e2c.txt", "003_d3eb685e9f8648e1.txt"]


# -- Markdown notes --------------------------------------------------------------------------------


@fuzz_settings(80)
@given(st.data())
def test_markdown_reader_on_damaged_real_markdown(data: st.DataObject) -> None:
    pool = [(ROOT / "README.md").read_bytes(), (ROOT / "docs" / "cli.md").read_bytes()]
    base = data.draw(st.sampled_from(pool))
    text = decoded(data.draw(mutated(base[:20000], pool)))
    bounded(lambda: read_markdown(text, "notes"), 3.0, what="read_markdown")


@fuzz_settings(80)
@given(ANY_TEXT)
def test_markdown_reader_on_arbitrary_text(text: str) -> None:
    bounded(lambda: read_markdown(text, "notes"), 2.0, what="read_markdown")


# -- rule references -----------------------------------------------------------------------------


def _references(text: str) -> None:
    def run() -> None:
        for word in text.split()[:50]:
            for parse in (parse_rule_ref, parse_rule_number):
                try:
                    parse(word)
                except Exception as exc:
                    check_error(exc)
        for found in find_references(text):
            assert text[found.start : found.end] == found.text
            str(found.ref)

    bounded(run, 2.0, what="rule references")


@fuzz_settings(150)
@given(ANY_TEXT)
def test_rule_references_in_arbitrary_text(text: str) -> None:
    _references(text)


@fuzz_settings(80)
@given(st.data())
def test_rule_references_in_damaged_real_rules(data: st.DataObject) -> None:
    base = shared_bytes("corpus/cr-20260116.txt")
    at = base.index(b"601.2")
    _references(decoded(data.draw(mutated(base[at : at + 6000]))))


# -- cite-check ------------------------------------------------------------------------------


def _cite_check(text: str, cpu: float = 3.0) -> None:
    def run() -> None:
        citations = find_citations(text)
        check_citations(citations, _mini())

    bounded(run, cpu, what="cite-check")


@fuzz_settings(80)
@given(ANY_TEXT)
def test_cite_check_of_arbitrary_text(text: str) -> None:
    _cite_check(text)


@fuzz_settings(80)
@given(st.data())
def test_cite_check_of_damaged_real_writing(data: st.DataObject) -> None:
    base = _real_crs()[0]
    at = base.index(b"704.")
    _cite_check(decoded(data.draw(mutated(base[at : at + 8000]))))


# -- seeded: what fuzzing found ---------------------------------------------------------------

_CR_NUMBER = "704." + "9" * 5000
SEEDED_TEXT = {
    # int() refuses more than 4,300 digits: a rule number that long was a ValueError traceback.
    "a rule number of 5,000 digits": _CR_NUMBER + " text",
    "a subrule number of 4,400 digits": "704.5" + "0" * 4400 + "a text",
    # Each citation scanned its whole line and every other citation on it: quadratic.
    "2,000 citations on one line": "See rule 704.5a. " * 2000,
    "8,000 citations in one sentence": "see 704.5a, " * 8000,
    "rules 103, 104, … 10,000 times": "See rules 103" + ", 104" * 10000 + ".",
}


@pytest.mark.parametrize("name", list(SEEDED_TEXT))
def test_seeded_text(name: str) -> None:
    text = SEEDED_TEXT[name]
    _references(text)
    _cite_check(text, 6.0)


def test_seeded_cr_with_a_rule_number_of_5000_digits() -> None:
    data = MINI.read_bytes()
    at = data.index(b"704.5j ")
    for number in (_CR_NUMBER, "704.5" + "0" * 4400 + "a"):
        outcome = _read_cr(data[:at] + number.encode() + b" text\r\n" + data[at:])
        assert isinstance(outcome, Document)
        assert any("number" in p.reason for p in outcome.problems)


def test_seeded_glossary_term_with_a_long_run_of_spaces() -> None:
    # normalise_term's "(Obsolete)" pattern scanned every space for each space: 20,000 spaces
    # took 4 s, and a glossary line or a `judge define` term can hold far more.
    term = "a" + " " * 200_000 + "b"
    _glossary(["Legend Rule", "A rule.", "", term, "Its definition."], [term, " " * 100_000])
