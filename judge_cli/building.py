"""``judge index build``: each file through :func:`index.ingest.store_file`, then one report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .common import echo, emit_json, open_store, plural

__all__ = ["build_files"]


def _index_builder() -> Any:
    """The search-index builder for a new edition's folder (see :mod:`index.search`).

    On a terminal it draws its progress on standard error.
    """
    from index.search import build_search_index

    from . import common

    if not common.stderr_is_terminal():
        return build_search_index

    def build(doc: Any, folder: Path) -> None:
        line = common.ProgressLine(f"Indexing {doc.edition}", "documents")
        try:
            build_search_index(doc, folder, progress=line)
        finally:
            line.finish()

    return build


def _line(result: Any) -> str:
    problems = len(result.problems)
    extra = f", {plural(problems, 'line')} not placed (see --json)" if problems else ""
    if result.kind == "notes":
        return f"Stored notes {result.name}: {plural(result.sections, 'section')}."
    if result.kind == "document":
        sections = plural(result.sections, "section")
        return f"Stored {result.title} {result.edition}: {sections}{extra}."
    return (
        f"Stored edition {result.edition}: {plural(result.rules, 'rule')}, "
        f"{plural(result.glossary, 'glossary entry', 'glossary entries')}{extra}"
        f"{read_as(result.encoding, result.undecodable)}."
    )


def read_as(encoding: str, undecodable: int) -> str:
    """``", read as Windows-1252"`` when a file was not read as clean UTF-8, else ``""``."""
    from index.decode import DecodedText, encoding_name

    if not encoding or (encoding_name(encoding) == "UTF-8" and not undecodable):
        return ""
    return f", read as {DecodedText('', encoding, undecodable).describe()}"


def build_files(files: list[str], *, as_json: bool, replace: bool = False) -> None:
    """Stores every file in turn and reports each; a file that fails is reported at the end.

    Later files are still tried after one fails: each file is stored whole or not at all, so
    what one file does never depends on another. The exit status is 1 if any file failed.
    A file that reads worse than the stored edition of its date is refused unless ``replace``.
    """
    from index.ingest import store_file

    from .errors import describe

    store = open_store()
    builder = _index_builder()
    records: list[dict[str, Any]] = []
    failed: list[tuple[str, str]] = []
    for name in files:
        try:
            result = store_file(store, name, index_builder=builder, replace=replace)
        except Exception as exc:
            problem = describe(exc)
            if problem is None or len(files) == 1:
                raise  # one file: its own error line, as for any command
            failed.append((name, problem.message))
            records.append({"kind": "error", "file": name, "error": problem.message})
            continue
        records.append(result.to_json())
        if not as_json:
            echo(_line(result))
    if as_json:
        emit_json(records)
    if not failed:
        return
    for _name, message in failed:
        echo(f"Error: {message}", err=True)
    stored = [r["file"] for r in records if r["kind"] != "error"]
    names = ", ".join(name for name, _ in failed)
    kept = f"; stored: {', '.join(stored)}" if stored else "; nothing was stored"
    raise click.ClickException(f"{len(failed)} of {len(files)} files not stored ({names}){kept}.")
