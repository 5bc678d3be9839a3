"""The whoosh schema and the documents of an edition: building, opening and checking indexes.

The index lives in ``<build folder>/search/`` and is written by :func:`build_search_index` while
the build folder is still private (the store's ``extra`` hook), so it goes live atomically with
the rest of the edition. Documents (see :class:`SearchSchema`):

* every rule and subrule (kind ``rule``), carrying the title of the rule it belongs to
  (``702.26b`` carries "Phasing"; ``704.5j`` carries "State-Based Actions"), its number, its
  parent and its section;
* every example (kind ``example``), searchable on its own but *folded under its rule* in the
  results: a hit on an example is reported as the rule (``id`` = the rule number) with the
  example's snippet in the extra ``example`` key;
* every players' phrasing of a question a rule answers (kind ``asked``, field ``asked``; see
  :mod:`index.search.phrasings`), folded under its rule like an example;
* every glossary entry (kind ``glossary``), the term a boosted title;
* sections of the bundled sample and of Markdown notes (kind ``section``).

Texts are stored as published (curly quotes and all) and shown that way; the tokenizer reads
curly and straight punctuation alike, so only queries need folding. A negated word's root is
indexed beside it ("untapped" → "tapped"; see :func:`_negations`). whoosh is imported lazily,
through :func:`_whoosh`.
"""

from __future__ import annotations

import json
import os
import re
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .words import _QUESTION_WORDS, TOKEN_PATTERN

if TYPE_CHECKING:
    from whoosh.index import Index

    from ..model import Document, Section
    from ..numbers import RuleNumber

# The document model and rule numbers are imported where they are used: a one-shot search
# needs neither unless the query names a rule, and importing them costs start-up time.

SCHEMA_VERSION = 6
"""Bumped whenever the schema or the analysis changes; an index with another version is stale."""
_META = "judge-search.json"


class NoSearchIndexError(LookupError):
    """Raised when an edition's folder holds no (readable) search index."""


# --- whoosh, imported lazily ----------------------------------------------------------------


def _whoosh() -> Any:
    """Imports whoosh with its Python 3.12+ invalid-escape warnings filtered by message."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"invalid escape sequence")
        import whoosh.fields
        import whoosh.index
        import whoosh.query
        import whoosh.scoring

        return whoosh


_FREQUENCIES: weakref.WeakKeyDictionary[Any, dict[tuple[str, str], int]] = (
    weakref.WeakKeyDictionary()
)


def _doc_frequency(reader: Any, fieldname: str, text: str) -> int:
    """``reader.doc_frequency(fieldname, text)``, remembered per reader.

    A question asks for the same words several times (fuzzy check, weights, pruning), and a
    warm process for the same common words in every question; each lookup unpickles a term info.
    """
    cache = _FREQUENCIES.setdefault(reader, {})
    key = (fieldname, text)
    found = cache.get(key)
    if found is None:
        found = cache[key] = int(reader.doc_frequency(fieldname, text))
    return found


_SCHEMA: Any = None


def _schema() -> Any:
    """The one schema (a :class:`whoosh.fields.SchemaClass`), created on first use."""
    global _SCHEMA
    if _SCHEMA is None:
        _SCHEMA = _make_schema()()
    return _SCHEMA


def _analyzer(stop: bool = True) -> Any:
    from whoosh.analysis import StemmingAnalyzer

    # Tokens like "704.5j" stay whole; "owner's" → "owner", "s" (the "s" is a stop word).
    # Power/toughness changes ("+1/+1", "-1/-1") are one token each: without that, "-2/-2"
    # reads as two "2"s and matches every rule with a 2 in it.
    stoplist = _QUESTION_WORDS | {"s", "t"} if stop else None
    return StemmingAnalyzer(expression=TOKEN_PATTERN, stoplist=stoplist, minsize=1)


def _make_schema() -> Any:
    w = _whoosh()
    f = w.fields

    class SearchSchema(f.SchemaClass):  # type: ignore[misc,name-defined]
        """One document per rule, example, glossary entry or section."""

        id = f.ID(stored=True, unique=True)
        kind = f.ID(stored=True)
        number = f.ID(stored=True)
        parent = f.ID(stored=True)
        section = f.ID(stored=True)
        order = f.NUMERIC(stored=True, sortable=True)
        term = f.TEXT(analyzer=_analyzer(), stored=True, field_boost=3.0, spelling=True)
        title = f.TEXT(analyzer=_analyzer(), stored=True, field_boost=2.0, spelling=True)
        group = f.TEXT(analyzer=_analyzer(), stored=True, field_boost=0.5)
        body = f.TEXT(analyzer=_analyzer(), stored=True, spelling=True)
        asked = f.TEXT(analyzer=_analyzer(), stored=True)
        roots = f.STORED()
        source = f.STORED()

    return SearchSchema


# --- building ---------------------------------------------------------------------------------


def document_hash(doc: Document) -> str:
    """A hash of everything the index is built from, plus the schema version."""
    import hashlib

    from .phrasings import asked_digest

    h = hashlib.sha256(f"judge-search-{SCHEMA_VERSION}\n{doc.edition}\n".encode())
    h.update(asked_digest().encode())
    for r in doc.rules.values():
        h.update(json.dumps([r.number, r.text, r.examples]).encode())
    for g in doc.glossary:
        h.update(json.dumps([g.term, g.definition]).encode())
    for s in doc.sections:
        h.update(json.dumps([s.id, s.title, s.text, s.source]).encode())
    return h.hexdigest()


def _is_title(text: str) -> bool:
    """Checks if a numbered rule's text is a title ("Phasing") rather than a sentence."""
    return len(text) <= 60 and not text.rstrip().endswith((".", ":", ")")) and "." not in text


