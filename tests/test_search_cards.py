"""judge search with a card store: card names read in questions, and what the cards do."""

from __future__ import annotations

import json
import threading
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from index.cards.mentions import CardFacts, CardNames, _word_bag
from index.cards.names import fold_name, loose_name
from index.cards.store import CardStore
from index.search import Searcher, build_ram_index
from index.search.cardnames import blank_out, find_mentions
from index.search.cardquery import SIGNAL_CAP, read_cards, shared_signals
from index.search.cardsignals import card_signals, signals_of
from index.search.source import OpenIndex
from judge_cli.cli import cli

from .cardfixture import write_cards


def _card(name: str, type_line: str = "Instant", text: str = "", **kw: Any) -> CardFacts:
    left, _, right = type_line.partition(" — ")
    words = [w.lower() for w in left.split()]
    supertypes = {w for w in words if w in ("legendary", "basic", "snow", "world")}
    return CardFacts(
        name,
        kw.get("layout", "normal"),
        frozenset(w for w in words if w not in supertypes),
        frozenset(supertypes),
        frozenset(w.lower() for w in right.split()),
        tuple(kw.get("keywords", ())),
        text,
        tuple(kw.get("costs", ())),
    )


CARDS = [
    _card("Fog", text="Prevent all combat damage that would be dealt this turn."),
    _card("Opt", text="Scry 1.\nDraw a card."),
    _card("Island", "Basic Land — Island"),
    _card("Mountain", "Basic Land — Mountain"),
    _card(
        "Humility",
        "Enchantment",
        "All creatures lose all abilities and have base power and toughness 1/1.",
    ),
    _card(
        "Opalescence",
        "Enchantment",
        "Each other non-Aura enchantment is a creature in "
        "addition to its other types and has base power and base toughness each equal to "
        "its mana value.",
    ),
    _card(
        "Platinum Angel",
        "Artifact Creature — Angel",
        "Flying\nYou can't lose the game and your opponents can't win the game.",
        keywords=["Flying"],
    ),
    _card(
        "Lich's Mastery",
        "Legendary Enchantment",
        "Hexproof\nYou can't lose the game.\nWhen Lich's Mastery leaves the battlefield, "
        "you lose the game.",
        keywords=["Hexproof"],
    ),
    _card("Lightning Bolt", text="Lightning Bolt deals 3 damage to any target.", costs=["{R}"]),
    _card("Far // Away", text="Return target creature to its owner's hand.", layout="split"),
    _card("Who // What // When // Where // Why", layout="split"),
    _card("Liliana, Defiant Necromancer", "Legendary Planeswalker — Liliana"),
    _card(
        "Animar, Soul of Elements",
        "Legendary Creature — Elemental",
        "Protection from white and from black.",
        keywords=["Protection"],
    ),
    _card("Abby, Merciless Soldier", "Legendary Creature — Human Soldier"),
    _card("Auntie Ool, Cursewretch", "Legendary Creature — Goblin Warlock"),
    _card(
        "Vedalken Shackles",
        "Artifact",
        "{2}, {T}: Gain control of target creature for as long as Vedalken Shackles "
        "remains tapped.",
    ),
    _card("Shackles", "Enchantment — Aura", "Enchant creature"),
    _card("Alpine Moon", "Enchantment", "Nonbasic lands are Mountains."),
    _card("First Strike", text="Target creature gains first strike until end of turn."),
    _card(
        "Darksteel Citadel",
        "Artifact Land",
        "Indestructible\n{T}: Add {C}.",
        keywords=["Indestructible"],
    ),
    _card("Wrath of God", "Sorcery", "Destroy all creatures. They can't be regenerated."),
    # names of our own: no phrasing of the index names them
    _card("Ironclad Bastion", "Artifact Land", "Indestructible", keywords=["Indestructible"]),
    _card("Great Unmaking", "Sorcery", "Destroy all artifacts."),
    _card("Golden Seraph", "Artifact Creature — Angel", "You can't lose the game."),
    _card(
        "Doom Pact",
        "Enchantment",
        "You can't lose the game.\nWhen Doom Pact leaves the battlefield, you lose the game.",
    ),
    _card(
        "Fists of the Demigod",
        "Enchantment — Aura",
        "Enchant creature\nAs long as enchanted creature is black, it gets +1/+1 and has wither.",
        keywords=["Enchant"],
        costs=["{1}{B/R}"],
    ),
    _card(
        "Laboratory Maniac",
        "Creature — Human Wizard",
        "If you would draw a card while your library has no cards in it, you win the game instead.",
    ),
    _card(
        "Archmage Ascension",
        "Enchantment",
        "If you would draw a card, you may instead search your library for a card.",
    ),
]


