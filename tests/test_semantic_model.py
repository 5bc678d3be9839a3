"""index.semantic with the real model (../shared/models/all-MiniLM-L6-v2) and real rules.

Skipped, with the reason, when ../shared/models is not beside the clone; under CI (the CI
environment variable set) they fail instead, as the corpus tests do.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from index.model import Document
from index.reader import read_cr_path
from index.search import build_search_index
from index.semantic import (
    Embedder,
    ModelStore,
    build_vectors,
    is_available,
    load_vectors,
    vectors_status,
)
from index.semantic.vectors import read_header
from index.store import EditionStore
from judge_cli.cli import cli

from .conftest import corpus_document, tree_digest

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT.parent / "shared" / "models"


def shared_model() -> Path:
    """The shared model folder, skipping the test when it (or the extra) is absent."""
    path = MODELS / "all-MiniLM-L6-v2"
    missing = None
    if not (path / "onnx" / "model.onnx").is_file():
        missing = f"{MODELS} is not beside this clone (the real model lives there)"
    elif not is_available():
        missing = 'the semantic extra is not installed (pip install -e ".[test]")'
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"{missing}: CI must run the semantic tests")
        pytest.skip(missing)
    return path


@pytest.fixture(scope="module")
def model() -> Embedder:
    from index.semantic.models import model_digest

    folder = shared_model()
    hashes = {
        rel: hashlib.sha256((folder / rel).read_bytes()).hexdigest()
        for rel in ("tokenizer.json", "config.json", "onnx/model.onnx")
    }
    return Embedder.from_folder(folder, digest=model_digest(hashes), threads=2)


def test_vectors_match_the_published_similarities(model: Embedder) -> None:
    # sentence-transformers' own usage page prints these cosines for all-MiniLM-L6-v2.
    sentences = [
        "The weather is lovely today.",
        "It's so sunny outside!",
        "He drove to the stadium.",
    ]
    vectors = model.embed(sentences)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.linalg.norm(vectors, axis=1) == pytest.approx([1.0, 1.0, 1.0], abs=1e-5)
    published = [[1.0, 0.6660, 0.1046], [0.6660, 1.0, 0.1411], [0.1046, 0.1411, 1.0]]
    assert (vectors @ vectors.T).tolist() == [pytest.approx(row, abs=5e-4) for row in published]
    # Batching pads texts: a text's vector must not depend on its neighbours.
    alone = model.embed([sentences[2]])[0]
    assert float(alone @ vectors[2]) == pytest.approx(1.0, abs=1e-5)


def test_a_long_question_is_cut_at_the_model_s_trained_length(model: Embedder) -> None:
    from tokenizers import Tokenizer

    assert model.query_tokens == 128  # tokenizer.json's own cut; passages run to 256
    long = "Can I respond when my opponent casts a creature spell with flash? " * 20
    short = "Can I respond when my opponent casts a creature spell with flash?"
    tokenizer = Tokenizer.from_file(str(model.folder / "tokenizer.json"))
    tokenizer.no_padding()
    cut = tokenizer.encode(long)  # the hub file cuts at 128, [SEP] kept
    assert len(cut.ids) == 128 and len(model._tokenizer.encode(long).ids) == 256
    as_cut = model.embed([tokenizer.decode(cut.ids)])[0]
    assert float(model.embed_query(long)[0] @ as_cut) == pytest.approx(1.0, abs=1e-5)
    assert float(model.embed_query(long)[0] @ model.embed([long])[0]) < 1.0 - 1e-4
    # A question shorter than the cut is embedded as a passage is.
    assert float(model.embed_query(short)[0] @ model.embed([short])[0]) == pytest.approx(
        1.0, abs=1e-6
    )


# --- judge model import ----------------------------------------------------------------------


def test_a_lone_surrogate_is_embedded_as_the_replacement_character(model: Embedder) -> None:
    # A command line's undecodable byte ("\\udcff"): the tokenizer refuses it as it is.
    got = model.embed(["legend \udcff rule", "legend \ufffd rule"])
    assert got[0].tobytes() == got[1].tobytes()
    assert model.embed_query("\ud800").tobytes() == model.embed_query("\ufffd").tobytes()


def _invoke(home: Path, args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli, args, env={"JUDGE_HOME": str(home), "NO_COLOR": "1"})
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def model_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder with the shared model imported by ``judge model import``."""
    home = tmp_path_factory.mktemp("judge-home")
    code, out = _invoke(home, ["model", "import", str(shared_model())])
    assert code == 0, out
    return home


