"""What changed between two editions: added, removed, changed and moved (renumbered) rules.

Rules are paired across editions in three passes, cheapest first:

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
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from glossary.entry import fold_text

from .model import Document, Rule, UnknownRuleError
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

# Below this difflib ratio (over the words of two texts) two rules are not the same rule.
SIMILARITY_THRESHOLD = 0.5
# How many candidates, ranked by shared rare words, get a full ratio.
_CANDIDATES = 12
# A word found in more leftover rules than this is too common to suggest a candidate.
_COMMON = 150
_SAME_NUMBER_BONUS = 0.1
_SAME_PARENT_BONUS = 0.1

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


def _map_ref(ref: RuleRef, mapping: dict[str, str]) -> RuleRef:
    def one(number: RuleNumber) -> RuleNumber:
        moved = mapping.get(str(number))
        return parse_rule_number(moved) if moved is not None else number

    return RuleRef(one(ref.start), one(ref.end) if ref.end else None, ref.with_subrules)


def _canonical(text: str, mapping: dict[str, str] | None) -> str:
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


@dataclass
class Matching:
    """Which rule of the old edition became which rule of the new one."""

    old: Document
    new: Document
    forward: dict[str, str] = field(default_factory=dict)
    """Old number → new number, for every rule that carried over."""
    backward: dict[str, str] = field(default_factory=dict)
    """New number → old number."""

    def is_changed(self, old_number: str) -> bool:
        """Checks if the text (or examples) of a carried-over rule changed beyond renumbering."""
        new_number = self.forward[old_number]
        a, b = self.old.rules[old_number], self.new.rules[new_number]
        if a.text == b.text and a.examples == b.examples and not self._has_moved_refs(a):
            return False
        if _canonical(a.text, self.forward) != _canonical(b.text, None):
            return True
        return [_canonical(e, self.forward) for e in a.examples] != [
            _canonical(e, None) for e in b.examples
        ]

    def _has_moved_refs(self, rule: Rule) -> bool:
        for text in (rule.text, *rule.examples):
            for found in _references(_plain(text)):
                ref = found.ref
                for number in (ref.start, ref.end):
                    if number is not None and self.forward.get(str(number), str(number)) != str(
                        number
                    ):
                        return True
        return False

    def _pair(self, old_number: str, new_number: str) -> None:
        self.forward[old_number] = new_number
        self.backward[new_number] = old_number


def _parent(number: str) -> str | None:
    parent = parse_rule_number(number).parent()
    return None if parent is None else str(parent)


def match_documents(old: Document, new: Document) -> Matching:
    """Pairs the rules of two editions (see the module docstring for how)."""
    m = Matching(old, new)
    old_keys = {n: normalise_text(r.text) for n, r in old.rules.items()}
    new_keys = {n: normalise_text(r.text) for n, r in new.rules.items()}

    # 1. Same number, same text.
    for number, key in old_keys.items():
        if new_keys.get(number) == key:
            m._pair(number, number)

    def parent_agrees(o: str, n: str) -> bool:
        po, pn = _parent(o), _parent(n)
        return po is not None and pn is not None and m.forward.get(po) == pn

    # 2. Same text, another number. Document order, so a parent is paired before its children
    # and a title such as "General" goes to the one under the parent's new number.
    by_key: dict[str, list[str]] = {}
    for number, key in new_keys.items():
        if number not in m.backward:
            by_key.setdefault(key, []).append(number)
    for number, key in old_keys.items():
        if number in m.forward or key not in by_key:
            continue
        free = [n for n in by_key[key] if n not in m.backward]
        agreeing = [n for n in free if parent_agrees(number, n)]
        # Very short texts ("General", "[Reserved]") say little: they need the parent's word.
        if agreeing:
            m._pair(number, agreeing[0])
        elif free and len(key.split()) > 3:
            m._pair(number, free[0])

    # 3. Similar text, among candidates sharing rare words.
    left_old = [n for n in old_keys if n not in m.forward]
    left_new = [n for n in new_keys if n not in m.backward]
    if left_old and left_new:
        _match_similar(m, left_old, left_new, old_keys, new_keys, parent_agrees)
    return m


def _match_similar(
    m: Matching,
    left_old: list[str],
    left_new: list[str],
    old_keys: dict[str, str],
    new_keys: dict[str, str],
    parent_agrees: Any,
) -> None:
    new_words = {n: new_keys[n].split() for n in left_new}
    postings: dict[str, list[str]] = {}
    for n, words in new_words.items():
        for w in dict.fromkeys(words):  # not a set: keep runs reproducible
            postings.setdefault(w, []).append(n)
    scored: list[tuple[float, int, str, str]] = []
    order = 0
    for o in left_old:
        words = old_keys[o].split()
        shared: Counter[str] = Counter()
        for w in dict.fromkeys(words):  # not a set: keep runs reproducible
            hits = postings.get(w)
            if hits is not None and len(hits) <= _COMMON:
                shared.update(hits)
        candidates = [n for n, _ in shared.most_common(_CANDIDATES)]
        if o in new_words and o not in candidates:
            candidates.append(o)
        matcher = difflib.SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(words)
        for n in candidates:
            matcher.set_seq1(new_words[n])
            if matcher.real_quick_ratio() < SIMILARITY_THRESHOLD:
                continue
            if matcher.quick_ratio() < SIMILARITY_THRESHOLD:
                continue
            ratio = matcher.ratio()
            if ratio < SIMILARITY_THRESHOLD:
                continue
            score = ratio
            if n == o:
                score += _SAME_NUMBER_BONUS
            if parent_agrees(o, n):
                score += _SAME_PARENT_BONUS
            scored.append((-score, order, o, n))
            order += 1
    scored.sort()
    for _, _, o, n in scored:
        if o not in m.forward and n not in m.backward:
            m._pair(o, n)


@dataclass(frozen=True)
class Change:
    """One rule added, removed, changed, or moved (renumbered, perhaps reworded too)."""

    kind: str
    """``added``, ``removed``, ``changed`` or ``moved``."""
    old: str | None
    """The number in the old edition, or ``None`` for an added rule."""
    new: str | None
    """The number in the new edition, or ``None`` for a removed rule."""
    old_text: str | None
    new_text: str | None
    old_examples: tuple[str, ...] = ()
    new_examples: tuple[str, ...] = ()
    is_text_changed: bool = False
    """For ``moved``: whether the wording changed as well as the number."""

    def to_json(self) -> dict[str, Any]:
        """The record ``judge diff --json`` prints (contract keys first)."""
        return {
            "kind": self.kind,
            "old": self.old,
            "new": self.new,
            "old_text": self.old_text,
            "new_text": self.new_text,
            "text_changed": self.is_text_changed,
            "old_examples": list(self.old_examples),
            "new_examples": list(self.new_examples),
        }


def _numbers_in(doc: Document, ref: RuleRef) -> set[str]:
    rules = doc.resolve(ref)
    numbers = {r.number for r in rules}
    if ref.end is not None and ref.with_subrules:
        for r in rules:
            numbers.update(doc.descendants(r.number))
    return numbers


def _sort_key(change: Change) -> tuple[Any, ...]:
    number = change.new if change.new is not None else change.old
    assert number is not None
    return (parse_rule_number(number).sort_key(), change.new is not None)


def _change(kind: str, a: Rule | None, b: Rule | None, text_changed: bool = False) -> Change:
    return Change(
        kind,
        a.number if a else None,
        b.number if b else None,
        a.text if a else None,
        b.text if b else None,
        tuple(a.examples) if a else (),
        tuple(b.examples) if b else (),
        text_changed,
    )


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
    return _changes(match_documents(old, new), wanted_old, wanted_new)


def _changes(m: Matching, wanted_old: set[str] | None, wanted_new: set[str] | None) -> list[Change]:
    def wanted(o: str | None, n: str | None) -> bool:
        if wanted_old is None or wanted_new is None:
            return True
        return (o is not None and o in wanted_old) or (n is not None and n in wanted_new)

    changes: list[Change] = []
    for o, rule in m.old.rules.items():
        n = m.forward.get(o)
        if not wanted(o, n):
            continue
        if n is None:
            changes.append(_change("removed", rule, None))
            continue
        changed = m.is_changed(o)
        if n != o:
            changes.append(_change("moved", rule, m.new.rules[n], changed))
        elif changed:
            changes.append(_change("changed", rule, m.new.rules[n], True))
    for n, rule in m.new.rules.items():
        if n not in m.backward and wanted(None, n):
            changes.append(_change("added", None, rule))
    changes.sort(key=_sort_key)
    return changes


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


@dataclass(frozen=True)
class Event:
    """Something that happened to one rule in one edition."""

    edition: str
    kind: str
    """``added``, ``changed``, ``moved``, ``removed``; ``earliest`` for the oldest edition given."""
    number: str
    """What the rule was called in that edition (for ``removed``: its last number)."""
    previous: str | None = None
    """Its number in the edition before, if it had one."""
    text: str | None = None
    """Its text in that edition (``None`` once removed)."""
    previous_text: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The record ``judge history --json`` prints (contract keys first)."""
        return {
            "edition": self.edition,
            "kind": self.kind,
            "number": self.number,
            "previous": self.previous,
            "text": self.text,
            "previous_text": self.previous_text,
        }


