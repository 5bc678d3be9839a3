"""Word order in the coverage re-rank: a hit with the question's words side by side gains.

The coverage re-rank (:func:`index.search.rank.coverage`) counts a question's words as a bag:
"combat damage" or "mana ability" scores the same in a rule that has the two words apart as in
one that says them together. A sequential-dependence factor (Metzler & Croft 2005) adds the
order back: each pair of adjacent content words of the question (stop words and words the
query dropped left out, the stems :func:`index.search.rank.concepts` counts) is looked for in a
hit's term, title, body and phrasing, the two stems at most :data:`WINDOW` words apart (stop
words not counted), in either order. A hit's score is multiplied by
``1 + PROXIMITY x`` (the idf-weighted share of the question's pairs it has), computed from
the pool's stored text (no whoosh query) and remembered per document.

Measured on the real questions and ours and not kept (:data:`PROXIMITY` is 0, which skips it):
it never lifted success@5 on the tuning half, and the variant chosen on it lowered the
held-back half. It stays for ``benchmarks/proximity_sweep.py`` to measure again.
"""

from __future__ import annotations

import functools
from typing import Any

from .words import QUESTION_WORDS, stems

PROXIMITY = 0.0
"""How much a hit with all the question's pairs gains (x (1 + PROXIMITY)); 0, off: measured and
not kept (2026-12-01, ``benchmarks/proximity_sweep.py``; success@5 / MRR on the real questions'
tuning half T, recall@5 / MRR on our halves A-P; variants as PROXIMITY, WINDOW, WEIGHT, + for
TRIPLES, o for ORDERED). Off: judge T 0.522 / 0.373, ours 0.830 / 0.717; judge+cards T 0.696 /
0.482, ours 0.840 / 0.726; judge+sem T 0.500 / 0.447, ours 0.863 / 0.735; judge+cards+sem
T 0.696 / 0.499, ours 0.871 / 0.748.

* judge (no card reading): 0.1-0.5 1 mean T 0.522 / 0.373-0.375, ours 0.831-0.835 / 0.715; 1.0 1
  mean T 0.522 / 0.374, ours 0.831 / 0.707; 0.1, 0.2, 0.3, 0.5, 1.0 3 mean T 0.522 / 0.373,
  0.373, 0.373, 0.378, 0.385, ours MRR 0.716, 0.715, 0.714, 0.712, 0.707; 2.0 1 mean T 0.522 /
  0.371, ours 0.830 / 0.705; triples (0.2, 0.5 at window 1 and 3) T 0.522 / 0.373-0.378, ours
  0.831-0.835 / 0.712-0.715; one 0.2, 0.5 1: T 0.522 / 0.373, 0.375, ours 0.835-0.836 /
  0.714-0.715; one 0.2, 0.3, 0.5, 0.7, 1.0, 2.0 at window 3: T 0.522 / 0.373, 0.373, 0.389,
  0.385, 0.385, 0.372, ours MRR 0.716, 0.713, 0.711, 0.711, 0.709, 0.707; 0.5 2 one T 0.522 /
  0.389, ours 0.838 / 0.714; min 0.2, 0.5 at 1 and 3 T 0.522 / 0.373-0.375, ours 0.833-0.835 /
  0.712-0.715; ordered 0.2, 0.5 1 mean T 0.522 / 0.373, 0.375, ours 0.833-0.835 / 0.715; 0.5 3
  one o T 0.522 / 0.372, ours 0.838 / 0.715. success@5 on T never moved: at 1.0 one question
  rose (4th to 1st), one fell (2nd to 3rd); T's outranked misses are long situations whose key
  is not in the first 21 at any setting, and its wrong-subrule misses did not move.
* judge+cards (no pair across a card name): window 1, any weight, T 0.696 / 0.482-0.484,
  1.0 mean T 0.696 / 0.493 (ours 0.841 / 0.718, judge's ours 0.707 under its floor); window
  2-3 at 0.2 or more T 0.674 (a card question's key falls from 4th to 6th) / 0.480-0.500;
  ours 0.840-0.848 / 0.715-0.726 throughout.
* judge+sem (the lexical pool re-ranked, the factor inside its lexical score): T 0.500 /
  0.447-0.450 at every variant measured (0.3 1 mean, 0.5 1 one, 0.5 2 one, 0.5 3 one, 1.0 3
  mean, 2.0 1 mean), ours 0.863-0.864 / 0.730-0.736; judge+cards+sem T 0.674 / 0.496-0.498
  (0.3 1 mean, 0.5 2 one, 0.5 3 one, 1.0 3 mean), ours 0.873-0.876 / 0.745-0.747.

Held-back H scored once, for 0.5 2 one (chosen on judge's T and ours): judge H 0.422 / 0.291 →
0.422 / 0.286, judge+cards 0.422 / 0.289 → 0.467 / 0.289, judge+sem 0.556 / 0.372 → 0.556 /
0.374, judge+cards+sem 0.533 / 0.353 unchanged. It lowers judge's H and T of judge+cards and
judge+cards+sem: not kept. On, it costs warm search about 0.5 ms (0.5 2 one: p50 5.1 → 5.6
ms, p95 8.3 → 9.0 ms, ``search_speed.py``'s warm queries, six interleaved rounds, load 1.7)."""
WINDOW = 1
"""How far apart (in content words) a pair's two stems may be in a hit and still count."""
TRIPLES = False
"""Whether three adjacent content words count as well, beside the pairs."""
ORDERED = False
"""Whether a pair counts only in the question's order."""
WEIGHT = "mean"
"""A pair's weight from its two words' idf: ``mean``, ``min`` or ``one`` (every pair alike)."""
BREAKS = frozenset(".?!;")
"""Punctuation between two question words that keeps them from making a pair (as do a blank
line and the spaces a card name leaves when it is read out of the question)."""

