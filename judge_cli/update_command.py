"""``judge update``: download the newest Comprehensive Rules from Wizards and store them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .common import CONTEXT_SETTINGS

if TYPE_CHECKING:
    from pathlib import Path

    from index.fetch import FetchError, UpdateResult
    from index.model import Document

__all__ = ["describe_fetch_error", "update"]

_RULES_PAGE = "https://magic.wizards.com/en/rules"
_NEXT_STEP = f"find the .txt link on {_RULES_PAGE} and pass it with --url"


def _is_terminal() -> bool:
    """Checks if stderr is a terminal (progress is shown only then, never in pipes or tests)."""
    from .common import stderr_is_terminal

    return stderr_is_terminal()


def describe_fetch_error(error: FetchError) -> str:
    """The ``judge update`` message for a fetch error: what failed, then the next step."""
    from index import fetch

    url = error.url
    if isinstance(error, fetch.UnreachableError):  # time-outs included
        return (
            f"could not reach {url} ({error.reason}). The stored editions still work; try again"
            " when online, or pass --url with a file you downloaded (a path or a file:// URL)."
        )
    if isinstance(error, fetch.BadURLError):
        return (
            f"cannot fetch {url!r}: {error.reason}; check it, or leave out --url to use"
            f" {_RULES_PAGE}."
        )
    if isinstance(error, fetch.HTTPStatusError) and error.status < 500:
        return f"{url} answered {error.status} {error.reason}; {_NEXT_STEP}."
    if isinstance(error, fetch.RedirectError):
        return f"{url} redirects {error.reason}; {_NEXT_STEP}."
    if isinstance(error, fetch.TooLargeError):
        if error.size is None:
            return (
                f"{url} is larger than the {error.limit} bytes a rules file can be; {_NEXT_STEP}."
            )
        return (
            f"{url} is {error.size} bytes, more than the {error.limit} a rules file can be;"
            f" {_NEXT_STEP}."
        )
    if isinstance(error, fetch.NotRulesFileError):
        return f"{url} is not a Comprehensive Rules text file ({error.reason}); {_NEXT_STEP}."
    if isinstance(error, fetch.NoRulesLinkError):
        return (
            f"no Comprehensive Rules .txt link found on {fetch.printable(url)}; {_NEXT_STEP}"
            " (or download the file and pass its path with --url)."
        )
    return str(error)  # a server error (try again later), a truncated download


def _describe(result: UpdateResult) -> str:
    if result.status == "added":
        return f"Added the {result.edition} edition of the Comprehensive Rules from {result.url}."
    if result.status == "already-stored":
        return f"The {result.edition} edition ({result.url}) is already stored; nothing to do."
    if result.status == "newer-available":
        return (
            f"A newer edition is available: {result.edition} ({result.url}).\n"
            "Run `judge update` to download it."
        )
    return f"Up to date: the newest edition offered, {result.edition}, is already stored."


@click.command("update", context_settings=CONTEXT_SETTINGS)
@click.option(
    "--url",
    metavar="URL",
    help=f"The rules page to read, or a direct .txt link or file path. [default: {_RULES_PAGE}]",
)
@click.option(
    "--check", "check_only", is_flag=True, help="Only report whether a newer edition exists."
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def update(url: str | None, check_only: bool, as_json: bool) -> None:
    """Download the newest Comprehensive Rules from Wizards and store them as an edition.

    The rules page is searched for the Comprehensive Rules .txt link; the file must parse as the
    rules before anything is stored, and an edition already stored is not downloaded again.
    """
    from index.fetch import FetchError
    from index.fetch import update as run_update
    from index.search import build_search_index
    from index.store import EditionStore

    from .common import ProgressLine, emit_json, fail

    store = EditionStore.from_env()
    interactive = _is_terminal() and not as_json
    bar = ProgressLine("Downloading", "KiB") if interactive else None

    def build(doc: Document, folder: Path) -> None:
        # Runs inside the new edition's folder before it goes live (see EditionStore.add_bytes).
        if bar is None:
            build_search_index(doc, folder)
            return
        bar.finish()
        click.echo(f"Building the search index for {doc.edition}…", err=True)
        indexing = ProgressLine("Indexing", "documents")
        build_search_index(doc, folder, progress=indexing)
        indexing.finish()

    try:
        result = run_update(store, url, check_only=check_only, progress=bar, extra=build)
    except FetchError as error:
        fail(describe_fetch_error(error))
    except OSError as error:
        fail(f"could not write to {store.root} ({error}). Nothing stored was changed.")
    finally:
        if bar is not None:
            bar.finish()
    for problem in result.problems:
        click.echo(f"Warning: {describe_fetch_error(problem)}", err=True)
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(_describe(result))
