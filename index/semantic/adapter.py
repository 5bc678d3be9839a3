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
norm; :data:`STEPS` steps of Adam (learning rate :data:`RATE`) from ``W = 0``. Deterministic,
in numpy, about 2 s an edition on two cores (the embedding of a build is a minute or more).

Nothing the fit reads is a question it is scored on: neither the real questions nor our own
halves (``benchmarks/relevance.py``) are phrasings. Measured (2026-12-02, judge+cards+sem,
success@5 / MRR): the real questions' halves T 0.696 / 0.514 → 0.674 / 0.538 and H 0.511 /
0.372 → 0.533 / 0.393, all 91 0.604 / 0.444 → 0.604 / 0.466; ours, A–P, recall@5 / MRR
0.871 / 0.751 → 0.881 / 0.753. The settings were chosen on T (``benchmarks/adapter_fit.py``
has the grid); every one near them lifts the MRR of both halves.
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
"""Every third phrasing is a training row (all of them: 3 times the time, the same figures)."""
MIN_ROWS = 100
"""Fewer training rows than this (an edition with few phrasings, or none): no adapter."""


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
    everyone = np.arange(n)
    positive[everyone, rows] = False
    has_positive = positive.any(axis=1)
    if not has_positive.all():  # a rule whose only passage is this phrasing: nothing to learn
        x, rows, positive = x[has_positive], rows[has_positive], positive[has_positive]
        n, everyone = len(x), np.arange(int(has_positive.sum()))
        if n < MIN_ROWS:
            return None
    w = np.zeros((dim, dim), dtype=np.float32)
    first = np.zeros_like(w)
    second = np.zeros_like(w)
    for step in range(1, STEPS + 1):
        moved = x + x @ w
        norms = np.linalg.norm(moved, axis=1, keepdims=True)
        unit = moved / norms
        logits = (unit @ passages.T) / TAU
        logits[everyone, rows] = -np.inf
        logits -= logits.max(axis=1, keepdims=True)
        weights = np.exp(logits)
        every = weights / weights.sum(axis=1, keepdims=True)
        wanted = np.where(positive, weights, 0.0)
        wanted /= wanted.sum(axis=1, keepdims=True)
        toward = ((every - wanted) @ passages) / TAU
        toward = (toward - unit * (toward * unit).sum(axis=1, keepdims=True)) / norms
        gradient = (x.T @ toward) / n + DECAY * w
        first = 0.9 * first + 0.1 * gradient
        second = 0.999 * second + 0.001 * gradient * gradient
        corrected = first / (1 - 0.9**step)
        w -= RATE * corrected / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
    return w.astype(np.float32)


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
