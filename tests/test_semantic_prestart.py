"""The re-rank's child forked from ``judge search``'s command line (judge_cli.launch).

:func:`judge_cli.launch.search_words` reads a command line as click does, or declines; with
the real model (../shared/models; skipped without it, failing under CI) ``judge search`` run
as the installed program runs it must answer exactly as the in-process re-rank does, whether
the early child is adopted, answers another text than the one it guessed, dies, hangs or
sends garbage, and no process may be left behind, adopted or not.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from judge_cli.launch import search_words

from .test_semantic_forked import QUESTIONS, real_home, run_python

__all__ = ["real_home"]  # the fixture, shared with test_semantic_forked


@pytest.mark.parametrize(
    ("args", "words", "edition", "scope"),
    [
        (["search", "legend", "rule"], ["legend", "rule"], None, "all"),
        (["search", "--json", "-n", "3", "legend rule"], ["legend rule"], None, "all"),
        (["search", "-e", "2025-02-07", "x"], ["x"], "2025-02-07", "all"),
        (["search", "-e2025", "--limit=4", "x", "y"], ["x", "y"], "2025", "all"),
        (["search", "--edition=2025", "--in", "rules", "x"], ["x"], "2025", "rules"),
        (["search", "x", "--in=glossary", "-n5"], ["x"], None, "glossary"),
        (["search", "--", "--json", "-n"], ["--json", "-n"], None, "all"),
        (["search", "-", "y"], ["-", "y"], None, "all"),
    ],
)
def test_a_search_s_command_line(
    args: list[str], words: list[str], edition: str | None, scope: str
) -> None:
    line = search_words(args)
    assert line is not None
    assert (line.words, line.edition, line.scope) == (words, edition, scope)
    assert line.question == " ".join(words)


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["rule", "704.5j"],
        ["search"],
        ["search", "--json"],
        ["search", "--no-semantic", "x"],
        ["search", "--help"],
        ["search", "-h", "x"],
        ["search", "x", "--in", "mtr"],
        ["search", "x", "--in=rulings"],
        ["search", "x", "-n"],
        ["search", "x", "--limits", "4"],
        ["search", "-jn", "4", "x"],
    ],
)
def test_no_early_child_for_anything_else(args: list[str]) -> None:
    assert search_words(args) is None


def test_a_pasted_post_is_not_guessed() -> None:
    from index.search.pasted import LONG_QUERY_CHARS
    from judge_cli import launch

    assert launch._PASTED == LONG_QUERY_CHARS  # search embeds a part of a longer question


LAUNCH = """
import json, os, sys, time
from index.semantic import forked

mode, args = sys.argv[1], json.loads(sys.argv[2])
if mode == "in-process":
    forked.can_fork = lambda: False
elif mode == "killed":
    forked._answer = lambda *a: os.kill(os.getpid(), 9)
elif mode == "hangs":
    forked.TIMEOUT = 0.5
    forked._answer = lambda *a: time.sleep(60)
elif mode == "garbage":
    forked._answer = lambda *a: b"\\x05\\x00\\x00\\x00{nope"
record = {"prestart": None, "adopted": None}
prestart, adopt = forked.prestart, forked._adopt
def recorded_prestart(*a):
    record["prestart"] = prestart(*a)
    record["pid"] = forked._early[0].pid if forked._early else None
    return record["prestart"]
def recorded_adopt(*a):
    child = adopt(*a)
    record["adopted"] = child is not None
    return child
forked.prestart, forked._adopt = recorded_prestart, recorded_adopt
sys.argv = ["judge", *args]
from judge_cli.launch import main
start = time.monotonic()
try:
    main()
except SystemExit as exc:
    record["exit"] = exc.code
record["seconds"] = time.monotonic() - start
try:
    os.waitpid(-1, os.WNOHANG)
    record["children"] = "left"
except ChildProcessError:
    record["children"] = "none"
