"""The tournament documents in search: one index of the sections that go with a CR edition.

Which edition of each document: the one that was current while the CR edition searched was,
at its end. For the newest CR edition stored (the default, and the bundled sample) that is the
newest edition of each document stored; for an older one, the newest edition of each document
that took effect before the next CR edition stored did (the MTR of 2024-05-13 goes with the CR
of 2025-02-07 when the CR of 2026-01-16 is stored too, though the MTR of 2026-02-27 is); a
document whose every edition stored is newer is searched in its oldest. This is
:func:`select_documents`.

Each section is one document (kind ``section``, ``document`` its document, ``id`` written as
cross-references are, ``ipg:2.1``): its title as the title, the document's short name
(``IPG``) as the term, its parts, headings included, as the body; sections without text of
their own (the MTR's "4. Communication") and the lists of changes since the previous
edition ("Changes from Previous Versions") are left out. Players' phrasings of what a section
answers (``asked-documents/*.tsv`` beside this module, ``ipg:2.1<TAB>signature<TAB>question``)
are indexed with it, as the rules' are (:mod:`index.search.phrasings`).

The index lives in ``cache/documents-<key>/search/`` under the data folder, where ``key`` is a
digest of what it holds (the builds of the documents chosen, the phrasings, the analysis); it
is built when a document is stored (:func:`refresh_documents_index`) and whenever a search
finds none for its key (a new key: a new document, new phrasings, a new version of judge).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from .extra import extra_key

if TYPE_CHECKING:
    from ..tournament.store import DocumentStore

__all__ = [
    "ASKED_DOCUMENTS_DIR",
    "Chosen",
    "documents_index",
    "read_document_asked",
    "refresh_documents_index",
    "section_documents",
    "select_documents",
]

ASKED_DOCUMENTS_DIR = Path(__file__).with_name("asked-documents")
NAME = "documents"
"""The cache folders' prefix."""


class Chosen(NamedTuple):
    """One stored document edition chosen for an index: its kind, date and build."""

    kind: str
    edition: str
    build: str
    """The name of its live build (a new one each time the edition is stored again)."""


def select_documents(
    store: DocumentStore, cr_edition: str | None, cr_editions: Sequence[str]
) -> list[Chosen]:
    """The edition of each stored document that goes with ``cr_edition`` (see the module);
    ``cr_editions`` are the CR editions stored, ``cr_edition`` None for the sample."""
    from ..atomic import Slot
    from ..tournament.kinds import KINDS

    if not store.documents_dir.is_dir():
        return []
    later = sorted(d for d in cr_editions if cr_edition is not None and d > cr_edition)
    until = later[0] if later else None
    chosen: list[Chosen] = []
    for kind in KINDS:
        dates = store.dates(kind)
        if not dates:
            continue
        before = [d for d in dates if until is None or d < until]
        date = before[-1] if before else dates[0]
        build = Slot(store.documents_dir / kind / date).current_name() or ""
        chosen.append(Chosen(kind, date, build))
    return chosen


# --- the players' phrasings -------------------------------------------------------------------

_ID_RE = re.compile(r"(?:mtr|ipg|jar|dmtr|dipg):(?:\d{1,2}(?:\.\d{1,2})?|Appendix [A-Z]|[a-z-]+)")


@functools.cache
def _asked_files() -> tuple[tuple[str, bytes], ...]:
    if not ASKED_DOCUMENTS_DIR.is_dir():
        return ()
    return tuple((p.name, p.read_bytes()) for p in sorted(ASKED_DOCUMENTS_DIR.glob("*.tsv")))


def read_document_asked(text: str, source: str) -> list[tuple[str, str, str]]:
    """(id, signature, phrasing) rows of one file; raises :class:`ValueError` naming the line
    of a bad row."""
    out: list[tuple[str, str, str]] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) != 3 or not all(fields) or not _ID_RE.fullmatch(fields[0]):
            raise ValueError(f"{source}, line {n}: expected ipg:2.1<TAB>signature<TAB>phrasing")
        out.append((fields[0], fields[1], fields[2]))
    return out


def _asked_digest() -> str:
    h = hashlib.sha256()
    for name, data in _asked_files():
        h.update(f"{name}\n{len(data)}\n".encode())
        h.update(data)
    return h.hexdigest()


