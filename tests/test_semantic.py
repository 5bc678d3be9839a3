"""index.semantic without a real model: vectors, their staleness, the re-rank, the model store.

A small fake encoder (hashed bags of words) stands in for the model: what is tested here is the
storage, the digests and the arithmetic, not the model (see test_semantic_model.py for it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from index.model import Document
from index.reader import read_cr_path
from index.search import SearchResult
from index.semantic import (
    ModelCheckError,
    ModelFolderError,
    ModelStore,
    NoModelError,
    VectorsError,
    build_vectors,
    ensure_vectors,
    load_vectors,
    passages,
    rerank,
    vectors_status,
)
from index.semantic.vectors import FILE, FORMAT, read_header
from judge_cli.cli import cli

from .conftest import tree_digest

ROOT = Path(__file__).resolve().parents[1]


class FakeEncoder:
    """Unit vectors of hashed words: texts sharing words are close."""

    def __init__(self, digest: str = "fake-model-1", dimension: int = 64) -> None:
        self._digest = digest
        self._dimension = dimension
        self.calls = 0
        self.texts = 0

    @property
    def digest(self) -> str:
        return self._digest

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Any:
        self.calls += 1
        self.texts += len(texts)
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().replace(".", " ").replace(",", " ").split():
                out[row, zlib.crc32(word.encode()) % self._dimension] += 1.0
            out[row, 0] += 0.01  # no zero vector
        return out / np.linalg.norm(out, axis=1, keepdims=True)


class BrokenEncoder(FakeEncoder):
    def embed(self, texts: Sequence[str]) -> Any:
        raise RuntimeError("out of memory")


@pytest.fixture(scope="module")
def mini_doc() -> Document:
    return read_cr_path(ROOT / "tests" / "fixtures" / "mini-cr.txt")


def _other_edition(doc: Document) -> Document:
    changed = Document(edition="2031-01-01", title=doc.title)
    changed.rules = dict(doc.rules)
    changed.glossary = list(doc.glossary)
    first = next(iter(changed.rules))
    rule = changed.rules[first]
    changed.rules[first] = type(rule)(
        rule.number, rule.text + " Changed.", rule.examples, rule.line
    )
    return changed


# --- passages and the vectors file ----------------------------------------------------------


def test_passages_cover_every_rule_and_glossary_entry(mini_doc: Document) -> None:
    items = passages(mini_doc)
    ids = [p.id for p in items]
    assert set(mini_doc.rules) <= set(ids)
    assert {g.ref_id for g in mini_doc.glossary} <= set(ids)
    # A document's passages are consecutive (the file groups rows by document).
    firsts = [i for i, rid in enumerate(ids) if i == 0 or ids[i - 1] != rid]
    assert len(firsts) == len(set(ids))
    legend = next(p for p in items if p.id == "glossary:Legend Rule")
    assert legend.text.startswith("Legend Rule: ")


@pytest.mark.parametrize("dtype", ["int8", "float16", "float32"])
def test_stored_vectors_give_the_model_s_cosines(
    tmp_path: Path, mini_doc: Document, dtype: str
) -> None:
    enc = FakeEncoder()
    build_vectors(mini_doc, tmp_path, enc, dtype=dtype)
    vectors = load_vectors(tmp_path)
    query = enc.embed(["a creature with toughness 0"])[0]
    sims = vectors.similarities(query)
    assert sims.shape == (len(vectors.ids),)
    items = passages(mini_doc)
    exact = enc.embed([p.text for p in items]) @ query
    best: dict[str, float] = {}
    for p, s in zip(items, exact, strict=True):
        best[p.id] = max(best.get(p.id, -1.0), float(s))
    error = max(abs(best[rid] - float(sims[i])) for i, rid in enumerate(vectors.ids))
    assert error < {"int8": 0.01, "float16": 0.002, "float32": 1e-5}[dtype]
    assert vectors.header["dtype"] == dtype and vectors.header["edition"] == "2030-03-01"


def test_build_tells_its_progress(
    tmp_path: Path, mini_doc: Document, monkeypatch: pytest.MonkeyPatch
) -> None:
    import index.semantic.vectors as vec

    monkeypatch.setattr(vec, "_CHUNK", 4)
    told: list[tuple[int, int]] = []
    build_vectors(mini_doc, tmp_path, FakeEncoder(), progress=lambda d, n: told.append((d, n)))
    total = len(passages(mini_doc))
    assert told[-1] == (total, total) and len(told) == -(-total // 4)
    assert load_vectors(tmp_path).header["rows"] == total


def test_int8_vectors_are_a_quarter_of_float32(tmp_path: Path, mini_doc: Document) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    build_vectors(mini_doc, tmp_path / "a", FakeEncoder(dimension=384), dtype="int8")
    build_vectors(mini_doc, tmp_path / "b", FakeEncoder(dimension=384), dtype="float32")
    small, large = (tmp_path / "a" / FILE).stat().st_size, (tmp_path / "b" / FILE).stat().st_size
    assert small < 0.4 * large


def _all_at_once(vectors: Any, query: Any, threads: int) -> list[Any]:
    """What ``threads`` threads starting together get of ``vectors.similarities(query)``."""
    import threading

    start = threading.Barrier(threads)
    results: list[Any] = []

    def ask() -> None:
        start.wait()
        try:
            results.append(vectors.similarities(query))
        except VectorsError as exc:
            results.append(exc)

    running = [threading.Thread(target=ask) for _ in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join()
    return results


def test_vectors_decoded_by_many_threads_at_once(tmp_path: Path, mini_doc: Document) -> None:
    enc = FakeEncoder()
    build_vectors(mini_doc, tmp_path, enc)
    query = enc.embed(["a creature with toughness 0"])[0]
    expected = load_vectors(tmp_path).similarities(query)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads change places as often as they can
    try:
        for _ in range(20):
            # Decoded on first use, by whichever thread comes first.
            results = _all_at_once(load_vectors(tmp_path), query, 8)
            assert [r for r in results if isinstance(r, Exception)] == []
            assert len(results) == 8 and all(np.array_equal(r, expected) for r in results)
    finally:
        sys.setswitchinterval(interval)


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],
        lambda data: b"garbage" + data,
        lambda data: data.replace(b'"format":%d' % FORMAT, b'"format":99'),
    ],
)
def test_damaged_vectors_are_an_error_naming_the_file(
    tmp_path: Path, mini_doc: Document, damage: Any
) -> None:
    build_vectors(mini_doc, tmp_path, FakeEncoder())
    path = tmp_path / FILE
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(VectorsError) as info:
        load_vectors(tmp_path).similarities(np.ones(64, dtype=np.float32) / 8)
    assert info.value.path == path


def test_missing_vectors_are_an_error(tmp_path: Path) -> None:
    with pytest.raises(VectorsError, match="no vectors have been built"):
        load_vectors(tmp_path)
    assert vectors_status(tmp_path, FakeEncoder()) == "missing"


def test_a_failed_build_keeps_the_vectors_there_were(tmp_path: Path, mini_doc: Document) -> None:
    build_vectors(mini_doc, tmp_path, FakeEncoder())
    before = tree_digest(tmp_path)
    with pytest.raises(RuntimeError):
        build_vectors(mini_doc, tmp_path, BrokenEncoder(digest="other"))
    assert tree_digest(tmp_path) == before


# --- rebuilt when the edition or the model changes, and not otherwise ------------------------


def test_vectors_are_rebuilt_only_when_edition_or_model_changes(
    tmp_path: Path, mini_doc: Document
) -> None:
    enc = FakeEncoder()
    assert ensure_vectors(tmp_path, enc, mini_doc) is True  # missing
    first = (tmp_path / FILE).read_bytes()
    calls = enc.calls
    assert ensure_vectors(tmp_path, enc, mini_doc) is False
    assert ensure_vectors(tmp_path, FakeEncoder(), lambda: mini_doc) is False
    assert enc.calls == calls and (tmp_path / FILE).read_bytes() == first
    assert vectors_status(tmp_path, enc) == "current"

    other_model = FakeEncoder(digest="fake-model-2")
    assert vectors_status(tmp_path, other_model) == "model"
    assert ensure_vectors(tmp_path, other_model, mini_doc) is True
    assert read_header(tmp_path)["model"] == "fake-model-2"  # type: ignore[index]
    assert ensure_vectors(tmp_path, other_model, mini_doc) is False

    other_edition = _other_edition(mini_doc)
    assert vectors_status(tmp_path, other_model, other_edition) == "edition"
    assert ensure_vectors(tmp_path, other_model, other_edition) is True
    assert read_header(tmp_path)["edition"] == "2031-01-01"  # type: ignore[index]
    assert ensure_vectors(tmp_path, other_model, other_edition) is False


def test_a_new_source_file_is_a_new_edition(tmp_path: Path, mini_doc: Document) -> None:
    # The cheap check, without loading the document: the build folder's meta.json.
    (tmp_path / "meta.json").write_text(json.dumps({"sha256": "a" * 64}), encoding="utf-8")
    enc = FakeEncoder()
    ensure_vectors(tmp_path, enc, mini_doc)
    assert vectors_status(tmp_path, enc) == "current"
    (tmp_path / "meta.json").write_text(json.dumps({"sha256": "b" * 64}), encoding="utf-8")
    assert vectors_status(tmp_path, enc) == "edition"
    loads: list[int] = []

    def load() -> Document:
        loads.append(1)
        return _other_edition(mini_doc)

    assert ensure_vectors(tmp_path, enc, load) is True and loads == [1]


def test_new_phrasing_files_restamp_vectors_whose_passages_did_not_change(
    tmp_path: Path, mini_doc: Document, monkeypatch: pytest.MonkeyPatch
) -> None:
    import index.semantic.vectors as vec

    enc = FakeEncoder()
    ensure_vectors(tmp_path, enc, mini_doc)
    monkeypatch.setattr(vec, "_phrasings_digest", lambda: "new phrasing files")
    assert vectors_status(tmp_path, enc) == "phrasings"
    texts = enc.texts
    assert ensure_vectors(tmp_path, enc, mini_doc) is False
    assert enc.texts == texts  # nothing embedded again
    assert vectors_status(tmp_path, enc) == "current"


def test_vectors_rebuilt_as_another_dtype(tmp_path: Path, mini_doc: Document) -> None:
    enc = FakeEncoder()
    ensure_vectors(tmp_path, enc, mini_doc)
    assert ensure_vectors(tmp_path, enc, mini_doc, dtype="float16") is True
    assert read_header(tmp_path)["dtype"] == "float16"  # type: ignore[index]


# --- the re-rank ------------------------------------------------------------------------------


def _hit(rid: str, score: float) -> SearchResult:
    return SearchResult(rid, "rule", rid, None, score, "")


@pytest.fixture
def vectors_home(tmp_path: Path, mini_doc: Document) -> tuple[Any, FakeEncoder]:
    enc = FakeEncoder()
    build_vectors(mini_doc, tmp_path, enc, dtype="float32")
    return load_vectors(tmp_path), enc


def test_rerank_weight_zero_keeps_the_lexical_order(vectors_home: tuple[Any, FakeEncoder]) -> None:
    vectors, enc = vectors_home
    pool = [_hit("100.1", 9.0), _hit("704.5f", 5.0), _hit("704.5a", 1.0)]
    out = rerank("toughness 0 graveyard", pool, vectors, enc, weight=0.0, add=0)
    assert [r.id for r in out] == ["100.1", "704.5f", "704.5a"]
    assert [r.score for r in out] == pytest.approx([1.0, 5 / 9, 1 / 9])


def test_rerank_weight_one_orders_by_meaning(vectors_home: tuple[Any, FakeEncoder]) -> None:
    vectors, enc = vectors_home
    # The question repeats 704.5f's words: for the fake model, it is the nearest rule.
    rule = "If a creature has toughness 0 or less, it’s put into its owner’s graveyard."
    pool = [_hit("100.1", 9.0), _hit("704.5a", 5.0), _hit("704.5f", 1.0)]
    out = rerank(rule, pool, vectors, enc, weight=1.0, add=0)
    assert out[0].id == "704.5f" and out[0].score == pytest.approx(1.0)
    assert out[-1].score == pytest.approx(0.0)


def test_rerank_keeps_pinned_hits_and_the_tail(vectors_home: tuple[Any, FakeEncoder]) -> None:
    vectors, enc = vectors_home
    pool = [_hit("704.5j", 1000.0), _hit("100.1", 9.0), _hit("704.5f", 1.0), _hit("704.5a", 0.5)]
    out = rerank("toughness 0 or less", pool, vectors, enc, weight=1.0, depth=2, add=0, keep=1)
    assert out[0] == pool[0]
    assert [r.id for r in out[1:3]] == ["704.5f", "100.1"]
    assert out[3] == pool[3]


def test_rerank_adds_the_model_s_nearest_only_with_make(
    vectors_home: tuple[Any, FakeEncoder],
) -> None:
    vectors, enc = vectors_home
    question = "If a creature has toughness 0 or less, it’s put into its owner’s graveyard."
    pool = [_hit("100.1", 9.0), _hit("100.2", 5.0)]
    assert [r.id for r in rerank(question, pool, vectors, enc, weight=0.9, add=3)] == [
        "100.1",
        "100.2",
    ]
    made: list[str] = []

    def make(rid: str) -> SearchResult:
        made.append(rid)
        return _hit(rid, 0.0)

    out = rerank(question, pool, vectors, enc, weight=0.9, add=3, make=make)
    assert len(made) == 3 and len(out) == 5
    assert out[0].id == "704.5f"
    assert len({r.id for r in out}) == 5


def test_rerank_adds_the_nearest_from_the_tail_as_a_shorter_pool_would(
    vectors_home: tuple[Any, FakeEncoder],
) -> None:
    # A longer --limit gives a longer pool: 704.5f past the depth must still be added as the
    # model's nearest, as it is when the pool stops before it.
    vectors, enc = vectors_home
    question = "If a creature has toughness 0 or less, it’s put into its owner’s graveyard."
    pool = [_hit("100.1", 9.0), _hit("100.2", 5.0), _hit("704.5a", 2.0), _hit("704.5f", 1.0)]

    def make(rid: str) -> SearchResult:
        return _hit(rid, 0.0)

    short = rerank(question, pool[:2], vectors, enc, weight=0.9, depth=2, add=2, make=make)
    long = rerank(question, pool, vectors, enc, weight=0.9, depth=2, add=2, make=make)
    assert "704.5f" in [r.id for r in short[:4]]
    assert [(r.id, r.score) for r in long[:4]] == [(r.id, r.score) for r in short[:4]]
    ids = [r.id for r in long]
    assert len(ids) == len(set(ids)) and {r.id for r in pool} <= set(ids)  # each once


def test_rerank_of_a_document_without_a_vector(vectors_home: tuple[Any, FakeEncoder]) -> None:
    vectors, enc = vectors_home
    pool = [_hit("section:notes-1", 9.0), _hit("704.5f", 5.0)]
    out = rerank("toughness 0", pool, vectors, enc, weight=0.5, add=0)
    assert {r.id for r in out} == {"section:notes-1", "704.5f"}


def test_rerank_refuses_vectors_of_another_model(vectors_home: tuple[Any, FakeEncoder]) -> None:
    vectors, _ = vectors_home
    with pytest.raises(ValueError, match="another model"):
        rerank("x", [_hit("100.1", 1.0)], vectors, FakeEncoder(digest="other"))


@pytest.mark.parametrize("n", [0, 1, 3, 5, 8, 20])
def test_the_nearest_are_those_of_a_stable_sort(n: int) -> None:
    from index.semantic.reranking import _nearest_positions

    rng = np.random.default_rng(n)
    for sims in (
        np.array([0.5, 0.9, 0.5, 0.9, 0.1, 0.5, 0.5, 0.2], dtype=np.float32),  # ties at the cut
        rng.standard_normal(200).astype(np.float32),
        rng.integers(0, 4, 200).astype(np.float32),  # many ties
    ):
        expected = np.argsort(-sims, kind="stable")[:n]
        assert _nearest_positions(sims, n).tolist() == expected.tolist()


def test_a_rescored_hit_is_what_dataclasses_replace_makes() -> None:
    import dataclasses

    from index.semantic.reranking import _rescored

    hit = SearchResult("704.5f", "rule", "704.5f", None, 5.0, "snippet", ((0, 3),), title="T")
    new = _rescored(hit, 0.75, 0.5, 5.0)
    assert new == dataclasses.replace(hit, score=0.75, similarity=0.5, lexical_score=5.0)
    assert (hit.score, hit.similarity) == (5.0, None)  # the pool's hit is unchanged
    with pytest.raises(dataclasses.FrozenInstanceError):
        new.score = 1.0  # type: ignore[misc]

    @dataclasses.dataclass(frozen=True)
    class Checked:
        id: str
        score: float
        double: float = 0.0

        def __post_init__(self) -> None:
            object.__setattr__(self, "double", self.score * 2)

    # A class whose __init__ does more than set fields is copied through dataclasses.replace.
    assert _rescored(Checked("a", 1.0), 3.0, 0.1, 1.0) == Checked("a", 3.0, 6.0)


# --- the model store ----------------------------------------------------------------------------


def _tiny_model(folder: Path, onnx: bytes = b"this is not an ONNX model") -> Path:
    """A model folder whose tokenizer is real (made by tokenizers) and whose ONNX is not."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    folder.mkdir(parents=True)
    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "creature": 3}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "config.json").write_text(json.dumps({"hidden_size": 8}), encoding="utf-8")
    (folder / "onnx").mkdir()
    (folder / "onnx" / "model.onnx").write_bytes(onnx)
    return folder


