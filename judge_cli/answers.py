"""The records ``judge rule`` and ``judge define`` return, as JSON and as Markdown."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .render import escape

if TYPE_CHECKING:
    from glossary.lookup import Match
    from index.edition import Edition
    from index.model import Rule
    from index.store import EditionStore

__all__ = [
    "definition_markdown",
    "definition_record",
    "editions_records",
    "rule_record",
    "rules_markdown",
]


def _ref_label(ref: str) -> str:
    return f"{ref[len('glossary:') :]} (glossary)" if ref.startswith("glossary:") else ref


def rule_record(ed: Edition, rule: Rule, *, with_subrules: bool) -> dict[str, Any]:
    """The ``judge rule --json`` record of one rule, with its subrules nested."""
    children = ed.subrules(rule.number) if with_subrules else []
    return {
        "number": rule.number,
        "text": rule.text,
        "examples": list(rule.examples),
        "parent": ed.parent(rule.number),
        "title": rule.text if rule.is_heading else None,
        "subrules": [rule_record(ed, child, with_subrules=True) for child in children],
        "cites": ed.cites(rule.number),
        "cited_by": ed.cited_by(rule.number),
    }


def _rule_lines(record: dict[str, Any], depth: int) -> list[str]:
    number = record["number"]
    lines: list[str] = []
    if record["title"] is not None:
        hashes = "#" * min(2 + depth, 4)
        lines.append(f"{hashes} {number}. {escape(record['text'])}")
    else:
        lines.append(f"**{number}** {escape(record['text'])}")
    lines.extend(f"> _Example:_ {escape(example)}" for example in record["examples"])
    for sub in record["subrules"]:
        lines.extend(_rule_lines(sub, depth + 1))
    return lines


def rules_markdown(records: list[dict[str, Any]], ed: Edition) -> str:
    """The Markdown answer for ``judge rule``: the rules, then what they cite and who cites them."""
    blocks: list[str] = []
    for record in records:
        blocks.extend(_rule_lines(record, 0))
        cites = record["cites"]
        cited_by = record["cited_by"]
        if cites:
            blocks.append("Cites: " + ", ".join(_ref_label(c) for c in cites))
        if cited_by:
            blocks.append("Cited by: " + ", ".join(_ref_label(c) for c in cited_by))
    blocks.append(_footer(ed))
    return "\n\n".join(blocks)


def _footer(ed: Edition) -> str:
    if ed.is_sample:
        from .common import sample_notice

        return "_" + escape(sample_notice(ed.store)) + "_"
    return f"_Comprehensive Rules effective {ed.label}._"


def definition_record(ed: Edition, match: Match) -> dict[str, Any]:
    """The ``judge define --json`` record."""
    entry = match.entry
    return {
        "edition": ed.date,
        "term": entry.term,
        "definition": entry.definition,
        "see": list(entry.see),
        "query": match.query,
        "match": match.how,
        "cited_by": ed.cited_by(entry.ref_id),
        "rules": [{"number": r.number, "text": r.text} for r in ed.known_rules(entry.see)],
    }


def definition_markdown(record: dict[str, Any], ed: Edition) -> str:
    """The Markdown answer for ``judge define``: the entry, then the rules it points to."""
    blocks: list[str] = []
    if record["match"] == "fuzzy":
        blocks.append(
            f"_No entry for “{escape(record['query'])}”; did you mean {escape(record['term'])}?_"
        )
    elif record["match"] == "quoted":
        blocks.append(
            f"_“{escape(record['query'])}” is defined in the entry {escape(record['term'])}._"
        )
    blocks.append(f"## {escape(record['term'])}")
    blocks.extend(escape(para) for para in record["definition"].split("\n") if para.strip())
    for rule in record["rules"]:
        blocks.append(f"> **{rule['number']}** {escape(rule['text'])}")
    missing = [n for n in record["see"] if n not in {r["number"] for r in record["rules"]}]
    if missing and not ed.is_sample:
        blocks.append("Not in this edition: " + ", ".join(missing))
    blocks.append(_footer(ed))
    return "\n\n".join(blocks)


def editions_records(store: EditionStore) -> list[dict[str, Any]]:
    """The ``judge editions --json`` records: the CR editions, then the tournament documents."""
    from index.tournament.store import DocumentStore

    records = [info.to_json() | {"document": "cr"} for info in store.editions()]
    return records + [info.to_json() for info in DocumentStore(store.root).editions()]
