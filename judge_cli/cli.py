"""The ``judge`` command line: thin commands over the ``index`` and ``glossary`` libraries.

Every command is arguments in, one library call, formatting out. Heavy modules (whoosh,
markdown-it-py) are imported inside the commands that need them.
"""

from __future__ import annotations

import importlib
import os
import re
from typing import TYPE_CHECKING, Any

import click

from .common import (
    CONTEXT_SETTINGS,
    Group,
    completer,
    edition_option,
    emit,
    json_option,
    open_edition,
)

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

__all__ = ["cli"]


class LazyGroup(Group):
    """A group whose commands in other modules are imported only when they are run.

    ``judge rule`` should not pay for importing the scenario checker or the search engine.
    """

    def __init__(
        self, *args: Any, lazy: dict[str, tuple[str, str]] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def main(self, *args: Any, **kwargs: Any) -> Any:
        from .render import prepare_streams

        prepare_streams()
        if any(name.endswith("_COMPLETE") for name in os.environ):
            from .completion import register  # a TAB: bash gets card names quoted

            register()
        return super().main(*args, **kwargs)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self.lazy])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy:
            module_name, attr = self.lazy[cmd_name][0].split(":")
            module = importlib.import_module(module_name)
            command: click.Command = getattr(module, attr)
            return command
        return super().get_command(ctx, cmd_name)

    def listed(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command as the help's list and a TAB show it: a lazy one's stand-in, with its
        summary, so that listing the commands imports none of them."""
        if cmd_name in self.lazy:
            return click.Command(cmd_name, help=self.lazy[cmd_name][1])
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's list of commands (the same text), from :meth:`listed`."""
        from gettext import gettext as _  # click's own section title, translated as it does

        commands = [(name, self.listed(ctx, name)) for name in self.list_commands(ctx)]
        shown = [(name, cmd) for name, cmd in commands if cmd is not None and not cmd.hidden]
        if shown:
            limit = formatter.width - 6 - max(len(name) for name, _cmd in shown)
            with formatter.section(_("Commands")):
                formatter.write_dl([(name, cmd.get_short_help_str(limit)) for name, cmd in shown])

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        """click's completions of a command name (the same items), from :meth:`listed`."""
        from click.shell_completion import CompletionItem

        results = []
        for name in self.list_commands(ctx):
            cmd = self.listed(ctx, name) if name.startswith(incomplete) else None
            if cmd is not None and not cmd.hidden:
                results.append(CompletionItem(name, help=cmd.get_short_help_str()))
        results.extend(click.Command.shell_complete(self, ctx, incomplete))
        return results


# Commands that live in their own modules: name → ("module:attribute", the first paragraph of
# its help). `judge --help` and a TAB list them from here, without importing them; a test
# checks each against its command.
LAZY_COMMANDS = {
    "card": (
        "judge_cli.card_command:card",
        "Show cards: Oracle text, rulings, and the rules their keywords name.",
    ),
    "cards": (
        "judge_cli.card_command:cards",
        "Show the stored Oracle card data (date, cards, source); import or download it.",
    ),
    "check": (
        "judge_cli.scenario.command:check",
        "Replay the board in FILE through the state-based actions and explain the ruling.",
    ),
    "cite-check": (
        "judge_cli.diff_commands:cite_check",
        "Check the rule citations in a text (FILE, or - for standard input) against an edition.",
    ),
    "diff": (
        "judge_cli.diff_commands:diff",
        "Show what changed between two editions: in one rule, a rule with its subrules,"
        " a section, or (no REF) the whole document.",
    ),
    "editions": (
        "judge_cli.store_commands:editions",
        "List the stored editions (date, rules, glossary entries, source) and tournament"
        " documents.",
    ),
    "history": (
        "judge_cli.diff_commands:history",
        "Show every stored edition in which a rule was added, changed, moved or removed.",
    ),
    "index": ("judge_cli.store_commands:index_group", "Store, rebuild and remove editions."),
    "ipg": (
        "judge_cli.docs_commands:ipg",
        "Show an infraction of the Infraction Procedure Guide, its penalty first.",
    ),
    "jar": (
        "judge_cli.docs_commands:jar",
        "Show Judging at Regular REL: the whole document, or a part by its heading.",
    ),
    "model": (
        "judge_cli.model_command:model",
        "Show the sentence-embedding model of the semantic re-rank (`judge model install`).",
    ),
    "mtr": (
        "judge_cli.docs_commands:mtr",
        'Show the Magic Tournament Rules by section: 2.5, 4 (a whole section), "Appendix B".',
    ),
    "notes": (
        "judge_cli.store_commands:notes_group",
        "List the stored notes (Markdown files searched with every edition).",
    ),
    "completion": (
        "judge_cli.completion:completion",
        "Print the shell completion script for bash, zsh or fish.",
    ),
    "export": ("judge_cli.web.export:export", "Write an edition out in another form (html)."),
    "search": (
        "judge_cli.search_command:search",
        "Search rules, examples, glossary, notes, tournament documents and card rulings, ranked.",
    ),
    "serve": (
        "judge_cli.serve.command:serve",
        "Answer over HTTP: the JSON of rule, define, search, check, editions, diff, history"
        " and card under /api/, Academy Ruins-style routes under /cr/, and pages for people"
        " at /.",
    ),
    "update": (
        "judge_cli.update_command:update",
        "Download the newest Comprehensive Rules from Wizards and store them as an edition.",
    ),
}


def _show_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """What click's ``version_option`` prints: ``judge, version 0.1.0``."""
    if not value or ctx.resilient_parsing:
        return
    import importlib.metadata

    click.echo(f"judge, version {importlib.metadata.version('judge-cli')}", color=ctx.color)
    ctx.exit()


@click.group(
    cls=LazyGroup,
    lazy=LAZY_COMMANDS,
    context_settings=CONTEXT_SETTINGS,
)
# Not click.version_option: it asks gettext for its help text at import (see Command).
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_show_version,
    help="Show the version and exit.",
)
def cli() -> None:
    """Offline reference for the Magic: The Gathering Comprehensive Rules.

    Look rules up by number, define glossary terms, search everything, and check what the
    state-based actions do to a board. Every answer names the edition it comes from.
    """


