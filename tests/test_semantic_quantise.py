"""The int8 copy of a model made at install time, with a tiny real ONNX model of our own.

The model (made with the ``onnx`` package) looks words up in an 8-wide table and multiplies
by a matrix, as a transformer's first and last steps do: enough for onnxruntime's quantiser
to quantise both (``Gather`` and ``MatMul``), in milliseconds.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from index.semantic import Embedder, ModelStore
from index.semantic.model import (
    MODEL_FILE,
    PREPARED_FILE,
    QUANTISED,
    ModelLoadError,
    SemanticUnavailableError,
    quantise_model,
)
from index.semantic.models import QUANTISED_AGREEMENT, TEST_SENTENCE, model_digest

try:
    import onnx
    import onnxruntime  # noqa: F401
except ImportError as exc:
    if os.environ.get("CI"):
        raise RuntimeError(f"CI must run the int8 tests ({exc})") from None
    pytest.skip(f'{exc.name} is not installed (pip install -e ".[test]")', allow_module_level=True)

WORDS = sorted(set(TEST_SENTENCE.lower().replace(",", " ").replace(".", " ").split()))


def _tiny_model(folder: Path, seed: int = 7) -> Path:
    """A model folder: a word-level tokenizer and ``Gather`` then ``MatMul`` in ONNX."""
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, pre_tokenizers

    folder.mkdir(parents=True)
    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, **{w: i + 3 for i, w in enumerate(WORDS)}}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "config.json").write_text(json.dumps({"hidden_size": 8}), encoding="utf-8")
    rng = np.random.default_rng(seed)
    table = numpy_helper.from_array(
        rng.uniform(-1, 1, size=(len(vocab), 8)).astype(np.float32), "table"
    )
    weight = numpy_helper.from_array(rng.uniform(-1, 1, size=(8, 8)).astype(np.float32), "weight")
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "length"])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "length"])
    out = helper.make_tensor_value_info(
        "last_hidden_state", TensorProto.FLOAT, ["batch", "length", 8]
    )
    graph = helper.make_graph(
        [
            helper.make_node("Gather", ["table", "input_ids"], ["looked"]),
            helper.make_node("MatMul", ["looked", "weight"], ["last_hidden_state"]),
        ],
        "tiny",
        [ids, mask],
        [out],
        [table, weight],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    (folder / "onnx").mkdir()
    onnx.save(model, str(folder / MODEL_FILE))
    return folder


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_an_import_quantises_the_copy_search_loads(tmp_path: Path) -> None:
    source = _tiny_model(tmp_path / "tiny")
    installed = ModelStore(tmp_path / "home").import_folder(source, quantise=True)
    assert installed.quantised == QUANTISED
    hashes = {rel: _sha(source / rel) for rel in ("tokenizer.json", "config.json", MODEL_FILE)}
    # The vectors are named by the quantised files, not the published ones.
    assert installed.published_digest == model_digest(hashes) != installed.digest
    assert installed.to_json()["quantised"] == QUANTISED
    assert not (installed.path / "onnx" / "model.int8.onnx").exists()  # folded into the copy
    import onnx as onnx_package

    prepared = onnx_package.load(str(installed.path / PREPARED_FILE), load_external_data=False)
    # Both weights stored in 8 bits (the table as the activations are, unsigned), and no
    # float matrix product left.
    stored = {t.name: t.data_type for t in prepared.graph.initializer}
    assert stored["weight_quantized"] == onnx_package.TensorProto.INT8
    assert stored["table_quantized"] == onnx_package.TensorProto.UINT8
    assert "table" not in stored and "weight" not in stored
    assert "MatMul" not in {n.op_type for n in prepared.graph.node}
    loaded = installed.load()
    assert loaded.digest == installed.digest and loaded.model_file == PREPARED_FILE
    published = Embedder.from_folder(
        installed.path, digest=installed.digest, published_digest=installed.published_digest
    )
    assert published.digest == installed.digest  # the prepared copy loads: the quantised digest
    texts = [TEST_SENTENCE, "creature", "a creature has toughness 0"]
    float_ = Embedder.from_folder(
        installed.path,
        digest=installed.digest,
        published_digest=installed.published_digest,
        model_file=MODEL_FILE,
    )
    assert float_.digest == installed.published_digest
    cosines = np.einsum("ij,ij->i", loaded.embed(texts), float_.embed(texts))
    assert cosines.min() >= QUANTISED_AGREEMENT and cosines.max() < 1.0 - 1e-7


def test_the_same_folder_quantised_again_has_the_same_digest(tmp_path: Path) -> None:
    """Stored vectors are kept across a reinstall: the quantiser's output is the same."""
    source = _tiny_model(tmp_path / "tiny")
    first = ModelStore(tmp_path / "one").import_folder(source, quantise=True)
    second = ModelStore(tmp_path / "two").import_folder(source, quantise=True)
    assert first.digest == second.digest and first.quantised == QUANTISED
    other = ModelStore(tmp_path / "three").import_folder(
        _tiny_model(tmp_path / "other", seed=8), quantise=True
    )
    assert other.digest != first.digest


