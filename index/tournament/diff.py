"""What changed in a tournament document between two editions, and one section's history.

Sections are paired by the machinery the CR's rules use (:mod:`index.matching`): the same
number and text, the same text under another number, then similar text. What differs is how a
section's text is compared:

* its title counts as well as its body, and a section that kept its number and title is the
  same section however much its body was rewritten;
* all whitespace is one space, and quotes and dashes are folded: the MTR's PDF and its text
  copy break the lines of a table differently (Appendix C and E of the 2024 and 2026 MTR differ
  only so), and that is no change;
* the document's references to its own sections ("section 2.3", "(3.1)", "Appendix B") are
  blanked out for pairing and mapped through the renumbering for deciding whether a section
  changed, as the CR's rule references are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from glossary.fold import fold_text

from ..matching import Change, Entry, Event, Pairing, Scheme, changes, follow, pair
from .lookup import UnknownSectionError, find_named, nearest_sections, parse_section_ref
from .model import TournamentDocument

__all__ = [
    "SectionChange",
    "SectionEvent",
    "Sections",
    "diff_sections",
    "find_section_number",
    "match_sections",
    "section_history",
]

# A reference to a section of the same document: a dotted number, "section 4", "Appendix B".
# Each alternative starts with a literal character class, so most positions fail at once; what
# comes before a match (another document's name, a longer number) is checked by _is_own.
_REF_RE = re.compile(
    r"(?=[\dSsA])(?:(?P<dotted>\d{1,2}\.\d{1,2})(?![\w]|\.\d)"
    r"|(?P<word>[Ss]ections?\s+)(?P<top>\d{1,2})\b(?!\.\d)"
    r"|(?P<appendix>Appendix\s+)(?P<letter>[A-Z])\b)"
)
# "IPG 2.1", "CR 704.5", "rule 103.4" name another document's numbers.
_OTHER_DOCUMENT = ("IPG ", "MTR ", "JAR ", "CR ", "rule ", "Rule ")
_WORD_RE = re.compile(r"[a-z0-9#]+")


@lru_cache(maxsize=4096)
def _flat(text: str | None) -> str:
    """Quotes and dashes folded, every run of whitespace one space."""
    return " ".join(fold_text(text or "").split())


def _map_refs(text: str, mapping: Mapping[str, str] | None) -> str:
    """``text`` flattened, its own-section references rewritten through ``mapping`` (or
    blanked to ``#`` when ``mapping`` is ``None``)."""

    def one(m: re.Match[str]) -> str:
        start = m.start()
        before = m.string[max(0, start - 5) : start]
        if start and (before[-1].isalnum() or before[-1] in "._"):
            return m[0]  # part of a longer word or number ("0.33", "v2.1")
        if m["dotted"] and before.endswith(_OTHER_DOCUMENT):
            return m[0]
        if m["dotted"]:
            number, prefix = m["dotted"], ""
        elif m["top"]:
            number, prefix = m["top"], m["word"]
        else:
            number, prefix = f"Appendix {m['letter']}", ""
        if mapping is None:
            return f"{prefix}#"
        moved = mapping.get(number, number)
        if m["letter"] and moved.startswith("Appendix "):
            return moved
        return prefix + moved

    return _REF_RE.sub(one, _flat(text))


@dataclass(frozen=True)
class SectionEntry:
    """One section as compared: its number, title and body (part headings included)."""

    number: str
    title: str | None
    text: str
    examples: tuple[str, ...] = ()


class Sections:
    """One edition of a tournament document as the matcher sees it (sections by number)."""

    def __init__(self, doc: TournamentDocument) -> None:
        self.document = doc
        self.kind = doc.kind
        self.edition: str | None = doc.edition
        self.rules: dict[str, SectionEntry] = {
            s.number: SectionEntry(s.number, s.title, s.text) for s in doc.sections
        }
        self.parents = {s.number: s.parent for s in doc.sections}


def _key(entry: Entry) -> str:
    title = entry.title if isinstance(entry, SectionEntry) else None
    blanked = _map_refs(f"{title or ''}\n{entry.text}", None)
    return " ".join(_WORD_RE.findall(blanked.lower()))


def _title(entry: Entry) -> str:
    return _flat(entry.title) if isinstance(entry, SectionEntry) else ""


def _is_changed(a: Entry, b: Entry, forward: Mapping[str, str]) -> bool:
    # The same words may still change meaning: "section 2.5" after 2.5 was renumbered.
    return _title(a) != _title(b) or _map_refs(a.text, forward) != _map_refs(b.text, {})


def _is_same(a: Entry, b: Entry) -> bool:
    return _title(a) == _title(b) and (a.text == b.text or _flat(a.text) == _flat(b.text))


def _is_kept(a: Entry, b: Entry) -> bool:
    # A section rewritten under its number and title ("Changes From Previous Versions").
    return bool(_title(a)) and _title(a) == _title(b)


def _parent(number: str) -> str | None:
    top, dot, _ = number.partition(".")
    return top if dot and top.isdigit() else None


SECTIONS = Scheme(_key, _parent, lambda number: 0, _is_changed, _is_same, _is_kept)
"""How sections are compared; :func:`match_sections` gives it the order of the two editions."""


def _document_order(old: Sections, new: Sections) -> dict[str, float]:
    """A position for every number: where it is in the new edition; an old number that is not,
    just after the section before it that carried over."""
    order: dict[str, float] = {n: float(i) for i, n in enumerate(new.rules)}
    last = -1.0
    for number in old.rules:
        if number in order:
            last = order[number]
        else:
            order[number] = last + 0.5
    return order


class SectionMatching(Pairing):
    """Which section of the old edition became which section of the new one."""

    old: Sections
    new: Sections

    def __init__(self, old: Sections, new: Sections) -> None:
        order = _document_order(old, new)
        super().__init__(old, new, replace(SECTIONS, sort_key=lambda n: order.get(n, 1e9)))


def match_sections(old: Sections, new: Sections) -> SectionMatching:
    """Pairs the sections of two editions of one document."""
    return pair(SectionMatching(old, new))


@dataclass(frozen=True)
class SectionChange(Change):
    """A section added, removed, changed or moved; titles as well as texts."""

    old_title: str | None = None
    new_title: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The record ``judge diff --doc … --json`` prints: the CR's keys, then the titles."""
        return super().to_json() | {"old_title": self.old_title, "new_title": self.new_title}


def _make_change(
    kind: str, a: SectionEntry | None, b: SectionEntry | None, text_changed: bool
) -> Change:
    return SectionChange(
        kind,
        a.number if a else None,
        b.number if b else None,
        a.text if a else None,
        b.text if b else None,
        is_text_changed=text_changed,
        old_title=a.title if a else None,
        new_title=b.title if b else None,
    )


@dataclass(frozen=True)
class SectionEvent(Event):
    """Something that happened to one section in one edition; titles as well as texts."""

    title: str | None = None
    previous_title: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The record ``judge history --doc … --json`` prints: the CR's keys, then the titles."""
        return super().to_json() | {"title": self.title, "previous_title": self.previous_title}


def _make_event(
    edition: str,
    kind: str,
    number: str,
    previous: str | None,
    now: SectionEntry | None,
    before: SectionEntry | None,
) -> Event:
    return SectionEvent(
        edition,
        kind,
        number,
        previous,
        now.text if now else None,
        before.text if before else None,
        now.title if now else None,
        before.title if before else None,
    )


def find_section_number(sections: Sections, wanted: str) -> str | None:
    """The number ``wanted`` names in one edition: a number (``2.05`` is 2.5, ``appendix b``),
    a slug (``common-issues``) or a title; ``None`` when it names none."""
    number = parse_section_ref(wanted)
    if number is not None:
        return number if number in sections.rules else None
    if wanted.strip() in sections.rules:
        return wanted.strip()
    entries = [
        {"number": n, "title": e.title, "parent": sections.parents.get(n)}
        for n, e in sections.rules.items()
    ]
    try:
        match = find_named(entries, wanted, kind=sections.kind, edition=sections.edition or "")
    except UnknownSectionError:
        return None
    return match.number if match.how != "fuzzy" else None


def _under(sections: Sections, number: str) -> set[str]:
    """``number`` and, for a top-level section, the sections under it."""
    return {n for n, parent in sections.parents.items() if n == number or parent == number}


def diff_sections(
    old: TournamentDocument, new: TournamentDocument, section: str | None = None
) -> list[Change]:
    """Every section added, removed, changed or moved from ``old`` to ``new`` (one document).

    With ``section``, only the changes touching it (and, for a top-level section, the sections
    under it) in either edition. Raises :class:`UnknownSectionError` if it names a section in
    neither.
    """
    a, b = Sections(old), Sections(new)
    m = match_sections(a, b)
    if section is None:
        return changes(m, make=_make_change)
    in_old, in_new = find_section_number(a, section), find_section_number(b, section)
    if in_old is None and in_new is None:
        wanted = parse_section_ref(section) or section.strip()
        nearest = nearest_sections(list(b.rules), wanted)
        raise UnknownSectionError(old.kind, f"{old.edition} or {new.edition}", wanted, nearest)
    wanted_old = _under(a, in_old) if in_old else set()
    wanted_new = _under(b, in_new) if in_new else set()
    return changes(m, wanted_old, wanted_new, make=_make_change)


def section_history(
    documents: Iterable[TournamentDocument], section: str, anchor: str | None = None
) -> list[Event]:
    """Every edition in which a section was added, changed, moved or removed, oldest first.

    The section is ``section`` as numbered in the ``anchor`` edition (default: the newest
    that has it), followed back and forward across renumbering. Raises
    :class:`UnknownSectionError` (with the nearest sections) when that edition has no such
    section, and :class:`LookupError` when ``anchor`` is not among ``documents``.
    """
    docs = [Sections(d) for d in sorted(documents, key=lambda d: d.edition)]
    if not docs:
        raise LookupError("no edition given")
    kind = docs[-1].kind
    if anchor is not None:
        at = [i for i, d in enumerate(docs) if d.edition == anchor]
        if not at:
            raise LookupError(f"edition {anchor} is not among the editions given")
        start = at[0]
        number = find_section_number(docs[start], section)
    else:
        found = [(i, find_section_number(d, section)) for i, d in enumerate(docs)]
        having = [(i, n) for i, n in found if n is not None]
        start, number = having[-1] if having else (len(docs) - 1, None)
    if number is None:
        wanted = parse_section_ref(section) or section.strip()
        at_doc = docs[start]
        nearest = nearest_sections(list(at_doc.rules), wanted)
        raise UnknownSectionError(kind, at_doc.edition or "", wanted, nearest)
    return follow(docs, start, number, SECTIONS, match_sections, make=_make_event)
