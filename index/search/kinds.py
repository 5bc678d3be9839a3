"""Kinds of documents and the scopes that search them: two tables.

:data:`KINDS` says how a hit on each kind of document is reported; :data:`SCOPE_TABLE` says
which documents each scope (``judge search --in``) searches. A new kind of document (card
rulings, tournament-document sections) is a row of the first, its scope a row of the second.
The rows are named tuples, not dataclasses: creating a dataclass takes about a millisecond,
which every cold ``judge search`` would pay.

Card rulings, say, would be ``"ruling": Kind("ruling", ruling_record)`` (a record function
beside the others in :mod:`index.search.results`) and
``"rulings": Scope("rulings", _kinds("ruling"), lends=False, help="card rulings")``; a
document's sections, ``Scope("ipg", (("document", "ipg"),), help="the IPG")``, once the
schema stores a ``document`` field.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from .query import QuerySyntaxError
from .results import Marks, SearchResult, glossary_record, rule_record, section_record


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
}
"""Every kind of document an index holds (see :mod:`index.search.schema`)."""


def kind_of(fields: dict[str, Any]) -> Kind:
    """The row of :data:`KINDS` for a hit's stored fields (a rule for an unknown kind)."""
    return KINDS.get(str(fields.get("kind")), KINDS["rule"])


class Scope(NamedTuple):
    """What one scope searches, and which of the rules-only steps apply in it."""

    name: str
    match: tuple[tuple[str, str], ...] | None
    """(field, value) pairs a document must have one of; None: every document."""
    rule_numbers: bool = True
    """A rule number in the query goes straight to that rule."""
    lends: bool = True
    """Glossary entries lend their score to the rule they name (:func:`index.search.rank.lend`)."""
    help: str = ""
    """What it searches, in words, for help texts ("the rules")."""

    def filter(self) -> Any:
        """The whoosh filter query of this scope, or None for every document."""
        if self.match is None:
            return None
        from whoosh.query import Or, Term

        terms = [Term(fieldname, value) for fieldname, value in self.match]
        return terms[0] if len(terms) == 1 else Or(terms)


def _kinds(*names: str) -> tuple[tuple[str, str], ...]:
    return tuple(("kind", name) for name in names)


SCOPE_TABLE: dict[str, Scope] = {
    "rules": Scope("rules", _kinds("rule", "example", "asked"), help="the rules"),
    "glossary": Scope(
        "glossary", _kinds("glossary"), rule_numbers=False, lends=False, help="the glossary"
    ),
    "all": Scope("all", None, help="everything"),
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
