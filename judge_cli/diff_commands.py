"""``judge diff``, ``judge history`` and ``judge cite-check``: rules across editions.

Thin commands over :mod:`index.diff` and :mod:`index.citecheck`. Word-level changes print as
``[-removed-]{+added+}`` when piped (the form ``git diff --word-diff=plain`` uses) and in red and
green on a terminal.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from .common import (
    CONTEXT_SETTINGS,
    GET_RULES,
    edition_option,
    emit_json,
    fail,
    fail_not_stored,
    json_option,
    stdout_is_terminal,
)

if TYPE_CHECKING:
    from index.diff import Change, Event, WordOp
    from index.model import Document

__all__ = ["cite_check", "diff", "history"]

_RED, _GREEN, _BOLD, _RESET = "\x1b[31m", "\x1b[32m", "\x1b[1m", "\x1b[0m"


def _use_color() -> bool:
    return stdout_is_terminal() and "NO_COLOR" not in os.environ


def render_word_diff(ops: list[WordOp], *, color: bool) -> str:
    """One line of text with the deletions and insertions marked."""
    parts: list[str] = []
    for op in ops:
        if op.op == "equal":
            parts.append(op.text)
        elif op.op == "delete":
            parts.append(f"{_RED}{op.text}{_RESET}" if color else f"[-{op.text}-]")
        else:
            parts.append(f"{_GREEN}{op.text}{_RESET}" if color else f"{{+{op.text}+}}")
    return "".join(parts)


def _load(edition: str | None, option: str) -> Document:
    from .common import load_document

    loaded = load_document(edition)
    if loaded.is_sample:
        fail(f"{option} needs a stored edition, and none is stored. {GET_RULES}")
    return loaded.document


def _edition_before(to: str | None) -> str:
    from index.store import EditionStore, NoEditionError

    store = EditionStore.from_env()
    try:
        newer = store.resolve(to)
    except NoEditionError as exc:
        fail_not_stored(to, exc.stored)
    older = [d for d in store.dates() if d < newer]
    if not older:
        fail(f"no edition older than {newer} is stored: give --from, or store an older edition.")
    return older[-1]


def _unknown_rule(exc: Exception, where: str) -> None:
    from index.model import UnknownRuleError

    if isinstance(exc, UnknownRuleError):
        near = f" Nearest: {', '.join(exc.nearest)}." if exc.nearest else ""
        fail(f"no rule {exc.number} in {where}.{near}")
    raise click.UsageError(f"{exc}. A rule reference looks like 704.5j, 704.5, 704, 7 or 601.2a-h.")


def _change_lines(change: Change, color: bool) -> list[str]:
    from index.diff import word_diff

    bold = (lambda s: f"{_BOLD}{s}{_RESET}") if color else (lambda s: s)
    if change.kind == "added":
        return [bold(f"added {change.new}"), f"    {change.new_text}"]
    if change.kind == "removed":
        return [bold(f"removed {change.old}"), f"    {change.old_text}"]
    head = (
        f"moved {change.old} → {change.new}" if change.kind == "moved" else f"changed {change.new}"
    )
    lines = [bold(head)]
    old_text, new_text = change.old_text or "", change.new_text or ""
    if old_text == new_text:
        lines.append(f"    {new_text}")
    else:
        lines.append("    " + render_word_diff(word_diff(old_text, new_text), color=color))
    if change.old_examples != change.new_examples:
        old_ex, new_ex = "\n".join(change.old_examples), "\n".join(change.new_examples)
        diffed = render_word_diff(word_diff(old_ex, new_ex), color=color)
        lines.extend(f"    Example: {line}" for line in diffed.split("\n") if line)
    return lines


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("ref", required=False)
@click.option(
    "--from", "from_", metavar="DATE", help="The older edition. Default: the one before --to."
)
@click.option("--to", metavar="DATE", help="The newer edition. Default: the newest stored.")
@json_option
def diff(ref: str | None, from_: str | None, to: str | None, as_json: bool) -> None:
    """Show what changed between two editions: in one rule, a rule with its subrules, a
    section, or (no REF) the whole document.

    Renumbered rules are reported as moved (704.5k → 704.5j), not as removed and added, and a
    reference that changed only because the rule it names was renumbered is not a change.
    """
    from index.diff import diff_documents
    from index.model import UnknownRuleError
    from index.numbers import InvalidRuleReferenceError

    if from_ is None:
        from_ = _edition_before(to)
    old = _load(from_, "--from")
    new = _load(to, "--to")
    try:
        changes = diff_documents(old, new, ref)
    except (UnknownRuleError, InvalidRuleReferenceError) as exc:
        _unknown_rule(exc, f"either the {old.edition} or the {new.edition} edition")
        return
    if as_json:
        emit_json(
            {"from": old.edition, "to": new.edition, "changes": [c.to_json() for c in changes]}
        )
        return
    what = f"rule {ref}" if ref else "the rules"
    if not changes:
        click.echo(f"No changes to {what} from {old.edition} to {new.edition}.")
        return
    color = _use_color()
    counts = {
        k: sum(c.kind == k for c in changes) for k in ("changed", "moved", "added", "removed")
    }
    summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    click.echo(f"Changes to {what} from {old.edition} to {new.edition}: {summary}.")
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
    lines = [f"{_BOLD}{head}{_RESET}" if color else head]
    if event.kind in ("moved", "changed") and event.text != event.previous_text:
        ops = word_diff(event.previous_text or "", event.text or "")
        lines.append("    " + render_word_diff(ops, color=color))
    elif event.text is not None:
        lines.append(f"    {event.text}")
    return lines


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("ref")
@edition_option
@json_option
def history(ref: str, edition: str | None, as_json: bool) -> None:
    """Show every stored edition in which a rule was added, changed, moved or removed.

    The rule is REF as numbered in --edition (default: the newest edition that has that
    number), followed back and forward across renumbering.
    """
    from index.diff import history as rule_history
    from index.model import UnknownRuleError
    from index.numbers import InvalidRuleReferenceError
    from index.store import EditionStore, NoEditionError

    store = EditionStore.from_env()
    dates = store.dates()
    if not dates:
        fail(f"history needs stored editions, and none is stored. {GET_RULES}")
    anchor = None
    try:
        if edition is not None:
            anchor = store.resolve(edition)
        documents = [store.load(d).document for d in dates]
    except NoEditionError as exc:
        fail(f"{exc}. Run `judge editions` to list them.")
    except (OSError, ValueError, KeyError) as exc:
        fail(f"a stored edition could not be read ({exc}). Rebuild it with `judge index build`.")
    try:
        events = rule_history(documents, ref, anchor)
    except (UnknownRuleError, InvalidRuleReferenceError) as exc:
        where = f"the {anchor} edition" if anchor else "any stored edition"
        _unknown_rule(exc, where)
        return
    number = events[-1].number if events else ref
    if as_json:
        emit_json({"rule": ref.strip(), "events": [e.to_json() for e in events]})
        return
    click.echo(f"History of rule {ref.strip()} across {len(dates)} stored editions:")
    color = _use_color()
    for event in events:
        click.echo("")
        click.echo("\n".join(_event_lines(event, color)))
    if len(events) <= 1:
        click.echo("")
        click.echo(f"Unchanged since then (now {number}).")


@click.command("cite-check", context_settings=CONTEXT_SETTINGS)
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
    from index.decode import (
        DecodeError,
        FileTooLargeError,
        decode_text,
        read_rules_file,
        read_rules_stream,
    )

    name = "<stdin>" if file == "-" else file
    try:
        if file == "-":
            import sys

            # The bytes, not text: they are decoded as any rules file is.
            data = read_rules_stream(sys.stdin.buffer, name)
        else:
            data = read_rules_file(file)
        text = decode_text(data).text
    except FileTooLargeError as exc:
        fail(f"{name}: {exc}. Check a smaller text.")
    except DecodeError as exc:
        fail(f"{name}: {exc}. cite-check reads text files (UTF-8, UTF-16, Windows-1252 …).")
    except OSError as exc:
        raise click.BadParameter(f"{name}: {exc.strerror or exc}", param_hint="'FILE'") from None
    document = _load(edition, "cite-check")
    then = _load(written_for, "--written-for") if written_for else None
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
        click.echo(f"No rule citations found in {name}.")
        return
    color = _use_color()
    for check in checks:
        c = check.citation
        status = check.status
        if color and status != "ok":
            status = f"{_RED if status == 'missing' else _BOLD}{status}{_RESET}"
        line = f"{name}:{c.line}:{c.column}: {c.text}: {status}"
        if check.note:
            line += f": {check.note}"
        click.echo(line)
    bad = sum(c.status != "ok" for c in checks)
    counted = f"{len(checks)} citation{'' if len(checks) == 1 else 's'}"
    click.echo(f"{counted} checked against {document.edition}; {bad} to look at.")
