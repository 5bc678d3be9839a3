"""Kinds of documents and the scopes that search them: two tables.

:data:`KINDS` says how a hit on each kind of document is reported; :data:`SCOPE_TABLE` says
which indexes each scope (``judge search --in``) reads, and which of their documents. An index
is one of four *sources* (:data:`SOURCES`): the edition's own (rules, examples, phrasings,
glossary), the notes', the tournament documents' sections and the card rulings' (the last two
are built by :mod:`index.search.extra`). A new kind of document is a row of the first table,
its scope a row of the second. The rows are named tuples, not dataclasses: creating a
dataclass takes about a millisecond, which every cold ``judge search`` would pay.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from .query import QuerySyntaxError
from .results import (
    Marks,
    SearchResult,
    glossary_record,
    rule_record,
    ruling_record,
    section_record,
)


class UnknownScopeError(QuerySyntaxError):
    """Raised for a scope that :data:`SCOPE_TABLE` lacks; ``known`` lists the scopes it has."""

    def __init__(self, scope: str, known: tuple[str, ...]) -> None:
        self.scope = scope
        self.known = known
        super().__init__(f"unknown scope {scope!r}; use one of {', '.join(known)}")


class Kind(NamedTuple):
    """How a hit on one kind of document (its stored ``kind``) is reported."""

    name: str
    record: Callable[[dict[str, Any], float, str, Marks], SearchResult] = rule_record
    """Makes the result record from the stored fields, the score and the snippet."""
    folds_into_number: bool = False
    """Reported as the document whose ``id`` is this one's ``number`` (its rule), once."""
    shows_as_example: bool = False
    """When folded: its own snippet is shown as the record's ``example``."""


KINDS: dict[str, Kind] = {
    "rule": Kind("rule"),
    "example": Kind("example", folds_into_number=True, shows_as_example=True),
    "asked": Kind("asked", folds_into_number=True),
    "glossary": Kind("glossary", glossary_record),
    "section": Kind("section", section_record),
    "ruling": Kind("ruling", ruling_record),
}
"""Every kind of document an index holds (see :mod:`index.search.schema`)."""


def kind_of(fields: dict[str, Any]) -> Kind:
    """The row of :data:`KINDS` for a hit's stored fields (a rule for an unknown kind)."""
    return KINDS.get(str(fields.get("kind")), KINDS["rule"])


SOURCES = ("edition", "notes", "documents", "rulings")
"""The indexes a search can read, in the order a Searcher holds them (the edition's first)."""

PAPER = ("mtr", "ipg", "jar")
"""The tournament documents of paper Magic, searched by ``all`` (the digital ones are not:
their sections on slow play, outside assistance or cheating would stand beside the paper
ones' in every answer; ``--in documents``, ``dmtr`` and ``dipg`` search them)."""


class Scope(NamedTuple):
    """What one scope searches, and which of the rules-only steps apply in it."""

    name: str
    match: tuple[tuple[str, str], ...] | None
    """(field, value) pairs a document of the edition's index (or the notes') must have one
    of; None: every document."""
    rule_numbers: bool = True
    """A rule number in the query goes straight to that rule."""
    lends: bool = True
    """Glossary entries lend their score to the rule they name (:func:`index.search.rank.lend`)."""
    help: str = ""
    """What it searches, in words, for help texts ("the rules")."""
    sources: tuple[str, ...] = ("edition", "notes")
    """The indexes it reads (:data:`SOURCES`); the edition's is opened whatever it says, for
    rule numbers and "did you mean"."""
    documents: tuple[str, ...] | None = None
    """The tournament documents whose sections it takes (``ipg``, …); None: every one."""
    named: bool = False
    """A card ruling is taken only when the question names one of its cards (see
    :func:`index.search.extra.names_a_card`), and at most
    :data:`index.search.extra.RULINGS_IN_ALL` of them."""

    def filter(self, source: str = "edition") -> Any:
        """The whoosh filter query of this scope in an index of ``source``, or None for every
        document."""
        from whoosh.query import Or, Term

        if source == "documents":
            if self.documents is None:
                return None
            terms = [Term("document", value) for value in self.documents]
        elif source == "rulings" or self.match is None:
            return None
        else:
            terms = [Term(fieldname, value) for fieldname, value in self.match]
        return terms[0] if len(terms) == 1 else Or(terms)


def _kinds(*names: str) -> tuple[tuple[str, str], ...]:
    return tuple(("kind", name) for name in names)


def _document(name: str, help: str, documents: tuple[str, ...] | None = None) -> Scope:
    return Scope(
        name,
        None,
        rule_numbers=False,
        lends=False,
        help=help,
        sources=("documents",),
        documents=(name,) if documents is None else documents,
    )


SCOPE_TABLE: dict[str, Scope] = {
    "rules": Scope(
        "rules", _kinds("rule", "example", "asked"), help="the rules", sources=("edition",)
    ),
    "glossary": Scope(
        "glossary",
        _kinds("glossary"),
        rule_numbers=False,
        lends=False,
        help="the glossary",
        sources=("edition",),
    ),
    "mtr": _document("mtr", "the Tournament Rules"),
    "ipg": _document("ipg", "the Infraction Procedure Guide"),
    "jar": _document("jar", "Judging at Regular REL"),
    "dmtr": _document("dmtr", "the Digital Tournament Rules"),
    "dipg": _document("dipg", "the Digital Infraction Procedure Guide"),
    "documents": Scope(
        "documents",
        None,
        rule_numbers=False,
        lends=False,
        help="every tournament document",
        sources=("documents",),
    ),
    "rulings": Scope(
        "rulings",
        None,
        rule_numbers=False,
        lends=False,
        help="the cards' rulings",
        sources=("rulings",),
    ),
    "all": Scope(
        "all",
        None,
        help="everything",
        sources=SOURCES,
        documents=PAPER,
        named=True,
    ),
}
"""Every scope, by name, in the order ``--in`` lists them."""

SCOPES = tuple(SCOPE_TABLE)
"""The scopes' names."""


def get_scope(name: str) -> Scope:
    """The scope of that name; raises :class:`UnknownScopeError`."""
    found = SCOPE_TABLE.get(name)
    if found is None:
        raise UnknownScopeError(name, SCOPES)
    return found
