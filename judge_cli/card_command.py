"""``judge card`` (look cards up), ``judge cards`` (what is stored), ``judge cards import|update``.

Quick on purpose: a lookup opens the sqlite snapshot and reads the few rule families the card's
keywords need, and imports neither whoosh nor markdown-it-py.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from .common import (
    CONTEXT_SETTINGS,
    Command,
    Group,
    completer,
    echo,
    edition_option,
    emit_json,
    json_option,
    open_edition,
)
from .errors import GET_CARDS

if TYPE_CHECKING:
    from index.cards.store import SnapshotInfo
    from index.cards.update import CardUpdateResult

__all__ = ["card", "cards"]


@click.command("card", cls=Command, context_settings=CONTEXT_SETTINGS)
@click.argument(
    "names", nargs=-1, required=True, metavar="NAME...", shell_complete=completer("card_names")
)
@edition_option
@json_option
def card(names: tuple[str, ...], edition: str | None, as_json: bool) -> None:
    """Show cards: Oracle text, rulings, and the rules their keywords name.

    A NAME may be in any case, with or without accents and punctuation, a face of a
    multi-face card, the start of one card's name, or a close misspelling. Quote names that
    have spaces; several names show several cards. The rules come from the CR edition that
    --edition names (default: the newest stored).
    """
    from index.cards.lookup import CardDB

    from .card_render import card_answer, cards_text
    from .render import stdout_is_terminal_colored, terminal_width

    with CardDB.open() as db:
        answer = card_answer(db, names, lambda: open_edition(edition), named=edition is not None)
    if as_json:
        emit_json(answer.json)
        return
    terminal = stdout_is_terminal_colored()
    width = terminal_width() if terminal else 80
    text = cards_text(
        answer.records,
        db.info,
        answer.rules,
        edition_note=answer.note,
        terminal=terminal,
        width=width,
    )
    click.echo(text, nl=False)


def _describe(info: SnapshotInfo) -> str:
    return (
        f"Card data of {info.date}: {info.cards} cards, {info.faces} faces, "
        f"{info.rulings} rulings, from {info.source} (imported {info.imported})."
    )


@click.group("cards", cls=Group, invoke_without_command=True, context_settings=CONTEXT_SETTINGS)
@json_option
@click.pass_context
def cards(ctx: click.Context, as_json: bool) -> None:
    """Show the stored Oracle card data (date, cards, source); import or download it."""
    if ctx.invoked_subcommand is not None:
        return
    from index.cards.store import CardStore

    store = CardStore.from_env()
    info = store.find_info()
    if as_json:
        emit_json(info.to_json() if info is not None else None)
        return
    if info is None:
        echo(f"No card data is stored in {store.root}. {GET_CARDS}")
        return
    echo(_describe(info))


@cards.command("import", context_settings=CONTEXT_SETTINGS)
# A plain string, not click.Path: the library reports an unreadable file itself.
@click.argument("file", metavar="FILE")
@json_option
def cards_import(file: str, as_json: bool) -> None:
    """Store an MTGJSON AtomicCards file (.json, .json.gz, .json.xz; - for standard input).

    The file is recognised by its content, not its name, and read as a stream. The new card
    data answers only once it is complete and checked; until then, and if anything goes wrong,
    the card data stored before keeps answering.
    """
    from index.cards.store import CardStore

    from .common import ProgressLine, stderr_is_terminal

    store = CardStore.from_env()
    bar = ProgressLine("Importing", "KiB") if stderr_is_terminal() and not as_json else None
    try:
        if file == "-":
            info = store.import_cards(sys.stdin.buffer, name="standard input", progress=bar)
        else:
            info = store.import_cards(Path(file), progress=bar)
    except OSError as exc:
        _store_unwritable(store.root, exc)
    finally:
        if bar is not None:
            bar.finish()
    if as_json:
        emit_json(info.to_json())
        return
    echo(
        f"Stored the card data of {info.date} from {info.source}: {info.cards} cards, "
        f"{info.faces} faces, {info.rulings} rulings."
    )


def _store_unwritable(root: Path, exc: OSError) -> NoReturn:
    """Raises the error the table words for an ``OSError`` of the data folder."""
    from index.cards.errors import CardWriteError
    from index.errors import StoreWriteError, os_reason

    if isinstance(exc, CardWriteError):
        raise exc
    raise StoreWriteError(root, os_reason(exc)) from None


def _describe_update(result: CardUpdateResult) -> str:
    date, url, stored = result.date, result.url, result.stored
    if result.status == "added":
        assert stored is not None
        return (
            f"Stored the card data of {stored.date} from {url}: {stored.cards} cards, "
            f"{stored.faces} faces, {stored.rulings} rulings."
        )
    if result.status == "already-stored":
        return f"The card data of {date} ({url}) is already stored; nothing to do."
    if result.status == "newer-available":
        offered = f"of {date} " if date else ""
        return (
            f"Newer card data {offered}is available: {url}.\n"
            "Run `judge cards update` to download it."
        )
    held = stored.date if stored is not None else None
    if date == held:
        return f"Up to date: the card data offered, {date}, is already stored."
    return f"Up to date: the card data offered, {date}, is older than the stored {held}."


@cards.command("update", context_settings=CONTEXT_SETTINGS)
@click.option(
    "--url",
    metavar="URL",
    help="The AtomicCards file to download (.json, .json.gz or .json.xz), or a file path."
    " [default: https://mtgjson.com/api/v5/AtomicCards.json.xz]",
)
@click.option(
    "--check", "check_only", is_flag=True, help="Only report whether newer card data exists."
)
@json_option
def cards_update(url: str | None, check_only: bool, as_json: bool) -> None:
    """Download MTGJSON's AtomicCards file and store it, unless it is already stored.

    The sha256 and the build date MTGJSON publishes beside the file tell, without downloading
    it, whether it is the card data stored; otherwise the download's own sha256 does. The new
    card data answers only once it is complete and checked; until then, and if anything goes
    wrong, the card data stored before keeps answering.
    """
    from index.cards.store import CardStore
    from index.cards.update import update_cards

    from .common import ProgressLine, stderr_is_terminal

    store = CardStore.from_env()
    interactive = stderr_is_terminal() and not as_json
    downloading = ProgressLine("Downloading", "KiB") if interactive else None
    importing = ProgressLine("Importing", "KiB") if interactive else None

    def imported(done: int, total: int | None) -> None:
        assert importing is not None and downloading is not None
        downloading.finish()
        importing(done, total)

    try:
        result = update_cards(
            store,
            url,
            check_only=check_only,
            progress=downloading,
            import_progress=imported if interactive else None,
        )
    except OSError as exc:
        _store_unwritable(store.root, exc)
    finally:
        for bar in (downloading, importing):
            if bar is not None:
                bar.finish()
    if as_json:
        emit_json(result.to_json())
        return
    echo(_describe_update(result))
