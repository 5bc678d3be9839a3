"""The ``judge`` command line: thin commands over the ``index`` and ``glossary`` libraries.

Every command is arguments in, one library call, formatting out. Heavy modules (whoosh,
markdown-it-py) are imported inside the commands that need them.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import click

from .common import (
    CONTEXT_SETTINGS,
    GET_RULES,
    edition_option,
    emit_json,
    fail,
    json_option,
    load_document,
    stdout_is_terminal,
)

__all__ = ["cli"]


class LazyGroup(click.Group):
    """A group whose commands in other modules are imported only when they are run.

    ``judge rule`` should not pay for importing the scenario checker or the search engine.
    """

    def __init__(self, *args: Any, lazy: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def invoke(self, ctx: click.Context) -> Any:
        # The one place a damaged data folder becomes an "Error:" line, for every command.
        from index.store import StoreError

        try:
            return super().invoke(ctx)
        except StoreError as exc:
            raise click.ClickException(
                f"{exc}. Rebuild it with `judge index build FILE`, "
                f"or remove it with `judge index remove {exc.edition}`."
            ) from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self.lazy])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy:
            module_name, attr = self.lazy[cmd_name].split(":")
            module = importlib.import_module(module_name)
            command: click.Command = getattr(module, attr)
            return command
        return super().get_command(ctx, cmd_name)


# Commands that live in their own modules: name → "module:attribute".
LAZY_COMMANDS = {
    "check": "judge_cli.scenario.command:check",
    "cite-check": "judge_cli.diff_commands:cite_check",
    "diff": "judge_cli.diff_commands:diff",
    "history": "judge_cli.diff_commands:history",
    "model": "judge_cli.model_command:model",
    "search": "judge_cli.search_command:search",
    "update": "judge_cli.update_command:update",
}


@click.group(
    cls=LazyGroup,
    lazy=LAZY_COMMANDS,
    context_settings=CONTEXT_SETTINGS,
)
@click.version_option(package_name="judge-cli", prog_name="judge")
def cli() -> None:
    """Offline reference for the Magic: The Gathering Comprehensive Rules.

    Look rules up by number, define glossary terms, search everything, and check what the
    state-based actions do to a board. Every answer names the edition it comes from.
    """


def _echo_markdown(markdown: str) -> None:
    from .render import show

    click.echo(show(markdown, terminal=stdout_is_terminal()), nl=False)


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.argument("refs", nargs=-1, required=True, metavar="REF...")
@edition_option
@click.option("--no-subrules", is_flag=True, help="Show only the rule named, not its subrules.")
@json_option
def rule(refs: tuple[str, ...], edition: str | None, no_subrules: bool, as_json: bool) -> None:
    """Show rules by number: 704.5j, 704.5 (with subrules), 704, 7, 601.2a-h.

    A trailing period (704.5.) also means the rule alone. Each rule comes with the rules it
    cites and the rules and glossary entries that cite it.
    """
    from index.model import UnknownRuleError
    from index.numbers import InvalidRuleReferenceError, parse_rule_ref

    from .answers import rule_record, rules_markdown

    # "rule 704.5j" arrives as two arguments; so does "rules 601.2a - h".
    joined = " ".join(refs).replace(",", " ")
    joined = re.sub(r"\s*([-\u2013\u2014])\s*", r"\1", joined)
    words = [w for w in joined.split() if w.lower() not in ("rule", "rules", "and")]
    parsed = []
    for word in words:
        try:
            parsed.append(parse_rule_ref(word))
        except InvalidRuleReferenceError as exc:
            raise click.UsageError(
                f"{exc}. A rule reference looks like 704.5j, 704.5, 704, 7 or 601.2a-h."
            ) from None
    spans = [(str(r.start), str(r.end) if r.end else None) for r in parsed]
    loaded = load_document(edition, spans=spans)
    doc = loaded.document
    records: list[dict[str, Any]] = []
    for ref in parsed:
        if loaded.is_sample:
            fail(
                f"rule {ref} is not in the bundled sample, which has no numbered rules. "
                + GET_RULES
            )
        try:
            # Subrules come nested under the rule they belong to, not as separate records.
            rules = doc.resolve(ref) if ref.end is not None else [doc.get_rule(str(ref.start))]
        except UnknownRuleError as exc:
            near = f" Nearest: {', '.join(exc.nearest)}." if exc.nearest else ""
            fail(f"no rule {exc.number} in the {loaded.label} edition.{near}")
        with_subrules = ref.with_subrules and not no_subrules
        records.extend(rule_record(loaded, r, with_subrules=with_subrules) for r in rules)
    if as_json:
        emit_json({"edition": doc.edition, "rules": records})
        return
    _echo_markdown(rules_markdown(records, loaded))


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.argument("term", nargs=-1, required=True)
@edition_option
@json_option
def define(term: tuple[str, ...], edition: str | None, as_json: bool) -> None:
    """Define a glossary term: any case, plural, "(Obsolete)", or a close misspelling."""
    from glossary.lookup import Glossary, UnknownTermError

    from .answers import definition_markdown, definition_record

    query = " ".join(term)
    loaded = load_document(edition)
    glossary = Glossary(loaded.document.glossary)
    try:
        match = glossary.get(query)
    except UnknownTermError as exc:
        where = "the bundled sample" if loaded.is_sample else f"the {loaded.label} edition"
        hint = f" Did you mean: {', '.join(exc.suggestions)}?" if exc.suggestions else ""
        more = f" {GET_RULES}" if loaded.is_sample else ' Try `judge search "' + query + '"`.'
        fail(f"no glossary entry for “{query}” in {where}.{hint}{more}")
    record = definition_record(loaded, match)
    if as_json:
        emit_json(record)
        return
    _echo_markdown(definition_markdown(record, loaded))


@cli.command(context_settings=CONTEXT_SETTINGS)
@json_option
def editions(as_json: bool) -> None:
    """List the stored editions: date, number of rules and glossary entries, source."""
    from index.store import EditionStore

    store = EditionStore.from_env()
    infos = store.editions()
    if as_json:
        emit_json([info.to_json() for info in infos])
        return
    if not infos:
        click.echo(f"No edition is stored in {store.root}. {GET_RULES}")
        return
    newest = infos[-1].edition
    for info in infos:
        mark = "  (newest)" if info.edition == newest else ""
        click.echo(
            f"{info.edition}  {info.rules:5d} rules  {info.glossary:4d} glossary entries  "
            f"{info.source}{mark}"
        )


@cli.group("index", context_settings=CONTEXT_SETTINGS)
def index_group() -> None:
    """Store, rebuild and remove editions."""


@index_group.command("build", context_settings=CONTEXT_SETTINGS)
# Plain strings, not click.Path: building a click.Path imports locale at start-up, and
# build_files reports unreadable paths itself.
@click.argument("files", nargs=-1, required=True)
@json_option
def index_build(files: tuple[str, ...], as_json: bool) -> None:
    """Parse CR text files and store each as an edition named by its effective date.

    A Markdown file (.md) is stored as notes, searched alongside every edition.
    """
    from .building import build_files

    results = build_files(list(files))
    if as_json:
        emit_json(results)
        return
    for result in results:
        if result["kind"] == "notes":
            click.echo(f"Stored notes {result['name']}: {result['sections']} sections.")
        else:
            problems = result["problems"]
            extra = f", {problems} lines not placed (see --json)" if problems else ""
            click.echo(
                f"Stored edition {result['edition']}: {result['rules']} rules, "
                f"{result['glossary']} glossary entries{extra}."
            )


@index_group.command("remove", context_settings=CONTEXT_SETTINGS)
@click.argument("edition")
def index_remove(edition: str) -> None:
    """Delete a stored edition."""
    from index.store import EditionStore, NoEditionError

    store = EditionStore.from_env()
    try:
        store.remove(edition)
    except NoEditionError as exc:
        fail(f"{exc}. Run `judge editions` to list them.")
    click.echo(f"Removed edition {edition}.")
