"""How players ask about a rule: hand-written phrasings indexed with the rule they ask about.

A player asks "can I respond to a land drop?"; the rule that answers (305.1, "playing a land is
a special action") shares few of those words. The files in ``asked/`` (beside this module) list,
for rules players ask about, a few questions the way players put them, written by hand from the
2026-01-16 rules (``number<TAB>signature<TAB>phrasing``). Each phrasing is indexed as a small
document of its own (kind ``asked``, field ``asked``) that is folded into its rule in the
results, as an example is: a question worded like a phrasing finds the rule (document
expansion). A rule found by its own words and by a phrasing scores both
(:func:`index.search.rank._phrasings_to_rules`). The ``cards-*.tsv`` files hold questions that
name real cards whose interaction the rule decides ("does Blood Moon turn off my Urborg?"): a
question naming the same cards finds the rule, though the rule names none.

Rule numbers move between editions, so a phrasing carries a *signature*, a few words copied from
its rule: it is attached to the edition's rule of that number if that rule's text has the
signature, else to the one rule of the edition whose text has it, else left out.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from glossary.fold import fold_text

if TYPE_CHECKING:
    from ..model import Document

ASKED_DIR = Path(__file__).with_name("asked")


class Asked(NamedTuple):
    """One phrasing: the rule it asks about, words of that rule, and the question."""

    number: str
    signature: str
    phrasing: str


_NUMBER_RE = re.compile(r"\d{3}(?:\.\d+[a-z]?)?")


def read_asked(text: str, source: str) -> list[Asked]:
    """The phrasings of one file; raises :class:`ValueError` naming the line of a bad row."""
    out: list[Asked] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) != 3 or not all(fields) or not _NUMBER_RE.fullmatch(fields[0]):
            raise ValueError(f"{source}, line {n}: expected number<TAB>signature<TAB>phrasing")
        out.append(Asked(*fields))
    return out


@functools.cache
def _files() -> tuple[tuple[str, bytes], ...]:
    """(name, bytes) of every phrasing file, in name order, read once per process."""
    if not ASKED_DIR.is_dir():
        return ()
    return tuple((p.name, p.read_bytes()) for p in sorted(ASKED_DIR.glob("*.tsv")))


def forget_files() -> None:
    """Forgets the phrasing files read so far (for a caller that changed :data:`ASKED_DIR`)."""
    _files.cache_clear()
    _digest.cache_clear()


def all_asked() -> list[Asked]:
    """Every phrasing of every file."""
    return [a for name, data in _files() for a in read_asked(data.decode("utf-8"), name)]


def asked_digest() -> str:
    """A hash of the phrasing files (an index built with other phrasings is stale).

    Computed once per process from the files' bytes (well under a millisecond; see
    ``benchmarks/search_speed.py``), so checking an index on every search costs nothing.
    """
    return _digest()


@functools.cache
def _digest() -> str:
    h = hashlib.sha256()
    for name, data in _files():
        h.update(f"{name}\n{len(data)}\n".encode())
        h.update(data)
    return h.hexdigest()


def _fold(text: str) -> str:
    return " ".join(fold_text(text).lower().split())


def asked_for(doc: Document) -> dict[str, list[str]]:
    """Rule number → the phrasings that ask about that rule of ``doc`` (see the module)."""
    phrasings = all_asked()
    if not phrasings:
        return {}
    texts = {number: _fold(rule.text) for number, rule in doc.rules.items()}
    by_signature: dict[str, list[str]] = {}
    out: dict[str, list[str]] = {}
    for a in phrasings:
        signature = _fold(a.signature)
        number: str | None = a.number
        if signature not in texts.get(a.number, ""):
            if signature not in by_signature:
                by_signature[signature] = [n for n, t in texts.items() if signature in t]
            found = by_signature[signature]
            number = found[0] if len(found) == 1 else None
        if number is not None:
            out.setdefault(number, []).append(a.phrasing)
    return out
