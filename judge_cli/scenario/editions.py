"""Which state-based actions an edition has, what it numbers them, and how the old ones behaved.

Rule numbers are read from the edition's own document wherever it can answer: each kind of action
has a *signature* (a few words every edition's text of that rule contains), and the numbered
subrules of 704.5, 704.6 (420.5 before July 2009) are searched for it. That keeps editions that
are not in the test corpus right too. A document that does not have the list at all (a hand-built
excerpt, the bundled sample) falls back to :data:`NUMBER_TABLE`, keyed by the first edition each
numbering was seen in; a corpus test checks both agree for every stored edition.

Behaviour that changed without a new rule (the legend rule, the planeswalker uniqueness rule) is
the :data:`RULE_CHANGES` table: one dated row per published change, read like the numbering table.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from index.model import Document

__all__ = [
    "NEWEST",
    "NUMBER_TABLE",
    "RULE_CHANGES",
    "SIGNATURES",
    "Change",
    "EditionRules",
    "Kind",
    "LegendMode",
]


class Kind(enum.Enum):
    """Every kind of state-based action, in the order rule 704.5 and 704.6 list them."""

    PLAYER_LIFE = "player_life"
    """704.5a (420.5a before 2009): a player with 0 or less life loses the game."""
    EMPTY_LIBRARY = "empty_library"
    """704.5b (420.5g): a player who attempted to draw from an empty library loses."""
    POISON = "poison"
    """704.5c (420.5h): a player with ten or more poison counters loses."""
    TOKEN_ZONE = "token_zone"
    """704.5d (420.5f): a token in a zone other than the battlefield ceases to exist."""
    COPY_ZONE = "copy_zone"
    """704.5e (420.5j): a copy outside the stack (a card copy: or battlefield) ceases to exist."""
    ZERO_TOUGHNESS = "zero_toughness"
    """704.5f (420.5b): a creature with toughness 0 or less is put into its owner's graveyard."""
    LETHAL_DAMAGE = "lethal_damage"
    """704.5g (420.5c): a creature with lethal damage is destroyed."""
    DEATHTOUCH = "deathtouch"
    """704.5h (from July 2009): a creature dealt deathtouch damage is destroyed."""
    ZERO_LOYALTY = "zero_loyalty"
    """704.5i: a planeswalker with loyalty 0 is put into its owner's graveyard."""
    PLANESWALKER_UNIQUENESS = "planeswalker_uniqueness"
    """704.5j (2009–2017): the planeswalker uniqueness rule."""
    LEGEND_RULE = "legend_rule"
    """704.5j (704.5k 2009–2017, 420.5e before): the legend rule."""
    WORLD_RULE = "world_rule"
    """704.5k (704.5m 2009–2017, 420.5i before): the world rule."""
    ILLEGAL_AURA = "illegal_aura"
    """704.5m (704.5n 2009–2017, 420.5d before): an illegal or unattached Aura is put away."""
    ILLEGAL_EQUIPMENT = "illegal_equipment"
    """704.5n (704.5p 2009–2017, 420.5k before): illegal Equipment/Fortification unattaches."""
    ILLEGAL_ATTACHMENT = "illegal_attachment"
    """704.5p (704.5q 2009–2017, 420.5m before): other attached permanents become unattached."""
    COUNTER_ANNIHILATION = "counter_annihilation"
    """704.5q (704.5r 2009–2017, 420.5n before): +1/+1 and -1/-1 counters cancel out."""
    COUNTER_LIMIT = "counter_limit"
    """704.5r (704.5s 2013–2017): counters over an ability's cap are removed."""
    SAGA = "saga"
    """704.5s (from 2018): a Saga past its final chapter is sacrificed."""
    DUNGEON = "dungeon"
    """704.5t (from 2021): a completed dungeon is removed from the game."""
    SPACE_SCULPTOR = "space_sculptor"
    """704.5u (from 2023): creatures without a sector get one while a space sculptor is out."""
    BATTLE_DEFENSE = "battle_defense"
    """704.5v (from 2023): a battle with defense 0 is put into its owner's graveyard."""
    BATTLE_PROTECTOR = "battle_protector"
    """704.5w (from 2023): a battle with no protector gets one, or goes to the graveyard."""
    SIEGE_PROTECTOR = "siege_protector"
    """704.5x (from 2023): a Siege protected by its controller gets an opponent as protector."""
    ROLES = "roles"
    """704.5y (from 2023): only the newest Role per controller on a permanent stays."""
    SPEED = "speed"
    """704.5z (from 2025): a player with start your engines! and no speed gets speed 1."""
    TEAM_LIFE = "team_life"
    """704.6a (704.5t 2013–2018, 806.8a/606.8a before): a Two-Headed Giant team at 0 life loses."""
    TEAM_POISON = "team_poison"
    """704.6b (704.5u 2013–2018): a Two-Headed Giant team with fifteen poison counters loses."""
    COMMANDER_DAMAGE = "commander_damage"
    """704.6c (704.5v 2013–2018): 21 combat damage from one commander loses the game."""
    COMMANDER_ZONE = "commander_zone"
    """704.6d (from 2020): a commander put into a graveyard or exile may go to the command zone."""
    SCHEME = "scheme"
    """704.6e (704.5w 2013–2018): a face-up non-ongoing scheme goes to the bottom of its deck."""
    PHENOMENON = "phenomenon"
    """704.6f (704.5x 2013–2018): a face-up phenomenon makes the planar controller planeswalk."""