class FakeCards:
    """The card source a Searcher asks, over the cards above (and a count of its queries)."""

    def __init__(self, cards: list[CardFacts] = CARDS) -> None:
        self.cards = cards
        self.queries = 0
        self.misspellings: list[str] = []

    def names_among(self, keys: Collection[str]) -> dict[str, list[tuple[int, str]]]:
        self.queries += 1
        out: dict[str, list[tuple[int, str]]] = {}
        for i, card in enumerate(self.cards):
            for name in (card.name, *card.name.split(" // ")):
                if loose_name(name) in keys:
                    out.setdefault(loose_name(name), []).append((i, fold_name(name)))
        return out

    def short_names(self, keys: Collection[str]) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for i, card in enumerate(self.cards):
            head, comma, _ = fold_name(card.name).partition(",")
            if comma and head in keys:
                out.setdefault(head, []).append(i)
        return out

    def facts(self, card_id: int) -> CardFacts:
        return self.cards[card_id]

    def misspelt(self, typed: str) -> int | None:
        import difflib

        from index.cards.lookup import clear_misspelling

        self.misspellings.append(typed)
        key = fold_name(typed)
        names = [fold_name(card.name) for card in self.cards]
        if any(name.startswith((key + " ", key + ",")) for name in names):
            return None
        bag = _word_bag(key)
        ratios = [
            1.0
            if bag and _word_bag(name) == bag
            else difflib.SequenceMatcher(None, key, name).ratio()
            for name in names
        ]
        return clear_misspelling(sorted(((r, i) for i, r in enumerate(ratios)), reverse=True))


def _names(text: str, rules_words: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    words = rules_words or frozenset(
        "the first strike island mountain land damage creature game flash".split()  # noqa: SIM905
    )
    found = find_mentions(text, FakeCards(), lambda w: w in words)
    return [(m.typed, m.cards[0].name) for m in found]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # one-word names that are English words: capitalised mid-sentence, or quoted
        ("does Fog stop trample damage", [("Fog", "Fog")]),
        ("the fog of war hides my attack", []),
        ('is "fog" good here', [('"fog"', "Fog")]),
        ("can I [[opt]] in response", [("[[opt]]", "Opt")]),
        ("I cast Opt", [("Opt", "Opt")]),
        # a capitalised first word counts only if the rules never use it
        (
            "Humility and Opalescence: who wins",
            [("Humility", "Humility"), ("Opalescence", "Opalescence")],
        ),
        ("Island walk: how does it work", []),
        ("I tap an island for mana", []),
        ("six Mountains and a Valakut", [("Mountains", "Mountain")]),
        # longest match, possessives, punctuation left out, word boundaries kept
        (
            "Platinum Angel and Lich's Mastery's trigger",
            [("Platinum Angel", "Platinum Angel"), ("Lich's Mastery's", "Lich's Mastery")],
        ),
        (
            "my Liliana Defiant Necromancer died",
            [("Liliana Defiant Necromancer", "Liliana, Defiant Necromancer")],
        ),
        ("is there a way to win", []),
        ("What's the problem? Why can't I", []),
        ("I cast Far // Away", [("Far // Away", "Far // Away")]),
        # lower-case names: only when a word of them is not a rules word
        ("my opponent cast alpine moon", [("alpine moon", "Alpine Moon")]),
        ("does first strike damage happen first", []),
        ("I cast First Strike on my bear", [("First Strike", "First Strike")]),
        # a legend by the start of its name, unless a player's verb follows
        ("my Animar attacks, can they block it", [("Animar", "Animar, Soul of Elements")]),
        ("Then Abby casts a spell", []),
        ("then my Soul Warden attacks", []),
        ("how does the Auntie Ool live", [("Auntie Ool", "Auntie Ool, Cursewretch")]),
        ("the Auntie Ool casts nothing", []),
        # a word of a name named before is that card again
        (
            "I tap Vedalken Shackles and they bounce the Shackles",
            [("Vedalken Shackles", "Vedalken Shackles"), ("Shackles", "Vedalken Shackles")],
        ),
        # a capitalised word mid-sentence that clearly misspells one card's name
        ("if I Humillity their board", [("Humillity", "Humility")]),
        ("can Platnum Angel's ability save me", [("Platnum Angel's", "Platinum Angel")]),
        ("I Opalescenced it", [("Opalescenced", "Opalescence")]),
        # ... not a player's name before their verb, a rules word, nor a card's first word
        ("then Ashley casts a spell", []),
        ("my Commander died", []),
        ("my Laboratory died", []),
    ],
)
def test_card_names_in_questions(text: str, expected: list[tuple[str, str]]) -> None:
    assert _names(text) == expected


