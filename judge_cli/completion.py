"""Shell completion: ``judge completion bash|zsh|fish`` and what a TAB offers.

Through click's own mechanism: the script calls ``judge`` with ``_JUDGE_COMPLETE`` set, and
click asks the parameter's callback here. Each TAB is a fresh process, so the callbacks read
only small files of the store: ``numbers.json`` for rule numbers, a cached list of glossary
terms (written once per build, beside the editions), the folder names for edition dates, and
one indexed query of the card snapshot for card names. No whoosh, no document model. A
callback never fails: on any error it offers nothing.

Card names hold spaces and apostrophes ("Lim-Dûl's Vault"), which bash would split or take
for quotes: bash gets them quoted (:class:`BashComplete`), in the quotes the word was begun
with; zsh and fish quote what they insert themselves.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import click
from click.shell_completion import BashComplete as ClickBashComplete

from .common import CONTEXT_SETTINGS, Command

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

    from index.store import EditionStore

__all__ = [
    "BashComplete",
    "bash_quote",
    "card_names",
    "completion",
    "editions",
    "register",
    "rules",
    "terms",
]


def _store() -> EditionStore:
    from index.store import EditionStore

    return EditionStore.from_env()


def _date(ctx: click.Context, store: EditionStore) -> str | None:
    """The edition the command line names so far (``--edition``), else the newest stored."""
    wanted = ctx.params.get("edition")
    if wanted and str(wanted).strip().lower() == "sample":
        return None
    return store.resolve(wanted) if store.dates() else None


def _items(values: list[str]) -> list[CompletionItem]:
    from click.shell_completion import CompletionItem

    return [CompletionItem(v) for v in values]


def rule_candidates(numbers: list[str], prefix: str) -> list[str]:
    """The rule numbers to offer for ``prefix``: the shallowest that match, and, when that is
    one rule, its subrules too (``704.5`` → ``704.5``, ``704.5a`` …; ``70`` → ``700`` … ``709``).
    """
    prefix = prefix.strip().lower()
    matching = [n for n in numbers if n.startswith(prefix)]
    if not matching:
        return []

    def depth(n: str) -> int:
        return 0 if len(n) == 1 else 1 if "." not in n else 2 if n[-1].isdigit() else 3

    top = min(depth(n) for n in matching)
    shallowest = [n for n in matching if depth(n) == top]
    if len(shallowest) > 1:
        return shallowest
    (head,) = shallowest
    # One rule matches at the top: offer it and the level below it (a section's three-digit
    # rules, a rule's numbered rules, a numbered rule's subrules), never the whole tree.
    return [head, *(n for n in matching if depth(n) == top + 1)]


def rules(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Rule numbers of the edition (``704.5<TAB>`` → ``704.5a`` …)."""
    try:
        store = _store()
        date = _date(ctx, store)
        if date is None or not incomplete.strip():
            return []
        return _items(rule_candidates(store.numbers(date), incomplete))
    except Exception:  # completion must never print a traceback into the shell
        return []


def _terms(store: EditionStore, date: str | None) -> list[str]:
    """The glossary terms of an edition, from a small cache file written once per build."""
    if date is None:
        from index.sample import load_sample

        return [entry.term for entry in load_sample().glossary]
    build = store.build_path(date)
    if build is None:
        return []
    cache = store.root / "cache" / f"terms-{date}-{build.name}.json"
    try:
        found = json.loads(cache.read_text(encoding="utf-8"))
        if isinstance(found, list):
            return [str(t) for t in found]
    except (OSError, ValueError):
        pass
    try:  # the build's glossary.json (the whole edition.json for a build stored before it)
        terms = [str(row[0]) for row in store.read_glossary(date)]
    except (LookupError, OSError, ValueError):
        return []  # a damaged edition: `judge define` says what is wrong
    try:
        from index.atomic import write_text_atomic

        cache.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(cache, json.dumps(terms, ensure_ascii=False))
    except OSError:
        pass  # a read-only data folder: read the edition again next time
    return terms


