"""Word order in the coverage re-rank (index.search.proximity), on a small rules file of our own."""

from __future__ import annotations

from pathlib import Path

import pytest

from index.reader import read_cr_text
from index.search import build_search_index, search
from index.search import proximity as px

# Two rules with the same words, one with "combat damage" side by side, the other with the two
# words apart; the one apart comes first in the file, so a tie keeps it first.
RULES = """Magic: The Gathering Comprehensive Rules

These rules are effective as of March 1, 2030.

Contents

1. Game Concepts
100. General
5. Turn Structure
510. Combat Damage Step
Glossary
Credits

1. Game Concepts

100. General

100.1. These rules apply to any game.

100.2. To play, each player needs their own deck.

100.3. Some games use dice, counters or tokens.

100.4. Each player may have a sideboard.

100.5. There is no maximum deck size.

5. Turn Structure

510. Combat Damage Step

510.1. Each attacking creature and each blocking creature assigns combat damage.

510.1a Damage from a blocking creature is dealt in combat order as its controller chooses.

510.1b Combat damage from a blocking creature is dealt in order as its controller chooses.

Glossary

Credits

Magic: The Gathering
"""
QUESTION = "is combat damage from a blocking creature dealt in order"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("proximity")
    build_search_index(read_cr_text(RULES), out)
    return out


def _ids(folder: Path) -> list[str]:
    return [r.id for r in search(folder, QUESTION, limit=5).results]


def test_words_side_by_side_rank_above_words_apart(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(px, "PROXIMITY", 0.0)
    off = _ids(folder)
    monkeypatch.setattr(px, "PROXIMITY", 0.5)
    on = _ids(folder)
    # Without the factor the two rules tie on their words and the one first in the file comes first.
    assert off.index("510.1a") < off.index("510.1b")
    assert on.index("510.1b") < on.index("510.1a")


def test_question_pairs_skip_stop_words_and_sentence_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(px, "PROXIMITY", 0.5)
    concepts = [(frozenset({s}), 1.0) for s in ("combat", "damag", "enter", "battlefield")]
    pairs = dict(px.question_pairs("Combat damage? It enters the battlefield.", concepts))
    assert set(pairs) == {("combat", "damag"), ("battlefield", "enter")}


def test_a_hit_gains_its_share_of_the_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(px, "PROXIMITY", 0.5)
    monkeypatch.setattr(px, "WINDOW", 1)
    pairs: list[tuple[px.Pair, float]] = [(("combat", "damag"), 3.0), (("first", "strike"), 1.0)]
    assert px.proximity({"body": "deals combat damage"}, pairs) == pytest.approx(1.375)
    assert px.proximity({"body": "damage dealt in combat"}, pairs) == 1.0
    assert px.proximity({"title": "First strike", "body": "combat damage"}, pairs) == 1.5
    monkeypatch.setattr(px, "WINDOW", 3)
    assert px.proximity({"body": "damage dealt in combat"}, pairs) == pytest.approx(1.375)
    assert px.proximity({"body": "no pairs here"}, []) == 1.0
