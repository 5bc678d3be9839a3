"""What every command shares: the store, the options, and the one output path.

Kept light on purpose: ``judge rule`` imports this module, so nothing heavy is imported at the
top (no whoosh, no markdown-it-py). Errors are not handled here: commands let the library's
exceptions rise, and the group turns them into ``Error:`` lines (:mod:`judge_cli.errors`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from index.edition import Edition
    from index.store import EditionStore

__all__ = [
    "CONTEXT_SETTINGS",
    "Command",
    "Group",
    "ProgressLine",
    "completer",
    "echo",
    "edition_option",
    "emit",
    "emit_json",
    "json_option",
    "open_edition",
    "open_store",
    "plural",
    "sample_notice",
    "show_markdown",
    "stderr_is_terminal",
    "stdout_is_terminal",
]

F = TypeVar("F", bound=Callable[..., Any])

# Given to every command, not only the group: click caches a command's help option the first
# time it is built, so a command used outside the group (in a test) must carry its own.
CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}


def _show_help(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(ctx.get_help(), color=ctx.color)
        ctx.exit()


class Command(click.Command):
    """A ``judge`` command: the one place where a library error becomes its ``Error:`` line.

    Every command is of this class (the groups make theirs so), so a command invoked on its
    own, as the tests do, answers exactly as it does under ``judge``. The messages are the
    table of :mod:`judge_cli.errors`.
    """

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        """``-h``/``--help``, as click makes it, but with its text given rather than translated.

        click asks gettext for "Show this message and exit." on every run; gettext's first
        question imports :mod:`locale` and looks on disk for catalogues (click ships none),
        which costs ``judge rule`` a tenth of its start-up over ``import click``.
        """
        names = self.get_help_option_names(ctx)
        if not names or not self.add_help_option:
            return None
        # Made once per command: click orders eager parameters by the objects themselves.
        option: click.Option | None = self.__dict__.get("_judge_help_option")
        if option is None:
            option = click.Option(
                names,
                is_flag=True,
                is_eager=True,
                expose_value=False,
                callback=_show_help,
                help="Show this message and exit.",
            )
            self.__dict__["_judge_help_option"] = option
        return option

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.ClickException:
            raise
        except Exception as exc:
            from .errors import describe
            from .render import safe

            problem = describe(exc)
            if problem is None:
                raise
            if problem.usage:
                raise click.UsageError(safe(problem.message)) from None
            raise click.ClickException(safe(problem.message)) from None


class Group(Command, click.Group):
    """A group whose commands are :class:`Command` s (and whose own callback errors read alike)."""

    command_class = Command


def open_store() -> EditionStore:
    """The data folder's store (``$JUDGE_HOME``, else the user data folder)."""
    from index.store import EditionStore

    return EditionStore.from_env()


def open_edition(wanted: str | None) -> Edition:
    """The edition an ``--edition`` value names, telling the user on stderr what it rebuilds."""
    from index.edition import open_edition as library_open

    return library_open(wanted, store=open_store(), notice=lambda text: echo(text, err=True))


def completer(name: str) -> Callable[[click.Context, click.Parameter, str], list[Any]]:
    """The shell-completion callback ``name`` of :mod:`judge_cli.completion`, imported on TAB."""

    def complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
        from . import completion

        found: list[Any] = getattr(completion, name)(ctx, param, incomplete)
        return found

    return complete


def edition_option(func: F) -> F:
    """The ``--edition`` option every command that answers from one edition takes."""
    return click.option(
        "--edition",
        "-e",
        metavar="DATE",
        default=None,
        shell_complete=completer("editions"),
        help=(
            "Edition to use, by effective date (YYYY-MM-DD), 'latest', or 'sample' for the "
            "bundled sample. Default: newest stored."
        ),
    )(func)


def json_option(func: F) -> F:
    """The ``--json`` flag every command that returns records takes."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(func)


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 section``, ``2 sections`` (``words`` for an irregular plural)."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


def emit_json(obj: Any) -> None:
    """Prints ``obj`` as JSON (UTF-8, indented, keys in the order given), its control
    characters escaped (:func:`~judge_cli.render.safe_json`)."""
    from .render import safe_json

    click.echo(safe_json(json.dumps(obj, ensure_ascii=False, indent=2)))


def echo(text: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Prints text that may hold what came from a file, its control characters made harmless."""
    from .render import safe

    click.echo(safe(text), err=err, nl=nl)


def show_markdown(markdown: str) -> None:
    """Prints an answer written in the commands' Markdown: styled on a terminal, else plain."""
    from .render import show

    click.echo(show(markdown, terminal=stdout_is_terminal()), nl=False)


def emit(as_json: bool, data: Any, markdown: Callable[[], str]) -> None:
    """The one way a command answers: ``data`` as JSON, or the Markdown ``markdown()`` makes."""
    if as_json:
        emit_json(data)
    else:
        show_markdown(markdown())


def sample_notice(store: EditionStore | None = None) -> str:
    """The line printed under answers that came from the bundled sample."""
    if (store or open_store()).dates():
        return (
            "Answered from the bundled sample, as asked (--edition sample); "
            "leave --edition out for the newest stored edition."
        )
    from .errors import GET_RULES

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
