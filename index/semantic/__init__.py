"""The semantic re-rank (the optional ``semantic`` extra: onnxruntime, tokenizers, numpy).

A sentence-embedding model (all-MiniLM-L6-v2, run by onnxruntime) turns a question and every
rule, players' phrasing and glossary entry of an edition into unit vectors; search's lexical
pool is then re-ranked by a weighted sum of its scores and the cosines.

* :mod:`index.semantic.model`: :class:`Embedder` (load a model folder, embed texts);
* :mod:`index.semantic.models`: :class:`ModelStore`, the models under the data folder
  (``judge model import DIR``);
* :mod:`index.semantic.vectors`: an edition's vectors, stored in its build folder
  (:func:`build_vectors` beside ``build_search_index``; :func:`ensure_vectors` for an edition
  already stored);
* :mod:`index.semantic.reranking`: :func:`rerank`;
* :mod:`index.semantic.searching`: the re-rank wired into search (:func:`reranked_search`,
  :class:`SemanticSearch`, what :meth:`index.edition.Edition.search` uses);
* :mod:`index.semantic.forked`: a one-shot search's model work in a forked child, beside
  the lexical search (what :meth:`index.edition.Edition.search` does first in a fresh process);
* :mod:`index.semantic.hub`: :func:`install_model` from the Hugging Face hub.

Importing this package imports none of the extra's packages: numpy, onnxruntime and
tokenizers are imported inside the functions that use them, and :func:`is_available` says
whether they are installed without importing them.
"""

from __future__ import annotations

import importlib.util

from .model import Embedder, Encoder, ModelLoadError, SemanticUnavailableError
from .models import InstalledModel, ModelCheckError, ModelFolderError, ModelStore, NoModelError
from .reranking import ADD, CARDS_WEIGHT, DEPTH, WEIGHT, Hit, rerank
from .vectors import (
    Passage,
    Vectors,
    VectorsError,
    build_vectors,
    ensure_vectors,
    load_vectors,
    passages,
    vectors_status,
)

__all__ = [
    "ADD",
    "CARDS_WEIGHT",
    "DEPTH",
    "WEIGHT",
    "Embedder",
    "Encoder",
    "Hit",
    "InstalledModel",
    "ModelCheckError",
    "ModelFolderError",
    "ModelLoadError",
    "ModelStore",
    "NoModelError",
    "Passage",
    "SemanticUnavailableError",
    "Vectors",
    "VectorsError",
    "build_vectors",
    "ensure_vectors",
    "is_available",
    "load_vectors",
    "passages",
    "rerank",
    "vectors_status",
]


def is_available() -> bool:
    """Checks if the extra's packages are installed (without importing them)."""
    for package in ("numpy", "onnxruntime", "tokenizers"):
        try:
            if importlib.util.find_spec(package) is None:
                return False
        except (ImportError, ValueError, AttributeError):  # a module blocked in sys.modules
            return False
    return True
