"""Turning the Markdown the commands write into terminal text.

Commands describe their answer in a small Markdown subset (paragraphs, ``#`` headings, ``>``
quotes, ``**bold**``, ``_italic_``, backslash escapes). On a terminal it is parsed by
markdown-it-py, created once in :func:`make_markdown`, and rendered through one dispatch table
from token type to style; piped, or with ``NO_COLOR`` set, the same Markdown is printed as plain
text without importing markdown-it-py at all, which keeps ``judge rule`` quick.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

__all__ = [
    "escape",
    "make_markdown",
    "prepare_streams",
    "render_markdown",
    "safe",
    "safe_json",
    "show",
    "style",
    "to_plain",
    "wrap",
    "wrap_lines",
]

MAX_WIDTH = 80

# Control characters that text from a file must not send to a terminal: C0 and C1 controls but
# newline and tab (ESC starts colour, clear-screen, OSC 52 clipboard writes and window titles),
# and the bidirectional overrides and isolates (U+202E makes text read backwards). Each is shown
# as its escape instead, so nothing is lost and nothing acts. So is a lone surrogate (a command
# line's undecodable byte, "\\udcff", or JSON's "\\ud800"), which no terminal's encoding takes.
_UNSAFE = [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0)]
_UNSAFE += [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_UNSAFE += range(0xD800, 0xE000)
_UNSAFE_CHARS = frozenset(map(chr, _UNSAFE))
_LONG = 4096
"""From this length on, :func:`safe` searches with a pattern rather than the set."""


@functools.cache
def _unsafe_re() -> re.Pattern[str]:
    runs: list[list[int]] = []
    for c in sorted(_UNSAFE):
        if runs and runs[-1][1] == c - 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in runs) + "]")


def _is_clean(text: str) -> bool:
    # The usual case is nothing to replace. A short text (each line ``judge rule`` prints) is
    # checked against the set: compiling the pattern costs more than a one-shot command's
    # every check; a long one is searched, which is quicker per character.
    if len(text) < _LONG:
        return _UNSAFE_CHARS.isdisjoint(text)
    return _unsafe_re().search(text) is None


def safe(text: str) -> str:
    """``text`` with its control characters shown as escapes (``\\x1b``), never acted on."""
    return text if _is_clean(text) else text.translate(_table(json=False))


@functools.cache
def _table(*, json: bool) -> dict[int, str]:
    """Each unsafe character's escape (built when first needed: 2 ms, most runs never do)."""
    if json:
        return {c: f"\\u{c:04x}" for c in _UNSAFE}
    return {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in _UNSAFE}


def safe_json(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with the characters :func:`safe`
    escapes written as JSON's ``\\u`` escapes: the same data once parsed, nothing acted on.

    ``json.dumps`` escapes C0 controls itself, but not C1 controls (U+009B starts a control
    sequence in some terminals), the bidirectional overrides, or lone surrogates (which the
    output's encoder refuses). Outside its strings, JSON text is ASCII.
    """
    return text if _is_clean(text) else text.translate(_table(json=True))


# What a terminal that cannot show a character gets instead (Latin-1 and code page 437 have no
# curly quotes); anything else becomes "?". Used as the streams' encoding error handler.
_PLAIN = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u2013": "-",
    "\u2014": "--",
    "\u2212": "-",
    "\u2026": "...",
    "\u2022": "*",
    "\u2192": "->",
    "\u00a0": " ",
    "\u2122": "(TM)",
    "\u00ae": "(R)",
    "\u00a9": "(C)",
}


def _transliterate(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    bad = error.object[error.start : error.end]
    return "".join(_PLAIN.get(ch, "?") for ch in bad), error.end


def prepare_streams() -> None:
    """Makes standard output and error print what their encoding cannot show as ASCII look-alikes.

    Under a Latin-1 or code page 437 locale a ’ or “ would otherwise end the command with a
    ``UnicodeEncodeError``.
    """
    import codecs
    import io

    try:
        codecs.lookup_error("judge-plain")
    except LookupError:
        codecs.register_error("judge-plain", _transliterate)
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
        if isinstance(stream, io.TextIOWrapper) and encoding not in ("utf-8", "utf8"):
            stream.reconfigure(errors="judge-plain")


# Each pattern is tried only on text holding the characters it looks for: most rule text holds
# none, and compiling a pattern costs more than a one-shot command's every check (re caches it).
_ESCAPABLE = frozenset("\\`*[]<>#|")
_ESCAPE = r"([\\`*\[\]<>#|])"
_UNESCAPE = r"\\([\\`*\[\]<>#|_.+=-])"


def escape(text: str) -> str:
    """Escapes rule text for our Markdown, keeping ``_italics_`` (the 2009–2014 files use them)."""
    if _ESCAPABLE.isdisjoint(text):
        return text
    return re.sub(_ESCAPE, r"\\\1", text)


def _strip_inline(text: str) -> str:
    if "**" in text:
        text = re.sub(r"(?<![\\\w])\*\*(.+?)\*\*", r"\1", text)
    if "_" in text:
        text = re.sub(r"(?<![\\\w])_(\S(?:.*?\S)?)_(?!\w)", r"\1", text)
    if "\\" in text:
        text = re.sub(_UNESCAPE, r"\1", text)
    return text


def to_plain(markdown: str) -> str:
    """Plain text for our Markdown subset: markers dropped, escapes undone, no wrapping."""
    out: list[str] = []
    for line in markdown.split("\n"):
        m = re.match(r"^(#{1,6})\s+(.*)$", line) if line.startswith("#") else None
        if m:
            line = m.group(2)
        elif line.startswith("> "):
            line = "    " + line[2:]
        elif line == ">":
            line = ""
        out.append(_strip_inline(line))
    return "\n".join(out).rstrip() + "\n"


def make_markdown() -> MarkdownIt:
    """The one configured markdown-it-py parser (CommonMark, no HTML, no linkify)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False})


