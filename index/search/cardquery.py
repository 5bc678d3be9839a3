"""A question that names cards, read with what the cards do (:class:`CardReading`).

With a card store (:class:`index.cards.mentions.CardNames`) a :class:`~index.search.Searcher`
reads the card names in a question (:mod:`index.search.cardnames`) before anything else. Each
name is taken out of the words searched: its words are the card's, not the rules' ("Death's
Shadow" is not about shadow, "Divine Transformation" not about transforming). In their place
come

* the card's signals (:mod:`index.search.cardsignals`: its keywords, types and abilities in
  the rules' words), OR-ed into the question at :data:`SIGNAL_BOOST`; in the coverage re-rank
  they count as the question's own words do;
* the name itself, as a phrase of the players' phrasings only (field ``asked``): the
  phrasings that name cards (``asked/cards-*.tsv``) still find their rule.

Without a card store, or when no name is found, the question is read as before.

Tried and not kept (2026-12-02; judge+cards success@5 / MRR on the real questions' tuning half
T, 0.696 / 0.482, the held-back half H, 0.422 / 0.289, and recall@5 / MRR on our halves A-P,
0.840 / 0.726): the named cards' rulings as words too (the real misses of kind card-names have
their deciding facts in the cards; rulings spell some out). The rulings of each card sharing
most stems with the question (2), their rarest words not in it (12, by count times idf) OR-ed
in at boost 0.3: T 0.630 / 0.491, H 0.444 / 0.293, ours 0.840 / 0.717; at 0.15, T 0.652 /
0.495, H 0.444 / 0.295, ours 0.845 / 0.719; at 0.5, T 0.609 / 0.486, H 0.400 / 0.279; one
ruling, T 0.609 / 0.497; three, T 0.652 / 0.460; 6 words, T 0.630 / 0.458, H 0.356 / 0.273; the
question's own words kept among them, T 0.652 / 0.490, H 0.444 / 0.291. T loses at success@5
everywhere, and so does the re-rank over it (T 0.630 / 0.499-0.506 at 0.15-0.3, against 0.696 /
0.514), though H's rises (0.511-0.533 / 0.384-0.394, against 0.511 / 0.372).

Tried too (2026-12-03, against judge+cards T 0.696 / 0.497, H 0.467 / 0.310, ours 0.838 /
0.724): the rulings as a bridge for any question, named cards or not (a ruling says in the
rules' words what a player tells: "March of the Machines makes them 0/0 creatures, which are
put into the graveyard as a state-based action", searched as a question, finds 704.5f
first). The first 3, 5 or 10 rulings the question finds, each one's text searched among the
rules, their first 3 or 5 rules added at 0.1-0.5 of their share of that search's best score
times the ruling's of the first ruling's (rulings under 0.6 of it skipped, or not): 48
settings, T 0.652-0.717 / 0.467-0.523, H 0.422-0.533 / 0.290-0.352, ours 0.810-0.850 /
0.647-0.725; the best for H (3 rulings, 3 rules, 0.35, skipped under 0.6) T 0.696 / 0.502,
H 0.467 / 0.352, ours 0.848 / 0.708; the best for T (10, 3, 0.5) H 0.489 / 0.297, ours 0.820
/ 0.657. Feedback drifts with the rulings a question's common words find (for the issue's
"my 0/0 artifact land thing, is it gone?", Revival Experiment's and Copy Artifact's before
March of the Machines', 5th: 704.5f stays out of the first 10), and it costs a search a
ruling. Not kept.
"""

from __future__ import annotations

import copy
import re
from typing import TYPE_CHECKING, Any, NamedTuple

from .cardnames import Mention, blank_out, find_mentions
from .cardsignals import Signal, signals_of
from .words import stem

if TYPE_CHECKING:
    from .cardnames import CardSource
    from .source import OpenIndex

__all__ = [
    "NAME_BOOST",
    "SIGNAL_BOOST",
    "SIGNAL_CAP",
    "CardReading",
    "card_parts",
    "read_cards",
    "shared_signals",
]

SIGNAL_BOOST = 1.0
"""Query-time boost of the words a named card stands for (the question's own words: 1).
Chosen on the tuning half of the real questions (odd ids) with our halves A-P beside it, among
0.25, 0.5, 0.75, 1 and 1.5 (with :data:`NAME_BOOST` 2.5), success@5 / MRR: 0.435 / 0.378,
0.435 / 0.390, 0.522 / 0.415, 0.522 / 0.419, 0.587 / 0.456 (A-P: 0.835 / 0.720 at 1, 0.833 /
0.717 at 1.5, both above the 0.825 / 0.711 of search without cards). Counting the cards' words
at half their weight in the coverage re-rank, or not at all, did worse at every boost; sharing
the boost among a question's signals when there are more than two or four, and lowering the
signals of abilities whose kind the question's words never touch, changed nothing that held."""
SIGNAL_CAP = 2.0
"""The most signal parts a question carries at full boost, per part of its own: beyond that
its signals share :data:`SIGNAL_BOOST` (a question of three words naming two cards with a
dozen keywords between them is about the question's words). Chosen on the tuning half of the
real questions (with the situation phrasings) among none, 1, 1.5, 2 and 3, success@5 / MRR:
0.652 / 0.463, 0.652 / 0.463, 0.674 / 0.467, 0.674 / 0.466, 0.652 / 0.463; the held-back half
(0.400 / 0.288) and our halves A-P (0.835 / 0.722) the same at 2 as without it."""
NAME_BOOST = 2.5
"""Boost of a card's name matched in the players' phrasings (chosen among 1, 1.5, 2.5 and 4
on the same halves: 2.5 and 4 alike, 1 lowest)."""


