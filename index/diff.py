"""What changed between two editions: added, removed, changed and moved (renumbered) rules.

Rules are paired across editions by :mod:`index.matching` (shared with the tournament
documents), in three passes, cheapest first:

1. the same number and the same text (almost every rule between two neighbouring editions);
2. the same text under another number (a renumbering: 704.5k → 704.5j in 2017);
3. similar text (difflib ratio over words), among candidates that share rare words, with a small
   bonus for keeping the number or for staying under the rule the parent moved to.

Texts are compared with the rule numbers inside them blanked out, so that a rule whose only change
is a reference renumbered elsewhere still pairs with itself. Whether a pair *changed* is decided
afterwards with every reference in the old text mapped through the renumbering: "see rule 420.5"
that became "see rule 704.5" is not a change.
"""

from __future__ import annotations

import contextlib
import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from glossary.entry import fold_text

from .matching import Change, Entry, Event, Pairing, Scheme, changes, follow, pair
from .model import Document, UnknownRuleError
from .numbers import (
    InvalidRuleReferenceError,
    RuleNumber,
    RuleRef,
    TextReference,
    find_references,
    parse_rule_number,
    parse_rule_ref,
)

__all__ = [
    "RULES",
    "Change",
    "Event",
    "Matching",
    "WordOp",
    "diff_documents",
    "history",
    "match_documents",
    "normalise_text",
    "word_diff",
]

KINDS = ("added", "removed", "changed", "moved")

_WORD_RE = re.compile(r"[a-z0-9#]+")
_ITALIC_RE = re.compile(r"(?<![\w\\])_(\S(?:[^_]*?\S)?)_(?!\w)")
_SPACE_RE = re.compile(r"\s+")


# Only these characters change under fold_text; checking for them first keeps plain text fast.
_FOLDABLE_RE = re.compile(
    "[\u00a0\u2018\u2019\u201a\u2032`\u201c\u201d\u201e\u2033\u2010-\u2014\u2212]"
)
# Cheap test for text that may hold a reference, before the full pattern runs.
_MAYBE_REF_RE = re.compile(r"\d{3}|section", re.IGNORECASE)


@lru_cache(maxsize=16384)
def _plain(text: str) -> str:
    """Folds quotes and dashes, drops ``_italic_`` markers and runs of spaces."""
    if _FOLDABLE_RE.search(text):
        text = fold_text(text)
    if "_" in text:
        text = _ITALIC_RE.sub(r"\1", text)
    return _SPACE_RE.sub(" ", text).strip()


@lru_cache(maxsize=16384)
def _references(plain: str) -> tuple[TextReference, ...]:
    if not _MAYBE_REF_RE.search(plain):
        return ()
    return tuple(find_references(plain))


def normalise_text(text: str) -> str:
    """Rule text as compared for matching: folded, lower case, rule numbers blanked out."""
    plain = _plain(text)
    parts: list[str] = []
    pos = 0
    for ref in _references(plain):
        parts.append(plain[pos : ref.start])
        parts.append(" # ")
        pos = ref.end
    parts.append(plain[pos:])
    return " ".join(_WORD_RE.findall("".join(parts).lower()))


def _map_ref(ref: RuleRef, mapping: Mapping[str, str]) -> RuleRef:
    def one(number: RuleNumber) -> RuleNumber:
        moved = mapping.get(str(number))
        return parse_rule_number(moved) if moved is not None else number

    return RuleRef(one(ref.start), one(ref.end) if ref.end else None, ref.with_subrules)


def _canonical(text: str, mapping: Mapping[str, str] | None) -> str:
    """Text with quotes folded and every reference rewritten (through ``mapping`` if given)."""
    plain = _plain(text)
    parts: list[str] = []
    pos = 0
    for ref in _references(plain):
        parts.append(plain[pos : ref.start])
        parts.append(str(_map_ref(ref.ref, mapping) if mapping else ref.ref))
        pos = ref.end
    parts.append(plain[pos:])
    return "".join(parts)


def _has_moved_refs(rule: Entry, forward: Mapping[str, str]) -> bool:
    for text in (rule.text, *rule.examples):
        for found in _references(_plain(text)):
            ref = found.ref
            for number in (ref.start, ref.end):
                if number is not None and forward.get(str(number), str(number)) != str(number):
                    return True
    return False


def _is_changed(a: Entry, b: Entry, forward: Mapping[str, str]) -> bool:
    """Checks if the text (or examples) of a carried-over rule changed beyond renumbering."""
    if a.text == b.text and a.examples == b.examples and not _has_moved_refs(a, forward):
        return False
    if _canonical(a.text, forward) != _canonical(b.text, None):
        return True
    return [_canonical(e, forward) for e in a.examples] != [_canonical(e, None) for e in b.examples]


def _same_rule(a: Entry, b: Entry) -> bool:
    """Checks cheaply if a rule carried over under its number unchanged (same text)."""
    return _canonical(a.text, None) == _canonical(b.text, None) and [
        _canonical(e, None) for e in a.examples
    ] == [_canonical(e, None) for e in b.examples]


def _parent(number: str) -> str | None:
    parent = parse_rule_number(number).parent()
    return None if parent is None else str(parent)


def _rule_order(number: str) -> Any:
    return parse_rule_number(number).sort_key()


def _rule_key(rule: Entry) -> str:
    return normalise_text(rule.text)


RULES = Scheme(_rule_key, _parent, _rule_order, _is_changed, _same_rule)
"""How the CR's rules are compared: references to rules blanked out or mapped."""


