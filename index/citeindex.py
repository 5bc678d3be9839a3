"""Which rule a few words describe: the word index behind ``cite-check``'s "suspicious" verdict.

Every rule of an edition, and every glossary entry that points to rules, is a bag of *features*:
its content words (stemmed), the adjacent pairs of them ("legend rule"), and the numbers it
names ("0 or less life"). A rule also has its ancestors' features ("Trample", "State-Based
Actions"). The words next to a citation are scored against a rule by *coverage*: the share of
their weight (inverse document frequency) that the rule has.

A citation is suspicious when another rule, not related to the one cited, covers the words much
better (see :meth:`ContextIndex.judge`). "Related" is generous on purpose: the cited rule, its
ancestors and descendants, and any rule or glossary entry that points to one of them ("also
called the legend rule (see rule 704.5j)").
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .numbers import parse_rule_number
from .textrefs import find_references

if TYPE_CHECKING:
    from .model import Document

__all__ = ["ContextIndex", "Suspicion", "content_words", "is_content_token"]

# A suspicious citation: the best unrelated rule must cover at least this share of the words,
_MIN_BEST = 0.5
# beat the cited rule (with all its subrules) by this much,
_MARGIN = 0.4
# and what it matches must weigh this much (a single common word says nothing).
_MIN_EVIDENCE = 6.0
# A citation whose rule has one of the context's rarest words this many is never suspicious.
_KEY_WORDS = 2
# Rules that cover nearly as much as the best are its equals, when choosing what to suggest.
_TIE = 0.05

_DIGIT_RE = re.compile(r"\d")
_RULE_NUMBER_RE = re.compile(
    r"\d{3}(?:\.\d+[a-z]{0,2})?(?:\s*[-\u2010-\u2014]\s*(?:\d+[a-z]{0,2}|[a-z]{1,2})\b)?"
)
# Words of two letters or more ("state-based", "can't"), mana symbols, "+1/+1", and numbers.
_TOKEN_RE = re.compile(
    r"\{[^{}\s]{1,6}\}|[+-]\d+/[+-]\d+|[a-z0-9]{2,}(?:['/-][a-z0-9]+)*|[a-z0-9](?:['/-][a-z0-9]+)+|\d"
)
_STOPWORD_TEXT = """a an the and or of to in on at by for with from as is are be been being was
    were it its it's this that these those if then than but not no so such which who whom whose
    what when where how can can't cannot may might must shall should will would do does did
    doesn't don't isn't aren't has have had see also says say said about into onto e g i etc
    you your you're we our they their they're he she his her him them one any each all some
    other there here just only even very most least like per via cf
    section sections cr comprehensive magic
    information details detail exception procedure process described defined explained
    following follows follow listed applies apply note"""
# Kept as words for pairs ("legend rule") but never counted alone: every citation says them.
_WEAK = frozenset({"rule", "rules"})
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
# Numbers mean something next to words ("0 or less life", "21 combat damage"); these do not.
_NUMBER_WORDS = frozenset({"0", "1", "2", "3", "10", "15", "20", "21", "ten", "fifteen"})


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """The Porter stem whoosh's search index uses ("controls" → "control", "loses" → "lose")."""
    if word.isdigit():
        return word
    with warnings.catch_warnings():  # whoosh 2.7.4 has invalid escapes (Python 3.12+)
        warnings.filterwarnings("ignore", message=r"invalid escape sequence")
        from whoosh.lang.porter import stem
    return str(stem(word.removesuffix("'s")))


def _tokens(text: str) -> list[str]:
    """Lower-case word tokens; rule numbers are not words ("704.5j", "rule 613" give none)."""
    lowered = _RULE_NUMBER_RE.sub(" ", text.lower())
    if "\u2019" in lowered:  # the only folding that matters to words: ’ → '
        lowered = lowered.replace("\u2019", "'")
    return _TOKEN_RE.findall(lowered)


def is_content_token(token: str) -> bool:
    """Checks if a lower-case token is a content word (not "the", "see", "704")."""
    return token not in _STOPWORDS and (not token.isdigit() or token in _NUMBER_WORDS)


_is_content = is_content_token


def content_words(text: str) -> list[str]:
    """The stemmed content words of ``text``, in order (stopwords and citations dropped)."""
    return [_stem(t) for t in _tokens(text) if _is_content(t)]


def _features(words: list[str]) -> set[str]:
    """The words (but "rule" alone) and the adjacent pairs of words."""
    found = {w for w in words if w not in _WEAK}
    found.update(f"{a} {b}" for a, b in itertools.pairwise(words) if a != b)
    return found


@dataclass(frozen=True)
class Suspicion:
    """Why a citation looks wrong: another rule fits its words far better."""

    best: str
    """The rule (or ``glossary:Term``) the words describe best."""
    suggest: str
    """The rule number to cite instead."""
    best_score: float
    """How much of the words ``best`` covers, 0 to 1."""
    cited_score: float
    """How much of them the cited rule, with its subrules, covers."""


