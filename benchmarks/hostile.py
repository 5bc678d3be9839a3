"""Issue 16, before and after: each hostile input run against an old checkout and this one.

    python benchmarks/hostile.py --old OLD_CHECKOUT [--out benchmarks/hostile-report.md]

OLD_CHECKOUT is a worktree of the commit before the fixes (``git worktree add --detach DIR
a435ca1``); both are run by this interpreter with PYTHONPATH set to the checkout, each command in
a fresh data folder, stopped after :data:`TIMEOUT` seconds and capped at :data:`MEMORY` bytes of
address space (the old YAML loader took 5.4 GB). The table says the exit code, the first line of
the answer (or the traceback's last line) and the time. Needs ../shared/corpus (a real CR).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "tests" / "fixtures" / "mini-cr.txt"
CR_1999 = ROOT.parent / "shared" / "corpus" / "cr-19990423.txt"
TIMEOUT = 30.0
MEMORY = 2 << 30
EVIL = "\x1b[2J\x1b]52;c;aGk=\x07\x1b]0;pwned\x07\u202e"
SET_ASIDE = (".tmp-", ".trash-", ".search-", ".notes-", ".sample-")


@dataclass
class Outcome:
    code: int | None
    line: str
    seconds: float
    raw: bytes = b""

    def cell(self) -> str:
        code = "killed (time)" if self.code is None else f"rc {self.code}"
        line = self.line.replace("|", "\\|")
        if len(line) > 240:
            line = line[:237] + "..."
        return (
            f"{code}, {self.seconds:.1f} s: `{line}`" if line else f"{code}, {self.seconds:.1f} s"
        )


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def judge(
    checkout: Path, home: Path, *argv: str, env: dict[str, str] | None = None, stdin: bytes = b""
) -> Outcome:
    """Runs ``judge ARGV`` from ``checkout`` in data folder ``home``: its outcome, bounded."""
    full = {**os.environ, "JUDGE_HOME": str(home), "PYTHONPATH": str(checkout), "NO_COLOR": "1"}
    full.update(env or {})
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "judge_cli", *argv],
        cwd=home.parent,
        env=full,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        preexec_fn=_limit,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(stdin, timeout=TIMEOUT)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        code = None
    seconds = time.monotonic() - start
    text = out.decode("utf-8", "replace")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if "Traceback" in text:
        line = "Traceback: " + (lines[-1] if lines else "")
    else:
        line = lines[0] if lines else ""
    shown = line.encode("unicode_escape").decode("ascii").replace("\\\\", "\\")
    return Outcome(code, shown, seconds, out)


def _build(checkout: Path, home: Path, *files: Path) -> None:
    judge(checkout, home, "index", "build", *map(str, files))


def _laughs() -> str:
    rows = ['&l0 "lol"'] + [f"&l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 10)]
    return "".join(f"l{i}: {row}\n" for i, row in enumerate(rows)) + "players: [Alice, Bob]\n"


def _auras(n: int) -> str:
    rows = ["players: [{name: Alice}, {name: Bob}]", "objects:"]
    rows.append("  - {id: a0, controller: Alice, types: [creature], pt: 2/2}")
    for i in range(1, n + 1):
        rows.append(
            f"  - {{id: a{i}, controller: Alice, types: [enchantment], subtypes: [Aura],"
            f" enchant: permanent, attached_to: a{i - 1}}}"
        )
    return "\n".join(rows) + "\n"


def _leftovers(home: Path) -> list[str]:
    found = []
    # os.walk, not rglob: a build may vanish while it is walked (it is being cleaned).
    for parent, dirs, files in os.walk(home):
        for name in (*dirs, *files):
            path = Path(parent) / name
            if name.startswith(SET_ASIDE):
                found.append(name)
            elif name.startswith("b-") and name in dirs:
                try:
                    pointer = (path.parent / "CURRENT").read_text(encoding="utf-8").strip()
                except OSError:
                    pointer = ""
                if pointer != name and not (path / ".stale").exists():
                    found.append(name)
    return found


def _kill_during_builds(checkout: Path, home: Path, kills: int = 3) -> Outcome:
    """Kills ``index build`` of a real CR as soon as it has made a build folder, then rebuilds."""
    _build(checkout, home, CR_1999)
    env = {**os.environ, "JUDGE_HOME": str(home), "PYTHONPATH": str(checkout)}
    start = time.monotonic()
    for _ in range(kills):
        before = set(_leftovers(home))
        proc = subprocess.Popen(
            [sys.executable, "-m", "judge_cli", "index", "build", str(CR_1999)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + TIMEOUT
        while set(_leftovers(home)) <= before and proc.poll() is None:
            if time.monotonic() > deadline:
                break
            time.sleep(0.002)
        time.sleep(0.3)  # into the build: rule files and the search index
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    killed = len(_leftovers(home))
    judge(checkout, home, "index", "build", str(MINI))
    after = _leftovers(home)
    line = f"{killed} leftovers after {kills} kills; {len(after)} after the next build"
    return Outcome(0, line, time.monotonic() - start)


@dataclass
class Item:
    number: str
    title: str
    command: str
    run: Callable[[Path, Path], Outcome]


def _item1(c: Path, tmp: Path) -> Outcome:
    (tmp / "laughs.yaml").write_text(_laughs(), encoding="utf-8")
    return judge(c, tmp / "home", "check", "laughs.yaml")


def _item2(c: Path, tmp: Path) -> Outcome:
    _build(c, tmp / "home", MINI)
    return judge(c, tmp / "home", "rule", "704.5j", env={"PYTHONIOENCODING": "latin-1"})


def _item3(c: Path, tmp: Path) -> Outcome:
    data = MINI.read_bytes()
    at = data.index(b"704.5j ") + len(b"704.5j ")
    (tmp / "evil.txt").write_bytes(data[:at] + EVIL.encode() + data[at:])
    _build(c, tmp / "home", tmp / "evil.txt")
    out = judge(c, tmp / "home", "rule", "704.5j")
    raw = any(ch in out.raw for ch in (b"\x1b", b"\x07", "\u202e".encode()))
    out.line = ("raw ESC/BEL/U+202E in the output; " if raw else "shown escaped: ") + re.sub(
        r"^.*?704\.5j", "704.5j", out.line
    )
    return out


def _item4(c: Path, tmp: Path) -> Outcome:
    _build(c, tmp / "home", MINI)
    data = MINI.read_bytes().removeprefix(b"\xef\xbb\xbf")
    (tmp / "guess.txt").write_bytes(data + b"\xff\n")
    out = judge(c, tmp / "home", "index", "build", "guess.txt")
    out.line += "  /  then: " + judge(c, tmp / "home", "editions").line
    return out


def _item5(c: Path, tmp: Path) -> Outcome:
    (tmp / "garbage.txt").write_text("not the rules\n", encoding="utf-8")
    out = judge(c, tmp / "home", "index", "build", str(MINI), "garbage.txt", str(MINI))
    lines = [ln for ln in out.raw.decode("utf-8", "replace").splitlines() if ln.strip()]
    out.line = lines[-1].replace(str(ROOT), ".") if lines else ""
    return out


def _item6(c: Path, tmp: Path) -> Outcome:
    _build(c, tmp / "home", MINI)
    out = judge(c, tmp / "home", "index", "remove", "2030-03-01/../../../x")
    trash = list((tmp / "home" / "editions").glob(".trash-*"))
    out.line += f"  ({len(trash)} .trash- folders left)"
    return out


def _item7(c: Path, tmp: Path) -> Outcome:
    (tmp / "note.md").write_text("# Note\n\ntext\n", encoding="utf-8")
    return judge(c, Path("/dev/null"), "index", "build", str(tmp / "note.md"))


def _item8(c: Path, tmp: Path) -> Outcome:
    return _kill_during_builds(c, tmp / "home")


def _item9(c: Path, tmp: Path) -> Outcome:
    _build(c, tmp / "home", MINI)
    (tmp / "utf16.txt").write_bytes("See rule 704.5j.\n".encode("utf-16"))
    first = judge(c, tmp / "home", "cite-check", "utf16.txt")
    (tmp / "many.txt").write_text("See rule 704.5j. " * 40_000, encoding="utf-8")
    many = judge(c, tmp / "home", "cite-check", "many.txt")
    code = "killed" if many.code is None else f"rc {many.code}"
    first.line += f"  /  40,000 citations: {code} in {many.seconds:.1f} s"
    return first


def _item10(c: Path, tmp: Path) -> Outcome:
    (tmp / "auras.yaml").write_text(_auras(10_000), encoding="utf-8")
    return judge(c, tmp / "home", "check", "auras.yaml")


def _item11(c: Path, tmp: Path) -> Outcome:
    _build(c, tmp / "home", MINI)
    for build in (tmp / "home" / "editions" / "2030-03-01").glob("b-*"):
        (build / "meta.json").write_text('{"edition": 1}', encoding="utf-8")
    return judge(c, tmp / "home", "editions")


def _item12(c: Path, tmp: Path) -> Outcome:
    out = judge(c, tmp / "home", "update", "--url", "http://[::1")
    second = judge(c, tmp / "home", "rule", "rule")
    out.line += f"  /  judge rule rule: rc {second.code} `{second.line}`"
    return out


ITEMS = [
    Item("1", "Runaway YAML", "judge check laughs.yaml (9 levels of 9 aliases)", _item1),
    Item("2", "Locale", "PYTHONIOENCODING=latin-1 judge rule 704.5j", _item2),
    Item("3", "Terminal escapes", "judge rule 704.5j (ESC[2J, OSC 52, OSC 0, U+202E)", _item3),
    Item("4", "A wrong guess stored", "judge index build guess.txt (no BOM, one 0xFF)", _item4),
    Item("5", "Partial success", "judge index build A.txt garbage.txt B.txt", _item5),
    Item("6", "index remove with paths", "judge index remove 2030-03-01/../../../x", _item6),
    Item("7", "Odd homes", "JUDGE_HOME=/dev/null judge index build note.md", _item7),
    Item("8", "Leftovers", "kill -9 of judge index build (3 times), then a build", _item8),
    Item("9", "cite-check", "judge cite-check utf16.txt; 40,000 citations", _item9),
    Item("10", "Quadratic checker", "judge check auras.yaml (10,000 Auras in a chain)", _item10),
    Item("11", "Damaged store", 'meta.json = {"edition": 1}; judge editions', _item11),
    Item("12", "Smaller", 'judge update --url "http://[::1"; judge rule rule', _item12),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="checkout of the old commit")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "hostile-report.md")
    parser.add_argument("--only", help="comma-separated item numbers")
    args = parser.parse_args()
    if not CR_1999.is_file():
        sys.exit(f"{CR_1999} is missing: this needs ../shared/corpus")
    old_rev = subprocess.run(
        ["git", "-C", str(args.old), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    new_rev = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    wanted = set(args.only.split(",")) if args.only else None
    rows = []
    for item in ITEMS:
        if wanted and item.number not in wanted:
            continue
        cells = []
        for checkout in (args.old.resolve(), ROOT):
            with tempfile.TemporaryDirectory() as tmp:
                # The temporary folder's name changes each run: the report says TMP.
                cells.append(item.run(checkout, Path(tmp)).cell().replace(tmp, "TMP"))
        print(f"{item.number}. {item.title}\n  old: {cells[0]}\n  new: {cells[1]}", flush=True)
        rows.append(f"| {item.number}. {item.title} | `{item.command}` | {cells[0]} | {cells[1]} |")
    report = [
        "# Issue 16: hostile input, before and after",
        "",
        f"Generated by `python benchmarks/hostile.py` (old: {old_rev}, new: {new_rev}). Each",
        f"command runs in a fresh data folder, stopped after {TIMEOUT:.0f} s and capped at",
        f"{MEMORY >> 30} GB of address space; a cell is the exit code, the time and the first",
        "line of the answer (or the last line of a traceback). Times are of a loaded 2-core",
        "machine.",
        "",
        "| Item | Command | Old | New |",
        "|---|---|---|---|",
        *rows,
        "",
    ]
    args.out.write_text("\n".join(report), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