class LegendMode(enum.Enum):
    """How the legend rule (and the planeswalker uniqueness rule) picks what stays."""

    OLDEST = "oldest"
    """Until September 2004: the one that has been legendary the longest stays; ties all go."""
    ALL = "all"
    """October 2004 to July 2013: all go, whoever controls them."""
    PER_CONTROLLER = "per_controller"
    """From July 2013: each player keeps one of their own and the rest go."""


NEWEST = "9999-12-31"
"""The date used for a document without one (the bundled sample): the newest rules."""

# Signatures: lower-case words (straight apostrophes) every edition's text of the rule contains.
SIGNATURES: dict[Kind, re.Pattern[str]] = {
    Kind.PLAYER_LIFE: re.compile(
        r"^(if a player has 0 or less life|a player with 0 (or less )?life"
        r"|a player with 0 life or less)"
    ),
    Kind.EMPTY_LIBRARY: re.compile(
        r"draw a card from (an empty library|a library with no cards)|required to draw more cards"
    ),
    Kind.POISON: re.compile(r"(a player has|a player with) ten or more poison"),
    Kind.TOKEN_ZONE: re.compile(r"\btoken\b.*\bzone other than"),
    Kind.COPY_ZONE: re.compile(r"copy of a spell"),
    Kind.ZERO_TOUGHNESS: re.compile(r"toughness 0\b"),
    Kind.LETHAL_DAMAGE: re.compile(r"lethal damage"),
    Kind.DEATHTOUCH: re.compile(r"deathtouch"),
    Kind.ZERO_LOYALTY: re.compile(r"planeswalker has loyalty 0"),
    Kind.PLANESWALKER_UNIQUENESS: re.compile(r"planeswalker uniqueness rule"),
    Kind.LEGEND_RULE: re.compile(r"legend rule"),
    Kind.WORLD_RULE: re.compile(r"supertype world|enchant worlds"),
    Kind.ILLEGAL_AURA: re.compile(r"^(if )?an aura (is )?attached|local enchantment"),
    Kind.ILLEGAL_EQUIPMENT: re.compile(r"equipment or fortification (is )?attached"),
    Kind.ILLEGAL_ATTACHMENT: re.compile(r"neither an aura, an equipment, nor a fortification"),
    Kind.COUNTER_ANNIHILATION: re.compile(r"\+1/\+1 counter and a -1/-1 counter"),
    Kind.COUNTER_LIMIT: re.compile(r"can't have more than n counters"),
    Kind.SAGA: re.compile(r"\bsaga\b"),
    Kind.DUNGEON: re.compile(r"venture marker"),
    Kind.SPACE_SCULPTOR: re.compile(r"space sculptor"),
    Kind.BATTLE_DEFENSE: re.compile(r"battle has defense 0"),
    Kind.BATTLE_PROTECTOR: re.compile(r"no player in the game designated as its protector"),
    Kind.SIEGE_PROTECTOR: re.compile(r"siege's controller is also its designated protector"),
    Kind.ROLES: re.compile(r"more than one role"),
    Kind.SPEED: re.compile(r"start your engines"),
    Kind.TEAM_LIFE: re.compile(r"team has 0 or less life|team's life total is 0 or less"),
    Kind.TEAM_POISON: re.compile(r"team has fifteen or more poison"),
    Kind.COMMANDER_DAMAGE: re.compile(r"21 or more combat damage"),
    Kind.COMMANDER_ZONE: re.compile(r"commander is in a graveyard or in exile"),
    Kind.SCHEME: re.compile(r"scheme card is face up"),
    Kind.PHENOMENON: re.compile(r"phenomenon card is face up"),
}