class ContextIndex:
    """Scores how well a few words describe each rule of one edition (for ``suspicious``)."""

    def __init__(self, document: Document) -> None:
        self.document = document
        ids: list[str] = []
        own: list[frozenset[str]] = []
        points: list[frozenset[str]] = []
        surface: set[str] = set()
        inherited: dict[str, frozenset[str]] = {}
        mine_only: list[frozenset[str]] = []
        titles: dict[str, list[str]] = {}
        for number, rule in document.rules.items():
            if _is_title(rule.text):
                titles.setdefault(_title_key(rule.text), []).append(number)
            tokens = _tokens(rule.text)
            surface.update(tokens)
            mine = _features([_stem(t) for t in tokens if _is_content(t)])
            parent = parse_rule_number(number).parent()
            # A subrule is also about what its ancestors are about ("Trample"): rules come in
            # document order, so a parent's features are ready before its subrules need them.
            above = inherited.get(str(parent), frozenset()) if parent is not None else frozenset()
            inherited[number] = frozenset(mine) | above
            mine_only.append(frozenset(mine))
            ids.append(number)
            own.append(inherited[number])
            points.append(_pointed(document, rule.text, rule.examples))
        for entry in document.glossary:
            see = frozenset(n for n in entry.see if n in document.rules)
            if not see:
                continue  # nothing to suggest instead
            tokens = _tokens(f"{entry.term}. {entry.definition}")
            surface.update(tokens)
            ids.append(f"glossary:{entry.term}")
            own.append(frozenset(_features([_stem(t) for t in tokens if _is_content(t)])))
            mine_only.append(own[-1])
            points.append(see)
        self.titles = titles
        self.ids = ids
        self.features = own
        self.own_features = mine_only
        self.points = points
        self.position = {n: i for i, n in enumerate(ids)}
        self.vocabulary = frozenset(surface)
        postings: dict[str, list[int]] = {}
        for i, feats in enumerate(own):
            for f in feats:
                postings.setdefault(f, []).append(i)
        total = max(len(ids), 1)
        self.postings = postings
        self.idf = {f: math.log(total / len(ns)) + 0.1 for f, ns in postings.items()}
        pointed_by: dict[str, list[int]] = {}
        for i, targets in enumerate(points):
            for n in targets:
                pointed_by.setdefault(n, []).append(i)
        self.pointed_by = pointed_by
        self._families: dict[str, frozenset[str]] = {}
        self._own_families: dict[str, frozenset[str]] = {}
        self._related: dict[str, frozenset[int]] = {}

    def context_features(self, context: str) -> dict[str, float]:
        """The weighted features of the words next to a citation, ignoring words the edition
        never uses ("basics" is not "basic": the rules never say "basics")."""
        words = [_stem(t) for t in _tokens(context) if t in self.vocabulary and _is_content(t)]
        return {f: self.idf[f] for f in _features(words) if f in self.idf}

    def family(self, number: str) -> frozenset[str]:
        """The features of a rule with all its subrules (citing 702.19 for 702.19c is right)."""
        found = self._families.get(number)
        if found is None:
            feats: set[str] = set()
            for n in [number, *self.document.descendants(number)]:
                i = self.position.get(n)
                if i is not None:
                    feats |= self.features[i]
            found = self._families[number] = frozenset(feats)
        return found

    def own_family(self, number: str) -> frozenset[str]:
        """The features of a rule's own text and its subrules', without its ancestors'."""
        found = self._own_families.get(number)
        if found is None:
            feats: set[str] = set()
            for n in [number, *self.document.descendants(number)]:
                i = self.position.get(n)
                if i is not None:
                    feats |= self.own_features[i]
            found = self._own_families[number] = frozenset(feats)
        return found

    def related(self, number: str) -> frozenset[int]:
        """The entries that never make a citation of ``number`` suspicious: itself, its
        ancestors and descendants, and whatever points to one of them."""
        found = self._related.get(number)
        if found is None:
            kin = {number, *self.document.descendants(number)}
            node = parse_rule_number(number).parent()
            while node is not None:
                kin.add(str(node))
                node = node.parent()
            close = {self.position[n] for n in kin if n in self.position}
            for n in kin:
                for i in self.pointed_by.get(n, ()):
                    # "Within each sublayer, apply effects in timestamp order (see rule 613.7)"
                    # in 613.4 speaks for its subrules too, which inherit its words.
                    close.add(i)
                    close.update(self.position[d] for d in self.document.descendants(self.ids[i]))
            found = self._related[number] = frozenset(close)
        return found

    def coverage(self, features: dict[str, float], number: str) -> float:
        """How much of the weighted features rule ``number`` with its subrules has: 0 to 1."""
        mass = sum(features.values())
        if mass <= 0:
            return 0.0
        have = self.family(number)
        return sum(w for f, w in features.items() if f in have) / mass

    def judge(
        self,
        context: str,
        number: str,
        *,
        kind: str = "words",
        also: Iterable[str] = (),
        fallback: str = "",
    ) -> Suspicion | None:
        """A :class:`Suspicion` when the words describe another rule far better than rule
        ``number`` (which must exist), else ``None``.

        ``kind`` says how the words were found (:data:`index.citecontext.CONTEXT_KINDS`): a
        quoted ``title`` that is some rule's title is matched against titles alone. ``also``
        are the other rules cited with the same words ("See rules 403.3, 603.6a and 614.12"):
        the words may describe any of them. ``fallback`` (the sentences before) is used when the
        words themselves weigh too little.
        """
        close = self.related(number).union(*(self.related(n) for n in also))
        if kind == "title":
            named = self.titles.get(_title_key(context))
            if named:
                if any(self.position[n] in close for n in named):
                    return None
                return Suspicion(named[0], named[0], 1.0, 0.0)
        features = self.context_features(context)
        mass = sum(features.values())
        if mass < _MIN_EVIDENCE and fallback:
            features = self.context_features(fallback)
            mass = sum(features.values())
        if mass <= 0 or mass < _MIN_EVIDENCE:
            return None
        have = self.family(number)
        # The rarest words name what the text is about ("surveil" in "… whenever a player
        # surveils triggers after the process described in rule 701.42a"): if the cited rule
        # has one of them, the rest may be wording it shares with a parallel rule.
        # Its own words and its subrules' count here, not its ancestors': siblings share those.
        if any(f in self.own_family(number) for f in _rarest(features)):
            return None
        cited = sum(w for f, w in features.items() if f in have) / mass
        need = max(_MIN_BEST, cited + _MARGIN)
        if need > 1.0:
            return None
        # Only an entry with one of the rarest features can reach ``need``: the others could
        # at most have the remaining, commoner ones (the max-score bound of search engines).
        ranked = sorted(features.items(), key=lambda fw: -fw[1])
        rest, cut = mass, 0
        while cut < len(ranked) and rest >= need * mass:
            rest -= ranked[cut][1]
            cut += 1
        candidates: set[int] = set()
        for f, _ in ranked[:cut]:
            candidates.update(self.postings[f])
        candidates -= close
        scores: dict[int, float] = {}
        for i in candidates:
            have = self.features[i]
            hit = sum(w for f, w in features.items() if f in have)
            if hit >= need * mass and hit >= _MIN_EVIDENCE:
                scores[i] = hit / mass
        if not scores:
            return None
        top = max(scores.values())
        tied = [i for i, s in scores.items() if s >= top - _TIE]
        tied.sort(key=lambda i: (-scores[i], i))
        best = self._preferred(tied)
        return Suspicion(self.ids[best], self._suggestion(best), scores[best], cited)

    def _preferred(self, tied: list[int]) -> int:
        # "also called the legend rule (see rule 704.5j)": an entry that points to another of
        # the best matches is a mention of it, and the one it points to is what the words mean.
        numbers = {self.ids[i] for i in tied}
        pointing = {i for i in tied if self.points[i] & (numbers - {self.ids[i]})}
        preferred = [i for i in tied if i not in pointing] or tied
        # Rules before glossary entries, then in document order, among equal scores.
        return preferred[0]

    def _suggestion(self, best: int) -> str:
        number = self.ids[best]
        if not number.startswith("glossary:"):
            return number
        return min(self.points[best], key=lambda n: self.position.get(n, 0))


def _rarest(features: dict[str, float]) -> list[str]:
    """The :data:`_KEY_WORDS` weightiest single words, and any as weighty as the last of them
    (equal weights are equally rare: choosing among them would be arbitrary)."""
    words = sorted((f for f in features if " " not in f), key=lambda f: (-features[f], f))
    if len(words) <= _KEY_WORDS:
        return words
    floor = features[words[_KEY_WORDS - 1]]
    return [w for w in words if features[w] >= floor - 1e-9]


def _is_title(text: str) -> bool:
    """Checks if a rule's text is a title ("Trample", "State-Based Actions"), not a sentence."""
    return 0 < len(text) <= 60 and not text.rstrip().endswith((".", ":", "”", '"'))


def _title_key(text: str) -> str:
    return " ".join(_tokens(text))


def _pointed(document: Document, text: str, examples: list[str]) -> frozenset[str]:
    """The rule numbers a rule's text and examples cite (single numbers; ranges by their ends)."""
    found: set[str] = set()
    for part in (text, *examples):
        if not _DIGIT_RE.search(part):
            continue
        for ref in find_references(part):
            for n in (ref.ref.start, ref.ref.end):
                if n is not None and str(n) in document.rules:
                    found.add(str(n))
    return frozenset(found)
