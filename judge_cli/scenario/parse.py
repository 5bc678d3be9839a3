"""Reading scenario text within fixed limits: YAML, JSON, or a Markdown question's ```yaml block.

The result is plain values (mappings, lists, text, numbers, true/false, null) and the line of
every key. One bounded loader does all the checking, as it composes the YAML: how deep the
nesting goes, how many values the document stands for once every alias is expanded (a "billion
laughs" file is a few lines that expand to billions), aliases that refer to themselves, tags
(only YAML's own scalar, list and mapping tags; no merge keys), and how long a number may be.
Any file therefore costs work and memory in proportion to its size, which is limited too.

libyaml parses when PyYAML has it (about five times faster); a file it rejects is parsed again
by PyYAML's own parser so that syntax errors read the same everywhere.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader, ReaderError
from yaml.resolver import Resolver
from yaml.scanner import Scanner

from .errors import (
    ScenarioError,
    ScenarioLimitError,
    ScenarioSyntaxError,
    ScenarioValueError,
    shown,
)

# libyaml's parser; None for a PyYAML built without it.
CParser: Any = getattr(yaml, "cyaml", None) and getattr(yaml.cyaml, "CParser", None)

__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_DIGITS", "MAX_VALUES", "Parsed", "parse_text"]

MAX_BYTES = 2_000_000
"""The largest scenario file read (10,000 objects written one key a line take about 1.2 MB)."""
MAX_DEPTH = 32
"""How deep lists and mappings may nest, aliases included (a board needs six levels)."""
MAX_VALUES = 400_000
"""How many values (keys included) a file may hold once its aliases are expanded (a file of
10,000 objects written as ``to_text`` writes them holds about 170,000)."""
MAX_DIGITS = 18
"""The longest whole number, in digits."""

_TAGS = {
    f"tag:yaml.org,2002:{name}"
    for name in ("str", "int", "float", "bool", "null", "timestamp", "seq", "map")
}
_MERGE = "tag:yaml.org,2002:merge"


@dataclass
class Parsed:
    """A scenario file read into plain values."""

    data: Any
    """The board as plain values."""
    lines: dict[str, int]
    """The line of every key path (``objects[0].pt``)."""
    first_line: int
    """The line the board starts on."""
    question: str | None = None
    """The prose of a Markdown question file (without the board), else ``None``."""
    title: str | None = None
    """The first heading of a Markdown question file, else ``None``."""


class _Refused(Exception):
    """Raised by the bounded composer; turned into a :class:`ScenarioError` with the line."""

    def __init__(self, mark: Any, message: str, limit: int | None = None) -> None:
        super().__init__(message)
        self.mark = mark
        self.message = message
        self.limit = limit


class _BoundedComposer(Composer):
    """PyYAML's composer, counting depth and expanded size and refusing what a board never has."""

    # From the parser the composer is mixed with (PyYAML's, or libyaml's).
    peek_event: Callable[[], Any]
    check_event: Callable[..., bool]

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.deepest = 0
        self.total = 0
        # For every composed node: how many values it stands for, and how deep it goes.
        self.sizes: dict[int, tuple[int, int]] = {}

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        event = self.peek_event()
        if isinstance(event, AliasEvent):
            target = self.anchors.get(event.anchor)
            if target is not None:
                size = self.sizes.get(id(target))
                if size is None:
                    raise _Refused(event.start_mark, f"the alias *{event.anchor} refers to itself")
                self._count(size[0], event.start_mark)
                self._reach(self.depth + size[1], event.start_mark)
            return cast(Node, super().compose_node(parent, index))
        depth = self.depth = self.depth + 1
        outer, self.deepest = self.deepest, depth
        before = self.total
        if depth > MAX_DEPTH:
            raise _too_deep(event.start_mark)
        self._count(1, event.start_mark)
        node = cast(Node, super().compose_node(parent, index))
        if node.tag not in _TAGS:
            if node.tag == _MERGE:
                raise _Refused(
                    node.start_mark, "YAML merge keys (<<) are not supported; write the keys out"
                )
            tag = node.tag.replace("tag:yaml.org,2002:", "!!", 1)
            raise _Refused(node.start_mark, f"the YAML tag {shown(tag)} is not supported")
        if event.anchor is not None:
            # What an alias of it will stand for: how many values, and how many levels.
            self.sizes[id(node)] = (self.total - before, self.deepest - depth + 1)
        if outer > self.deepest:
            self.deepest = outer
        self.depth = depth - 1
        return node

    def _count(self, values: int, mark: Any) -> None:
        self.total += values
        if self.total > MAX_VALUES:
            raise _Refused(
                mark,
                f"the file holds more than {MAX_VALUES:,} values once its aliases are "
                "expanded (the limit)",
                MAX_VALUES,
            )

    def _reach(self, depth: int, mark: Any) -> None:
        self.deepest = max(self.deepest, depth)
        if depth > MAX_DEPTH:
            raise _too_deep(mark)


