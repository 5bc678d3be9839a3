"""Reading every real CR edition in ../shared/corpus: dates, counts, known texts, problems."""

from __future__ import annotations

import re
import string

import pytest

from index.decode import decode_rules_bytes, split_lines
from index.xref import build_xrefs

from .conftest import corpus_document, corpus_file

# (file date, effective date as ISO, lettered subrules of the SBA list it must have)
EDITIONS = [
    ("19990423", "1999-04-23"),
    ("20030315", "2003-03-15"),
    ("20070501", "2007-05-01"),
    ("20070713", "2007-07-13"),
    ("20090711", "2009-07-11"),
    ("20130713", "2013-07-13"),
    ("20180713", "2018-07-13"),
    ("20220429", "2022-04-29"),
    ("20250207", "2025-02-07"),
    ("20251114", "2025-11-14"),
    ("20260116", "2026-01-16"),
]

# Lines the published files get wrong, each explained: the reader reports them and reads on.
KNOWN_PROBLEMS = {
    # 2007: rule 432.2 itself is missing from both 2007 files; only 432.2b is printed.
    "20070501": {
        (1479, "rule 432.2b comes before its parent 432.2"),
        # the file prints "606. 8b" for 606.8b
        (2533, "number printed as 606. 8b; read as 606.8b"),
    },
    "20070713": {(1484, "rule 432.2b comes before its parent 432.2")},
    # 2009 prints "702. 37a" and "702. 37b" for Storm's subrules 702.37a and 702.37b.
    "20090711": {
        (2576, "number printed as 702. 37a; read as 702.37a"),
        (2578, "number printed as 702. 37b; read as 702.37b"),
    },
}

_NUMBERED_LINE = re.compile(r"^\s*(\d{3})\.\s?(\d+[a-z]{0,2})\.?\s")


def _independent_counts(date: str) -> tuple[int, int]:
    """Counts numbered rules and glossary terms straight from the lines, without the reader."""
    text, _ = decode_rules_bytes(corpus_file(date).read_bytes())
    lines = split_lines(text)
    glossary = [i for i, ln in enumerate(lines) if ln.strip() == "Glossary"][-1]
    credits = next(i for i in range(glossary, len(lines)) if lines[i].strip() == "Credits")
    numbered = {
        f"{m.group(1)}.{m.group(2)}" for ln in lines[:glossary] if (m := _NUMBERED_LINE.match(ln))
    }
    terms = 0
    for i in range(glossary + 1, credits):
        line = lines[i]
        if not line.strip() or line[:1].isspace() or set(line.strip()) <= set("-="):
            continue
        previous = lines[i - 1].strip()
        if previous and not set(previous) <= set("-="):
            continue
        if line.strip() == "Index":  # 1999: the glossary is followed by an index
            break
        terms += 1
    return len(numbered), terms


@pytest.mark.parametrize(("date", "iso"), EDITIONS)
def test_edition_reads_with_counts(date: str, iso: str) -> None:
    doc = corpus_document(date)
    assert doc.edition == iso
    numbered, terms = _independent_counts(date)
    assert sum(1 for n in doc.rules if "." in n) == numbered
    assert len(doc.glossary) == terms
    assert doc.introduction
    assert doc.credits


@pytest.mark.parametrize(("date", "iso"), EDITIONS)
def test_only_explained_problems(date: str, iso: str) -> None:
    doc = corpus_document(date)
    assert {(p.line, p.reason) for p in doc.problems} == KNOWN_PROBLEMS.get(date, set())


