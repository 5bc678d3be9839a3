"""``judge export html DIR``: an edition as a static, hyperlinked site to host or read offline.

The pages are the server's (:mod:`judge_cli.web.html`), with links between files: ``index.html``
(the contents), ``glossary.html``, one page per section (``7.html``) and per three-digit rule
(``704.html``, anchors ``#R7045j``). The site is written into a new folder beside ``DIR`` and
renamed into place when complete, so ``DIR`` is never half-written; a folder that is not empty
is replaced only if an earlier export made it (it holds :data:`MARKER`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..common import CONTEXT_SETTINGS, Group, echo, edition_option, open_edition

if TYPE_CHECKING:
    from index.edition import Edition

__all__ = ["MARKER", "ExportFolderError", "export", "write_site"]

MARKER = ".judge-export"
"""The file that marks a folder as made by ``judge export html`` (safe to replace)."""


class ExportFolderError(OSError):
    """Raised when the folder to export into holds files that an export did not write."""

    def __init__(self, folder: str, reason: str) -> None:
        self.folder = folder
        self.reason = reason
        super().__init__(f"{folder} {reason}")


def _pages(ed: Edition) -> dict[str, str]:
    from .html import Site, glossary_page, index_page, rule_page, section_page

    site = Site(static=True)
    pages = {"index.html": index_page(ed, site), "glossary.html": glossary_page(ed, site)}
    for number in ed.document.rules:
        if len(number) == 1:
            pages[f"{number}.html"] = section_page(ed, number, site)
        elif "." not in number:
            pages[f"{number}.html"] = rule_page(ed, number, site)
    return pages


def _check_target(target: Path) -> None:
    if not target.exists():
        return
    if not target.is_dir():
        raise ExportFolderError(str(target), "exists and is not a folder")
    if any(target.iterdir()) and not (target / MARKER).is_file():
        raise ExportFolderError(str(target), "is not empty, and no earlier export made it")


def write_site(ed: Edition, target: Path) -> int:
    """Writes the site of ``ed`` to ``target`` (replacing an earlier export); the page count.

    Raises :class:`ExportFolderError` for a folder it must not replace and
    :class:`~index.errors.StoreWriteError` when the files cannot be written.
    """
    from index.errors import StoreWriteError, os_reason

    _check_target(target)
    pages = _pages(ed)
    parent = target.absolute().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        fresh = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=parent))
    except OSError as exc:
        raise StoreWriteError(parent, os_reason(exc)) from None
    try:
        for name, text in pages.items():
            (fresh / name).write_text(text, encoding="utf-8")
        (fresh / MARKER).write_text(f"{ed.label}\n", encoding="utf-8")
        fresh.chmod(0o755)  # mkdtemp makes it private; a site is meant to be read
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=parent))
            os.replace(target, old / target.name)
            os.replace(fresh, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(fresh, target)
    except OSError as exc:
        shutil.rmtree(fresh, ignore_errors=True)
        raise StoreWriteError(target, os_reason(exc)) from None
    return len(pages)


@click.group("export", cls=Group, context_settings=CONTEXT_SETTINGS)
def export() -> None:
    """Write an edition out in another form (html)."""


@export.command("html", context_settings=CONTEXT_SETTINGS)
@click.argument("directory", metavar="DIR")
@edition_option
def export_html(directory: str, edition: str | None) -> None:
    """Write an edition as a static, hyperlinked site in DIR: index.html, glossary.html and
    a page per section and per rule (704.html#R7045j), every reference a link.

    DIR is replaced as a whole once the new site is complete; a folder that is not empty is
    replaced only if an earlier export made it.
    """
    ed = open_edition(edition).load()
    count = write_site(ed, Path(directory))
    echo(f"Wrote {count} pages of the {ed.label} edition to {directory} (open index.html).")
