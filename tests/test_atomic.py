"""index.atomic: a slot's live build changes whole or not at all; leftovers go on the next write."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from index.atomic import Slot, write_text_atomic


def _fill(slot: Slot, text: str) -> Path:
    with slot.new_build() as build:
        (build / "data.txt").write_text(text, encoding="utf-8")
    live = slot.current()
    assert live is not None
    return live


def test_a_new_build_goes_live_only_when_complete(tmp_path: Path) -> None:
    slot = Slot(tmp_path / "thing")
    assert slot.current() is None
    first = _fill(slot, "one")
    with pytest.raises(RuntimeError), slot.new_build() as build:
        (build / "data.txt").write_text("half", encoding="utf-8")
        raise RuntimeError("disk full")
    assert slot.current() == first
    assert (first / "data.txt").read_text(encoding="utf-8") == "one"
    assert [p.name for p in (tmp_path / "thing").iterdir() if p.name.startswith("b-")] == [
        first.name
    ]


def test_a_failed_first_build_leaves_no_folder(tmp_path: Path) -> None:
    slot = Slot(tmp_path / "thing")
    with pytest.raises(KeyboardInterrupt), slot.new_build():
        raise KeyboardInterrupt
    assert not (tmp_path / "thing").exists()


def test_a_killed_build_is_removed_by_the_next_write(tmp_path: Path) -> None:
    folder = tmp_path / "thing"
    slot = Slot(folder)
    _fill(slot, "one")
    code = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from index.atomic import Slot\n"
        "with Slot(Path(sys.argv[1])).new_build() as b:\n"
        "    (b / 'data.txt').write_text('half')\n"
        "    os.kill(os.getpid(), 9)\n"
    )
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.run([sys.executable, "-c", code, str(folder)], env=env, check=False)
    assert proc.returncode == -9
    builds = sorted(p.name for p in folder.iterdir() if p.name.startswith("b-"))
    assert len(builds) == 2  # the killed one is still there ...
    assert (slot.current() / "data.txt").read_text(encoding="utf-8") == "one"  # type: ignore[operator]
    second = _fill(slot, "two")
    # ... until the next write, which keeps only the retired build (readers may be in it).
    left = sorted(p.name for p in folder.iterdir() if p.name.startswith("b-"))
    assert second.name in left and len(left) == 2
    assert all((folder / n / "data.txt").read_text(encoding="utf-8") != "half" for n in left)


def test_an_empty_or_dangling_pointer_means_nothing_is_live(tmp_path: Path) -> None:
    slot = Slot(tmp_path / "thing")
    _fill(slot, "one")
    write_text_atomic(slot.pointer, "")
    assert slot.current() is None
    write_text_atomic(slot.pointer, "b-gone\n")
    assert slot.current() is None
    write_text_atomic(slot.pointer, "../../etc\n")
    assert slot.current() is None


def test_set_aside_names_go_once_their_process_is_gone(tmp_path: Path) -> None:
    from index.atomic import clean_slots, private_dir

    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    parent = tmp_path / "editions"
    _fill(Slot(parent / "2030-01-01"), "one")
    (parent / f".tmp-{dead}-abc").write_text("half", encoding="utf-8")
    (parent / f".trash-{dead}-abc").mkdir()
    (parent / ".tmp-legacy").write_text("recent, owner unknown", encoding="utf-8")
    mine = private_dir(parent, ".trash-")
    abandoned = parent / "2031-01-01" / "b-killed"
    abandoned.mkdir(parents=True)
    (abandoned / ".owner").write_text(dead, encoding="utf-8")
    assert not Slot(parent / "2031-01-01").is_damaged()  # never stored, so not damaged
    clean_slots(parent)
    assert sorted(p.name for p in parent.iterdir()) == sorted(
        [".tmp-legacy", mine.name, "2030-01-01"]
    )
    assert (parent / "2030-01-01" / "CURRENT").is_file()
