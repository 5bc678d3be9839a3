"""The rules of a CR edition that a card's keywords name, found in the edition itself.

A keyword ability or keyword action has a rule titled by it under the rule titled "Keyword
Abilities" or "Keyword Actions" (702 and 701 since 2009, 502 and 501 before): "Indestructible"
is 702.12 in the editions of 2025 and 2026. A whole rule that its definition (the rule's first
subrule) refers to comes with it ("Transform" → 701.27 and 712, "Double-Faced Cards"). A keyword
without a rule of its own is looked up in the glossary ("Plainscycling: See Typecycling" →
702.29), then as the start of a longer one ("Partner with" → Partner), then in the rule that
lists the ability words (which the glossary's "Ability Word" names: 207.2c).

Only the rule families needed are read (:meth:`index.store.EditionStore.read_families`); the
glossary, which lives in the whole edition's file, only when a keyword is not found otherwise.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from glossary.fold import normalise_term

if TYPE_CHECKING:
    from ..store import EditionStore

__all__ = ["KeywordFinder", "KeywordRules", "find_keyword_rules"]

# Where the keyword rules have lived: checked by their titles, never trusted blindly.
_FAMILIES = ("501", "502", "701", "702")
_FAMILY_TITLES = ("keyword actions", "keyword abilities")
_SEE_RE = re.compile(r"^See (.+?)\.?$")


class KeywordRules:
    """What :func:`find_keyword_rules` found in one edition."""

    def __init__(
        self,
        edition: str,
        by_keyword: dict[str, list[str]] | None = None,
        titles: dict[str, str] | None = None,
    ) -> None:
        self.edition = edition
        self.by_keyword = by_keyword or {}
        """Each keyword asked about → the rule numbers found for it (``[]`` when none)."""
        self.titles = titles or {}
        """Each rule number found → its title, or its text for a subrule."""

    def __repr__(self) -> str:
        return f"KeywordRules({self.edition!r}, {self.by_keyword!r}, {self.titles!r})"

    def numbers(self) -> list[str]:
        """Every rule found, each once, in the order of the keywords."""
        seen: dict[str, None] = {}
        for numbers in self.by_keyword.values():
            for number in numbers:
                seen.setdefault(number, None)
        return list(seen)


class _Finder:
    def __init__(self, store: EditionStore, edition: str | None) -> None:
        self.store = store
        self.edition = store.resolve(edition)
        self.texts: dict[str, str] = {}
        self.cites: dict[str, list[str]] = {}
        self.read: set[str] = set()
        self.by_title: dict[str, str] = {}
        self.glossary: dict[str, tuple[str, list[str]]] | None = None
        for head in _FAMILIES:
            self._read(head)
            if self.texts.get(head, "").casefold() not in _FAMILY_TITLES:
                continue
            for number, text in self.texts.items():
                first, _, tail = number.partition(".")
                if first != head or not tail.isdigit():
                    continue
                title = text.strip()
                if not title or title.endswith(".") or len(title) > 60:
                    continue  # 702.1 is prose ("Most abilities describe …"), not a keyword's rule
                key = normalise_term(title)
                self.by_title.setdefault(key, number)
                # "Daybound and Nightbound", "Tap and Untap": each keyword of the pair.
                for part in key.split(" and "):
                    self.by_title.setdefault(part.strip(), number)

    def _read(self, head: str) -> None:
        """Reads one three-digit rule's family, once."""
        if head in self.read:
            return
        self.read.add(head)
        family = self.store.read_families(self.edition, [head], missing_ok=True)
        for number, text, *_ in family.rules:
            self.texts.setdefault(number, text)
        for number, cites in family.cites.items():
            self.cites.setdefault(number, cites)

    def _glossary(self) -> dict[str, tuple[str, list[str]]]:
        if self.glossary is None:
            self.glossary = {}
            for term, definition, _line, see in self.store.read_glossary(self.edition):
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
        for number in self._from_glossary("ability word"):
            self._read(number.split(".")[0])
            text = normalise_term(self.texts.get(number, ""))
            if re.search(rf"\b{re.escape(key)}\b", text):
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
        """A rule's title (its text, for a subrule), reading its family if need be."""
        self._read(number.split(".")[0])
        return self.texts.get(number, "")


class KeywordFinder:
    """Finds the rules keywords name in one edition, again and again (a server keeps one).

    The edition's keyword rules are read once, the rest as keywords need them; answers are
    remembered. Safe to share between threads (one lookup at a time: each takes microseconds
    once the families it needs are read).
    """

    def __init__(self, store: EditionStore, edition: str | None) -> None:
        self._finder = _Finder(store, edition)
        self.edition = self._finder.edition
        """The edition's date."""
        self._found: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def rules(self, keywords: Sequence[str]) -> KeywordRules:
        """The rules ``keywords`` name (see :func:`find_keyword_rules`)."""
        result = KeywordRules(self.edition)
        with self._lock:
            for keyword in keywords:
                if keyword not in result.by_keyword:
                    if keyword not in self._found:
                        self._found[keyword] = self._finder.find(keyword)
                    result.by_keyword[keyword] = list(self._found[keyword])
            result.titles = {n: self._finder.title(n) for n in result.numbers()}
        return result


def find_keyword_rules(
    store: EditionStore, edition: str | None, keywords: Sequence[str]
) -> KeywordRules:
    """The rules of ``edition`` (default: the newest stored) that ``keywords`` name.

    Raises :class:`~index.store.NoEditionError` when the edition is not stored.
    """
    return KeywordFinder(store, edition).rules(keywords)
