"""``GET /api/card/{name}`` on a real loopback server: the JSON of ``judge card NAME --json``.

Each route is compared with the command run by ``CliRunner`` on the same store: two real CR
editions (without search indexes: a card needs only rule families) and our card fixture.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from index.cards.store import CardStore
from judge_cli.cli import cli

from .cardfixture import atomic, write_cards
from .conftest import corpus_file
from .servefixture import cli_json, fetch, quoted, running

pytest.importorskip("starlette", reason="the serve extra is not installed")
pytest.importorskip("uvicorn", reason="the serve extra is not installed")


def _home(with_cards: bool) -> Path:
    from index.store import EditionStore

    paths = [corpus_file(date) for date in ("20260116", "20130713")]
    home = Path(tempfile.mkdtemp(prefix="judge-serve-cards-"))
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    store = EditionStore(home)
    for path in paths:
        store.add_bytes(path.read_bytes(), path.name)
    if with_cards:
        CardStore(home).import_cards(write_cards(home / "cards.json"))
    return home


@pytest.fixture(scope="module")
def home() -> Path:
    return _home(with_cards=True)


@pytest.fixture(scope="module")
def base(home: Path) -> Iterator[str]:
    with running(home) as url:
        yield url


def _cli_error(home: Path, argv: list[str]) -> str:
    result = CliRunner().invoke(cli, argv, env={"JUDGE_HOME": str(home)})
    assert result.exit_code == 1, result.output
    (line,) = [x for x in result.stderr.splitlines() if x.startswith("Error: ")]
    return line[len("Error: ") :]


# (the names given to `judge card`, its other arguments, the route that must answer the same)
SAME_JSON = [
    (["Darksteel Citadel"], [], "/api/card/Darksteel%20Citadel"),
    (["darksteel citadel"], ["-e", "2013-07-13"],
     "/api/card/darksteel%20citadel?edition=2013-07-13"),
    (["Darksteel Citadel"], ["-e", "sample"], "/api/card/Darksteel%20Citadel?edition=sample"),
    (["insectile aberration"], [], "/api/card/" + quoted("insectile aberration")),
    (["Delver of Secrets // Insectile Aberration"], [],
     "/api/card/" + quoted("Delver of Secrets // Insectile Aberration")),
    (["Fire // Ice"], [], "/api/card/Fire%20//%20Ice"),  # the slashes left as they are
    (["lim-dul’s vault"], [], "/api/card/" + quoted("lim-dul’s vault")),
    (["thrun the last troll"], [], "/api/card/thrun%20the%20last%20troll"),
    (["Platnum Angel"], [], "/api/card/Platnum%20Angel"),  # a misspelling, answered
    (["brutal"], [], "/api/card/brutal"),  # a unique prefix
    (["Gleaming Oddity"], [], "/api/card/Gleaming%20Oddity"),  # control characters, in JSON
    (["Darksteel Citadel", "thrun", "delver"], [],
     "/api/card?name=Darksteel+Citadel&name=thrun&name=delver"),
    (["Darksteel Citadel", "thrun"], [], "/api/card/Darksteel%20Citadel?name=thrun"),
]  # fmt: skip


@pytest.mark.parametrize(("names", "args", "route"), SAME_JSON, ids=[r for *_, r in SAME_JSON])
def test_the_card_route_answers_the_cli_json(
    home: Path, base: str, names: list[str], args: list[str], route: str
) -> None:
    answer = fetch(base, route)
    assert answer.status == 200, answer.body
    assert answer.json() == cli_json(home, ["card", *names, *args, "--json"])


def test_rules_come_from_the_edition_asked_for(base: str) -> None:
    newest = fetch(base, "/api/card/Darksteel%20Citadel").json()
    assert (newest["edition"], newest["cards"][0]["rules"]) == ("2026-01-16", ["702.12"])
    older = fetch(base, "/api/card/Darksteel%20Citadel?edition=2013").json()
    assert older["edition"] == "2013-07-13"
    assert fetch(base, "/api/card/Darksteel%20Citadel?edition=sample").json()["edition"] is None


# (the names given to `judge card`, its other arguments, the route, the route's status)
SAME_ERROR = [
    (["Xyzzy Plugh"], [], "/api/card/Xyzzy%20Plugh", 404),
    (["Platinum"], [], "/api/card/Platinum", 404),  # the start of two names
    (["Darksteel Citadel", "nothing like it"], [],
     "/api/card?name=Darksteel+Citadel&name=nothing+like+it", 404),
    (["Darksteel Citadel"], ["-e", "1999-04-23"],
     "/api/card/Darksteel%20Citadel?edition=1999-04-23", 404),
]  # fmt: skip


@pytest.mark.parametrize(("names", "args", "route", "status"), SAME_ERROR)
def test_card_errors_are_json_with_the_cli_message(
    home: Path, base: str, names: list[str], args: list[str], route: str, status: int
) -> None:
    answer = fetch(base, route)
    assert answer.status == status
    expected = _cli_error(home, ["card", *names, *args, "--json"])
    assert answer.json() == {"error": expected, "status": status}


def test_a_card_route_without_a_name_is_a_bad_request(base: str) -> None:
    for route in ("/api/card", "/api/card/", "/api/card?name=", "/api/card/%20"):
        answer = fetch(base, route)
        assert answer.status == 400, route
        assert answer.json() == {
            "error": "give a card name: /api/card/NAME, or /api/card?name=A&name=B",
            "status": 400,
        }


def test_no_card_data_is_a_404_that_says_how_to_get_it() -> None:
    empty = _home(with_cards=False)
    with running(empty) as url:
        answer = fetch(url, "/api/card/Darksteel%20Citadel")
    assert answer.status == 404
    assert answer.json()["error"] == _cli_error(empty, ["card", "Darksteel Citadel"])
    assert "Run `judge cards update`" in answer.json()["error"]


def test_card_data_stored_while_serving_answers_at_once(tmp_path: Path) -> None:
    served = _home(with_cards=True)
    store = CardStore(served)
    with running(served) as url:
        # Several clients first, so that several worker threads hold the old snapshot open.
        threads = [threading.Thread(target=fetch, args=(url, "/api/card/thrun")) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert fetch(url, "/api/card/thrun").json()["source"]["date"] == "2030-01-01"
        store.import_cards(write_cards(tmp_path / "newer.json", atomic(date="2031-05-05")))
        dates = {fetch(url, "/api/card/thrun").json()["source"]["date"] for _ in range(20)}
        assert dates == {"2031-05-05"}


def test_many_clients_at_once_all_answer_right(base: str) -> None:
    expected = {
        "Darksteel Citadel": fetch(base, "/api/card/Darksteel%20Citadel").json(),
        "delver": fetch(base, "/api/card/delver").json(),
        "Xyzzy": fetch(base, "/api/card/Xyzzy").json(),
    }
    wrong: list[str] = []

    def client(index: int) -> None:
        for i in range(25):
            name = list(expected)[(index + i) % len(expected)]
            answer = fetch(base, "/api/card/" + quoted(name))
            if answer.json() != expected[name]:
                wrong.append(name)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    assert wrong == []


def test_each_worker_thread_keeps_one_connection(home: Path) -> None:
    from judge_cli.serve.state import WarmCards

    warm = WarmCards(home)
    seen: dict[str, int] = {}

    def worker(label: str) -> None:
        first = warm.get()
        assert warm.get() is first  # the same connection on the next request
        assert first.get("thrun")[0].card.name == "Thrun, the Last Troll"
        seen[label] = id(first)

    threads = [threading.Thread(target=worker, args=(str(i),)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(seen.values())) == 4
    warm.close()  # from another thread than the ones that opened them
