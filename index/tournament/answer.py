"""One look-up in a tournament document: the sections found, and what their references name.

References are resolved at look-up time against what is stored now: a section of the same
document, the edition of another document in force on this one's date, or a rule of the CR
edition chosen (by default the one in force on the document's date).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from .kinds import KINDS

if TYPE_CHECKING:
    from ..store import EditionStore
    from .store import DocumentStore, SectionIndex

__all__ = ["Answer", "References", "look_up"]


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
        from ..store import NoEditionError

        wanted = [n for n in numbers if n not in self._rules]
        if not wanted:
            return
        dates = self.editions.dates()
        if self.cr_wanted is not None:
            try:
                self.cr_edition = self.editions.resolve(self.cr_wanted)
            except NoEditionError as exc:
                exc.purpose = "cited"  # the CR edition asked for the rules cited
                raise
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


def look_up(documents: DocumentStore, kind: str, words: list[str], edition: str | None) -> Answer:
    """The sections ``words`` name in a stored document: numbers (``2.1``, ``4``, ``Appendix B``),
    or a title or infraction name (fuzzy); no words: the whole document.

    Raises :class:`~index.tournament.store.NoDocumentError` and
    :class:`~index.tournament.lookup.UnknownSectionError` (with the nearest sections or names).
    """
    from .lookup import (
        UnknownSectionError,
        find_named,
        find_number,
        nearest_sections,
        parse_section_ref,
        whole_section,
    )

    date = documents.resolve(kind, edition)
    index = documents.index(kind, date)
    query = " ".join(words).strip()
    if not query:
        return Answer(kind, index, documents.section_records(index, index.numbers), query, "all")
    refs = [parse_section_ref(w) for w in words]
    if any(r is None for r in refs):
        refs = [parse_section_ref(query)]
    numbers: list[str] = []
    if all(r is not None for r in refs):
        for ref in refs:
            assert ref is not None
            if find_number(index.entries, ref) is None:
                raise UnknownSectionError(kind, date, ref, nearest_sections(index.numbers, ref))
            numbers.extend(whole_section(index.entries, ref))
        return Answer(kind, index, documents.section_records(index, numbers), query, "number")
    match = find_named(index.entries, query, kind=kind, edition=date, parts=kind == "jar")
    named = whole_section(index.entries, match.number) if match.part is None else [match.number]
    sections = documents.section_records(index, named)
    return Answer(kind, index, sections, query, match.how, match.part)
