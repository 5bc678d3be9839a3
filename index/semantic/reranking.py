"""The semantic re-rank of a lexical pool: a weighted sum of normalised scores.

A hit's new score is ``(1 - weight) * lexical / best lexical + weight * c``, where ``c`` is its
cosine with the question (moved first by the vectors' question adapter, :mod:`.adapter`),
min-max normalised over the candidates (a document without a vector, a notes section, counts
as the lowest). The candidates are the pool's first :data:`DEPTH` hits and, when ``make`` is
given, the model's own :data:`ADD` nearest documents (lexical score 0).
The defaults were chosen on a grid (``benchmarks/relevance.py --sweep``: weight 0.5–0.9, depth
20/30/50, add 0/5/10) on the 91 real questions and our halves A–P together: the real questions
are flat from 0.7 to 0.9 (success@5 0.473), ours fall past 0.7 (recall@5 0.860 at 0.7, 0.845 at
0.8); adding the model's nearest lifts the real questions (0.429 → 0.473) and costs ours little.

Tried against these defaults on judge+cards+sem (2026-12-01; success@5 / MRR on the tuning half
T of the real questions, the held-back half H, then recall@5 / MRR on our halves A–P; today
0.587 / 0.406, 0.533 / 0.347, 0.868 / 0.742 with float32 vectors), none kept:

* z-scored cosines and lexical scores instead of min-max, weight 0.5 / 0.6 (0.3 / 0.35 with
  cards read): T 0.587 / 0.407–0.408, H 0.533 / 0.325–0.328, ours 0.874 / 0.741–0.746;
* reciprocal-rank fusion (k 20), weight 0.5–0.7: T 0.543–0.565 / 0.403–0.417, H 0.511–0.556 /
  0.364–0.372, ours 0.858–0.871 / 0.712–0.738;
* more of the model's nearest (10 or 15) when the pool's best lexical score is weak (below 5
  or 10): no question changed;
* the question's sentences embedded too, the best cosine of any (or 0.3 / 0.5 of it mixed with
  the whole question's), or only the sentences ending in "?": T 0.565–0.587 / 0.403–0.406, H
  0.533 / 0.345–0.351, ours unchanged. The 91 real questions are 16–103 word pieces, none past
  the model's 128: truncation is not what they lose;
* each card name read replaced by its types and keywords in the text embedded ("a creature
  goblin with haste"), alone or mixed half and half with the question as typed: T 0.565–0.587 /
  0.414–0.415, H 0.467–0.511 / 0.323–0.337; by its Oracle text (first 25 words): T 0.522–0.543
  / 0.405–0.413, H 0.489–0.533 / 0.333–0.338;
* depth 20 or 50, add 3 or 8: T 0.565–0.587 / 0.406–0.420, H 0.533 / 0.347–0.349;
* the phrasings' cosines lowered or raised by 0.03 against the rule's own text (per-kind
  weights): T 0.543–0.587 / 0.407, H 0.489–0.533 / 0.344–0.353;
* passages changed (see :mod:`.vectors`): rule texts prefixed with their rule's title
  ("State-Based Actions: …"), T 0.587 / 0.408, H 0.533 / 0.348, ours 0.864 / 0.741; each
  glossary entry that cites rules also a passage of those rules, T 0.587 / 0.410, H 0.533 /
  0.347, ours 0.863 / 0.740; a lettered subrule's cosine mixed with its parent's (0.3),
  T 0.565 / 0.414, H 0.511 / 0.328, ours 0.864 / 0.728.
* a learned fusion (2026-12-01, against T 0.696 / 0.499, H 0.533 / 0.353, ours 0.871 / 0.748
  with int8 vectors): a logistic model over the candidates' normalised lexical score and
  cosine, their ranks, the raw cosine, this weighted sum, whether the model added it, its
  kind (glossary entry, lettered rule, numbered rule, other) and the share of the other
  candidates in its section or its rule, fitted on our halves A–P (pointwise or listwise, all
  features or a few; ``benchmarks/fusion_fit.py`` has every figure): ours rise to 0.873–0.891 /
  0.747–0.759, T moves 0.652–0.717 / 0.495–0.519, H falls (0.489–0.556 / 0.327–0.361; the
  only fit lifting both T and ours, lexical + cosine + section share, H 0.511 / 0.361).
* on the dense side (2026-12-02, against the same T 0.696 / 0.499, H 0.533 / 0.353, ours
  0.871 / 0.748; ``benchmarks/dense_ideas.py`` has every figure):

  - hubness reduction (CSLS, Lample et al. 2018): each passage's cosine minus alpha times its
    mean cosine with its k nearest passages of other documents (computed from the passages
    alone, 1.5–2.6 s an edition: it would have to be stored with the vectors), k 3–50, alpha
    0.1–1.5: T 0.630–0.696 / 0.494–0.522 (s@5 0.696 only at k 50, alpha 0.1); the best MRR,
    k 10 alpha 0.7, T 0.652 / 0.515, H 0.600 / 0.343, ours 0.868 / 0.744; any other passage
    (its own document's too) as a neighbour, k 10 alpha 1.0, T 0.652 / 0.520, H 0.578 /
    0.343, ours 0.869 / 0.745; in the fused cosines only, T 0.630 / 0.505–0.519; in choosing
    the model's nearest only, T 0.696 / 0.499–0.501;
  - pseudo-relevance feedback in vector space (Rocchio; ANCE-PRF, Li et al. 2021): the
    question's vector plus beta times the mean of the first k fused candidates' best passages,
    normalised, the cosines and the model's nearest recomputed and fused again, k 2–15, beta
    0.3–1.5: T 0.630–0.696 / 0.451–0.506; the best, k 5 beta 0.6 / 1.0, T 0.696 / 0.505–0.506,
    H 0.533 / 0.344–0.346, ours 0.869–0.873 / 0.744; weighted by the fused score, k 5 beta
    0.6, T 0.696 / 0.505, H 0.556 / 0.346, ours 0.871 / 0.746; each candidate's passages'
    mean instead of its best, T 0.630–0.696 / 0.464–0.502; both ideas (k 10 alpha 0.7, k 5
    beta 1.0), T 0.652 / 0.487, H 0.578 / 0.339, ours 0.868 / 0.746; on judge+sem (today T
    0.500 / 0.447, H 0.556 / 0.372, ours 0.863 / 0.735) the same six: T 0.478–0.522 /
    0.423–0.445, H 0.511–0.578 / 0.349–0.358, ours 0.858–0.864 / 0.730–0.735;
  - a document's passages pooled by a soft maximum (tau log of the mean of exp(cosine / tau))
    instead of the best one, tau 0.01–0.1: T 0.696 / 0.497–0.504; tau 0.05, H 0.489 / 0.333,
    ours 0.881 / 0.754; summed (no mean: many phrasings count), T 0.630–0.696 / 0.496–0.504;
  - for the issue's "my 0/0 artifact land thing, is it gone?" (search alone, 704.5f 72nd):
    704.5f is 191st by cosine (56th re-ranked 100 deep), 210–215th with hubness reduction
    (53rd–54th re-ranked); with "0/0" read as power and toughness in the text embedded, 31st
    (23rd re-ranked), 88–170th with hubness reduction (35th–45th); with feedback, re-ranked 100
    deep, 31st–55th; never in the first 10 (``dense_ideas.py --must-show``).

  - a question cut shorter than the model's 128 word pieces, for speed (a question's run is
    most of a warm re-rank, and the real ones are 16–103 word pieces): MRR over all 91 real
    questions 0.431 / 0.436 / 0.455 / 0.442 / 0.447 / 0.443 / 0.443 at 32 / 40 / 48 / 56 /
    64 / 80 / 96 (0.444 uncut), flat but for one point, while judge+sem's on H falls as the cut
    shortens (0.375 uncut, 0.366 at 56, 0.360 at 64, 0.346 at 40, 0.299 at 32); at 64 with the
    first 16 and the last 48 kept, T 0.674 / 0.513, H 0.511 / 0.381 (2026-12-02).
  - the question's vector plus beta times that of its named cards' nearest ruling (their
    rulings embedded as it is asked; the real misses of kind card-names have their deciding
    facts in the cards), normalised, for the cosines and the model's nearest, against
    T 0.696 / 0.514, H 0.511 / 0.372, ours 0.871 / 0.751: beta 0.3, T 0.674 / 0.512, H 0.533 /
    0.373; beta 0.6, T 0.674 / 0.506, H 0.489 / 0.374; the mean of the nearest 3 at 0.3,
    T 0.674 / 0.516, H 0.489 / 0.370; the nearest only if its cosine is 0.5 or more, at 0.5,
    T 0.696 / 0.525, H 0.489 / 0.372, all 91 0.593 / 0.449; ours 0.864–0.868 / 0.751–0.752
    (2026-12-02).

  Warm cost (the re-rank of the 91 real questions, their vectors and pools remembered; medians
  of 7 interleaved runs, load 2.9): today 3.0 ms a question, with hubness reduction 2.8 ms
  (a subtraction), with feedback 7.5 ms (a second pass over every passage and the fusion).
* a fusion weight that follows the question (2026-12-02, against T 0.696 / 0.514, H 0.511 /
  0.372, ours 0.871 / 0.751; each setting ``weight + slope * (signal - pivot)``, kept within
  0.05–0.95): the signal the pool's second lexical score over its first (lexical doubt), slope
  ±0.3 / ±0.6, pivot 0.7 / 0.85, T 0.652–0.696 / 0.476–0.526, H 0.489–0.533 / 0.333–0.373;
  the model's first cosine less its fifth (its confidence), slope ±1.5 / ±3, pivot 0.03–0.1,
  T 0.609–0.696 / 0.447–0.528, H 0.489–0.556 / 0.330–0.381; its first cosine, slope ±0.5–1.5,
  pivot 0.5 / 0.6, T 0.565–0.696 / 0.440–0.529, H 0.511–0.533 / 0.342–0.382. The eleven
  scored on ours too lower its MRR (0.863–0.878 / 0.732–0.742). With the question adapter
  (T 0.674 / 0.547), the same 28 settings on T: 0.543–0.696 / 0.440–0.545, none above it
  (``benchmarks/dense_ideas.py --only weight``).
* a player's idioms read in the rules' words in the text embedded (2026-12-03, with the
  adapter, against T 0.674 / 0.547, H 0.533 / 0.402, ours 0.881 / 0.753): "N/M" as "power N,
  toughness M" and "is it gone", "dies" as "put into a graveyard" (4 questions of T change,
  11 of H, 47 of ours): T unchanged to the last digit, H 0.533 / 0.391 (one question 1st →
  2nd), ours 0.884 / 0.751 (3 up, 4 down); each reading alone, T unchanged, H 0.533 / 0.391
  and 0.533 / 0.402, ours 0.883 / 0.752 and 0.883 / 0.753. For the issue's 0/0 question the
  two readings together make 704.5f 3rd by cosine over the whole edition (144th unread), but
  11th re-ranked: it joins as one of the model's nearest, with no lexical share, under the
  pool's "artifact land" rules (``dense_ideas.py --only idioms``, ``--must-show``). In the
  must-show test's part of the edition (section 1 and 704, no "artifact land" rules to
  outrank it) the two readings put it 1st: the test would pass while the whole edition shows
  it 11th. Not kept.

* the model's nearest given a lexical score (2026-12-03, against T 0.717 / 0.565, H 0.600 /
  0.422, ours 0.879 / 0.753): not 0 but a share of the lowest lexical score among the pool's
  candidates (a document search did not find is at most that good), 0.5 of it, T 0.696 /
  0.562, H 0.622 / 0.428, ours 0.883 / 0.753; all of it, T 0.696 / 0.550, H 0.600 / 0.436,
  ours 0.883 / 0.751; with the idioms above read in the text embedded, T the same, H 0.622 /
  0.415 and 0.600 / 0.419, ours 0.886 / 0.750 and 0.886 / 0.749. T loses a question at
  success@5 each time. The issue's 0/0 question (search without cards, the whole edition):
  out of the first 10 but with all of it and the idioms read, 9th (``dense_ideas.py --only
  impute``).

What was kept instead moves the question, not the weights: the question adapter
(:mod:`.adapter`, fitted on the players' phrasings; T 0.674 / 0.547, H 0.533 / 0.402, ours
0.881 / 0.753), applied by the vectors before every cosine above is taken.

The candidates re-ranked (the pool's first 30 and the model's 5 nearest) hold an expected rule
for 36 of T's 46 questions and 36 of H's 45: a better order of the same candidates could reach
a success@5 of 0.78; what this model's cosines give is 0.56–0.59.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, SupportsFloat, TypeVar

if TYPE_CHECKING:
    from .model import Encoder
    from .vectors import Vectors

__all__ = ["ADD", "CARDS_WEIGHT", "DEPTH", "WEIGHT", "Hit", "combine", "rerank"]

WEIGHT = 0.7
"""The share of the cosine in the new score."""
DEPTH = 30
"""How many of the lexical pool's first hits are re-ranked."""
ADD = 5
"""How many of the model's nearest documents join the candidates (when ``make`` is given)."""
CARDS_WEIGHT = 0.5
"""The share of the cosine when search read card names in the question: the lexical pool then
knows what the cards do (their keywords and abilities), the model only sees their names.
Chosen on the tuning half of the real questions (odd ids; ``benchmarks/relevance.py``,
judge+cards+sem) among 0.2–0.7, success@5 / MRR: 0.543 / 0.408 at 0.2, 0.565 / 0.404 at 0.3,
0.565 / 0.403 at 0.4, 0.543 / 0.396 at 0.5, 0.522 / 0.413 at 0.6, 0.457 / 0.383 at 0.7 (the
weight without cards); embedding the question without the names did worse (0.413 / 0.324).
Chosen again (2026-12-02) once the re-rank drew on the same first results as a search at any
limit (its pool's first 30 had been re-ranked among 90), among 0.3–0.6 at depth 20/30/40:
T 0.674–0.696 / 0.501–0.504 at 0.3, 0.674–0.696 / 0.502–0.508 at 0.4, 0.674–0.696 /
0.514–0.522 at 0.5, 0.652 / 0.494–0.503 at 0.6 (0.4 with add 0–10 or weight 0.6–0.8 without
cards: T 0.696 / 0.507–0.508). 0.5 at depth 30 against 0.4: T 0.696 / 0.508 → 0.696 / 0.514,
the held-back half H 0.511 / 0.366 → 0.511 / 0.372, ours A–P 0.868 / 0.748 → 0.871 / 0.751
(0.45: T 0.696 / 0.519, H 0.511 / 0.367, ours 0.869 / 0.751)."""


