"""Terminal rendering: Markdown through markdown-it-py on a terminal, plain text when piped."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from judge_cli.cli import cli
from judge_cli.render import escape, render_markdown, to_plain

from .conftest import corpus_file

MARKDOWN = "\n\n".join(
    [
        "## 704. State-Based Actions",
        "**704.5a** If a player has 0 or less life, that player loses the _Magic_ game.",
        "> _Example:_ A player at 0 life loses.",
    ]
)


def test_plain_text_drops_the_markup() -> None:
    assert to_plain(MARKDOWN) == (
        "704. State-Based Actions\n\n"
        "704.5a If a player has 0 or less life, that player loses the Magic game.\n\n"
        "    Example: A player at 0 life loses.\n"
    )


def test_terminal_rendering_wraps_at_the_given_width_without_colour() -> None:
    assert render_markdown(MARKDOWN, width=40, color=False) == (
        "704. State-Based Actions\n\n"
        "704.5a If a player has 0 or less life,\n"
        "that player loses the Magic game.\n\n"
        "    Example: A player at 0 life loses.\n"
    )


def test_terminal_rendering_styles_with_colour() -> None:
    out = render_markdown(MARKDOWN, width=80, color=True)
    assert "\x1b[1m704.5a\x1b[0m" in out
    assert "\x1b[3mMagic\x1b[0m" in out


def test_no_color_is_respected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in render_markdown(MARKDOWN, width=80)


def test_escape_keeps_rule_text_literal() -> None:
    text = "Costs like {2}{W} and *stars* or <Wizards.com/Magic/Rules> [brackets] # hash"
    assert to_plain(escape(text)) == text + "\n"
    rendered = render_markdown(escape(text), width=200, color=False)
    assert rendered == text + "\n"


def test_underscore_italics_of_2013_are_plain_when_piped(judge_home: Path) -> None:
    path = corpus_file("20130713")
    assert CliRunner().invoke(cli, ["index", "build", str(path)]).exit_code == 0
    out = CliRunner().invoke(cli, ["rule", "100.6"]).output
    assert out.startswith("100.6 Most Magic tournaments")
    raw = CliRunner().invoke(cli, ["rule", "100.6", "--json"]).output
    assert "Most _Magic_ tournaments" in raw  # JSON keeps the text as published


def test_safe_reads_short_and_long_text_alike() -> None:
    from judge_cli import render

    unsafe = {chr(c) for c in render._UNSAFE}
    for c in [*range(0x00, 0x300), *range(0x2000, 0x2100), 0x061B, 0x061C, 0xFEFF]:
        ch = chr(c)
        short = render.safe(f"a{ch}b")
        long = render.safe("a" * render._LONG + ch)
        assert (short != f"a{ch}b") == (ch in unsafe)
        assert long.endswith(short[1:-1]) and (long != "a" * render._LONG + ch) == (ch in unsafe)
    assert render.safe("\x1b[31m\u202e") == "\\x1b[31m\\u202e"
