"""What a card named in a question does, in the rules' words: the signals search adds for it.

A judge asks "does Platinum Angel stop Lich's Mastery?"; the rule that answers (101.2, "the
“can't” effect takes precedence") names neither card. What the cards *do* does lead there:
:func:`card_signals` reads a card's keywords, its types and layout, the symbols in its mana
cost, and the abilities in its Oracle text, and gives each as rules' wording, through tables:

* a keyword as itself ("Persist" → the rule titled Persist);
* :data:`TYPE_SIGNALS` and :data:`LAYOUT_SIGNALS`: an Aura, an Equipment, a Saga, a
  planeswalker, a legend, a split or double-faced card …;
* :data:`MANA_SIGNALS`: {X}, {C}, hybrid and Phyrexian symbols in its cost;
* :data:`ORACLE_SIGNALS`: patterns of Oracle text ("can't be countered", "gain control",
  "phases out", "instead", "for as long as" …), each with the rules' words for it and a family
  tag;
* :data:`PAIR_SIGNALS`: when two cards named carry the same family (two replacement effects,
  two triggers, two layered effects), the rule about such effects together.

Each signal is whoosh query text, as :data:`index.search.words.SHORTHAND` writes it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from .words import LazyPattern

if TYPE_CHECKING:
    from ..cards.mentions import CardFacts

__all__ = [
    "LAYOUT_SIGNALS",
    "MANA_SIGNALS",
    "ORACLE_SIGNALS",
    "PAIR_SIGNALS",
    "TYPE_SIGNALS",
    "Signal",
    "card_signals",
    "signals_of",
]

MAX_KEYWORDS = 6
"""Keywords of one card used at most (a card with a dozen says little about any)."""

TYPE_SIGNALS: dict[str, str] = {
    "aura": "Aura OR enchant",
    "equipment": "Equipment OR equipped",
    "fortification": "Fortification",
    "vehicle": "Vehicle OR crew",
    "saga": 'Saga OR "lore counters"',
    "class": '"class level"',
    "room": "Room OR unlock",
    "case": "Case OR solved",
    "role": "Role",
    "background": "Background",
    "planeswalker": "planeswalker OR loyalty",
    "battle": "battle OR defense",
    "legendary": 'legendary OR "legend rule"',
    "kindred": "kindred OR tribal",
    "tribal": "kindred OR tribal",
    "world": '"world rule"',
    "siege": "Siege OR protector",
}
"""Subtypes, supertypes and card types (lower case) that say something about the rules."""

LAYOUT_SIGNALS: dict[str, str] = {
    "split": '"split card"',
    "aftermath": "aftermath",
    "flip": '"flip card" OR flipped',
    "transform": '"double-faced" OR transform',
    "modal_dfc": '"modal double-faced"',
    "meld": "meld",
    "adventure": "adventure OR adventurer",
    "leveler": '"level up"',
    "prototype": "prototype",
    "mutate": "mutate OR merged",
}
"""MTGJSON layouts and the rules about such cards."""

MANA_SIGNALS: tuple[tuple[str, str], ...] = (
    (r"\{X\}", 'X OR "value of X"'),
    (r"\{C\}", '"colorless mana symbol"'),
    (r"\{[WUBRG2]/[WUBRG]\}", "hybrid"),
    (r"\{[WUBRGC](?:/[WUBRG])?/P\}", "Phyrexian"),
    (r"\{S\}", '"snow mana"'),
)
"""Symbols of a mana cost and what the rules call them."""

ORACLE_SIGNALS: tuple[tuple[str, str, str], ...] = (
    # (pattern, rules' words, family); patterns read the Oracle text, case ignored
    ("can't be countered", '"can\'t be countered"', "stack"),
    (
        r"\bcounter target\b|\bcounter (?:it|that spell|that ability)\b",
        "counter OR countered",
        "stack",
    ),
    (
        r"\bbecomes? a copy\b|\bas a copy\b|\bcopy of (?!target)",
        'copy OR "copiable values"',
        "layer",
    ),
    (
        r"\bcopy (?:target|that|it)\b[^.]*\b(?:spell|ability)\b",
        '"copy of a spell" OR "new targets"',
        "stack",
    ),
    (r"\bphases? (?:out|in)\b", 'phasing OR "phases out"', "static"),
    (
        r"\bgains? control\b|\byou control enchanted\b|\bexchange control\b",
        '"control-changing" OR "gain control"',
        "layer",
    ),
    ("can't be prevented", '"can\'t be prevented" OR unpreventable', "replacement"),
    (r"\bprevent\b", '"prevention effect" OR prevent', "replacement"),
    (r"\binstead\b", '"replacement effect" OR instead', "replacement"),
    (r"\bskip\b", "skip", "replacement"),
    (
        r"\benters with\b|\bas (?:it|this \w+) enters\b|\benters as\b",
        '"enters with" OR "replacement effect"',
        "replacement",
    ),
    (r"\benters tapped\b", '"enters tapped"', "replacement"),
    (r"\bextra turn\b", '"extra turn"', "turn"),
    (
        r"\bcan't lose the game\b|\bcan't win the game\b",
        '"can\'t lose" OR "takes precedence"',
        "static",
    ),
    (r"\bwins? the game\b", '"wins the game"', "game"),
    (r"\bloses? the game\b", '"loses the game"', "game"),
    (r"\bfor as long as\b", '"for as long as" OR duration', "duration"),
    (
        r"\bcosts? (?:\{[^}]+\})+ less\b|\bless to (?:cast|activate)\b",
        '"cost reduction" OR "reduce the cost"',
        "cost",
    ),
    (
        r"\bcosts? (?:\{[^}]+\})+ more\b|\bmore to (?:cast|activate)\b",
        '"increase the cost" OR "increase or reduce"',
        "cost",
    ),
    # An effect that forbids casting (Ixalan's Binding): 601.3, 601.3a. Real r087 8th -> 3rd
    # (judge+cards+sem; T 0.696 / 0.561 -> 0.717 / 0.565), H unchanged, ours 0.879 / 0.752 ->
    # 0.879 / 0.753 (2026-12-03).
    (r"\bcan't cast\b", '"begin to cast" OR prohibits', "cast"),
    (r"\bas an additional cost\b", '"additional cost"', "cost"),
    (r"\bwithout paying (?:its|their) mana costs?\b", '"without paying its mana cost"', "cost"),
    (r"\bcreates? [^.]*\btokens?\b", "token", "token"),
    (r"\+1/\+1 counters?\b", '"+1/+1 counter"', "counter"),
    (r"-1/-1 counters?\b", '"-1/-1 counter"', "counter"),
    # "lose all land types and abilities" (Alpine Moon) too, and "land types" below: real
    # r070 out of the first 10 -> 3rd (judge+cards+sem), nothing else moved, ours unchanged
    # (2026-12-03).
    (
        r"\bloses? all (?:other )?(?:[a-z]+ types and )?abilities\b",
        '"ability-removing" OR "loses all abilities"',
        "layer",
    ),
    (r"\bbase power and toughness\b", '"base power" OR "specific number"', "layer"),
    (r"\bgets? [+-][\dX]+/[+-][\dX]+", '"modify power"', "layer"),
    (r"\bswitch\b[^.]*\bpower and toughness\b", '"switch a creature\'s power"', "layer"),
    (
        r"\b(?:is|are) (?:an? )?(?:colorless )?(?:plains|islands?|swamps?|mountains?|"
        r"forests?)\b|\b(?:basic )?land types?\b",
        '"basic land types" OR "land type"',
        "layer",
    ),
    (
        r"\bbecomes? an? (?:[\w/-]+ ){0,4}creature\b",
        '"type-changing" OR "becomes a creature"',
        "layer",
    ),
    (r"\bwhen(?:ever)? [^.]*\benters\b", '"enters-the-battlefield abilities"', "trigger"),
    (
        r"\bwhen(?:ever)? [^.]*\bdies\b|\bput into a graveyard from the battlefield\b",
        '"leaves-the-battlefield abilities" OR "look back in time"',
        "trigger",
    ),
    (
        r"\bwhen(?:ever)? [^.]*\b(?:attacks|blocks|deals|casts?|becomes)\b",
        '"triggered ability"',
        "trigger",
    ),
    (r"\bat the beginning of (?:the|your) next\b", '"delayed triggered ability"', "trigger"),
    (r"\bat the beginning of\b", '"beginning of" OR "triggered ability"', "trigger"),
    (r"\{T\}(?:, [^:]*)?: Add\b|\bAdd \{", '"mana ability"', "mana"),
    (r"\badditional lands?\b", '"additional land" OR "land during their turn"', "turn"),
    (
        r"\bany time (?:they|you) could cast a sorcery\b|\bonly as a sorcery\b",
        '"any time they could cast a sorcery"',
        "timing",
    ),
    (r"\bcan't attack\b|\bcan't block\b", "restrictions", "combat"),
    (
        r"\battacks? each (?:combat|turn) if able\b|\bmust attack\b",
        'requirements OR "attacks if able"',
        "combat",
    ),
    (
        r"\bmust be blocked\b|\bable to block [^.]*\bdo so\b|\bblocks? each (?:combat|"
        r"turn) if able\b",
        'requirements OR "must block"',
        "combat",
    ),
    (r"\bexile [^\n]*\breturn (?:it|them|that card|those cards)\b", '"new object"', "zone"),
    (r"\breturn [^.]*\bgraveyard to the battlefield\b", '"new object"', "zone"),
    # Damage dealt to creatures: "does it die?" is decided by lethal damage (704.5g). Real
    # questions, judge+cards+sem (2026-12-03): T 0.696 / 0.550 -> 0.696 / 0.561, H 0.533 /
    # 0.402 -> 0.578 / 0.415, ours A-P 0.881 / 0.753 -> 0.879 / 0.752; any "deals N damage"
    # (a player's too) lost r036, whose Deflecting Palm deals damage to a player.
    (
        r"\bdeals? (?:\d+|X) damage to (?:any (?:one )?target|[^.]*\bcreatures?\b)",
        '"lethal damage" OR "damage marked"',
        "damage",
    ),
    (r"\bregenerate\b", "regenerate OR regeneration", "replacement"),
    (r"\bfights?\b", "fight", "action"),
    (r"\bprotection from\b", "protection", "static"),
    (r"\bdevotion\b", "devotion", "static"),
    (r"\bemblem\b", "emblem", "static"),
    (r"\bmonarch\b", "monarch", "static"),
    (r"\bface[- ]down\b|\bmanifest\b|\bcloak\b", '"face-down"', "face"),
    (r"\bchoose one\b|\bchoose two\b|\bchoose one or more\b", "modes OR modal", "stack"),
)
"""Patterns of Oracle text, the rules' words for each, and its family (for PAIR_SIGNALS)."""

