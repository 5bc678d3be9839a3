"""Players' phrasings indexed with the rules they ask about (index/search/phrasings.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from index.reader import read_cr_path
from index.search import build_ram_index, search_documents
from index.search import phrasings as module
from index.search.phrasings import all_asked, asked_for, read_asked

from .conftest import corpus_file

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "tests" / "fixtures" / "mini-cr.txt"

PHRASINGS = """\
# test phrasings
704.5b\tdraw a card from a library\tcan i deck out if my library is empty
704.5b\tdraw a card from a library\tforced to draw off an empty deck
704.5f\ttoughness 0 or less\tmy guy shrank to zero, is he gone
999.9b\tten or more poison counters\tinfect kill at 10
704.5a\tno such words in the rule\tthis one is left out
"""


@pytest.fixture
def phrasings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "asked"
    folder.mkdir()
    (folder / "part.tsv").write_text(PHRASINGS, encoding="utf-8")
    monkeypatch.setattr(module, "ASKED_DIR", folder)
    module._files.cache_clear()
    yield folder
    module._files.cache_clear()


def test_phrasings_attach_by_number_and_signature(phrasings: Path) -> None:
    found = asked_for(read_cr_path(MINI))
    assert found["704.5b"] == [
        "can i deck out if my library is empty",
        "forced to draw off an empty deck",
    ]
    # Curly apostrophe in the rule ("it’s"), none needed in the signature.
    assert found["704.5f"] == ["my guy shrank to zero, is he gone"]
    # A number the edition lacks: attached to the one rule whose text has the signature.
    assert found["704.5c"] == ["infect kill at 10"]
    # A signature the rule of that number lacks (and no other rule has): left out.
    assert "704.5a" not in found


def test_a_phrasing_finds_its_rule_and_reports_the_rule(phrasings: Path) -> None:
    ix = build_ram_index(read_cr_path(MINI))
    found = search_documents(ix, "deck out", limit=3)
    assert found.results[0].id == "704.5b"
    assert found.results[0].kind == "rule"
    assert "library with no cards" in found.results[0].snippet
    ids = [r.id for r in search_documents(ix, "deck out", limit=10, scope="rules").results]
    assert ids.count("704.5b") == 1


def test_bad_row_names_its_file_and_line() -> None:
    with pytest.raises(ValueError, match=r"part\.tsv, line 2: expected number<TAB>signature"):
        read_asked("# ok\n704.5b\tonly two fields\n", "part.tsv")
    with pytest.raises(ValueError, match="line 1"):
        read_asked("rule 704\tsig\tquestion\n", "part.tsv")


def test_no_phrasing_files_no_phrasings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(module, "ASKED_DIR", tmp_path / "missing")
    module._files.cache_clear()
    try:
        assert asked_for(read_cr_path(MINI)) == {}
    finally:
        module._files.cache_clear()


def test_shipped_phrasings_fit_the_2026_rules() -> None:
    """Every shipped phrasing names a rule of the 2026-01-16 edition whose text has its
    signature, and no phrasing names a rule number (the phrasings are players' words)."""
    rows = all_asked()
    assert len(rows) >= 500
    doc = read_cr_path(corpus_file("20260116"))
    attached = asked_for(doc)
    for a in rows:
        assert a.number in doc.rules, a
        assert a.phrasing in attached.get(a.number, []), a
        assert not re.search(r"\b\d{3}\.\d", a.phrasing), a
