"""``judge update``: download the newest Comprehensive Rules from Wizards and store them.

With ``--docs``, the tournament documents instead (:mod:`judge_cli.docs_update`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .common import CONTEXT_SETTINGS, Command, json_option

if TYPE_CHECKING:
    from pathlib import Path

    from index.fetch import UpdateResult
    from index.model import Document

__all__ = ["update"]

_RULES_PAGE = "https://magic.wizards.com/en/rules"
_DOCUMENTS_PAGE = "https://wpn.wizards.com/en/rules-documents"


def _is_terminal() -> bool:
    """Checks if stderr is a terminal (progress is shown only then, never in pipes or tests)."""
    from .common import stderr_is_terminal

    return stderr_is_terminal()


def _describe(result: UpdateResult) -> str:
    if result.status == "added":
        return f"Added the {result.edition} edition of the Comprehensive Rules from {result.url}."
    if result.status == "already-stored":
        return f"The {result.edition} edition ({result.url}) is already stored; nothing to do."
    if result.status == "newer-available":
        return (
            f"A newer edition is available: {result.edition} ({result.url}).\n"
            "Run `judge update` to download it."
        )
    return f"Up to date: the newest edition offered, {result.edition}, is already stored."


@click.command("update", cls=Command, context_settings=CONTEXT_SETTINGS)
@click.option(
    "--url",
    metavar="URL",
    help=(
        f"The rules page to read, or a direct .txt link or file path. [default: {_RULES_PAGE};"
        f" with --docs: {_DOCUMENTS_PAGE}, or a PDF's link or path]"
    ),
)
@click.option(
    "--check", "check_only", is_flag=True, help="Only report whether a newer edition exists."
)
@click.option(
    "--docs",
    is_flag=True,
    help="The tournament documents (MTR, IPG, JAR) instead of the Comprehensive Rules.",
)
@json_option
def update(url: str | None, check_only: bool, docs: bool, as_json: bool) -> None:
    """Download the newest Comprehensive Rules from Wizards and store them as an edition.

    The rules page is searched for the Comprehensive Rules .txt link; the file must parse as the
    rules before anything is stored, and an edition already stored is not downloaded again.
    With --docs, Wizards Play Network's rules-documents page is searched for the MTR, IPG and
    JAR PDFs, with the same care; each document is stored, or fails, on its own.
    """
    if docs:
        from .docs_update import update_documents

        update_documents(url, check_only=check_only, as_json=as_json)
        return
    from index.errors import StoreWriteError, os_reason
    from index.fetch import update as run_update
    from index.search import build_search_index

    from .building import vectors_builder
    from .common import ProgressLine, echo, emit_json, open_store
    from .errors import describe

    store = open_store()
    interactive = _is_terminal() and not as_json
    bar = ProgressLine("Downloading", "KiB") if interactive else None
    vectors = None if check_only else vectors_builder(store)

    def build(doc: Document, folder: Path) -> None:
        # Runs inside the new edition's folder before it goes live (see EditionStore.add_bytes).
        if bar is None:
            build_search_index(doc, folder)
        else:
            bar.finish()
            click.echo(f"Building the search index for {doc.edition}…", err=True)
            indexing = ProgressLine("Indexing", "documents")
            build_search_index(doc, folder, progress=indexing)
            indexing.finish()
        if vectors is not None:
            vectors(doc, folder)

    try:
        result = run_update(store, url, check_only=check_only, progress=bar, extra=build)
    except OSError as error:
        raise StoreWriteError(store.root, os_reason(error)) from None
    finally:
        if bar is not None:
            bar.finish()
    for problem in result.problems:
        described = describe(problem)
        echo(f"Warning: {described.message if described else problem}", err=True)
    if as_json:
        emit_json(result.to_json())
    else:
        echo(_describe(result))
