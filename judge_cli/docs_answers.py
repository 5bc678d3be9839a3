"""The records ``judge mtr``/``ipg``/``jar`` return, as JSON and as Markdown, and what they cite.

References are resolved here, at lookup time, against what is stored now: a section of the
same document, the edition of another document in force on this one's date, or a rule of the
CR edition chosen (by default the one in force on the document's date).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, NamedTuple

from index.tournament.kinds import KINDS, LABELS

from .render import escape

if TYPE_CHECKING:
    from index.store import EditionStore
    from index.tournament.store import DocumentStore, SectionIndex

__all__ = ["Answer", "References", "answer_markdown", "answer_record"]

_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# A paragraph Markdown would read as a list item or a heading ("1. Find …", "- Removed …").
_MARKER_RE = re.compile(r"^(\d+)([.)])(\s)|^([-+=])")


def _safe(text: str) -> str:
    """Stored text as printed: control characters are never sent to the terminal."""
    return _CONTROL_RE.sub("", text)


def _paragraph(text: str) -> str:
    escaped = escape(_safe(text))
    return _MARKER_RE.sub(lambda m: f"{m[1]}\\{m[2]}{m[3]}" if m[1] else f"\\{m[4]}", escaped)


def section_label(kind: str, number: str, title: str | None) -> str:
    """``IPG 2.1 Game Play Error — Missed Trigger``; ``JAR Common Issues``."""
    label = LABELS.get(kind, kind.upper())
    if number[:1].isdigit() or number.startswith("Appendix"):
        return f"{label} {number}" + (f" {title}" if title else "")
    return f"{label} {title or number.replace('-', ' ').capitalize()}"


class References:
    """Resolves ``mtr:4.3``/``cr:103.4`` ids for one answer, reading each index once."""

    def __init__(
        self,
        store: DocumentStore,
        editions: EditionStore,
        kind: str,
        date: str,
        cr_wanted: str | None = None,
    ) -> None:
        self.store = store
        self.editions = editions
        self.kind = kind
        self.date = date
        self.cr_wanted = cr_wanted
        self.cr_edition: str | None = None
        """The CR edition the rules cited were read from (once one was needed)."""
        self._indexes: dict[str, SectionIndex | None] = {}
        self._rules: dict[str, str] = {}

    def index(self, kind: str, own: SectionIndex | None = None) -> SectionIndex | None:
        """The index of the edition of ``kind`` that goes with this answer, if one is stored."""
        if kind == self.kind and own is not None:
            return own
        if kind not in self._indexes:
            date = self.date if kind == self.kind else self.store.in_force(kind, self.date)
            self._indexes[kind] = self.store.index(kind, date) if date else None
        return self._indexes[kind]

    def cited_by(self, own: SectionIndex, number: str) -> list[str]:
        """Who cites ``number``: sections of this document, then of the others stored."""
        found = list(own.cited_by.get(number, []))
        target = f"{self.kind}:{number}"
        for kind in KINDS:
            if kind == self.kind:
                continue
            other = self.index(kind)
            if other is None:
                continue
            for source, targets in other.cites.items():
                if target in targets:
                    found.append(f"{kind}:{source}")
        return found

    def load_rules(self, numbers: list[str]) -> None:
        """Reads the CR rules cited, from the chosen edition (once per answer)."""
        from index.store import NoEditionError

        wanted = [n for n in numbers if n not in self._rules]
        if not wanted:
            return
        dates = self.editions.dates()
        if self.cr_wanted is not None:
            self.cr_edition = self.editions.resolve(self.cr_wanted)
        elif dates:
            before = [d for d in dates if d <= self.date]
            self.cr_edition = before[-1] if before else dates[0]
        if self.cr_edition is None:
            return
        try:
            stored = self.editions.load_rules(self.cr_edition, [(n, None) for n in wanted])
        except NoEditionError:
            return
        for number in wanted:
            rule = stored.document.find_rule(number)
            if rule is not None:
                self._rules[number] = rule.text

    def resolve(self, ref: str, own: SectionIndex) -> dict[str, Any]:
        """The record of one reference: where it points and whether that exists."""
        kind, _, number = ref.partition(":")
        record: dict[str, Any] = {
            "id": ref,
            "document": kind,
            "number": number,
            "edition": None,
            "title": None,
            "text": None,
            "found": False,
        }
        if kind == "cr":
            self.load_rules([number])
            record["edition"] = self.cr_edition
            if number in self._rules:
                record.update(text=self._rules[number], found=True)
            return record
        index = self.index(kind, own)
        if index is not None:
            record["edition"] = index.edition
            entry = index.find(number)
            if entry is not None:
                record.update(title=entry["title"], found=True)
        return record


class Answer(NamedTuple):
    """What one lookup found: the stored records of the sections, and how the query matched."""

    kind: str
    catalog: SectionIndex
    """The edition's section index (numbers, titles, cross-references)."""
    sections: list[dict[str, Any]]
    """Stored records (see :meth:`~index.tournament.store.DocumentStore.section_records`)."""
    query: str
    how: str
    part: int | None = None
    """With a part's heading matched (the JAR), the index of the only headed part shown."""


