"""``judge check FILE``: replay a board through the state-based actions and print the ruling."""

from __future__ import annotations

import click

from ..common import (
    CONTEXT_SETTINGS,
    Command,
    echo,
    edition_option,
    emit_json,
    json_option,
    open_edition,
    sample_notice,
)

__all__ = ["check"]


@click.command("check", cls=Command, context_settings=CONTEXT_SETTINGS)
@click.argument("file", metavar="FILE")
@edition_option
@json_option
@click.option(
    "--markdown", "as_markdown", is_flag=True, help="Print a Markdown ruling ready to paste."
)
def check(file: str, edition: str | None, as_json: bool, as_markdown: bool) -> None:
    """Replay the board in FILE through the state-based actions and explain the ruling.

    FILE is YAML, JSON, or a Markdown question whose first ```yaml block is the board.
    An object may name its card (`card: Darksteel Citadel`): its types, colors, P/T and
    keywords then come from the stored card data, and what the file writes wins.
    The edition is --edition, else the file's `edition:`, else the newest stored.
    """
    if as_json and as_markdown:
        raise click.UsageError("use --json or --markdown, not both")
    # Imported here so that `judge --help` stays fast.
    from index.errors import FileReadError, os_reason

    from .cards import load_with_cards
    from .loader import load_scenario_path
    from .ruling import ruling_json, ruling_markdown, ruling_text
    from .sba import Note, replay

    try:
        scenario, cards = load_with_cards(lambda fill: load_scenario_path(file, fill=fill))
    except OSError as exc:
        missing = isinstance(exc, FileNotFoundError)
        raise FileReadError(file, os_reason(exc), missing=missing, role="scenario") from None
    board = scenario.board
    ed = open_edition(edition or board.edition)
    result = replay(board, ed)
    if edition and board.edition and edition != board.edition:
        result.notes.insert(
            0,
            Note(
                result.rules.loop_rule,
                f"--edition {edition} overrides the file's edition {board.edition}",
            ),
        )
    if as_json:
        out = ruling_json(result, scenario.question, cards)
        if ed.is_sample:
            out["sample"] = True
        emit_json(out)
        return
    if as_markdown:
        echo(ruling_markdown(result, scenario.question, scenario.title, cards))
    else:
        echo(ruling_text(result, cards=cards))
    if ed.is_sample:
        echo(sample_notice(ed.store))
