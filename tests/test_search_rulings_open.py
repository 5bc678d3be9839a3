"""How the rulings' index is written and opened: files apart, its cards' names beside it, opened
only for a question that can show its rulings, and rebuilt once when an older judge wrote it.

A data folder of our own (the small fixture CR and AtomicCards file, through ``judge index
build`` and ``judge cards import``); the answers are compared with the index searched whatever
the question, as before.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from index.atomic import Slot
from index.cards.store import CardStore
from index.search import Searcher
from index.search import build as build_module
from index.search import extra as extra_module
from index.search.extra import named_cards
from index.search.rulingcards import CARDS_FILE, RulingCards
from index.search.rulings import build_rulings_index
from index.store import EditionStore
from judge_cli.cli import cli

from .cardfixture import atomic, face, small_cards, write_cards

FIXTURES = Path(__file__).parent / "fixtures"

QUESTIONS = [
    "legend rule",
    "Darksteel Citadel cast as a spell",
    "darksteel citadel",  # two words: any case
    "can I cast darksteel",
    "Later ruling for Delver of Secrets",
    "insectile aberration flying",
    "'platinum angel' lose the game",
    "Platinum Angel section:1 lose",
    "Gleaming Oddity beware",
    "Gleaming Odditysection:1",
    "704.5j Darksteel Citadel",
    "Darksteel Citadel AND indestructible",
    "\u201cDarksteel Citadel\u201d indestructible",
    "state-based actions",
]
"""Questions naming cards with rulings (in every way :func:`named_cards` reads), and not."""


def run(home: Path, *argv: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(argv), env={"JUDGE_HOME": str(home), "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rulings-open")
    home = root / "home"
    code, out, err = run(home, "index", "build", str(FIXTURES / "mini-cr.txt"))
    assert code == 0, out + err
    code, out, err = run(home, "cards", "import", str(write_cards(root / "cards.json")))
    assert code == 0, out + err
    return home


def snapshot(home: Path) -> Path:
    found = Slot(home / "cards").current()
    assert found is not None
    return found


def live_index(home: Path) -> Path:
    found = Slot(snapshot(home) / "search").current()
    assert found is not None
    return found


def opened(home: Path) -> Searcher:
    """A Searcher of the newest edition with the rulings' index beside it."""
    store = EditionStore(home)
    date = store.dates()[-1]
    build = store.build_path(date)
    assert build is not None
    return Searcher.open(build, edition=date, extras=[("rulings", snapshot(home), 1.0)])


def answers(home: Path, scopes: tuple[str, ...] = ("all", "rulings")) -> list[Any]:
    with opened(home) as searcher:
        return [searcher.search(q, scope=s).to_json() for s in scopes for q in QUESTIONS]


def test_index_written_apart_with_its_cards(home: Path) -> None:
    live = live_index(home)
    names = {p.suffix for p in live.iterdir()}
    assert ".seg" not in names  # no compound file: each of the segment's files apart
    assert {".pst", ".trm", ".col", ".toc"} <= names
    (stored,) = live.glob("*._stored.col")
    assert stored.read_bytes()[-1:] == b"X"  # whoosh's mark: the documents' offsets written
    cards = RulingCards.read(live)
    assert cards is not None
    assert set(cards.names) == {
        "Darksteel Citadel",
        "Delver of Secrets // Insectile Aberration",
        "Gleaming Oddity",
        "Platinum Angel",
    }


def test_named_is_named_cards_over_every_card() -> None:
    names = [
        "Fog",
        "Platinum Angel",
        "Ow",
        "Lim-D\u00fbl's Vault",
        "Delver // Insectile",
        "Stra\u00dfe",
    ]
    cards = RulingCards.collect(names)
    assert cards is not None
    assert cards.names == set(names)
    for question in [
        "fog",
        "Fog",
        "'fog'",
        "OW!",
        "Ow",
        "platinum angelic",
        "PLATINUM ANGEL",
        "lim-d\u00fbl\u2019s vault",
        "Insectile",
        "strasse",
        "Stra\u00dfe",
        "",
        "platinum  angel",
    ]:
        assert cards.named(question) == sorted(named_cards(names, question)), question
    assert RulingCards.collect(["Fog", "Line\nbreak"]) is None  # no record: searched as before


