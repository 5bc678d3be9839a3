"""The one-shot re-rank whose model work runs in a forked child (index.semantic.forked).

:func:`rerank_with` (pure Python) is compared with :func:`index.semantic.rerank` (numpy) on
pools of our own. With the real model (../shared/models; skipped without it, failing under
CI): an edition of our mini CR searched in a fresh process, through the child and in process,
must give the same results to the last bit; and a child whose model is broken, whose vectors
are damaged, that is killed, that hangs or that sends garbage must end as the in-process path
does (the same warning, or the same results), leaving no process behind.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from index.semantic import rerank
from index.semantic.forked import rerank_with
from index.semantic.vectors import build_vectors, load_vectors
from index.store import EditionStore

from .test_semantic import FakeEncoder
from .test_semantic_model import shared_model

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "tests" / "fixtures" / "mini-cr.txt"


@dataclass(frozen=True)
class _Hit:
    id: str
    score: float
    similarity: float | None = None
    lexical_score: float | None = None


def test_rerank_with_is_rerank_to_the_last_bit(tmp_path: Path) -> None:
    from index.reader import read_cr_path

    doc = read_cr_path(MINI)
    enc = FakeEncoder()
    build_vectors(doc, tmp_path, enc)
    vectors = load_vectors(tmp_path)
    ids = vectors.ids
    rng = random.Random(14)
    questions = ["creature toughness zero", "player loses the game", "token zone", "x"]
    for trial in range(200):
        question = questions[trial % len(questions)]
        sims = [float(s) for s in vectors.similarities(enc.embed([question])[0])]
        chosen = rng.sample([*ids, "notes:unknown", "notes:other"], rng.randint(0, len(ids)))
        # Ties in the lexical scores (and in the cosines: "x" is near nothing) on purpose.
        pool = [_Hit(i, float(rng.choice([0.0, 1.0, 2.5, rng.random() * 9]))) for i in chosen]
        pool.sort(key=lambda h: -h.score)
        kw = {
            "weight": rng.choice([0.0, 0.4, 0.7, 1.0]),
            "depth": rng.choice([1, 5, 30]),
            "add": rng.choice([0, 5]),
            "keep": rng.choice([0, 0, 1]),
        }
        make = (lambda rid: _Hit(rid, 0.0)) if rng.random() < 0.8 else None
        want = rerank(question, pool, vectors, enc, make=make, **kw)  # type: ignore[arg-type]
        got = rerank_with(sims, ids, pool, make=make, **kw)  # type: ignore[arg-type]
        assert got == want, (trial, question, kw)


# --- with the real model, in fresh processes ---------------------------------------------

QUESTIONS = [
    "my 0/0 artifact land thing, is it gone?",
    "legend rule",
    "player loses the game",
    "704.5j",
    "rule 704.5 and a creature with toughness 0",
    "qwxzv",
    "Hi all, long time lurker. " * 30 + "My creature has 0 toughness, what happens to it?",
    "creature toughness \udcff zero",  # a command line's undecodable byte
]

RUN = """
import json, os, sys, time
from index.edition import open_edition
from index.semantic import forked

mode = sys.argv[1]
if mode == "killed":
    forked._answer = lambda *a: os.kill(os.getpid(), 9)
elif mode == "hangs":
    forked.TIMEOUT = 0.5
    forked._answer = lambda *a: time.sleep(60)
elif mode == "garbage":
    forked._answer = lambda *a: b"\\x05\\x00\\x00\\x00{nope"

def run(fork):
    out = []
    for q in json.loads(sys.argv[2]):
        notices = []
        ed = open_edition(None, notice=notices.append)
        ed._forked = not fork  # a second search of an Edition re-ranks in process
        start = time.monotonic()
        found = ed.search(q, limit=8)
        data = found.to_json()
        data["status"] = found.semantic_status
        data["notices"] = notices
        data["seconds"] = time.monotonic() - start
        data["raw"] = [[r.id, r.score, r.similarity, r.lexical_score] for r in found.results]
        out.append(data)
    return out

forked_results = run(True)
numpy_before = "numpy" in sys.modules
try:
    os.waitpid(-1, os.WNOHANG)
    children = "left"
except ChildProcessError:
    children = "none"
in_process = run(False)
print(json.dumps({"forked": forked_results, "in_process": in_process,
                  "numpy_before": numpy_before, "children": children}))
"""


@pytest.fixture(scope="module")
def real_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder: the mini CR, the shared model imported, the edition's vectors built."""
    from index.edition import open_edition
    from index.search import build_search_index
    from index.semantic import ModelStore

    model = shared_model()
    home = tmp_path_factory.mktemp("forked") / "home"
    store = EditionStore(home)
    store.add_bytes(MINI.read_bytes(), MINI.name, extra=build_search_index)
    ModelStore(home).import_folder(model)
    ed = open_edition(None, store=store)
    assert ed.build_vectors() is True
    return home


def run_python(
    script: str, home: Path, *args: str, ci: bool = True
) -> subprocess.CompletedProcess[str]:
    """``python -c SCRIPT ARGS`` in the project's folder with ``home`` as the data folder
    (and, unless ``ci``, without CI set: the script may skip)."""
    env = {**os.environ, "JUDGE_HOME": str(home)}
    if not ci:
        env.pop("CI", None)
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )


def _run(home: Path, mode: str = "ok", questions: list[str] = QUESTIONS) -> dict[str, object]:
    out = run_python(RUN, home, mode, json.dumps(questions), ci=False)
    assert out.returncode == 0, out.stderr
    data: dict[str, object] = json.loads(out.stdout)
    return data


