"""The priors read from a question's words (index.search.asks), on hits made here."""

from __future__ import annotations

from typing import Any

import pytest

from index.search import asks
from index.search.results import SearchResult


def _hit(score: float, kind: str, number: str | None, doc_id: str) -> tuple[float, dict[str, Any]]:
    return (score, {"kind": kind, "number": number, "id": doc_id})


@pytest.mark.parametrize(
    ("question", "sections"),
    [
        ("does my creature die?", {"704"}),
        ("Who WINS the game?", {"104"}),
        ("can I respond to the trigger?", {"117", "603"}),
        ("it resolves, then what?", {"608"}),
        ("would it be prevented instead?", {"616"}),
        ("is a state-based action checked here?", {"704"}),
        # Whole words only: "studies", "diet", "winter", "lifelose" cue nothing.
        ("she studies a diet in winter", set()),
        ("how many cards do I draw?", set()),
    ],
)
def test_the_words_of_a_question_cue_sections(question: str, sections: set[str]) -> None:
    assert asks.cued_sections(question) == sections


def test_a_cued_section_s_hits_rise_and_others_keep_their_score() -> None:
    hits = [
        _hit(10.0, "rule", "702.2b", "702.2b"),
        _hit(8.0, "rule", "704.5h", "704.5h"),
        _hit(7.0, "example", "704.5g", "704.5g#1"),
        _hit(6.0, "glossary", None, "glossary:Dies"),
    ]
    out = asks.prior(hits, "creature dies to it")  # four words: not a question
    assert [f["id"] for _, f in out] == ["704.5h", "704.5g#1", "702.2b", "glossary:Dies"]
    assert [s for s, _ in out] == [8.0 * 1.5, 7.0 * 1.5, 10.0, 6.0]


def test_in_a_question_a_glossary_entry_keeps_half_its_score() -> None:
    hits = [_hit(10.0, "glossary", None, "glossary:Token"), _hit(8.0, "rule", "111.1", "111.1")]
    assert asks.prior(hits, "what is a token") is hits  # a term lookup: as it was
    out = asks.prior(hits, "what happens to my token then?")
    assert [(s, f["id"]) for s, f in out] == [(8.0, "111.1"), (5.0, "glossary:Token")]


def test_nothing_to_apply_leaves_the_hits_as_they_are() -> None:
    hits = [_hit(3.0, "rule", "100.1", "100.1")]
    assert asks.prior(hits, "mulligan") is hits


def _result(doc_id: str, kind: str, score: float) -> SearchResult:
    return SearchResult(id=doc_id, kind=kind, number=None, term=None, score=score, snippet="")


def test_re_ranked_glossary_entries_give_way_in_a_question_scores_still_sorted() -> None:
    results = [
        _result("glossary:Dies", "glossary", 0.9),
        _result("704.5g", "rule", 0.8),
        _result("700.4", "rule", 0.3),
    ]
    out = asks.glossary_later(results, "does my creature die when it blocks?")
    assert [r.id for r in out] == ["704.5g", "glossary:Dies", "700.4"]
    assert [r.score for r in out] == [0.8, pytest.approx(0.45), 0.3]
    assert asks.glossary_later(results, "dies") == results
