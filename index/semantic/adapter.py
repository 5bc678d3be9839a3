"""A question adapter: a linear map that moves a question's vector towards the rules' passages.

A question is written like a players' question, a rule like a rule; the model puts the two
further apart than their meaning does. The players' phrasings of each rule
(:mod:`index.search.phrasings`, a passage of their rule in the vectors) say how: an edition's
vectors hold thousands of pairs (a phrasing, its rule). :func:`fit` learns from them, at build
time, a matrix ``W`` (dimension × dimension) such that ``normalise(q + q W)`` is closer to the
passages of the rule a phrasing ``q`` is of than to any other document's; :func:`adapt` applies
it to a question's vector before its cosines are taken.

The fit: every :data:`STRIDE`-th phrasing is a training row; its loss is the softmax cross
entropy, at temperature :data:`TAU`, of its rule's other passages among all the edition's
passages (the phrasing itself left out), plus :data:`DECAY` times half the square of ``W``'s
norm; :data:`STEPS` steps of Adam (learning rate :data:`RATE`) from ``W = 0``. In numpy, the
same matrix again on the same machine, about 2 s an edition on two cores (the embedding of a
build is a minute or more).

The fit reads no question it is scored on: the real questions are not phrasings, nor are our
own halves (``benchmarks/relevance.py``) but for 8 of A–P's 605, word for word a phrasing too
(a passage of their rule with the adapter or without). The settings were chosen on the real
questions' tuning half T (``benchmarks/adapter_fit.py``); H and ours are held back.
Measured 2026-12-02, without the adapter → with it (success@5 / MRR; ours recall@5 / MRR):

* judge+cards+sem: T 0.696 / 0.514 → 0.674 / 0.547, H 0.511 / 0.372 → 0.533 / 0.402, all 91
  0.604 / 0.444 → 0.604 / 0.475; ours A–P 0.871 / 0.751 → 0.881 / 0.753; of the 91 real
  questions, 18 move: 15 up (T 8, H 7; r024 from out of the first 10 to 7th, r003 and r025
  into the first 10, r006, r054 and r059 to 1st), 3 down (r047 5th → 6th, r072 4th → 5th,
  r032 9th → out of the first 10);
* judge+sem: T 0.500 / 0.447 → 0.500 / 0.466, H 0.556 / 0.375 → 0.578 / 0.382; ours 0.860 /
  0.735 → 0.869 / 0.740; the model alone (dense), all 91 0.495 / 0.372 → 0.505 / 0.390;
* the grid (judge+cards+sem): tau 0.05–0.2 × decay 0.03–0.3 lift T's MRR everywhere
  (0.524–0.547) and H's but at one (tau 0.1, decay 0.03: 0.369; elsewhere 0.374–0.402); H's
  success@5 falls at three (0.467–0.489, tau 0.05 with decay 0.03 or 0.1, tau 0.1 with 0.03);
  ours stay at 0.874–0.881 / 0.750–0.755; every phrasing a row (stride 1), T 0.674 / 0.542, H
  0.533 / 0.390, in three times the time; 30 steps at rate 0.001, the same as today's 10 at
  0.003.

The re-rank's weight with cards read (:data:`~index.semantic.reranking.CARDS_WEIGHT`, 0.5)
chosen again with the adapter, on T: 0.4 gives 0.696 / 0.517, 0.6 0.674 / 0.523: it stays.

The re-rank's defaults swept again with the adapter (``relevance.py --sweep``, judge+sem, all
91 / ours A–P): weight 0.7, depth 30, add 5 stay (0.538 / 0.424, 0.869 / 0.740); 0.8 gives
the real questions 0.538 / 0.427–0.428 and ours 0.856–0.863 / 0.733–0.738; 0.6, 0.505–0.516
/ 0.387–0.400. On judge+cards+sem (T / H / ours), depth 20 gives 0.674 / 0.543, 0.533 /
0.401, 0.876 / 0.753; 50, 0.652 / 0.543, 0.533 / 0.377, 0.884 / 0.751; add 3, 0.674 / 0.547,
0.533 / 0.404, 0.881 / 0.753 (T's tie with today's add 5: it stays); add 10, today's figures.

Costs: the fit adds 2.1–2.6 s to a build of the 2025-02-07 edition's vectors (their passages
reused: 0.2 s without it); the file grows from 3.41 to 4.00 MB (the matrix, float32); a warm
re-rank and a cold one-shot take what they took (interleaved, before and after, p50 / p95
11.0 / 22.5 and 11.0 / 22.3 ms over 736 questions; cold 303 / 306 ms and 292 / 297 ms).

Tried and not kept (2026-12-02, judge+cards+sem, T / H / ours as above, before the adapter
0.696 / 0.514, 0.511 / 0.372, 0.871 / 0.751; unless said, in a prototype that fitted one
adapter, on the 2026-01-16 edition, for both question sets):

* fitted on our own questions (A–P, the answers' passages as targets; ours scored with two
  folds, each fitted on the other): by least squares (ridge, lambda 1–100, moved by 0.3–1.0
  of ``q W``), T 0.674–0.696 / 0.514–0.522, H 0.489–0.511 / 0.334–0.387, ours 0.871–0.876 /
  0.750–0.755; by the loss above (tau 0.05–0.2, decay 0.01–1.0), T 0.652–0.674 /
  0.516–0.543, H 0.511–0.533 / 0.348–0.392, ours 0.871–0.881 / 0.746–0.753: no better than
  the phrasings' fit, and it would leave no question set of ours unseen;
* the phrasings' fit with their rules' texts alone as passages (no phrasing a positive or a
  negative): T 0.674–0.696 / 0.529–0.533, H 0.489–0.511 / 0.358–0.372, ours 0.878–0.886 /
  0.757–0.762: ours rise more, the real questions less, H's not at all;
* the phrasing passages moved by the adapter too (a question and a phrasing compared as two
  questions, both moved), wholly or half, fitted per edition as built: T 0.674 / 0.547,
  H 0.533 / 0.390–0.391, ours 0.874 / 0.750–0.751, against today's 0.674 / 0.547, 0.533 /
  0.402, 0.881 / 0.753;
* a bias beside the matrix (``q + q W + b``, fitted with it per edition, its decay 0.1 or
  1.0; its norm 0.13–0.17): T 0.674 / 0.547, H 0.533 / 0.392, ours 0.879–0.881 / 0.753;
* the adapter's cosines in one part of the re-rank only, or mixed with the plain ones
  (fitted per edition as built): in the fusion only, the same as today; in the choice of the
  model's nearest only, T 0.696 / 0.514, H 0.511 / 0.374, ours 0.873 / 0.751 (what it adds
  is in the fusion); the fusion's cosines half and half, T 0.696 / 0.530, H 0.533 / 0.379,
  ours 0.874–0.876 / 0.752; 1.5 times the adapter's less half the plain ones, T 0.674 /
  0.545, H 0.533 / 0.390, ours 0.879 / 0.752;
* one step of gradient descent instead of Adam's ten (0.6 s), of size 1: T 0.696 / 0.530,
  H 0.533 / 0.375, ours 0.874 / 0.751; of size 3: T 0.674 / 0.542, H 0.533 / 0.372, ours
  0.878 / 0.748; of size 10, all fall (H 0.489 / 0.334, ours 0.851 / 0.727).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["DECAY", "MIN_ROWS", "RATE", "STEPS", "STRIDE", "TAU", "adapt", "fit", "settings"]

TAU = 0.1
"""The softmax's temperature (cosines are divided by it)."""
DECAY = 0.1
"""The weight of ``W``'s squared norm in the loss: it keeps the map near the identity."""
STEPS = 10
"""Steps of Adam over the whole training set."""
RATE = 0.003
"""Adam's learning rate."""
STRIDE = 3
"""Every third phrasing is a training row (all of them took three times as long and scored no
better: T 0.674 / 0.542, H 0.533 / 0.390)."""
MIN_ROWS = 100
"""Fewer training rows than this (an edition with few phrasings, or none): no adapter. Of the
eleven editions in ``../shared/corpus``, the 1999-04-23 one alone has none (290 phrasings, 97
rows); 2003-03-15 has 164 rows, 2026-01-16 1,545. Nothing measures the adapter on editions
before 2025: no question set is keyed to them."""
_CHUNK = 512
"""Training rows whose softmax is taken at once: the fit's peak memory grows by 50 MB, not 123
as with all 1,510 rows of the 2025-02-07 edition at once (5-10 % slower)."""


