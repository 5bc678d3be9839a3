"""Faults: ``kill -9`` in the middle of a write, a full disk, a read-only data folder.

Afterwards every stored edition, document, card snapshot, note and model answers byte for byte
as before, and nothing set aside by the failed write is left after the next write. The kill
points are chosen by waiting for a marker (a build folder, a file in it), never by sleeping.
Kills of ``cards import`` are in tests/test_cards_import.py; the single-slot mechanics in
tests/test_atomic.py.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge_cli.cli import cli

from .cardfixture import write_cards
from .conftest import CORPUS, FIXTURES, corpus_file, tree_digest

ROOT = Path(__file__).resolve().parents[1]
DOCS = CORPUS.parent / "judge-docs"
MODEL = CORPUS.parent / "models" / "all-MiniLM-L6-v2"
NOTES = "# House rules\n\nNo proxies at this store.\n"
# What a write sets aside: never to be found once a later write has run.
SET_ASIDE = (".tmp-", ".trash-", ".search-", ".notes-", ".sample-", ".download-")
ASKED = [
    ["editions"],
    ["editions", "--json"],
    ["rule", "100.1"],
    ["rule", "704.5j", "--edition", "2030-03-01"],
    ["define", "legend rule"],
    ["search", "legend rule"],
    ["search", "proxies", "--in", "all"],
    ["notes"],
    ["cards"],
    ["card", "Platinum Angel"],
]
MTR_ASKED = [["mtr", "2.5"], ["search", "outside assistance", "--in", "all"]]


def run(home: Path, *argv: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(argv), env={"JUDGE_HOME": str(home), "NO_COLOR": "1"})
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def answers(home: Path, asked: list[list[str]]) -> dict[str, tuple[int, str]]:
    return {" ".join(argv): run(home, *argv) for argv in asked}


def leftovers(home: Path) -> list[str]:
    """What a failed write left: set-aside names, and builds that are neither live nor retired."""
    found = []
    for path in home.rglob("*"):
        rel = str(path.relative_to(home))
        if path.name.startswith(SET_ASIDE):
            found.append(rel)
        elif path.name.startswith("b-") and path.is_dir():
            pointer = path.parent / "CURRENT"
            live = pointer.is_file() and pointer.read_text(encoding="utf-8").strip() == path.name
            if not live and not (path / ".stale").exists():
                found.append(rel)
    return sorted(found)


def _judge(home: Path, *argv: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "JUDGE_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "judge_cli", *argv],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def kill_at(home: Path, argv: list[str], marker: Callable[[], bool], point: str) -> None:
    """Starts ``judge ARGV`` and kills it with SIGKILL as soon as ``marker()`` holds."""
    proc = _judge(home, *argv)
    deadline = time.monotonic() + 120
    while not marker():
        if proc.poll() is not None:
            pytest.fail(f"{point}: judge {' '.join(argv)} ended before the marker ({proc.poll()})")
        assert time.monotonic() < deadline, f"{point}: no marker in 120 s"
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL, f"{point}: it finished before the kill"
    assert proc.stderr is not None
    proc.stderr.close()


def building(folder: Path, inside: str = "") -> Callable[[], bool]:
    """A marker: a build in progress under ``folder`` (holding ``inside``, if given)."""

    def found() -> bool:
        with contextlib.suppress(OSError):
            for build in folder.glob("b-*"):
                if (build / ".owner").exists() and (not inside or any(build.glob(inside))):
                    return True
        return False

    return found


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder holding an edition of the corpus, the small CR, notes and cards."""
    root = tmp_path_factory.mktemp("faults")
    home = root / "home"
    notes = root / "house-rules.md"
    notes.write_text(NOTES, encoding="utf-8")
    cr = corpus_file("19990423")
    for argv in (
        ["index", "build", str(cr), str(FIXTURES / "mini-cr.txt"), str(notes)],
        ["cards", "import", str(write_cards(root / "cards.json"))],
    ):
        code, out = run(home, *argv)
        assert code == 0, out
    return home


@pytest.fixture(scope="module")
def before(home: Path) -> dict[str, tuple[int, str]]:
    found = answers(home, ASKED)
    assert found["rule 100.1"][0] == 0 and found["card Platinum Angel"][0] == 0
    assert "No proxies" in found["search proxies --in all"][1]
    return found


def test_kill_9_during_index_build_of_an_edition(
    home: Path, before: dict[str, tuple[int, str]]
) -> None:
    cr = str(corpus_file("19990423"))
    slot = home / "editions" / "1999-04-23"
    points = {
        "build folder made": building(slot),
        "rule files written": building(slot, "rules/*.json"),
        "search index being written": building(slot, "search/b-*"),
    }
    for point, marker in points.items():
        kill_at(home, ["index", "build", cr], marker, point)
        assert answers(home, ASKED) == before, point
    # The first build of an edition not stored yet, killed: no edition appears, not even damaged.
    kill_at(
        home,
        ["index", "build", str(corpus_file("20030315"))],
        building(home / "editions" / "2003-03-15", "rules"),
        "first build",
    )
    assert answers(home, ASKED) == before
    assert leftovers(home), "the killed builds are still there until the next write"
    code, out = run(home, "index", "build", cr)
    assert code == 0, out
    assert answers(home, ASKED) == before
    assert [p for p in leftovers(home) if "1999-04-23" in p] == []
    # A killed first build is removed by the next write to any edition.
    assert not (home / "editions" / "2003-03-15").exists()
    assert leftovers(home) == []