def _linked_copy(tmp: Path, *, without: str | None = None, truncate: str | None = None) -> Path:
    """A copy of the shared folder made of links, less one file or with one file cut short."""
    source = shared_model()
    copy = tmp / "all-MiniLM-L6-v2"
    for path in source.rglob("*"):
        rel = str(path.relative_to(source))
        if path.is_dir() or rel == without:
            continue
        target = copy / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if rel == truncate:
            with path.open("rb") as fh:
                target.write_bytes(fh.read(1 << 20))
        else:
            target.symlink_to(path)
    return copy


def test_import_of_the_shared_folder(model_home: Path) -> None:
    code, out = _invoke(model_home, ["model"])
    assert code == 0
    assert re.match(r"all-MiniLM-L6-v2 \(active\): 384 dimensions, digest [0-9a-f]{12}, ", out)
    listing = json.loads(_invoke(model_home, ["model", "--json"])[1])
    assert listing["active"] == "all-MiniLM-L6-v2" and listing["available"] is True
    (record,) = listing["models"]
    sums = (MODELS / "SHA256SUMS").read_text(encoding="utf-8").split("\n")
    for line in filter(None, sums):
        sha, name = line.split()
        assert record["files"][name.split("/", 1)[1]] == sha
    installed = ModelStore(model_home).get()
    assert installed.load().embed(["a test"]).shape == (1, 384)
    assert record["quantised"] is None and "int8" not in out  # not quantised by default


def test_import_of_a_folder_missing_a_file(model_home: Path, tmp_path: Path) -> None:
    before = tree_digest(model_home / "models")
    broken = _linked_copy(tmp_path, without="tokenizer.json")
    code, out = _invoke(model_home, ["model", "import", str(broken)])
    assert code == 1
    assert out.startswith(
        f"Error: {broken} is not a sentence-embedding model folder (missing tokenizer.json). "
        "Nothing was installed; the model installed before, if any, is still in use."
    )
    assert tree_digest(model_home / "models") == before


def test_import_of_a_corrupt_onnx(model_home: Path, tmp_path: Path) -> None:
    before = tree_digest(model_home / "models")
    broken = _linked_copy(tmp_path, truncate="onnx/model.onnx")
    code, out = _invoke(model_home, ["model", "import", str(broken)])
    assert code == 1
    assert out.startswith(f"Error: {broken / 'onnx' / 'model.onnx'}: cannot be loaded (")
    assert "Nothing was installed" in out
    assert tree_digest(model_home / "models") == before
    assert ModelStore(model_home).get().name == "all-MiniLM-L6-v2"


# --- vectors stored with an edition, and the re-rank -------------------------------------------


def test_vectors_built_in_the_build_hook_go_live_with_the_edition(
    tmp_path: Path, model: Embedder
) -> None:
    store = EditionStore(tmp_path)
    cr = ROOT / "tests" / "fixtures" / "mini-cr.txt"

    def build(doc: Document, folder: Path) -> None:
        build_search_index(doc, folder)
        build_vectors(doc, folder, model)

    info = store.add_bytes(cr.read_bytes(), cr.name, extra=build)
    folder = store.build_path(info.edition)
    assert folder is not None
    assert vectors_status(folder, model) == "current"  # the cheap check: meta.json's sha256
    vectors = load_vectors(folder)
    assert "704.5f" in vectors.ids and vectors.header["source"] == info.sha256