class Hit(Protocol):
    """A search result as the re-rank needs it (``index.search.SearchResult`` is one)."""

    @property
    def id(self) -> str: ...

    @property
    def score(self) -> float: ...


H = TypeVar("H", bound=Hit)


class Cosines(Protocol):
    """The question's cosine with each stored document, by position (a numpy array, a list)."""

    def __getitem__(self, position: int, /) -> SupportsFloat: ...


def question_matrix(model: Encoder, question: str) -> Any:
    """``question``'s vector as a 1 × dimension matrix, remembered by a model that keeps the
    last few (:meth:`~index.semantic.model.Embedder.embed_query`)."""
    remembered = getattr(model, "embed_query", None)
    return remembered(question) if callable(remembered) else model.embed([question])


_FIELDS: dict[type, tuple[frozenset[str], bool]] = {}
"""Per dataclass: its field names, and whether a copy of its ``__dict__`` is a replace."""


def _fields_of(cls: type) -> tuple[frozenset[str], bool]:
    found = _FIELDS.get(cls)
    if found is None:
        fields = dataclasses.fields(cls)
        plain = (
            not hasattr(cls, "__post_init__")
            and "__slots__" not in cls.__dict__
            and all(f.init for f in fields)
        )
        found = _FIELDS[cls] = (frozenset(f.name for f in fields), plain)
    return found


