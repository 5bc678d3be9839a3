"""``judge cards update`` against a real HTTP server on 127.0.0.1 serving copies of our fixture:
each compression, the published sha256 and ``Meta.json``, the download's own sha256, the output.

The failures are in ``test_cards_update_failures.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from index.cards.update import CardUpdateResult
from judge_cli.cli import cli

from .cardfixture import atomic, write_cards
from .cardupdatefixture import FILE, answers, cards_bytes, leftovers, publish, run, sha
from .conftest import cards_file, tree_digest
from .httpfixture import Route, Server, serve


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    # A proxy from the environment would send loopback requests elsewhere.
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[Server]:
    with serve() as running:
        yield running


@pytest.fixture
def stored(judge_home: Path, tmp_path: Path) -> Path:
    """A data folder with the fixture's snapshot of 2030-01-01, imported from a file."""
    code, out, _ = run("cards", "import", str(write_cards(tmp_path / "first.json")))
    assert code == 0, out
    return judge_home


# --- success ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["xz", "gzip", "json"])
def test_update_reads_each_compression_by_content(
    server: Server, judge_home: Path, kind: str
) -> None:
    # Every copy is served under the .json.xz name: its first bytes say what it is.
    body = cards_bytes(kind=kind)
    url = publish(server, FILE, body)
    code, out, err = run("cards", "update", "--url", url)
    assert (code, out, err) == (
        0,
        f"Stored the card data of 2031-02-02 from {url}: 13 cards, 15 faces, 6 rulings.\n",
        "",
    )
    assert answers(judge_home, "2031-02-02")
    info = json.loads(run("cards", "--json")[1])
    assert (info["source"], info["sha256"], info["date"]) == (url, sha(body), "2031-02-02")
    assert sorted(p.name for p in (judge_home / "cards").iterdir())[0] == "CURRENT"
    assert leftovers(judge_home) == []
    assert server.fetched(FILE) == 1


def test_the_default_address_is_mtgjsons_xz() -> None:
    from index.cards.update import DEFAULT_URL
    from judge_cli.errors import CARDS_URL

    assert DEFAULT_URL == CARDS_URL == "https://mtgjson.com/api/v5/AtomicCards.json.xz"
    result = CliRunner().invoke(cli, ["cards", "update", "--help"], prog_name="judge")
    assert result.exit_code == 0
    out = " ".join(result.output.split())
    assert out.startswith("Usage: judge cards update [OPTIONS]")
    for option in ("--url URL", "--check", "--json", "AtomicCards.json.xz"):
        assert option in out


def test_a_local_file_is_read_without_asking_for_hashes(judge_home: Path, tmp_path: Path) -> None:
    path = write_cards(tmp_path / "AtomicCards.json.gz", atomic(date="2031-03-03"))
    code, out, _ = run("cards", "update", "--url", str(path), "--json")
    assert code == 0, out
    assert json.loads(out) == {
        "status": "added",
        "date": "2031-03-03",
        "url": str(path),
        "stored": "2031-03-03",
        "checked": "download",
    }


def test_a_redirect_is_followed_and_the_address_asked_is_recorded(
    server: Server, judge_home: Path
) -> None:
    publish(server, "/mirror/AtomicCards.json.xz", cards_bytes(), sidecar=False)
    server.routes["/latest"] = Route(
        status=302, headers={"Location": "/mirror/AtomicCards.json.xz"}
    )
    code, out, _ = run("cards", "update", "--url", server.url("/latest"), "--json")
    assert code == 0, out
    assert json.loads(out)["status"] == "added"
    assert json.loads(run("cards", "--json")[1])["source"] == server.url("/latest")


# --- already stored: without downloading where the server says so ---------------------------


def test_already_stored_by_the_published_sha256(server: Server, judge_home: Path) -> None:
    url = publish(server, FILE, cards_bytes())
    assert run("cards", "update", "--url", url)[0] == 0
    before = tree_digest(judge_home)
    code, out, _ = run("cards", "update", "--url", url)
    assert (code, out) == (
        0,
        f"The card data of 2031-02-02 ({url}) is already stored; nothing to do.\n",
    )
    code, out, _ = run("cards", "update", "--url", url, "--check", "--json")
    assert json.loads(out) == {
        "status": "up-to-date",
        "date": "2031-02-02",
        "url": url,
        "stored": "2031-02-02",
        "checked": "sha256",
    }
    assert run("cards", "update", "--url", url, "--check")[1] == (
        "Up to date: the card data offered, 2031-02-02, is already stored.\n"
    )
    assert server.fetched(FILE) == 1  # 30 MB once, then 64 bytes each time
    assert tree_digest(judge_home) == before


def test_the_same_build_in_another_compression_is_not_fetched(
    server: Server, judge_home: Path
) -> None:
    # MTGJSON's files of one build say its version in their own meta, as Meta.json does.
    meta = ("2031-02-02", "5.2.2+20310202")
    gz = publish(server, "/api/v5/AtomicCards.json.gz", cards_bytes(kind="gzip", version=meta[1]))
    publish(server, FILE, cards_bytes(version=meta[1]), meta=meta)
    assert run("cards", "update", "--url", gz)[0] == 0
    code, out, _ = run("cards", "update", "--url", server.url(FILE), "--json")
    assert (json.loads(out)["status"], json.loads(out)["checked"]) == ("already-stored", "meta")
    assert server.fetched(FILE) == 0