def _rule_titles(doc: Document) -> Iterator[tuple[str, str, str]]:
    """(number, title, group) per rule: its nearest titled ancestor and its three-digit rule.

    ``702.26b`` → ("Phasing", "Keyword Abilities"); ``704.5j`` → ("State-Based Actions", "");
    a section or a three-digit rule is its own title.
    """
    from ..numbers import InvalidRuleReferenceError, parse_rule_number

    for number, rule in doc.rules.items():
        try:
            parsed = parse_rule_number(number)
        except InvalidRuleReferenceError:
            continue
        if parsed.depth <= 1:
            yield number, rule.text, ""
            continue
        heading = doc.rules.get(str(parsed.rule))
        group = heading.text if heading is not None else ""
        title = group
        node: RuleNumber | None = parsed
        while node is not None and node.depth >= 2:
            found = doc.rules.get(str(node))
            if found is not None and _is_title(found.text):
                title = found.text
                break
            node = node.parent()
        yield number, title, "" if title == group else group


_NEGATION_RE = re.compile(r"(?:un|non|il)([a-z]{3,})")
_NOT_NEGATIONS = frozenset(
    ["unless", "unlike", "unearth", "undo", "undoing", "undone", "uncommon", "unable"]
)
"""Words that start like a negation but do not negate the rest ("unless" is not "not less")."""


def _negations(texts: Iterable[str]) -> dict[str, str]:
    """Negated words of ``texts`` whose root is a word of its own there ("untapped" → "tapped").

    A rule that says "untapped creature" answers "can I block with a tapped creature": the root is
    indexed beside the negated word (not shown, not highlighted), so a question in the positive
    finds the rule written in the negative. Only roots the document itself uses are taken.
    """
    words: set[str] = set()
    for text in texts:
        words.update(re.findall(r"[a-z]+", text.lower()))
    return {
        w: w[len(w) - len(root) :]
        for w in words
        if w not in _NOT_NEGATIONS
        and (m := _NEGATION_RE.fullmatch(w)) is not None
        and (root := m.group(1)) in words
    }


def _with_roots(d: dict[str, Any], negations: dict[str, str]) -> dict[str, Any]:
    """``d`` with the roots of its body's negated words indexed (and stored in ``roots``)."""
    body = d.get("body") or ""
    roots = sorted({negations[w] for w in re.findall(r"[a-z]+", body.lower()) if w in negations})
    if roots:
        joined = " ".join(roots)
        d["_stored_body"] = body
        d["body"] = f"{body}\n{joined}"
        d["roots"] = joined
    return d


def _documents(doc: Document) -> Iterator[dict[str, Any]]:
    """The whoosh documents for one Document, in document order."""
    negations = _negations(
        [r.text for r in doc.rules.values()] + [g.definition for g in doc.glossary]
    )
    for d in _plain_documents(doc):
        yield _with_roots(d, negations)


def _plain_documents(doc: Document) -> Iterator[dict[str, Any]]:
    from .phrasings import asked_for

    order = 0
    titles = {n: (t, g) for n, t, g in _rule_titles(doc)}
    asked = asked_for(doc) if doc.rules else {}
    for number, rule in doc.rules.items():
        title, group = titles.get(number, ("", ""))
        parent = doc.parent(number) or ""
        section = number[0]
        order += 1
        yield {
            "id": number,
            "kind": "rule",
            "number": number,
            "parent": parent,
            "section": section,
            "order": order,
            "title": title,
            "group": group,
            "body": rule.text,
        }
        for i, example in enumerate(rule.examples, 1):
            order += 1
            yield {
                "id": f"{number}#example-{i}",
                "kind": "example",
                "number": number,
                "parent": number,
                "section": section,
                "order": order,
                "title": title,
                "group": group,
                "body": example,
            }
        for i, phrasing in enumerate(asked.get(number, ()), 1):
            order += 1
            yield {
                "id": f"{number}#asked-{i}",
                "kind": "asked",
                "number": number,
                "parent": number,
                "section": section,
                "order": order,
                "asked": phrasing,
            }
    for entry in doc.glossary:
        order += 1
        yield {
            "id": entry.ref_id,
            "kind": "glossary",
            "order": order,
            "term": entry.term,
            "body": entry.definition,
        }
    yield from _section_documents(doc.sections, order)