# Kinds whose rule may sit outside the state-based list (Two-Headed Giant before 2013: 606.8a in
# 2007, 806.8a in 2009, each saying "This is a state-based effect/action").
_OUTSIDE_THE_LIST = (Kind.TEAM_LIFE, Kind.TEAM_POISON)

_LIST_PARENTS = ("704.5", "704.6", "420.5")

_K = Kind


def _lettered(parent: str, kinds: Sequence[Kind]) -> dict[Kind, str]:
    """Numbers the kinds of a list in order: ``parent`` + a, b, … (l and o are skipped)."""
    letters = "abcdefghijkmnpqrstuvwxyz"
    return {kind: f"{parent}{letters[i]}" for i, kind in enumerate(kinds)}


_OLD_1999 = [
    _K.PLAYER_LIFE, _K.ZERO_TOUGHNESS, _K.LETHAL_DAMAGE, _K.ILLEGAL_AURA, _K.LEGEND_RULE,
    _K.TOKEN_ZONE,
]  # fmt: skip
_OLD_2003 = [*_OLD_1999, _K.EMPTY_LIBRARY, _K.POISON, _K.WORLD_RULE, _K.COPY_ZONE]
_OLD_2007 = [*_OLD_2003, _K.ILLEGAL_EQUIPMENT, _K.ILLEGAL_ATTACHMENT, _K.COUNTER_ANNIHILATION]
_M10 = [
    _K.PLAYER_LIFE, _K.EMPTY_LIBRARY, _K.POISON, _K.TOKEN_ZONE, _K.COPY_ZONE,
    _K.ZERO_TOUGHNESS, _K.LETHAL_DAMAGE, _K.DEATHTOUCH, _K.ZERO_LOYALTY,
    _K.PLANESWALKER_UNIQUENESS, _K.LEGEND_RULE, _K.WORLD_RULE, _K.ILLEGAL_AURA,
    _K.ILLEGAL_EQUIPMENT, _K.ILLEGAL_ATTACHMENT, _K.COUNTER_ANNIHILATION,
]  # fmt: skip
_VARIANTS_2013 = [_K.TEAM_LIFE, _K.TEAM_POISON, _K.COMMANDER_DAMAGE, _K.SCHEME, _K.PHENOMENON]
# From 2017 the planeswalker uniqueness rule is gone and Sagas (2018) join the list.
_M19 = [k for k in _M10 if k is not _K.PLANESWALKER_UNIQUENESS] + [_K.COUNTER_LIMIT, _K.SAGA]
_VARIANTS_2022 = [
    _K.TEAM_LIFE, _K.TEAM_POISON, _K.COMMANDER_DAMAGE, _K.COMMANDER_ZONE, _K.SCHEME,
    _K.PHENOMENON,
]  # fmt: skip
_AETHERDRIFT = [
    *_M19, _K.DUNGEON, _K.SPACE_SCULPTOR, _K.BATTLE_DEFENSE, _K.BATTLE_PROTECTOR,
    _K.SIEGE_PROTECTOR, _K.ROLES, _K.SPEED,
]  # fmt: skip

# The numbering of each era, from the first corpus edition that shows it. Kinds missing from an
# era did not exist then. Two-Headed Giant's team life sat outside the list before 2013.
NUMBER_TABLE: list[tuple[str, dict[Kind, str]]] = [
    ("0000-00-00", _lettered("420.5", _OLD_1999)),  # April 1999
    ("2003-03-15", _lettered("420.5", _OLD_2003)),
    ("2007-05-01", _lettered("420.5", _OLD_2007) | {_K.TEAM_LIFE: "606.8a"}),
    ("2009-07-11", _lettered("704.5", _M10) | {_K.TEAM_LIFE: "806.8a"}),
    ("2013-07-13", _lettered("704.5", [*_M10, _K.COUNTER_LIMIT, *_VARIANTS_2013])),
    ("2018-07-13", _lettered("704.5", [*_M19, *_VARIANTS_2013])),
    ("2022-04-29", _lettered("704.5", [*_M19, _K.DUNGEON]) | _lettered("704.6", _VARIANTS_2022)),
    ("2025-02-07", _lettered("704.5", _AETHERDRIFT) | _lettered("704.6", _VARIANTS_2022)),
]

