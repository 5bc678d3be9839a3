"""``judge search``: ranked full-text search over an edition (see :mod:`index.search`).

Thin on purpose: find the index (the edition's build folder, or a cached index of the bundled
sample), call :func:`index.search.search`, print. whoosh is imported only when a search runs,
and the edition's JSON is not loaded at all unless its index has to be rebuilt.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .common import (
    CONTEXT_SETTINGS,
    edition_option,
    emit_json,
    fail,
    fail_not_stored,
    json_option,
    sample_notice,
    stdout_is_terminal,
    wants_newest,
    wants_sample,
)

if TYPE_CHECKING:
    from index.search import SearchResult, SearchResults

__all__ = ["search"]


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("query", nargs=-1, required=True, metavar="QUERY...")
@edition_option
@click.option(
    "--limit",
    "-n",
    default=10,
    show_default=True,
    type=click.IntRange(1, 200),
    help="Show at most this many results.",
)
@click.option(
    "--in",
    "scope",
    type=click.Choice(["rules", "glossary", "all"]),
    default="all",
    show_default=True,
    help="Search the rules, the glossary, or everything.",
)
@json_option
def search(
    query: tuple[str, ...], edition: str | None, limit: int, scope: str, as_json: bool
) -> None:
    """Search rules, examples, glossary and notes, ranked: words, "phrases", AND/OR/NOT.

    Misspellings are matched fuzzily; shorthand such as SBA, ETB, LKI, CDA, P/T, 2HG and EDH, and
    players' phrasing such as "goes first", "fizzle" or "bounce", is understood; rules are also
    found by questions players ask about them (written by hand for some 900 rules); a rule
    number (704.5j, rule 613) goes straight to that rule; section:7 keeps to one section.
    """
    from index.search import NoSearchIndexError, QuerySyntaxError
    from index.search import search as run_search

    text = " ".join(query)
    folder, label, is_sample, extra = _target(edition)
    try:
        found = run_search(folder, text, limit=limit, scope=scope, extra=extra)
    except QuerySyntaxError as exc:
        fail(f"{exc}.")
    except NoSearchIndexError as exc:
        fail(f"{exc}. Run `judge index build FILE` with the edition's .txt to rebuild it.")
    found.edition = None if is_sample else label
    if as_json:
        emit_json(found.to_json())
        return
    _print(found, text, label, is_sample)


def _target(edition: str | None) -> tuple[Path, str, bool, list[Any]]:
    """The folder whose ``search/`` index answers, its label, whether it is the sample, notes."""
    from index.search import index_is_current
    from index.store import EditionStore, NoEditionError

    store = EditionStore.from_env()
    cache = store.root / "cache"
    if wants_sample(edition):
        return _sample_target(cache, named=True)
    try:
        date = store.resolve(edition)
    except NoEditionError as exc:
        if wants_newest(edition) and not exc.stored:
            return _sample_target(cache)
        fail_not_stored(edition, exc.stored)
    build = store.build_path(date)
    if build is None:
        fail(f"edition {date} could not be read. Rebuild it with `judge index build FILE`.")
    if not (build / "search").is_dir():
        fail(
            f"edition {date} has no search index. Build it with `judge index build FILE` "
            f"(FILE: the CR .txt the edition came from, {store.info(date).source})."
        )
    if not index_is_current(build):
        _rebuild(store, date, build)
    extra = _notes(store, cache)
    return build, date, False, extra


def _rebuild(store: Any, date: str, build: Path) -> None:
    """Rebuilds an index written by an older version of judge, in place and atomically."""
    from index.search import rebuild_search_index

    click.echo(
        f"Rebuilding the search index of edition {date} (built by an older judge)…", err=True
    )
    try:
        rebuild_search_index(store.load(date).document, build)
    except OSError as exc:
        fail(
            f"could not rebuild the search index in {build} ({exc}). "
            "Run `judge index build FILE` again."
        )


def _notes(store: Any, cache: Path) -> list[Any]:
    """The opened notes index, if any notes are stored."""
    if not store.notes_dir.is_dir():
        return []
    notes = store.notes()
    if not notes:
        return []
    from index.search import build_notes_index, open_search_index

    try:
        folder = build_notes_index(cache, notes)
        ix, _ = open_search_index(folder)
    except Exception as exc:  # notes are extras: a broken notes index must not stop a search
        click.echo(f"Warning: notes not searched ({exc}).", err=True)
        return []
    return [ix]


def _sample_target(cache: Path, *, named: bool = False) -> tuple[Path, str, bool, list[Any]]:
    """The bundled sample's index; ``named``: its stripped paragraphs named from stored editions."""
    from index.search import build_cached_index
    from index.store import EditionStore

    from .common import load_named_sample
    from .sample import load_sample

    # Measured: building the sample's index takes ~0.1 s, opening a cached one ~5 ms, so the
    # index is cached on disk per content hash (in the temporary folder when the data folder
    # cannot be written).
    doc = load_named_sample(EditionStore.from_env()) if named else load_sample()
    try:
        folder = build_cached_index(doc, cache, "sample")
    except OSError:
        import tempfile

        folder = build_cached_index(doc, Path(tempfile.gettempdir()) / "judge-cache", "sample")
    return folder, "sample", True, _notes(EditionStore.from_env(), cache)


def _bold(result: SearchResult, terminal: bool) -> str:
    from .render import escape

    text = result.snippet
    if not terminal or not result.marks:
        return escape(text)
    parts: list[str] = []
    pos = 0
    for start, end in result.marks:
        parts.append(escape(text[pos:start]))
        parts.append("**" + escape(text[start:end]) + "**")
        pos = end
    parts.append(escape(text[pos:]))
    return "".join(parts)


def _print(found: SearchResults, text: str, label: str, is_sample: bool) -> None:
    from .render import escape, show

    terminal = stdout_is_terminal()
    where = "the bundled sample" if is_sample else f"the {label} edition"
    lines: list[str] = []
    if not found.results:
        hint = f" Did you mean: {', '.join(found.suggestions)}?" if found.suggestions else ""
        lines.append(f"No results for “{escape(text)}” in {where}.{hint}")
    else:
        lines.append(f"# Search: {escape(text)} ({where})")
        lines.append("")
        for r in found.results:
            if r.kind == "glossary":
                head = f"**{escape(r.term or '')}** (glossary)"
            elif r.kind == "section":
                head = f"**{escape(r.title or r.id)}** ({escape(r.source or 'notes')})"
            else:
                title = f" — {escape(r.title)}" if r.title else ""
                head = f"**{r.number}**{title}"
            lines.append(head)
            lines.append("")
            # A glossary snippet can span paragraphs: quote every line of it.
            lines.extend("> " + part for part in _bold(r, terminal).split("\n"))
            if r.example:
                lines.append(">")
                lines.append("> Example: " + escape(r.example))
            lines.append("")
    if is_sample:
        lines.append(sample_notice())
    else:
        lines.append(f"Edition {label}.")
    click.echo(show("\n".join(lines) + "\n", terminal=terminal), nl=False)