sys.stderr.write("\\n" + json.dumps(record) + "\\n")
"""


def _launch(home: Path, args: list[str], mode: str = "ok") -> tuple[object, dict[str, object]]:
    """``judge ARGS`` in a fresh process as the installed program: its JSON, and a record."""
    out = run_python(LAUNCH, home, mode, json.dumps(args), ci=False)
    record: dict[str, object] = json.loads(out.stderr.strip().splitlines()[-1])
    assert record.get("exit") in (0, None), out.stderr
    return json.loads(out.stdout), record


@pytest.mark.parametrize("question", [QUESTIONS[0], QUESTIONS[1], QUESTIONS[3], QUESTIONS[6]])
def test_the_early_child_s_re_rank_is_the_in_process_one(real_home: Path, question: str) -> None:
    args = ["search", "--json", "-n", "8", question]
    early, record = _launch(real_home, args)
    in_process, plain = _launch(real_home, args, "in-process")
    assert early == in_process
    assert record["prestart"] is True and record["adopted"] is True
    assert record["children"] == "none"
    assert plain["prestart"] is False
    assert isinstance(early, dict)
    if question == QUESTIONS[3]:  # a rule number alone: no re-rank, the child is ended unused
        assert "semantic" not in early
    else:
        assert early["semantic"]["model"] == "all-MiniLM-L6-v2"
    if question == QUESTIONS[0]:
        assert "704.5f" in [r["id"] for r in early["results"][:5]]
    if question == QUESTIONS[6]:  # a pasted post: what it embeds is not the question as typed
        assert early["searched"] and early["searched"] != question


@pytest.mark.parametrize("mode", ["killed", "hangs", "garbage"])
def test_an_early_child_that_fails_leaves_the_in_process_re_rank(
    real_home: Path, mode: str
) -> None:
    args = ["search", "--json", QUESTIONS[0]]
    early, record = _launch(real_home, args, mode)
    in_process, _ = _launch(real_home, args, "in-process")
    assert early == in_process
    assert record["prestart"] is True and record["adopted"] is True
    assert record["children"] == "none"
    assert isinstance(record["seconds"], float) and record["seconds"] < 30


def test_an_early_child_for_another_folder_is_ended(real_home: Path) -> None:
    script = """
import json, os, sys, pathlib
from index.edition import open_edition
from index.semantic import forked
home = pathlib.Path(sys.argv[1])
ed = open_edition(None)
other = home / "other"
other.mkdir()
os.link(ed.path / "semantic.vec", other / "semantic.vec")
assert forked.prestart(home, other, "legend rule")
early = forked._early[0].pid
found = ed.search("legend rule", limit=5)  # forks its own child: the early one is ended
try:
    os.waitpid(early, os.WNOHANG)
    reaped = False
except ChildProcessError:
    reaped = True
print(json.dumps({"reaped": reaped, "status": found.semantic_status}))
"""
    home = real_home.parent / "another"
    import shutil

    shutil.copytree(real_home, home, copy_function=os.link, dirs_exist_ok=True)
    out = run_python(script, home, str(home))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"reaped": True, "status": "current"}


def test_an_early_child_never_adopted_ends_with_the_process(real_home: Path) -> None:
    script = """
import sys, pathlib
from index.edition import open_edition
from index.semantic import forked
ed = open_edition(None)
assert forked.prestart(pathlib.Path(sys.argv[1]), ed.path, "legend rule")
print(forked._early[0].pid)
"""
    out = run_python(script, real_home, str(real_home))
    assert out.returncode == 0, out.stderr
    pid = int(out.stdout)
    # Ended at exit (killed, then reaped): not still loading the model, nor a zombie.
    deadline = time.monotonic() + 0.2
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "the early child outlived its parent"
        time.sleep(0.01)


def test_a_wrong_guess_is_the_same_re_rank(real_home: Path) -> None:
    script = """
import json, pathlib, sys
from index.edition import open_edition
from index.semantic import forked
if sys.argv[2] == "in-process":
    forked.can_fork = lambda: False
ed = open_edition(None)
early = forked.prestart(pathlib.Path(sys.argv[1]), ed.path, "legend rule")  # not what is asked
assert early is (sys.argv[2] == "early")
adopt = forked._adopt
adopted = []
forked._adopt = lambda *a: adopted.append(adopt(*a)) or adopted[-1]
found = ed.search("my 0/0 artifact land thing, is it gone?", limit=8)
assert (adopted[0] is not None) is early
raw = [[r.id, r.score, r.similarity, r.lexical_score] for r in found.results]
print(json.dumps({"raw": raw, "status": found.semantic_status, "early": sys.argv[2]}))
"""
    outs = []
    for mode in ("early", "in-process"):
        out = run_python(script, real_home, str(real_home), mode)
        assert out.returncode == 0, out.stderr
        outs.append(json.loads(out.stdout))
    early, in_process = outs
    assert early["status"] == in_process["status"] == "current"
    assert early["raw"] == in_process["raw"]
    assert "704.5f" in [r[0] for r in early["raw"][:5]]
