"""What every command shares: loading an edition (or the sample), errors, JSON output.

Kept light on purpose: ``judge rule`` imports this module, so nothing heavy is imported at the
top (no whoosh, no markdown-it-py, no rich).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

if TYPE_CHECKING:
    from index.model import Document

__all__ = [
    "CONTEXT_SETTINGS",
    "GET_RULES",
    "Loaded",
    "ProgressLine",
    "edition_option",
    "emit_json",
    "fail",
    "fail_not_stored",
    "json_option",
    "load_document",
    "stderr_is_terminal",
    "wants_newest",
    "wants_sample",
]

GET_RULES = (
    "To get the full rules, run `judge update`, or download the .txt from "
    "https://magic.wizards.com/en/rules and run `judge index build FILE`."
)

F = TypeVar("F", bound=Callable[..., Any])

# Given to every command, not only the group: click caches a command's help option the first
# time it is built, so a command used outside the group (in a test) must carry its own.
CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}


def fail(message: str) -> NoReturn:
    """Stops the command with ``Error: message`` and exit status 1."""
    raise click.ClickException(message)


def emit_json(obj: Any) -> None:
    """Prints ``obj`` as JSON (UTF-8, indented, keys in the order given)."""
    click.echo(json.dumps(obj, ensure_ascii=False, indent=2))


def edition_option(func: F) -> F:
    """The ``--edition`` option every command takes."""
    return click.option(
        "--edition",
        "-e",
        metavar="DATE",
        default=None,
        help=(
            "Edition to use, by effective date (YYYY-MM-DD), 'latest', or 'sample' for the "
            "bundled sample. Default: newest stored."
        ),
    )(func)


def json_option(func: F) -> F:
    """The ``--json`` flag every command that returns records takes."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(func)


@dataclass
class Loaded:
    """An edition ready to answer: the document and its cross-references."""

    document: Document
    cites: dict[str, list[str]] = field(default_factory=dict)
    cited_by: dict[str, list[str]] = field(default_factory=dict)
    dangling: list[tuple[str, str]] = field(default_factory=list)
    is_sample: bool = False
    path: Any = None
    """The build folder of a stored edition (its ``search/`` index lives there), else ``None``."""

    @property
    def label(self) -> str:
        """How output names what answered: the edition date, or the sample."""
        return self.document.edition or "sample"


def load_document(
    edition: str | None, *, spans: list[tuple[str, str | None]] | None = None
) -> Loaded:
    """The stored edition asked for (default: the newest), or the bundled sample if none is.

    With ``spans`` (rule ranges as ``(start, end or None)``) only the rules they touch are
    read, which is all ``judge rule`` needs. An edition that was asked for by name and is not
    stored is an error, never the sample.
    """
    from index.store import EditionStore, NoEditionError

    store = EditionStore.from_env()
    if wants_sample(edition):
        return Loaded(load_named_sample(store), is_sample=True)
    try:
        stored = store.load(edition) if spans is None else store.load_rules(edition, spans)
    except NoEditionError as exc:
        if wants_newest(edition) and not exc.stored:
            from .sample import load_sample

            return Loaded(load_sample(), is_sample=True)
        fail_not_stored(edition, exc.stored)
    except (OSError, KeyError) as exc:
        fail(
            f"the stored edition in {store.root} could not be read ({exc}). "
            "Rebuild it with `judge index build FILE`."
        )
    return Loaded(stored.document, stored.cites, stored.cited_by, stored.dangling, path=stored.path)


def wants_newest(edition: str | None) -> bool:
    """Checks if an ``--edition`` value asks for the newest edition (the default)."""
    return edition is None or edition.strip().lower() in ("", "latest", "newest")


def wants_sample(edition: str | None) -> bool:
    """Checks if an ``--edition`` value asks for the bundled sample."""
    return edition is not None and edition.strip().lower() == "sample"


def fail_not_stored(edition: str | None, stored: list[str]) -> NoReturn:
    """Stops with the message for an edition that is not stored, listing those that are."""
    have = ", ".join(stored) if stored else "none"
    fail(
        f"edition {edition} is not stored (stored: {have}). "
        "Run `judge editions` to list them, or store it with `judge index build FILE`."
    )


def load_named_sample(store: Any) -> Document:
    """The bundled sample, its stripped glossary paragraphs named from the stored editions."""
    from .sample import load_sample

    glossaries = (store.load(date).document.glossary for date in store.dates())
    return load_sample(glossaries)


def sample_notice() -> str:
    """The line printed under answers that came from the bundled sample."""
    from index.store import EditionStore

    if EditionStore.from_env().dates():
        return (
            "Answered from the bundled sample, as asked (--edition sample); "
            "leave --edition out for the newest stored edition."
        )
    return "Answered from the bundled sample: no edition is stored. " + GET_RULES


class ProgressLine:
    """A one-line progress bar on standard error; create it only when that is a terminal."""

    def __init__(self, label: str, unit: str = "") -> None:
        self.label = label
        self.unit = unit
        self.started = False

    def __call__(self, done: int, total: int | None) -> None:
        self.started = True
        scale = 1024 if self.unit == "KiB" else 1
        amount = f"{done // scale}" + (f" / {total // scale}" if total else "")
        amount += f" {self.unit}" if self.unit else ""
        if total:
            filled = min(30, done * 30 // total)
            line = f"{self.label} [{'#' * filled}{'-' * (30 - filled)}] {amount}"
        else:
            line = f"{self.label} {amount}"
        click.echo(f"\r{line}", nl=False, err=True)

    def finish(self) -> None:
        """Ends the line, if anything was drawn."""
        if self.started:
            click.echo(err=True)
            self.started = False


def stderr_is_terminal() -> bool:
    """Checks if standard error is a terminal (progress is drawn only then)."""
    return sys.stderr.isatty()


def stdout_is_terminal() -> bool:
    """Checks if output goes to a terminal (styled) rather than a pipe or file (plain)."""
    return sys.stdout.isatty()
