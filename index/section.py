"""A titled passage of a document that is not numbered rules (re-exported by :mod:`index.model`).

Apart from the model because a rule looked up by number never meets one.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Section"]


@dataclass
class Section:
    """A titled passage of a document that is not numbered rules: a rulecard, a user's notes."""

    id: str
    """A stable id: ``legends-rulecard:rampage``."""
    title: str | None
    """The heading, or ``None`` for an untitled paragraph."""
    text: str
    source: str
    """The document's name."""
    line: int = 0
