"""``judge diff --doc`` and ``judge history --doc``: a tournament document across its editions.

The records (:func:`diff_record`, :func:`history_record`) are the ``--json`` of the commands and
the server's answers alike. Text output shows, for each section, the paragraphs that changed
with their words marked as the CR's diff marks them; the paragraphs between are elided.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from .common import echo, emit_json, open_store, plural
from .render import safe, stdout_is_terminal_colored, style

if TYPE_CHECKING:
    from index.diff import WordOp
    from index.tournament.store import DocumentStore

__all__ = ["diff_record", "history_record", "show_diff", "show_history"]


def _documents() -> DocumentStore:
    from index.tournament.store import DocumentStore

    return DocumentStore(open_store().root)


def diff_record(
    documents: DocumentStore, kind: str, section: str | None, from_: str | None, to: str | None
) -> dict[str, Any]:
    """The ``judge diff --doc KIND [SECTION] --json`` record (the CR's keys and ``document``)."""
    from index.tournament.diff import diff_sections

    new_date = documents.resolve(kind, to)
    old_date = (
        documents.resolve(kind, from_)
        if from_ is not None
        else documents.edition_before(kind, new_date)
    )
    old, new = documents.load(kind, old_date), documents.load(kind, new_date)
    found = diff_sections(old, new, section)
    return {
        "document": kind,
        "from": old.edition,
        "to": new.edition,
        "changes": [c.to_json() for c in found],
        "section": section.strip() if section else None,
    }


def history_record(
    documents: DocumentStore, kind: str, section: str, edition: str | None
) -> dict[str, Any]:
    """The ``judge history --doc KIND SECTION --json`` record (the CR's keys and ``document``)."""
    from index.tournament.diff import section_history
    from index.tournament.store import NoDocumentError

    anchor = documents.resolve(kind, edition) if edition is not None else None
    dates = documents.dates(kind)
    if not dates:
        raise NoDocumentError(kind, None, dates)
    events = section_history([documents.load(kind, d) for d in dates], section, anchor)
    return {
        "document": kind,
        "rule": section.strip(),
        "events": [e.to_json() for e in events],
        "section": events[-1].number if events else section.strip(),
        "editions": len(dates),
    }


# --- text -------------------------------------------------------------------------------------


def _lines(ops: list[WordOp]) -> list[list[WordOp]]:
    """The ops of a word diff cut at the newlines of its text (one list per paragraph)."""
    from index.diff import WordOp

    lines: list[list[WordOp]] = [[]]
    for op in ops:
        pieces = op.text.split("\n")
        for i, piece in enumerate(pieces):
            if i:
                lines.append([])
            if piece:
                lines[-1].append(WordOp(op.op, piece))
    return lines


# Above this many words on either side, a changed run of paragraphs is shown as removed and
# added rather than word by word (a rewritten list of changes would take seconds to align).
_WORD_DIFF_WORDS = 1500


def _paragraph_lines(old: str, new: str) -> list[list[WordOp]]:
    """The two texts as lines of word-diff ops: paragraphs paired first, then their words."""
    import difflib

    from glossary.fold import fold_text
    from index.diff import WordOp, word_diff

    a, b = old.split("\n"), new.split("\n")
    matcher = difflib.SequenceMatcher(
        None,
        [" ".join(fold_text(p).split()) for p in a],
        [" ".join(fold_text(p).split()) for p in b],
        autojunk=False,
    )
    lines: list[list[WordOp]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        before, after = "\n".join(a[i1:i2]), "\n".join(b[j1:j2])
        if tag == "equal":
            lines.extend([WordOp("equal", p)] for p in a[i1:i2])
        elif tag == "replace" and max(len(before.split()), len(after.split())) <= _WORD_DIFF_WORDS:
            # Re-wrapped paragraphs (a table broken otherwise) come out equal here.
            lines.extend(_lines(word_diff(before, after)))
        else:
            lines.extend([WordOp("delete", p)] for p in a[i1:i2] if p)
            lines.extend([WordOp("insert", p)] for p in b[j1:j2] if p)
    return lines


def _changed_paragraphs(old: str, new: str, color: bool) -> list[str]:
    """The paragraphs that changed, words marked, ``…`` where unchanged ones are left out."""
    from .diff_commands import render_word_diff

    out: list[str] = []
    for line in _paragraph_lines(old, new):
        if any(op.op != "equal" for op in line):
            out.append("    " + render_word_diff(line, color=color))
        elif out and out[-1] != "    …":
            out.append("    …")
    while out and out[-1] == "    …":
        out.pop()
    return out


def _label(kind: str, number: str | None, title: str | None) -> str:
    from .docs_answers import section_label

    return section_label(kind, number or "", title)


def _change_lines(kind: str, change: dict[str, Any], color: bool) -> list[str]:
    what, old, new = change["kind"], change["old"], change["new"]
    old_title, new_title = change["old_title"], change["new_title"]
    if what in ("added", "removed"):
        number, title, text = (
            (new, new_title, change["new_text"])
            if what == "added"
            else (old, old_title, change["old_text"])
        )
        head = style(f"{what} {_label(kind, number, title)}", "strong", color)
        return [head, *(f"    {safe(p)}" for p in (text or "").split("\n") if p.strip())]
    if what == "moved":
        head = f"moved {old} → {_label(kind, new, new_title)}"
    else:
        head = f"changed {_label(kind, new, new_title)}"
    lines = [style(head, "strong", color)]
    if old_title != new_title:
        lines.append(f"    Title: {safe(old_title or '')} → {safe(new_title or '')}")
    lines.extend(_changed_paragraphs(change["old_text"] or "", change["new_text"] or "", color))
    return lines


def show_diff(
    kind: str, section: str | None, from_: str | None, to: str | None, as_json: bool
) -> None:
    """Runs ``judge diff --doc``."""
    from index.tournament.kinds import LABELS

    record = diff_record(_documents(), kind, section, from_, to)
    if as_json:
        emit_json(record)
        return
    label = LABELS[kind]
    what = f"{label} section {record['section']}" if section else f"the {label}"
    changes = record["changes"]
    if not changes:
        echo(f"No changes to {what} from {record['from']} to {record['to']}.")
        return
    counts = {
        k: sum(c["kind"] == k for c in changes) for k in ("changed", "moved", "added", "removed")
    }
    summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    echo(f"Changes to {what} from {record['from']} to {record['to']}: {summary}.")
    color = stdout_is_terminal_colored()
    for change in changes:
        click.echo("")
        click.echo("\n".join(_change_lines(kind, change, color)))


def _event_lines(kind: str, event: dict[str, Any], color: bool) -> list[str]:
    edition, number, title = event["edition"], event["number"], event["title"]
    if event["kind"] == "moved":
        head = f"{edition}  moved {event['previous']} → {_label(kind, number, title)}"
    elif event["kind"] == "removed":
        head = f"{edition}  removed (was {_label(kind, number, event['previous_title'])})"
    elif event["kind"] == "earliest":
        head = f"{edition}  {_label(kind, number, title)} (the oldest edition stored)"
    else:
        head = f"{edition}  {event['kind']} {_label(kind, number, title)}"
    lines = [style(head, "strong", color)]
    if event["kind"] in ("moved", "changed"):
        if event["previous_title"] != title:
            lines.append(f"    Title: {safe(event['previous_title'] or '')} → {safe(title or '')}")
        lines.extend(_changed_paragraphs(event["previous_text"] or "", event["text"] or "", color))
    return lines


def show_history(kind: str, section: str, edition: str | None, as_json: bool) -> None:
    """Runs ``judge history --doc``."""
    from index.tournament.kinds import LABELS

    record = history_record(_documents(), kind, section, edition)
    if as_json:
        emit_json(record)
        return
    stored = plural(record["editions"], "stored edition")
    echo(f"History of {LABELS[kind]} section {section.strip()} across {stored}:")
    color = stdout_is_terminal_colored()
    for event in record["events"]:
        click.echo("")
        click.echo("\n".join(_event_lines(kind, event, color)))
    if len(record["events"]) <= 1:
        click.echo("")
        echo(f"Unchanged since then (now {record['section']}).")