def _comparable(results: object) -> list[object]:
    assert isinstance(results, list)
    return [{k: v for k, v in r.items() if k not in ("seconds", "notices")} for r in results]


def test_the_child_s_re_rank_is_the_in_process_one(real_home: Path) -> None:
    data = _run(real_home)
    assert data["numpy_before"] is False  # the parent never loaded the model: the child did
    assert data["children"] == "none"
    forked, in_process = data["forked"], data["in_process"]
    assert _comparable(forked) == _comparable(in_process)
    assert isinstance(forked, list)
    statuses = [r["status"] for r in forked]
    assert statuses.count("current") >= 4, statuses
    assert all(r["notices"] == [] for r in forked)
    ids = [r["id"] for r in forked[0]["results"]]
    assert "704.5f" in ids[:5]
    # The rule named by number, then its subrules: no re-rank, as in process.
    assert "semantic" not in forked[3] and forked[3]["results"][0]["id"] == "704.5j"
    assert forked[6]["searched"] and forked[6]["status"] == "current"


def _broken_copy(home: Path, tmp: Path) -> Path:
    """A copy of ``home`` (hard links: nothing of it is written, only replaced)."""
    copy = tmp / "home"
    shutil.copytree(home, copy, copy_function=os.link)
    return copy


def _replace(path: Path, data: bytes) -> None:
    path.unlink()  # the hard link goes; the fixture's file stays as it was
    path.write_bytes(data)


@pytest.mark.parametrize("mode", ["killed", "hangs", "garbage"])
def test_a_child_that_fails_leaves_the_in_process_re_rank(real_home: Path, mode: str) -> None:
    data = _run(real_home, mode, QUESTIONS[:2])
    assert data["children"] == "none"
    assert _comparable(data["forked"]) == _comparable(data["in_process"])
    forked = data["forked"]
    assert isinstance(forked, list)
    assert [r["status"] for r in forked] == ["current", "current"]
    assert all(r["notices"] == [] for r in forked)
    if mode == "hangs":
        assert all(r["seconds"] < 30 for r in forked)


def test_a_broken_model_is_the_same_warning(real_home: Path, tmp_path: Path) -> None:
    home = _broken_copy(real_home, tmp_path)
    for onnx in (home / "models").rglob("*.onnx"):
        _replace(onnx, b"not a model")
    data = _run(home, "ok", QUESTIONS[:2])
    assert data["children"] == "none"
    assert _comparable(data["forked"]) == _comparable(data["in_process"])
    forked, in_process = data["forked"], data["in_process"]
    assert isinstance(forked, list) and isinstance(in_process, list)
    assert [r["status"] for r in forked] == ["error", "error"]
    assert [r["notices"] for r in forked] == [r["notices"] for r in in_process]
    (notice,) = forked[0]["notices"]
    assert notice.startswith("Warning: the semantic re-rank is off (")
    # The published file, or the quantised copy that a model installed with onnx loads.
    assert "model.onnx: " in notice or "model.prepared.onnx: " in notice


def test_damaged_vectors_are_the_same_warning(real_home: Path, tmp_path: Path) -> None:
    home = _broken_copy(real_home, tmp_path)
    (vec,) = (home / "editions").rglob("semantic.vec")
    _replace(vec, vec.read_bytes()[:-100])
    data = _run(home, "ok", QUESTIONS[:2])
    assert data["children"] == "none"
    forked, in_process = data["forked"], data["in_process"]
    assert _comparable(forked) == _comparable(in_process)
    assert isinstance(forked, list) and isinstance(in_process, list)
    assert [r["notices"] for r in forked] == [r["notices"] for r in in_process]
    assert "truncated" in forked[0]["notices"][0]


def test_judge_search_through_the_child(real_home: Path) -> None:
    judge = Path(sys.executable).with_name("judge")
    env = {**os.environ, "JUDGE_HOME": str(real_home)}
    out = subprocess.run(
        [str(judge), "search", "--json", QUESTIONS[0]],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    data = json.loads(out.stdout)
    assert data["semantic"]["model"] == "all-MiniLM-L6-v2"
    assert "704.5f" in [r["id"] for r in data["results"][:5]]


def test_no_child_where_it_would_not_pay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from index.edition import open_edition
    from index.search import build_search_index
    from index.semantic import ModelStore, forked
    from index.semantic.searching import SemanticSearch

    from .test_semantic_search import _semantic

    store = EditionStore(tmp_path)
    store.add_bytes(MINI.read_bytes(), MINI.name, extra=build_search_index)
    ed = open_edition(None, store=store)
    enc = FakeEncoder()
    ed._semantic = _semantic(tmp_path, enc)
    assert ed.build_vectors() is True
    folder = ed.path
    assert folder is not None
    assert "numpy" in sys.modules and forked.can_fork() is False  # numpy is paid for already

    def no_fork() -> int:
        raise AssertionError("forked")

    monkeypatch.setattr(forked, "can_fork", lambda: True)
    monkeypatch.setattr(os, "fork", no_fork)
    (tmp_path / "models").mkdir(exist_ok=True)
    assert forked.start(ed.semantic, folder) is None  # the (fake) model is loaded here
    assert forked.start(SemanticSearch(ModelStore(tmp_path), warm=True), folder) is None
    cold = SemanticSearch(ModelStore(tmp_path))
    assert forked.start(cold, folder, "documents") is None  # a scope without vectors
    assert forked.start(cold, tmp_path / "nowhere") is None  # no vectors
    with pytest.raises(AssertionError, match="forked"):
        forked.start(cold, folder)  # but here it would fork
    ed.keep_warm()
    found = ed.search("creature toughness zero graveyard")
    assert found.semantic_status == "current" and enc.calls > 0
    ed.close()