def test_by_default_the_copy_is_the_float_one(tmp_path: Path) -> None:
    source = _tiny_model(tmp_path / "tiny")
    installed = ModelStore(tmp_path / "home").import_folder(source)
    hashes = {rel: _sha(source / rel) for rel in ("tokenizer.json", "config.json", MODEL_FILE)}
    assert installed.quantised is None and installed.digest == model_digest(hashes)
    assert installed.published_digest == ""
    assert (installed.path / PREPARED_FILE).is_file()
    assert installed.to_json()["quantised"] is None


def test_without_the_onnx_package_the_copy_is_the_float_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone, source = _tiny_model(tmp_path / "alone"), _tiny_model(tmp_path / "tiny")
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx raises ImportError
    with pytest.raises(SemanticUnavailableError) as info:
        quantise_model(alone)
    assert info.value.package == "onnx"
    installed = ModelStore(tmp_path / "home").import_folder(source, quantise=True)
    assert installed.quantised is None and installed.published_digest == ""
    assert (installed.path / PREPARED_FILE).is_file()
    meta = json.loads((installed.path / "model.json").read_text(encoding="utf-8"))
    assert meta["prepared"] is True


def test_a_quantiser_that_fails_leaves_the_float_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnxruntime.quantization

    def failing(*args: object, **kwargs: object) -> None:
        Path(str(args[1])).write_bytes(b"half a file")
        raise ValueError("unsupported graph")

    monkeypatch.setattr(onnxruntime.quantization, "quantize_dynamic", failing)
    folder = _tiny_model(tmp_path / "alone")
    with pytest.raises(ModelLoadError, match=r"cannot be quantised \(unsupported graph\)") as info:
        quantise_model(folder)
    assert info.value.file == MODEL_FILE
    assert sorted(p.name for p in (folder / "onnx").iterdir()) == ["model.onnx"]
    installed = ModelStore(tmp_path / "home").import_folder(
        _tiny_model(tmp_path / "tiny"), quantise=True
    )
    assert installed.quantised is None
    # The tiny model's weights fit in the graph: no model.prepared.data beside it.
    assert sorted(p.name for p in (installed.path / "onnx").iterdir()) == [
        "model.onnx",
        "model.prepared.onnx",
    ]


def test_a_quantised_copy_that_disagrees_is_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from index.semantic import models

    monkeypatch.setattr(models, "QUANTISED_AGREEMENT", 1.0 + 1e-3)  # no copy can agree
    installed = ModelStore(tmp_path / "home").import_folder(
        _tiny_model(tmp_path / "tiny"), quantise=True
    )
    assert installed.quantised is None and installed.published_digest == ""
    assert installed.load().embed([TEST_SENTENCE]).shape == (1, 8)


def test_a_damaged_quantised_copy_is_an_error_not_the_published_model(tmp_path: Path) -> None:
    """The vectors stored for the model are the quantised copy's: no silent fallback."""
    installed = ModelStore(tmp_path / "home").import_folder(
        _tiny_model(tmp_path / "tiny"), quantise=True
    )
    assert installed.quantised == QUANTISED
    (installed.path / PREPARED_FILE).write_bytes(b"damaged")
    with pytest.raises(ModelLoadError, match="cannot be loaded") as info:
        installed.load()
    assert info.value.file == PREPARED_FILE
    # Asked for explicitly, the published file is named by its own digest.
    loaded = Embedder.from_folder(
        installed.path, digest=installed.digest, published_digest=installed.published_digest
    )
    assert loaded.model_file == MODEL_FILE and loaded.digest == installed.published_digest


def test_judge_model_import_int8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from judge_cli.cli import cli

    monkeypatch.setenv("JUDGE_HOME", str(tmp_path / "home"))
    source = _tiny_model(tmp_path / "tiny")
    runner = CliRunner()
    done = runner.invoke(cli, ["model", "import", str(source), "--int8", "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["quantised"] == QUANTISED
    assert "int8 weights" in runner.invoke(cli, ["model"]).output
    plain = runner.invoke(cli, ["model", "import", str(source), "--name", "plain", "--json"])
    assert json.loads(plain.output)["quantised"] is None


@pytest.mark.parametrize("command", [["import", "DIR"], ["install", "--url", "http://127.0.0.1:9"]])
def test_int8_without_onnx_says_how_to_add_it_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    from click.testing import CliRunner

    from judge_cli.cli import cli

    monkeypatch.setenv("JUDGE_HOME", str(tmp_path / "home"))
    argv = [str(_tiny_model(tmp_path / "tiny")) if a == "DIR" else a for a in command]
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx raises ImportError
    done = CliRunner().invoke(cli, ["model", *argv, "--int8"])
    assert done.exit_code == 1
    assert done.output.startswith("Error: --int8 needs the onnx package")
    assert 'pip install "judge-cli[int8]"' in done.output
    assert not (tmp_path / "home" / "models").exists()


def test_judge_model_import_int8_says_when_the_copy_is_the_float_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from index.semantic import models
    from judge_cli.cli import cli

    monkeypatch.setenv("JUDGE_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(models, "QUANTISED_AGREEMENT", 1.0 + 1e-3)  # no copy can agree
    done = CliRunner().invoke(cli, ["model", "import", str(_tiny_model(tmp_path / "t")), "--int8"])
    assert done.exit_code == 0, done.output
    assert "search runs the float weights" in done.output
