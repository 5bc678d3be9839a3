"""The rules of a CR edition that a card's keywords name, found in the edition itself.

A keyword ability or keyword action has a rule titled by it under the rule titled "Keyword
Abilities" or "Keyword Actions" (702 and 701 since 2009, 502 and 501 before): "Indestructible"
is 702.12 in the editions of 2025 and 2026. A whole rule that its definition (the rule's first
subrule) refers to comes with it ("Transform" → 701.27 and 712, "Double-Faced Cards"). A keyword
without a rule of its own is looked up in the glossary ("Plainscycling: See Typecycling" →
702.29), then as the start of a longer one ("Partner with" → Partner), then in the rule that
lists the ability words (which the glossary's "Ability Word" names: 207.2c).

Only the rule families needed are read (:meth:`index.store.EditionStore.load_rules`); the
glossary, which lives in the whole edition's file, only when a keyword is not found otherwise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from glossary.fold import normalise_term

if TYPE_CHECKING:
    from ..store import EditionStore, StoredEdition

__all__ = ["KeywordRules", "find_keyword_rules"]

# Where the keyword rules have lived: checked by their titles, never trusted blindly.
_FAMILIES = ("501", "502", "701", "702")
_FAMILY_TITLES = ("keyword actions", "keyword abilities")
_SEE_RE = re.compile(r"^See (.+?)\.?$")


@dataclass
class KeywordRules:
    """What :func:`find_keyword_rules` found in one edition."""

    edition: str
    by_keyword: dict[str, list[str]] = field(default_factory=dict)
    """Each keyword asked about → the rule numbers found for it (``[]`` when none)."""
    titles: dict[str, str] = field(default_factory=dict)
    """Each rule number found → its title, or its text for a subrule."""

    def numbers(self) -> list[str]:
        """Every rule found, each once, in the order of the keywords."""
        seen: dict[str, None] = {}
        for numbers in self.by_keyword.values():
            for number in numbers:
                seen.setdefault(number, None)
        return list(seen)


def _family_spans(numbers: Sequence[str]) -> list[tuple[str, str | None]]:
    return [(n, None) for n in numbers]


class _Finder:
    def __init__(self, store: EditionStore, edition: str | None) -> None:
        self.store = store
        self.loaded: StoredEdition = store.load_rules(edition, _family_spans(_FAMILIES))
        self.edition = self.loaded.document.edition or ""
        self.rules = dict(self.loaded.document.rules)
        self.cites = dict(self.loaded.cites)
        self.by_title: dict[str, str] = {}
        self.glossary: dict[str, tuple[str, list[str]]] | None = None
        families = [
            n
            for n in _FAMILIES
            if self.rules.get(n) and self.rules[n].text.casefold() in _FAMILY_TITLES
        ]
        for number, rule in self.rules.items():
            head, _, tail = number.partition(".")
            if head not in families or not tail.isdigit():
                continue
            title = rule.text.strip()
            if not title or title.endswith(".") or len(title) > 60:
                continue  # 702.1 is prose ("Most abilities describe …"), not a keyword's rule
            key = normalise_term(title)
            self.by_title.setdefault(key, number)
            # "Daybound and Nightbound", "Tap and Untap": each keyword of the pair.
            for part in key.split(" and "):
                self.by_title.setdefault(part.strip(), number)

    def _load(self, numbers: list[str]) -> None:
        """Reads the families of ``numbers`` that are not read yet."""
        missing = sorted({n.split(".")[0] for n in numbers if n not in self.rules})
        if not missing:
            return
        more = self.store.load_rules(self.edition, _family_spans(missing))
        for number, rule in more.document.rules.items():
            self.rules.setdefault(number, rule)
        for number, cites in more.cites.items():
            self.cites.setdefault(number, cites)

    def _glossary(self) -> dict[str, tuple[str, list[str]]]:
        if self.glossary is None:
            self.glossary = {}
            path = self.loaded.path / "edition.json"
            rows: list[Any] = json.loads(path.read_text(encoding="utf-8"))["glossary"]
            for term, definition, _line, see in rows:
                self.glossary.setdefault(normalise_term(term), (definition, list(see)))
        return self.glossary

    def _from_glossary(self, key: str, depth: int = 0) -> list[str]:
        entry = self._glossary().get(key)
        if entry is None:
            return []
        definition, see = entry
        if see:
            return see
        m = _SEE_RE.match(definition.strip())
        if m and depth < 2:
            # "Plainscycling: See Typecycling." — follow the pointer to the entry it names.
            target = normalise_term(m.group(1).split(",")[0])
            if target in self.by_title:
                return [self.by_title[target]]
            return self._from_glossary(target, depth + 1)
        return []

    def _ability_word(self, key: str) -> list[str]:
        numbers = self._from_glossary("ability word")
        self._load(numbers)
        for number in numbers:
            rule = self.rules.get(number)
            if rule is not None and re.search(rf"\b{re.escape(key)}\b", normalise_term(rule.text)):
                return [number]
        return []

    def find(self, keyword: str) -> list[str]:
        key = normalise_term(keyword)
        number = self.by_title.get(key)
        if number is not None:
            # The whole rules its definition refers to: 701.27a "(See rule 712, …)".
            extra = [c for c in self.cites.get(number + "a", []) if "." not in c]
            return [number, *extra]
        found = self._from_glossary(key)
        if found:
            return found
        words = key.split()
        for size in range(len(words) - 1, 0, -1):
            number = self.by_title.get(" ".join(words[:size]))
            if number is not None:
                return [number]  # "Partner with" → Partner
        return self._ability_word(key)

    def title(self, number: str) -> str:
        rule = self.rules.get(number)
        return rule.text if rule is not None else ""


def find_keyword_rules(
    store: EditionStore, edition: str | None, keywords: Sequence[str]
) -> KeywordRules:
    """The rules of ``edition`` (default: the newest stored) that ``keywords`` name.

    Raises :class:`~index.store.NoEditionError` when the edition is not stored.
    """
    finder = _Finder(store, edition)
    result = KeywordRules(finder.edition)
    for keyword in keywords:
        if keyword not in result.by_keyword:
            result.by_keyword[keyword] = finder.find(keyword)
    numbers = result.numbers()
    finder._load(numbers)
    result.titles = {n: finder.title(n) for n in numbers}
    return result