GRANTED_KEYWORDS = (
    "flying first strike|double strike|deathtouch|lifelink|trample|vigilance|haste|hexproof"
    "|indestructible|menace|reach|defender|shroud|wither|infect|fear|intimidate|shadow"
    "|flanking|ward|prowess|undying|persist|flash|changeling"
).replace("flying first", "flying|first")
"""Keywords a card may give to others ("enchanted creature has wither"): a signal as the
card's own keywords are."""
_GRANTED = LazyPattern(rf"\b(?:has|have|gains?|with|and)\b[^.\n]*?\b({GRANTED_KEYWORDS})\b", re.I)

PAIR_SIGNALS: dict[str, str] = {
    "replacement": '"two or more replacement" OR "replacement and/or prevention effects"',
    "trigger": '"in any order" OR APNAP',
    "layer": '"timestamp order" OR "depend on"',
}
"""A family that two cards named both carry → the rule about such effects together."""

_ORACLE = [LazyPattern(p, re.IGNORECASE) for p, _w, _f in ORACLE_SIGNALS]
_MANA = [LazyPattern(p) for p, _w in MANA_SIGNALS]
_LINE = LazyPattern(r"[^\n]+")


def _oracle(text: str) -> list[int]:
    """The indexes of the :data:`ORACLE_SIGNALS` entries ``text`` has, read an ability (a
    line) at a time."""
    found: set[int] = set()
    for sentence in _LINE.findall(text):
        for i, pattern in enumerate(_ORACLE):
            if i not in found and pattern.search(sentence):
                found.add(i)
    return sorted(found)