def _section_record(answer: Answer, row: dict[str, Any], refs: References) -> dict[str, Any]:
    index = answer.catalog
    number = row["number"]
    cites = index.cites.get(number, [])
    parts = [{"heading": heading, "text": text} for heading, text, _ in row["parts"]]
    if answer.part is not None and answer.how != "number":
        headed = [p for p in parts if p["heading"]]
        parts = headed[answer.part : answer.part + 1]
    return {
        "number": number,
        "title": row["title"],
        "penalty": row["penalty"],
        "parent": row["parent"],
        "subsections": [e["number"] for e in index.entries if e["parent"] == number],
        "parts": parts,
        "cites": list(cites),
        "cited_by": refs.cited_by(index, number),
        "references": [refs.resolve(ref, index) for ref in cites],
    }


def answer_record(answer: Answer, refs: References) -> dict[str, Any]:
    """The ``judge ipg --json`` record (DESIGN.md's keys, then ``query``, ``match``, …)."""
    sections = [_section_record(answer, s, refs) for s in answer.sections]
    return {
        "document": answer.kind,
        "edition": answer.catalog.edition,
        "title": KINDS[answer.kind],
        "sections": sections,
        "query": answer.query,
        "match": answer.how,
        "cr_edition": refs.cr_edition,
    }


def _reference_line(ref: dict[str, Any], kind: str) -> str:
    if ref["document"] == "cr":
        return f"CR {ref['number']}"
    label = section_label(ref["document"], ref["number"], ref["title"])
    if not ref["found"]:
        where = ref["edition"] or "not stored"
        label += f" (not in the {LABELS.get(ref['document'], ref['document'])} {where})"
    elif ref["document"] != kind:
        label += f" ({ref['edition']})"
    return escape(_safe(label))


def _section_markdown(record: dict[str, Any], kind: str, lookup: dict[str, str]) -> list[str]:
    blocks = [f"## {escape(_safe(section_label(kind, record['number'], record['title'])))}"]
    if record["penalty"]:
        blocks.append(f"**Penalty: {escape(record['penalty'])}**")
    for part in record["parts"]:
        if part["heading"]:
            blocks.append(f"### {escape(_safe(part['heading']))}")
        blocks.extend(_paragraph(p) for p in part["text"].split("\n") if p.strip())
    references = record["references"]
    if references:
        blocks.append("References: " + "; ".join(_reference_line(r, kind) for r in references))
        for ref in references:
            if ref["document"] == "cr":
                if ref["found"]:
                    text = _paragraph(ref["text"])
                elif ref["edition"]:
                    text = f"_(not in the CR {ref['edition']})_"
                else:
                    text = "_(no CR edition is stored: `judge update` gets the newest)_"
                blocks.append(f"> **CR {ref['number']}** {text}")
    if record["cited_by"]:
        names = [lookup.get(ref, ref) for ref in record["cited_by"]]
        blocks.append("Cited by: " + "; ".join(escape(_safe(n)) for n in names))
    return blocks


def answer_markdown(answer: Answer, record: dict[str, Any], refs: References) -> str:
    """The Markdown answer: a did-you-mean line if fuzzy, the sections, the edition."""
    kind = answer.kind
    blocks: list[str] = []
    if answer.how == "fuzzy" and answer.sections:
        first = answer.sections[0]
        name = section_label(kind, first["number"], first["title"])
        blocks.append(
            f"_No {LABELS[kind]} section is named “{escape(_safe(answer.query))}”; "
            f"did you mean {escape(_safe(name))}?_"
        )
    lookup = _citer_labels(record, refs)
    for section in record["sections"]:
        blocks.extend(_section_markdown(section, kind, lookup))
    verb = "updated" if kind == "jar" else "effective"
    footer = f"_{KINDS[kind]} {verb} {answer.catalog.edition}"
    if refs.cr_edition and any(
        r["document"] == "cr" for s in record["sections"] for r in s["references"]
    ):
        footer += f"; CR rules from the {refs.cr_edition} edition"
    blocks.append(footer + "._")
    return "\n\n".join(blocks)


def _citer_labels(record: dict[str, Any], refs: References) -> dict[str, str]:
    """``ipg:2.6`` → ``IPG 2.6 Game Play Error — Failure to Maintain Game State``."""
    labels: dict[str, str] = {}
    for section in record["sections"]:
        for ref in section["cited_by"]:
            kind, _, number = ref.partition(":")
            index = refs.index(kind)
            entry = index.find(number) if index is not None else None
            labels[ref] = section_label(kind, number, entry["title"] if entry else None)
    return labels