def test_meta_json_tells_newer_and_older_without_a_download(server: Server, stored: Path) -> None:
    before = tree_digest(stored)
    url = publish(server, FILE, cards_bytes("2031-02-02"), meta=("2031-02-02", "5.x"))
    code, out, _ = run("cards", "update", "--url", url, "--check")
    assert (code, out) == (
        0,
        f"Newer card data of 2031-02-02 is available: {url}.\n"
        "Run `judge cards update` to download it.\n",
    )
    url = publish(server, FILE, cards_bytes("2029-09-09"), meta=("2029-09-09", "5.x"))
    for args in ((), ("--check",)):
        code, out, _ = run("cards", "update", "--url", url, *args)
        assert (code, out) == (
            0,
            "Up to date: the card data offered, 2029-09-09, is older than the stored 2030-01-01.\n",
        )
    assert server.fetched(FILE) == 0
    assert tree_digest(stored) == before


def test_check_with_nothing_stored_downloads_nothing(server: Server, judge_home: Path) -> None:
    url = publish(server, FILE, cards_bytes(), sidecar=False)
    code, out, _ = run("cards", "update", "--url", url, "--check", "--json")
    assert json.loads(out) == {
        "status": "newer-available",
        "date": None,
        "url": url,
        "stored": None,
        "checked": "nothing-stored",
    }
    assert run("cards", "update", "--url", url, "--check")[1] == (
        f"Newer card data is available: {url}.\nRun `judge cards update` to download it.\n"
    )
    assert server.fetched(FILE) == 0
    assert not (judge_home / "cards").exists()


def test_without_hashes_or_meta_the_download_decides(
    server: Server, stored: Path, tmp_path: Path
) -> None:
    before = tree_digest(stored)
    # The very file stored: downloaded, its sha256 matches, nothing changes.
    first = (tmp_path / "first.json").read_bytes()
    url = publish(server, FILE, first, sidecar=False)
    code, out, _ = run("cards", "update", "--url", url, "--json")
    assert (json.loads(out)["status"], json.loads(out)["checked"]) == ("already-stored", "download")
    # A newer file: --check reads the date inside it and stores nothing.
    url = publish(server, FILE, cards_bytes("2031-02-02"), sidecar=False)
    code, out, _ = run("cards", "update", "--url", url, "--check", "--json")
    assert json.loads(out)["status"] == "newer-available"
    assert json.loads(out)["date"] == "2031-02-02"
    # An older file is not stored over a newer one.
    url = publish(server, FILE, cards_bytes("2029-09-09"), sidecar=False)
    code, out, _ = run("cards", "update", "--url", url)
    assert (code, out) == (
        0,
        "Up to date: the card data offered, 2029-09-09, is older than the stored 2030-01-01.\n",
    )
    assert tree_digest(stored) == before
    assert leftovers(stored) == []


def test_a_damaged_snapshot_is_replaced(server: Server, stored: Path) -> None:
    build = stored / "cards" / (stored / "cards" / "CURRENT").read_text().strip()
    (build / "snapshot.json").write_text("{damaged", encoding="utf-8")
    url = publish(server, FILE, cards_bytes())
    code, out, _ = run("cards", "update", "--url", url)
    assert code == 0, out
    assert answers(stored, "2031-02-02")


# --- the command's output ----------------------------------------------------------------------


def test_progress_on_a_terminal(
    server: Server, judge_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from judge_cli import common

    body = cards_bytes(kind="json")
    url = publish(server, FILE, body)
    monkeypatch.setattr(common, "stderr_is_terminal", lambda: True)
    code, out, err = run("cards", "update", "--url", url)
    assert code == 0 and out.startswith("Stored the card data of 2031-02-02")
    size = len(body) // 1024
    assert f"\rDownloading [{'#' * 30}] {size} / {size} KiB\n" in err
    assert f"\rImporting [{'#' * 30}] {size} / {size} KiB\n" in err
    # --json keeps standard error clean.
    code, out, err = run("cards", "update", "--url", url, "--json")
    assert (code, err) == (0, "")


def test_the_result_record() -> None:
    result = CardUpdateResult("already-stored", "2031-02-02", "u", "sha256", None)
    assert result.to_json() == {
        "status": "already-stored",
        "date": "2031-02-02",
        "url": "u",
        "stored": None,
        "checked": "sha256",
    }


def test_no_card_data_names_the_update(judge_home: Path) -> None:
    code, out, _ = run("cards")
    assert code == 0 and "Run `judge cards update` to download MTGJSON's AtomicCards file" in out


# --- the real card file, served over loopback -------------------------------------------------


def test_update_with_the_real_card_file(server: Server, judge_home: Path) -> None:
    body = cards_file().read_bytes()
    url = publish(server, FILE, body)
    code, out, _ = run("cards", "update", "--url", url)
    assert (code, out) == (
        0,
        f"Stored the card data of 2026-07-03 from {url}: 34632 cards, 35033 faces, "
        "46241 rulings.\n",
    )
    code, out, _ = run("cards", "update", "--url", url, "--check", "--json")
    assert json.loads(out)["status"] == "up-to-date"
    assert server.fetched(FILE) == 1