class _PyLoader(Reader, Scanner, Parser, _BoundedComposer, SafeConstructor, Resolver):
    """PyYAML's safe loader, in Python, with the bounded composer."""

    def __init__(self, text: str) -> None:
        Reader.__init__(self, text)
        Scanner.__init__(self)
        Parser.__init__(self)
        _BoundedComposer.__init__(self)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)


_FastLoader: type | None = None
if CParser is not None:

    class _CLoader(_BoundedComposer, CParser, SafeConstructor, Resolver):  # type: ignore[misc]
        """libyaml's parser (its events) under the bounded composer, which comes first."""

        def __init__(self, text: str) -> None:
            CParser.__init__(self, text)
            _BoundedComposer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

    _FastLoader = _CLoader


def _compose(text: str, filename: str, offset: int) -> Node | None:
    """The YAML node graph, within the limits; raises :class:`ScenarioError`."""
    loaders: list[type] = [_PyLoader] if _FastLoader is None else [_FastLoader, _PyLoader]
    for cls in loaders:
        loader: Any = None
        try:
            loader = cls(text)
            return cast(Node | None, loader.get_single_node())
        except _Refused as refused:
            raise _refusal(refused, filename, offset) from None
        except yaml.YAMLError as exc:
            if cls is not _PyLoader:
                if isinstance(exc, yaml.MarkedYAMLError) and exc.problem == _LIBYAML_TOO_DEEP:
                    # libyaml looks ahead further than the composer, and stops at its own
                    # (deeper) limit first: the same refusal, without parsing again slowly.
                    raise _refusal(_too_deep(exc.problem_mark), filename, offset) from None
                continue  # parse again with PyYAML's parser, for its wording of the error
            raise _syntax_error(exc, text, filename, offset) from None
        finally:
            if loader is not None:
                loader.dispose()
    raise AssertionError("unreachable")  # pragma: no cover


_LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"


def _refusal(refused: _Refused, filename: str, offset: int) -> ScenarioError:
    line = refused.mark.line + 1 + offset if refused.mark is not None else None
    if refused.limit is not None:
        return ScenarioLimitError(filename, line, None, refused.message, refused.limit)
    return ScenarioValueError(filename, line, None, refused.message)


def _too_deep(mark: Any) -> _Refused:
    return _Refused(
        mark, f"lists and mappings nest more than {MAX_DEPTH} levels deep (the limit)", MAX_DEPTH
    )


def _syntax_error(
    exc: yaml.YAMLError, text: str, filename: str, offset: int
) -> ScenarioSyntaxError:
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 + offset if mark is not None else None
        problem = exc.problem or exc.context
        return ScenarioSyntaxError(filename, line, None, f"not valid YAML: {problem}")
    if isinstance(exc, ReaderError):
        line = text.count("\n", 0, exc.position) + 1 + offset
        character = exc.character if isinstance(exc.character, int) else ord(exc.character)
        return ScenarioSyntaxError(
            filename, line, None, f"not valid YAML: character #x{character:04x}: {exc.reason}"
        )
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return ScenarioSyntaxError(filename, None, None, f"not valid YAML: {first}")