@pytest.mark.parametrize(
    ("date", "number", "text"),
    [
        (
            "20250207",
            "704.5j",
            "If two or more legendary permanents with the same name are controlled by the same "
            "player, that player chooses one of them, and the rest are put into their owners’ "
            "graveyards. This is called the “legend rule.”",
        ),
        (
            "20130713",
            "704.5k",
            "If a player controls two or more legendary permanents with the same name, that "
            "player chooses one of them, and the rest are put into their owners' graveyards. "
            'This is called the "legend rule."',
        ),
        (
            "20070713",
            "420.5e",
            "If two or more legendary permanents with the same name are in play, all are put "
            'into their owners\' graveyards. This is called the "legend rule." If only one of '
            "those permanents is legendary, this rule doesn't apply.",
        ),
        (
            "20030315",
            "420.5e",
            "If two or more Legends or legendary permanents with the same name are in play, all "
            "except the one that has been a Legend or legendary permanent with that name the "
            'longest are put into their owners\' graveyards. This is called "the Legend rule." '
            "In the event of a tie, each Legend or legendary permanent with the same name is put "
            "into its owner's graveyard. (If two permanents have the same name but only one is a "
            "Legend or is legendary, this rule doesn't apply.)",
        ),
        # 1999 is hard-wrapped and indented: the reader joins the lines.
        (
            "19990423",
            "420.5b",
            "A creature with toughness 0 is put into its owner's graveyard. Regeneration can't "
            "replace this event.",
        ),
        ("20090711", "704", "State-Based Actions"),
        ("20180713", "7", "Additional Rules"),
    ],
)
def test_known_rule_text(date: str, number: str, text: str) -> None:
    assert corpus_document(date).get_rule(number).text == text


def test_windows_1252_quotes_are_decoded() -> None:
    rule = corpus_document("20180713").get_rule("704.5j")
    assert "owners’ graveyards" in rule.text and "“legend rule.”" in rule.text
    assert "\ufffd" not in "".join(r.text for r in corpus_document("20180713"))


@pytest.mark.parametrize(
    ("date", "word"),
    [
        ("20130713", "Æther Storm"),  # code page 437
        ("20130713", "Dandân"),
        ("20070501", "El-Hajjâj"),  # code page 437
        ("20070713", "El-Hajjâj"),  # Mac Roman, in a classic-Mac (bare CR) file
    ],
)
def test_stray_single_bytes_decode_per_file(date: str, word: str) -> None:
    text, _ = decode_rules_bytes(corpus_file(date).read_bytes())
    assert word in text


@pytest.mark.parametrize("date", [d for d, _ in EDITIONS if d >= "20090711"])
def test_sba_letters_skip_l_and_o(date: str) -> None:
    doc = corpus_document(date)
    letters = [n.removeprefix("704.5") for n in doc.children("704.5")]
    expected = [c for c in string.ascii_lowercase if c not in "lo"][: len(letters)]
    assert letters == expected
    assert len(letters) >= 16


def test_range_resolves_to_exactly_those_subrules() -> None:
    doc = corpus_document("20250207")
    got = [r.number for r in doc.resolve("601.2a-h")]
    assert got == [f"601.2{c}" for c in "abcdefgh"]
    assert [r.number for r in doc.resolve("601.2a–601.2h")] == got


def test_examples_attach_to_their_rule() -> None:
    doc = corpus_document("20250207")
    rule = doc.get_rule("704.8")
    assert rule.examples[0].startswith("You control Young Wolf")
    # every "Example:" line of the file is an example of some rule
    assert sum(len(r.examples) for r in doc) == 274
    assert not any(r.text.startswith("Example:") or "\nExample:" in r.text for r in doc)


def test_1999_uppercase_examples_are_examples() -> None:
    doc = corpus_document("19990423")
    examples = [e for r in doc for e in r.examples]
    assert len(examples) > 20
    assert not any("EXAMPLE:" in r.text for r in doc)


def test_glossary_senses_are_not_sections() -> None:
    doc = corpus_document("20250207")
    entry = next(e for e in doc.glossary if e.term == "Ability")
    assert entry.definition.startswith("1. Text on an object")
    assert entry.see == ["113", "6"]
    assert doc.glossary[-1].term == "Zone-Change Triggers"


def test_legend_rule_is_cited_by_its_glossary_entry() -> None:
    xrefs = build_xrefs(corpus_document("20250207"))
    assert "glossary:Legend Rule" in xrefs.cited_by["704.5j"]
    assert "704.5j" in xrefs.cites["glossary:Legend Rule"]


def test_dangling_references_in_a_real_edition() -> None:
    # The February 2025 file really does cite rules it lacks: 901.3a names 901.4 and the
    # glossary's "Map" entry names 110.10.
    xrefs = build_xrefs(corpus_document("20250207"))
    assert {(d.source, d.text) for d in xrefs.dangling} == {
        ("901.3a", "901.4"),
        ("glossary:Map", "110.10"),
    }


def test_old_numbering_references_resolve() -> None:
    xrefs = build_xrefs(corpus_document("20070713"))
    assert "420.5e" in xrefs.cited_by
