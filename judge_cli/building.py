"""``judge index build``: each file through :func:`index.ingest.store_file`, then one report."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .common import echo, emit_json, open_store, plural

if TYPE_CHECKING:
    from index.store import EditionStore

__all__ = ["build_files", "vectors_builder"]


def _index_builder(store: EditionStore) -> Any:
    """The builder of a new edition's folder: its search index (see :mod:`index.search`) and,
    with the semantic extra and a model installed, its vectors.

    On a terminal it draws its progress on standard error.
    """
    from index.search import build_search_index

    from . import common

    vectors = vectors_builder(store)
    terminal = common.stderr_is_terminal()

    def build(doc: Any, folder: Path) -> None:
        if not terminal:
            build_search_index(doc, folder)
        else:
            line = common.ProgressLine(f"Indexing {doc.edition}", "documents")
            try:
                build_search_index(doc, folder, progress=line)
            finally:
                line.finish()
        if vectors is not None:
            vectors(doc, folder)

    return build


def vectors_builder(store: EditionStore) -> Callable[[Any, Path], None] | None:
    """What embeds a new edition's folder for the semantic re-rank, or ``None`` (no extra or
    no model: nothing to do, and nothing heavy imported).

    Vectors are optional: a model that fails to load is a warning, and the edition is stored
    without them (a search embeds it later, or says why it cannot).
    """
    from index.semantic import is_available

    if not is_available():
        return None
    from index.semantic.searching import SemanticSearch, nearest_builds

    from . import common

    semantic = SemanticSearch.for_root(store.root)
    if semantic.installed() is None:
        return None

    def build(doc: Any, folder: Path) -> None:
        from index.semantic import ModelLoadError

        terminal = common.stderr_is_terminal()
        bar = common.ProgressLine(f"Embedding {doc.edition}", "passages") if terminal else None
        try:
            semantic.build(folder, doc, reuse=nearest_builds(store, doc.edition), progress=bar)
        except ModelLoadError as exc:
            echo(f"Warning: edition {doc.edition} stored without vectors ({exc}).", err=True)
        finally:
            if bar is not None:
                bar.finish()

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
    builder = _index_builder(store)
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
