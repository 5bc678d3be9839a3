"""The whoosh schema and the documents of an edition (what an index holds).

Documents (see :func:`make_schema`):

* every rule and subrule (kind ``rule``), carrying the title of the rule it belongs to
  (``702.26b`` carries "Phasing"; ``704.5j`` carries "State-Based Actions"), its number, its
  parent and its section;
* every example (kind ``example``), searchable on its own but *folded under its rule* in the
  results: a hit on an example is reported as the rule (``id`` = the rule number) with the
  example's snippet in the extra ``example`` key;
* every players' phrasing of a question a rule answers (kind ``asked``, field ``asked``; see
  :mod:`index.search.phrasings`), folded under its rule like an example;
* every glossary entry (kind ``glossary``), the term a boosted title;
* sections of the bundled sample and of notes (kind ``section``).

:mod:`index.search.kinds` says how each kind is reported and which kinds each scope searches.
Texts are stored as published (curly quotes and all) and shown that way; the tokenizer reads
curly and straight punctuation alike, so only queries need folding. A negated word's root is
indexed beside it ("untapped" → "tapped"; see :func:`negations`). Building, opening and
checking indexes is :mod:`index.search.build`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from .engine import whoosh
from .words import QUESTION_WORDS, TOKEN_PATTERN

if TYPE_CHECKING:
    from ..model import Document
    from ..numbers import RuleNumber
    from ..section import Section

# The document model and rule numbers are imported where they are used: a one-shot search
# needs neither unless the query names a rule, and importing them costs start-up time.

SCHEMA_VERSION = 6
"""Bumped whenever the schema or the analysis changes; an index with another version is stale
(the phrasings and word tables an index is built with are checked by their digest: see
:func:`index.search.build.inputs_digest`)."""


def analyzer(stop: bool = True) -> Any:
    """The analyzer of every text field (``stop``: drop question words)."""
    from whoosh.analysis import StemmingAnalyzer

    # Tokens like "704.5j" stay whole; "owner's" → "owner", "s" (the "s" is a stop word).
    # Power/toughness changes ("+1/+1", "-1/-1") are one token each: without that, "-2/-2"
    # reads as two "2"s and matches every rule with a 2 in it.
    stoplist = QUESTION_WORDS | {"s", "t"} if stop else None
    return StemmingAnalyzer(expression=TOKEN_PATTERN, stoplist=stoplist, minsize=1)


def make_schema(*, extra: bool = False) -> Any:
    """A new instance of the one schema (a :class:`whoosh.fields.SchemaClass`).

    ``extra``: the schema of the indexes searched beside an edition's (tournament documents,
    card rulings; see :mod:`index.search.extra`): the same fields, analysed the same way, plus
    ``document`` (the tournament document a section is of) and ``details`` (what a result
    record shows: a penalty, a ruling's cards and date), and no spelling graphs ("did you
    mean" comes from the edition's index; the graphs were three quarters of a rulings build).
    """
    w = whoosh()
    f = w.fields
    spelling = not extra

    class SearchSchema(f.SchemaClass):  # type: ignore[misc,name-defined]
        """One document per rule, example, glossary entry or section."""

        id = f.ID(stored=True, unique=True)
        kind = f.ID(stored=True)
        number = f.ID(stored=True)
        parent = f.ID(stored=True)
        section = f.ID(stored=True)
        order = f.NUMERIC(stored=True, sortable=True)
        term = f.TEXT(analyzer=analyzer(), stored=True, field_boost=3.0, spelling=spelling)
        title = f.TEXT(analyzer=analyzer(), stored=True, field_boost=2.0, spelling=spelling)
        group = f.TEXT(analyzer=analyzer(), stored=True, field_boost=0.5)
        body = f.TEXT(analyzer=analyzer(), stored=True, spelling=spelling)
        asked = f.TEXT(analyzer=analyzer(), stored=True)
        roots = f.STORED()
        source = f.STORED()
        if extra:
            document = f.ID(stored=True)
            details = f.STORED()

    return SearchSchema()


def is_title(text: str) -> bool:
    """Checks if a numbered rule's text is a title ("Phasing") rather than a sentence."""
    return len(text) <= 60 and not text.rstrip().endswith((".", ":", ")")) and "." not in text


def rule_titles(doc: Document) -> Iterator[tuple[str, str, str]]:
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
            if found is not None and is_title(found.text):
                title = found.text
                break
            node = node.parent()
        yield number, title, "" if title == group else group


NEGATION_RE = re.compile(r"(?:un|non|il)([a-z]{3,})")
NOT_NEGATIONS = frozenset(
    ["unless", "unlike", "unearth", "undo", "undoing", "undone", "uncommon", "unable"]
)
"""Words that start like a negation but do not negate the rest ("unless" is not "not less")."""


def negations(texts: Iterable[str]) -> dict[str, str]:
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
        if w not in NOT_NEGATIONS
        and (m := NEGATION_RE.fullmatch(w)) is not None
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


def indexed_text(fields: dict[str, Any], name: str) -> Any:
    """What field ``name`` of a document was indexed from, given its stored fields: the stored
    value, but for a body whose negated words' roots were indexed with it (``_with_roots``)."""
    value = fields.get(name)
    if name == "body" and fields.get("roots"):
        return f"{value or ''}\n{fields['roots']}"
    return value


def documents(doc: Document) -> Iterator[dict[str, Any]]:
    """The whoosh documents for one Document, in document order."""
    roots = negations([r.text for r in doc.rules.values()] + [g.definition for g in doc.glossary])
    for d in _plain_documents(doc):
        yield _with_roots(d, roots)


def _plain_documents(doc: Document) -> Iterator[dict[str, Any]]:
    from .phrasings import asked_for

    order = 0
    titles = {n: (t, g) for n, t, g in rule_titles(doc)}
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
    yield from section_documents(doc.sections, order)


def section_documents(sections: Iterable[Section], order: int = 0) -> Iterator[dict[str, Any]]:
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