def _parse_refs(refs: tuple[str, ...]) -> list[Any]:
    """The rule references of ``judge rule``'s arguments ("rule 704.5j", "601.2a - h", "a, b")."""
    from index.numbers import parse_rule_ref

    joined = " ".join(refs).replace(",", " ")
    if any(dash in joined for dash in "-\u2013\u2014"):  # a range: its dash joins its ends
        joined = re.sub(r"\s*([-\u2013\u2014])\s*", r"\1", joined)
    words = [w for w in joined.split() if w.lower() not in ("rule", "rules", "and")]
    return [parse_rule_ref(word) for word in words]


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.argument(
    "refs", nargs=-1, required=True, metavar="REF...", shell_complete=completer("rules")
)
@edition_option
@click.option("--no-subrules", is_flag=True, help="Show only the rule named, not its subrules.")
@json_option
def rule(refs: tuple[str, ...], edition: str | None, no_subrules: bool, as_json: bool) -> None:
    """Show rules by number: 704.5j, 704.5 (with subrules), 704, 7, 601.2a-h.

    A trailing period (704.5.) also means the rule alone. Each rule comes with the rules it
    cites and the rules and glossary entries that cite it.
    """
    from .answers import rule_record, rules_markdown

    parsed = _parse_refs(refs)
    if not parsed:
        raise click.UsageError("give a rule number, such as 704.5j, 704.5, 704, 7 or 601.2a-h.")
    ed = open_edition(edition)
    records: list[dict[str, Any]] = []
    for ref in parsed:
        with_subrules = ref.with_subrules and not no_subrules
        records.extend(rule_record(ed, r, with_subrules=with_subrules) for r in ed.rules(ref))
    emit(as_json, {"edition": ed.date, "rules": records}, lambda: rules_markdown(records, ed))


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.argument("term", nargs=-1, required=True, shell_complete=completer("terms"))
@edition_option
@json_option
def define(term: tuple[str, ...], edition: str | None, as_json: bool) -> None:
    """Define a glossary term: any case, plural, "(Obsolete)", or a close misspelling."""
    from .answers import definition_markdown, definition_record

    ed = open_edition(edition)
    record = definition_record(ed, ed.define(" ".join(term)))
    emit(as_json, record, lambda: definition_markdown(record, ed))