def _rescored(hit: H, score: float, similarity: float | None, lexical: float | None) -> H:
    """``hit`` with its new score (and, when its class has room, its two parts)."""
    if dataclasses.is_dataclass(hit) and not isinstance(hit, type):
        names, plain = _fields_of(type(hit))
        parts = {"similarity": similarity, "lexical_score": lexical}
        extra = {k: v for k, v in parts.items() if k in names}
        if plain:
            # What ``dataclasses.replace`` makes, without its __init__ (a tenth of the fusion):
            # every field is set by __init__ and nothing runs after it.
            new: H = object.__new__(type(hit))
            new.__dict__.update(hit.__dict__, score=score, **extra)
            return new
        new = dataclasses.replace(hit, score=score, **extra)
        return new
    return hit


def rerank(
    question: str,
    pool: Sequence[H],
    vectors: Vectors,
    model: Encoder,
    *,
    weight: float = WEIGHT,
    depth: int = DEPTH,
    add: int = ADD,
    keep: int = 0,
    make: Callable[[str], H | None] | None = None,
) -> list[H]:
    """``pool`` (lexical hits, best first) re-ranked by their meaning's closeness to ``question``.

    The first ``keep`` hits stay where they are (a rule the question named by number); hits
    past ``keep + depth`` follow the re-ranked ones in their order. ``make`` builds a hit for a
    document id the pool lacks; without it, nothing is added. Scores of the re-ranked hits are
    replaced by the combined score (0–1). Raises
    :class:`~index.semantic.vectors.VectorsError` when ``vectors`` were made by another model
    than ``model`` (their file was replaced after it was found current: a search answers alone).
    """

    if vectors.model != model.digest:
        from .vectors import VectorsError

        raise VectorsError(vectors.path, "it was made with another model")
    if not pool[keep : keep + depth] and (make is None or add <= 0):
        return list(pool)
    sims = vectors.similarities(question_matrix(model, question)[0])

    def nearest(n: int) -> list[str]:
        return [vectors.ids[int(i)] for i in _nearest_positions(sims, n)]

    return combine(
        sims,
        vectors.position,
        nearest,
        pool,
        weight=weight,
        depth=depth,
        add=add,
        keep=keep,
        make=make,
    )


