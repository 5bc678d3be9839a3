"""``judge diff``, ``judge history`` and ``judge cite-check``: rules across editions.

Thin commands over :mod:`index.diff` and :mod:`index.citecheck`; with ``--doc``, over
:mod:`index.tournament.diff` (see :mod:`judge_cli.docs_diff`). Word-level changes print as
``[-removed-]{+added+}`` when piped (the form ``git diff --word-diff=plain`` uses) and in red and
green on a terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from index.tournament.kinds import KINDS

from .common import (
    CONTEXT_SETTINGS,
    Command,
    echo,
    edition_option,
    emit_json,
    json_option,
    open_store,
    plural,
)
from .render import safe, stdout_is_terminal_colored, style

if TYPE_CHECKING:
    from index.diff import Change, Event, WordOp
    from index.model import Document

__all__ = ["cite_check", "diff", "history"]


def render_word_diff(ops: list[WordOp], *, color: bool) -> str:
    """One line of text with the deletions and insertions marked (text made safe)."""
    parts: list[str] = []
    for op in ops:
        if op.op == "equal":
            parts.append(safe(op.text))
        elif op.op == "delete":
            parts.append(style(op.text, "deleted", color) if color else f"[-{safe(op.text)}-]")
        else:
            parts.append(style(op.text, "inserted", color) if color else f"{{+{safe(op.text)}+}}")
    return "".join(parts)


def _stored(edition: str | None) -> Document:
    """A stored edition's document (never the sample: these commands compare editions)."""
    from index.edition import open_stored_edition

    return open_stored_edition(edition, store=open_store()).document


def _change_lines(change: Change, color: bool) -> list[str]:
    from index.diff import word_diff

    def bold(text: str) -> str:
        return style(text, "strong", color)

    if change.kind == "added":
        return [bold(f"added {change.new}"), f"    {safe(change.new_text or '')}"]
    if change.kind == "removed":
        return [bold(f"removed {change.old}"), f"    {safe(change.old_text or '')}"]
    head = (
        f"moved {change.old} → {change.new}" if change.kind == "moved" else f"changed {change.new}"
    )
    lines = [bold(head)]
    old_text, new_text = change.old_text or "", change.new_text or ""
    if old_text == new_text:
        lines.append(f"    {safe(new_text)}")
    else:
        lines.append("    " + render_word_diff(word_diff(old_text, new_text), color=color))
    if change.old_examples != change.new_examples:
        old_ex, new_ex = "\n".join(change.old_examples), "\n".join(change.new_examples)
        diffed = render_word_diff(word_diff(old_ex, new_ex), color=color)
        lines.extend(f"    Example: {line}" for line in diffed.split("\n") if line)
    return lines


def _doc_option(func: Any) -> Any:
    return click.option(
        "--doc",
        type=click.Choice(list(KINDS)),
        default=None,
        metavar="DOC",
        help="A tournament document instead of the CR (mtr, ipg, jar, dmtr, dipg): REF is then"
        " one of its sections.",
    )(func)


@click.command(cls=Command, context_settings=CONTEXT_SETTINGS)
@click.argument("ref", required=False)
@click.option(
    "--from", "from_", metavar="DATE", help="The older edition. Default: the one before --to."
)
@click.option("--to", metavar="DATE", help="The newer edition. Default: the newest stored.")
@_doc_option
@json_option
def diff(
    ref: str | None, from_: str | None, to: str | None, doc: str | None, as_json: bool
) -> None:
    """Show what changed between two editions: in one rule, a rule with its subrules, a
    section, or (no REF) the whole document.

    Renumbered rules are reported as moved (704.5k → 704.5j), not as removed and added, and a
    reference that changed only because the rule it names was renumbered is not a change.
    With --doc (mtr, ipg, jar …), the same for a tournament document: REF is a section (2.5,
    a whole section such as 2, Appendix B), and whitespace alone (a table's line breaks) is
    no change.
    """
    if doc is not None:
        from .docs_diff import show_diff

        show_diff(doc, ref, from_, to, as_json)
        return
    from index.diff import diff_documents
    from index.edition import edition_before

    if from_ is None:
        from_ = edition_before(to, store=open_store())
    old = _stored(from_)
    new = _stored(to)
    changes = diff_documents(old, new, ref)
    if as_json:
        emit_json(
            {"from": old.edition, "to": new.edition, "changes": [c.to_json() for c in changes]}
        )
        return
    what = f"rule {ref}" if ref else "the rules"
    if not changes:
        echo(f"No changes to {what} from {old.edition} to {new.edition}.")
        return
    color = stdout_is_terminal_colored()
    counts = {
        k: sum(c.kind == k for c in changes) for k in ("changed", "moved", "added", "removed")
    }
    summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    echo(f"Changes to {what} from {old.edition} to {new.edition}: {summary}.")
    for change in changes:
        click.echo("")
        click.echo("\n".join(_change_lines(change, color)))


