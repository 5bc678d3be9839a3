"""Long pasted questions: a forum post cut down to what it asks (index/search/pasted.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from index.reader import read_cr_path
from index.search import MAX_QUERY_CHARS, QueryTooLongError, build_ram_index, search_documents
from index.search.pasted import LONG_QUERY_CHARS, find_question, is_pasted
from judge_cli.cli import cli

MINI = Path(__file__).parent / "fixtures" / "mini-cr.txt"

PREAMBLE = (
    "Hi all, long time lurker here. Our playgroup meets every Friday at the back of a comic "
    "shop, and last week something came up that started a twenty-minute argument, so I "
    "promised everyone I would ask on the forum and report back with the answer. "
) * 3
SIGN_OFF = "\nThanks in advance for any help!\nEDIT: spelling."


def test_boilerplate_and_preamble_are_dropped() -> None:
    post = (
        "Hey everyone! Sorry for the long post.\n"
        "We were playing at my friend's place on Saturday night with a few new decks.\n"
        "Here's what happened: my opponent had ten poison counters on him.\n"
        "Does he lose the game right away, or only at his next turn?\n"
        "Thanks in advance!\nEDIT: typo."
    )
    assert find_question(post) == (
        "my opponent had ten poison counters on him. "
        "Does he lose the game right away, or only at his next turn?"
    )


@pytest.mark.parametrize(
    ("post", "question"),
    [
        # The last question asked is the question; the sentences before it in its
        # paragraph are its set-up.
        ("I cast a spell. Can it be countered?\nIs there a resource for this?", "I cast a"),
        # A post that asks nothing: its end.
        ("Some chatter here.\nMy creature has toughness 0 after the effect.", "Some chatter"),
    ],
)
def test_what_is_kept(post: str, question: str) -> None:
    assert find_question(post).startswith(question)


def test_a_post_is_read_as_prose_not_syntax() -> None:
    asked = find_question('It says "draw (a card" AND NOT discard, right?')
    assert asked == "It says  draw  a card  and not discard, right?"


def test_only_the_last_part_is_kept_of_a_long_question() -> None:
    setup = " ".join(f"Then player {i} cast a spell." for i in range(60))
    asked = find_question(setup + " Who wins?")
    assert asked.endswith("Who wins?") and len(asked) <= 700


def test_short_queries_are_not_posts() -> None:
    assert not is_pasted("x" * LONG_QUERY_CHARS)
    assert is_pasted("x" * (LONG_QUERY_CHARS + 1))


def _post(question: str, paragraph: str = "\n\n") -> str:
    text = PREAMBLE + paragraph + question + SIGN_OFF
    while len(text) < 3_000:
        text = PREAMBLE + "\n" + text
    return text


def test_a_pasted_question_of_3000_characters_is_searched() -> None:
    ix = build_ram_index(read_cr_path(MINI))
    post = _post("My opponent has ten poison counters, does he lose?")
    assert 3_000 <= len(post) <= MAX_QUERY_CHARS
    found = search_documents(ix, post, limit=5)
    assert found.searched == "My opponent has ten poison counters, does he lose?"
    assert found.query == post
    assert found.results[0].id == "704.5c"
    # In the same paragraph as the chatter: some of it is searched too, the rule still leads.
    found = search_documents(ix, _post("My opponent has ten poison counters, does he lose?", " "))
    assert found.searched is not None and found.searched.endswith("does he lose?")
    assert found.results[0].id == "704.5c"


def test_absurd_input_is_still_refused() -> None:
    ix = build_ram_index(read_cr_path(MINI))
    with pytest.raises(QueryTooLongError) as info:
        search_documents(ix, "poison " * 1_000)
    assert info.value.length == 7_000 and info.value.limit == MAX_QUERY_CHARS
    assert "Paste only the question" in str(info.value)


def test_cli_searches_a_pasted_post(judge_home: Path) -> None:
    post = _post("Is mana burn still a thing when my mana empties?")
    result = CliRunner().invoke(cli, ["search", post, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["searched"] == "Is mana burn still a thing when my mana empties?"
    assert data["results"]