def test_a_misspelling_is_looked_for_only_when_nothing_else_reads_the_word() -> None:
    cards = FakeCards()
    words = frozenset({"commander"})
    text = "Does Fog stop Lightning Bolt? My Commander and Nicole's Platnum Angel, then Amy said"
    found = find_mentions(text, cards, lambda w: w in words)
    assert [(m.typed, m.how) for m in found] == [
        ("Fog", "capitalised"),
        ("Lightning Bolt", "capitalised"),
        ("Platnum Angel", "misspelt"),
    ]
    # Sentence starts, names read exactly, rules words and short words are not looked up.
    assert cards.misspellings == ["Nicole", "Platnum Angel"]


def test_a_misspelt_name_runs_on_through_of_and_the() -> None:
    # "of" and "the" between capitalised words are in a misspelt name's run, and a run that
    # names no card is looked up in its capitalised stretches.
    cards = FakeCards()
    found = find_mentions("Does Wraht of God kill it?", cards, lambda w: False)
    assert [(m.typed, m.cards[0].name, m.how) for m in found] == [
        ("Wraht of God", "Wrath of God", "misspelt")
    ]
    cards = FakeCards()
    found = find_mentions("my Ironclad Bastian of the Gatewatch", cards, lambda w: False)
    assert [(m.typed, m.cards[0].name) for m in found] == [("Ironclad Bastian", "Ironclad Bastion")]
    assert cards.misspellings == [
        "Ironclad Bastian of the Gatewatch",
        "Ironclad Bastian",
        "Gatewatch",
    ]


def test_names_are_asked_for_in_one_query() -> None:
    cards = FakeCards()
    text = " ".join(["does Fog stop Lightning Bolt damage to my Platinum Angel?"] * 20)
    found = find_mentions(text, cards, lambda w: False)
    assert cards.queries == 1
    assert len(found) == 60


def test_blank_out_keeps_the_rest_in_place() -> None:
    text = "does Fog stop Lightning Bolt?"
    found = find_mentions(text, FakeCards(), lambda w: False)
    assert blank_out(text, found) == "does " + " " * 3 + " stop " + " " * 14 + "?"


def _signals(name: str) -> list[str]:
    return [s.words for s in card_signals(next(c for c in CARDS if c.name == name))]


def test_signals_say_what_a_card_does_in_the_rules_words() -> None:
    assert '"can\'t lose" OR "takes precedence"' in _signals("Platinum Angel")
    assert "flying" in _signals("Platinum Angel")
    assert "indestructible" in _signals("Darksteel Citadel")
    # a land's mana ability says nothing about the question
    assert '"mana ability"' not in _signals("Darksteel Citadel")
    fists = _signals("Fists of the Demigod")
    assert "Aura OR enchant" in fists and "wither" in fists and "hybrid" in fists
    assert '"control-changing" OR "gain control"' in _signals("Vedalken Shackles")
    assert '"for as long as" OR duration' in _signals("Vedalken Shackles")
    humility = _signals("Humility")
    assert '"ability-removing" OR "loses all abilities"' in humility
    assert '"split card"' in _signals("Far // Away")
    # damage a card deals to creatures (or any target) leads to lethal damage, and only that:
    # the card's own name is not read as its text ("Lightning Bolt deals …")
    assert _signals("Lightning Bolt") == ['"lethal damage" OR "damage marked"']
    fallout = _card("Fallout", text="Fallout deals 2 damage to each creature and each player.")
    assert '"lethal damage" OR "damage marked"' in [s.words for s in card_signals(fallout)]
    palm = _card(
        "Palm",
        text="The next time a source of your choice would deal damage to you this turn, "
        "prevent that damage. If damage is prevented this way, Palm deals that much damage "
        "to that source's controller.",
    )
    assert '"lethal damage" OR "damage marked"' not in [s.words for s in card_signals(palm)]
    moon = _card(
        "Moon",
        "Enchantment",
        "Lands your opponents control with the chosen name lose all land types and abilities.",
    )
    binding = _card("Binding", "Enchantment", "Your opponents can't cast spells with the name.")
    assert '"begin to cast" OR prohibits' in [s.words for s in card_signals(binding)]
    moon_signals = [s.words for s in card_signals(moon)]
    assert '"ability-removing" OR "loses all abilities"' in moon_signals
    assert '"basic land types" OR "land type"' in moon_signals


