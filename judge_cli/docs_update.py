"""``judge update --docs``: the newest MTR, IPG and JAR from Wizards Play Network, stored.

Thin over :func:`index.fetch.documents.update_documents`. Each document is reported on its own
line; one that could not be updated is an ``Error:`` line at the end, and the exit status is 1,
as ``judge index build`` does for a file among several.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .common import echo, emit_json, open_store

if TYPE_CHECKING:
    from index.fetch.documents import DocumentUpdate

__all__ = ["update_documents"]


def _label(kind: str | None) -> str:
    from index.tournament.kinds import LABELS

    return LABELS.get(kind or "", "document")


def _describe(result: DocumentUpdate) -> str:
    label = _label(result.document)
    if result.status == "added":
        return f"Added the {label} {result.edition} from {result.url}."
    if result.status == "already-stored":
        return f"The {label} {result.edition} ({result.url}) is already stored; nothing to do."
    if result.status == "newer-available":
        return f"A newer {label} is available: {result.edition} ({result.url})."
    return f"Up to date: the newest {label} offered, {result.edition}, is already stored."


def update_documents(url: str | None, *, check_only: bool, as_json: bool) -> None:
    """Runs ``judge update --docs``."""
    from index.errors import StoreWriteError, os_reason
    from index.fetch.documents import update_documents as run_update
    from index.tournament.store import DocumentStore

    from .common import ProgressLine, stderr_is_terminal
    from .errors import describe

    store = open_store()
    bar = ProgressLine("Downloading", "KiB") if stderr_is_terminal() and not as_json else None
    try:
        result = run_update(DocumentStore(store.root), url, check_only=check_only, progress=bar)
    except OSError as error:
        raise StoreWriteError(store.root, os_reason(error)) from None
    finally:
        if bar is not None:
            bar.finish()

    def message(error: Exception) -> str:
        found = describe(error)
        return found.message if found else str(error)

    for one in result.documents:
        for problem in one.problems:
            echo(f"Warning: {message(problem)}", err=True)
    if as_json:
        records = []
        for one in result.documents:
            record = one.to_json()
            if one.error is not None:
                record["error"] = message(one.error)
            records.append(record)
        emit_json({"url": result.page_url, "documents": records})
    else:
        for one in result.documents:
            if one.status != "failed":
                echo(_describe(one))
        if any(one.status == "newer-available" for one in result.documents):
            newer = sum(one.status == "newer-available" for one in result.documents)
            echo(f"Run `judge update --docs` to download {'it' if newer == 1 else 'them'}.")
    failed = result.failed
    if not failed:
        return
    for one in failed:
        assert one.error is not None
        echo(f"Error: {message(one.error)}", err=True)
    names = ", ".join(_label(one.document) for one in failed)
    raise click.ClickException(
        f"{len(failed)} of {len(result.documents)} documents not updated ({names})."
    )
