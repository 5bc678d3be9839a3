"""Glossary entries: reading them, normalising their terms and looking them up.

The names below are imported on first use, so that ``glossary.fold`` can be imported alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .entry import GlossaryEntry
    from .fold import fold_text, normalise_term

__all__ = ["GlossaryEntry", "fold_text", "normalise_term"]


def __getattr__(name: str) -> Any:
    if name == "GlossaryEntry":
        from .entry import GlossaryEntry

        return GlossaryEntry
    if name in ("fold_text", "normalise_term"):
        from . import fold

        return getattr(fold, name)
    raise AttributeError(f"module 'glossary' has no attribute {name!r}")
