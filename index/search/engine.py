"""whoosh, imported on first use (never at import time of this package).

:func:`whoosh` imports the parts of whoosh a search needs, with its Python 3.12+ invalid-escape
warnings filtered by message; :func:`qparser` adds whoosh's query parser, which only queries
with syntax need (see :func:`index.search.query.direct_query`).
"""

from __future__ import annotations

import importlib
import sys
import types
import warnings
from typing import Any


def _no_urlretrieve(*args: object, **kwargs: object) -> None:
    raise RuntimeError("whoosh.compat.urlretrieve is not available in judge")


def whoosh() -> Any:
    """Imports whoosh (fields, index, query, scoring, searching) and returns the package."""
    found = sys.modules.get("whoosh.searching")
    if found is not None:
        return sys.modules["whoosh"]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"invalid escape sequence")
        # whoosh.compat imports urllib.request for a name (urlretrieve) that no part of whoosh
        # uses; that import (http.client, email, ssl) was a fifth of a cold `judge search`.
        # A stand-in answers while whoosh is imported and is taken out again, so a later
        # `import urllib.request` gets the real module.
        stub = None
        if "urllib.request" not in sys.modules:
            stub = types.ModuleType("urllib.request")
            stub.urlretrieve = _no_urlretrieve  # type: ignore[attr-defined]
            sys.modules["urllib.request"] = stub
        try:
            import whoosh.fields
            import whoosh.index
            import whoosh.query
            import whoosh.scoring
            import whoosh.searching
        finally:
            if stub is not None and sys.modules.get("urllib.request") is stub:
                del sys.modules["urllib.request"]
        return whoosh


def qparser() -> Any:
    """whoosh's query parser module."""
    whoosh()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"invalid escape sequence")
        return importlib.import_module("whoosh.qparser")
