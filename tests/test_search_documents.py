"""Tournament documents and card rulings in ``judge search`` (``--in ipg|mtr|jar|rulings|all``).

A data folder of our own: the small fixture CR, IPG, MTR and JAR, and the small AtomicCards
fixture; each through the commands a user runs (``judge index build``, ``judge cards import``).
The server's ``/api/search?in=`` is compared with the CLI on the same folder.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judge_cli.cli import cli

from .cardfixture import write_cards

FIXTURES = Path(__file__).parent / "fixtures"
DOCS = [FIXTURES / n for n in ("mini-cr.txt", "mini-ipg.txt", "mini-mtr.txt", "mini-jar.txt")]


def run(home: Path, *argv: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(argv), env={"JUDGE_HOME": str(home), "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


def search_json(home: Path, *argv: str) -> Any:
    code, out, err = run(home, "search", *argv, "--json")
    assert code == 0, out + err
    return json.loads(out)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("search-docs")
    home = root / "home"
    code, out, err = run(home, "index", "build", *map(str, DOCS))
    assert code == 0, out + err
    cards = write_cards(root / "cards.json")
    code, out, err = run(home, "cards", "import", str(cards))
    assert code == 0, out + err
    return home


@pytest.fixture
def bare_home(tmp_path: Path) -> Path:
    """A data folder with the CR alone: no documents, no cards."""
    home = tmp_path / "home"
    code, out, err = run(home, "index", "build", str(FIXTURES / "mini-cr.txt"))
    assert code == 0, out + err
    return home


def test_documents_indexed_when_stored(home: Path) -> None:
    folders = list((home / "cache").glob("documents-*"))
    assert len(folders) == 1
    assert (folders[0] / "search" / "CURRENT").is_file()


def test_ipg_section_found_first_with_design_keys(home: Path) -> None:
    data = search_json(home, "opponent forgot their upkeep trigger, penalty?", "--in", "ipg")
    first = data["results"][0]
    assert first["id"] == "ipg:2.1"
    assert first["kind"] == "section"
    assert first["document"] == "ipg"
    assert first["number"] == "2.1"
    assert first["title"] == "Game Play Error — Missed Trigger"
    assert first["penalty"] == "No Penalty"
    assert first["document_edition"] == "2030-05-01"
    assert all(r["document"] == "ipg" for r in data["results"])


def test_changes_from_previous_versions_not_searched(home: Path) -> None:
    data = search_json(home, "changes from previous versions written for the tests", "--in", "ipg")
    assert all("Changes" not in (r["title"] or "") for r in data["results"])


def test_mtr_scope_keeps_to_the_mtr(home: Path) -> None:
    data = search_json(home, "conceding or intentionally drawing", "--in", "mtr")
    assert data["results"][0]["id"] == "mtr:2.2"
    assert {r["document"] for r in data["results"]} == {"mtr"}


def test_all_finds_a_tournament_section_beside_the_rules(home: Path) -> None:
    data = search_json(home, "missed trigger penalty", "--limit", "20")
    ids = [r["id"] for r in data["results"]]
    assert "ipg:2.1" in ids


def test_markdown_names_document_section_and_penalty(home: Path) -> None:
    code, out, _err = run(home, "search", "forgot upkeep trigger penalty", "--in", "ipg")
    assert code == 0
    assert "\nIPG 2.1 Game Play Error — Missed Trigger (No Penalty)\n" in out


def test_rulings_scope_gives_ruling_records(home: Path) -> None:
    data = search_json(home, "Darksteel Citadel cast as a spell", "--in", "rulings")
    first = data["results"][0]
    assert first["kind"] == "ruling"
    assert first["cards"] == ["Darksteel Citadel"]
    assert first["date"] == "2014-07-18"
    assert "cast as a spell" in first["snippet"]
    assert data["rulings"] == []  # beside the results only in a search of everything


def test_all_shows_rulings_of_named_cards_beside_results(home: Path) -> None:
    data = search_json(home, "can Darksteel Citadel be cast as a spell")
    assert [r["cards"] for r in data["rulings"]][:1] == [["Darksteel Citadel"]]
    assert all(r["kind"] != "ruling" for r in data["results"])
    code, out, _err = run(home, "search", "can Darksteel Citadel be cast as a spell")
    assert code == 0
    assert "\nRulings of the cards named\n" in out
    assert "\nDarksteel Citadel (ruling of 2014-07-18)\n" in out


def test_all_shows_no_rulings_when_no_card_is_named(home: Path) -> None:
    data = search_json(home, "can a land be cast as a spell")
    assert data["rulings"] == []


def test_ruling_text_printed_without_control_characters(home: Path) -> None:
    code, out, _err = run(home, "search", "beware here", "--in", "rulings")
    assert code == 0
    assert "Beware" in out
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", out)


def test_scope_of_documents_without_documents_is_an_error(bare_home: Path) -> None:
    code, out, err = run(bare_home, "search", "missed trigger", "--in", "ipg")
    assert code == 1
    assert (out + err).startswith("Error: ")
    assert "Traceback" not in out + err


def test_rulings_scope_without_cards_is_an_error(bare_home: Path) -> None:
    code, out, err = run(bare_home, "search", "cast", "--in", "rulings")
    assert code == 1
    assert (out + err).startswith("Error: ")


def test_without_documents_or_cards_all_is_the_edition_alone(bare_home: Path) -> None:
    from index.search import Searcher
    from index.store import EditionStore

    data = search_json(bare_home, "state-based actions legend rule", "--no-semantic")
    assert data["rulings"] == []
    store = EditionStore(bare_home)
    build = store.build_path(store.dates()[-1])
    assert build is not None
    with Searcher.open(build, edition=store.dates()[-1]) as searcher:
        alone = searcher.search("state-based actions legend rule").to_json()
    assert [(r["id"], r["score"]) for r in data["results"]] == [
        (r["id"], r["score"]) for r in alone["results"]
    ]
    assert not (bare_home / "cache").exists() or not list((bare_home / "cache").glob("documents-*"))


def test_rulings_index_rebuilt_when_missing(home: Path, tmp_path: Path) -> None:
    copy = tmp_path / "home"
    shutil.copytree(home, copy)
    (build,) = [p for p in (copy / "cards").iterdir() if (p / "search").is_dir()]
    shutil.rmtree(build / "search")
    code, out, err = run(copy, "search", "Darksteel Citadel cast", "--in", "rulings", "--json")
    assert code == 0, out + err
    assert "Indexing the rulings" in err
    assert json.loads(out)["results"][0]["kind"] == "ruling"
    assert (build / "search" / "CURRENT").is_file()


def test_newer_document_edition_replaces_the_index(home: Path, tmp_path: Path) -> None:
    copy = tmp_path / "home"
    shutil.copytree(home, copy)
    text = (FIXTURES / "mini-mtr.txt").read_text(encoding="utf-8")
    newer = tmp_path / "mini-mtr-2031.txt"
    newer.write_text(text.replace("Effective June 2, 2030", "Effective June 2, 2031"), "utf-8")
    before = set((copy / "cache").glob("documents-*"))
    code, out, err = run(copy, "index", "build", str(newer))
    assert code == 0, out + err
    after = set((copy / "cache").glob("documents-*"))
    assert len(after) == 1 and after != before
    data = search_json(copy, "conceding or intentionally drawing", "--in", "mtr")
    assert data["results"][0]["document_edition"] == "2031-06-02"


def test_select_documents_goes_with_the_cr_edition(home: Path, tmp_path: Path) -> None:
    from index.search.tournament import select_documents
    from index.tournament.store import DocumentStore

    store = DocumentStore(home)
    newest = {c.kind: c.edition for c in select_documents(store, "2031-01-01", ["2031-01-01"])}
    assert newest == {"ipg": "2030-05-01", "mtr": "2030-06-02", "jar": newest["jar"]}
    # An older CR edition, followed by one before every document: each document's oldest.
    older = select_documents(store, "2020-01-01", ["2020-01-01", "2021-01-01"])
    assert {c.kind for c in older} == {"ipg", "mtr", "jar"}


def test_the_first_later_edition_is_the_one_the_stored_dates_give(tmp_path: Path) -> None:
    from index.extras import _first_later
    from index.store import EditionStore

    editions = tmp_path / "editions"
    for date in ("2020-01-01", "2022-01-01", "2024-01-01"):
        (editions / date / "b-1").mkdir(parents=True)
        (editions / date / "b-1" / "edition.json").write_text("{}", "utf-8")
        (editions / date / "CURRENT").write_text("b-1", "utf-8")
    (editions / "2021-01-01" / "b-1").mkdir(parents=True)  # never went live
    (editions / ".2023-01-01").mkdir()
    (editions / "2023-06-01").write_text("not a folder", "utf-8")
    store = EditionStore(tmp_path)
    assert store.dates() == ["2020-01-01", "2022-01-01", "2024-01-01"]
    for date in ("2019-01-01", "2020-01-01", "2021-01-01", "2022-01-01", "2024-01-01"):
        assert _first_later(store, date) == [d for d in store.dates() if d > date][:1]
    assert _first_later(EditionStore(tmp_path / "nothing"), "2020-01-01") == []


def test_document_phrasings_file_is_well_formed() -> None:
    from index.search.tournament import ASKED_DOCUMENTS_DIR, read_document_asked

    files = sorted(ASKED_DOCUMENTS_DIR.glob("*.tsv"))
    assert {p.name for p in files} >= {"ipg.tsv", "mtr.tsv"}
    for path in files:
        assert read_document_asked(path.read_text(encoding="utf-8"), path.name)
    with pytest.raises(ValueError, match=r"bad\.tsv, line 1"):
        read_document_asked("ipg:2.1\tonly two fields\n", "bad.tsv")


def test_server_search_matches_cli_in_every_new_scope(home: Path) -> None:
    pytest.importorskip("starlette", reason="the serve extra is not installed")
    pytest.importorskip("uvicorn", reason="the serve extra is not installed")
    import urllib.parse

    from .servefixture import fetch, running

    with running(home) as base:
        for scope, q in (
            ("ipg", "forgot upkeep trigger"),
            ("mtr", "conceding"),
            ("jar", "judge"),
            ("documents", "trigger"),
            ("rulings", "Darksteel Citadel"),
            ("all", "can Darksteel Citadel be cast"),
        ):
            answer = fetch(base, f"/api/search?q={urllib.parse.quote(q)}&in={scope}")
            assert answer.status == 200, (scope, answer.body)
            assert json.loads(answer.body) == search_json(home, q, "--in", scope), scope


def test_rulings_indexed_inside_the_snapshot_by_the_import(home: Path) -> None:
    live = (home / "cards" / "CURRENT").read_text(encoding="utf-8").strip()
    assert (home / "cards" / live / "search" / "CURRENT").is_file()
    code, _out, err = run(home, "search", "Darksteel Citadel", "--in", "rulings")
    assert code == 0
    assert "Indexing" not in err
