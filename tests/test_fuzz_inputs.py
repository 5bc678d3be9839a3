"""Fuzzing the readers of what users hand over: tournament documents (text), scenario files,
search queries (parsed, and searched on a small real index) and MTGJSON card files.

The property is that of :mod:`tests.test_fuzz_rules` (:func:`tests.fuzzkit.bounded`). The seeded
cases are what fuzzing found that no other test pinned.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import io
import json
import lzma
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from index.cards.reader import AtomicCardsReader
from index.cards.rows import card_rows
from index.cards.store import CardStore
from index.model import Document
from index.reader import read_cr_path
from index.search import Searcher, build_search_index
from index.search.query import check_query, expand_shorthand, rule_numbers
from index.tournament.ingest import is_tournament_file
from index.tournament.reader import read_document_bytes
from judge_cli.scenario import load_scenario_path, replay

from .conftest import FIXTURES
from .fuzzkit import (
    ANY_TEXT,
    bounded,
    check_error,
    decoded,
    fuzz_settings,
    mutated,
    shared_bytes,
    shared_file,
)

SCENARIOS = Path(__file__).parent / "scenarios"


@functools.cache
def _mini() -> Document:
    return read_cr_path(FIXTURES / "mini-cr.txt")


# -- tournament documents (the text path) ---------------------------------------------------

_DOCS = [
    "judge-docs/ipg-20240923.txt",
    "judge-docs/mtr-20260227.txt",
    "judge-docs/jar-20240923.txt",
]


@functools.cache
def _documents() -> tuple[bytes, ...]:
    # The MTR cut to its first 40,000 bytes: a document of the same shape, read in milliseconds.
    return tuple(shared_bytes(name)[:40_000] for name in _DOCS)


def _read_document(data: bytes, cpu: float = 3.0) -> None:
    def run() -> None:
        if is_tournament_file(data):
            read_document_bytes(data, "doc.txt")

    bounded(run, cpu, what="the tournament document reader")
    bounded(lambda: read_document_bytes(data, "doc.txt"), cpu, what="read_document_bytes")


@fuzz_settings(100)
@given(st.data())
def test_tournament_reader_on_damaged_real_documents(data: st.DataObject) -> None:
    pool = list(_documents())
    _read_document(data.draw(mutated(data.draw(st.sampled_from(pool)), pool)))


@fuzz_settings(60)
@given(st.binary(max_size=2000))
def test_tournament_reader_on_arbitrary_bytes(blob: bytes) -> None:
    head = _documents()[0][:600]  # a real title and date, then anything
    _read_document(blob)
    _read_document(head + blob)


@fuzz_settings(3)
@given(st.data())
def test_tournament_reader_on_whole_damaged_documents(data: st.DataObject) -> None:
    whole = shared_bytes("judge-docs/mtr-20260227.txt")
    _read_document(data.draw(mutated(whole)), 10.0)


# -- scenario files -----------------------------------------------------------------------------


@functools.cache
def _boards() -> tuple[bytes, ...]:
    import yaml

    out = []
    for path in sorted(SCENARIOS.glob("*.yaml"))[:30]:
        board = yaml.safe_load(path.read_text(encoding="utf-8"))["board"]
        out.append(yaml.safe_dump(board, allow_unicode=True).encode())
    return tuple(out)


def _scenario(data: bytes, suffix: str, tmp: Path) -> None:
    path = tmp / f"board{suffix}"
    path.write_bytes(data)

    def run() -> None:
        scenario = load_scenario_path(path)
        replay(scenario.board, _mini())

    bounded(run, 3.0, what="the scenario loader")


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@fuzz_settings(100)
@given(st.data(), st.sampled_from([".yaml", ".json", ".md"]))
def test_scenario_loader_on_damaged_golden_boards(
    scratch: Path, data: st.DataObject, suffix: str
) -> None:
    pool = list(_boards())
    board = data.draw(mutated(data.draw(st.sampled_from(pool)), pool))
    if suffix == ".md":
        board = b"# The question\n\nWhat happens?\n\n```yaml\n" + board + b"```\n"
    elif suffix == ".json":
        import yaml

        # Damaged beyond YAML: the JSON reader gets the damaged text as it is.
        with contextlib.suppress(yaml.YAMLError, ValueError, RecursionError):
            board = json.dumps(yaml.safe_load(decoded(board)), default=str).encode()
    _scenario(board, suffix, scratch)


@fuzz_settings(80)
@given(st.binary(max_size=600), st.sampled_from([".yaml", ".json", ".md"]))
def test_scenario_loader_on_arbitrary_bytes(scratch: Path, blob: bytes, suffix: str) -> None:
    _scenario(blob, suffix, scratch)


# -- queries ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Searcher]:
    folder = tmp_path_factory.mktemp("index")
    build_search_index(_mini(), folder)
    with Searcher.open(folder) as s:
        yield s


@functools.cache
def _questions() -> tuple[str, ...]:
    lines = shared_file("questions/real-questions.jsonl").read_text(encoding="utf-8").splitlines()
    return tuple(json.loads(line)["question"] for line in lines[:300])


def _query(searcher: Searcher, text: str, cpu: float = 3.0) -> None:
    def parse() -> None:
        cleaned = check_query(text)
        expand_shorthand(cleaned)
        rule_numbers(cleaned)

    bounded(parse, 1.0, what="the query parser")
    for scope in ("all", "rules"):
        bounded(lambda scope=scope: searcher.search(text, limit=5, scope=scope), cpu, what="search")


@fuzz_settings(150)
@given(ANY_TEXT)
def test_search_of_arbitrary_queries(searcher: Searcher, text: str) -> None:
    _query(searcher, text)


@fuzz_settings(100)
@given(st.data())
def test_search_of_damaged_real_questions(searcher: Searcher, data: st.DataObject) -> None:
    question = data.draw(st.sampled_from(_questions())).encode()
    _query(searcher, decoded(data.draw(mutated(question))))


SEEDED_QUERIES = {
    # whoosh's spelling corrector builds an automaton the size of the word: a 3,000-letter word
    # (6,000 letters once lower-cased: "İ" is two) took 11 s.
    "a word of 3,000 İ": "İ" * 3000,
    "a word of 4,999 letters": "a" * 4999,
    "a 5,000-character word of z": "zzzzz" * 999 + "z" * 5,
    "a long word among short ones": "legend " + "x" * 2000 + " rule",
}


@pytest.mark.parametrize("name", list(SEEDED_QUERIES))
def test_seeded_queries(searcher: Searcher, name: str) -> None:
    _query(searcher, SEEDED_QUERIES[name], cpu=1.5)


# -- card files ---------------------------------------------------------------------------------


@functools.cache
def _cards() -> bytes:
    """The first cards of the real AtomicCards file (about 60,000 bytes), closed after one."""
    with lzma.open(shared_file("cards/AtomicCards.json.xz"), "rb") as fh:
        head = fh.read(60_000)
    cut = len(head)
    while True:  # "}]," also ends a face's rulings: the cut that closes into JSON ends a card
        cut = head.rindex(b'}],"', 0, cut)
        try:
            json.loads(head[: cut + 2] + b"}}")
        except ValueError:
            continue
        return head[: cut + 2] + b"}}"


def _read_cards(data: bytes) -> None:
    def run() -> None:
        reader = AtomicCardsReader(io.BytesIO(data), "cards.json")
        for name, faces in reader.entries():
            try:
                card_rows(name, faces, "cards.json")
            except Exception as exc:
                check_error(exc)

    bounded(run, 3.0, what="the card file reader")


def test_the_cut_real_card_file_reads() -> None:
    reader = AtomicCardsReader(io.BytesIO(_cards()), "cards.json")
    assert len(list(reader.entries())) > 30 and reader.meta is not None


@fuzz_settings(120)
@given(st.data())
def test_card_reader_on_damaged_real_cards(data: st.DataObject) -> None:
    _read_cards(data.draw(mutated(_cards())))


@fuzz_settings(60)
@given(st.binary(max_size=1000), st.sampled_from(["plain", "gzip", "xz"]))
def test_card_reader_on_arbitrary_bytes(blob: bytes, kind: str) -> None:
    if kind == "gzip":
        blob = gzip.compress(blob)[: max(10, len(blob))]
    elif kind == "xz":
        blob = lzma.compress(blob)[: max(10, len(blob))]
    _read_cards(blob)


@fuzz_settings(25)
@given(st.data())
def test_card_import_of_damaged_real_cards(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    home = tmp_path_factory.mktemp("cards")
    damaged = data.draw(mutated(_cards()))
    bounded(lambda: CardStore(home).import_cards(io.BytesIO(damaged), name="c.json"), 5.0)


_ENTRY = '{"meta": {"date": "2030-01-01"}, "data": {"A": [{"name": "A", "text": %s}]}}'
SEEDED_CARDS = {
    # The C decoder recursed into nesting without end: a RecursionError traceback.
    "a card nested 100,000 deep": _ENTRY % ("[" * 100_000 + "]" * 100_000),
    "meta nested 100,000 deep": '{"meta": ' + "[" * 100_000 + "]" * 100_000 + ', "data": {}}',
    # int() refuses more than 4,300 digits: a ValueError traceback.
    "a number of 5,000 digits": _ENTRY % ("9" * 5000),
    # A lone surrogate cannot be stored as UTF-8: a UnicodeEncodeError traceback at the insert.
    "a lone surrogate": _ENTRY.replace('"A"', '"\\ud800"'),
    # A snapshot named 9999-99-99 would refuse every later file as older.
    "a date that is no day": _ENTRY.replace("2030-01-01", "9999-99-99") % '"x"',
}


@pytest.mark.parametrize("name", list(SEEDED_CARDS))
def test_seeded_card_files(tmp_path: Path, name: str) -> None:
    data = SEEDED_CARDS[name].encode()
    outcome = bounded(lambda: CardStore(tmp_path).import_cards(io.BytesIO(data), name="c.json"))
    assert isinstance(outcome, ValueError), outcome  # refused: a CardFileError
    assert not (tmp_path / "cards").exists()
