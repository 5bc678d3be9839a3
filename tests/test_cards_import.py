"""``judge cards import``: every compression by content, streams, bad files, and kill -9.

Every failure must leave the stored snapshot byte-identical (``tree_digest``).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import lzma
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from index.cards.errors import CardFileError, OlderSnapshotError
from index.cards.lookup import CardDB
from index.cards.store import CardStore, import_cards
from judge_cli.cli import cli

from .cardfixture import atomic, face, small_cards, write_cards
from .conftest import tree_digest

ROOT = Path(__file__).resolve().parents[1]
NOTHING = "Nothing was stored; the card data stored before still answers."
USE = "Use MTGJSON's AtomicCards file (.json, .json.gz or .json.xz)."


def run(*args: str, stdin: bytes | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


@pytest.fixture
def stored(judge_home: Path, tmp_path: Path) -> Path:
    """A data folder with the fixture's snapshot (2030-01-01) stored."""
    code, out = run("cards", "import", str(write_cards(tmp_path / "first.json")))
    assert code == 0, out
    return judge_home


@pytest.mark.parametrize("kind", ["json", "gzip", "xz", "bzip2"])
def test_import_recognised_by_content(judge_home: Path, tmp_path: Path, kind: str) -> None:
    # Every file is named .json: the first bytes say what it is.
    path = write_cards(tmp_path / "AtomicCards.json", kind=kind)
    code, out = run("cards", "import", str(path))
    assert (code, out) == (
        0,
        "Stored the card data of 2030-01-01 from AtomicCards.json: 13 cards, 15 faces, "
        "6 rulings.\n",
    )
    code, out = run("cards")
    assert code == 0
    assert out.startswith(
        "Card data of 2030-01-01: 13 cards, 15 faces, 6 rulings, from AtomicCards.json (imported "
    )
    info = json.loads(run("cards", "--json")[1])
    assert {k: info[k] for k in ("date", "cards", "faces", "rulings", "source", "version")} == {
        "date": "2030-01-01",
        "cards": 13,
        "faces": 15,
        "rulings": 6,
        "source": "AtomicCards.json",
        "version": "5.test",
    }
    assert len(info["sha256"]) == 64


def test_import_from_a_stream(judge_home: Path) -> None:
    raw = gzip.compress(json.dumps(atomic()).encode())
    seen: list[tuple[int, int | None]] = []
    info = import_cards(
        io.BytesIO(raw), root=judge_home, name="download", progress=lambda d, t: seen.append((d, t))
    )
    assert (info.date, info.cards, info.source) == ("2030-01-01", 13, "download")
    assert seen and seen[-1] == (len(raw), None)
    code, out = run("cards", "import", "-", stdin=lzma.compress(json.dumps(atomic("x")).encode()))
    assert code == 1 and "'x'" not in out  # atomic("x") is not a data dict: see the next test
    data = {"Only Card": [face("Only Card", "Instant")]}
    code, out = run("cards", "import", "-", stdin=json.dumps(atomic(data, "2031-05-05")).encode())
    assert (code, out) == (
        0,
        "Stored the card data of 2031-05-05 from standard input: 1 cards, 1 faces, 0 rulings.\n",
    )


def test_meta_after_data_and_other_keys(judge_home: Path, tmp_path: Path) -> None:
    text = json.dumps(
        {"data": small_cards(), "extra": {"big": [1, 2, 3]}, "meta": {"date": "2030-02-02"}}
    )
    (tmp_path / "late.json").write_text(text, encoding="utf-8")
    info = import_cards(tmp_path / "late.json", root=judge_home)
    assert (info.date, info.cards, info.version) == ("2030-02-02", 13, "")