def _section_one_and_704(doc: Document) -> Document:
    """Section 1 and rule 704 of an edition: enough rules to rank, quick to embed."""
    part = Document(edition=doc.edition, title=doc.title)
    part.rules = {n: r for n, r in doc.rules.items() if n[0] == "1" or n.startswith("704")}
    return part


@pytest.fixture(scope="module")
def edition_part(
    tmp_path_factory: pytest.TempPathFactory, model: Embedder
) -> Iterator[tuple[Path, Document]]:
    doc = _section_one_and_704(corpus_document("20250207"))
    folder = tmp_path_factory.mktemp("part")
    build_search_index(doc, folder)
    build_vectors(doc, folder, model)
    yield folder, doc
    shutil.rmtree(folder, ignore_errors=True)


def _ranked(folder: Path, doc: Document, model: Embedder, question: str) -> tuple[list[str], ...]:
    """The top 5 of search alone, and of search then the re-rank (``reranked_search``, the path
    ``judge search`` takes)."""
    from index.search import Searcher
    from index.semantic.searching import reranked_search

    with Searcher.open(folder) as searcher:
        alone = [r.id for r in searcher.search(question, limit=10).results]
        found = reranked_search(searcher, question, load_vectors(folder), model, limit=10)
    return alone[:5], [r.id for r in found.results[:5]]


def _shares_no_word(question: str, text: str) -> bool:
    words = set(re.findall(r"[a-z0-9]+", question.lower()))
    return not words & set(re.findall(r"[a-z0-9]+", text.lower()))


@pytest.mark.parametrize(
    ("question", "rule"),
    [
        # Both hold in the whole 2025-02-07 edition as well (benchmarks/relevance.py's engines).
        ("we both went to zero at once, what happens?", "104.4a"),
        ("I'm at zero, am I out?", "704.5a"),
    ],
)
def test_a_question_sharing_no_word_with_its_rule(
    edition_part: tuple[Path, Document], model: Embedder, question: str, rule: str
) -> None:
    folder, doc = edition_part
    assert _shares_no_word(question, doc.rules[rule].text)
    alone, reranked = _ranked(folder, doc, model, question)
    assert rule not in alone
    assert rule in reranked


@pytest.mark.xfail(
    strict=True,
    reason=(
        "all-MiniLM-L6-v2 reads 'artifact land' and not '0/0': over the whole 2025-02-07 "
        "edition it ranks 704.5f 188th for this question (191st with int8 vectors; its "
        "passages include four players' phrasings of 'toughness 0'), search alone 72nd; "
        "re-ranking 100 deep, or adding the model's 50 nearest, still leaves it out of the top "
        "10. Tried 2026-12-02 (benchmarks/dense_ideas.py --must-show): '0/0' read as power and "
        "toughness in the text embedded lifts it to 31st by cosine (9th of this test's part, "
        "45th without), 23rd re-ranked 100 deep; hubness reduction lowers it (210-215th, "
        "88-170th with that reading), vector-space feedback re-ranks it 31st-55th 100 deep; "
        "none reaches the top 10, and search's pool here lacks it. With the question adapter "
        "(index.semantic.adapter, 2026-12-02): 144th by cosine over the whole edition (int8), "
        "30th of this test's part, 26th re-ranked 100 deep. Tried 2026-12-03 with the adapter: "
        "'0/0' read as power and toughness and 'is it gone' as put into a graveyard, in the text "
        "embedded, make it 3rd by cosine over the whole edition but 11th re-ranked (it joins as "
        "one of the model's nearest with no lexical share, under the pool's 'artifact land' "
        "rules). In this test's part (no section 3) the two readings put it 1st, the readings "
        "alone 9th (death) and out of the top 30 (N/M): this test would pass while a user's "
        "search of the whole edition shows it 11th, and the readings move no real question up "
        "(H 0.533 / 0.402 -> 0.533 / 0.391): not kept. Two more phrasings of 704.5f in the "
        "players' N/M notation ('my creature is a 0/0 now, does it die?', 'a 1/1 gets -1/-1, "
        "is it dead right away?') make it 19th by cosine, 14th-18th re-ranked (search alone "
        "42nd): still out of the top 10, and written for this question: not kept. Tried "
        "2026-12-03 (second): the model's nearest given a share of the pool's lowest lexical "
        "score instead of 0 (with both readings, 9th over the whole edition; T loses a "
        "question at success@5); the rulings as a bridge (March of the Machines' ruling, "
        "searched, finds 704.5f first, but the question finds it 5th among the rulings, 37th "
        "by cosine: 704.5f stays out of the top 10). The model's own reading of the parts: "
        "'my 0/0' puts 704.5f 121st by cosine, 'is it gone?' 10th, '0/0 creature' 8th"
    ),
)
def test_the_issue_s_0_0_artifact_land_question(
    edition_part: tuple[Path, Document], model: Embedder
) -> None:
    folder, doc = edition_part
    question = "my 0/0 artifact land thing, is it gone?"
    assert _shares_no_word(question.replace("0/0", ""), doc.rules["704.5f"].text)
    alone, reranked = _ranked(folder, doc, model, question)
    assert "704.5f" not in alone
    assert "704.5f" in reranked


