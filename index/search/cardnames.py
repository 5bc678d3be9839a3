"""Card names inside a question: which words name a card, read the way judges write them.

"I control Platinum Angel and my opponent casts Lightning Bolt" names two cards; "is Fog a
good card" one; "the island is tapped" none. :func:`find_mentions` finds the longest names
(up to :data:`MAX_WORDS` words, with or without their punctuation: "Liliana Defiant
Necromancer", possessives and plurals: "Basri Ket's", "six Mountains") and keeps a span only
when the question shows that it means a card:

* it is quoted or bracketed ("Fog", [[Fog]], {Fog}), or
* one of its words is capitalised and does not begin a sentence ("Does Humility …", "… Blood
  Moon"), or it is one capitalised word that begins a sentence and that the rules never use
  ("Humility and Opalescence …"; "Regeneration …" begins a question about the rule), or
* it is a name of two words or more typed in lower case with a word the rules never use
  ("alpine moon", "urza's saga"): no rules phrase is made only of such words.

So a one-word name that is also an English or a rules word ("Fog", "Opt", "Island",
"Humility", "Flash") counts only capitalised mid-sentence or quoted, and a lower-case phrase of
rules words ("first strike", "dies") never. A capitalised word that is the start of one
legendary card's name before its comma ("Animar" for "Animar, Soul of Elements") names that
card, and so do two or three capitalised words that are ("Atla Palani" for "Atla Palani, Nest
Tender"), unless a player's verb follows them ("Abby casts …": judges' columns name players
so).

A capitalised word (or a run of them, "of" and "the" between them too) mid-sentence that
names no card, has a word the rules never use, and comes before no player's verb is looked up
as a misspelling last (:meth:`CardSource.misspelt`): "If I Liquefy a face-down creature" names
Liquify, "I Mindslavered my opponent" Mindslaver, as ``judge card`` would answer them, and
"cast Jace, Prodigy of Vryn" Jace, Vryn's Prodigy (its words in another order). A player's name
("Nicole", "Ashley") misspells no card closely enough, and a word that begins a card's name
("Delver", "Nathan") is not taken for a misspelling.

The card store is asked once per question for every span (:meth:`CardSource.names_among`),
an indexed look-up of a few hundred keys, never a scan of the names.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

from .words import QUESTION_WORDS, LazyPattern

if TYPE_CHECKING:
    from ..cards.mentions import CardFacts

__all__ = ["MAX_WORDS", "CardSource", "Mention", "blank_out", "find_mentions"]

MAX_WORDS = 8
"""The most words a name is looked for in ("Circle of Protection: Red" is four)."""


class CardSource(Protocol):
    """What reading names needs of a card store (:class:`index.cards.mentions.CardNames`)."""

    def names_among(self, keys: Collection[str]) -> dict[str, list[tuple[int, str]]]: ...

    def short_names(self, keys: Collection[str]) -> dict[str, list[int]]: ...

    def facts(self, card_id: int) -> CardFacts: ...

    def misspelt(self, typed: str) -> int | None: ...


class Mention(NamedTuple):
    """A card named in a question: where, as typed, and the card(s) it names."""

    start: int
    end: int
    """Where the name is in the text it was found in (with its quotes or brackets)."""
    typed: str
    cards: tuple[CardFacts, ...]
    """Usually one; several when the words name several cards (two "Mountain" printings)."""
    how: str
    """``quoted``, ``capitalised``, ``lower-case``, ``short`` (the start of a legend's name),
    ``again`` (a word of a name named before: "the Shackles") or ``misspelt`` ("Liquefy")."""


_WORD_RE = LazyPattern(r"[^\W_](?:[\w'-]*[^\W_])?")
_NAME_GAP_RE = LazyPattern(r"[ \t,:&-]*|[ \t]*//[ \t]*")
"""What may stand between two words of one name ("Urborg, Tomb of Yawgmoth", "Fire // Ice")."""
_INITIAL_GAP_RE = LazyPattern(r"\.[ \t]+")
"""After a single capital letter: an initial ("E. Honda, Sumo Champion")."""
_SENTENCE_END = frozenset(".?!;:\n")
_OPENING = frozenset('"[{(')
_CLOSING = frozenset('"]})')
_NOT_ALNUM_RE = LazyPattern(r"[\W_]+")
_ENDING_WORDS = QUESTION_WORDS | {"s", "t", "vs", "versus", "but", "nor", "each"}
"""A name does not end with one of these (a span "Platinum Angel and" is not looked up)."""
PLAYER_VERBS = frozenset(
    """casts cast controls activates plays chooses wants pays discards sacrifices says thinks
    asks declares draws responds passes concedes wins loses targets""".split()  # noqa: SIM905
)
"""Words after a short name that make it a player ("Abby casts Skullcrack"): what only
players do (a creature attacks and has abilities too)."""


def _loose(text: str) -> str:
    if text.isalnum():
        return text.casefold()
    return str(_NOT_ALNUM_RE.sub("", text.casefold()))


def _forms(word: str) -> list[str]:
    """The loose keys a name's last word may stand for: as typed, without a possessive or a
    plural ("Ket's" → "ket", "Mountains" → "mountain", "Murders" → "murder")."""
    out = [_loose(word)]
    lower = word.lower()
    if len(word) <= 3:
        return out
    if lower.endswith("'s"):
        out.append(_loose(word[:-2]))
    elif lower.endswith("s'"):
        out.append(_loose(word[:-1]))
    elif lower.endswith("s") and not lower.endswith("ss"):
        out.append(_loose(word[:-1]))
        if lower.endswith("es"):
            out.append(_loose(word[:-2]))
    return out


def _is_capitalised(word: str) -> bool:
    return word[0].isupper()


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


def _count_words(name: str) -> int:
    return sum(1 for _ in _WORD_RE.finditer(name))


class _Word(NamedTuple):
    start: int
    end: int
    text: str
    initial: bool
    """Begins a sentence (or the text)."""


def _words(text: str) -> list[_Word]:
    out: list[_Word] = []
    previous_end = 0
    for m in _WORD_RE.finditer(text):
        gap = text[previous_end : m.start()]
        before = gap.strip(" \t\"'[]{}()*")
        initial = not out or (bool(before) and before[-1] in _SENTENCE_END) or "\n" in gap
        if out and before == "." and len(out[-1].text) == 1 and out[-1].text.isupper():
            initial = False  # "E. Honda": an initial, not the end of a sentence
        out.append(_Word(m.start(), m.end(), m.group(), initial))
        previous_end = m.end()
    return out


def _joins(text: str, a: _Word, b: _Word) -> bool:
    """Checks if ``a`` and ``b`` may be words of one name."""
    gap = text[a.end : b.start]
    if _NAME_GAP_RE.fullmatch(gap):
        return True
    return len(a.text) == 1 and a.text.isupper() and bool(_INITIAL_GAP_RE.fullmatch(gap))


def _quoted(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The span with its enclosing quotes or brackets, if it fills them exactly."""
    a, b = start, end
    while a > 0 and b < len(text) and text[a - 1] in _OPENING and text[b] in _CLOSING:
        a, b = a - 1, b + 1
    return (a, b) if a < start else None


_Candidate = tuple[int, int, list[int], str, tuple[int, int]]
"""First word, past the last word, card ids, how, (start, end) in the text."""


def find_mentions(
    text: str, cards: CardSource, is_rules_word: Callable[[str], bool]
) -> list[Mention]:
    """The cards ``text`` names, left to right, none overlapping (see the module).

    ``is_rules_word``: whether the rules use a (lower-case) word, for names typed in lower case.
    """
    words = _words(text)
    if not words:
        return []
    n = len(words)
    loose = [_loose(w.text) for w in words]
    forms = [_forms(w.text) for w in words]
    capital = [_is_capitalised(w.text) and not w.initial for w in words]
    joins = [_joins(text, words[k], words[k + 1]) for k in range(n - 1)]
    plain: dict[int, bool] = {}

    def ordinary(k: int) -> bool:
        # A word the rules use (or a question word): a lower-case name needs another kind.
        if k not in plain:
            # "what's", "can't": the letters after an apostrophe are no word of their own
            parts = [p for p in _NOT_ALNUM_RE.split(words[k].text.lower()) if len(p) > 2]
            plain[k] = all(p in QUESTION_WORDS or is_rules_word(p) for p in parts)
        return plain[k]

    # Every span that could be a name the question shows it means, with its keys.
    spans: dict[tuple[int, int], tuple[str, list[str]]] = {}
    for i in range(n):
        head = ""
        capitalised = unusual = False
        opens = words[i].start > 0 and text[words[i].start - 1] in _OPENING
        for j in range(i + 1, min(n, i + MAX_WORDS) + 1):
            if j - 1 > i and not joins[j - 2]:
                break
            k = j - 1
            last = words[k].text.lower()
            keys = [head + form for form in forms[k]]
            head += loose[k]
            capitalised = capitalised or capital[k]
            if j - i == 1:
                base = last.removesuffix("'s")
                if base in QUESTION_WORDS or len(base) < 2 or base.isdecimal():
                    continue
            elif last in _ENDING_WORDS:
                continue
            if opens and _quoted(text, words[i].start, words[k].end) is not None:
                how = "quoted"
            elif capitalised:
                how = "capitalised"
            elif j - i == 1 and words[i].initial and words[i].text[0].isupper() and not ordinary(i):
                how = "capitalised"  # "Humility and Opalescence": no rules word begins so
            elif j - i > 1 and (unusual or not all(ordinary(m) for m in range(i, j))):
                unusual = True
                how = "lower-case"
            else:
                continue
            spans[(i, j)] = (how, keys)
    if not spans:
        return []
    found = cards.names_among({key for _how, keys in spans.values() for key in keys})
    candidates: list[_Candidate] = []
    for (i, j), (how, keys) in spans.items():
        for key in keys:
            # The same words, not words run together ("a way" is not "Away").
            ids = [card for card, name in found.get(key, ()) if _count_words(name) == j - i]
            if ids:
                place = _quoted(text, words[i].start, words[j - 1].end)
                candidates.append((i, j, ids, how, place or (words[i].start, words[j - 1].end)))
                break
    # The longest names first, then left to right; a word belongs to one name at most.
    candidates.sort(key=lambda c: (-(c[1] - c[0]), c[0]))
    taken: set[int] = set()
    chosen: list[_Candidate] = []
    for c in candidates:
        if taken.isdisjoint(range(c[0], c[1])):
            taken.update(range(c[0], c[1]))
            chosen.append(c)
    chosen.sort(key=lambda c: c[0])
    chosen = _back_references(words, chosen, capital, taken)
    short = _short_names(words, taken, capital, cards, joins)
    taken.update(k for c in short for k in range(c[0], c[1]))
    chosen += short
    chosen += _misspellings(text, words, taken, capital, joins, ordinary, cards)
    chosen.sort(key=lambda c: c[0])
    return [
        Mention(a, b, text[a:b], tuple(cards.facts(card) for card in ids), how)
        for _i, _j, ids, how, (a, b) in chosen
    ]


def _back_references(
    words: list[_Word], chosen: list[_Candidate], capital: list[bool], taken: set[int]
) -> list[_Candidate]:
    """``chosen`` with a capitalised word that repeats a word of a longer name named before
    it taken for that card ("Vedalken Shackles … the Shackles", "Platinum Angel … the Angel")."""
    named: dict[str, list[int]] = {}
    out: list[_Candidate] = []
    by_word = {c[0]: c for c in chosen if c[1] - c[0] == 1}
    longer = [c for c in chosen if c[1] - c[0] > 1]
    for k, w in enumerate(words):
        for c in longer:
            if c[1] == k:
                for m in range(c[0], c[1]):
                    named.setdefault(_fold(words[m].text.removesuffix("'s")), c[2])
        key = _fold(w.text.removesuffix("'s"))
        earlier = named.get(key) if capital[k] and len(key) > 2 else None
        if k in by_word:
            c = by_word[k]
            out.append(c if earlier is None else (c[0], c[1], earlier, "again", c[4]))
        elif earlier is not None and k not in taken and key not in QUESTION_WORDS:
            taken.add(k)
            out.append((k, k + 1, earlier, "again", (w.start, w.end)))
    return longer + out


def _runs(
    words: list[_Word], joins: list[bool], fits: Callable[[int], bool], most: int
) -> list[list[int]]:
    """The runs of words that ``fits``, each joined to the next as one name may be, of at most
    ``most`` words; a possessive ends a run ("Nicole's Atla")."""
    runs: list[list[int]] = []
    ended = True
    for k, w in enumerate(words):
        if not fits(k):
            ended = True
            continue
        if not ended and joins[k - 1] and len(runs[-1]) < most:
            runs[-1].append(k)
        else:
            runs.append([k])
        ended = w.text.lower().endswith("'s")
    return runs


def _short_names(
    words: list[_Word],
    taken: set[int],
    capital: list[bool],
    cards: CardSource,
    joins: list[bool],
) -> list[_Candidate]:
    """Capitalised words, not in a name already, that are the part of one legendary card's
    name before its comma: one word ("Animar") or up to :data:`SHORT_WORDS` ("Atla Palani"
    for Atla Palani, Nest Tender), the longest first."""
    keys: dict[tuple[int, int], str] = {}
    free = _runs(words, joins, lambda k: capital[k] and k not in taken, len(words))
    for run in free:
        for at, i in enumerate(run):
            w = words[i]
            if len(w.text) < 3 or w.text.isupper() or w.text.lower() in QUESTION_WORDS:
                continue
            for j in range(i + 1, i + 1 + min(SHORT_WORDS, len(run) - at)):
                if j < len(words) and words[j].text.lower() in PLAYER_VERBS:
                    continue
                typed = " ".join(x.text for x in words[i:j])
                keys[(i, j)] = _fold(typed.removesuffix("'s"))
    if not keys:
        return []
    found = cards.short_names(set(keys.values()))
    out: list[_Candidate] = []
    used: set[int] = set()
    for (i, j), key in sorted(keys.items(), key=lambda kv: (kv[0][0] - kv[0][1], kv[0][0])):
        ids = found.get(key)
        if ids is not None and len(ids) == 1 and used.isdisjoint(range(i, j)):
            used.update(range(i, j))
            out.append((i, j, ids, "short", (words[i].start, words[j - 1].end)))
    return out


SHORT_WORDS = 3
"""The most words of a legend's name before its comma read as the card ("Atla Palani")."""

MISSPELT_LENGTH = 5
"""The fewest letters a misspelt name is looked for in (shorter words are close to too many
names: "Amy", "Nate")."""


def _misspellings(
    text: str,
    words: list[_Word],
    taken: set[int],
    capital: list[bool],
    joins: list[bool],
    ordinary: Callable[[int], bool],
    cards: CardSource,
) -> list[_Candidate]:
    """Runs of capitalised words, in no name already, with a word the rules never use, that
    clearly misspell one card's name (see the module). A possessive ends a run ("Nicole's
    Platnum Angel"); "of" and "the" between capitalised words are in it ("Jace, Prodigy of
    Vryn" for Jace, Vryn's Prodigy), and when such a run names no card, its capitalised
    stretches are looked up alone ("Liquefy the Wolf": Liquefy)."""

    def fits(k: int) -> bool:
        w = words[k].text
        return (
            capital[k]
            and k not in taken
            and not w.isupper()
            and w.lower().removesuffix("'s") not in QUESTION_WORDS
        )

    def fits_or_joins(k: int) -> bool:
        # "of" and "the" inside a run: after a capitalised word, before another (or "the").
        if fits(k):
            return True
        if words[k].text not in _NAME_JOINERS or not 0 < k < len(words) - 1:
            return False
        after = k + 1 if words[k + 1].text not in _NAME_JOINERS else k + 2
        return (fits(k - 1) or words[k - 1].text in _NAME_JOINERS) and (
            after < len(words) and fits(after)
        )

    out: list[_Candidate] = []
    for joined in _runs(words, joins, fits_or_joins, MAX_WORDS):
        parts = _split_at_joiners(words, joined)
        runs = [joined, *parts] if len(parts) > 1 else [joined]  # parts: when it names no card
        for run in runs:
            card = _misspelt_run(text, words, run, ordinary, cards)
            if card is not None:
                taken.update(run)
                start, end = words[run[0]].start, words[run[-1]].end
                out.append((run[0], run[-1] + 1, [card], "misspelt", (start, end)))
                if run is joined:
                    break
    return out


_NAME_JOINERS = frozenset({"of", "the"})
"""Lower-case words inside a card's name ("Liliana of the Veil") that a misspelt name's run of
capitalised words goes on through."""


def _split_at_joiners(words: list[_Word], run: list[int]) -> list[list[int]]:
    """The parts of ``run`` between its words "of" and "the"."""
    parts: list[list[int]] = [[]]
    for k in run:
        if words[k].text in _NAME_JOINERS:
            parts.append([])
        else:
            parts[-1].append(k)
    return [part for part in parts if part]


def _misspelt_run(
    text: str,
    words: list[_Word],
    run: list[int],
    ordinary: Callable[[int], bool],
    cards: CardSource,
) -> int | None:
    """The card a run of words clearly misspells; None when it is only rules words, comes
    before a player's verb, is too short, or misspells no card clearly."""
    if all(ordinary(k) for k in run):
        return None
    first, last = run[0], run[-1]
    if last + 1 < len(words) and words[last + 1].text.lower() in PLAYER_VERBS:
        return None
    typed = text[words[first].start : words[last].end]
    typed = typed[:-2] if typed.lower().endswith("'s") else typed
    if sum(c.isalnum() for c in typed) < MISSPELT_LENGTH:
        return None
    return cards.misspelt(typed)


def blank_out(text: str, mentions: Sequence[Mention]) -> str:
    """``text`` with each mention replaced by spaces (the rest where it was)."""
    if not mentions:
        return text
    parts: list[str] = []
    done = 0
    for m in mentions:
        parts.append(text[done : m.start])
        parts.append(" " * (m.end - m.start))
        done = m.end
    parts.append(text[done:])
    return "".join(parts)
