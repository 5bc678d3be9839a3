"""The records ``judge rule`` and ``judge define`` return, as JSON and as Markdown."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .render import escape

if TYPE_CHECKING:
    from glossary.lookup import Match
    from index.model import Rule

    from .common import Loaded

__all__ = ["definition_markdown", "definition_record", "rule_record", "rules_markdown"]


def _ref_label(ref: str) -> str:
    return f"{ref[len('glossary:') :]} (glossary)" if ref.startswith("glossary:") else ref


def rule_record(loaded: Loaded, rule: Rule, *, with_subrules: bool) -> dict[str, Any]:
    """The ``judge rule --json`` record of one rule, with its subrules nested."""
    doc = loaded.document
    children = doc.children(rule.number) if with_subrules else []
    return {
        "number": rule.number,
        "text": rule.text,
        "examples": list(rule.examples),
        "parent": doc.parent(rule.number),
        "title": rule.text if rule.is_heading else None,
        "subrules": [
            rule_record(loaded, doc.rules[child], with_subrules=True) for child in children
        ],
        "cites": loaded.cites.get(rule.number, []),
        "cited_by": loaded.cited_by.get(rule.number, []),
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


def rules_markdown(records: list[dict[str, Any]], loaded: Loaded) -> str:
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
    blocks.append(_footer(loaded))
    return "\n\n".join(blocks)


def _footer(loaded: Loaded) -> str:
    if loaded.is_sample:
        from .common import sample_notice

        return "_" + escape(sample_notice()) + "_"
    return f"_Comprehensive Rules effective {loaded.label}._"


def definition_record(loaded: Loaded, match: Match) -> dict[str, Any]:
    """The ``judge define --json`` record."""
    entry = match.entry
    return {
        "edition": loaded.document.edition,
        "term": entry.term,
        "definition": entry.definition,
        "see": list(entry.see),
        "query": match.query,
        "match": match.how,
        "cited_by": loaded.cited_by.get(entry.ref_id, []),
        "rules": [
            {"number": n, "text": loaded.document.rules[n].text}
            for n in entry.see
            if n in loaded.document.rules
        ],
    }


def definition_markdown(record: dict[str, Any], loaded: Loaded) -> str:
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
    if missing and not loaded.is_sample:
        blocks.append("Not in this edition: " + ", ".join(missing))
    blocks.append(_footer(loaded))
    return "\n\n".join(blocks)