@pytest.fixture(scope="module")
def int8_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder with the shared model imported, its prepared copy quantised."""
    home = tmp_path_factory.mktemp("judge-home-int8")
    ModelStore(home).import_folder(shared_model(), quantise=True)
    return home


def test_the_prepared_copy_embeds_as_the_published_model(model_home: Path) -> None:
    from index.semantic.model import MODEL_FILE, PREPARED_FILE

    installed = ModelStore(model_home).get()
    assert (installed.path / PREPARED_FILE).is_file() and installed.quantised is None
    texts = ["Can I respond to a land drop?", "704.5j legend rule", "Phasing"]
    published = Embedder.from_folder(installed.path, model_file=MODEL_FILE).embed(texts)
    for prepack in (False, True):
        prepared = installed.load(prepack=prepack).embed(texts)
        assert np.einsum("ij,ij->i", published, prepared) == pytest.approx([1.0] * 3, abs=1e-5)


def _real_sentences() -> list[str]:
    """Real questions (when ../shared/questions is there) and rules of the mini CR."""
    sentences = [
        "Can I respond to a land drop?",
        "704.5j legend rule",
        "Phasing",
        "my 0/0 artifact land thing, is it gone?",
    ]
    real = ROOT.parent / "shared" / "questions" / "real-questions.jsonl"
    if real.is_file():
        lines = real.read_text(encoding="utf-8").splitlines()
        sentences += [json.loads(line)["question"] for line in lines if line.strip()]
    doc = read_cr_path(ROOT / "tests" / "fixtures" / "mini-cr.txt")
    return sentences + [rule.text for rule in doc.rules.values() if rule.text]


def test_the_quantised_copy_embeds_close_to_the_published_model(
    model_home: Path, int8_home: Path
) -> None:
    from index.semantic.model import MODEL_FILE, PREPARED_FILE, QUANTISED
    from index.semantic.models import QUANTISED_AGREEMENT

    installed = ModelStore(int8_home).get()
    assert installed.quantised == QUANTISED and (installed.path / PREPARED_FILE).is_file()
    assert "int8 weights, " in _invoke(int8_home, ["model"])[1]
    # The same weights unquantised are another model to the vectors.
    plain = ModelStore(model_home).get()
    assert installed.published_digest == plain.digest != installed.digest
    texts = _real_sentences()
    published = Embedder.from_folder(installed.path, model_file=MODEL_FILE).embed(texts)
    # Measured: over the 91 real questions and 300 passages of the 2025-02-07 edition, cosine
    # median 0.992, minimum 0.984.
    for prepack in (False, True):
        quantised = installed.load(prepack=prepack)
        assert quantised.digest == installed.digest
        cosines = np.einsum("ij,ij->i", published, quantised.embed(texts))
        assert cosines.min() >= QUANTISED_AGREEMENT, texts[int(cosines.argmin())]
        assert float(np.median(cosines)) >= 0.99
        assert cosines.max() < 1.0 - 1e-6  # it is another model


def test_a_damaged_prepared_copy_falls_back_to_the_published_model(
    model_home: Path, int8_home: Path, tmp_path: Path
) -> None:
    from index.semantic.model import MODEL_FILE, PREPARED_FILE

    for home in (model_home, int8_home):
        installed = ModelStore(home).get()
        copy = tmp_path / home.name
        shutil.copytree(installed.path, copy, symlinks=True)
        (copy / PREPARED_FILE).write_bytes(b"damaged")
        expected = Embedder.from_folder(installed.path, model_file=MODEL_FILE).embed(["a test"])
        fallen = Embedder.from_folder(
            copy, digest=installed.digest, published_digest=installed.published_digest
        )
        assert fallen.embed(["a test"]) @ expected.T == pytest.approx(1.0, abs=1e-5)
        # Named as the published weights: a quantised copy's vectors are not taken for theirs.
        assert fallen.model_file == MODEL_FILE
        assert fallen.digest == (installed.published_digest or installed.digest)


# --- judge index build, judge search: vectors built once, rebuilt only on a change ----------


def _changed_cr(tmp: Path) -> Path:
    """The mini CR with one rule's text changed (a new edition file of the same date)."""
    text = (ROOT / "tests" / "fixtures" / "mini-cr.txt").read_text(encoding="utf-8-sig")
    assert "704.5a" in text
    changed = tmp / "mini-cr-changed.txt"
    changed.write_text(
        text.replace("704.5a If a player has 0 or less life", "704.5a If a player has 0 life"),
        encoding="utf-8",
    )
    return changed


