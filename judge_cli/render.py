"""Turning the Markdown the commands write into terminal text.

Commands describe their answer in a small Markdown subset (paragraphs, ``#`` headings, ``>``
quotes, ``**bold**``, ``_italic_``, backslash escapes). On a terminal it is parsed by
markdown-it-py, created once in :func:`make_markdown`, and rendered through one dispatch table
from token type to style; piped, or with ``NO_COLOR`` set, the same Markdown is printed as plain
text without importing markdown-it-py at all, which keeps ``judge rule`` quick.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

__all__ = ["escape", "make_markdown", "render_markdown", "to_plain"]

MAX_WIDTH = 80
_ESCAPE_RE = re.compile(r"([\\`*\[\]<>#|])")
_UNESCAPE_RE = re.compile(r"\\([\\`*\[\]<>#|_.+=-])")


def escape(text: str) -> str:
    """Escapes rule text for our Markdown, keeping ``_italics_`` (the 2009–2014 files use them)."""
    return _ESCAPE_RE.sub(r"\\\1", text)


def _strip_inline(text: str) -> str:
    text = re.sub(r"(?<![\\\w])\*\*(.+?)\*\*", r"\1", text)
    text = re.sub(r"(?<![\\\w])_(\S(?:.*?\S)?)_(?!\w)", r"\1", text)
    return _UNESCAPE_RE.sub(r"\1", text)


def to_plain(markdown: str) -> str:
    """Plain text for our Markdown subset: markers dropped, escapes undone, no wrapping."""
    out: list[str] = []
    for line in markdown.split("\n"):
        m = re.match(r"^(#{1,6})\s+(.*)$", line)
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


_STYLES = {"strong": "\x1b[1m", "em": "\x1b[3m", "heading": "\x1b[1;4m", "quote": "\x1b[2m"}
_RESET = "\x1b[0m"


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


def _wrap(text: str, width: int, indent: str = "") -> str:
    import textwrap  # only a terminal wraps; piped output (judge rule's quick path) does not

    lines = []
    for para_line in text.split("\n"):
        lines.append(
            textwrap.fill(
                para_line,
                width=width,
                initial_indent=indent,
                subsequent_indent=indent,
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
    return "\n".join(lines)


Renderer = Callable[[str, int, bool], str]

# Token type of the block that opens → how its inline text is laid out.
_BLOCKS: dict[str, Renderer] = {
    "paragraph_open": lambda text, width, color: _wrap(text, width),
    "heading_open": lambda text, width, color: (
        f"{_STYLES['heading']}{text}{_RESET}" if color else text
    ),
    "blockquote_open": lambda text, width, color: (
        (_STYLES["quote"] if color else "") + _wrap(text, width, "    ") + (_RESET if color else "")
    ),
}


def render_markdown(markdown: str, *, width: int | None = None, color: bool | None = None) -> str:
    """Terminal text for ``markdown``: styled on a terminal, plain with ``NO_COLOR`` or piped."""
    if color is None:
        color = "NO_COLOR" not in os.environ
    if width is None:
        import shutil

        width = min(shutil.get_terminal_size((MAX_WIDTH, 24)).columns, MAX_WIDTH)
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
    """What a command prints for ``markdown``: rendered on a terminal, plain text otherwise."""
    if terminal:
        return render_markdown(markdown)
    return to_plain(markdown)