def test_import_of_a_folder_missing_files(tmp_path: Path) -> None:
    source = tmp_path / "model"
    source.mkdir()
    (source / "config.json").write_text("{}", encoding="utf-8")
    store = ModelStore(tmp_path / "home")
    with pytest.raises(ModelFolderError) as info:
        store.import_folder(source)
    assert info.value.missing == ["tokenizer.json", "onnx/model.onnx"]
    assert not (tmp_path / "home").exists()
    with pytest.raises(NoModelError):
        store.get()


def test_import_of_a_corrupt_onnx_installs_nothing(tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "home")
    with pytest.raises(ModelCheckError) as info:
        store.import_folder(_tiny_model(tmp_path / "model"))
    assert info.value.file == "onnx/model.onnx"
    assert "cannot be loaded" in info.value.reason
    assert store.models() == [] and store.active_name() is None
    assert [p for p in (tmp_path / "home").rglob("*") if not p.is_dir()] == []
    assert not (tmp_path / "home" / "models" / "model").exists()


def test_a_bad_tokenizer_is_named_before_a_bad_model(tmp_path: Path) -> None:
    from index.semantic import Embedder, ModelLoadError

    folder = _tiny_model(tmp_path / "model")
    with pytest.raises(ModelLoadError) as info:
        Embedder.from_folder(folder)
    assert info.value.file == "onnx/model.onnx" and "cannot be loaded" in info.value.reason
    (folder / "tokenizer.json").write_text("{not a tokenizer", encoding="utf-8")
    with pytest.raises(ModelLoadError) as info:
        Embedder.from_folder(folder)
    assert info.value.file == "tokenizer.json" and "not a tokenizer" in info.value.reason
    assert info.value.__suppress_context__  # raised from None: no tokenizers traceback