class Signal(NamedTuple):
    """Rules' words a card stands for, and the family they belong to."""

    words: str
    """whoosh query text, as :data:`index.search.words.SHORTHAND` writes it."""
    family: str
    """An :data:`ORACLE_SIGNALS` family; ``keyword``, ``type``, ``layout`` or ``mana``
    for the others; a :data:`PAIR_SIGNALS` signal carries the family its two cards share."""


@functools.lru_cache(maxsize=2048)
def card_signals(card: CardFacts) -> tuple[Signal, ...]:
    """The signals of one card, each once (remembered: a bot is asked about the same cards
    again and again)."""
    out: dict[str, str] = {}
    for keyword in card.keywords[:MAX_KEYWORDS]:
        word = keyword.lower().replace('"', "")
        out.setdefault(f'"{word}"' if " " in word else word, "keyword")
    for kind in sorted(card.subtypes | card.supertypes | card.types):
        if kind in TYPE_SIGNALS:
            out.setdefault(TYPE_SIGNALS[kind], "type")
    if card.layout in LAYOUT_SIGNALS:
        out.setdefault(LAYOUT_SIGNALS[card.layout], "layout")
    for pattern, (_p, words) in zip(_MANA, MANA_SIGNALS, strict=True):
        if any(pattern.search(cost) for cost in card.mana_costs):
            out.setdefault(words, "mana-cost")
    text = _own_name_out(card)
    for m in _GRANTED.finditer(text):
        word = m.group(1).lower()
        out.setdefault(f'"{word}"' if " " in word else word, "keyword")
    for i in _oracle(text):
        _p, words, family = ORACLE_SIGNALS[i]
        if family == "mana" and "land" in card.types:
            continue  # every land has one: a question about a land's mana ability says so
        out.setdefault(words, family)
    return tuple(Signal(words, family) for words, family in out.items())


def _own_name_out(card: CardFacts) -> str:
    """The Oracle text with the card's own name as "this" (MTGJSON writes the name)."""
    text = card.text
    for name in {card.name, *card.name.split(" // ")}:
        if name and name in text:
            text = text.replace(name, "this")
        short = name.split(",")[0]
        if short != name and short in text:
            text = text.replace(short, "this")
    return text


def signals_of(cards: Sequence[CardFacts]) -> list[Signal]:
    """The signals of the cards a question names, each once, with those of their pairs."""
    out: dict[str, Signal] = {}
    families: dict[str, int] = {}
    for card in cards:
        carried: set[str] = set()
        for signal in card_signals(card):
            out.setdefault(signal.words, signal)
            carried.add(signal.family)
        for family in carried:
            families[family] = families.get(family, 0) + 1
    for family, count in families.items():
        if count > 1 and family in PAIR_SIGNALS:
            out.setdefault(PAIR_SIGNALS[family], Signal(PAIR_SIGNALS[family], family))
    return list(out.values())
