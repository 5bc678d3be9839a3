"""The re-rank wired into search (index.semantic.searching, Edition.search, judge search).

The fake encoder of test_semantic.py stands in for the model; an edition of our own mini CR is
stored in a data folder, with vectors made by it. What is tested: when the re-rank runs and
when it does not (and then, that the results are exactly search's), what it keeps first, what
JSON says, the tip said once, and that vectors are built only when missing or stale.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from index.edition import Edition, open_edition
from index.search import Searcher
from index.semantic import InstalledModel, ModelStore, build_vectors, load_vectors
from index.semantic.searching import SemanticSearch, reranked_search
from index.semantic.vectors import read_header
from index.store import EditionStore
from judge_cli.cli import cli

from .test_semantic import FakeEncoder

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "tests" / "fixtures" / "mini-cr.txt"


def _semantic(home: Path, encoder: FakeEncoder) -> SemanticSearch:
    """A SemanticSearch whose installed model is the fake encoder."""
    semantic = SemanticSearch(ModelStore(home))
    semantic._installed = InstalledModel("fake", home, encoder.digest, 64, "test", time.time())
    semantic._looked = True
    semantic._model = encoder  # type: ignore[assignment]
    semantic._builder = encoder
    return semantic


@pytest.fixture
def home(tmp_path: Path) -> Iterator[tuple[Path, FakeEncoder]]:
    """A data folder with the mini CR stored (search index only) and a fake model."""
    from index.search import build_search_index

    store = EditionStore(tmp_path)
    store.add_bytes(MINI.read_bytes(), MINI.name, extra=build_search_index)
    yield tmp_path, FakeEncoder()


def _edition(root: Path, encoder: FakeEncoder, *, vectors: bool = True) -> Edition:
    ed = open_edition(None, store=EditionStore(root))
    ed._semantic = _semantic(root, encoder)
    if vectors:
        assert ed.build_vectors() is True
    return ed


def test_search_re_ranks_when_the_vectors_are_current(home: tuple[Path, FakeEncoder]) -> None:
    root, enc = home
    ed = _edition(root, enc)
    assert ed.semantic_status() == "current"
    found = ed.search("creature toughness zero graveyard", limit=5)
    assert found.semantic_status == "current"
    assert found.semantic == {"model": "fake", "digest": enc.digest[:12], "weight": 0.7,
                              "depth": 30, "add": 5}  # fmt: skip
    scores = [r.score for r in found.results]
    assert scores == sorted(scores, reverse=True) and all(0.0 <= s <= 1.0 for s in scores)
    assert all(r.similarity is not None for r in found.results)
    data = found.to_json()
    assert data["semantic"]["model"] == "fake" and data["semantic_status"] == "current"
    assert {"lexical_score", "similarity"} <= set(data["results"][0])


def test_without_semantic_the_results_are_search_s(home: tuple[Path, FakeEncoder]) -> None:
    root, enc = home
    ed = _edition(root, enc)
    lexical = ed.search("creature toughness zero graveyard", limit=5, semantic=False)
    with Searcher.open(ed.path) as searcher:  # type: ignore[arg-type]
        alone = searcher.search("creature toughness zero graveyard", limit=5)
    assert lexical.semantic_status == "off" and lexical.semantic is None
    assert [r.to_json() for r in lexical.results] == [r.to_json() for r in alone.results]
    assert lexical.to_json() == dataclasses.replace(alone, edition=lexical.edition).to_json()
    assert "semantic" not in lexical.to_json() and lexical.to_json()["semantic_status"] == "off"


@pytest.mark.parametrize(
    ("status", "patch"),
    [
        ("unavailable", "extra"),
        ("no-model", "model"),
        ("missing", "vectors"),
    ],
)
def test_why_the_re_rank_does_not_run(
    home: tuple[Path, FakeEncoder], monkeypatch: pytest.MonkeyPatch, status: str, patch: str
) -> None:
    root, enc = home
    ed = _edition(root, enc, vectors=patch != "vectors")
    if patch == "extra":
        monkeypatch.setattr("index.semantic.is_available", lambda: False)
    elif patch == "model":
        ed._semantic = SemanticSearch(ModelStore(root))  # nothing installed
    found = ed.search("creature toughness zero graveyard", limit=5)
    assert found.semantic_status == status and found.semantic is None
    alone = ed.search("creature toughness zero graveyard", limit=5, semantic=False)
    said, same = found.to_json(), alone.to_json()
    assert said.pop("semantic_status") == status and same.pop("semantic_status") == "off"
    assert said == same


def test_vectors_of_another_model_are_stale(home: tuple[Path, FakeEncoder]) -> None:
    root, enc = home
    ed = _edition(root, enc)
    other = _edition(root, FakeEncoder("fake-model-2"), vectors=False)
    assert other.semantic_status() == "model"
    assert other.search("legend rule").semantic_status == "model"
    assert other.build_vectors() is True and other.build_vectors() is False
    assert ed.semantic_status() == "model"  # one vectors file per edition: the newest model's


def test_a_rule_named_by_number_stays_first(home: tuple[Path, FakeEncoder]) -> None:
    root, enc = home
    ed = _edition(root, enc)
    found = ed.search("704.5j legend rule", limit=5)
    assert found.semantic_status == "current" and found.pinned == 1
    assert found.results[0].id == "704.5j" and found.results[0].score == 1000.0
    bare = ed.search("704.5", limit=5)
    assert bare.jumped and bare.semantic is None  # a bare number: the rule and its subrules
    assert [r.id for r in bare.results] == [
        r.id for r in ed.search("704.5", limit=5, semantic=False).results
    ]


def test_scopes_keep_to_their_documents(home: tuple[Path, FakeEncoder]) -> None:
    root, enc = home
    ed = _edition(root, enc)
    rules = ed.search("legend rule dies", scope="rules", limit=20)
    glossary = ed.search("legend rule dies", scope="glossary", limit=20)
    assert rules.results and all(r.kind == "rule" for r in rules.results)
    assert glossary.results and all(r.kind == "glossary" for r in glossary.results)


def test_results_past_the_re_ranked_ones_keep_search_s_order(
    home: tuple[Path, FakeEncoder],
) -> None:
    root, enc = home
    ed = _edition(root, enc)
    with Searcher.open(ed.path) as searcher:  # type: ignore[arg-type]
        vectors = load_vectors(ed.path)  # type: ignore[arg-type]
        found = reranked_search(searcher, "a player", vectors, enc, limit=40, depth=3, add=0)
        alone = searcher.search("a player", limit=40)
    assert len(alone.results) > 3
    tail = found.results[3:]
    assert [r.id for r in tail] == [r.id for r in alone.results if r.id in {t.id for t in tail}]
    assert all(r.score == 0.0 and r.lexical_score is not None for r in tail)


def test_the_model_s_nearest_join_when_search_finds_nothing(
    home: tuple[Path, FakeEncoder],
) -> None:
    root, enc = home
    ed = _edition(root, enc)
    query = "qqzx vvwy"  # in no document, and nothing near enough to suggest
    alone = ed.search(query, semantic=False)
    assert alone.results == [] and alone.suggestions == []
    found = ed.search(query, limit=5)
    assert len(found.results) == 5 and found.semantic_status == "current"
    assert all(r.lexical_score is None and r.similarity is not None for r in found.results)
    # A misspelling with a "did you mean" is left to it.
    typo = ed.search("legnd", semantic=False)
    if not typo.results and typo.suggestions:
        assert ed.search("legnd").to_json() == typo.to_json()


def test_the_tip_is_said_once_per_data_folder(
    home: tuple[Path, FakeEncoder], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _ = home
    monkeypatch.setattr("judge_cli.common.stderr_is_terminal", lambda: True)
    env = {"JUDGE_HOME": str(root), "NO_COLOR": "1"}

    def run(*args: str) -> str:
        result = CliRunner().invoke(cli, ["search", "legend rule", *args], env=env)
        assert result.exit_code == 0, result.output
        return result.output

    tip = "Tip: the semantic extra is installed but no model is: run `judge model install`"
    first = run("--json")
    assert tip in first and json.loads(first[: first.index("Tip:")])["edition"] == "2030-03-01"
    assert tip not in run()
    monkeypatch.setattr("index.semantic.is_available", lambda: False)
    assert 'Tip: judge search can also rank by meaning: pip install "judge-cli[semantic]"' in run()
    assert "Tip:" not in run() and "Tip:" not in run("--no-semantic")
    assert (root / "cache" / "semantic-hint").read_text() == "no-model\nunavailable\n"


def test_no_tip_in_a_pipe(home: tuple[Path, FakeEncoder]) -> None:
    root, _ = home
    result = CliRunner().invoke(cli, ["search", "legend rule"], env={"JUDGE_HOME": str(root)})
    assert result.exit_code == 0 and "Tip:" not in result.output
    assert not (root / "cache" / "semantic-hint").exists()


def test_vectors_reuse_other_editions_texts(tmp_path: Path) -> None:
    from index.reader import read_cr_path

    from .test_semantic import _other_edition

    doc = read_cr_path(MINI)
    enc = FakeEncoder()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = build_vectors(doc, tmp_path / "a", enc)
    assert first["reused"] == 0
    texts = enc.texts
    second = build_vectors(_other_edition(doc), tmp_path / "b", enc, reuse=[tmp_path / "a"])
    assert enc.texts - texts == 1  # the one rule whose text changed
    assert second["reused"] == second["rows"] - 1
    # The reused rows are the same bytes as if they had been embedded again.
    (tmp_path / "c").mkdir()
    build_vectors(_other_edition(doc), tmp_path / "c", enc)
    b, c = load_vectors(tmp_path / "b"), load_vectors(tmp_path / "c")
    q = enc.embed(["legend rule"])[0]
    assert b.similarities(q).tolist() == pytest.approx(c.similarities(q).tolist(), abs=1e-6)


def test_vectors_of_another_model_are_not_reused(tmp_path: Path) -> None:
    from index.reader import read_cr_path

    doc = read_cr_path(MINI)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    build_vectors(doc, tmp_path / "a", FakeEncoder())
    header = build_vectors(doc, tmp_path / "b", FakeEncoder("other"), reuse=[tmp_path / "a"])
    assert header["reused"] == 0


def test_index_build_embeds_with_a_model_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from judge_cli import building

    enc = FakeEncoder()
    made: list[Any] = []

    def fake_builder(store: EditionStore) -> Any:
        semantic = _semantic(store.root, enc)

        def build(doc: Any, folder: Path) -> None:
            made.append(semantic.build(folder, doc))

        return build

    monkeypatch.setattr(building, "vectors_builder", fake_builder)
    env = {"JUDGE_HOME": str(tmp_path)}
    result = CliRunner().invoke(cli, ["index", "build", str(MINI)], env=env)
    assert result.exit_code == 0, result.output
    build = EditionStore(tmp_path).build_path("2030-03-01")
    assert build is not None and made == [True]
    assert read_header(build)["model"] == enc.digest  # type: ignore[index]


@pytest.mark.parametrize("failure", ["read-only", "damaged model"])
def test_a_failed_embedding_is_a_warning_and_search_answers(
    home: tuple[Path, FakeEncoder], monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    import errno

    from index.semantic import ModelLoadError

    root, _ = home

    def fail(self: Edition, progress: Any = None) -> bool:
        if failure == "read-only":
            raise OSError(errno.EROFS, "Read-only file system")
        raise ModelLoadError(root / "models", "onnx/model.onnx", "cannot be loaded (damaged)")

    monkeypatch.setattr(Edition, "semantic_status", lambda self, scope="all": "missing")
    monkeypatch.setattr(Edition, "build_vectors", fail)
    result = CliRunner().invoke(cli, ["search", "legend rule"], env={"JUDGE_HOME": str(root)})
    assert result.exit_code == 0, result.output
    reason = (
        "the vectors could not be written: Read-only file system"
        if failure == "read-only"
        else f"{root / 'models' / 'onnx' / 'model.onnx'}: cannot be loaded (damaged)"
    )
    assert (
        f"Warning: edition 2030-03-01 not embedded ({reason}); searching by words.\n"
        in result.output
    )
    assert "704.5j" in result.output


def test_a_question_naming_cards_is_re_ranked_at_the_cards_weight(
    home: tuple[Path, FakeEncoder],
) -> None:
    from index.semantic.reranking import CARDS_WEIGHT, WEIGHT

    from .test_search_cards import FakeCards

    root, enc = home
    ed = _edition(root, enc)
    vectors = load_vectors(ed.path)  # type: ignore[arg-type]
    question = "does Humility make a creature lose its abilities"
    with Searcher.open(ed.path, cards=FakeCards()) as searcher:  # type: ignore[arg-type]
        named = reranked_search(searcher, question, vectors, enc, limit=5)
        plain = reranked_search(searcher, "a creature loses its abilities", vectors, enc, limit=5)
        chosen = reranked_search(searcher, question, vectors, enc, limit=5, cards_weight=0.25)
    assert named.cards == ["Humility"] and not plain.cards
    assert named.semantic is not None and named.semantic["weight"] == CARDS_WEIGHT
    assert plain.semantic is not None and plain.semantic["weight"] == WEIGHT
    assert chosen.semantic is not None and chosen.semantic["weight"] == 0.25
    # At weight 0 the re-rank keeps the lexical order (the model's own nearest come after).
    with Searcher.open(ed.path, cards=FakeCards()) as searcher:  # type: ignore[arg-type]
        lexical = searcher.search(question, limit=5)
        none = reranked_search(searcher, question, vectors, enc, limit=5, cards_weight=0.0)
    assert [r.id for r in none.results] == [r.id for r in lexical.results]