class _Converter:
    """Turns composed YAML nodes into plain values, noting the line of every key."""

    def __init__(self, filename: str, offset: int, lines: dict[str, int]) -> None:
        self.filename = filename
        self.offset = offset
        self.lines = lines
        self.constructor = SafeConstructor()

    def convert(self, node: Node, path: str) -> Any:
        if isinstance(node, MappingNode):
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                line = key_node.start_mark.line + 1 + self.offset
                if not isinstance(key_node, ScalarNode):
                    raise ScenarioValueError(
                        self.filename, line, path or None, "a key must be a word, not a list"
                    )
                key = str(self.scalar(key_node, path))
                child = f"{path}.{key}" if path else key
                if key in out:
                    raise ScenarioValueError(
                        self.filename,
                        line,
                        child,
                        f"duplicate key (first on line {self.lines[child]})",
                    )
                self.lines[child] = line
                out[key] = self.convert(value_node, child)
            return out
        if isinstance(node, SequenceNode):
            items: list[Any] = []
            for i, item in enumerate(node.value):
                child = f"{path}[{i}]"
                self.lines[child] = item.start_mark.line + 1 + self.offset
                items.append(self.convert(item, child))
            return items
        assert isinstance(node, ScalarNode)
        return self.scalar(node, path)

    def scalar(self, node: ScalarNode, path: str) -> Any:
        """The value of a scalar: a number no longer than :data:`MAX_DIGITS`, a real date…"""
        line = node.start_mark.line + 1 + self.offset
        if node.tag == "tag:yaml.org,2002:int":
            digits = re.sub(r"[^0-9a-fA-F]", "", node.value)
            if len(digits) > MAX_DIGITS:
                raise ScenarioLimitError(
                    self.filename,
                    line,
                    path or None,
                    f"a number of {len(digits):,} digits; numbers may have at most {MAX_DIGITS}",
                    MAX_DIGITS,
                )
        try:
            value = self.constructor.construct_object(node, deep=True)
        except (ValueError, yaml.YAMLError):
            what = "date" if node.tag == "tag:yaml.org,2002:timestamp" else "value"
            raise ScenarioValueError(
                self.filename, line, path or None, f"not a valid {what}: {shown(node.value)!r}"
            ) from None
        if isinstance(value, datetime.date):
            return value.isoformat()
        return value


def parse_text(text: str, filename: str) -> Parsed:
    """Reads scenario text; the file name's extension picks Markdown, JSON or YAML."""
    if len(text) > MAX_BYTES:
        raise ScenarioLimitError(
            filename,
            None,
            None,
            f"the file has {len(text):,} characters; the limit is {MAX_BYTES:,}",
            MAX_BYTES,
        )
    lower = filename.lower()
    question: str | None = None
    title: str | None = None
    offset = 0
    if lower.endswith((".md", ".markdown")):
        text, offset, question, title = _extract_markdown_board(text, filename)
    elif lower.endswith(".json"):
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            raise ScenarioSyntaxError(
                filename, exc.lineno, None, f"not valid JSON: {exc.msg} (column {exc.colno})"
            ) from None
        except (RecursionError, ValueError):
            pass  # too deep, or a number too long: the bounded loader says which, with the line
    node = _compose(text, filename, offset)
    if node is None:
        raise ScenarioSyntaxError(filename, None, None, "the board is empty; add `players:`")
    lines: dict[str, int] = {}
    data = _Converter(filename, offset, lines).convert(node, "")
    return Parsed(data, lines, node.start_mark.line + 1 + offset, question, title)


def _extract_markdown_board(text: str, filename: str) -> tuple[str, int, str, str | None]:
    """The first ```yaml block, its line offset, the question around it, and the first heading."""
    # Imported here so that `judge --help` does not pay for markdown-it-py.
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(text)
    title: str | None = None
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and title is None and i + 1 < len(tokens):
            title = tokens[i + 1].content.strip() or None
        if token.type == "fence" and token.info.strip().split(" ")[0].lower() in ("yaml", "yml"):
            assert token.map is not None
            start, end = token.map
            source_lines = text.splitlines()
            prose = source_lines[:start] + source_lines[end:]
            if title is not None:
                # The first heading is the title; the question is the rest of the prose.
                for n, line in enumerate(prose):
                    if line.lstrip().startswith("#") and title in line:
                        del prose[n]
                        break
            question = re.sub(r"\n{3,}", "\n\n", "\n".join(prose)).strip()
            return token.content, start + 1, question, title
    raise ScenarioSyntaxError(
        filename, None, None, "no ```yaml block found; put the board in a fenced ```yaml block"
    )