def test_import_with_a_wrong_expected_hash(tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "home")
    with pytest.raises(ModelCheckError, match="sha256 is") as info:
        store.import_folder(_tiny_model(tmp_path / "model"), expected={"config.json": "0" * 64})
    assert info.value.file == "config.json"
    assert store.models() == []


def test_bad_model_names_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelFolderError, match="cannot name a model"):
        ModelStore(tmp_path).import_folder(tmp_path, name="../escape")


def _invoke(home: Path, args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli, args, env={"JUDGE_HOME": str(home), "NO_COLOR": "1"})
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    return result.exit_code, result.output


def test_cli_model_with_nothing_installed(tmp_path: Path) -> None:
    code, out = _invoke(tmp_path, ["model"])
    assert code == 0
    assert out.startswith("No model is installed in ")
    assert "`judge model import DIR`" in out
    code, out = _invoke(tmp_path, ["model", "--json"])
    assert json.loads(out) == {"available": True, "active": None, "models": []}


def test_cli_model_import_errors(tmp_path: Path) -> None:
    code, out = _invoke(tmp_path / "home", ["model", "import", str(tmp_path / "nowhere")])
    assert code == 1
    assert out.startswith(f"Error: {tmp_path / 'nowhere'} is not a sentence-embedding model")
    assert "Nothing was installed" in out
    bad = _tiny_model(tmp_path / "m", onnx=b"\x1b[31mred\x00")
    code, out = _invoke(tmp_path / "home", ["model", "import", str(bad)])
    assert code == 1 and out.startswith(f"Error: {bad / 'onnx' / 'model.onnx'}: cannot be loaded")
    assert "\x1b" not in out and "\x00" not in out
    assert [p for p in (tmp_path / "home").rglob("*") if not p.is_dir()] == []


def test_rule_define_and_completion_import_no_model_runtime(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from judge_cli.cli import cli\n"
        "for args in (['rule', '704.5j'], ['define', 'legend rule'], ['model'], ['--help'],\n"
        "             ['card', 'Darksteel Citadel'], ['search', 'legend rule']):\n"
        "    try:\n"
        "        cli(args, prog_name='judge')\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = [m for m in ('numpy', 'onnxruntime', 'tokenizers') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    env = dict(os.environ, JUDGE_HOME=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert out.strip().endswith("HEAVY []")
    env["_JUDGE_COMPLETE"] = "bash_complete"
    env["COMP_WORDS"] = "judge mo"
    env["COMP_CWORD"] = "1"
    completion = (
        "import sys\n"
        "from judge_cli.cli import cli\n"
        "try:\n"
        "    cli(prog_name='judge')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('HEAVY', [m for m in ('numpy', 'onnxruntime', 'tokenizers') if m in sys.modules])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", completion], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert "model" in out and out.strip().endswith("HEAVY []")
