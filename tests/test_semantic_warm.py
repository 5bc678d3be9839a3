"""A kept-warm edition embeds the question in a thread while search runs (SemanticSearch.overlap).

The fake encoder of test_semantic.py stands in for the model, as in test_semantic_search.py.
What is tested: the same results with and without the overlap (a pasted post included: the
question found in it is what is embedded), the thread's failure raised where the re-rank raises
it (the same notice, search's results), a thread that cannot start, a query search refuses, and
vectors found to be of another model than the one loaded.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from index.edition import Edition, open_edition
from index.search import QuerySyntaxError
from index.semantic import ModelLoadError
from index.store import EditionStore

from .test_semantic import FakeEncoder
from .test_semantic_search import _semantic, home  # noqa: F401  (the fixture)

POST = (
    "Hi all, long time lurker here, first post. We had a game night at the shop and a "
    "question came up that nobody could answer, so I am asking here. "
    * 4
    + "\n\nHere's what happened: my opponent's creature had its toughness reduced to zero by "
    "an effect I controlled, and at the same moment they had lost all their life. "
    "Does the creature go to the graveyard before the game ends, or do both happen at once?"
    "\n\nThanks in advance!"
)
QUESTIONS = [
    "creature toughness zero graveyard",
    "legend rule",
    "what happens when two legendary permanents share a name?",
    "704.5",
    "704.5j legend rule",
    POST,
]


class RecordingEncoder(FakeEncoder):
    """The fake model, remembering which thread embedded which texts."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, str]] = []

    def embed(self, texts: Sequence[str]) -> Any:
        self.seen += [(threading.current_thread().name, t) for t in texts]
        return super().embed(texts)


class FailingEncoder(FakeEncoder):
    """A model that fails when a question is run (a damaged file, onnxruntime failing)."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root
        self.fail = False

    def embed(self, texts: Sequence[str]) -> Any:
        if self.fail:
            raise ModelLoadError(self.root / "models", "onnx/model.onnx", "does not run (broken)")
        return super().embed(texts)


def _warm(root: Path, encoder: FakeEncoder, *, overlap: bool) -> tuple[Edition, list[str]]:
    ed = open_edition(None, store=EditionStore(root)).keep_warm()
    ed._semantic = _semantic(root, encoder)
    ed._semantic.overlap = overlap
    said: list[str] = []
    ed.notice = said.append
    return ed, said


def _built(root: Path, encoder: FakeEncoder, *, overlap: bool) -> tuple[Edition, list[str]]:
    """:func:`_warm`, with the edition's vectors built by ``encoder``."""
    ed, said = _warm(root, encoder, overlap=overlap)
    assert ed.build_vectors() is True
    return ed, said


def _answer(ed: Edition, question: str) -> list[str]:
    found = ed.search(question, limit=10)
    return [repr(r) for r in found.results] + [
        str(found.semantic_status),
        repr(found.semantic),
        str(found.searched),
    ]


def test_a_kept_warm_edition_overlaps() -> None:
    from index.semantic.searching import SemanticSearch

    assert SemanticSearch(None, warm=True).overlap  # type: ignore[arg-type]
    assert not SemanticSearch(None).overlap  # type: ignore[arg-type]


def test_the_results_are_the_same_with_and_without_the_overlap(
    home: tuple[Path, FakeEncoder],  # noqa: F811
) -> None:
    root, _ = home
    encoder = RecordingEncoder()
    before, _ = _built(root, encoder, overlap=False)
    after, said = _warm(root, encoder, overlap=True)
    try:
        for question in QUESTIONS:
            encoder.seen.clear()
            expected = _answer(before, question)
            sequential = [t for _, t in encoder.seen]
            encoder.seen.clear()
            assert _answer(after, question) == expected, question
            if sequential:  # the re-rank embedded a question: the thread embedded it alone
                assert encoder.seen == [(encoder.seen[0][0], sequential[0])]
                assert encoder.seen[0][0].startswith("judge-embed")
        assert said == []
    finally:
        before.close()
        after.close()


def test_a_pasted_post_s_question_is_what_the_thread_embeds(
    home: tuple[Path, FakeEncoder],  # noqa: F811
) -> None:
    root, _ = home
    encoder = RecordingEncoder()
    ed, _ = _built(root, encoder, overlap=True)
    encoder.seen.clear()
    found = ed.search(POST)
    ed.close()
    assert found.semantic_status == "current"
    assert found.searched is not None and found.searched != POST
    assert [t for _, t in encoder.seen] == [found.searched]