def test_two_cards_of_a_family_add_the_rule_about_them_together() -> None:
    maniac, ascension = (c for c in CARDS if c.name in ("Laboratory Maniac", "Archmage Ascension"))
    together = [s.words for s in signals_of([maniac, ascension])]
    assert '"two or more replacement" OR "replacement and/or prevention effects"' in together
    alone = [s.words for s in signals_of([maniac])]
    assert '"two or more replacement" OR "replacement and/or prevention effects"' not in alone


def test_many_signals_share_their_boost_against_the_question_s_own_words() -> None:
    from whoosh.query import Term

    signals = [Term("body", f"w{i}", boost=1.0) for i in range(5)]
    shared = shared_signals(signals, 1)
    assert [round(p.boost, 6) for p in shared] == [round(SIGNAL_CAP / 5, 6)] * 5
    assert [p.boost for p in signals] == [1.0] * 5  # the parts given are left as they were
    # a question long enough for its cards' signals, or of card names only: as they are
    assert shared_signals(signals, 3) == signals
    assert shared_signals(signals, 0) == signals


# --- searching: a small CR of our own (fixtures/cards-cr.txt) ------------------------------

MINI_CR = (Path(__file__).parent / "fixtures" / "cards-cr.txt").read_text(encoding="utf-8")
"""A small CR of our own: the rules the cards of these tests lead to."""


@pytest.fixture(scope="module")
def mini_index() -> Iterator[Any]:
    from index.reader import read_cr_text

    ix = build_ram_index(read_cr_text(MINI_CR, "mini.txt"))
    yield ix
    ix.close()


def _ids(ix: Any, query: str, cards: Any = None) -> tuple[list[str], list[str]]:
    with Searcher([ix], cards=cards) as s:
        found = s.search(query, limit=5)
    return [r.id for r in found.results], found.cards


def test_what_a_named_card_does_finds_the_rule(mini_index: Any) -> None:
    question = "my opponent cast Great Unmaking, what happens to my Ironclad Bastion"
    plain, none = _ids(mini_index, question)
    ids, names = _ids(mini_index, question, FakeCards())
    assert none == []
    assert names == ["Great Unmaking", "Ironclad Bastion"]
    assert ids[0].startswith("702.12")
    assert not plain or not plain[0].startswith("702.12")


def test_a_misspelt_card_is_read_as_the_card(mini_index: Any) -> None:
    question = "my opponent cast Great Unmaking, what happens to my Ironclad Bastian"
    ids, names = _ids(mini_index, question, FakeCards())
    assert names == ["Great Unmaking", "Ironclad Bastion"]
    assert ids[0].startswith("702.12")
    with Searcher([mini_index], cards=FakeCards()) as s:
        found = s.search(question)
    assert found.cards_misspelt == {"Ironclad Bastian": "Ironclad Bastion"}
    assert found.to_json()["cards_misspelt"] == {"Ironclad Bastian": "Ironclad Bastion"}


def test_a_question_of_card_names_only(mini_index: Any) -> None:
    ids, names = _ids(mini_index, "Golden Seraph Doom Pact", FakeCards())
    assert names == ["Golden Seraph", "Doom Pact"]
    assert "101.2" in ids[:2]


def test_without_card_names_a_question_reads_as_before(mini_index: Any) -> None:
    question = "is a creature with lethal damage destroyed"
    assert _ids(mini_index, question, FakeCards()) == (_ids(mini_index, question)[0], [])


def test_a_rule_number_with_a_card_name(mini_index: Any) -> None:
    ids, _ = _ids(mini_index, "rule 702.12b", FakeCards())
    assert ids[0] == "702.12b"