def _same_rule(old: Document, new: Document, number: str) -> bool:
    """Checks cheaply if ``number`` carried over unchanged (same number, same text)."""
    a, b = old.rules.get(number), new.rules.get(number)
    if a is None or b is None:
        return False
    return _canonical(a.text, None) == _canonical(b.text, None) and [
        _canonical(e, None) for e in a.examples
    ] == [_canonical(e, None) for e in b.examples]


def _step(old: Document, new: Document, old_number: str) -> tuple[str | None, bool]:
    """Where ``old_number`` went in ``new`` (``None``: removed) and whether its text changed."""
    if _same_rule(old, new, old_number):
        return old_number, False
    m = match_documents(old, new)
    target = m.forward.get(old_number)
    return target, target is not None and m.is_changed(old_number)


def _step_back(old: Document, new: Document, new_number: str) -> tuple[str | None, bool]:
    """Which rule of ``old`` became ``new_number`` (``None``: added) and whether it changed."""
    if _same_rule(old, new, new_number):
        return new_number, False
    m = match_documents(old, new)
    source = m.backward.get(new_number)
    return source, source is not None and m.is_changed(source)


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

    events: list[Event] = []
    # Backwards from the anchor.
    current = number
    for i in range(start, 0, -1):
        old, new = docs[i - 1], docs[i]
        source, changed = _step_back(old, new, current)
        edition = new.edition or ""
        text = new.rules[current].text
        if source is None:
            events.append(Event(edition, "added", current, None, text, None))
            break
        old_text = old.rules[source].text
        if source != current:
            events.append(Event(edition, "moved", current, source, text, old_text))
        elif changed:
            events.append(Event(edition, "changed", current, source, text, old_text))
        current = source
    else:
        if docs:
            first = docs[0]
            events.append(
                Event(first.edition or "", "earliest", current, None, first.rules[current].text)
            )
    events.reverse()
    # Forwards from the anchor.
    current = number
    for i in range(start, len(docs) - 1):
        old, new = docs[i], docs[i + 1]
        target, changed = _step(old, new, current)
        edition = new.edition or ""
        old_text = old.rules[current].text
        if target is None:
            events.append(Event(edition, "removed", current, current, None, old_text))
            break
        text = new.rules[target].text
        if target != current:
            events.append(Event(edition, "moved", target, current, text, old_text))
        elif changed:
            events.append(Event(edition, "changed", target, current, text, old_text))
        current = target
    return events