def test_vectors_are_built_by_index_build_and_rebuilt_only_on_a_change(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ModelStore(home).import_folder(shared_model())
    mini = ROOT / "tests" / "fixtures" / "mini-cr.txt"

    def build(path: Path, *extra: str) -> dict[str, object]:
        code, out = _invoke(home, ["index", "build", str(path), *extra])
        assert code == 0, out
        folder = EditionStore(home).build_path("2030-03-01")
        assert folder is not None
        header = read_header(folder)
        assert header is not None and header["model"] == ModelStore(home).get().digest
        return header

    first = build(mini)
    assert first["reused"] == 0  # embedded at index build time
    assert ModelStore(home).get().quantised is None
    again = build(mini, "--replace")  # a new build of the same text: nothing embedded
    assert again["reused"] == again["rows"]
    changed = build(_changed_cr(tmp_path), "--replace")  # one rule changed: one passage
    assert changed["reused"] == changed["rows"] - 1

    def search() -> tuple[dict[str, object], str]:
        result = CliRunner().invoke(
            cli, ["search", "--json", "I'm at zero, am I out?"], env={"JUDGE_HOME": str(home)}
        )
        assert result.exit_code == 0, result.output
        out = result.output
        return json.loads(out[out.index("{") :]), out[: out.index("{")]

    found, said = search()
    assert found["semantic"]["model"] == "all-MiniLM-L6-v2" and said == ""  # type: ignore[index]
    # Another model (here: the same weights cut at 128 tokens, so another digest).
    other = tmp_path / "minilm-128"
    shutil.copytree(shared_model(), other, symlinks=True)
    (other / "sentence_bert_config.json").unlink()
    (other / "sentence_bert_config.json").write_text(
        '{"max_seq_length": 128, "do_lower_case": false}', encoding="utf-8"
    )
    ModelStore(home).import_folder(other)
    folder = EditionStore(home).build_path("2030-03-01")
    assert folder is not None and vectors_status(folder, ModelStore(home).get().digest) == "model"
    found, said = search()
    assert said.startswith("Embedding edition 2030-03-01 for the semantic re-rank")
    assert found["semantic"]["model"] == "minilm-128"  # type: ignore[index]
    found, said = search()
    assert said == "" and found["semantic"]["model"] == "minilm-128"  # type: ignore[index]
    # The same weights with their prepared copy quantised: another model.
    ModelStore(home).import_folder(shared_model(), quantise=True)
    quantised = ModelStore(home).get()
    assert quantised.quantised is not None and quantised.digest != first["model"]
    assert quantised.published_digest == first["model"]
    assert vectors_status(folder, quantised.digest) == "model"
    found, said = search()
    assert said.startswith("Embedding edition 2030-03-01 for the semantic re-rank")
    assert read_header(folder)["model"] == ModelStore(home).get().digest  # type: ignore[index]


def test_search_without_the_extra_answers_as_before(tmp_path: Path) -> None:
    """A subprocess in which numpy, onnxruntime and tokenizers cannot be imported."""
    home = tmp_path / "home"
    ModelStore(home).import_folder(shared_model())
    mini = ROOT / "tests" / "fixtures" / "mini-cr.txt"
    assert _invoke(home, ["index", "build", str(mini)])[0] == 0
    code = (
        "import json, sys\n"
        "if sys.argv[1] == 'blocked':\n"
        "    for name in ('numpy', 'onnxruntime', 'tokenizers'):\n"
        "        sys.modules[name] = None\n"
        "from index.edition import open_edition\n"
        "found = open_edition().search('I am at zero, am I out?', semantic=sys.argv[2] == '1')\n"
        "print(json.dumps([found.semantic_status, found.to_json()]))\n"
    )
    env = dict(os.environ, JUDGE_HOME=str(home))

    def run(*args: str) -> list[object]:
        out = subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env
        )
        assert out.returncode == 0, out.stderr
        loaded: list[object] = json.loads(out.stdout)
        return loaded

    blocked, alone = run("blocked", "1"), run("free", "0")
    assert blocked[0] == "unavailable" and alone[0] == "off"
    said, same = blocked[1], alone[1]
    assert isinstance(said, dict) and isinstance(same, dict)
    assert said.pop("semantic_status") == "unavailable" and same.pop("semantic_status") == "off"
    assert said == same  # exactly search alone, but for saying why the re-rank did not run
    assert run("free", "1")[0] == "current"


