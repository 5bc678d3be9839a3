"""Glossary lookup, the bundled sample's documents, and Markdown notes."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from glossary.entry import GlossaryEntry, normalise_term
from glossary.lookup import Glossary, UnknownTermError
from index.documents import name_paragraphs, read_markdown
from index.sample import load_sample
from judge_cli.cli import cli

from .conftest import corpus_document

ENTRIES = [
    GlossaryEntry("Legend Rule", "A state-based action. See rule 704.5j."),
    GlossaryEntry("Lethal Damage", "Enough damage."),
    GlossaryEntry("Life, Life Total", "A score."),
    GlossaryEntry("You/Your", "The controller."),
    GlossaryEntry("Banding (Obsolete)", "An old ability."),
    GlossaryEntry("Deathtouch", "A keyword ability."),
    GlossaryEntry("Owner’s Graveyard", "Where cards go."),
    GlossaryEntry("Legendary", 'A supertype. This "legend rule" is old.'),
    GlossaryEntry("First Strike", "A keyword ability."),
    GlossaryEntry("Two-Headed Giant Variant", "A multiplayer variant."),
    GlossaryEntry("Emperor Variant", "A team variant."),
    GlossaryEntry("Emperor", "The player in the middle."),
]


def _check(query: str, term: str, how: str) -> None:
    match = Glossary(ENTRIES).get(query)
    assert (match.entry.term, match.how) == (term, how)


@pytest.mark.parametrize(
    ("query", "term", "how"),
    [
        ("legend rule", "Legend Rule", "exact"),
        ("LEGEND RULE", "Legend Rule", "exact"),
        ("  legend   rule ", "Legend Rule", "exact"),
        ("lethal damages", "Lethal Damage", "plural"),
        ("life total", "Life, Life Total", "alias"),
        ("your", "You/Your", "alias"),
        ("banding", "Banding (Obsolete)", "exact"),
        ("Banding (obsolete)", "Banding (Obsolete)", "exact"),
        ("owner's graveyard", "Owner’s Graveyard", "exact"),
        ("deathtuch", "Deathtouch", "fuzzy"),
        ("first-strike", "First Strike", "alias"),
        ("two-headed giant", "Two-Headed Giant Variant", "alias"),
        ("two headed giant", "Two-Headed Giant Variant", "alias"),
        ("emperor", "Emperor", "exact"),  # an entry of its own wins over "Emperor Variant"
    ],
)
def test_lookup(query: str, term: str, how: str) -> None:
    _check(query, term, how)


def test_unknown_term_carries_suggestions() -> None:
    with pytest.raises(UnknownTermError) as caught:
        Glossary(ENTRIES).get("lethal")
    assert caught.value.suggestions == []
    with pytest.raises(UnknownTermError) as caught:
        Glossary(ENTRIES).get("legend ruling text")
    assert "Legend Rule" in caught.value.suggestions


def test_normalise_term() -> None:
    assert normalise_term("Owner’s  Graveyard (Obsolete)") == "owner's graveyard"


def test_sample_reads_all_three_seeds() -> None:
    doc = load_sample()
    assert [e.term for e in doc.glossary][:3] == ["Legend (Obsolete)", "Legendary", "Lethal Damage"]
    assert doc.glossary[-1].term == "Mana Burn"
    titles = [s.title for s in doc.sections if s.source == "Legends rulecard"]
    assert titles == [
        "Additional Rules for Legends",
        "Bands with Other (Creature Type)",
        "Rampage",
        "Multicolored Cards",
        "Enchant World",
        "Legends and Legendary Lands",
        "General Rules Clarifications",
    ]
    stripped = [s for s in doc.sections if s.title is None]
    assert len(stripped) == 25


def test_stripped_terms_are_named_from_a_cr_edition() -> None:
    doc = load_sample()
    stripped = [s for s in doc.sections if s.title is None]
    named = name_paragraphs(stripped, corpus_document("20070713").glossary)
    assert named == 22
    assert stripped[0].title == "Mana"
    assert stripped[6].title == "Mana Burn"


def test_markdown_notes_become_sections() -> None:
    text = (
        "Intro line.\n\n# Legend rule notes\n\nAsk who controls them.\n\n## Tokens\n\nCopies too.\n"
    )
    sections = read_markdown(text, "my notes")
    assert [(s.id, s.title, s.text) for s in sections] == [
        ("my-notes:introduction", None, "Intro line."),
        ("my-notes:legend-rule-notes", "Legend rule notes", "Ask who controls them."),
        ("my-notes:tokens", "Tokens", "Copies too."),
    ]


def test_index_build_stores_markdown_notes(judge_home: Path, tmp_path: Path) -> None:
    notes = tmp_path / "house-rules.md"
    notes.write_text("# Banding\n\nWe play it as printed.\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["index", "build", str(notes)])
    assert result.exit_code == 0, result.output
    assert result.output == "Stored notes house-rules: 1 section.\n"
    assert (judge_home / "notes" / "house-rules.md").read_text(encoding="utf-8").startswith("# B")


def test_edition_sample_names_stripped_paragraphs_from_stored_editions(judge_home: Path) -> None:
    from index import open_edition
    from index.store import EditionStore

    from .conftest import corpus_file

    assert CliRunner().invoke(cli, ["index", "build", str(corpus_file("20070713"))]).exit_code == 0
    sample = open_edition("sample")
    assert sample.is_sample
    stripped = [s for s in sample.document.sections if s.source.endswith("terms stripped")]
    assert sum(1 for s in stripped if s.title) == 22
    assert EditionStore.from_env().dates() == ["2007-07-13"]  # the sample is not stored
    result = CliRunner().invoke(cli, ["define", "mana burn", "--edition", "sample"])
    assert result.output.startswith("Mana Burn\n")


def test_a_term_cut_off_at_the_end_of_an_excerpt_is_not_a_definition() -> None:
    burn = next(e for e in load_sample().glossary if e.term == "Mana Burn")
    assert burn.definition.endswith("See rule 300.3.")
    assert "Mana Cost" not in burn.definition
