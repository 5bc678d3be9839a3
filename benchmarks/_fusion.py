"""A learned fusion of the semantic re-rank's candidates, as measured (not shipped).

:func:`features` describes each candidate of the re-rank as
``index.semantic.reranking.combine`` sees it (its normalised lexical score and cosine, their
ranks, what kind of document it is, how many other candidates share its section or its rule);
:func:`learned` scores a row with a logistic model's coefficients. ``fusion_fit.py`` fits them
and compares the order they give with the weighted sum's; see its docstring for the figures
(none lifted the held-back half, so ``combine`` keeps the weighted sum). Pure Python, float64
in a fixed order, as ``combine`` would need if it used it (a forked child combines too).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, SupportsFloat

if TYPE_CHECKING:
    from index.semantic.reranking import Hit

__all__ = ["NAMES", "family", "features", "learned"]

NAMES = (
    "sum",
    "lexical",
    "cosine",
    "raw",
    "lexical_rank",
    "cosine_rank",
    "added",
    "glossary",
    "lettered",
    "numbered",
    "other",
    "section",
    "family",
    "first",
)
"""The features, in order: the weighted sum the re-rank used before (``(1 - weight) * lexical +
weight * cosine``), the lexical score over the best, the cosine min-max normalised over the
candidates, the raw cosine, 1 / (1 + rank) by lexical score (0 for the model's additions) and
by cosine, whether the model added it, whether it is a glossary entry, a lettered rule
(704.5f), another numbered rule (704.5), a section or ruling (anything else), and the share of
the other candidates in the same section (704) and in the same rule (704.5 and its lettered
rules), and whether it is the first of its rule (704.5a, 704.1: the one saying what it is)."""

_LETTERED = re.compile(r"\d{3}\.\d+[a-z]\Z")
_NUMBERED = re.compile(r"\d{3}(?:\.\d+)?\Z")


class Cosines(Protocol):
    def __getitem__(self, position: int, /) -> SupportsFloat: ...


def features(
    similarities: Cosines,
    position: Mapping[str, int],
    body: Sequence[Hit],
    added: Sequence[Hit],
    weight: float,
) -> list[list[float]]:
    """One row of :data:`NAMES` per candidate (``body``, the lexical pool's, then ``added``)."""
    from index.semantic.reranking import normalised

    candidates = [*body, *added]
    _, lexical, raw, cos = normalised(similarities, position, body, added)
    by_cos = sorted(range(len(cos)), key=lambda j: -cos[j])
    cos_rank = [0.0] * len(cos)
    for r, j in enumerate(by_cos):
        cos_rank[j] = 1.0 / (1 + r)
    sections = [_section(h.id) for h in candidates]
    families = [family(h.id) for h in candidates]
    rows = []
    others = max(1, len(candidates) - 1)
    for j, hit in enumerate(candidates):
        rid = hit.id
        lettered = bool(_LETTERED.match(rid))
        numbered = not lettered and bool(_NUMBERED.match(rid))
        glossary = rid.startswith("glossary:")
        same = sum(1 for s in sections if s is not None and s == sections[j]) - 1
        kin = sum(1 for s in families if s is not None and s == families[j]) - 1
        rows.append(
            [
                (1.0 - weight) * lexical[j] + weight * cos[j],
                lexical[j],
                cos[j],
                raw[j],
                1.0 / (1 + j) if j < len(body) else 0.0,
                cos_rank[j],
                0.0 if j < len(body) else 1.0,
                1.0 if glossary else 0.0,
                1.0 if lettered else 0.0,
                1.0 if numbered else 0.0,
                0.0 if lettered or numbered or glossary else 1.0,
                max(same, 0) / others,
                max(kin, 0) / others,
                1.0 if (rid.endswith("a") and lettered) or rid.endswith(".1") else 0.0,
            ]
        )
    return rows


def _section(rid: str) -> str | None:
    return rid[:3] if _NUMBERED.match(rid) or _LETTERED.match(rid) else None


def family(rid: str) -> str | None:
    """The rule a rule belongs with (704.5 for 704.5f and for 704.5), or None."""
    if _LETTERED.match(rid):
        return rid[:-1]
    return rid if _NUMBERED.match(rid) else None


def learned(row: Sequence[float], coefficients: Sequence[float]) -> float:
    """The probability that a candidate with these features answers (0–1), by a logistic
    model's ``coefficients`` (bias first, then one per :data:`NAMES`)."""
    z = coefficients[0]
    for c, x in zip(coefficients[1:], row, strict=True):
        z += c * x
    return 1.0 / (1.0 + math.exp(-z))
