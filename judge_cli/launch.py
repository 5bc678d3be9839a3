"""The ``judge`` program: :func:`main` starts a search's re-rank early, then runs the CLI.

A one-shot ``judge search`` with the semantic re-rank loads its model in a forked child
(:mod:`index.semantic.forked`); the sooner the child starts, the sooner it answers. Before
click and the commands are imported, :func:`main` reads the command line as click will for a
search (:func:`search_words`), finds the edition's build folder and forks the child there
(:func:`~index.semantic.forked.prestart`). Whatever it cannot read plainly (another command,
``--help``, ``--no-semantic``, an option it does not know) forks nothing here: the search
then forks as it did before, or not at all.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence

__all__ = ["SearchLine", "main", "search_words"]

_VALUES = {"--edition": "edition", "-e": "edition", "--limit": "", "-n": "", "--in": "scope"}
"""``judge search``'s options that take a value, and what it is for here."""
_RERANKED = ("all", "rules", "glossary")
"""The scopes the re-rank runs for (as :mod:`index.semantic.searching` has them)."""
_PASTED = 500
"""A question longer than this is a pasted post, of which search embeds a part, not the whole
(:data:`index.search.pasted.LONG_QUERY_CHARS`, not imported here: it costs the early start)."""


class SearchLine:
    """What a ``judge search`` command line asks: its words, ``--edition`` and ``--in``."""

    def __init__(self, words: list[str], edition: str | None, scope: str) -> None:
        self.words = words
        self.edition = edition
        self.scope = scope

    @property
    def question(self) -> str:
        """The question as ``judge search`` joins it."""
        return " ".join(self.words)


def search_words(args: Sequence[str]) -> SearchLine | None:
    """``args`` (without the program's name) read as click reads a ``judge search``, or
    ``None``: not a search, a search without the re-rank, or anything not read plainly."""
    if not args or args[0] != "search":
        return None
    found: dict[str, str | None] = {"edition": None, "scope": "all"}
    words: list[str] = []
    rest = iter(args[1:])
    for arg in rest:
        if arg == "--":
            words.extend(rest)
            break
        if not arg.startswith("-") or arg == "-":
            words.append(arg)
            continue
        if arg == "--json":
            continue
        name, eq, value = arg.partition("=")
        if not (eq and name.startswith("--")):
            name, value = arg, ""
            if arg[:2] in ("-e", "-n") and len(arg) > 2:  # -e2025-02-07, -n5
                name, value = arg[:2], arg[2:]
        if name not in _VALUES:
            return None  # --no-semantic, --help, or an option click will refuse
        if not value and not eq:
            given = next(rest, None)
            if given is None:
                return None
            value = given
        if _VALUES[name]:
            found[_VALUES[name]] = value
    scope = found["scope"] or "all"
    if not words or scope not in _RERANKED:
        return None
    return SearchLine(words, found["edition"], scope)


def _prestart(args: Sequence[str]) -> None:
    """Forks a search's re-rank child if the command line is such a search (see the module)."""
    line = search_words(args)
    if line is None or any(name.endswith("_COMPLETE") for name in os.environ):
        return
    from index.store import EditionStore

    try:
        store = EditionStore.from_env()
        folder = store.build_path(store.resolve(line.edition))
    except (LookupError, OSError, ValueError):
        return  # the search will say what is wrong
    if folder is None:
        return
    from index.semantic.forked import prestart

    question = line.question
    prestart(store.root, folder, question if len(question) <= _PASTED else "")


_LOOK_UPS = frozenset(
    [
        "card",
        "check",
        "cite-check",
        "define",
        "diff",
        "editions",
        "history",
        "ipg",
        "jar",
        "mtr",
        "notes",
        "rule",
        "search",
    ]
)
"""The commands that read and answer, then exit: they run without the cyclic garbage collector
(its passes over the objects a start-up makes: a cold ``judge search "legend rule"`` 136 →
130 ms, 140 → 134 with cards stored, 160 → 154 naming a card; medians of 31, interleaved with
the code before, ``benchmarks/search_speed.py --baseline``). Building, importing, downloading
and serving keep it: they run long, or for ever, and make garbage."""


def main() -> None:
    """``judge``: the command line (:data:`judge_cli.cli.cli`), a search's re-rank started first."""
    if sys.argv[1:2] and sys.argv[1] in _LOOK_UPS:
        gc.disable()
    _prestart(sys.argv[1:])
    from .cli import cli

    cli(prog_name="judge")
