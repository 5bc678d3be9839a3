"""Every library error a user can meet, as its ``Error:`` line and next step: one table.

The click group (:mod:`judge_cli.cli`) and the server both call :func:`describe`, so a message
is written once and reads the same in a terminal and in a bot's JSON. The library's exceptions
carry data (the edition, the nearest rules, the file …) and no advice; the advice is here.
Nothing heavy is imported: each row names its exception by module and class, and a module is
only looked at if it has already been imported (an exception of it cannot exist otherwise).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["GET_RULES", "Problem", "describe"]

GET_RULES = (
    "To get the full rules, run `judge update`, or download the .txt from "
    "https://magic.wizards.com/en/rules and run `judge index build FILE`."
)
_REF_FORMS = "A rule reference looks like 704.5j, 704.5, 704, 7 or 601.2a-h."


@dataclass(frozen=True)
class Problem:
    """What to tell the user about an error."""

    message: str
    """The text after ``Error:``, next step included."""
    status: int = 400
    """The HTTP status the server answers with."""
    usage: bool = False
    """A mistake in the command line itself (exit status 2)."""


def _near(exc: Any) -> str:
    return f" Nearest: {', '.join(exc.nearest)}." if exc.nearest else ""


def _not_stored(exc: Any) -> str:
    if exc.wanted is None:
        return f"{exc}. {GET_RULES}"
    if exc.purpose == "remove":
        return f"{exc}. Run `judge editions` to list them."
    return f"{exc}. Run `judge editions` to list them, or store it with `judge index build FILE`."


def _unknown_term(exc: Any) -> str:
    sample = exc.edition == "sample"
    where = "the bundled sample" if sample else f"the {exc.edition} edition"
    hint = f" Did you mean: {', '.join(exc.suggestions)}?" if exc.suggestions else ""
    more = f" {GET_RULES}" if sample else f' Try `judge search "{exc.term}"`.'
    return f"no glossary entry for “{exc.term}” in {where}.{hint}{more}"


def _edition_index(exc: Any) -> str:
    if exc.source is not None:
        return (
            f"{exc}. Build it with `judge index build FILE` "
            f"(FILE: the CR .txt the edition came from, {exc.source})."
        )
    return f"{exc}. Rebuild it with `judge index build FILE`."


def _file_read(exc: Any) -> str:
    if exc.role == "scenario":
        if exc.missing:
            return f"no such file: {exc.file}. Check the path and run `judge check FILE` again."
        return f"can't read {exc.file}: {exc.reason}."
    return f"{exc}. Check the path."


def _store_write(exc: Any) -> str:
    head = f"{exc.file}: " if exc.file else ""
    return f"{head}{exc}. Nothing stored was changed."


def _cr_read(exc: Any) -> str:
    head = f"{exc.file}: " if exc.file else ""
    return (
        f"{head}{exc}. Nothing was stored. Use the Comprehensive Rules .txt from "
        "https://magic.wizards.com/en/rules."
    )


def _notes(exc: Any) -> str:
    if exc.empty:
        return f"{exc}. Notes need at least one paragraph or heading."
    return f"{exc}. Notes must be a Markdown text file."


def _fetch(exc: Any) -> str:
    return str(exc)


Explain = Callable[[Any], str]

# (module, exception class, HTTP status, how it reads, usage error?). Subclasses before their
# bases: the first row whose class the exception is an instance of answers.
_TABLE: list[tuple[str, str, int, Explain, bool]] = [
    ("index.store", "AmbiguousEditionError", 400, lambda e: f"{e}; give the whole date.", False),
    (
        "index.store",
        "StoreError",
        500,
        lambda e: (
            f"{e}. Rebuild it with `judge index build FILE`, "
            f"or remove it with `judge index remove {e.edition}`."
        ),
        False,
    ),
    ("index.store", "NoEditionError", 404, _not_stored, False),
    ("index.edition", "NotInSampleError", 404, lambda e: f"{e}. {GET_RULES}", False),
    (
        "index.edition",
        "NoOlderEditionError",
        404,
        lambda e: f"{e}: give --from, or store an older edition.",
        False,
    ),
    ("index.edition", "EditionIndexError", 500, _edition_index, False),
    (
        "index.model",
        "UnknownRuleError",
        404,
        lambda e: f"no rule {e.number} in {e.where}." + _near(e),
        False,
    ),
    ("index.numbers", "InvalidRuleReferenceError", 400, lambda e: f"{e}. {_REF_FORMS}", True),
    ("glossary.lookup", "UnknownTermError", 404, _unknown_term, False),
    ("index.search.query", "QuerySyntaxError", 400, lambda e: f"{e}.", False),
    (
        "index.search.schema",
        "NoSearchIndexError",
        500,
        lambda e: f"{e}. Run `judge index build FILE` with the edition's .txt to rebuild it.",
        False,
    ),
    ("index.errors", "FileReadError", 400, _file_read, False),
    ("index.errors", "StoreWriteError", 500, _store_write, False),
    ("index.reader", "CRReadError", 400, _cr_read, False),
    ("index.ingest", "NotesError", 400, _notes, False),
    ("index.fetch", "FetchError", 502, _fetch, False),
    (
        "judge_cli.serve",
        "MissingExtraError",
        500,
        lambda e: f'{e}. Install it with: pip install "judge-cli[{e.extra}]"',
        False,
    ),
    (
        "judge_cli.serve.command",
        "BindError",
        500,
        lambda e: f"{e}. Give another with --port, or stop what is using it.",
        False,
    ),
    (
        "judge_cli.web.export",
        "ExportFolderError",
        400,
        lambda e: f"{e}. Choose a new or empty folder.",
        False,
    ),
    (
        "judge_cli.scenario.loader",
        "ScenarioError",
        400,
        lambda e: f"{e}. Fix the file and run `judge check {e.filename}` again.",
        False,
    ),
]


def describe(exc: BaseException) -> Problem | None:
    """The message for a library error, or ``None`` if ``exc`` is not one (a bug: let it show)."""
    for module_name, class_name, status, explain, usage in _TABLE:
        module = sys.modules.get(module_name)
        kind = getattr(module, class_name, None) if module is not None else None
        if isinstance(kind, type) and isinstance(exc, kind):
            return Problem(explain(exc), status, usage)
    return None


def library_errors() -> tuple[type[BaseException], ...]:
    """Every exception class of the table (importing their modules): for tests and fuzzing."""
    import importlib

    kinds: list[type[BaseException]] = []
    for module_name, class_name, *_ in _TABLE:
        kinds.append(getattr(importlib.import_module(module_name), class_name))
    return tuple(kinds)