# Notes cite these rules; found by signature, else by date.
_NOTE_SIGNATURES: dict[str, re.Pattern[str]] = {
    "indestructible": re.compile(
        r"(permanent with indestructible|if a permanent is indestructible).*can't destroy|"
        r"with indestructible can't be destroyed"
    ),
    "team_loses": re.compile(r"if either player on a team loses the game, the team loses"),
    "leaves_game": re.compile(
        r"when a player leaves the game, all objects (\(see rule [\d.]+\) )?owned by that player"
    ),
}
_NOTE_TABLE: dict[str, list[tuple[str, str]]] = {
    "indestructible": [("2009-07-11", "700.4"), ("2013-07-13", "702.12b")],
    "team_loses": [("2007-05-01", "606.8b"), ("2009-07-11", "806.8b"), ("2013-07-13", "810.8a")],
    # Not in the 1999 and 2003 rules; the corpus first shows it in May 2007.
    "leaves_game": [("2007-05-01", "600.4a"), ("2009-07-11", "800.4a")],
}


class Change(enum.Enum):
    """A rules change that altered how a state-based action behaves without a rule of its own."""

    LEGENDS_ALL_GO = "legends_all_go"
    """Same-name legends all go, whoever controls them; the creature type Legend stops counting."""
    LEGENDS_PER_CONTROLLER = "legends_per_controller"
    """The legend rule compares each player's own legends, and that player keeps one."""
    CREATURES_UNATTACH = "creatures_unattach"
    """A creature (later also a battle) attached to anything becomes unattached (704.5p)."""
    ACTIONS_AT_704 = "actions_at_704"
    """State-based effects (420.5) become state-based actions, numbered 704.5."""
    PHASED_TOKENS_STAY = "phased_tokens_stay"
    """A phased-out token no longer ceases to exist (704.5d lost "is phased out, or")."""


# Rules changes without a number of their own, oldest first, read like NUMBER_TABLE: an edition has
# every change whose date is on or before its own. A change the corpus only brackets is dated by
# the first corpus edition that shows it, as NUMBER_TABLE's eras are. A real edition's own text is
# preferred where it can answer (the token rule); these dates serve a document without that text.
RULE_CHANGES: list[tuple[str, Change, str]] = [
    (
        "2004-10-01",
        Change.LEGENDS_ALL_GO,
        "Champions of Kamigawa rules update: every legendary permanent with the same name goes",
    ),
    (
        "2009-07-11",
        Change.ACTIONS_AT_704,
        "Magic 2010 rules update: state-based effects become state-based actions at rule 704",
    ),
    (
        "2013-07-13",
        Change.LEGENDS_PER_CONTROLLER,
        "Magic 2014 rules update: each player chooses one of their own same-name legends",
    ),
    (
        "2013-07-13",
        Change.CREATURES_UNATTACH,
        "the corpus's 2013-07-13 edition is the first to say \"If a creature is attached to an "
        'object or player" (704.5q then); its 2009-07-11 edition does not',
    ),
    (
        "2018-07-13",
        Change.PHASED_TOKENS_STAY,
        "the corpus's 2018-07-13 edition is the first whose 704.5d no longer says \"If a token is "
        'phased out"; its 2013-07-13 edition still does',
    ),
]


def normalise(text: str) -> str:
    """Lower case with straight apostrophes, for signature matching."""
    return text.lower().replace("\u2019", "'").replace("\u2018", "'")


