"""``judge check FILE``: replay a board through the state-based actions and print the ruling."""

from __future__ import annotations

import click

from ..common import CONTEXT_SETTINGS, edition_option, emit_json, fail, load_document, sample_notice

__all__ = ["check"]


@click.command("check", context_settings=CONTEXT_SETTINGS)
@click.argument("file", metavar="FILE")
@edition_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.option(
    "--markdown", "as_markdown", is_flag=True, help="Print a Markdown ruling ready to paste."
)
def check(file: str, edition: str | None, as_json: bool, as_markdown: bool) -> None:
    """Replay the board in FILE through the state-based actions and explain the ruling.

    FILE is YAML, JSON, or a Markdown question whose first ```yaml block is the board.
    The edition is --edition, else the file's `edition:`, else the newest stored.
    """
    if as_json and as_markdown:
        raise click.UsageError("use --json or --markdown, not both")
    # Imported here so that `judge --help` stays fast.
    from .editions import EditionRules
    from .loader import ScenarioError, load_scenario_path
    from .ruling import ruling_json, ruling_markdown, ruling_text
    from .sba import Note, replay

    try:
        scenario = load_scenario_path(file)
    except FileNotFoundError:
        fail(f"no such file: {file}. Check the path and run `judge check FILE` again.")
    except OSError as exc:
        fail(f"can't read {file}: {exc.strerror or exc}.")
    except ScenarioError as exc:
        fail(f"{exc}. Fix the file and run `judge check {file}` again.")
    board = scenario.board
    wanted = edition or board.edition
    loaded = load_document(wanted)
    rules = EditionRules.for_document(loaded.document)
    result = replay(board, rules)
    if edition and board.edition and edition != board.edition:
        result.notes.insert(
            0,
            Note(
                rules.loop_rule,
                f"--edition {edition} overrides the file's edition {board.edition}",
            ),
        )
    if as_json:
        out = ruling_json(result, scenario.question)
        if loaded.is_sample:
            out["sample"] = True
        emit_json(out)
        return
    if as_markdown:
        click.echo(ruling_markdown(result, scenario.question, scenario.title))
    else:
        click.echo(ruling_text(result))
    if loaded.is_sample:
        click.echo(sample_notice())
