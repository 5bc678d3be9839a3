"""whoosh, imported on first use (never at import time of this package).

:func:`whoosh` imports the parts of whoosh a search needs, with its Python 3.12+ invalid-escape
warnings filtered by message; :func:`qparser` adds whoosh's query parser, which only queries
with syntax need (see :func:`index.search.query.direct_query`).

Two of whoosh's imports are deferred (:data:`DEFERRED`): ``whoosh.compat`` imports
``urllib.request`` for ``urlretrieve``, which no part of whoosh calls, and
``whoosh.query.terms`` imports the English morphology tables for the ``Variations`` query,
which judge never builds. Together they were a quarter of the time a cold ``judge search``
took to import whoosh. While whoosh is imported, each module is a stand-in whose one name
imports the real module when it is first called, and the stand-in is taken out of
``sys.modules`` again, so any later import gets the real module. A process that imports these
modules from several threads at once should call :func:`whoosh` before it starts them
(:meth:`index.search.Searcher.open` does).
"""

from __future__ import annotations

import importlib
import sys
import types
import warnings
from collections.abc import Callable
from typing import Any

DEFERRED = (("urllib.request", "urlretrieve"), ("whoosh.lang.morph_en", "variations"))
"""(module, the one name whoosh takes from it) for the imports deferred while whoosh is."""


def _deferred(module: str, name: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


def whoosh() -> Any:
    """Imports whoosh (fields, index, query, scoring, searching) and returns the package."""
    if "whoosh.searching" in sys.modules:
        return sys.modules["whoosh"]
    stand_ins: dict[str, types.ModuleType] = {}
    for module, name in DEFERRED:
        if module not in sys.modules:
            stand_in = types.ModuleType(module, f"stands in for {module} while whoosh imports")
            setattr(stand_in, name, _deferred(module, name))
            stand_ins[module] = sys.modules[module] = stand_in
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r"invalid escape sequence")
            import whoosh.fields
            import whoosh.index
            import whoosh.query
            import whoosh.scoring
            import whoosh.searching
    finally:
        for module, stand_in in stand_ins.items():
            if sys.modules.get(module) is stand_in:
                del sys.modules[module]
    return whoosh


def qparser() -> Any:
    """whoosh's query parser module."""
    whoosh()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"invalid escape sequence")
        return importlib.import_module("whoosh.qparser")