def term_candidates(terms: list[str], words: list[str], incomplete: str) -> list[str]:
    """The rest of each term that starts with what was typed (``legend r`` → ``Rule``)."""
    typed = " ".join([*words, incomplete]).lower()
    skip = len(words)
    out: list[str] = []
    for term in terms:
        if term.lower().startswith(typed):
            rest = " ".join(term.split(" ")[skip:])
            if rest and rest not in out:
                out.append(rest)
    return out


def terms(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Glossary terms (``legen<TAB>`` → ``Legend``, ``Legend Rule`` …)."""
    try:
        store = _store()
        words = [str(w) for w in ctx.params.get(param.name or "", ()) or ()]
        return _items(term_candidates(_terms(store, _date(ctx, store)), words, incomplete))
    except Exception:
        return []


def editions(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Stored edition dates, newest first, then ``latest`` and ``sample``."""
    try:
        dates = list(reversed(_store().dates()))
    except Exception:
        dates = []
    return _items([d for d in [*dates, "latest", "sample"] if d.startswith(incomplete)])


def card_names(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Card and face names of the stored card data (``plat<TAB>`` → ``Platinum Angel`` …)."""
    from click.shell_completion import CompletionItem

    try:
        from index.cards.lookup import CardDB

        with CardDB.open() as db:
            names = db.complete(incomplete)
        # A name is typed into the shell's line as it is: none with a control character.
        return [CompletionItem(name, quote=True) for name in names if name.isprintable()]
    except Exception:  # no card data, a damaged snapshot: offer nothing
        return []


def bash_quote(value: str, opening: str = "") -> str:
    """``value`` as one bash word, in the quotes the user began it with (single by default).

    Always quoted, even a name that needs no quotes ("Plateau"), so that every candidate
    starts alike and bash can complete what they share. Inside double quotes ``"``, ``\\``,
    ``$`` and `````` are escaped; a single quote inside single quotes becomes ``'"'"'``.
    """
    if opening == '"':
        escaped = "".join("\\" + c if c in '"\\$`' else c for c in value)
        return f'"{escaped}"'
    return "'" + value.replace("'", "'\"'\"'") + "'"


class BashComplete(ClickBashComplete):
    """click's bash completion, with the candidates marked ``quote`` quoted for bash."""

    opening = ""
    """The quote the word being completed begins with (``'``, ``"`` or none)."""

    def get_completion_args(self) -> tuple[list[str], str]:
        args, incomplete = super().get_completion_args()
        # click's script passes the words joined by newlines; click's own split has already
        # removed the quote the user began with, so look at the word as it was typed.
        words = os.environ.get("COMP_WORDS", "").split("\n")
        try:
            typed = words[int(os.environ.get("COMP_CWORD", ""))]
        except (ValueError, IndexError):
            typed = ""
        self.opening = typed[:1] if typed[:1] in ("'", '"') else ""
        return args, incomplete

    def format_completion(self, item: CompletionItem) -> str:
        if not item.quote:
            return super().format_completion(item)
        # click's script reads each line with `read` (no -r), which takes one level of
        # backslashes away: double them to keep the escapes of double quotes.
        quoted = bash_quote(item.value, self.opening).replace("\\", "\\\\")
        return f"{item.type},{quoted}"


def register() -> None:
    """Makes click use :class:`BashComplete` for bash (before a TAB is answered)."""
    from click.shell_completion import add_completion_class

    add_completion_class(BashComplete)


@click.command(cls=Command, context_settings=CONTEXT_SETTINGS)
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell: str) -> None:
    """Print the shell completion script for bash, zsh or fish.

    Rule numbers (704.5<TAB>), glossary terms (define legen<TAB>), card names (card
    plat<TAB>) and edition dates complete.
    Load it in the shell's start-up file: eval "$(judge completion bash)" in ~/.bashrc,
    eval "$(judge completion zsh)" in ~/.zshrc, or
    judge completion fish > ~/.config/fish/completions/judge.fish.
    """
    from click.shell_completion import get_completion_class

    from .cli import cli

    register()
    kind = get_completion_class(shell)
    assert kind is not None  # click knows all three
    click.echo(kind(cli, {}, "judge", "_JUDGE_COMPLETE").source())