@dataclass
class EditionRules:
    """The state-based actions of one edition: their rule numbers, texts and behaviour."""

    edition: str | None
    """The edition's effective date (ISO), or ``None`` for an undated document."""
    document: Document = field(repr=False)
    """The document rule texts are quoted from."""
    numbers: dict[Kind, str]
    """Every kind of action in force, with the number this edition gives it."""
    notes: dict[str, str]
    """Rule numbers that notes cite (``indestructible``)."""
    from_document: set[Kind] = field(default_factory=set)
    """Kinds whose number was found in the document (the rest came from the table)."""
    changes: frozenset[Change] = frozenset()
    """The rules changes of :data:`RULE_CHANGES` in force in this edition."""

    @classmethod
    def for_document(cls, document: Document) -> EditionRules:
        """Reads the numbers from the document, falling back to the table for a partial one."""
        date = document.edition or NEWEST
        table = _table_for(date)
        found = _find_numbers(document)
        has_list = any(document.find_rule(p) is not None for p in ("704.5", "420.5"))
        numbers: dict[Kind, str] = {}
        for kind in Kind:
            if kind in found:
                numbers[kind] = found[kind]
            elif not has_list and kind in table:
                numbers[kind] = table[kind]
        notes: dict[str, str] = {}
        for name, pattern in _NOTE_SIGNATURES.items():
            hit = _search_all(document, pattern)
            if hit is None and not has_list:
                for since, number in _NOTE_TABLE.get(name, []):
                    if date >= since:
                        hit = number
            if hit is not None:
                notes[name] = hit
        return cls(document.edition, document, numbers, notes, set(found), _changes_for(date))

    @property
    def date(self) -> str:
        """The effective date, or :data:`NEWEST` when the document has none."""
        return self.edition or NEWEST

    @property
    def legend_mode(self) -> LegendMode:
        """How the legend rule of this edition picks what stays."""
        if Change.LEGENDS_PER_CONTROLLER in self.changes:
            return LegendMode.PER_CONTROLLER
        if Change.LEGENDS_ALL_GO in self.changes:
            return LegendMode.ALL
        return LegendMode.OLDEST

    @property
    def phased_out_tokens_cease(self) -> bool:
        """Checks if a phased-out token ceases to exist as a state-based action this edition."""
        if not self.has(Kind.TOKEN_ZONE):
            return False
        text = normalise(self.text(self.number(Kind.TOKEN_ZONE)) or "")
        if "phased out" in text:
            return True
        if self.is_old_numbering:
            return True  # the phased-out zone is "a zone other than the in-play zone"
        if Kind.TOKEN_ZONE in self.from_document:
            return False
        return Change.PHASED_TOKENS_STAY not in self.changes

    @property
    def term(self) -> str:
        """``state-based actions``, or ``state-based effects`` before July 2009."""
        return "state-based effects" if self.is_old_numbering else "state-based actions"

    @property
    def loop_rule(self) -> str:
        """The rule that describes the check loop: 704.3, or 420.3 before July 2009."""
        return "420.3" if self.is_old_numbering else "704.3"

    @property
    def is_old_numbering(self) -> bool:
        """Checks if the edition numbers state-based effects at 420.5 (before July 2009)."""
        if self.numbers:
            return any(n.startswith("420.") for n in self.numbers.values())
        return Change.ACTIONS_AT_704 not in self.changes

    @property
    def creatures_attached_rule(self) -> bool:
        """Checks if creatures and battles attached to anything become unattached (2013 on)."""
        return Change.CREATURES_UNATTACH in self.changes

    def has(self, kind: Kind) -> bool:
        """Checks if this edition has this kind of state-based action."""
        return kind in self.numbers

    def number(self, kind: Kind) -> str:
        """The rule number of a kind this edition has."""
        return self.numbers[kind]

    def text(self, number: str) -> str:
        """The text of a rule as this edition prints it, or ``""`` if the document lacks it."""
        rule = self.document.find_rule(number)
        return rule.text if rule is not None else ""


def _changes_for(date: str) -> frozenset[Change]:
    return frozenset(change for since, change, _ in RULE_CHANGES if date >= since)


def _table_for(date: str) -> dict[Kind, str]:
    chosen: dict[Kind, str] = {}
    for since, numbers in NUMBER_TABLE:
        if date >= since:
            chosen = numbers
    return chosen


def _find_numbers(document: Document) -> dict[Kind, str]:
    """Kind → number for every signature found in the document's state-based list."""
    candidates: list[tuple[str, str]] = []
    for parent in _LIST_PARENTS:
        for child in document.children(parent):
            rule = document.rules[child]
            candidates.append((child, normalise(rule.text)))
    found: dict[Kind, str] = {}
    for kind, pattern in SIGNATURES.items():
        for number, text in candidates:
            if pattern.search(text):
                found[kind] = number
                break
    for kind in _OUTSIDE_THE_LIST:
        if kind in found:
            continue
        for rule in document:
            text = normalise(rule.text)
            if "state-based" in text and SIGNATURES[kind].search(text):
                found[kind] = rule.number
                break
    return found


def _search_all(document: Document, pattern: re.Pattern[str]) -> str | None:
    for rule in document:
        if pattern.search(normalise(rule.text)):
            return rule.number
    return None
