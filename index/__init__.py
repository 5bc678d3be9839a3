"""The rules corpus: reading CR files, rule numbers, cross-references and stored editions.

The front door is :func:`open_edition` (see :mod:`index.edition`); it is imported on first use,
so importing a module of this package costs nothing more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .edition import Edition, open_edition

__all__ = ["Edition", "open_edition"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import edition

        return getattr(edition, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
