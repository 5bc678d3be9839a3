"""The question adapter (index.semantic.adapter): its fit, and its place in the vectors file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from index.model import Document
from index.reader import read_cr_path
from index.semantic import (
    VectorsError,
    adapter,
    build_vectors,
    ensure_vectors,
    load_vectors,
    passages,
)
from index.semantic.vectors import FILE, read_header, vectors_status

from .test_semantic import FakeEncoder

ROOT = Path(__file__).resolve().parents[1]


def _unit(a: Any) -> Any:
    return a / np.linalg.norm(a, axis=-1, keepdims=True)


class Styled:
    """Documents of one rule passage and a few phrasings each; every phrasing leans the same
    way (a players' style), further than it leans towards its own rule."""

    def __init__(self, docs: int = 150, per_doc: int = 4, dim: int = 32, seed: int = 7) -> None:
        self.rng = np.random.default_rng(seed)
        self.rules = _unit(self.rng.normal(size=(docs, dim))).astype(np.float32)
        self.style = _unit(self.rng.normal(size=dim))
        rows, owner, asked = [], [], []
        for d in range(docs):
            rows.append(self.rules[d])
            owner.append(d)
            for p in self.phrasings(d, per_doc):
                asked.append(len(rows))
                rows.append(p)
                owner.append(d)
        self.matrix = np.asarray(rows, dtype=np.float32)
        self.owner = np.asarray(owner, dtype=np.intp)
        self.asked = np.asarray(asked, dtype=np.intp)

    def phrasings(self, doc: int, n: int) -> Any:
        noise = _unit(self.rng.normal(size=(n, len(self.style))))
        return _unit(0.5 * self.rules[doc] + self.style + 0.5 * noise)

    def mrr(self, w: Any, asked: list[tuple[int, Any]]) -> float:
        """Mean reciprocal rank of each question's own rule among the rule passages."""
        total = 0.0
        for doc, q in asked:
            cosines = self.rules @ adapter.adapt(q, w)
            total += 1.0 / (1 + int((cosines > cosines[doc]).sum()))
        return total / len(asked)


def test_the_fit_learns_the_phrasings_style_and_questions_it_never_saw_gain() -> None:
    world = Styled()
    w = adapter.fit(world.matrix, world.owner, world.asked)
    assert w is not None and w.shape == (32, 32) and w.dtype == np.float32
    new_questions = [(d, world.phrasings(d, 1)[0]) for d in range(len(world.rules))]
    before, after = world.mrr(None, new_questions), world.mrr(w, new_questions)
    assert before < 0.7
    assert after > before + 0.2


def test_the_fit_is_deterministic_and_needs_enough_phrasings() -> None:
    world = Styled()
    first = adapter.fit(world.matrix, world.owner, world.asked)
    again = adapter.fit(world.matrix, world.owner, world.asked)
    assert first is not None and again is not None and np.array_equal(first, again)
    few = world.asked[: adapter.STRIDE * (adapter.MIN_ROWS - 1)]
    assert adapter.fit(world.matrix, world.owner, few) is None
    assert adapter.fit(world.matrix, world.owner, np.zeros(0, dtype=np.intp)) is None


def test_the_fit_in_chunks_is_the_fit_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    world = Styled()
    whole = adapter.fit(world.matrix, world.owner, world.asked)
    monkeypatch.setattr(adapter, "_CHUNK", 7)
    chunked = adapter.fit(world.matrix, world.owner, world.asked)
    assert whole is not None and chunked is not None
    assert np.allclose(chunked, whole, rtol=1e-3, atol=1e-5)


def test_a_phrasing_alone_with_its_rule_is_left_out() -> None:
    # Documents whose only passage is the phrasing itself teach nothing (no other passage).
    world = Styled()
    lonely = _unit(np.random.default_rng(1).normal(size=(400, 32))).astype(np.float32)
    matrix = np.concatenate([world.matrix, lonely])
    owner = np.concatenate([world.owner, world.owner[-1] + 1 + np.arange(400)])
    asked = np.concatenate([world.asked, len(world.matrix) + np.arange(400)])
    w = adapter.fit(matrix, owner, asked)
    assert w is not None and np.all(np.isfinite(w))


def test_adapt_gives_a_unit_vector_and_nothing_without_an_adapter() -> None:
    q = _unit(np.arange(1, 9, dtype=np.float32))
    assert np.array_equal(adapter.adapt(q, None), q)
    w = np.eye(8, dtype=np.float32)[::-1] * 0.5
    moved = adapter.adapt(q, w)
    assert moved.dtype == np.float32
    assert float(np.linalg.norm(moved)) == pytest.approx(1.0, abs=1e-6)
    assert np.allclose(moved, _unit(q + q @ w), atol=1e-6)


# --- in the vectors file ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def mini_doc() -> Document:
    return read_cr_path(ROOT / "tests" / "fixtures" / "mini-cr.txt")


@pytest.fixture
def few_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mini CR's 78 phrasings are enough (26 training rows)."""
    monkeypatch.setattr(adapter, "MIN_ROWS", 10)


def _best_of_passages(
    doc: Document, enc: FakeEncoder, ids: list[str], q: Any, *, phrasings: bool = True
) -> Any:
    """Each document's best cosine with ``q`` over its passages, computed here."""
    items = passages(doc, phrasings=phrasings)
    cosines = enc.embed([p.text for p in items]) @ q
    best: dict[str, float] = {}
    for p, c in zip(items, cosines, strict=True):
        best[p.id] = max(best.get(p.id, -1.0), float(c))
    return np.asarray([best[rid] for rid in ids])


@pytest.mark.usefixtures("few_rows")
def test_vectors_store_the_adapter_and_take_cosines_through_it(
    tmp_path: Path, mini_doc: Document
) -> None:
    enc = FakeEncoder()
    header = build_vectors(mini_doc, tmp_path, enc, dtype="float32")
    fitted = header["adapter"]
    assert fitted["settings"] == adapter.settings() and fitted["phrasings"] == 78
    assert isinstance(fitted["offset"], int)
    vectors = load_vectors(tmp_path)
    q = enc.embed(["a creature with toughness 0 is put into its owner's graveyard"])[0]
    sims = vectors.similarities(q)
    items = passages(mini_doc)
    matrix = enc.embed([p.text for p in items])
    owner = np.asarray([vectors.position[p.id] for p in items], dtype=np.intp)
    asked = np.asarray([i for i, p in enumerate(items) if p.kind == "asked"], dtype=np.intp)
    w = adapter.fit(matrix, owner, asked)
    assert w is not None
    expected = _best_of_passages(mini_doc, enc, vectors.ids, adapter.adapt(q, w))
    assert np.allclose(sims, expected, atol=1e-5)
    assert not np.allclose(sims, _best_of_passages(mini_doc, enc, vectors.ids, q), atol=1e-3)


@pytest.mark.usefixtures("few_rows")
def test_vectors_without_phrasings_have_no_adapter(tmp_path: Path, mini_doc: Document) -> None:
    enc = FakeEncoder()
    header = build_vectors(mini_doc, tmp_path, enc, dtype="float32", phrasings=False)
    assert header["adapter"]["offset"] is None and header["adapter"]["phrasings"] == 0
    q = enc.embed(["the legend rule"])[0]
    vectors = load_vectors(tmp_path)
    plain = _best_of_passages(mini_doc, enc, vectors.ids, q, phrasings=False)
    assert np.allclose(vectors.similarities(q), plain, atol=1e-5)


@pytest.mark.usefixtures("few_rows")
def test_an_adapter_fitted_otherwise_makes_vectors_stale_and_nothing_is_embedded_again(
    tmp_path: Path, mini_doc: Document, monkeypatch: pytest.MonkeyPatch
) -> None:
    enc = FakeEncoder()
    assert ensure_vectors(tmp_path, enc, mini_doc) is True
    before = read_header(tmp_path)
    assert before is not None and vectors_status(tmp_path, enc) == "current"
    monkeypatch.setattr(adapter, "TAU", adapter.TAU * 2)
    assert vectors_status(tmp_path, enc) == "adapter"
    embedded = enc.texts
    assert ensure_vectors(tmp_path, enc, mini_doc) is True
    assert enc.texts == embedded  # every passage's vector was found in the old file
    after = read_header(tmp_path)
    assert after is not None and after["adapter"]["settings"]["tau"] == adapter.TAU
    assert vectors_status(tmp_path, enc) == "current"
    assert ensure_vectors(tmp_path, enc, mini_doc) is False


@pytest.mark.usefixtures("few_rows")
def test_a_file_cut_inside_its_adapter_is_an_error(tmp_path: Path, mini_doc: Document) -> None:
    build_vectors(mini_doc, tmp_path, FakeEncoder())
    path = tmp_path / FILE
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(VectorsError, match="truncated") as info:
        load_vectors(tmp_path)
    assert info.value.path == path


@pytest.mark.usefixtures("few_rows")
def test_vectors_written_before_the_adapter_are_read_and_rebuilt_from_their_own_rows(
    tmp_path: Path, mini_doc: Document
) -> None:
    from index.semantic.vectors import _head, _split

    enc = FakeEncoder()
    build_vectors(mini_doc, tmp_path, enc, dtype="float32")
    path = tmp_path / FILE
    header, body = _split(path, path.read_bytes())
    rows = path.read_bytes()[body : body + header["adapter"]["offset"]]
    del header["adapter"]  # the file as it was written before the adapter
    path.write_bytes(_head(header) + rows)
    q = enc.embed(["the legend rule"])[0]
    plain = _best_of_passages(mini_doc, enc, load_vectors(tmp_path).ids, q)
    assert np.allclose(load_vectors(tmp_path).similarities(q), plain, atol=1e-5)  # answers
    assert vectors_status(tmp_path, enc) == "adapter"
    embedded = enc.texts
    assert ensure_vectors(tmp_path, enc, mini_doc) is True
    assert enc.texts == embedded  # every row was read from the old file
    assert vectors_status(tmp_path, enc) == "current"
    assert read_header(tmp_path)["adapter"]["offset"] is not None  # type: ignore[index]
