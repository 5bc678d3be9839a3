"""``judge mtr``, ``judge ipg`` and ``judge jar``: the tournament documents by section.

Also how ``judge index build`` stores one of these documents, and the lines ``judge
editions`` adds for them. Nothing here imports pypdf unless a PDF is being stored.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from .common import CONTEXT_SETTINGS, emit_json, fail, json_option, stdout_is_terminal

if TYPE_CHECKING:
    from index.tournament.store import DocumentStore

    from .docs_answers import Answer

__all__ = ["document_lines", "ipg", "is_tournament_file", "jar", "mtr", "store_tournament_file"]

GET_DOCUMENTS = (
    "Download the PDF from https://wpn.wizards.com/en/rules-documents and run "
    "`judge index build FILE`."
)


def _stores() -> tuple[DocumentStore, Any]:
    from index.store import EditionStore
    from index.tournament.store import DocumentStore

    editions = EditionStore.from_env()
    return DocumentStore(editions.root), editions


def is_tournament_file(data: bytes) -> bool:
    """Checks if a file handed to ``judge index build`` is one of these documents (or a PDF)."""
    from index.tournament.pdf import is_pdf

    if is_pdf(data):
        return True  # the CR is read from its .txt; a PDF is ours to read or refuse
    from index.decode import DecodeError, decode_rules_bytes

    try:
        text, _ = decode_rules_bytes(data[:4096])  # an even cut: UTF-16 stays whole
    except DecodeError:
        return False
    from index.tournament.layout import Line, clean_line
    from index.tournament.model import DocumentReadError
    from index.tournament.reader import recognise

    lines = [Line(clean_line(raw), i) for i, raw in enumerate(text.splitlines()[:40], start=1)]
    try:
        recognise(lines, "")
    except DocumentReadError as exc:
        return "found the title" in exc.reason
    return True


def store_tournament_file(name: str, data: bytes) -> dict[str, Any]:
    """Reads and stores one document; stops with ``Error: FILE: reason`` if it cannot."""
    import hashlib

    from index.tournament.model import KINDS, DocumentReadError
    from index.tournament.pdf import is_pdf
    from index.tournament.reader import read_document_bytes

    documents, _ = _stores()
    source = Path(name).name
    try:
        doc = read_document_bytes(data, source)
    except DocumentReadError as exc:
        # Every PDF comes here, a CR someone saved as PDF included: say what a PDF must be.
        what = f"this is a PDF that judge could not read ({exc})" if is_pdf(data) else str(exc)
        fail(
            f"{name}: {what}. Nothing was stored. The Tournament Rules, Infraction Procedure "
            "Guide and Judging at Regular REL are read as published at https://wpn.wizards.com/"
            "en/rules-documents (PDF or text); the Comprehensive Rules from their .txt."
        )
    try:
        info = documents.add(doc, source, hashlib.sha256(data).hexdigest())
    except OSError as exc:
        fail(f"{name}: could not write to {documents.root} ({exc}). Nothing was changed.")
    dangling = documents.dangling(info.document, info.edition)
    return {
        "kind": "document",
        "file": name,
        "document": info.document,
        "edition": info.edition,
        "title": KINDS[doc.kind],
        "printed_title": doc.title,
        "sections": info.sections,
        "problems": len(doc.problems),
        "problem_lines": [
            {"line": p.line, "text": p.text, "reason": p.reason} for p in doc.problems
        ],
        "dangling": [
            {"source": f"{info.document}:{source_number}", "text": target}
            for source_number, targets in dangling.items()
            for target in targets
        ],
    }


def document_lines() -> list[str]:
    """The ``judge editions`` lines of the stored documents (none when none is stored)."""
    from index.tournament.kinds import LABELS

    documents, _ = _stores()
    infos = documents.editions()
    lines = []
    for info in infos:
        newest = info.edition == documents.dates(info.document)[-1]
        lines.append(
            f"{LABELS[info.document]:11} {info.edition}  {info.sections:4d} sections  "
            f"{info.source}{'  (newest)' if newest else ''}"
        )
    return lines


def document_records() -> list[dict[str, Any]]:
    """The ``judge editions --json`` records of the stored documents."""
    documents, _ = _stores()
    return [info.to_json() for info in documents.editions()]


def _edition_option(func: Any) -> Any:
    return click.option(
        "--edition",
        "-e",
        metavar="DATE",
        default=None,
        help="Edition of the document, by effective date (YYYY-MM-DD) or 'latest' (default).",
    )(func)


def _cr_edition_option(func: Any) -> Any:
    return click.option(
        "--cr-edition",
        metavar="DATE",
        default=None,
        help="CR edition for the rules cited (default: the one in force on the document's date).",
    )(func)


def _fail_lookup(exc: Exception, kind: str) -> NoReturn:
    from index.tournament.kinds import LABELS
    from index.tournament.lookup import UnknownSectionError
    from index.tournament.store import DocumentStoreError, NoDocumentError

    label = LABELS[kind]
    if isinstance(exc, NoDocumentError):
        if exc.wanted is None:
            fail(f"no {label} is stored. {GET_DOCUMENTS}")
        have = ", ".join(exc.stored) if exc.stored else "none"
        fail(
            f"{label} {exc.wanted} is not stored (stored: {have}). "
            "Run `judge editions` to list them."
        )
    if isinstance(exc, UnknownSectionError):
        if exc.by_name:
            hint = f" Did you mean: {', '.join(exc.nearest)}?" if exc.nearest else ""
            fail(
                f"no {label} {exc.edition} section is named “{exc.wanted}”.{hint} "
                f"Give a section number (`judge {kind} 2.1`) or part of its title."
            )
        near = f" Nearest: {', '.join(exc.nearest)}." if exc.nearest else ""
        fail(f"no section {exc.wanted} in the {label} {exc.edition}.{near}")
    if isinstance(exc, DocumentStoreError):
        fail(f"{exc}. Rebuild it with `judge index build FILE`.")
    raise exc


def _lookup(
    kind: str,
    words: tuple[str, ...],
    edition: str | None,
    cr_edition: str | None,
    as_json: bool,
) -> None:
    from index.store import NoEditionError
    from index.tournament.lookup import UnknownSectionError
    from index.tournament.store import DocumentStoreError, NoDocumentError

    from .docs_answers import References, answer_markdown, answer_record

    documents, editions = _stores()
    try:
        answer = _find(documents, kind, words, edition)
        refs = References(documents, editions, kind, answer.catalog.edition, cr_edition)
        record = answer_record(answer, refs)
    except (NoDocumentError, UnknownSectionError, DocumentStoreError) as exc:
        _fail_lookup(exc, kind)
    except NoEditionError as exc:
        have = ", ".join(exc.stored) if exc.stored else "none"
        fail(f"CR edition {exc.wanted} is not stored (stored: {have}). Leave out --cr-edition.")
    if as_json:
        emit_json(record)
        return
    from .render import show

    click.echo(show(answer_markdown(answer, record, refs), terminal=stdout_is_terminal()), nl=False)


def _find(
    documents: DocumentStore, kind: str, words: tuple[str, ...], edition: str | None
) -> Answer:
    from index.tournament.lookup import (
        UnknownSectionError,
        find_named,
        find_number,
        nearest_sections,
        parse_section_ref,
        whole_section,
    )

    from .docs_answers import Answer

    date = documents.resolve(kind, edition)
    index = documents.index(kind, date)
    query = " ".join(words).strip()
    if not query:
        return Answer(kind, index, documents.section_records(index, index.numbers), query, "all")
    refs = [parse_section_ref(w) for w in words]
    if any(r is None for r in refs):
        refs = [parse_section_ref(query)]
    numbers: list[str] = []
    if all(r is not None for r in refs):
        for ref in refs:
            assert ref is not None
            if find_number(index.entries, ref) is None:
                raise UnknownSectionError(kind, date, ref, nearest_sections(index.numbers, ref))
            numbers.extend(whole_section(index.entries, ref))
        return Answer(kind, index, documents.section_records(index, numbers), query, "number")
    match = find_named(index.entries, query, kind=kind, edition=date, parts=kind == "jar")
    named = whole_section(index.entries, match.number) if match.part is None else [match.number]
    sections = documents.section_records(index, named)
    return Answer(kind, index, sections, query, match.how, match.part)


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("refs", nargs=-1, required=True, metavar="SECTION...")
@_edition_option
@_cr_edition_option
@click.option("--digital", is_flag=True, help="The Magic Digital Tournament Rules instead.")
@json_option
def mtr(
    refs: tuple[str, ...], edition: str | None, cr_edition: str | None, digital: bool, as_json: bool
) -> None:
    """Show the Magic Tournament Rules by section: 2.5, 4 (a whole section), "Appendix B".

    A title works too ("judge mtr deck checks"). References in the text are resolved: to
    other sections, to the IPG stored, and to the rules of the CR.
    """
    _lookup("dmtr" if digital else "mtr", refs, edition, cr_edition, as_json)


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("refs", nargs=-1, required=True, metavar="SECTION|NAME...")
@_edition_option
@_cr_edition_option
@click.option("--digital", is_flag=True, help="The Magic Digital Infraction Procedure Guide.")
@json_option
def ipg(
    refs: tuple[str, ...], edition: str | None, cr_edition: str | None, digital: bool, as_json: bool
) -> None:
    """Show an infraction of the Infraction Procedure Guide, its penalty first.

    By number (2.1, or 2 for all Game Play Errors) or by name ("missed trigger"; close
    misspellings are answered with a did-you-mean).
    """
    _lookup("dipg" if digital else "ipg", refs, edition, cr_edition, as_json)


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("heading", nargs=-1, metavar="[HEADING...]")
@_edition_option
@json_option
def jar(heading: tuple[str, ...], edition: str | None, as_json: bool) -> None:
    """Show Judging at Regular REL: the whole document, or a part by its heading.

    For example "judge jar serious problems" or "judge jar forgets a triggered ability".
    """
    _lookup("jar", heading, edition, None, as_json)