def settings() -> dict[str, float | int]:
    """The fit's settings, as recorded with the vectors (a change makes them stale)."""
    return {"tau": TAU, "decay": DECAY, "steps": STEPS, "rate": RATE, "stride": STRIDE}


def fit(
    matrix: npt.NDArray[np.float32],
    owner: npt.NDArray[np.intp],
    asked: npt.NDArray[np.intp],
) -> npt.NDArray[np.float32] | None:
    """The adapter learnt from ``matrix``'s passages (unit rows, one per passage).

    ``owner[i]`` is the document of passage ``i``; ``asked`` the rows that are players'
    phrasings. ``None`` when there are fewer than :data:`MIN_ROWS` training rows.
    """
    import numpy as np

    rows = np.asarray(asked, dtype=np.intp)[::STRIDE]
    if len(rows) < MIN_ROWS:
        return None
    passages = np.ascontiguousarray(matrix, dtype=np.float32)
    x = passages[rows]
    x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    n, dim = x.shape
    owners = np.asarray(owner, dtype=np.intp)
    positive = owners[None, :] == owners[rows][:, None]
    positive[np.arange(n), rows] = False
    has_positive = positive.any(axis=1)
    if not has_positive.all():  # a rule whose only passage is this phrasing: nothing to learn
        x, rows, positive = x[has_positive], rows[has_positive], positive[has_positive]
        n = len(x)
        if n < MIN_ROWS:
            return None
    w = np.zeros((dim, dim), dtype=np.float32)
    first = np.zeros_like(w)
    second = np.zeros_like(w)
    for step in range(1, STEPS + 1):
        gradient = DECAY * w
        for at in range(0, n, _CHUNK):  # a chunk of softmaxes at a time, for memory
            part = slice(at, at + _CHUNK)
            gradient += _gradient(x[part], passages, positive[part], rows[part], w) / n
        first = 0.9 * first + 0.1 * gradient
        second = 0.999 * second + 0.001 * gradient * gradient
        corrected = first / (1 - 0.9**step)
        w -= RATE * corrected / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
    return w.astype(np.float32)