@pytest.mark.parametrize("overlap", [False, True])
def test_a_model_that_fails_gives_search_s_results_and_the_notice(
    home: tuple[Path, FakeEncoder],  # noqa: F811
    overlap: bool,
) -> None:
    root, _ = home
    encoder = FailingEncoder(root)
    ed, said = _built(root, encoder, overlap=overlap)
    lexical = ed.search("creature toughness zero graveyard", semantic=False)
    encoder.fail = True
    found = ed.search("creature toughness zero graveyard")
    ed.close()
    assert found.semantic_status == "error"
    assert [repr(r) for r in found.results] == [repr(r) for r in lexical.results]
    where = root / "models" / "onnx" / "model.onnx"
    assert said == [f"Warning: the semantic re-rank is off ({where}: does not run (broken))."]


def test_a_thread_that_cannot_start_leaves_the_re_rank_as_it_was(
    home: tuple[Path, FakeEncoder],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root, _ = home
    encoder = RecordingEncoder()
    before, _ = _built(root, encoder, overlap=False)
    expected = _answer(before, "creature toughness zero graveyard")

    def refuse(self: ThreadPoolExecutor, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(ThreadPoolExecutor, "submit", refuse)
    after, said = _warm(root, encoder, overlap=True)
    encoder.seen.clear()
    assert _answer(after, "creature toughness zero graveyard") == expected
    assert [n for n, _ in encoder.seen] == [threading.current_thread().name]
    assert said == []
    before.close()
    after.close()


def test_a_query_search_refuses_is_refused_as_before(
    home: tuple[Path, FakeEncoder],  # noqa: F811
) -> None:
    root, _ = home
    encoder = RecordingEncoder()
    ed, said = _built(root, encoder, overlap=True)
    with pytest.raises(QuerySyntaxError, match="unbalanced parentheses"):
        ed.search("(legend rule")
    ed.close()
    assert said == []


def test_close_stops_the_threads_and_a_search_starts_them_again(
    home: tuple[Path, FakeEncoder],  # noqa: F811
) -> None:
    root, _ = home
    encoder = RecordingEncoder()
    ed, _ = _built(root, encoder, overlap=True)
    ed.search("legend rule")
    semantic = ed.semantic
    assert semantic._pool is not None
    ed.close()
    assert semantic._pool is None
    assert ed.search("creature toughness zero").semantic_status == "current"
    assert semantic._pool is not None
    ed.close()


def test_the_real_model_gives_the_same_results_with_and_without_the_overlap(
    tmp_path: Path,
) -> None:
    from index.search import build_search_index
    from index.semantic import ModelStore

    from .test_semantic_model import shared_model

    folder = shared_model()
    mini = Path(__file__).resolve().parent / "fixtures" / "mini-cr.txt"
    EditionStore(tmp_path).add_bytes(mini.read_bytes(), mini.name, extra=build_search_index)
    ModelStore(tmp_path).import_folder(folder)
    ed = open_edition(None, store=EditionStore(tmp_path)).keep_warm()
    try:
        assert ed.build_vectors() is True
        semantic = ed.semantic
        model = semantic.model()
        ran: list[str] = []
        forward = model.forward

        def recording(feed: dict[str, Any]) -> Any:
            ran.append(threading.current_thread().name)
            return forward(feed)

        model.forward = recording  # type: ignore[method-assign]
        for question in [*QUESTIONS, "we both went to zero at once, what happens?"]:
            answers = []
            for overlap in (False, True):
                semantic.overlap = overlap
                model.forget()
                ran.clear()
                answers.append(_answer(ed, question))
                if question != "704.5":
                    # Overlapped, only onnxruntime's run is in the thread (the word pieces
                    # and the pooling are not); else all of it is in the caller's.
                    assert len(ran) == 1 and ran[0].startswith("judge-embed") == overlap
            assert answers[0] == answers[1], question
            assert answers[0][-3] == "current" or question == "704.5"
        assert semantic._pool is not None
    finally:
        ed.close()


@pytest.mark.parametrize("overlap", [False, True])
def test_vectors_found_to_be_of_another_model_give_search_s_results_and_the_notice(
    home: tuple[Path, FakeEncoder],  # noqa: F811
    overlap: bool,
) -> None:
    # The vectors were current when looked at, and the model loaded is another (its file or
    # the vectors' replaced in between): the re-rank refuses, and search answers alone.
    root, _ = home
    encoder = RecordingEncoder()
    ed, said = _built(root, encoder, overlap=overlap)
    question = "creature toughness zero graveyard"
    lexical = ed.search(question, semantic=False)
    encoder._digest = "fake-model-2"
    found = ed.search(question)
    ed.close()
    assert found.semantic_status == "error"
    assert [repr(r) for r in found.results] == [repr(r) for r in lexical.results]
    assert len(said) == 1
    assert said[0].startswith("Warning: the semantic re-rank is off (")
    assert said[0].endswith("semantic.vec: it was made with another model).")