_STOP = QUESTION_WORDS | {"s", "t"}
_FIELDS = ("term", "title", "body", "asked")

Pair = tuple[str, ...]


def _content(text: str) -> list[list[str]]:
    """The stems of ``text``'s words without its stop words, in runs split at :data:`BREAKS`."""
    runs: list[list[str]] = [[]]
    end = 0
    for stemmed, start, stop in stems(text):
        gap = text[end:start]
        # A card name blanked out of the question leaves a run of spaces: no pair across it.
        if runs[-1] and (any(c in BREAKS for c in gap) or "   " in gap or "\n\n" in gap):
            runs.append([])
        end = stop
        if text[start:stop].lower() not in _STOP:
            runs[-1].append(stemmed)
    return [r for r in runs if r]


def _grams(seq: list[str], window: int, triples: bool, ordered: bool) -> set[Pair]:
    out: set[Pair] = set()
    n = len(seq)
    for i in range(n):
        for j in range(i + 1, min(n, i + 1 + window)):
            a, b = seq[i], seq[j]
            out.add((a, b) if ordered or a <= b else (b, a))
            if triples:
                for k in range(j + 1, min(n, j + 1 + window)):
                    out.add((a, b, seq[k]) if ordered else tuple(sorted((a, b, seq[k]))))
    return out


@functools.lru_cache(maxsize=16_384)
def _grams_of(texts: tuple[str, ...], window: int, triples: bool, ordered: bool) -> frozenset[Pair]:
    """The pairs (and triples) within ``window`` in a document's fields, remembered per
    document: the same rules come back in many questions' pools."""
    out: set[Pair] = set()
    for text in texts:
        if text:
            for run in _content(text):
                out |= _grams(run, window, triples, ordered)
    return frozenset(out)


def question_pairs(
    text: str, concepts: list[tuple[frozenset[str], float]]
) -> list[tuple[Pair, float]]:
    """The question's adjacent content words (pairs, and triples if :data:`TRIPLES`) with their
    weights; only words the query searches for count (:func:`index.search.rank.concepts`).
    None while :data:`PROXIMITY` is 0."""
    if not PROXIMITY:
        return []
    idf: dict[str, float] = {}
    for group, weight in concepts:
        for s in group:
            idf[s] = max(idf.get(s, 0.0), weight)
    out: dict[Pair, float] = {}
    for run in _content(text):
        seq = [s for s in run if s in idf]
        for gram in _grams(seq, 1, TRIPLES, ORDERED):
            if len(set(gram)) < len(gram):
                continue
            ws = [idf[s] for s in gram]
            weight = min(ws) if WEIGHT == "min" else 1.0 if WEIGHT == "one" else sum(ws) / len(ws)
            out[gram] = weight
    return list(out.items())


def proximity(fields: dict[str, Any], pairs: list[tuple[Pair, float]]) -> float:
    """The factor a hit's score is multiplied by: ``1 + PROXIMITY x`` its weighted share of
    ``pairs``; 1 without pairs."""
    if not pairs or not PROXIMITY:
        return 1.0
    texts = tuple(str(fields.get(f) or "") for f in _FIELDS)
    have = _grams_of(texts, WINDOW, TRIPLES, ORDERED)
    total = sum(w for _, w in pairs) or 1.0
    return 1.0 + PROXIMITY * sum(w for g, w in pairs if g in have) / total
