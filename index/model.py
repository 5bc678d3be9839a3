"""The parsed Comprehensive Rules: rules, glossary, and the problems met while reading them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .numbers import (
    InvalidRuleReferenceError,
    RuleNumber,
    RuleRef,
    parse_rule_number,
    parse_rule_ref,
)
from .records import Record

if TYPE_CHECKING:
    from glossary.entry import GlossaryEntry, ParseProblem

    from .section import Section
    from .xref import DanglingReference

__all__ = [
    "DanglingReference",
    "Document",
    "ParseProblem",
    "Rule",
    "Section",
    "UnknownRuleError",
    "XRefs",
]


def __getattr__(name: str) -> Any:
    # A rule looked up by number needs no glossary classes, no sections and no dangling
    # references: they load when a reader asks.
    if name == "ParseProblem":
        from glossary.entry import ParseProblem

        return ParseProblem
    if name == "Section":
        from .section import Section

        return Section
    if name == "DanglingReference":
        from .xref import DanglingReference

        return DanglingReference
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class UnknownRuleError(LookupError):
    """Raised when a rule number does not exist in an edition (or in any of several)."""

    def __init__(
        self,
        number: str,
        edition: str | None,
        nearest: list[str],
        editions: tuple[str, ...] | None = None,
    ) -> None:
        self.number = number
        self.edition = edition
        self.nearest = nearest
        self.editions = editions if editions is not None else ((edition,) if edition else None)
        """Every edition looked in: one, two (a diff), or none (``()``: any stored edition)."""
        super().__init__(f"no rule {number} in {self.where}" if self.where else f"no rule {number}")

    @property
    def where(self) -> str:
        """Where the rule was looked for, in words ("the 2025-02-07 edition")."""
        if self.editions is None:
            return ""
        if not self.editions:
            return "any stored edition"
        if len(self.editions) == 1:
            return f"the {self.editions[0]} edition"
        return "either " + " or ".join(f"the {e}" for e in self.editions) + " edition"


class Rule(Record):
    """One numbered item: a section, a rule, a numbered rule or a lettered subrule."""

    _fields = ("number", "text", "examples", "line")
    number: str
    """The rule number as printed, normalised: ``704.5j``."""
    text: str
    """The rule text; for sections and three-digit rules, their title."""
    examples: list[str]
    """The examples printed under the rule, without the ``Example:`` label."""
    line: int
    """The 1-based line in the source file where the rule starts."""

    def __init__(
        self, number: str, text: str, examples: list[str] | None = None, line: int = 0
    ) -> None:
        self.number = number
        self.text = text
        self.examples = [] if examples is None else examples
        self.line = line

    @property
    def parsed(self) -> RuleNumber:
        """The number as a :class:`RuleNumber`."""
        return parse_rule_number(self.number)

    @property
    def is_heading(self) -> bool:
        """Checks if this is a section or a three-digit rule, whose text is a title."""
        return "." not in self.number


class Document(Record):
    """A whole rules document: one edition of the CR, or a sample of rules-like text."""

    _fields = (
        "edition",
        "rules",
        "glossary",
        "introduction",
        "contents",
        "credits",
        "problems",
        "sections",
        "title",
        "encoding",
        "undecodable",
        "all_numbers",
        "_children",
        "_nearest",
    )
    _hidden = ("all_numbers", "_children", "_nearest")
    edition: str | None
    """The effective date as ISO ``YYYY-MM-DD``, or ``None`` if the document has none."""
    rules: dict[str, Rule]
    """Every rule by number, in document order."""
    glossary: list[GlossaryEntry]
    """Glossary entries in document order."""
    introduction: str
    contents: str
    credits: str
    problems: list[ParseProblem]
    """Lines the reader could not place; a clean CR file has none."""
    sections: list[Section]
    """Titled passages that are not rules (the bundled sample, Markdown notes)."""
    title: str
    encoding: str
    """The codec the file was read with (``utf-8-sig``, ``cp1252`` …); ``""`` when not known."""
    undecodable: int
    """How many bytes of the file were not valid in that encoding (read as U+FFFD)."""
    all_numbers: list[str] | None
    """Every number of the edition, when ``rules`` holds only part of it (a quick lookup)."""
    _children: dict[str, list[str]] | None
    _nearest: NumberIndex | None

    def __init__(
        self,
        edition: str | None,
        rules: dict[str, Rule] | None = None,
        glossary: list[GlossaryEntry] | None = None,
        introduction: str = "",
        contents: str = "",
        credits: str = "",
        problems: list[ParseProblem] | None = None,
        sections: list[Section] | None = None,
        title: str = "Magic: The Gathering Comprehensive Rules",
        encoding: str = "",
        undecodable: int = 0,
        all_numbers: list[str] | None = None,
        _children: dict[str, list[str]] | None = None,
        _nearest: NumberIndex | None = None,
    ) -> None:
        self.edition = edition
        self.rules = {} if rules is None else rules
        self.glossary = [] if glossary is None else glossary
        self.introduction = introduction
        self.contents = contents
        self.credits = credits
        self.problems = [] if problems is None else problems
        self.sections = [] if sections is None else sections
        self.title = title
        self.encoding = encoding
        self.undecodable = undecodable
        self.all_numbers = all_numbers
        self._children = _children
        self._nearest = _nearest

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules.values())

    def find_rule(self, number: str) -> Rule | None:
        """The rule with this number, or ``None``."""
        try:
            key = str(parse_rule_number(number))
        except InvalidRuleReferenceError:
            return None
        return self.rules.get(key)

    def get_rule(self, number: str) -> Rule:
        """The rule with this number; raises :class:`UnknownRuleError` with the nearest ones."""
        rule = self.find_rule(number)
        if rule is None:
            raise UnknownRuleError(number, self.edition, self.nearest(number))
        return rule

    def children(self, number: str) -> list[str]:
        """The numbers one level below ``number``, in document order."""
        if self._children is None:
            kids: dict[str, list[str]] = {}
            for key in self.rules:
                parent = parse_rule_number(key).parent()
                if parent is not None:
                    kids.setdefault(str(parent), []).append(key)
            self._children = kids
        return self._children.get(number, [])

    def descendants(self, number: str) -> list[str]:
        """Every number below ``number``, depth first, in document order."""
        out: list[str] = []
        for child in self.children(number):
            out.append(child)
            out.extend(self.descendants(child))
        return out

    def parent(self, number: str) -> str | None:
        """The number one level up, if that rule exists."""
        parent = parse_rule_number(number).parent()
        if parent is None:
            return None
        key = str(parent)
        return key if key in self.rules else None

    def resolve(self, ref: RuleRef | str) -> list[Rule]:
        """The rules a reference names, in document order; raises :class:`UnknownRuleError`."""
        if isinstance(ref, str):
            ref = parse_rule_ref(ref)
        start = self.get_rule(str(ref.start))
        if ref.end is None:
            numbers = [start.number]
            if ref.with_subrules:
                numbers += self.descendants(start.number)
            return [self.rules[n] for n in numbers]
        end = self.get_rule(str(ref.end))
        keys = list(self.rules)
        first, last = keys.index(start.number), keys.index(end.number)
        depth = ref.start.depth
        return [
            self.rules[k] for k in keys[first : last + 1] if parse_rule_number(k).depth == depth
        ]

    def nearest(self, number: str, count: int = 3) -> list[str]:
        """The existing numbers closest to ``number`` (for "did you mean")."""
        numbers = self.all_numbers or list(self.rules)
        # Built once per document: a text with thousands of missing citations asks thousands
        # of times, and each answer would otherwise parse every number of the edition.
        if self._nearest is None or self._nearest.size != len(numbers):
            self._nearest = NumberIndex(numbers)
        return self._nearest.nearest(number, count)


class NumberIndex:
    """The numbers of an edition, grouped under each of their ancestors, for :meth:`nearest`."""

    def __init__(self, numbers: list[str]) -> None:
        self.size = len(numbers)
        self.numbers = list(numbers)
        parsed = sorted(
            ((parse_rule_number(n), n) for n in numbers), key=lambda pn: pn[0].sort_key()
        )
        self.parsed = parsed
        self.within: dict[RuleNumber, list[int]] = {}
        for i, (p, _) in enumerate(parsed):
            node: RuleNumber | None = p
            while node is not None:
                self.within.setdefault(node, []).append(i)
                node = node.parent()

    def nearest(self, wanted: str, count: int = 3) -> list[str]:
        """The ``count`` numbers closest to ``wanted`` in document order (see
        :func:`nearest_numbers`)."""
        try:
            key = parse_rule_number(wanted)
        except InvalidRuleReferenceError:
            import difflib

            return difflib.get_close_matches(wanted.strip().lower(), self.numbers, n=count)
        # Prefer numbers that share the deepest known ancestor, then the closest in order.
        ancestor: RuleNumber | None = key
        family: list[tuple[RuleNumber, str]] = []
        while ancestor is not None and not family:
            family = [
                self.parsed[i] for i in self.within.get(ancestor, ()) if self.parsed[i][0] != key
            ]
            ancestor = ancestor.parent()
        if not family:
            family = self.parsed
        before = [n for p, n in family if p < key]
        after = [n for p, n in family if key < p]
        picked: list[str] = []
        while (before or after) and len(picked) < count:
            if before:
                picked.append(before.pop())
            if after and len(picked) < count:
                picked.append(after.pop(0))
        return sorted(picked, key=lambda n: parse_rule_number(n).sort_key())


def nearest_numbers(numbers: list[str], wanted: str, count: int = 3) -> list[str]:
    """The ``count`` numbers from ``numbers`` closest to ``wanted`` in document order."""
    return NumberIndex(numbers).nearest(wanted, count)


class XRefs(Record):
    """``cites`` and ``cited_by`` for every rule and glossary entry that has any."""

    _fields = ("cites", "cited_by", "dangling")
    cites: dict[str, list[str]]
    cited_by: dict[str, list[str]]
    dangling: list[DanglingReference]

    def __init__(
        self,
        cites: dict[str, list[str]] | None = None,
        cited_by: dict[str, list[str]] | None = None,
        dangling: list[DanglingReference] | None = None,
    ) -> None:
        self.cites = {} if cites is None else cites
        self.cited_by = {} if cited_by is None else cited_by
        self.dangling = [] if dangling is None else dangling