def _event_lines(event: Event, color: bool) -> list[str]:
    from index.diff import word_diff

    if event.kind == "moved":
        head = f"{event.edition}  moved {event.previous} → {event.number}"
    elif event.kind == "removed":
        head = f"{event.edition}  removed (was {event.number})"
    elif event.kind == "earliest":
        head = f"{event.edition}  {event.number} (the oldest edition given)"
    else:
        head = f"{event.edition}  {event.kind} {event.number}"
    lines = [style(head, "strong", color)]
    if event.kind in ("moved", "changed") and event.text != event.previous_text:
        ops = word_diff(event.previous_text or "", event.text or "")
        lines.append("    " + render_word_diff(ops, color=color))
    elif event.text is not None:
        lines.append(f"    {safe(event.text)}")
    return lines


@click.command(cls=Command, context_settings=CONTEXT_SETTINGS)
@click.argument("ref")
@edition_option
@_doc_option
@json_option
def history(ref: str, edition: str | None, doc: str | None, as_json: bool) -> None:
    """Show every stored edition in which a rule was added, changed, moved or removed.

    The rule is REF as numbered in --edition (default: the newest edition that has that
    number), followed back and forward across renumbering. With --doc (mtr, ipg, jar …), a
    section of a tournament document across its stored editions ("judge history --doc ipg
    2.1").
    """
    if doc is not None:
        from .docs_diff import show_history

        show_history(doc, ref, edition, as_json)
        return
    from index.diff import history as rule_history
    from index.edition import open_stored_editions

    store = open_store()
    anchor = store.resolve(edition) if edition is not None else None
    documents = [ed.document for ed in open_stored_editions(store)]
    events = rule_history(documents, ref, anchor)
    number = events[-1].number if events else ref
    if as_json:
        emit_json({"rule": ref.strip(), "events": [e.to_json() for e in events]})
        return
    echo(f"History of rule {ref.strip()} across {len(documents)} stored editions:")
    color = stdout_is_terminal_colored()
    for event in events:
        click.echo("")
        click.echo("\n".join(_event_lines(event, color)))
    if len(events) <= 1:
        click.echo("")
        echo(f"Unchanged since then (now {number}).")


@click.command("cite-check", cls=Command, context_settings=CONTEXT_SETTINGS)
@click.argument("file")
@edition_option
@click.option(
    "--written-for",
    metavar="DATE",
    help="The edition the text was written against: report citations that moved or changed since.",
)
@json_option
def cite_check(file: str, edition: str | None, written_for: str | None, as_json: bool) -> None:
    """Check the rule citations in a text (FILE, or - for standard input) against an edition.

    Numbers missing from the edition are reported. With --written-for, a citation whose rule
    has since moved or changed is reported with its number now; without it, a citation whose
    nearby words ("704.5k (legend rule)") fit another rule far better is flagged as suspicious.
    The file is read as `judge index build` reads rules files (UTF-8, UTF-16, Windows-1252 …).
    """
    from index.citecheck import check_citations, find_citations
    from index.decode import DecodeError, decode_text
    from index.errors import FileReadError
    from index.ingest import read_input

    name = "<stdin>" if file == "-" else file
    try:
        text = decode_text(read_input(file, role="text")).text
    except FileReadError as exc:
        raise click.BadParameter(f"{name}: {exc.reason}", param_hint="'FILE'") from None
    except DecodeError as exc:
        exc.file = name
        raise
    document = _stored(edition)
    then = _stored(written_for) if written_for else None
    checks = check_citations(find_citations(text), document, then)
    if as_json:
        emit_json(
            {
                "edition": document.edition,
                "written_for": then.edition if then else None,
                "citations": [c.to_json() for c in checks],
            }
        )
        return
    if not checks:
        echo(f"No rule citations found in {name}.")
        return
    color = stdout_is_terminal_colored()
    for check in checks:
        c = check.citation
        status = check.status
        if color and status != "ok":
            status = style(status, "deleted" if status == "missing" else "strong", color)
        line = f"{safe(name)}:{c.line}:{c.column}: {safe(c.text)}: {status}"
        if check.note:
            line += f": {safe(check.note)}"
        click.echo(line)
    bad = sum(c.status != "ok" for c in checks)
    echo(f"{plural(len(checks), 'citation')} checked against {document.edition}; {bad} to look at.")
