"""What kind of thing a question asks, read from its words: small priors on the ranking.

A player asks "does it die?", "who wins?", "can I respond?" about a situation the rules settle
in a few sections of their own: 104 Ending the Game, 117 Timing and Priority, 603 Handling
Triggered Abilities, 608 Resolving Spells and Abilities, 616 Interaction of Replacement and/or
Prevention Effects and 704 State-Based Actions. A question whose words name what one of those
sections is about (:data:`SECTION_CUES`, written from the sections' titles and the words
players use for them) raises that section's hits by :data:`CUED`.

A question (:data:`QUESTION_WORDS` words or more) is answered by a rule, not by a glossary
entry defining one of its words ("Dies", "Token"): there a glossary entry keeps
:data:`GLOSSARY_IN_QUESTIONS` of its score. An entry still lends its full score to the rule it
names (:func:`index.search.rank.lend`), and a search of a term or two finds the entry as before.


Tried beside these (2026-12-01; success@5 / MRR on the real questions' tuning half T, then the
held-back half H, then recall@5 / MRR on our halves A–P; judge+cards+sem unless named, which
was T 0.652 / 0.493, H 0.533 / 0.347, ours 0.869 / 0.738 on the same pools), none kept:

* at most one hit per rule (704.5 and its lettered rules) in the first five: T 0.587 / 0.481,
  H 0.533 / 0.351, ours 0.843 / 0.734; at most two: T 0.630 / 0.491, H 0.533 / 0.347, ours
  0.866 / 0.738; at most three per section: T 0.652 / 0.493, H 0.556 / 0.351, ours 0.860 / 0.738;
* a rule raised to its best lettered rule's score when two or more of them are in the pool:
  T 0.696 / 0.525, H 0.533 / 0.357, ours 0.863 / 0.731 (judge: ours 0.831 → 0.807); after
  these priors, in the re-rank only: T 0.717 / 0.529, H 0.533 / 0.364, ours 0.866 / 0.741,
  judge+sem's H 0.556 → 0.533. A rule counts for its lettered rules in the real questions'
  scoring and not in ours: most of that lift is the scoring's;
* how often the rules cite a rule (``index.xref``), x (1 + 0.1 ln(1 + citations)) on the
  lexical score: judge T 0.478 / 0.356 → 0.478 / 0.389, H 0.422 / 0.283 → 0.444 / 0.283, ours
  0.831 / 0.715 → 0.835 / 0.717, but judge+cards+sem T 0.609 / 0.494; + 0.05 of it (scaled to
  the most cited) on the re-ranked score: T 0.652 / 0.493, H 0.533 / 0.356, ours 0.876 / 0.738,
  judge+sem H 0.556 / 0.371 → 0.533 / 0.374;
* a rule's depth (a lettered rule or not) x 0.95–1.1: T 0.630–0.652 / 0.490–0.493, ours
  0.868–0.871;
* "2/2", "0/0" read as power and toughness: in the query (the words added), judge T 0.478 /
  0.356 → 0.457 / 0.353 (H unchanged), judge+cards+sem T unchanged, H 0.556 / 0.353, ours
  0.871 / 0.737; in the text embedded only
  ("0/0 (power 0, toughness 0)"), no question of T or H changed place, though the issue's
  "my 0/0 artifact land thing, is it gone?" finds 704.5f 31st by cosine instead of 191st;
* more cue words (603: order; 704: destroyed; 117: before, window; 104: a draw, concede; 613:
  layer, timestamp; 400: new object, zone): nothing on T changed; the cue added to the re-ranked
  score instead of the lexical one (0.03–0.1): nothing on T changed.

Tried for lexical search alone (2026-12-01; success@5 / MRR on T, recall@5 / MRR on ours A–P,
judge then judge+cards; today judge T 0.522 / 0.373, ours 0.830 / 0.717, judge+cards T 0.696 /
0.482, ours 0.840 / 0.726), none lifting T, so H not scored:

* the rules the first 1, 3 or 5 rules cite ("see rule 613.1") raised to 0.3–0.8 of the citing
  rule's score (fetched when missing): judge T 0.478–0.522 / 0.370–0.373, ours 0.820–0.830 /
  0.711–0.716; judge+cards T 0.630–0.696 / 0.468–0.482, ours 0.831–0.840 / 0.720–0.726;
* pseudo-relevance feedback inside the pool (RM3-like): the 10–40 rarest words of the first
  2, 3 or 5 hits that the question lacks, each hit x (1 + 0.3–1.0 of its idf-weighted share of
  them, a feedback hit counting only the other feedback hits' words): judge T 0.522 /
  0.361–0.379, ours 0.835–0.840 / 0.701–0.716; judge+cards T 0.674–0.696 / 0.461–0.483, ours
  0.838–0.843 / 0.710–0.725;
* the share of the first 5–30 hits in a hit's section, x (1 + 0.3–1.0 of it): judge T
  0.478–0.522 / 0.361–0.376, ours 0.828–0.836 / 0.711–0.724; judge+cards T 0.674–0.696 /
  0.453–0.475, ours 0.835–0.846 / 0.723–0.735;
* word order (a sequential-dependence factor, Metzler & Croft 2005): each pair of adjacent
  content words of the question found within 1–3 words of each other in a hit (pairs, or
  pairs and triples; in either order or the question's; idf-weighted or alike), the hit x
  (1 + 0.1–2.0 of its share of the pairs), in the coverage re-rank: judge T 0.522 /
  0.371–0.389, ours 0.830–0.838 / 0.705–0.716; judge+cards T 0.674–0.696 / 0.480–0.500, ours
  0.840–0.848 / 0.715–0.726; judge+sem T 0.500 / 0.447–0.450; judge+cards+sem T 0.674 /
  0.496–0.498. success@5 on T never rose (T's outranked misses are long situations whose
  answer is not in the first 21 at any setting). H, scored once for the variant chosen on T
  and ours (0.5, window 2, pairs alike): judge 0.291 → 0.286 MRR, judge+cards 0.422 → 0.467
  success@5, the semantic engines unchanged. Not kept; it cost warm search ~0.5 ms (p95 8.3 →
  9.0). The code and its sweep (``benchmarks/proximity_sweep.py``) are in history at 2ea6caf.

Tried for lexical search alone (2026-12-02; success@5 / MRR on T, then H and recall@5 / MRR
on ours A–P as written for what lifted T; judge, which was T 0.522 / 0.373, H 0.422 / 0.291,
ours 0.830 / 0.717):

* the words of the sentences that ask (ending in "?" or starting with can, does, do, is,
  will, what, how, who, when, if; only when other sentences tell a story: 26 questions of T)
  as whoosh term boosts, x 1.2, 1.5, 2.0: T 0.478 / 0.369, 0.500 / 0.375, 0.500 / 0.374;
  boosts and coverage share both x 1.2–2.0: T 0.435–0.500 / 0.309–0.371; the coverage share
  alone x 1.1–2.0: T 0.478–0.522 / 0.373–0.377 (x 1.5: 0.522 / 0.377, H 0.422 / 0.280, ours
  0.828 / 0.717, not kept); "?" alone or with the first words: T alike. At x 1.25: T 0.522 /
  0.375, H 0.422 / 0.302, ours 0.830 / 0.717 (one question of T up from 9th to 5th, one down
  from 5th to 6th: within a question's noise); merged, then measured with the re-rank drawing
  on the same first results at any limit (all 91: judge 0.473 / 0.333 → 0.473 / 0.339,
  judge+cards 0.560 / 0.387 → 0.571 / 0.387, judge+cards+sem 0.604 / 0.438 → 0.604 / 0.433),
  it lowered H's MRR with the re-rank (judge+sem 0.375 → 0.366, judge+cards+sem 0.366 →
  0.354): not kept (2026-12-02);
* verbs as the rules write them: the base form of an irregular one (simplemma: "dealt" OR
  "deal", "came" OR "come") beside it in the query: T 0.500 / 0.366, H 0.422 / 0.286, ours
  0.828 / 0.712; the phrase tables' inflections for SHORTHAND keys too ("died", "dying" for
  "die", "flickered") and "die" → "dying": T and H unchanged, ours 0.830 / 0.716. No miss of T
  was a form the tables failed to match (the situation and players'-words misses left, r067
  and r075, are "mutated", which the tables leave out on purpose, and "out of the game",
  matched);
* BM25F's K1 (0.6–2.0) and B (0.3–0.9) on a grid, whoosh's 1.2 and 0.75 until then: T 0.457–
  0.522 / 0.335–0.386, none above 0.522 at success@5; K1 2.0, B 0.5 (0.522 / 0.378): H 0.422 /
  0.269, ours 0.836 / 0.713; a title's or a body's own B (0–1, 0.5–0.9): T 0.500–0.522 /
  0.354–0.378;
* query-time field boosts (:data:`index.search.query.FIELD_BOOSTS`) in every query: title
  0.5–2.0, T 0.478–0.522 / 0.351–0.394; term 0.25–1.0, no lift; asked 1.55–2.0 or body
  0.8–0.95, T up to 0.543 / 0.417 with or without the asked share (body 0.85: T 0.522 /
  0.405, H 0.422 / 0.303, ours 0.838 / 0.716), but "protection DEBT" lost 702.16b and 702.16c
  from its first eight at any of them (a pinned test). As a question's body weight only
  (questions of 5 words or more), with the asked share: 0.95, 0.925, 0.9, 0.875: T 0.543 /
  0.380, 0.396, 0.397, 0.398; judge+cards+sem T 0.696 / 0.499 at 1.0 (the asked share alone),
  0.696 / 0.503 at 0.925, 0.696 / 0.505 at 0.9, 0.674 / 0.502 at 0.875. At 0.9, judge H
  0.422 / 0.305, ours 0.835 / 0.718, but each engine a user with cards or the model runs lost
  a question of H's first five (judge+cards H 0.422 → 0.400, judge+sem 0.556 → 0.533,
  judge+cards+sem 0.533 → 0.511) and ours with the re-rank fell (0.871 / 0.748 → 0.868 /
  0.745): not kept (2026-12-02);
* the section cues (:data:`SECTION_CUES`) read from the sentences that ask alone, in a
  question that tells a story (with the two above): T 0.543 / 0.398 → 0.522 / 0.395;
* an example's score x 0.6–1.5 (it stands for its rule): T 0.478–0.522 / 0.366–0.391 (x 0.9:
  0.522 / 0.385); with body 0.85 in every query, x 0.8–0.9: T 0.500 / 0.416–0.419. Not kept.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .words import LazyPattern

if TYPE_CHECKING:
    from .results import SearchResult

Hits = list[tuple[float, dict[str, Any]]]

SECTION_CUES: dict[str, frozenset[str]] = {
    section: frozenset(words.split())
    for section, words in {
        # 104 Ending the Game: winning, losing.
        "104": "win wins won winning winner lose loses lost losing",
        # 117 Timing and Priority: answering a spell or ability before it resolves.
        "117": "respond responds responding response priority",
        # 603 Handling Triggered Abilities.
        "603": "trigger triggers triggered triggering",
        # 608 Resolving Spells and Abilities.
        "608": "resolve resolves resolved resolving resolution",
        # 616 Interaction of Replacement and/or Prevention Effects.
        "616": "instead replacement replace replaces prevent prevents prevention",
        # 704 State-Based Actions: what the game checks for, what dies on its own.
        "704": "die dies died dying survive survives survived state-based sba sbas",
    }.items()
}
"""Section → the words (whole words, any case) that ask what it decides."""

CUED = 0.5
"""A hit in a section the question's words cue scores this much more (x 1.5). Chosen on the
tuning half T of the real questions (odd ids; ``benchmarks/relevance.py``) among 0.1, 0.25, 0.5
and 1, success@5 / MRR of judge 0.478 / 0.356 at 0 → 0.500 / 0.369 at 0.5 and 1, of judge+cards
0.652 / 0.450 → 0.674 / 0.468; our halves A–P 0.831 / 0.715 → 0.835 / 0.717 (judge). Added to
the re-ranked score instead (0.03–0.1), it changed nothing on T."""

QUESTION_WORDS = 5
"""A query of this many words or more is read as a question (see :data:`GLOSSARY_IN_QUESTIONS`)."""
GLOSSARY_IN_QUESTIONS = 0.5
"""The share of its score a glossary entry keeps in a question. Only one of the real questions'
91 answer keys is a glossary entry: an entry in the first five answers the other 90 with
nothing. 0.3, 0.5 and 0.7 measured alike on T (judge's success@5 0.478 → 0.500); our halves
A–P, whose keys hold entries, rose too (judge+cards+sem recall@5 / MRR 0.869 / 0.738 →
0.873 / 0.746), as they did with the entries kept out of the first five places outright.

Both priors together, as shipped (2025-02-07 edition, depth 10; before → after, success@5 /
MRR): T judge 0.478 / 0.357 → 0.522 / 0.373, judge+cards 0.674 / 0.462 → 0.696 / 0.482,
judge+cards+sem 0.652 / 0.493 → 0.696 / 0.499; the held-back half H no lower (judge+cards
0.400 / 0.288 → 0.422 / 0.289, judge+cards+sem 0.533 / 0.347 → 0.533 / 0.353); ours A–P
0.825 / 0.714 → 0.830 / 0.717 (judge), 0.869 / 0.738 → 0.871 / 0.748 (judge+cards+sem)."""
_WORD_RE = LazyPattern(r"[a-z0-9]+(?:['-][a-z0-9]+)*")


@functools.lru_cache(maxsize=256)
def _read(question: str) -> tuple[frozenset[str], bool]:
    # Once per question: search reads it for each index it searches, the re-rank again.
    words = _WORD_RE.findall(question.lower())
    have = frozenset(words)
    cued = frozenset(s for s, cues in SECTION_CUES.items() if cues & have)
    return cued, len(words) >= QUESTION_WORDS


def cued_sections(question: str) -> frozenset[str]:
    """The sections (``"704"``) whose cue words :data:`SECTION_CUES` the question uses."""
    return _read(question)[0]


def is_question(text: str) -> bool:
    """Checks if ``text`` has :data:`QUESTION_WORDS` words or more."""
    return _read(text)[1]


def prior(hits: Hits, question: str) -> Hits:
    """``hits`` (BM25F hits, best first) with the two priors of the question's words applied,
    best first; ``hits`` as they are when neither changes a score."""
    sections, glossary = _read(question)
    if not sections and not glossary:
        return hits
    raised = 1.0 + CUED
    out: Hits = []
    changed = False
    for score, fields in hits:
        if fields["kind"] == "glossary":
            if glossary:
                score *= GLOSSARY_IN_QUESTIONS
                changed = True
        elif sections:
            # A rule's, an example's or a phrasing's number ("704.5f"); its section.
            number = fields.get("number")
            if number and number[:3] in sections:
                score *= raised
                changed = True
        out.append((score, fields))
    if not changed:
        return hits
    out.sort(key=lambda h: -h[0])
    return out


def glossary_later(results: Sequence[SearchResult], question: str) -> list[SearchResult]:
    """Re-ranked ``results`` (best first) with each glossary entry's score cut to
    :data:`GLOSSARY_IN_QUESTIONS` when ``question`` is a question, best first again."""
    import dataclasses

    out = list(results)
    if not is_question(question) or not any(r.kind == "glossary" for r in out):
        return out
    out = [
        dataclasses.replace(r, score=r.score * GLOSSARY_IN_QUESTIONS) if r.kind == "glossary" else r
        for r in out
    ]
    out.sort(key=lambda r: -r.score)
    return out