def _nearest_positions(sims: Any, n: int) -> Any:
    """``np.argsort(-sims, kind="stable")[:n]``: the ``n`` highest, ties in position order.

    Only the cosines at or above the ``n``-th highest are sorted (a tenth of the time of
    sorting all of them; ties at that cut are all kept, so the order is the same)."""
    import numpy as np

    if n <= 0:
        return sims[:0].astype(np.intp)
    if n >= len(sims) or np.isnan(sims).any():
        return np.argsort(-sims, kind="stable")[:n]
    cut = np.partition(sims, len(sims) - n)[len(sims) - n]
    inside = np.flatnonzero(sims >= cut)
    return inside[np.argsort(-sims[inside], kind="stable")][:n]


def normalised(
    similarities: Cosines, position: Mapping[str, int], body: Sequence[Hit], added: Sequence[Hit]
) -> tuple[list[int | None], list[float], list[float], list[float]]:
    """What :func:`combine` weighs, for its candidates (``body``, the pool's, then ``added``):
    their positions in ``similarities``, lexical scores over the best (0 for ``added``), raw
    cosines (the lowest for a document without a vector) and cosines min-max normalised."""
    lexical = [max(h.score, 0.0) for h in body] + [0.0] * len(added)
    best = max(lexical) if lexical else 0.0
    if best > 0:
        lexical = [x / best for x in lexical]
    where = [position.get(h.id) for h in [*body, *added]]
    known = [float(similarities[i]) for i in where if i is not None]
    low = min(known) if known else 0.0
    raw = [float(similarities[i]) if i is not None else low for i in where]
    bottom = min(raw) if raw else 0.0
    spread = max(raw) - bottom if raw else 0.0
    cos = [(c - bottom) / spread for c in raw] if spread > 0 else [0.0] * len(raw)
    return where, lexical, raw, cos