_STYLES = {
    "strong": "\x1b[1m",
    "em": "\x1b[3m",
    "heading": "\x1b[1;4m",
    "quote": "\x1b[2m",
    "deleted": "\x1b[31m",
    "inserted": "\x1b[32m",
}
_RESET = "\x1b[0m"


def use_color() -> bool:
    """Checks if styles are wanted: not with ``NO_COLOR`` set to anything, nor ``TERM=dumb``."""
    return not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def stdout_is_terminal_colored() -> bool:
    """Checks if standard output is a terminal that wants colour."""
    return sys.stdout.isatty() and use_color()


def style(text: str, name: str, color: bool) -> str:
    """``text`` (made safe) in one of the styles (``strong``, ``deleted``, ``inserted`` …)."""
    text = safe(text)
    return f"{_STYLES[name]}{text}{_RESET}" if color else text


def _inline(children: list[Token], color: bool) -> str:
    parts: list[str] = []
    for tok in children:
        if tok.type == "text":
            parts.append(tok.content)
        elif tok.type in ("softbreak", "hardbreak"):
            parts.append(" " if tok.type == "softbreak" else "\n")
        elif tok.type == "code_inline":
            parts.append(tok.content)
        elif tok.type in ("strong_open", "em_open") and color:
            parts.append(_STYLES[tok.type[:-5]])
        elif tok.type in ("strong_close", "em_close") and color:
            parts.append(_RESET)
    return "".join(parts)


def wrap_lines(
    text: str, width: int, indent: str = "", later: str | None = None, *, split_words: bool = False
) -> list[str]:
    """One line of ``text`` as lines of ``width`` columns; ``split_words`` lets long words and
    hyphenated ones break (the checker's ruling does, to keep its columns)."""
    import textwrap  # only a terminal (or the checker's ruling) wraps: judge rule's path does not

    return textwrap.wrap(
        text,
        width=width,
        initial_indent=indent,
        subsequent_indent=indent if later is None else later,
        break_long_words=split_words,
        break_on_hyphens=split_words,
    ) or [indent]


def wrap(text: str, width: int, indent: str = "", later: str | None = None) -> str:
    """Each line of ``text`` filled to ``width`` columns, long words and hyphens kept whole."""
    return "\n".join(
        "\n".join(wrap_lines(line, width, indent, later)).rstrip() if line else ""
        for line in text.split("\n")
    )


def terminal_width() -> int:
    """The terminal's width, capped at :data:`MAX_WIDTH` (80 when it cannot be told)."""
    import shutil

    return min(shutil.get_terminal_size((MAX_WIDTH, 24)).columns, MAX_WIDTH)


Renderer = Callable[[str, int, bool], str]

# Token type of the block that opens → how its inline text is laid out.
_BLOCKS: dict[str, Renderer] = {
    "paragraph_open": lambda text, width, color: wrap(text, width),
    "heading_open": lambda text, width, color: (
        f"{_STYLES['heading']}{text}{_RESET}" if color else text
    ),
    "blockquote_open": lambda text, width, color: (
        (_STYLES["quote"] if color else "") + wrap(text, width, "    ") + (_RESET if color else "")
    ),
}


def render_markdown(markdown: str, *, width: int | None = None, color: bool | None = None) -> str:
    """Terminal text for ``markdown``: styled on a terminal, plain with ``NO_COLOR`` or piped."""
    if color is None:
        color = use_color()
    if width is None:
        width = terminal_width()
    tokens = make_markdown().parse(markdown)
    out: list[str] = []
    stack: list[str] = []
    for tok in tokens:
        if tok.nesting == 1 and tok.type in _BLOCKS:
            stack.append(tok.type)
        elif tok.nesting == -1 and stack and tok.type.replace("_close", "_open") == stack[-1]:
            stack.pop()
        elif tok.type == "inline":
            kind = "paragraph_open"
            if "heading_open" in stack:
                kind = "heading_open"
            elif "blockquote_open" in stack:
                kind = "blockquote_open"
            out.append(_BLOCKS[kind](_inline(tok.children or [], color), width, color))
    return "\n\n".join(out) + "\n"


def show(markdown: str, *, terminal: bool) -> str:
    """What a command prints for ``markdown``: rendered on a terminal, plain text otherwise.

    The Markdown is made safe first: our own markup has no control characters, so any there came
    from a file.
    """
    markdown = safe(markdown)
    if terminal:
        return render_markdown(markdown)
    return to_plain(markdown)
