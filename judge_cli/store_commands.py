"""The commands that manage the store: ``judge editions``, ``judge index``, ``judge notes``.

Imported only when one of them runs: see ``LAZY_COMMANDS`` in
:mod:`judge_cli.cli`.
"""

from __future__ import annotations

import click

from index.tournament.kinds import KINDS

from .common import (
    CONTEXT_SETTINGS,
    Command,
    Group,
    echo,
    emit_json,
    json_option,
    open_store,
    plural,
)

__all__ = ["editions", "index_group", "notes_group"]


@click.command(cls=Command, context_settings=CONTEXT_SETTINGS)
@json_option
def editions(as_json: bool) -> None:
    """List the stored editions (date, rules, glossary entries, source) and tournament documents."""
    from index.tournament.kinds import LABELS
    from index.tournament.store import DocumentStore

    from .building import read_as
    from .errors import GET_RULES

    store = open_store()
    infos = store.editions()
    documents = DocumentStore(store.root)
    stored_documents = documents.editions()
    if as_json:
        from .answers import editions_records

        emit_json(editions_records(store))
        return
    if not infos and not stored_documents:
        echo(f"No edition is stored in {store.root}. {GET_RULES}")
    newest = infos[-1].edition if infos else None
    for info in infos:
        mark = "  (newest)" if info.edition == newest else ""
        read = read_as(info.encoding, info.undecodable).removeprefix(", ")
        echo(
            f"{info.edition}  {info.rules:5d} rules  {info.glossary:4d} glossary entries  "
            f"{info.source}{mark}" + (f"  ({read})" if read else "")
        )
    for date in store.damaged():
        echo(
            f"{date}  damaged: no complete build. Rebuild it with `judge index build FILE`, "
            f"or remove it with `judge index remove {date}`."
        )
    for doc in stored_documents:
        mark = "  (newest)" if doc.edition == documents.dates(doc.document)[-1] else ""
        echo(
            f"{LABELS[doc.document]:11} {doc.edition}  {doc.sections:4d} sections  "
            f"{doc.source}{mark}"
        )
    for kind in LABELS:
        for date in documents.damaged(kind):
            echo(
                f"{LABELS[kind]:11} {date}  damaged: no complete build. Rebuild it with `judge"
                f" index build FILE`, or remove it with `judge index remove --doc {kind} {date}`."
            )


@click.group("index", cls=Group, context_settings=CONTEXT_SETTINGS)
def index_group() -> None:
    """Store, rebuild and remove editions."""


@index_group.command("build", context_settings=CONTEXT_SETTINGS)
# Plain strings, not click.Path: building a click.Path imports locale at start-up, and
# the library reports unreadable paths itself.
@click.argument("files", nargs=-1, required=True)
@click.option(
    "--replace",
    is_flag=True,
    help="Store a file even if it reads worse than the stored edition of its date.",
)
@json_option
def index_build(files: tuple[str, ...], replace: bool, as_json: bool) -> None:
    """Parse CR text files and store each as an edition named by its effective date.

    A Markdown file (.md) is stored as notes, searched alongside every edition. The MTR, IPG
    and JAR (the PDF Wizards publishes, or its text) are stored by document and date. Every
    file is tried, in order; a file that cannot be stored changes nothing and is reported at
    the end.
    """
    from .building import build_files

    build_files(list(files), as_json=as_json, replace=replace)


@click.group("notes", cls=Group, invoke_without_command=True, context_settings=CONTEXT_SETTINGS)
@json_option
@click.pass_context
def notes_group(ctx: click.Context, as_json: bool) -> None:
    """List the stored notes (Markdown files searched with every edition)."""
    if ctx.invoked_subcommand is not None:
        return
    from index.documents import read_markdown

    store = open_store()
    listed = [
        (name, len(read_markdown(text, name)), len(text.encode())) for name, text in store.notes()
    ]
    if as_json:
        emit_json([{"name": n, "sections": s, "bytes": b} for n, s, b in listed])
        return
    if not listed:
        echo("No notes are stored. Store a Markdown file with `judge index build FILE.md`.")
    for name, sections, size in listed:
        echo(f"{name}  {plural(sections, 'section')}  {size:,} bytes")


@notes_group.command("remove", context_settings=CONTEXT_SETTINGS)
@click.argument("name")
def notes_remove(name: str) -> None:
    """Delete stored notes by name."""
    open_store().remove_notes(name)
    echo(f"Removed notes {name}.")


@index_group.command("remove", context_settings=CONTEXT_SETTINGS)
@click.argument("edition")
@click.option(
    "--doc",
    type=click.Choice(list(KINDS)),
    default=None,
    metavar="DOC",
    help="Remove an edition of a tournament document (mtr, ipg, jar, dmtr, dipg) instead:"
    " judge index remove --doc ipg 2024-04-15.",
)
def index_remove(edition: str, doc: str | None) -> None:
    """Delete a stored edition (by its date, as `judge editions` lists it)."""
    if doc is not None:
        from index.tournament.kinds import LABELS
        from index.tournament.store import DocumentStore

        DocumentStore(open_store().root).remove(doc, edition)
        echo(f"Removed the {LABELS[doc]} {edition}.")
        return
    open_store().remove(edition)
    echo(f"Removed edition {edition}.")