def _gradient(
    x: npt.NDArray[np.float32],
    passages: npt.NDArray[np.float32],
    positive: npt.NDArray[np.bool_],
    rows: npt.NDArray[np.intp],
    w: npt.NDArray[np.float32],
) -> npt.NDArray[np.float32]:
    """The loss's gradient in ``w`` summed over the training rows ``x`` (passages ``rows``)."""
    import numpy as np

    moved = x + x @ w
    norms = np.linalg.norm(moved, axis=1, keepdims=True)
    unit = moved / norms
    weights = unit @ passages.T
    weights /= TAU
    weights[np.arange(len(x)), rows] = -np.inf  # the phrasing itself
    weights -= weights.max(axis=1, keepdims=True)
    np.exp(weights, out=weights)
    wanted = np.where(positive, weights, np.float32(0))
    wanted /= wanted.sum(axis=1, keepdims=True)
    weights /= weights.sum(axis=1, keepdims=True)
    weights -= wanted  # softmax over every passage less the softmax over the rule's own
    toward = (weights @ passages) / TAU
    toward = (toward - unit * (toward * unit).sum(axis=1, keepdims=True)) / norms
    out: npt.NDArray[np.float32] = x.T @ toward
    return out


def adapt(query: Any, w: npt.NDArray[np.float32] | None) -> npt.NDArray[np.float32]:
    """``query`` (a unit vector) moved by the adapter ``w`` and normalised (as is without one)."""
    import numpy as np

    q = np.asarray(query, dtype=np.float32).reshape(-1)
    if w is None:
        return q
    # numpy's own loop, not BLAS (see Vectors.similarities): one thread, no waiting for others.
    moved = q + np.einsum("i,ij->j", q, w)
    norm = float(np.sqrt(np.einsum("i,i->", moved, moved)))
    out: npt.NDArray[np.float32] = (moved / norm).astype(np.float32) if norm > 0 else q
    return out