def combine(
    similarities: Cosines,
    position: Mapping[str, int],
    nearest: Callable[[int], Sequence[str]],
    pool: Sequence[H],
    *,
    weight: float = WEIGHT,
    depth: int = DEPTH,
    add: int = ADD,
    keep: int = 0,
    make: Callable[[str], H | None] | None = None,
) -> list[H]:
    """:func:`rerank`'s scoring, given the question's cosines (in pure Python).

    ``similarities[i]`` is the question's cosine with the document at ``position[id]``;
    ``nearest(n)`` gives the ids of the ``n`` closest documents, closest first (ties in position
    order). Each step is one float64 operation on a few dozen candidates, in a fixed order, so
    whoever computed the cosines (numpy here, a forked child's packed floats in
    :mod:`.forked`) gets the same scores to the last bit.
    """
    head, body, tail = pool[:keep], list(pool[keep : keep + depth]), pool[keep + depth :]
    if not body and (make is None or add <= 0):
        return list(pool)
    # The model's nearest join from anywhere but the candidates, the tail too: a longer
    # limit's pool must not keep one out that a shorter one's adds.
    seen = {h.id for h in head} | {h.id for h in body}
    added: list[H] = []
    if make is not None and add > 0:
        for rid in nearest(add + len(seen)):
            if rid in seen:
                continue
            made = make(rid)
            if made is not None:
                added.append(made)
                seen.add(rid)
            if len(added) >= add:
                break
        if added and tail:
            tail = [h for h in tail if h.id not in seen]
    candidates = body + added
    where, lexical, _, cos = normalised(similarities, position, body, added)
    combined = [(1.0 - weight) * x + weight * c for x, c in zip(lexical, cos, strict=True)]
    ranked = []
    for j in sorted(range(len(combined)), key=lambda j: -combined[j]):
        w = where[j]
        raw = float(similarities[w]) if w is not None else None
        lex = float(body[j].score) if j < len(body) else None
        ranked.append(_rescored(candidates[j], combined[j], raw, lex))
    return [*head, *ranked, *tail]