def _fold(text: str) -> str:
    from glossary.fold import fold_text

    return " ".join(fold_text(text).lower().split())


def _asked_for(kind: str, texts: dict[str, str]) -> dict[str, list[str]]:
    """Section id → the phrasings of that section of a document of ``kind`` (``texts``: each
    section's folded title and text, by id). A phrasing goes to the section it names if that
    section has its signature, else to the one section of the document that has it."""
    out: dict[str, list[str]] = {}
    for name, data in _asked_files():
        for ref, signature, phrasing in read_document_asked(data.decode("utf-8"), name):
            if not ref.startswith(f"{kind}:"):
                continue
            wanted = _fold(signature)
            target: str | None = ref
            if wanted not in texts.get(ref, ""):
                found = [i for i, t in texts.items() if wanted in t]
                target = found[0] if len(found) == 1 else None
            if target is not None:
                out.setdefault(target, []).append(phrasing)
    return out


# --- the documents of the index ---------------------------------------------------------------


def _is_history(title: str | None) -> bool:
    """Checks if a section only lists what changed since the last edition (every document's
    "Changes from Previous Versions"): it names many sections and answers no question."""
    return title is not None and title.casefold().startswith("changes from previous version")


def section_documents(store: DocumentStore, chosen: Sequence[Chosen]) -> Iterator[dict[str, Any]]:
    """The whoosh documents of the sections of the chosen document editions."""
    from ..tournament.kinds import LABELS
    from .schema import _with_roots, negations

    order = 0
    for choice in chosen:
        doc = store.load(choice.kind, choice.edition)
        sections = [s for s in doc.sections if s.text.strip() and not _is_history(s.title)]
        texts = {f"{doc.kind}:{s.number}": _fold(f"{s.title or ''}\n{s.text}") for s in sections}
        asked = _asked_for(doc.kind, texts)
        roots = negations([s.text for s in sections])
        for section in sections:
            order += 1
            ref = f"{doc.kind}:{section.number}"
            yield _with_roots(
                {
                    "id": ref,
                    "kind": "section",
                    "document": doc.kind,
                    "number": section.number,
                    "order": order,
                    "term": LABELS.get(doc.kind, doc.kind.upper()),
                    "title": section.title or "",
                    "body": section.text,
                    "source": doc.title,
                    "details": {"edition": doc.edition, "penalty": section.penalty},
                },
                roots,
            )
            for i, phrasing in enumerate(asked.get(ref, ()), 1):
                order += 1
                yield {
                    "id": f"{ref}#asked-{i}",
                    "kind": "asked",
                    "document": doc.kind,
                    "number": ref,
                    "order": order,
                    "asked": phrasing,
                }


def _key(chosen: Sequence[Chosen]) -> str:
    content = json.dumps(["documents", _asked_digest(), [list(c) for c in chosen]])
    return extra_key(content)


def documents_index(store: DocumentStore, cache: Path, chosen: Sequence[Chosen]) -> Path | None:
    """The folder of the index of the ``chosen`` document editions under ``cache``, built
    first if there is none; None when nothing is chosen.

    Raises :class:`OSError` when it must be built and cannot be written, and the tournament
    store's errors for a damaged document.
    """
    import os
    import shutil
    import tempfile

    from .build import search_index_folder
    from .extra import build_extra_index

    if not chosen:
        return None
    key = _key(chosen)
    final = cache / f"{NAME}-{key[:16]}"
    if search_index_folder(final) is not None:
        return final
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{NAME}-", dir=cache))
    try:
        title = ", ".join(f"{c.kind} {c.edition}" for c in chosen)
        build_extra_index(tmp, section_documents(store, chosen), key=key, title=title)
        try:
            os.replace(tmp, final)
        except OSError:
            if search_index_folder(final) is None:  # another process got there first
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final


def refresh_documents_index(
    store: DocumentStore, cache: Path, cr_editions: Sequence[str]
) -> Path | None:
    """Builds the index the newest CR edition searches (after a document was stored) and
    removes the others (an older edition's is built again when it is searched)."""
    import shutil

    newest = cr_editions[-1] if cr_editions else None
    folder = documents_index(store, cache, select_documents(store, newest, cr_editions))
    for old in cache.glob(f"{NAME}-*"):
        if old != folder and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
    return folder
