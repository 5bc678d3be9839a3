"""References inside tournament documents: "see section 2.3", "MTR section 4.3", "rule 103.4".

Every reference becomes an id naming its document: ``mtr:4.3``, ``ipg:2.1``, ``cr:103.4c``.
References into the same document are checked against its sections; those into another
document are checked when they are looked up, against the edition stored then.
"""

from __future__ import annotations

import functools
import re

from glossary.fold import fold_text

from .model import DocSection

__all__ = ["find_citations", "split_id"]

_NUMBER = r"\d{1,2}(?:\.\d{1,2})?"


@functools.cache
def _patterns() -> dict[str, re.Pattern[str]]:
    # Compiled on first use: a lookup never scans text.
    doc_name = (
        r"(?P<name>(?:the\s+)?(?:Magic\s+)?(?:Digital\s+)?(?:Magic\s+)?(?:Tournament Rules|"
        r"Infraction Procedure Guide|Comprehensive Rules|MTR|IPG))"
    )
    return {
        # "MTR section 4.3", "Magic Digital IPG 3.5", "IPG 2.1"
        "prefixed": re.compile(
            r"\b(?P<digital>Digital\s+)?(?P<doc>MTR|IPG)\s+(?:section\s+)?(?P<number>"
            + _NUMBER
            + r")\b"
        ),
        # "section 5.2 of the Magic Tournament Rules", "sections 2-4", "Section 7"
        "section": re.compile(
            r"\b[Ss]ections?\s+(?P<number>" + _NUMBER + r")(?:\s*[-–]\s*(?P<end>\d{1,2})\b)?"
            r"(?!\.\w)(?:\s+of\s+" + doc_name + r")?"
        ),
        # "(3.1)": the IPG's way of naming another infraction
        "parenthesised": re.compile(r"\((?P<number>[1-9]\.\d{1,2})\)"),
        "appendix": re.compile(r"\bAppendix\s+(?P<letter>[A-Z])\b"),
        # "Comprehensive Rules, rule 103.4", "CR 704.5j", "rule 103.4c"
        "cr": re.compile(r"(?<![\d.])(?P<number>\d{3}\.\d{1,3}[a-z]?)\b"),
    }


def _document_named(name: str | None, kind: str) -> str:
    """The kind a name in the text means, read from a document of ``kind``."""
    if not name:
        return kind
    digital = "digital" in name.lower() or (kind in ("dmtr", "dipg") and "mtr" in name.lower())
    if "Comprehensive" in name:
        return "cr"
    if "Infraction" in name or "IPG" in name:
        return "dipg" if digital else "ipg"
    return "dmtr" if digital else "mtr"


def split_id(ref: str) -> tuple[str, str]:
    """``("mtr", "4.3")`` from ``mtr:4.3``."""
    kind, _, number = ref.partition(":")
    return kind, number


def find_citations(
    section: DocSection, kind: str, sections: list[DocSection]
) -> tuple[list[str], list[str]]:
    """``(cites, dangling)``: the ids ``section`` refers to, and own references that miss.

    ``sections`` are all the sections of the same document, to check references into it and
    to find the IPG's infractions named by title ("Unsporting Conduct — Cheating").
    """
    text = fold_text(section.text)
    own = {s.number for s in sections}
    found: list[tuple[int, str]] = []
    dangling: list[str] = []
    taken: list[tuple[int, int]] = []

    def add(m: re.Match[str], *targets: str, check: bool = True) -> None:
        # Patterns run from the most specific ("MTR section 4.3") to the least ("section
        # 4.3"); text one of them took is not read again by the next.
        if any(a <= m.start() < b for a, b in taken):
            return
        taken.append(m.span())
        for target in targets:
            doc, number = split_id(target)
            if doc == kind and check and number not in own:
                dangling.append(target)
            else:
                found.append((m.start(), target))

    patterns = _patterns()
    for m in patterns["prefixed"].finditer(text):
        doc = _document_named(("Digital " if m.group("digital") else "") + m.group("doc"), kind)
        add(m, f"{doc}:{m.group('number')}")
    for m in patterns["section"].finditer(text):
        doc = _document_named(m.group("name"), kind)
        first, end = m.group("number"), m.group("end")
        if end and "." not in first and int(first) < int(end) <= int(first) + 20:
            add(m, *(f"{doc}:{n}" for n in range(int(first), int(end) + 1)))
        else:
            add(m, f"{doc}:{first}")
    for m in patterns["parenthesised"].finditer(text):
        if m.group("number") in own:
            add(m, f"{kind}:{m.group('number')}")
    for m in patterns["appendix"].finditer(text):
        add(m, f"{kind}:Appendix {m.group('letter')}")
    for m in patterns["cr"].finditer(text):
        add(m, f"cr:{m.group('number')}")
    if kind in ("ipg", "dipg"):
        folded = text.casefold()
        for other in sections:
            if other.title and "—" in other.title:
                name = re.sub(r"\s*-\s*", " - ", fold_text(other.title).casefold())
                spaced = re.sub(r"\s*-\s*", " - ", folded)
                at = spaced.find(name)
                if at >= 0:
                    found.append((at, f"{kind}:{other.number}"))
    found.sort(key=lambda pair: pair[0])
    cites: list[str] = []
    for _, target in found:
        if target != f"{kind}:{section.number}" and target not in cites:
            cites.append(target)
    return cites, dangling
