"""Recognising a tournament document handed to ``judge index build``, and storing it.

Nothing here imports pypdf unless a PDF is being read.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

__all__ = ["is_tournament_file", "store_tournament_bytes"]


def is_tournament_file(data: bytes) -> bool:
    """Checks if a file is one of these documents, or a PDF (the CR is read from its .txt)."""
    from ..decode import DecodeError, decode_rules_bytes
    from .layout import Line, clean_line
    from .model import DocumentReadError
    from .pdf import is_pdf
    from .reader import recognise

    if is_pdf(data):
        return True  # a PDF is ours to read or refuse
    try:
        text, _ = decode_rules_bytes(data[:4096])  # an even cut: UTF-16 stays whole
    except DecodeError:
        return False
    lines = [Line(clean_line(raw), i) for i, raw in enumerate(text.splitlines()[:40], start=1)]
    try:
        recognise(lines, "")
    except DocumentReadError as exc:
        return "found the title" in exc.reason
    return True


def store_tournament_bytes(root: Path, data: bytes, source: str) -> dict[str, Any]:
    """Reads and stores one document under the data folder ``root``; returns what was stored.

    Raises :class:`~index.tournament.model.DocumentReadError` (``pdf`` set when the file is a
    PDF) for a file that cannot be read; nothing stored changes then.
    """
    from .model import KINDS, DocumentReadError
    from .pdf import is_pdf
    from .reader import read_document_bytes
    from .store import DocumentStore

    documents = DocumentStore(root)
    try:
        doc = read_document_bytes(data, source)
    except DocumentReadError as exc:
        exc.pdf = is_pdf(data)
        raise
    info = documents.add(doc, source, hashlib.sha256(data).hexdigest())
    dangling = documents.dangling(info.document, info.edition)
    return {
        "document": info.document,
        "edition": info.edition,
        "title": KINDS[doc.kind],
        "printed_title": doc.title,
        "sections": info.sections,
        "problems": [{"line": p.line, "text": p.text, "reason": p.reason} for p in doc.problems],
        "dangling": [
            {"source": f"{info.document}:{number}", "text": target}
            for number, targets in dangling.items()
            for target in targets
        ],
    }
