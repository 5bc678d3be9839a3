"""An edition written back as Comprehensive Rules text, in the layout Wizards publishes.

The store keeps the parsed edition, not the file it came from, so this is the same text with
the file's accidents gone: UTF-8, LF line endings, one blank line between items.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Document

__all__ = ["document_text"]


def _effective_line(edition: str | None) -> list[str]:
    if edition is None:
        return []
    day = dt.date.fromisoformat(edition)
    return [f"These rules are effective as of {day:%B} {day.day}, {day.year}.", ""]


def document_text(doc: Document) -> str:
    """The whole edition as CR text: title, date, introduction, contents, rules, glossary."""
    lines = [doc.title, "", *_effective_line(doc.edition)]
    for heading, text in (("Introduction", doc.introduction), ("Contents", doc.contents)):
        if text:
            lines += [heading, "", text.strip(), ""]
    for rule in doc.rules.values():
        if rule.number[-1].isdigit():  # sections, titles and numbered rules end in a period
            lines.append(f"{rule.number}. {rule.text}")
        else:
            lines.append(f"{rule.number} {rule.text}")
        lines.extend(f"Example: {example}" for example in rule.examples)
        lines.append("")
    if doc.glossary:
        lines += ["Glossary", ""]
        for entry in doc.glossary:
            lines += [entry.term, entry.definition, ""]
    if doc.credits:
        lines += ["Credits", "", doc.credits.strip(), ""]
    return "\n".join(lines)
