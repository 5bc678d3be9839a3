"""Editions remember how their file was read; a worse reading replaces a better only if asked."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from index.store import EditionStore, ReplaceRefusedError
from judge_cli.cli import cli

from .conftest import corpus_file, tree_digest


def _text(cr_excerpt: Path) -> str:
    return cr_excerpt.read_bytes().decode("utf-8-sig")


def _cp1252(cr_excerpt: Path) -> bytes:
    """The same edition saved as Windows-1252: every quote is a single-byte guess now."""
    return _text(cr_excerpt).encode("cp1252")


def _one_bad_byte(cr_excerpt: Path) -> bytes:
    data = _text(cr_excerpt).encode("utf-8")
    return data[:400] + b"\xff" + data[400:]


def test_store_records_the_encoding(judge_home: Path, cr_excerpt: Path) -> None:
    store = EditionStore.from_env()
    info = store.add_bytes(_cp1252(cr_excerpt), "mini-1252.txt")
    assert (info.encoding, info.undecodable) == ("cp1252", 0)
    assert store.info("2030-03-01").to_json()["encoding"] == "cp1252"
    assert store.load("2030-03-01").document.encoding == "cp1252"


@pytest.mark.parametrize("worse", [_cp1252, _one_bad_byte])
def test_worse_reading_is_refused_unless_replace(
    judge_home: Path, cr_excerpt: Path, worse: object
) -> None:
    store = EditionStore.from_env()
    store.add_bytes(cr_excerpt.read_bytes(), cr_excerpt.name)
    before = tree_digest(judge_home)
    data = worse(cr_excerpt)  # type: ignore[operator]
    with pytest.raises(ReplaceRefusedError) as caught:
        store.add_bytes(data, "worse.txt")
    assert caught.value.edition == "2030-03-01"
    assert caught.value.stored.encoding == "utf-8-sig"
    assert tree_digest(judge_home) == before
    info = store.add_bytes(data, "worse.txt", replace=True)
    assert store.info("2030-03-01").source == "worse.txt"
    assert info.encoding in ("cp1252", "utf-8")


def test_same_file_better_file_and_equal_file_need_no_replace(
    judge_home: Path, cr_excerpt: Path
) -> None:
    store = EditionStore.from_env()
    store.add_bytes(_cp1252(cr_excerpt), "mini-1252.txt")
    store.add_bytes(_cp1252(cr_excerpt), "again.txt")  # the same bytes: a rebuild
    store.add_bytes(_cp1252(cr_excerpt) + b"\r\n", "other-1252.txt")  # a guess for a guess
    store.add_bytes(cr_excerpt.read_bytes(), cr_excerpt.name)  # better
    store.add_bytes(codecs.BOM_UTF16_LE + _text(cr_excerpt).encode("utf-16-le"), "u16.txt")
    assert store.info("2030-03-01").encoding == "utf-16"


def test_edition_stored_before_encodings_counts_as_utf8(judge_home: Path, cr_excerpt: Path) -> None:
    store = EditionStore.from_env()
    store.add_bytes(cr_excerpt.read_bytes(), cr_excerpt.name)
    build = store.build_path("2030-03-01")
    assert build is not None
    meta = json.loads((build / "meta.json").read_text(encoding="utf-8"))
    for key in ("encoding", "undecodable"):
        del meta[key]
    (build / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    assert store.info("2030-03-01").encoding == ""
    with pytest.raises(ReplaceRefusedError):
        store.add_bytes(_cp1252(cr_excerpt), "mini-1252.txt")


def test_the_2026_edition_is_not_replaced_by_a_damaged_copy(judge_home: Path) -> None:
    # Issue 16, item 4, on the real file: its BOM removed and one 0xFF byte added.
    data = corpus_file("20260116").read_bytes()
    damaged = data[3:5003] + b"\xff" + data[5003:]
    store = EditionStore.from_env()
    store.add_bytes(data, "cr-20260116.txt")
    with pytest.raises(ReplaceRefusedError, match="1 undecodable byte"):
        store.add_bytes(damaged, "damaged.txt")
    text = store.load("2026-01-16").document.rules["704.5j"].text
    assert text.endswith("This is called the “legend rule.”")


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_cli_index_build_replace_and_editions(
    judge_home: Path, cr_excerpt: Path, tmp_path: Path
) -> None:
    assert _invoke("index", "build", str(cr_excerpt))[0] == 0
    guess = tmp_path / "mini-1252.txt"
    guess.write_bytes(_cp1252(cr_excerpt))
    code, output = _invoke("index", "build", str(guess))
    assert code == 1
    assert output == (
        f"Error: {guess}: the 2030-03-01 edition is stored already, read as UTF-8; this file "
        "reads as Windows-1252, which is worse. Nothing was stored. If this is the file you "
        "want, run the command again with --replace.\n"
    )
    code, output = _invoke("index", "build", str(guess), "--replace")
    assert code == 0
    assert output == (
        "Stored edition 2030-03-01: 37 rules, 5 glossary entries, read as Windows-1252.\n"
    )
    code, output = _invoke("editions")
    assert output.endswith("mini-1252.txt  (newest)  (read as Windows-1252)\n")
    code, output = _invoke("index", "build", str(cr_excerpt), "--json")
    record = json.loads(output)[0]
    assert (record["encoding"], record["undecodable"]) == ("utf-8-sig", 0)
    assert _invoke("editions")[1].endswith("mini-cr.txt  (newest)\n")


def test_cli_index_build_size_cap(judge_home: Path, tmp_path: Path) -> None:
    # Issue 16: 50 MB was accepted; `update` capped at 16 MiB. One cap now, for both.
    big = tmp_path / "huge.txt"
    with big.open("wb") as fh:
        fh.truncate(50 * 1024 * 1024)
    code, output = _invoke("index", "build", str(big))
    assert code == 1
    assert output == (
        f"Error: {big}: it is larger than 16 MiB, the most a rules file may be. Nothing was "
        "stored. Is it the Comprehensive Rules .txt?\n"
    )
    assert tree_digest(judge_home) == {}