def _section_documents(sections: Iterable[Section], order: int = 0) -> Iterator[dict[str, Any]]:
    for section in sections:
        order += 1
        yield {
            "id": f"section:{section.id}",
            "kind": "section",
            "order": order,
            "title": section.title or "",
            "body": section.text,
            "source": section.source,
        }


Progress = Callable[[int, int], None]
"""Told ``(documents added, documents in all)`` while an index is written."""


def _write(ix: Any, docs: Iterable[dict[str, Any]], progress: Progress | None = None) -> None:
    from whoosh.writing import CLEAR

    pending = list(docs) if progress is not None else docs
    total = len(pending) if isinstance(pending, list) else 0
    # One segment, written in one go: a full rebuild (CLEAR) with a large memory buffer.
    with ix.writer(limitmb=256, procs=1) as w:
        w.mergetype = CLEAR
        for i, d in enumerate(pending, start=1):
            w.add_document(**d)
            if progress is not None and (i % 250 == 0 or i == total):
                progress(i, total)


def build_search_index(doc: Document, folder: Path, progress: Progress | None = None) -> None:
    """Writes ``folder / "search"``: the whoosh index of ``doc`` and a hash of what it holds.

    ``progress``, if given, is told how many documents have been added as the index is written.
    """
    import shutil

    w = _whoosh()
    target = folder / "search"
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    ix = w.index.create_in(str(target), _schema())
    _write(ix, _documents(doc), progress)
    meta = {
        "schema": SCHEMA_VERSION,
        "hash": document_hash(doc),
        "edition": doc.edition,
        "title": doc.title,
    }
    (target / _META).write_text(json.dumps(meta), encoding="utf-8")


def rebuild_search_index(doc: Document, folder: Path) -> None:
    """Rebuilds ``folder / "search"`` beside the old one and swaps it in (for stale indexes)."""
    import shutil
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix=".search-", dir=folder))
    try:
        build_search_index(doc, tmp)
        old = folder / "search"
        aside = folder / f".old-{tmp.name}"
        if old.exists():
            os.replace(old, aside)
        os.replace(tmp / "search", old)
        shutil.rmtree(aside, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def build_ram_index(doc: Document | None = None, sections: Iterable[Section] = ()) -> Index:
    """An in-memory index of a document (or of bare sections, for notes)."""
    _whoosh()
    from whoosh.filedb.filestore import RamStorage

    ix = RamStorage().create_index(_schema())
    docs = list(_documents(doc)) if doc is not None else []
    docs += list(_section_documents(sections, len(docs)))
    _write(ix, docs)
    return ix


def build_cached_index(doc: Document, cache: Path, name: str, key: str | None = None) -> Path:
    """The folder of an on-disk index of ``doc`` under ``cache``, built once per content hash.

    Used for the bundled sample and for notes, which have no build folder of their own. The
    index is built in a private folder and renamed into place, so readers never see half of it.
    """
    import shutil
    import tempfile

    digest = key or document_hash(doc)[:16]
    final = cache / f"{name}-{digest}"
    if (final / "search" / _META).is_file():
        return final
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=cache))
    try:
        build_search_index(doc, tmp)
        try:
            os.replace(tmp, final)
        except OSError:
            if not (final / "search" / _META).is_file():
                raise
        else:
            for old in cache.glob(f"{name}-*"):
                if old != final:
                    shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final


def build_notes_index(cache: Path, notes: list[tuple[str, str]]) -> Path:
    """The folder of the index of stored Markdown notes, rebuilt only when the notes change."""
    import hashlib

    raw = hashlib.sha256(f"notes-{SCHEMA_VERSION}".encode())
    for name, text in notes:
        raw.update(json.dumps([name, text]).encode())
    key = raw.hexdigest()[:16]
    final = cache / f"notes-{key}"
    if (final / "search" / _META).is_file():
        return final
    from ..documents import read_markdown
    from ..model import Document

    doc = Document(edition=None, title="notes")
    for name, text in notes:
        doc.sections += read_markdown(text, name)
    return build_cached_index(doc, cache, "notes", key=key)


def index_is_current(folder: Path, doc_hash: str | None = None) -> bool:
    """Checks if ``folder`` holds a search index of this schema (and of this document hash)."""
    try:
        meta = json.loads((folder / "search" / _META).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if meta.get("schema") != SCHEMA_VERSION:
        return False
    return doc_hash is None or meta.get("hash") == doc_hash


def open_search_index(folder: Path) -> tuple[Index, dict[str, Any]]:
    """Opens ``folder / "search"``; raises :class:`NoSearchIndexError` if it is absent or stale."""
    target = folder / "search"
    try:
        meta = json.loads((target / _META).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise NoSearchIndexError(f"no search index in {folder}") from None
    if meta.get("schema") != SCHEMA_VERSION:
        raise NoSearchIndexError(f"the search index in {folder} was built by another version")
    w = _whoosh()
    try:
        ix = w.index.open_dir(str(target))
    except (OSError, w.index.IndexError) as exc:
        raise NoSearchIndexError(f"the search index in {folder} cannot be read ({exc})") from None
    return ix, meta
