"""``judge index build``: turning files into stored editions (and notes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .common import fail

__all__ = ["build_files"]


def _search_builder() -> Any:
    """The search-index builder for a new edition's folder (see :mod:`index.search`).

    On a terminal it draws its progress on standard error.
    """
    from index.search import build_search_index

    from .common import ProgressLine, stderr_is_terminal

    if not stderr_is_terminal():
        return build_search_index

    def build(doc: Any, folder: Path) -> None:
        line = ProgressLine(f"Indexing {doc.edition}", "documents")
        try:
            build_search_index(doc, folder, progress=line)
        finally:
            line.finish()

    return build


def build_files(files: list[str], *, replace: bool = False) -> list[dict[str, Any]]:
    """Stores each file; stops at the first bad one with ``Error: FILE: reason``.

    Files already stored stay as they were: each edition is built aside and switched in whole.
    A file that reads worse than the stored edition of its date is refused unless ``replace``.
    """
    from index.decode import FileTooLargeError, read_rules_file
    from index.reader import CRReadError
    from index.store import EditionStore, ReplaceRefusedError

    store = EditionStore.from_env()
    results: list[dict[str, Any]] = []
    for name in files:
        path = Path(name)
        try:
            data = read_rules_file(path)
        except FileTooLargeError as exc:
            fail(f"{name}: {exc}. Nothing was stored. Is it the Comprehensive Rules .txt?")
        except OSError as exc:
            fail(f"{name}: cannot read it ({exc.strerror or exc}). Check the path.")
        if path.suffix.lower() in (".md", ".markdown"):
            results.append(_store_notes(store, path, data))
            continue
        try:
            info = store.add_bytes(data, path.name, extra=_search_builder(), replace=replace)
        except ReplaceRefusedError as exc:
            fail(
                f"{name}: {exc}. Nothing was stored. If this is the file you want, run the "
                "command again with --replace."
            )
        except CRReadError as exc:
            fail(
                f"{name}: {exc}. Nothing was stored. Use the Comprehensive Rules .txt from "
                "https://magic.wizards.com/en/rules."
            )
        except OSError as exc:
            fail(f"{name}: could not write to {store.root} ({exc}). Nothing was changed.")
        loaded = store.load(info.edition)
        results.append(
            {
                "kind": "edition",
                "file": name,
                "edition": info.edition,
                "rules": info.rules,
                "glossary": info.glossary,
                "encoding": info.encoding,
                "undecodable": info.undecodable,
                "problems": len(loaded.document.problems),
                "problem_lines": [
                    {"line": p.line, "text": p.text, "reason": p.reason}
                    for p in loaded.document.problems
                ],
                "dangling": [{"source": s, "text": t} for s, t in loaded.dangling],
            }
        )
    return results


def _store_notes(store: Any, path: Path, data: bytes) -> dict[str, Any]:
    from index.decode import DecodeError, decode_rules_bytes
    from index.documents import read_markdown

    try:
        text, _ = decode_rules_bytes(data)
    except DecodeError as exc:
        fail(f"{path}: {exc}. Notes must be a Markdown text file.")
    sections = read_markdown(text, path.stem)
    if not sections:
        fail(f"{path}: no text found. Notes need at least one paragraph or heading.")
    store.add_notes(path.stem, text)
    return {"kind": "notes", "file": str(path), "name": path.stem, "sections": len(sections)}
