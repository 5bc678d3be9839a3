"""Shared fixtures: the corpus beside the repository, a small CR file, a fresh data folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from index.model import Document
from index.reader import read_cr_path

FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
CORPUS_FILES = sorted(CORPUS.glob("cr-*.txt")) if CORPUS.is_dir() else []


def corpus_file(date: str) -> Path:
    """The corpus file of an edition (``20250207``), skipping the test when it is absent."""
    path = CORPUS / f"cr-{date}.txt"
    if not path.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing: CI must run the corpus tests")
        pytest.skip("../shared/corpus is not beside this clone (the real CR files live there)")
    return path


CARDS = Path(__file__).resolve().parents[2] / "shared" / "cards" / "AtomicCards.json.xz"


def cards_file() -> Path:
    """The shared AtomicCards file, skipping the test when it is absent (failing under CI)."""
    if not CARDS.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"{CARDS} is missing: CI must run the card tests")
        pytest.skip("../shared/cards is not beside this clone (the real card file lives there)")
    return CARDS


_documents: dict[str, Document] = {}


def corpus_document(date: str) -> Document:
    """A parsed corpus edition, read once per test session."""
    if date not in _documents:
        _documents[date] = read_cr_path(corpus_file(date))
    return _documents[date]


@pytest.fixture
def cr_excerpt() -> Path:
    """A small CR-format file of our own (UTF-8 with BOM, CRLF)."""
    return FIXTURES / "mini-cr.txt"


@pytest.fixture
def judge_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty data folder for the test, as ``$JUDGE_HOME``."""
    home = tmp_path / "judge-home"
    monkeypatch.setenv("JUDGE_HOME", str(home))
    monkeypatch.delenv("NO_COLOR", raising=False)
    yield home


def tree_digest(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes, to assert that nothing changed."""
    if not root.exists():
        return {}
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }
