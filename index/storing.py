"""Writing the store: storing a parsed edition atomically, its rule files, notes, removal.

:class:`~index.store.EditionStore` answers reads itself and hands writes to this module, so
that a look-up (``judge rule``) never loads the code that builds editions.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .atomic import Slot, clean_slots, private_dir, sweep, write_json, write_text_atomic
from .errors import StoreWriteError, os_reason
from .store import (
    FORMAT,
    GLOSSARY_FILE,
    EditionInfo,
    NoEditionError,
    NoNotesError,
    StoreError,
    family_of,
)

if TYPE_CHECKING:
    from .model import Document
    from .store import EditionStore

__all__ = [
    "ReplaceRefusedError",
    "add_document",
    "add_notes",
    "document_to_data",
    "remove_edition",
    "remove_notes",
]


class ReplaceRefusedError(ValueError):
    """Raised when a file would replace a stored edition of the same date that it reads worse
    than: more undecodable bytes, or a single-byte guess where the stored file was Unicode."""

    file: str | None = None
    """The file that was refused, when the caller knows it."""

    def __init__(self, edition: str, stored: EditionInfo, encoding: str, undecodable: int) -> None:
        from .decode import DecodedText

        self.edition = edition
        self.stored = stored
        self.encoding = encoding
        self.undecodable = undecodable
        then = DecodedText("", stored.encoding or "utf-8", stored.undecodable).describe()
        now = DecodedText("", encoding, undecodable).describe()
        super().__init__(
            f"the {edition} edition is stored already, read as {then}; this file reads as "
            f"{now}, which is worse"
        )


def document_to_data(doc: Document, source: str, sha256: str) -> dict[str, Any]:
    """The JSON-ready form of a parsed document with its cross-references."""
    from .xref import build_xrefs

    xrefs = build_xrefs(doc)
    return {
        "format": FORMAT,
        "edition": doc.edition,
        "title": doc.title,
        "source": source,
        "sha256": sha256,
        "encoding": doc.encoding,
        "undecodable": doc.undecodable,
        "introduction": doc.introduction,
        "contents": doc.contents,
        "credits": doc.credits,
        "rules": [[r.number, r.text, r.examples, r.line] for r in doc.rules.values()],
        "glossary": [[g.term, g.definition, g.line, g.see] for g in doc.glossary],
        "problems": [[p.line, p.text, p.reason] for p in doc.problems],
        "sections": [[s.id, s.title, s.text, s.source, s.line] for s in doc.sections],
        "cites": xrefs.cites,
        "cited_by": xrefs.cited_by,
        "dangling": [[d.source, d.text] for d in xrefs.dangling],
    }


def add_document(
    store: EditionStore,
    doc: Document,
    source: str,
    sha256: str,
    *,
    extra: Callable[[Document, Path], None] | None = None,
    replace: bool = False,
) -> EditionInfo:
    """Stores a parsed document as an edition, atomically (see
    :meth:`~index.store.EditionStore.add_bytes`)."""
    import time

    assert doc.edition is not None
    if not replace:
        check_replacement(store, doc, sha256)
    clean_slots(store.editions_dir)  # builds of other editions killed before going live
    with Slot(store.editions_dir / doc.edition).new_build() as build:
        payload = document_to_data(doc, source, sha256)
        info = EditionInfo(
            doc.edition,
            len(doc.rules),
            len(doc.glossary),
            source,
            sha256,
            doc.encoding,
            doc.undecodable,
        )
        write_json(build / "edition.json", payload)
        write_rule_files(build, payload)
        write_json(build / "meta.json", info.to_json() | {"built": time.time()})
        if extra is not None:
            extra(doc, build)
    return info


def check_replacement(store: EditionStore, doc: Document, sha256: str) -> None:
    """Raises :class:`ReplaceRefusedError` if ``doc`` would replace a stored edition of its
    date that was read better (see :class:`ReplaceRefusedError`)."""
    assert doc.edition is not None
    if not store.has(doc.edition):
        return
    try:
        stored = store.info(doc.edition)
    except (StoreError, KeyError, TypeError):
        return  # a damaged edition: rebuilding it is the cure
    if stored.sha256 == sha256 or not doc.encoding:
        return
    from .decode import DecodedText

    new = DecodedText("", doc.encoding, doc.undecodable)
    # An edition stored before encodings were recorded counts as clean UTF-8: a guess or
    # a lossy reading should not replace it without being asked to.
    worse = doc.undecodable > stored.undecodable or (new.is_guess and not stored.is_guess)
    if worse:
        raise ReplaceRefusedError(doc.edition, stored, doc.encoding, doc.undecodable)


def write_rule_files(build: Path, payload: dict[str, Any]) -> None:
    """Splits the rules by three-digit rule so that a lookup reads only what it shows.

    ``rules/704.json`` holds 704 and everything under it with its cross-references;
    ``rules/sections.json`` the section headings; ``numbers.json`` every number in order;
    ``glossary.json`` the glossary.
    """
    folder = build / "rules"
    folder.mkdir()
    families: dict[str, dict[str, Any]] = {}
    for row in payload["rules"]:
        number = row[0]
        family = families.setdefault(family_of(number), {"rules": [], "cites": {}, "cited_by": {}})
        family["rules"].append(row)
        for key in ("cites", "cited_by"):
            if number in payload[key]:
                family[key][number] = payload[key][number]
    for name, family in families.items():
        write_json(folder / f"{name}.json", family)
    write_json(build / "numbers.json", [row[0] for row in payload["rules"]])
    # The glossary apart, with its entries' cross-references: `judge define` reads only this.
    ids = {f"glossary:{row[0]}" for row in payload["glossary"]}
    glossary = {"glossary": payload["glossary"], "cites": {}, "cited_by": {}}
    for key in ("cites", "cited_by"):
        glossary[key] = {i: refs for i, refs in payload[key].items() if i in ids}
    write_json(build / GLOSSARY_FILE, glossary)


def add_notes(store: EditionStore, name: str, text: str) -> None:
    """Stores a Markdown notes file (replacing one of the same name), atomically."""
    store.notes_dir.mkdir(parents=True, exist_ok=True)
    sweep(store.notes_dir, ".tmp-")  # what a killed write left
    write_text_atomic(store.notes_dir / f"{name}.md", text)


def remove_notes(store: EditionStore, name: str) -> None:
    """Deletes stored notes by name. Raises :class:`~index.store.NoNotesError` (never takes a
    path), or :class:`~index.errors.StoreWriteError`."""
    names = store.notes_names()
    if name not in names:
        raise NoNotesError(name, names)
    try:
        (store.notes_dir / f"{name}.md").unlink()
    except OSError as exc:
        raise StoreWriteError(store.root, os_reason(exc)) from None


def remove_edition(store: EditionStore, edition: str) -> None:
    """Deletes a stored edition, damaged or not (see :meth:`~index.store.EditionStore.remove`)."""
    import shutil

    if edition not in store.dates() and edition not in store.damaged():
        raise NoEditionError(edition, store.dates(), purpose="remove")
    edition_dir = store.editions_dir / edition
    try:
        sweep(store.editions_dir, ".trash-")  # what a killed removal left
        trash = private_dir(store.editions_dir, ".trash-")
        try:
            os.replace(edition_dir, trash / edition)
        finally:
            shutil.rmtree(trash, ignore_errors=True)
    except OSError as exc:
        raise StoreWriteError(store.root, os_reason(exc)) from None