class CardReading(NamedTuple):
    """A question's card names, the question without them, and what the cards stand for."""

    mentions: list[Mention]
    text: str
    """The question with each name blanked out."""
    signals: list[Signal]
    """What the cards stand for, in the rules' words."""

    @property
    def names(self) -> list[str]:
        """The cards named, each once, in the order of the question."""
        seen: dict[str, None] = {}
        for m in self.mentions:
            for card in m.cards[:1]:
                seen.setdefault(card.name, None)
        return list(seen)

    @property
    def misspelt(self) -> dict[str, str]:
        """Each name read as a misspelling, as typed → the card's name ("Liquefy" → "Liquify")."""
        return {m.typed: m.cards[0].name for m in self.mentions if m.how == "misspelt"}

    def spelt(self, text: str) -> str:
        """``text`` with each card it names otherwise than by its name ("Liquefy" misspelt,
        "Animar" for Animar, Soul of Elements) named as its card spells it, unless the text
        names it so elsewhere: what a rulings index finds the card's rulings by."""
        low = text.casefold()
        for m in self.mentions:
            name = m.cards[0].name
            if m.how not in ("misspelt", "short") or name.casefold() in low:
                continue
            pattern = re.compile(rf"(?<!\w){re.escape(m.typed)}(?!\w)")
            text = pattern.sub(name.replace("\\", "\\\\"), text, count=1)
            low = text.casefold()
        return text


def read_cards(text: str, cards: CardSource, src: OpenIndex) -> CardReading | None:
    """The card names in ``text`` and what they stand for; ``None`` when it names none."""

    def is_rules_word(word: str) -> bool:
        return bool(src.doc_frequency("body", stem(word)))

    mentions = find_mentions(text, cards, is_rules_word)
    if not mentions:
        return None
    named = [card for m in mentions for card in m.cards[:1]]
    # A one-word name the rules use ("Mountain", "Flash") stays a word of the question too.
    blanked = [m for m in mentions if " " in m.typed.strip() or not is_rules_word(_bare(m.typed))]
    return CardReading(mentions, blank_out(text, blanked), signals_of(named))


def _bare(typed: str) -> str:
    """A one-word name as the index has it: lower case, no quotes, no possessive or plural."""
    word = typed.strip('"[]{}() ').lower().removesuffix("'s")
    return stem(word)


def _scaled(q: Any, boost: float) -> Any:
    """``q`` with the boost of each of its leaves multiplied by ``boost``."""
    from whoosh.query import Or

    return _boosted(q.subqueries if type(q) is Or and q.boost == 1.0 else [q], boost)


def _boosted(parts: list[Any], boost: float) -> list[Any]:
    """Copies of ``parts``, each with its boost multiplied by ``boost`` (shallow: a part's
    subqueries are shared, never changed; whoosh's ``copy`` is a deep one, a tenth of a
    warm question naming cards)."""
    out = []
    for part in parts:
        part = copy.copy(part)
        part.boost = part.boost * boost
        out.append(part)
    return out


def card_parts(src: OpenIndex, reading: CardReading) -> tuple[list[Any], list[Any]]:
    """The query parts for the cards: (signal parts, name parts in the phrasings)."""
    from whoosh.query import Phrase, Term

    from .query import QuerySyntaxError, parse

    signal_parts: list[Any] = []
    if reading.signals:
        try:
            q = parse(src, " ".join(f"({s.words})" for s in reading.signals))
        except QuerySyntaxError:
            q = None
        if q is not None:
            signal_parts = _scaled(q, SIGNAL_BOOST)
    name_parts: list[Any] = []
    field = src.schema["asked"]
    for m in reading.mentions:
        words = list(field.process_text(m.typed.strip('"[]{}() '), mode="query"))
        if len(words) > 1:
            name_parts.append(Phrase("asked", words, boost=NAME_BOOST))
        elif words:
            name_parts.append(Term("asked", words[0], boost=NAME_BOOST))
    return signal_parts, name_parts


def shared_signals(signal_parts: list[Any], own_count: int) -> list[Any]:
    """``signal_parts`` with their boosts shared when there are more than :data:`SIGNAL_CAP`
    per part of the question's own (``own_count``); as they are otherwise."""
    if not own_count or len(signal_parts) <= SIGNAL_CAP * own_count:
        return signal_parts
    return _boosted(signal_parts, SIGNAL_CAP * own_count / len(signal_parts))
