"""``judge mtr``, ``judge ipg`` and ``judge jar``: the tournament documents by section.

Thin: :func:`index.tournament.answer.look_up` finds the sections, :mod:`judge_cli.docs_answers`
words them. Nothing here imports pypdf.
"""

from __future__ import annotations

from typing import Any

import click

from .common import CONTEXT_SETTINGS, Command, emit, json_option, open_store

__all__ = ["ipg", "jar", "mtr"]


def _edition_option(func: Any) -> Any:
    return click.option(
        "--edition",
        "-e",
        metavar="DATE",
        default=None,
        help="Edition of the document, by effective date (YYYY-MM-DD) or 'latest' (default).",
    )(func)


def _cr_edition_option(func: Any) -> Any:
    return click.option(
        "--cr-edition",
        metavar="DATE",
        default=None,
        help="CR edition for the rules cited (default: the one in force on the document's date).",
    )(func)


def _lookup(
    kind: str,
    words: tuple[str, ...],
    edition: str | None,
    cr_edition: str | None,
    as_json: bool,
) -> None:
    from .docs_answers import answer_markdown, look_up_record

    answer, refs, record = look_up_record(open_store(), kind, list(words), edition, cr_edition)
    emit(as_json, record, lambda: answer_markdown(answer, record, refs))


@click.command(cls=Command, context_settings=CONTEXT_SETTINGS)
@click.argument("refs", nargs=-1, required=True, metavar="SECTION...")
@_edition_option
@_cr_edition_option
@click.option("--digital", is_flag=True, help="The Magic Digital Tournament Rules instead.")
@json_option
def mtr(
    refs: tuple[str, ...], edition: str | None, cr_edition: str | None, digital: bool, as_json: bool
) -> None:
    """Show the Magic Tournament Rules by section: 2.5, 4 (a whole section), "Appendix B".

    A title works too ("judge mtr deck checks"). References in the text are resolved: to
    other sections, to the IPG stored, and to the rules of the CR.
    """
    _lookup("dmtr" if digital else "mtr", refs, edition, cr_edition, as_json)


@click.command(cls=Command, context_settings=CONTEXT_SETTINGS)
@click.argument("refs", nargs=-1, required=True, metavar="SECTION|NAME...")
@_edition_option
@_cr_edition_option
@click.option("--digital", is_flag=True, help="The Magic Digital Infraction Procedure Guide.")
@json_option
def ipg(
    refs: tuple[str, ...], edition: str | None, cr_edition: str | None, digital: bool, as_json: bool
) -> None:
    """Show an infraction of the Infraction Procedure Guide, its penalty first.

    By number (2.1, or 2 for all Game Play Errors) or by name ("missed trigger"; close
    misspellings are answered with a did-you-mean).
    """
    _lookup("dipg" if digital else "ipg", refs, edition, cr_edition, as_json)


@click.command(cls=Command, context_settings=CONTEXT_SETTINGS)
@click.argument("heading", nargs=-1, metavar="[HEADING...]")
@_edition_option
@json_option
def jar(heading: tuple[str, ...], edition: str | None, as_json: bool) -> None:
    """Show Judging at Regular REL: the whole document, or a part by its heading.

    For example "judge jar serious problems" or "judge jar forgets a triggered ability".
    """
    _lookup("jar", heading, edition, None, as_json)
