"""``judge card`` (look cards up), ``judge cards`` (what is stored) and ``judge cards import``.

Quick on purpose: a lookup opens the sqlite snapshot and reads the few rule families the card's
keywords need, and imports neither whoosh nor markdown-it-py.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .common import CONTEXT_SETTINGS, edition_option, emit_json, fail, json_option

if TYPE_CHECKING:
    from index.cards.rules import KeywordRules
    from index.cards.store import SnapshotInfo

__all__ = ["GET_CARDS", "card", "cards"]

GET_CARDS = (
    "Download MTGJSON's AtomicCards file (https://mtgjson.com/api/v5/AtomicCards.json.xz) "
    "and run `judge cards import FILE`."
)
"""How to get card data, said whenever there is none."""


def _edition_rules(edition: str | None, keywords: list[str]) -> tuple[KeywordRules | None, str]:
    """The rules the keywords name in the edition asked for, or ``None`` and why there are none."""
    from index.cards.rules import find_keyword_rules
    from index.store import EditionStore, NoEditionError

    from .common import GET_RULES, fail_not_stored, wants_newest, wants_sample

    if wants_sample(edition):
        return None, "No rules shown: the bundled sample has no numbered rules."
    try:
        return find_keyword_rules(EditionStore.from_env(), edition, keywords), ""
    except NoEditionError as exc:
        if wants_newest(edition) and not exc.stored:
            return None, "No rules shown: no Comprehensive Rules edition is stored. " + GET_RULES
        fail_not_stored(edition, exc.stored)


def _unknown_message(exc: Any) -> str:
    from .card_render import harmless

    name = harmless(exc.name)
    names = ", ".join(harmless(n) for n in exc.suggestions)
    if exc.ambiguous:
        return f"several cards' names start with “{name}”: {names}. Give more of the name."
    hint = f" Did you mean: {names}?" if names else ""
    return f"no card named “{name}” in the card data.{hint}"


@click.command("card", context_settings=CONTEXT_SETTINGS)
@click.argument("names", nargs=-1, required=True, metavar="NAME...")
@edition_option
@json_option
def card(names: tuple[str, ...], edition: str | None, as_json: bool) -> None:
    """Show cards: Oracle text, rulings, and the rules their keywords name.

    A NAME may be in any case, with or without accents and punctuation, a face of a
    multi-face card, the start of one card's name, or a close misspelling. Quote names that
    have spaces; several names show several cards. The rules come from the CR edition that
    --edition names (default: the newest stored).
    """
    from index.cards.errors import CardStoreError, NoCardStoreError, UnknownCardError
    from index.cards.lookup import CardDB

    from .card_render import card_record, cards_text

    try:
        db = CardDB.open()
    except NoCardStoreError as exc:
        fail(f"{exc}. {GET_CARDS}")
    except CardStoreError as exc:
        fail(f"{exc}. Import the card file again with `judge cards import FILE`.")
    with db:
        matches = []
        for name in names:
            try:
                matches.extend(db.get(name))
            except UnknownCardError as exc:
                fail(_unknown_message(exc))
    keywords = list(dict.fromkeys(k for m in matches for k in m.card.keywords))
    rules, note = _edition_rules(edition, keywords)
    records = [card_record(m, rules) for m in matches]
    if as_json:
        emit_json(
            {
                "source": {"date": db.info.date, "cards": db.info.cards},
                "edition": rules.edition if rules is not None else None,
                "cards": records,
            }
        )
        return
    terminal = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    width = 80
    if terminal:
        import shutil

        width = min(shutil.get_terminal_size((80, 24)).columns, 80)
    text = cards_text(records, db.info, rules, edition_note=note, terminal=terminal, width=width)
    click.echo(text, nl=False)


def _describe(info: SnapshotInfo) -> str:
    from .card_render import harmless

    return harmless(
        f"Card data of {info.date}: {info.cards} cards, {info.faces} faces, "
        f"{info.rulings} rulings, from {info.source} (imported {info.imported})."
    )


@click.group("cards", invoke_without_command=True, context_settings=CONTEXT_SETTINGS)
@json_option
@click.pass_context
def cards(ctx: click.Context, as_json: bool) -> None:
    """Show the stored Oracle card data (date, cards, source), or import a card file."""
    if ctx.invoked_subcommand is not None:
        return
    from index.cards.errors import CardStoreError
    from index.cards.store import CardStore

    store = CardStore.from_env()
    try:
        info = store.find_info()
    except CardStoreError as exc:
        fail(f"{exc}. Import the card file again with `judge cards import FILE`.")
    if as_json:
        emit_json(info.to_json() if info is not None else None)
        return
    if info is None:
        click.echo(f"No card data is stored in {store.root}. {GET_CARDS}")
        return
    click.echo(_describe(info))


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
    from index.cards.errors import CardFileError, OlderSnapshotError
    from index.cards.store import CardStore

    from .common import ProgressLine, stderr_is_terminal

    store = CardStore.from_env()
    bar = ProgressLine("Importing", "KiB") if stderr_is_terminal() and not as_json else None
    kept = "the card data stored before still answers" if store.find_info_quietly() else ""
    nothing = "Nothing was stored" + (f"; {kept}." if kept else ".")
    try:
        if file == "-":
            info = store.import_cards(sys.stdin.buffer, name="standard input", progress=bar)
        else:
            info = store.import_cards(Path(file), progress=bar)
    except CardFileError as exc:
        fail(f"{exc}. {nothing} Use MTGJSON's AtomicCards file (.json, .json.gz or .json.xz).")
    except OlderSnapshotError as exc:
        fail(f"{exc}. Nothing was changed.")
    except OSError as exc:
        fail(f"could not write to {store.root} ({exc.strerror or exc}). {nothing}")
    finally:
        if bar is not None:
            bar.finish()
    if as_json:
        emit_json(info.to_json())
        return
    from .card_render import harmless

    click.echo(
        harmless(
            f"Stored the card data of {info.date} from {info.source}: {info.cards} cards, "
            f"{info.faces} faces, {info.rulings} rulings."
        )
    )
