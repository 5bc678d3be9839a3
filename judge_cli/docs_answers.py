"""The records ``judge mtr``/``ipg``/``jar`` return, as JSON and as Markdown, and what they cite.

References are resolved here, at lookup time, against what is stored now: a section of the
same document, the edition of another document in force on this one's date, or a rule of the
CR edition chosen (by default the one in force on the document's date).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from index.tournament.kinds import KINDS, LABELS

from .render import escape

if TYPE_CHECKING:
    from index.store import EditionStore
    from index.tournament.answer import Answer, References

__all__ = ["answer_markdown", "answer_record", "look_up_record", "section_label"]

# A paragraph Markdown would read as a list item or a heading ("1. Find …", "- Removed …").
_MARKER_RE = re.compile(r"^(\d+)([.)])(\s)|^([-+=])")


def _paragraph(text: str) -> str:
    escaped = escape(text)
    return _MARKER_RE.sub(lambda m: f"{m[1]}\\{m[2]}{m[3]}" if m[1] else f"\\{m[4]}", escaped)


def section_label(kind: str, number: str, title: str | None) -> str:
    """``IPG 2.1 Game Play Error — Missed Trigger``; ``JAR Common Issues``."""
    label = LABELS.get(kind, kind.upper())
    if number[:1].isdigit() or number.startswith("Appendix"):
        return f"{label} {number}" + (f" {title}" if title else "")
    return f"{label} {title or number.replace('-', ' ').capitalize()}"


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


def look_up_record(
    editions: EditionStore,
    kind: str,
    words: list[str],
    edition: str | None,
    cr_edition: str | None,
) -> tuple[Answer, References, dict[str, Any]]:
    """One lookup as ``judge mtr/ipg/jar`` and the server make it: the answer, its references,
    and the ``--json`` record."""
    from index.tournament.answer import References, look_up
    from index.tournament.store import DocumentStore

    documents = DocumentStore(editions.root)
    answer = look_up(documents, kind, words, edition)
    refs = References(documents, editions, kind, answer.catalog.edition, cr_edition)
    return answer, refs, answer_record(answer, refs)


def _reference_line(ref: dict[str, Any], kind: str) -> str:
    if ref["document"] == "cr":
        return f"CR {ref['number']}"
    label = section_label(ref["document"], ref["number"], ref["title"])
    if not ref["found"]:
        where = ref["edition"] or "not stored"
        label += f" (not in the {LABELS.get(ref['document'], ref['document'])} {where})"
    elif ref["document"] != kind:
        label += f" ({ref['edition']})"
    return escape(label)


def _section_markdown(record: dict[str, Any], kind: str, lookup: dict[str, str]) -> list[str]:
    blocks = [f"## {escape(section_label(kind, record['number'], record['title']))}"]
    if record["penalty"]:
        blocks.append(f"**Penalty: {escape(record['penalty'])}**")
    for part in record["parts"]:
        if part["heading"]:
            blocks.append(f"### {escape(part['heading'])}")
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
        blocks.append("Cited by: " + "; ".join(escape(n) for n in names))
    return blocks


def answer_markdown(answer: Answer, record: dict[str, Any], refs: References) -> str:
    """The Markdown answer: a did-you-mean line if fuzzy, the sections, the edition."""
    kind = answer.kind
    blocks: list[str] = []
    if answer.how == "fuzzy" and answer.sections:
        first = answer.sections[0]
        name = section_label(kind, first["number"], first["title"])
        blocks.append(
            f"_No {LABELS[kind]} section is named “{escape(answer.query)}”; "
            f"did you mean {escape(name)}?_"
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
