"""``judge search``: ranked full-text search over an edition (see :mod:`index.search`).

Thin on purpose: :meth:`index.edition.Edition.search` finds the index (the edition's build
folder, or a cached index of the bundled sample), rebuilds it when stale, searches, and
re-ranks by meaning when the semantic extra and a model are installed; this prints. whoosh is
imported only when a search runs, numpy and onnxruntime only when the re-rank runs.

Two things are said on a terminal's standard error, never in the answer: that the re-rank can
be added (once per data folder and reason, remembered in ``cache/semantic-hint``), and that an
edition is being embedded for it (the first search of an edition that has a model but no
vectors yet, with progress).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from index.search.kinds import SCOPE_TABLE, SCOPES

from .common import (
    CONTEXT_SETTINGS,
    Command,
    echo,
    edition_option,
    emit,
    json_option,
    open_edition,
    sample_notice,
    stdout_is_terminal,
)
from .errors import INSTALL_SEMANTIC

if TYPE_CHECKING:
    from index.edition import Edition
    from index.search import SearchResult, SearchResults

__all__ = ["search"]


@click.command(cls=Command, context_settings=CONTEXT_SETTINGS)
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
    type=click.Choice(SCOPES),
    default="all",
    show_default=True,
    help="Search "
    + ", ".join(f"{name} ({SCOPE_TABLE[name].help})" for name in SCOPES if name != "all")
    + ", or everything (all: the paper documents too when the question speaks of tournaments,"
    " and, beside the results, the rulings of the cards it names).",
)
@click.option(
    "--no-semantic",
    "lexical",
    is_flag=True,
    help="Rank by words alone, without the semantic re-rank (to compare).",
)
@json_option
def search(
    query: tuple[str, ...],
    edition: str | None,
    limit: int,
    scope: str,
    lexical: bool,
    as_json: bool,
) -> None:
    """Search rules, examples, glossary, notes, tournament documents and card rulings, ranked.

    Words, "phrases", AND/OR/NOT. Misspellings are matched fuzzily; shorthand such as SBA, ETB,
    LKI, CDA, P/T, 2HG and EDH, and players' phrasing such as "goes first", "fizzle" or
    "bounce", is understood; rules are also
    found by questions players ask about them (written by hand for some 900 rules); a rule
    number (704.5j, rule 613) goes straight to that rule; section:7 keeps to one section. With
    cards stored (judge cards update), card names in a question are read as what the cards do.

    With the semantic extra and a model (`judge model install`), results are also re-ranked
    by meaning, which finds rules a question describes without their words.
    """
    text = " ".join(query)
    ed = open_edition(edition)
    # Searched first: a one-shot re-rank starts its model work before anything else.
    found = ed.search(text, limit=limit, scope=scope, semantic=not lexical)
    if _stale(found.semantic_status):
        _prepare_vectors(ed, scope)
        if ed.semantic_status(scope) == "current":  # embedded just now: searched again
            found = ed.search(text, limit=limit, scope=scope)
    emit(as_json, found.to_json(), lambda: _markdown(found, text, ed))
    _hint_once(ed, found.semantic_status)


def _stale(status: str) -> bool:
    """Whether embedding the edition settles ``status`` (:data:`index.semantic.vectors.STALE`).
    The semantic package is imported only past ``off``: search has imported it by then."""
    if status == "off":
        return False
    from index.semantic.vectors import STALE

    return status in STALE


HINTS = {
    "unavailable": (
        f"Tip: judge search can also rank by meaning: {INSTALL_SEMANTIC}, then "
        "`judge model install`."
    ),
    "no-model": (
        "Tip: the semantic extra is installed but no model is: run `judge model install` "
        "(or `judge model import DIR`) and judge search ranks by meaning too."
    ),
}
"""What ``judge search`` says once per data folder when the re-rank could be added."""


def _prepare_vectors(ed: Edition, scope: str) -> None:
    """Embeds the edition first if a model is installed but its vectors are missing or stale."""
    from . import common

    if not _stale(ed.semantic_status(scope)):
        return
    echo(
        f"Embedding edition {ed.label} for the semantic re-rank (once per edition and model;"
        " rules other stored editions share are not embedded again)…",
        err=True,
    )
    bar = common.ProgressLine("Embedding", "passages") if common.stderr_is_terminal() else None
    try:
        embed_edition(ed, bar)
    finally:
        if bar is not None:
            bar.finish()


def embed_edition(ed: Edition, progress: Any = None) -> bool:
    """``ed.build_vectors()``, a failure told as a warning: search alone still answers."""
    from index.errors import os_reason
    from index.semantic import ModelLoadError

    try:
        return ed.build_vectors(progress=progress)
    except ModelLoadError as exc:
        reason = str(exc)
    except OSError as exc:
        reason = f"the vectors could not be written: {os_reason(exc)}"
    echo(f"Warning: edition {ed.label} not embedded ({reason}); searching by words.", err=True)
    return False


def _hint_once(ed: Edition, status: str) -> None:
    """Says how to add the re-rank, on a terminal, once per data folder and reason."""
    from . import common

    hint = HINTS.get(status)
    if hint is None or not common.stderr_is_terminal():
        return
    marker = ed.store.root / "cache" / "semantic-hint"
    try:
        told = set(marker.read_text(encoding="utf-8").split())
    except (OSError, UnicodeDecodeError):
        told = set()
    if status in told:
        return
    try:
        from index.atomic import write_text_atomic

        marker.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(marker, "\n".join(sorted(told | {status})) + "\n")
    except OSError:
        return  # a data folder that cannot be written: no tip, rather than one every time
    echo(hint, err=True)


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


def _head(r: SearchResult) -> str:
    """The line that names a result: a rule, an entry, a section, a ruling."""
    from index.tournament.kinds import LABELS

    from .render import escape

    if r.kind == "glossary":
        return f"**{escape(r.term or '')}** (glossary)"
    if r.kind == "section" and r.document:
        label = LABELS.get(r.document, r.document.upper())
        number = r.number or ""
        # Unnumbered parts (the JAR's "Common Issues") are named by their title alone.
        named = number[:1].isdigit() or number.startswith("Appendix")
        where = f"{label} {number}" if named else label
        title = f" {escape(r.title)}" if r.title else ""
        penalty = f" ({escape(r.penalty)})" if r.penalty else ""
        return f"**{escape(where)}**{title}{penalty}"
    if r.kind == "section":
        return f"**{escape(r.title or r.id)}** ({escape(r.source or 'notes')})"
    if r.kind == "ruling":
        cards = list(r.cards)
        shown = ", ".join(cards[:3]) + (f" and {len(cards) - 3} more" if len(cards) > 3 else "")
        return f"**{escape(shown)}** (ruling of {escape(r.date or '')})"
    title = f" — {escape(r.title)}" if r.title else ""
    return f"**{r.number}**{title}"


def _markdown(found: SearchResults, text: str, ed: Edition) -> str:
    from .render import escape

    terminal = stdout_is_terminal()
    where = "the bundled sample" if ed.is_sample else f"the {ed.label} edition"
    lines: list[str] = []
    if not found.results:
        hint = f" Did you mean: {', '.join(found.suggestions)}?" if found.suggestions else ""
        lines.append(f"No results for “{escape(text)}” in {where}.{hint}")
    else:
        lines.append(f"# Search: {escape(text)} ({where})")
        lines.append("")
        for r in found.results:
            head = _head(r)
            lines.append(head)
            lines.append("")
            # A glossary snippet can span paragraphs: quote every line of it.
            lines.extend("> " + part for part in _bold(r, terminal).split("\n"))
            if r.example:
                lines.append(">")
                lines.append("> Example: " + escape(r.example))
            lines.append("")
    if found.rulings:
        # In a search of everything: the named cards' rulings, beside the rules, not among them.
        lines.append("## Rulings of the cards named")
        lines.append("")
        for r in found.rulings:
            lines.append(_head(r))
            lines.append("")
            lines.extend("> " + part for part in _bold(r, terminal).split("\n"))
            lines.append("")
    if found.cards:
        # Names come from the card file: escaped like any text read from a file.
        typed = {name: as_typed for as_typed, name in found.cards_misspelt.items()}
        named = [f"{n} (typed “{typed[n]}”)" if n in typed else n for n in found.cards]
        lines.append(f"Cards read in the question: {escape(', '.join(named))}.")
    if ed.is_sample:
        lines.append(sample_notice(ed.store))
    elif found.semantic is not None:
        model = found.semantic.get("model") or "the installed model"
        lines.append(f"Edition {ed.label}; re-ranked by meaning ({escape(str(model))}).")
    else:
        lines.append(f"Edition {ed.label}.")
    return "\n".join(lines) + "\n"