def test_kill_9_during_index_build_of_a_pdf(home: Path) -> None:
    mtr = DOCS / "mtr-20240513.pdf"
    if not mtr.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"{mtr} is missing: CI must run the document tests")
        pytest.skip("../shared/judge-docs is not beside this clone (the real PDFs live there)")
    code, out = run(home, "index", "build", str(mtr))
    assert code == 0, out
    expected = answers(home, MTR_ASKED)
    assert expected["mtr 2.5"][0] == 0
    slot = home / "documents" / "mtr" / "2024-05-13"
    for point, marker in {
        "build folder made": building(slot),
        "sections written": building(slot, "sections/*"),
    }.items():
        kill_at(home, ["index", "build", str(mtr)], marker, point)
        assert answers(home, MTR_ASKED) == expected, point
    assert run(home, "index", "build", str(mtr))[0] == 0
    assert answers(home, MTR_ASKED) == expected
    assert leftovers(home) == []


def test_kill_9_during_model_import(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime", reason="the semantic extra is not installed")
    if not (MODEL / "onnx" / "model.onnx").is_file():
        if os.environ.get("CI"):
            pytest.fail(f"{MODEL} is missing: CI must run the model tests")
        pytest.skip("../shared/models is not beside this clone (the real model lives there)")
    home = tmp_path / "home"
    assert run(home, "model", "import", str(MODEL))[0] == 0
    expected = answers(home, [["model"], ["model", "--json"]])
    slot = home / "models" / MODEL.name
    for point, marker in {
        "copying the network": building(slot, "onnx/model.onnx"),
        "preparing its copy": building(slot, "onnx/model.prepared.*"),
    }.items():
        kill_at(home, ["model", "import", str(MODEL)], marker, point)
        assert answers(home, [["model"], ["model", "--json"]]) == expected, point
    assert run(home, "model", "import", str(MODEL))[0] == 0
    assert leftovers(home) == []


@contextlib.contextmanager
def mounted(target: Path, *options: str) -> Iterator[None]:
    """``mount OPTIONS`` onto ``target`` for the block (root only: skips with a reason)."""
    target.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["mount", *options, str(target)], capture_output=True, check=False)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount here (needs root): {proc.stderr.decode(errors='replace')}")
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(target)], check=False)


def _writes(root: Path) -> list[list[str]]:
    notes = root / "more-notes.md"
    notes.write_text("# More\n\n" + "A judge's note.\n" * 2000, encoding="utf-8")
    cards = write_cards(root / "newer.json", None)
    return [
        ["index", "build", str(corpus_file("20030315"))],
        ["index", "build", str(corpus_file("19990423"))],
        ["index", "build", str(notes)],
        ["cards", "import", str(cards)],
        ["index", "remove", "2030-03-01"],
        ["notes", "remove", "house-rules"],
    ]


def _small_home(home: Path, root: Path) -> None:
    notes = root / "house-rules.md"
    notes.write_text(NOTES, encoding="utf-8")
    for argv in (
        ["index", "build", str(corpus_file("19990423")), str(FIXTURES / "mini-cr.txt"), str(notes)],
        ["cards", "import", str(write_cards(root / "cards.json"))],
    ):
        code, out = run(home, *argv)
        assert code == 0, out


def test_a_full_disk_changes_nothing(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    with mounted(disk, "-t", "tmpfs", "-o", "size=16m", "tmpfs"):
        home = disk / "home"
        _small_home(home, tmp_path)
        expected = answers(home, ASKED)
        # Fill the disk, then give back too little for any build.
        filler = disk / "filler"
        with filler.open("wb") as fh, contextlib.suppress(OSError):
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        stored = tree_digest(home)
        for argv in _writes(tmp_path)[:4]:
            code, out = run(home, *argv)
            assert code == 1 and out.startswith("Error: "), (argv, out)
            assert "No space left on device" in out or "disk is full" in out, (argv, out)
            assert tree_digest(home) == stored, argv
        assert answers(home, ASKED) == expected
        filler.unlink()
        assert run(home, "index", "build", str(FIXTURES / "mini-cr.txt"))[0] == 0
        assert answers(home, ASKED) == expected
        assert leftovers(home) == []


def test_a_read_only_home_answers_and_refuses_writes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _small_home(home, tmp_path)
    expected = answers(home, ASKED)
    stored = tree_digest(home)
    with mounted(home, "--bind", str(home)):
        proc = subprocess.run(["mount", "-o", "remount,bind,ro", str(home)], check=False)
        if proc.returncode != 0:
            pytest.skip("cannot remount read-only here")
        for argv in _writes(tmp_path):
            code, out = run(home, *argv)
            assert code == 1 and out.startswith("Error: "), (argv, out)
            assert "Read-only file system" in out, (argv, out)
        assert answers(home, ASKED) == expected
    assert tree_digest(home) == stored
    assert leftovers(home) == []