class Matching(Pairing):
    """Which rule of the old edition became which rule of the new one."""

    old: Document
    new: Document

    def __init__(self, old: Document, new: Document) -> None:
        super().__init__(old, new, RULES)


def match_documents(old: Document, new: Document) -> Matching:
    """Pairs the rules of two editions (see the module docstring for how)."""
    return pair(Matching(old, new))


def _numbers_in(doc: Document, ref: RuleRef) -> set[str]:
    rules = doc.resolve(ref)
    numbers = {r.number for r in rules}
    if ref.end is not None and ref.with_subrules:
        for r in rules:
            numbers.update(doc.descendants(r.number))
    return numbers


def diff_documents(old: Document, new: Document, ref: RuleRef | str | None = None) -> list[Change]:
    """Every rule added, removed, changed or moved from ``old`` to ``new``.

    With ``ref``, only the changes touching the rules it names in either edition. Raises
    :class:`UnknownRuleError` if ``ref`` names a rule in neither.
    """
    wanted_old: set[str] | None = None
    wanted_new: set[str] | None = None
    if ref is not None:
        if isinstance(ref, str):
            ref = parse_rule_ref(ref)
        wanted_old, wanted_new = set(), set()
        with contextlib.suppress(UnknownRuleError):
            wanted_old = _numbers_in(old, ref)
        try:
            wanted_new = _numbers_in(new, ref)
        except UnknownRuleError as exc:
            if not wanted_old:
                editions = tuple(e for e in (old.edition, new.edition) if e)
                raise UnknownRuleError(exc.number, None, exc.nearest, editions) from None
    return changes(match_documents(old, new), wanted_old, wanted_new)


# --- word-level diff ------------------------------------------------------------------------

_TOKEN_RE = re.compile(r"\s+|\w+|[^\w\s]")


@dataclass(frozen=True)
class WordOp:
    """One run of a word-level diff: text kept, deleted from the old, or inserted in the new."""

    op: str
    """``equal``, ``delete`` or ``insert``."""
    text: str


def word_diff(old: str, new: str) -> list[WordOp]:
    """A word-level diff of two texts; quotes and dashes that differ only in style are equal."""
    a = _TOKEN_RE.findall(old)
    b = _TOKEN_RE.findall(new)
    fa = [fold_text(t) if not t.isspace() else " " for t in a]
    fb = [fold_text(t) if not t.isspace() else " " for t in b]
    ops: list[WordOp] = []

    def add(op: str, tokens: Sequence[str]) -> None:
        text = "".join(tokens)
        if not text:
            return
        if ops and ops[-1].op == op:
            ops[-1] = WordOp(op, ops[-1].text + text)
        else:
            ops.append(WordOp(op, text))

    matcher = difflib.SequenceMatcher(None, fa, fb, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            add("equal", b[j1:j2])
            continue
        if tag in ("delete", "replace"):
            add("delete", a[i1:i2])
        if tag in ("insert", "replace"):
            add("insert", b[j1:j2])
    return _merge_spaces(ops)


def _merge_spaces(ops: list[WordOp]) -> list[WordOp]:
    """Folds a lone space between two edits into them, so edits read as whole phrases."""
    out: list[WordOp] = []
    i = 0
    while i < len(ops):
        op = ops[i]
        if (
            op.op == "equal"
            and op.text.isspace()
            and out
            and out[-1].op != "equal"
            and i + 1 < len(ops)
            and ops[i + 1].op != "equal"
        ):
            # Count the space on both sides; a side left with only spaces is dropped below.
            out.append(WordOp("delete", op.text))
            out.append(WordOp("insert", op.text))
            i += 1
            continue
        out.append(op)
        i += 1
    # Regroup: consecutive edits become one deletion then one insertion.
    grouped: list[WordOp] = []
    run_del: list[str] = []
    run_ins: list[str] = []

    def flush() -> None:
        if run_del:
            grouped.append(WordOp("delete", "".join(run_del)))
        if run_ins:
            grouped.append(WordOp("insert", "".join(run_ins)))
        run_del.clear()
        run_ins.clear()

    for op in out:
        if op.op == "equal":
            flush()
            grouped.append(op)
        elif op.op == "delete":
            run_del.append(op.text)
        else:
            run_ins.append(op.text)
    flush()
    # A deletion or insertion made only of spaces (left from regrouping) is noise.
    return [o for o in grouped if o.op == "equal" or not o.text.isspace()]


# --- history --------------------------------------------------------------------------------


def history(
    documents: Iterable[Document], ref: RuleRef | str, anchor: str | None = None
) -> list[Event]:
    """Every edition in which a rule was added, changed, moved or removed, oldest first.

    The rule is ``ref`` as numbered in the ``anchor`` edition (default: the newest of
    ``documents`` that has that number), followed back and forward across renumbering.
    Raises :class:`UnknownRuleError` if no document (or not the anchor) has the number.
    """
    docs = sorted((d for d in documents if d.edition), key=lambda d: d.edition or "")
    if isinstance(ref, str):
        ref = parse_rule_ref(ref)
    if ref.end is not None:
        raise InvalidRuleReferenceError(f"history follows one rule, not a range: {ref}")
    number = str(ref.start)
    if anchor is not None:
        at = [i for i, d in enumerate(docs) if d.edition == anchor]
        if not at:
            raise LookupError(f"edition {anchor} is not among the editions given")
        start = at[0]
        docs[start].get_rule(number)
    else:
        having = [i for i, d in enumerate(docs) if number in d.rules]
        if not having:
            newest = docs[-1] if docs else Document(None)
            raise UnknownRuleError(number, None, newest.nearest(number), editions=())
        start = having[-1]

    return follow(docs, start, number, RULES, match_documents)