def _bad_files(tmp: Path) -> list[tuple[str, bytes, str]]:
    good = json.dumps(atomic()).encode()
    xz, gz = lzma.compress(good), gzip.compress(good)
    damaged = bytearray(gz)
    damaged[len(damaged) // 2 : len(damaged) // 2 + 40] = b"\x00" * 40
    wrong_type = atomic({"Bad Card": [face("Bad Card", "Instant", types="Instant")]})
    garbage = good + b" trailing words"
    broken = b'{"meta": {"date": "2030-01-01"}, "data": {"A": [{"name": "A",, }]}}'
    return [
        ("text.json", b"hello world, not json", "it is not JSON (it starts with b'hello ')"),
        (
            "error-page.json",
            b"<!DOCTYPE html><html><body>502 Bad Gateway</body></html>",
            "it is an HTML or XML page, not JSON (an error page saved in place of the file?)",
        ),
        (
            "html-in.json.xz",
            lzma.compress(b"\n  <html><body>Not Found</body></html>"),
            "it is an HTML or XML page, not JSON (an error page saved in place of the file?)",
        ),
        (
            "scryfall.json",
            b'[{"object": "card"}]',
            "it is a JSON list, not an MTGJSON AtomicCards object (Scryfall's bulk files are "
            "lists; use MTGJSON's AtomicCards.json)",
        ),
        ("cut.json.xz", xz[: len(xz) // 2], "the xz data is truncated"),
        ("cut.json.gz", gz[: len(gz) // 2], "the gzip data is truncated"),
        ("damaged.json.gz", bytes(damaged), "the gzip data is damaged ("),
        ("cut.json", good[: len(good) // 2], "it ends too soon, inside the entry of "),
        ("empty.json", b"", "it is empty"),
        ("blank.json", b"   \n", "it is empty"),
        (
            "nodata.json",
            json.dumps({"meta": {"date": "2030-01-01"}, "data": {}}).encode(),
            'its "data" object holds no cards',
        ),
        (
            "nokey.json",
            json.dumps({"meta": {"date": "2030-01-01"}}).encode(),
            'it has no "data" object: not an MTGJSON AtomicCards file',
        ),
        (
            "nodate.json",
            json.dumps({"meta": {"version": "5"}, "data": small_cards()}).encode(),
            'its "meta" has no "date" as YYYY-MM-DD (found None)',
        ),
        (
            "nometa.json",
            json.dumps({"data": small_cards()}).encode(),
            'it has no "meta" object, so no date to name the snapshot by',
        ),
        (
            "allprintings.json",
            json.dumps({"meta": {"date": "2030-01-01"}, "data": {"10E": {"cards": []}}}).encode(),
            "data['10E'] is an object, not a list of card faces (this looks like MTGJSON "
            "AllPrintings; use AtomicCards)",
        ),
        (
            "wrongtype.json",
            json.dumps(wrong_type).encode(),
            "data['Bad Card']: 'types' is not a list of strings",
        ),
        ("zip.json", b"PK\x03\x04\x14\x00rest", "it is a zip archive: unzip it and import the"),
        (
            "latin1.json",
            b'{"meta": {"date": "caf\xe9"}}',
            "it is not UTF-8 text (invalid continuation",
        ),
        ("garbage.json", garbage, "extra text after the JSON object at line 1, column "),
        (
            "broken.json",
            broken,
            "invalid JSON in the entry of 'A' at line 1, column 62: Expecting property name "
            "enclosed in double quotes",
        ),
    ]


def test_bad_files_change_nothing(stored: Path, tmp_path: Path) -> None:
    before = tree_digest(stored)
    for name, data, reason in _bad_files(tmp_path):
        path = tmp_path / name
        path.write_bytes(data)
        code, out = run("cards", "import", str(path))
        assert code == 1, name
        assert out.startswith(f"Error: {path}: {reason}"), (name, out)
        assert out.endswith(f". {NOTHING} {USE}\n"), (name, out)
        assert tree_digest(stored) == before, name
    code, out = run("cards", "import", str(tmp_path / "missing.json"))
    assert out.startswith(f"Error: {tmp_path / 'missing.json'}: cannot read it (No such file")
    assert tree_digest(stored) == before
    with CardDB.open(CardStore(stored)) as db:
        assert db.info.date == "2030-01-01" and db.get("platinum angel")


def test_bad_file_with_nothing_stored(judge_home: Path, tmp_path: Path) -> None:
    path = tmp_path / "page.json"
    path.write_bytes(b"<html></html>")
    code, out = run("cards", "import", str(path))
    assert code == 1 and out.endswith(f"Nothing was stored. {USE}\n")
    assert tree_digest(judge_home) == {}
    with pytest.raises(CardFileError) as exc:
        import_cards(path, root=judge_home)
    assert exc.value.file == str(path) and exc.value.reason.startswith("it is an HTML")


def test_older_file_is_refused_same_and_newer_replace(stored: Path, tmp_path: Path) -> None:
    before = tree_digest(stored)
    older = write_cards(tmp_path / "older.json", atomic(date="2029-12-31"))
    code, out = run("cards", "import", str(older))
    assert (code, out) == (
        1,
        f"Error: {older}: its card data is of 2029-12-31, older than the snapshot stored "
        "(2030-01-01). Nothing was changed.\n",
    )
    assert tree_digest(stored) == before
    with pytest.raises(OlderSnapshotError):
        import_cards(older, root=stored)
    again = {"Grizzly Bears": [face("Grizzly Bears", "Creature — Bear", power="2", toughness="2")]}
    code, _ = run("cards", "import", str(write_cards(tmp_path / "same.json", atomic(again))))
    assert code == 0
    assert json.loads(run("cards", "--json")[1])["cards"] == 1
    code, _ = run(
        "cards", "import", str(write_cards(tmp_path / "newer.json", atomic(date="2030-06-01")))
    )
    assert code == 0
    assert run("card", "thrun")[1].endswith("Oracle card data of 2030-06-01 (13 cards).\n")


def _synthetic(count: int, date: str) -> bytes:
    data: dict[str, Any] = {}
    for i in range(count):
        name = f"Synthetic Card {i:05d}"
        data[name] = [
            face(
                name,
                "Creature — Construct",
                manaCost="{3}",
                power="2",
                toughness="2",
                text=f"When this creature enters, scry {i % 7}. " * 4,
                keywords=["Flying"] if i % 3 else [],
                rulings=[{"date": "2020-01-01", "text": f"Ruling number {i} on this card."}],
            )
        ]
    return json.dumps(atomic(data, date)).encode()


def _live(home: Path) -> str:
    return (home / "cards" / "CURRENT").read_text(encoding="utf-8")


def _wait_for(predicate: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def _indexing(builds: set[Path]) -> bool:
    """Whether one of ``builds`` is indexing its rulings (its snapshot.json is written first)."""
    return any((b / "snapshot.json").exists() for b in builds)


def test_kill_9_during_import_leaves_the_previous_snapshot(stored: Path) -> None:
    payload = _synthetic(20000, "2031-01-01")
    live = _live(stored)
    live_files = tree_digest(stored / "cards" / live.strip())
    env = dict(os.environ)
    argv = [sys.executable, "-m", "judge_cli", "cards", "import", "-"]

    def building() -> list[Path]:
        return [p for p in (stored / "cards").glob("b-*") if p.name != live.strip()]

    def start(home: Path) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            argv,
            cwd=ROOT,
            env={**env, "JUDGE_HOME": str(home)},
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    # Where the kill lands: half-way through the input (the process waits on the pipe with a
    # half-filled database), just after the last byte, and while the rulings are indexed (the
    # build's snapshot.json is written just before: a marker, not a time, so load cannot move it).
    for point in ("half", "end", "indexing"):
        earlier = set(building())  # builds killed at the points before
        proc = start(stored)
        assert proc.stdin is not None
        if point == "half":
            proc.stdin.write(payload[: len(payload) // 2])
            proc.stdin.flush()
            _wait_for(lambda: any((b / "cards.sqlite").exists() for b in building()))
        else:
            proc.stdin.write(payload)
            proc.stdin.close()
            if point == "indexing":
                _wait_for(lambda: _indexing(set(building()) - earlier))  # noqa: B023
        assert proc.poll() is None, f"the import finished before the kill ({point})"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.close()
        assert _live(stored) == live, point
        assert tree_digest(stored / "cards" / live.strip()) == live_files, point
        code, out = run("card", "Platinum Angel")
        assert code == 0 and out.endswith("Oracle card data of 2030-01-01 (13 cards).\n"), point
        assert json.loads(run("cards", "--json")[1])["date"] == "2030-01-01"
    assert building(), "the killed imports left their folders (removed by the next import)"
    newer = json.dumps(atomic(date="2031-02-02")).encode()
    code, out = run("cards", "import", "-", stdin=newer)
    assert code == 0, out
    assert run("card", "thrun")[1].endswith("Oracle card data of 2031-02-02 (13 cards).\n")
    # The killed builds are gone; the one that answered before is kept a minute for readers.
    left = sorted(p.name for p in (stored / "cards").glob("b-*"))
    assert left == sorted([live.strip(), _live(stored).strip()])


def test_a_full_disk_changes_nothing(
    stored: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    import index.cards.store

    def full(*args: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(index.cards.store, "_write_database", full)
    before = tree_digest(stored)
    code, out = run(
        "cards", "import", str(write_cards(tmp_path / "new.json", atomic(date="2031-01-01")))
    )
    assert code == 1
    assert out.startswith(f"Error: could not write to {stored} (")
    assert out.endswith(f"cards.sqlite: database or disk is full). {NOTHING}\n")
    assert tree_digest(stored) == before


def test_an_endless_entry_is_refused_without_reading_on(
    stored: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import index.cards.reader

    monkeypatch.setattr(index.cards.reader, "MAX_ENTRY_CHARS", 100_000)
    # A string that never ends, longer than any card entry may be, in a file that goes on.
    text = '{"meta": {"date": "2030-01-01"}, "data": {"A": [{"name": "' + "x" * 3_000_000
    path = tmp_path / "endless.json"
    path.write_text(text, encoding="utf-8")
    before = tree_digest(stored)
    code, out = run("cards", "import", str(path))
    assert code == 1
    assert out.startswith(
        f"Error: {path}: invalid JSON in the entry of 'A' at line 1, column 58: "
        "Unterminated string starting at"
    )
    assert tree_digest(stored) == before