def test_a_question_naming_no_such_card_leaves_the_index_shut(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[Path] = []
    real = build_module.open_live_index

    def counting(folder: Path, live: Path) -> Any:
        if live.is_relative_to(snapshot(home)):  # not the edition's
            opened.append(live)
        return real(folder, live)

    monkeypatch.setattr(build_module, "open_live_index", counting)
    store = EditionStore(home)
    build = store.build_path(store.dates()[-1])
    assert build is not None
    with Searcher.open(build, extras=[("rulings", snapshot(home), 1.0)]) as searcher:
        assert searcher.search("legend rule").rulings == []
        assert searcher.search("Fog of war, section:7").rulings == []
        assert opened == []
        found = searcher.search("Darksteel Citadel cast as a spell")
        assert [r.cards for r in found.rulings][:1] == [("Darksteel Citadel",)]
        searcher.search("--in is not a scope here: Platinum Angel")
        assert opened == [live_index(home)]  # opened once, when first needed
        # Once open, a question naming none of its cards still does not search it.
        searched: list[str] = []
        run = searcher._run

        def recording(src: Any, text: str, *args: Any, **named: Any) -> Any:
            searched.append(args[-1])  # the source searched
            return run(src, text, *args, **named)

        monkeypatch.setattr(searcher, "_run", recording)
        assert searcher.search("legend rule").rulings == []
        assert searched == ["edition"]
        searcher.search("Darksteel Citadel cast as a spell")
        assert searched == ["edition", "edition", "rulings"]


def test_answers_are_those_of_the_index_searched_every_time(home: Path, tmp_path: Path) -> None:
    copy = tmp_path / "home"
    shutil.copytree(home, copy)
    (live_index(copy) / CARDS_FILE).unlink()  # no record: every question searches the index
    assert RulingCards.read(live_index(copy)) is None
    assert answers(home) == answers(copy)
    assert any(a["rulings"] for a in answers(home, ("all",)))


def test_damaged_or_foreign_record_searches_as_before(home: Path, tmp_path: Path) -> None:
    copy = tmp_path / "home"
    shutil.copytree(home, copy)
    record = live_index(copy) / CARDS_FILE
    data = json.loads(record.read_text(encoding="utf-8"))
    record.write_text(json.dumps(dict(data, fold="another Python")), encoding="utf-8")
    assert RulingCards.read(live_index(copy)) is None
    assert answers(home, ("all",)) == answers(copy, ("all",))
    record.write_text('{"fold": ', encoding="utf-8")
    assert RulingCards.read(live_index(copy)) is None
    assert answers(home, ("all",)) == answers(copy, ("all",))


def test_index_of_an_older_judge_rebuilt_once(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "home"
    shutil.copytree(home, copy)
    before = answers(home)
    # The index as judge wrote it before EXTRA_VERSION 2: one compound file, no cards' names.
    write = build_module._write
    with monkeypatch.context() as patch:
        patch.setattr(extra_module, "EXTRA_VERSION", 1)
        patch.setattr(build_module, "_write", lambda *a, **k: write(*a, **dict(k, compound=True)))
        build_rulings_index(CardStore(copy))
        (live_index(copy) / CARDS_FILE).unlink()
    old = live_index(copy)
    assert any(p.suffix == ".seg" for p in old.iterdir())

    code, out, err = run(copy, "search", "Darksteel Citadel cast", "--json")
    assert code == 0, out + err
    assert "Indexing the rulings" in err
    live = live_index(copy)
    assert live != old
    assert not any(p.suffix == ".seg" for p in live.iterdir())
    assert RulingCards.read(live) is not None
    code, out, err = run(copy, "search", "Darksteel Citadel cast", "--json")
    assert code == 0, out + err
    assert "Indexing" not in err
    assert live_index(copy) == live
    assert answers(copy) == before


def test_a_named_card_s_rulings_found_below_many_others(tmp_path: Path) -> None:
    # 70 other cards' rulings say the question's words better than Platinum Angel's own: with
    # all rulings searched, they filled the pool (rank.POOL) and the named card's was never
    # reached; with the named card's rulings searched alone, its ruling is shown.
    data = small_cards()
    own = {"date": "2020-01-01", "text": "You can't lose the game while it is on the battlefield."}
    data["Platinum Angel"][0]["rulings"] = [own]
    for n in range(1, 71):
        name = f"Platinum Angel's Echo {n}"
        text = f"You lose the game to the legend rule, echo {n}: you lose the game."
        data[name] = [face(name, "Artifact", rulings=[{"date": "2020-01-01", "text": text}])]
    # Enough other rulings that "lose" and "game" are not left out as common (rank.COMMON).
    fillers = [{"date": "2020-01-01", "text": f"Nothing to see, {n}."} for n in range(1000)]
    data["Filler"] = [face("Filler", "Artifact", rulings=fillers)]
    home = tmp_path / "home"
    code, out, err = run(home, "index", "build", str(FIXTURES / "mini-cr.txt"))
    assert code == 0, out + err
    cards = write_cards(tmp_path / "c.json", atomic(data))
    code, out, err = run(home, "cards", "import", str(cards))
    assert code == 0, out + err
    store = EditionStore(home)
    build = store.build_path(store.dates()[-1])
    assert build is not None
    question = "Platinum Angel: can I lose the game to the legend rule?"
    with Searcher.open(build, extras=[("rulings", snapshot(home), 1.0)]) as searcher:
        everything = searcher.search(question, scope="rulings", limit=65)
        assert "Platinum Angel" not in {c for r in everything.results for c in r.cards}
        found = searcher.search(question)
        assert [(r.cards, r.snippet) for r in found.rulings] == [(("Platinum Angel",), own["text"])]


def test_a_question_is_analysed_once_for_the_edition_and_the_rulings(home: Path) -> None:
    # The rulings' fields analyse as the edition's: one memory of what the analyzers made of
    # a question's words, and answers as with each index analysing on its own.
    with opened(home) as searcher:
        shared = [searcher.search(q).to_json() for q in QUESTIONS]
        edition, rulings = searcher._source(0), searcher._source(1)
        assert rulings.analyzed is edition.analyzed and ("body", "citadel") in edition.analyzed
    with opened(home) as searcher:
        searcher._source(1).analyzed = {}  # analysed apart, as before
        assert [searcher.search(q).to_json() for q in QUESTIONS] == shared