# --- the server ------------------------------------------------------------------------------


def test_the_server_embeds_in_the_background_then_re_ranks_as_the_cli(tmp_path: Path) -> None:
    from index.search import build_search_index

    from .servefixture import fetch, running

    home = tmp_path / "home"
    mini = ROOT / "tests" / "fixtures" / "mini-cr.txt"
    EditionStore(home).add_bytes(mini.read_bytes(), mini.name, extra=build_search_index)
    ModelStore(home).import_folder(shared_model())  # after the edition: it has no vectors yet
    route = "/api/search?q=" + "I%27m%20at%20zero%2C%20am%20I%20out%3F"
    from judge_cli.serve import state

    told: list[str] = []
    original = state.Editions.__init__

    def telling(self: state.Editions, store: EditionStore, notice: object = None) -> None:
        original(self, store, told.append)

    import unittest.mock

    with unittest.mock.patch.object(state.Editions, "__init__", telling), running(home) as base:
        first = fetch(base, route).json()
        assert "semantic" not in first  # not embedded yet: search alone answers
        assert first["semantic_status"] == "missing"
        deadline = time.monotonic() + 600
        while not any(t.startswith("Edition 2030-03-01 embedded") for t in told):
            assert time.monotonic() < deadline, told
            time.sleep(0.2)
        served = fetch(base, route).json()
    assert told[0].startswith("Embedding edition 2030-03-01 for the semantic re-rank")
    result = CliRunner().invoke(
        cli, ["search", "--json", "I'm at zero, am I out?"], env={"JUDGE_HOME": str(home)}
    )
    assert result.exit_code == 0, result.output
    mine = json.loads(result.output)
    assert served["semantic"] == mine["semantic"]
    assert served["semantic_status"] == mine["semantic_status"] == "current"
    assert [r["id"] for r in served["results"]] == [r["id"] for r in mine["results"]]
    for a, b in zip(served["results"], mine["results"], strict=True):
        assert a["similarity"] == pytest.approx(b["similarity"], abs=2e-4)
