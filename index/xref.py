"""The cross-reference graph of one edition: the rules each rule cites, and who cites it."""

from __future__ import annotations

from dataclasses import dataclass

from .model import Document, UnknownRuleError, XRefs
from .textrefs import find_references

__all__ = ["DanglingReference", "XRefs", "build_xrefs"]


@dataclass(frozen=True)
class DanglingReference:
    """A reference to a rule that the edition does not have (re-exported by index.model)."""

    source: str
    """Who makes it: a rule number, or ``glossary:Term``."""
    text: str
    """The reference as written (``704.5k``, ``601.2a–h``)."""


def _targets(doc: Document, source: str, text: str, xrefs: XRefs) -> list[str]:
    out: list[str] = []
    for found in find_references(text):
        try:
            if found.ref.end is None:
                numbers = [doc.get_rule(str(found.ref.start)).number]
            else:
                numbers = [r.number for r in doc.resolve(found.ref)]
        except UnknownRuleError:
            xrefs.dangling.append(DanglingReference(source, found.text))
            continue
        out.extend(n for n in numbers if n != source and n not in out)
    return out


def build_xrefs(doc: Document) -> XRefs:
    """Resolves every reference in rule, example and glossary text against ``doc`` itself."""
    xrefs = XRefs()
    sources: list[tuple[str, str]] = [
        (rule.number, "\n".join([rule.text, *rule.examples])) for rule in doc.rules.values()
    ]
    sources += [(entry.ref_id, entry.definition) for entry in doc.glossary]
    for source, text in sources:
        targets = _targets(doc, source, text, xrefs)
        if targets:
            xrefs.cites[source] = targets
        for target in targets:
            xrefs.cited_by.setdefault(target, []).append(source)
    return xrefs