def test_card_queries_score_directly_as_whoosh_does(mini_index: Any) -> None:
    from index.search.cardquery import card_parts
    from index.search.query import parse
    from index.search.scoring import top

    src = OpenIndex(mini_index)
    try:
        reading = read_cards("does Platinum Angel survive lethal damage", FakeCards(), src)
        assert reading is not None
        from whoosh.query import Or

        signals, names = card_parts(src, reading)
        q = Or([*parse(src, reading.text.strip()).subqueries, *signals, *names])
        ours = [(round(score, 9), f["id"]) for score, f in top(src, q, 20, None)]
        theirs = [(round(h.score, 9), h["id"]) for h in src.searcher.search(q, limit=20)]
        assert ours == theirs
    finally:
        src.close()


# --- the real card store (sqlite), from the fixture file -----------------------------------


@pytest.fixture
def cards_home(judge_home: Path, tmp_path: Path) -> Path:
    CardStore(judge_home).import_cards(write_cards(tmp_path / "cards.json.xz"))
    return judge_home


def test_card_names_from_the_store(cards_home: Path) -> None:
    with CardNames.open(CardStore(cards_home)) as names:
        found = names.names_among({"platinumangel", "insectileaberration", "nothing"})
        assert set(found) == {"platinumangel", "insectileaberration"}
        assert found["insectileaberration"][0][1] == "insectile aberration"
        thrun = names.short_names({"thrun", "platinum"})
        assert list(thrun) == ["thrun"]
        facts = names.facts(thrun["thrun"][0])
        assert facts.name == "Thrun, the Last Troll"
        assert facts.types == {"creature"} and facts.supertypes == {"legendary"}
        delver = names.facts(found["insectileaberration"][0][0])
        assert delver.layout == "transform"
        assert delver.keywords == ("Flying", "Transform")


def test_misspelt_card_names_from_the_store(cards_home: Path) -> None:
    with CardNames.open(CardStore(cards_home)) as names:
        angel = names.names_among({"platinumangel"})["platinumangel"][0][0]
        assert names.misspelt("Platnum Angel") == angel
        assert names.misspelt("Platinum Angle") == angel
        assert names.misspelt("Platinum") is None  # the start of two names: no misspelling
        assert names.misspelt("Delver") is None  # short for Delver of Secrets
        assert names.misspelt("Nicole") is None
        assert names.misspelt("Xlatinum Angel") is None  # the first two letters must match
        assert names.misspelt("Platnum Angel") == angel  # remembered
        thrun = names.short_names({"thrun"})["thrun"][0]
        assert names.misspelt("Thrun, Troll the Last") == thrun  # the same words
        assert names.misspelt("Thrun, Last Troll") == thrun  # and without "the"
        assert names.misspelt("Angel Platinum") is None  # another first word


def test_card_names_shared_by_threads(cards_home: Path) -> None:
    with CardNames.open(CardStore(cards_home)) as names:
        seen: list[int] = []

        def ask() -> None:
            for _ in range(50):
                seen.append(len(names.names_among({"platinumangel"})))

        threads = [threading.Thread(target=ask) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert seen == [1] * 200


def test_no_card_store_is_no_card_names(judge_home: Path) -> None:
    assert CardNames.find(CardStore(judge_home)) is None


def test_search_json_names_the_cards_read(cards_home: Path, tmp_path: Path) -> None:
    cr = tmp_path / "mini.txt"
    cr.write_text(MINI_CR, encoding="utf-8")
    runner = CliRunner()
    env = {"JUDGE_HOME": str(cards_home), "NO_COLOR": "1"}
    assert runner.invoke(cli, ["index", "build", str(cr)], env=env).exit_code == 0
    result = runner.invoke(
        cli, ["search", "does Darksteel Citadel survive lethal damage", "--json"], env=env
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["cards"] == ["Darksteel Citadel"]
    assert data["results"][0]["id"].startswith("702.12")
    plain = runner.invoke(cli, ["search", "does Darksteel Citadel survive lethal damage"], env=env)
    assert "Cards read in the question: Darksteel Citadel." in plain.output
    assert data["cards_misspelt"] == {}
    # A misspelt name is read as its card, and says so.
    misspelt = "does my Darksteal Citadel survive lethal damage"
    data = json.loads(runner.invoke(cli, ["search", misspelt, "--json"], env=env).output)
    assert data["cards"] == ["Darksteel Citadel"]
    assert data["cards_misspelt"] == {"Darksteal Citadel": "Darksteel Citadel"}
    assert data["results"][0]["id"].startswith("702.12")
    plain = runner.invoke(cli, ["search", misspelt], env=env)
    assert "Cards read in the question: Darksteel Citadel (typed “Darksteal Citadel”)." in (
        plain.output
    )
