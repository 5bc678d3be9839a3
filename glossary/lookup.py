"""Finding a glossary entry the way a player types its term: any case, plural, misspelt."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .entry import GlossaryEntry, fold_text, normalise_term

__all__ = ["Glossary", "Match", "UnknownTermError"]


class UnknownTermError(LookupError):
    """Raised when no glossary entry matches a term; carries the closest terms."""

    def __init__(self, term: str, suggestions: list[str], edition: str | None = None) -> None:
        self.term = term
        self.suggestions = suggestions
        self.edition = edition
        """The edition looked in (``sample`` for the bundled sample), when the caller knows it."""
        super().__init__(f"no glossary entry for {term!r}")


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _loose(key: str) -> str:
    """The key with every word made singular ("lethal damages" → "lethal damage")."""
    return " ".join(_singular(w) for w in key.split())


class Match:
    """A glossary entry found for a query, and how it was found."""

    def __init__(self, entry: GlossaryEntry, how: str, query: str) -> None:
        self.entry = entry
        self.how = how
        """``exact``, ``alias``, ``plural``, ``quoted`` (defined in another entry) or ``fuzzy``."""
        self.query = query

    def __repr__(self) -> str:
        return f"Match({self.entry.term!r}, how={self.how!r})"


def _aliases(key: str) -> list[str]:
    """An entry's keys (see :meth:`Glossary.aliases`) from its normalised term."""
    parts = [p.strip() for p in re.split(r",|/", key) if p.strip()]
    keys = [key, *parts] if len(parts) > 1 else [key]
    for k in list(keys):
        name, _, last = k.rpartition(" ")
        if last in ("variant", "option") and name:
            keys.append(name)
    return keys + [k.replace("-", " ") for k in keys if "-" in k]


_QUOTED_RE = re.compile(r'"([^"]{3,60})"')


class Glossary:
    """Glossary entries indexed by normalised term, alias and singular form."""

    def __init__(self, entries: Iterable[GlossaryEntry]) -> None:
        self.entries = list(entries)
        self._keys = [entry.key for entry in self.entries]
        self.by_key: dict[str, GlossaryEntry] = {}
        for key, entry in zip(self._keys, self.entries, strict=True):
            self.by_key.setdefault(key, entry)
        self._by_alias: dict[str, GlossaryEntry] | None = None

    @property
    def by_alias(self) -> dict[str, GlossaryEntry]:
        """Every alias and its singular form (built on the first look-up that needs it)."""
        if self._by_alias is None:
            by_alias: dict[str, GlossaryEntry] = {}  # filled aside: threads may share a glossary
            for key, entry in zip(self._keys, self.entries, strict=True):
                for alias in _aliases(key):
                    by_alias.setdefault(alias, entry)
                    by_alias.setdefault(_loose(alias), entry)
            self._by_alias = by_alias
        return self._by_alias

    @staticmethod
    def aliases(entry: GlossaryEntry) -> list[str]:
        """Other keys for an entry: "Life, Life Total" → "life" and "life total"; "You/Your";
        "Two-Headed Giant Variant" → "two-headed giant" (a variant or option by its name alone);
        and each of them with its hyphens as spaces ("first strike" for "first-strike")."""
        return _aliases(entry.key)

    def find(self, term: str) -> Match | None:
        """The entry for ``term`` (exact, alias, plural, or quoted in a definition), or ``None``."""
        key = normalise_term(term)
        if not key:
            return None
        if key in self.by_key:
            return Match(self.by_key[key], "exact", term)
        if "-" in key and key.replace("-", " ") in self.by_alias:
            key = key.replace("-", " ")  # "first-strike": hyphens and spaces alike
        if key in self.by_alias:
            return Match(self.by_alias[key], "alias", term)
        if _loose(key) in self.by_alias:
            return Match(self.by_alias[_loose(key)], "plural", term)
        # Some terms are defined inside another entry: 'This "legend rule" is a state-based effect.'
        for entry in self.entries:
            for quoted in _QUOTED_RE.findall(fold_text(entry.definition)):
                if _loose(normalise_term(quoted)) == _loose(key):
                    return Match(entry, "quoted", term)
        return None

    def suggest(self, term: str, count: int = 5) -> list[str]:
        """The terms closest in spelling to ``term``."""
        import difflib  # only for a term not found (a look-up that finds it starts faster)

        key = normalise_term(term)
        keys = list(self.by_alias)
        close = difflib.get_close_matches(key, keys, n=count * 2, cutoff=0.75)
        if not close:
            close = difflib.get_close_matches(_loose(key), keys, n=count * 2, cutoff=0.75)
        terms: list[str] = []
        for k in close:
            t = self.by_alias[k].term
            if t not in terms:
                terms.append(t)
        return terms[:count]

    def get(self, term: str) -> Match:
        """The entry for ``term``, falling back to a single close spelling; else raises.

        A unique, very close misspelling ("deathtuch") is answered with ``how="fuzzy"``;
        otherwise :class:`UnknownTermError` carries the suggestions.
        """
        match = self.find(term)
        if match is not None:
            return match
        import difflib

        suggestions = self.suggest(term)
        key = normalise_term(term)
        if suggestions:
            best = self.find(suggestions[0])
            ratio = difflib.SequenceMatcher(None, key, normalise_term(suggestions[0])).ratio()
            second = (
                difflib.SequenceMatcher(None, key, normalise_term(suggestions[1])).ratio()
                if len(suggestions) > 1
                else 0.0
            )
            if best is not None and ratio >= 0.85 and ratio - second >= 0.05:
                return Match(best.entry, "fuzzy", term)
        raise UnknownTermError(term, suggestions)
