"""``judge search``: ranked full-text search over an edition (see :mod:`index.search`).

Thin on purpose: :meth:`index.edition.Edition.search` finds the index (the edition's build
folder, or a cached index of the bundled sample), rebuilds it when stale, and searches; this
prints. whoosh is imported only when a search runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from index.search.kinds import SCOPE_TABLE, SCOPES

from .common import (
    CONTEXT_SETTINGS,
    Command,
    edition_option,
    emit,
    json_option,
    open_edition,
    sample_notice,
    stdout_is_terminal,
)

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
    + ", or everything (all: the paper documents, and the rulings of cards the question names).",
)
@json_option
def search(
    query: tuple[str, ...], edition: str | None, limit: int, scope: str, as_json: bool
) -> None:
    """Search rules, examples, glossary, notes, tournament documents and card rulings, ranked.

    Words, "phrases", AND/OR/NOT. Misspellings are matched fuzzily; shorthand such as SBA, ETB, LKI, CDA, P/T, 2HG and EDH, and
    players' phrasing such as "goes first", "fizzle" or "bounce", is understood; rules are also
    found by questions players ask about them (written by hand for some 900 rules); a rule
    number (704.5j, rule 613) goes straight to that rule; section:7 keeps to one section.
    """
    text = " ".join(query)
    ed = open_edition(edition)
    found = ed.search(text, limit=limit, scope=scope)
    emit(as_json, found.to_json(), lambda: _markdown(found, text, ed))


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
    if ed.is_sample:
        lines.append(sample_notice(ed.store))
    else:
        lines.append(f"Edition {ed.label}.")
    return "\n".join(lines) + "\n"
