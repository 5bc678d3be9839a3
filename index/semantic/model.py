"""A sentence-embedding model run with onnxruntime and tokenizers (the ``semantic`` extra).

A model folder is laid out as the Hugging Face hub publishes sentence-transformers models:
``tokenizer.json``, ``config.json``, ``onnx/model.onnx`` (inputs ``input_ids``,
``attention_mask`` and, for BERT, ``token_type_ids``; output ``last_hidden_state``), and
optionally ``sentence_bert_config.json`` (``max_seq_length``) and ``1_Pooling/config.json``.
A text's vector is the mean of its token states over the attention mask, L2-normalised, as
sentence-transformers computes it for all-MiniLM-L6-v2.

numpy, onnxruntime and tokenizers are imported inside :meth:`Embedder.from_folder`, never at
module import, so that nothing without the extra pays for them.
"""

from __future__ import annotations

import collections
import contextlib
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]

__all__ = [
    "MODEL_FILE",
    "PREPARED_FILE",
    "QUANTISED",
    "REQUIRED_FILES",
    "Embedder",
    "Encoder",
    "ModelLoadError",
    "SemanticUnavailableError",
    "pooled",
    "prepare_model",
    "quantise_model",
    "require_runtime",
]

MODEL_FILE = "onnx/model.onnx"
REQUIRED_FILES = ("tokenizer.json", "config.json", MODEL_FILE)
"""The files a model folder must have (paths relative to it)."""
_DEFAULT_MAX_TOKENS = 256
_RECENT = 64
"""Questions whose vectors :meth:`Embedder.embed_query` remembers."""
_BATCH = 8
"""Texts per run. Measured on one thread over a sample of an edition's passages, sorted by
length as :meth:`Embedder.embed` runs them (CPU time, two rounds): 4 → 57–59 texts/s, 8 → 56–62,
16 → 51–53, 32 → 44–55, 64 → 35–45. Small batches pad less and stay in the cache."""


class SemanticUnavailableError(ImportError):
    """Raised when a package of the semantic extra (numpy, onnxruntime, tokenizers) is absent."""

    def __init__(self, package: str) -> None:
        self.package = package
        super().__init__(f"the semantic re-rank needs {package}, which is not installed")


class ModelLoadError(ValueError):
    """Raised when a model folder's files cannot be read or run; ``file`` names the culprit."""

    def __init__(self, folder: Path, file: str, reason: str) -> None:
        self.folder = folder
        self.file = file
        self.reason = reason
        super().__init__(f"{folder / file}: {reason}")


class Encoder(Protocol):
    """What the vectors and the re-rank need of a model (tests use a small fake)."""

    @property
    def digest(self) -> str:
        """A hash of everything that decides the vectors (weights, tokenizer, pooling)."""
        ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Matrix:
        """One L2-normalised float32 row per text."""
        ...


def require_runtime() -> None:
    """Imports numpy, onnxruntime and tokenizers; raises :class:`SemanticUnavailableError`."""
    for package in ("numpy", "onnxruntime", "tokenizers"):
        try:
            __import__(package)
        except ImportError:
            raise SemanticUnavailableError(package) from None


def _read_json(folder: Path, name: str, default: Any) -> Any:
    path = folder / name
    if not path.is_file():
        return default
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ModelLoadError(folder, name, f"not readable JSON ({exc})") from None


def pooling_is_mean(folder: Path) -> bool:
    """Checks if the folder's pooling (``1_Pooling/config.json``; absent: mean) is mean pooling."""
    config = _read_json(folder, "1_Pooling/config.json", {"pooling_mode_mean_tokens": True})
    if not isinstance(config, dict):
        return False
    others = ("cls_token", "max_tokens", "mean_sqrt_len_tokens", "weightedmean_tokens")
    return bool(config.get("pooling_mode_mean_tokens")) and not any(
        config.get(f"pooling_mode_{o}") for o in others
    )


PREPARED_FILE = "onnx/model.prepared.onnx"
"""``onnx/model.onnx`` optimised by onnxruntime, its weights in ``model.prepared.data`` beside it.

Measured on one busy machine, side by side: a session from the published file loads in 1,160 ms
(the graph optimised, 90 MB of weights repacked for the matrix products) and runs a question
in 35 ms; from the prepared copy with repacking, 160 ms and 33 ms; without repacking, 28 ms
and 71 ms. A one-shot command embeds one question, so it skips the repacking (``prepack``);
a process that embeds many texts (a server, a build) repacks. A model store's copy is made
from int8 weights when asked for (:func:`quantise_model`): 23 MB instead of 90. Tried and not
kept (2026-12-01, the same graph, the same bits): saved in onnxruntime's ORT format
(``session.save_model_format``), it loads in 290-360 ms of CPU instead of 17-30, with
``session.use_ort_model_bytes_for_initializers`` too; loaded from bytes with
``session.use_ort_model_bytes_directly``, onnxruntime 1.32 crashed (a segmentation fault).
Nor is ``tokenizer.json`` read in a thread beside the making of the session: ``from_file``
holds the GIL, and so does onnxruntime for part of a session's making; measured, the two ran
one after the other (88-103 ms in a thread, 77-102 without, CPU time equal to wall time)."""
_PREPARED_DATA = "model.prepared.data"


def _options(threads: int) -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    # One thread by default: a question takes a few milliseconds either way, and a judge's
    # machine may be busy with other things.
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return options


def _session(folder: Path, model_file: str, threads: int, *, prepared: bool, prepack: bool) -> Any:
    import onnxruntime

    options = _options(threads)
    if prepared:
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
        if not prepack:
            options.add_session_config_entry("session.disable_prepacking", "1")
    try:
        return onnxruntime.InferenceSession(
            str(folder / model_file), options, providers=["CPUExecutionProvider"]
        )
    except Exception as exc:  # onnxruntime raises several unrelated types for bad files
        raise ModelLoadError(folder, model_file, f"cannot be loaded ({exc})") from None


def prepare_model(folder: Path, *, quantise: bool = False) -> list[str]:
    """Writes :data:`PREPARED_FILE` (and its weights) beside ``onnx/model.onnx``.

    The graph is optimised as onnxruntime does on every load (``ORT_ENABLE_EXTENDED``: fused
    attention, layer norm and GELU; no hardware-specific layout), once, on the machine that
    will run it; with ``quantise``, from the weights quantised first (:func:`quantise_model`).
    Returns the files written (relative paths). Raises :class:`ModelLoadError`, and
    :class:`SemanticUnavailableError` when ``quantise`` needs the ``onnx`` package.
    """
    import onnxruntime

    source = MODEL_FILE
    if quantise:
        source = quantise_model(folder)
    options = _options(1)
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = str(folder / PREPARED_FILE)
    options.add_session_config_entry(
        "session.optimized_model_external_initializers_file_name", _PREPARED_DATA
    )
    options.add_session_config_entry(
        "session.optimized_model_external_initializers_min_size_in_bytes", "1024"
    )
    try:
        onnxruntime.InferenceSession(
            str(folder / source), options, providers=["CPUExecutionProvider"]
        )
    except Exception as exc:  # see _session
        raise ModelLoadError(folder, source, f"cannot be loaded ({exc})") from None
    finally:
        if source != MODEL_FILE:
            (folder / source).unlink(missing_ok=True)  # the prepared copy holds it all
    # A small model's weights all fit in the graph: no weights file then.
    return [f for f in (PREPARED_FILE, f"onnx/{_PREPARED_DATA}") if (folder / f).is_file()]


QUANTISED = "int8-dynamic-matmul-gather-per-channel"
"""How :func:`quantise_model` quantises (recorded with the model, part of its digest)."""
_QUANTISED_FILE = "onnx/model.int8.onnx"


def quantise_model(folder: Path) -> str:
    """Writes ``onnx/model.onnx`` with int8 weights beside it; returns its relative path.

    onnxruntime's dynamic quantisation (weights int8, per output channel, activations
    quantised as each question runs) of the matrix products and the embeddings' table: a
    third of the file, and a question embeds in 40 % of the CPU time. Measured against the
    published model on the 91 real questions and 300 passages of the 2025-02-07 edition:
    cosine median 0.992, minimum 0.984 (without per-channel scales: 0.96, 0.93). Raises
    :class:`SemanticUnavailableError` without the ``onnx`` package and
    :class:`ModelLoadError` when the quantiser fails.
    """
    try:
        import onnx  # noqa: F401  (onnxruntime's quantiser is written with it)
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:
        raise SemanticUnavailableError("onnx") from None
    try:
        with _root_logger_quiet():
            quantize_dynamic(
                str(folder / MODEL_FILE),
                str(folder / _QUANTISED_FILE),
                per_channel=True,
                weight_type=QuantType.QInt8,
                op_types_to_quantize=["MatMul", "Gather"],
            )
    except Exception as exc:  # the quantiser raises whatever onnx or numpy raise
        (folder / _QUANTISED_FILE).unlink(missing_ok=True)
        raise ModelLoadError(folder, MODEL_FILE, f"cannot be quantised ({exc})") from None
    return _QUANTISED_FILE


@contextlib.contextmanager
def _root_logger_quiet() -> Iterator[None]:
    """The quantiser's advice (``logging.warning`` on the root logger) not printed.

    A handler of no effect is added for the while: without one, ``logging.warning`` would
    configure the root logger to print to stderr for the rest of the process.
    """
    import logging

    quiet = logging.NullHandler()
    before = logging.root.manager.disable
    logging.root.addHandler(quiet)
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(before)
        logging.root.removeHandler(quiet)


class Embedder:
    """A loaded model: ``embed(texts)`` gives one unit-length row per text."""

    def __init__(
        self, session: Any, tokenizer: Any, *, digest: str, dimension: int, folder: Path
    ) -> None:
        self._session = session
        self._tokenizer = tokenizer
        self._inputs = {i.name for i in session.get_inputs()}
        self._digest = digest
        self._dimension = dimension
        self.folder = folder
        self.model_file = MODEL_FILE
        """The ONNX file loaded (relative to ``folder``)."""
        self.query_tokens = 0
        """The word pieces a question is cut to (0: as passages are): the length the model was
        trained at, which a forum post pasted whole would double the cost of."""
        self._recent: collections.OrderedDict[str, Matrix] = collections.OrderedDict()
        self._recent_lock = threading.Lock()
        self.embed_query: Callable[[str], Matrix] = self._embed_remembered
        """The vector of one question (a 1 × dimension matrix), remembered for the last few."""

    @property
    def digest(self) -> str:
        return self._digest

    @property
    def dimension(self) -> int:
        return self._dimension

    @classmethod
    def from_folder(
        cls,
        folder: Path,
        *,
        digest: str = "",
        published_digest: str = "",
        model_file: str | None = None,
        threads: int = 1,
        prepack: bool = False,
    ) -> Embedder:
        """Loads ``folder``'s tokenizer and ONNX model.

        ``digest`` (the model store's hash of the files) names the model in stored vectors.
        The prepared copy (:data:`PREPARED_FILE`, see :func:`prepare_model`) is loaded when
        there is one and ``model_file`` names none, else ``onnx/model.onnx``, named then by
        ``published_digest`` when given (the prepared copy is quantised: its vectors are not
        the published file's); ``prepack``
        (for a process that will embed many texts) loads it more slowly to run it faster. Raises
        :class:`SemanticUnavailableError` without the extra and :class:`ModelLoadError` for a
        file that is missing or cannot be loaded.
        """
        require_runtime()
        from tokenizers import Tokenizer

        for name in ("tokenizer.json", model_file or MODEL_FILE):
            if not (folder / name).is_file():
                raise ModelLoadError(folder, name, "missing")
        if not pooling_is_mean(folder):
            raise ModelLoadError(folder, "1_Pooling/config.json", "only mean pooling is supported")
        settings = _read_json(folder, "sentence_bert_config.json", {})
        max_tokens = _DEFAULT_MAX_TOKENS
        if isinstance(settings, dict) and isinstance(settings.get("max_seq_length"), int):
            max_tokens = settings["max_seq_length"]
        try:
            tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except Exception as exc:  # tokenizers raises its own Exception subclass
            raise ModelLoadError(folder, "tokenizer.json", f"not a tokenizer ({exc})") from None
        # The hub's tokenizer.json cuts at the length the model was trained at (128 word pieces
        # for all-MiniLM-L6-v2, its model card says); a question is cut there too.
        trained = (tokenizer.truncation or {}).get("max_length")
        # The hub's tokenizer.json pads every text to 128 tokens and cuts at 128;
        # sentence-transformers cuts at max_seq_length and pads a batch to its longest text.
        tokenizer.enable_truncation(max_tokens)
        tokenizer.no_padding()
        session = None
        if model_file is None and (folder / PREPARED_FILE).is_file():
            try:
                session = _session(folder, PREPARED_FILE, threads, prepared=True, prepack=prepack)
            except ModelLoadError:
                session = None  # another onnxruntime may not read it: the original will do
        if session is None:
            model_file = model_file or MODEL_FILE
            prepared = model_file == PREPARED_FILE
            session = _session(folder, model_file, threads, prepared=prepared, prepack=prepack)
            if model_file == MODEL_FILE and published_digest:
                digest = published_digest
        names = {i.name for i in session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= names:
            raise ModelLoadError(
                folder,
                model_file or PREPARED_FILE,
                f"expected inputs input_ids and attention_mask, not {names}",
            )
        shape = session.get_outputs()[0].shape
        dimension = shape[-1] if shape and isinstance(shape[-1], int) else 0
        embedder = cls(session, tokenizer, digest=digest, dimension=dimension, folder=folder)
        embedder.model_file = model_file or PREPARED_FILE
        if isinstance(trained, int) and 0 < trained < max_tokens:
            embedder.query_tokens = trained
        if not dimension:
            embedder._dimension = int(embedder.embed(["dimension"]).shape[1])
        return embedder

    def _embed_one(self, text: str) -> Matrix:
        return self._run([text], self.query_tokens)

    def _embed_remembered(self, text: str) -> Matrix:
        vector = self.recalled(text)
        if vector is None:
            vector = self._embed_one(text)
            self.remember(text, vector)
        return vector

    def recalled(self, text: str) -> Matrix | None:
        """The vector of a question embedded lately (see :meth:`remember`), else ``None``."""
        with self._recent_lock:
            vector = self._recent.get(text)
            if vector is not None:
                self._recent.move_to_end(text)
            return vector

    def remember(self, text: str, vector: Matrix) -> None:
        """Keeps ``vector`` as ``text``'s for :meth:`embed_query` (the last :data:`_RECENT`)."""
        with self._recent_lock:
            self._recent[text] = vector
            self._recent.move_to_end(text)
            while len(self._recent) > _RECENT:
                self._recent.popitem(last=False)

    def forget(self) -> None:
        """Forgets the questions' vectors :meth:`remember` kept."""
        with self._recent_lock:
            self._recent.clear()

    def query_feed(self, text: str) -> tuple[dict[str, Any], Any]:
        """What :meth:`forward` runs for the question ``text`` and its attention mask: the
        question as :meth:`embed_query` embeds it, in steps (a caller may run the model in a
        thread of its own, then :meth:`pooled` the states where it needs the vector)."""
        return self._feed([text], self.query_tokens)

    def embed(
        self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None
    ) -> Matrix:
        """The unit-length vectors of ``texts``, one row each, in order.

        Texts are run in batches of similar length (padding is wasted work); ``progress`` is
        told ``(texts done, texts in all)`` after each batch. Raises :class:`ModelLoadError`
        when the model does not run.
        """
        import numpy as np

        out: Matrix | None = None
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), _BATCH):
            chunk = order[start : start + _BATCH]
            vectors = self._run([texts[i] for i in chunk])
            if out is None:
                out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
            out[chunk] = vectors
            if progress is not None:
                progress(min(start + _BATCH, len(order)), len(order))
        if out is None:
            return np.zeros((0, self._dimension), dtype=np.float32)
        return out

    def _run(self, texts: list[str], tokens: int = 0) -> Matrix:
        """Mean pooling over the attention mask, then L2 normalisation; each text cut to
        ``tokens`` word pieces (0: the tokenizer's cut), its closing special tokens kept."""
        feed, mask = self._feed(texts, tokens)
        return pooled(self.forward(feed), mask)

    def _feed(self, texts: list[str], tokens: int) -> tuple[dict[str, Any], Any]:
        import numpy as np

        from glossary.fold import without_surrogates

        # The tokenizer refuses a lone surrogate (a command line's undecodable byte).
        encoded = self._tokenizer.encode_batch([without_surrogates(t) for t in texts])
        rows = [_cut(e.ids, e.special_tokens_mask, tokens) for e in encoded]
        width = max(len(r) for r in rows)
        ids = np.zeros((len(texts), width), dtype=np.int64)
        mask = np.zeros((len(texts), width), dtype=np.int64)
        for row, r in enumerate(rows):
            ids[row, : len(r)] = r
            mask[row, : len(r)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        return feed, mask

    def forward(self, feed: dict[str, Any]) -> Any:
        """The model's token states for ``feed`` (from :meth:`query_feed`): onnxruntime runs
        without Python's lock, so another thread may search meanwhile. Raises
        :class:`ModelLoadError` when the model does not run."""
        try:
            return self._session.run(None, feed)[0]
        except Exception as exc:  # onnxruntime's errors have no common public base
            raise ModelLoadError(self.folder, self.model_file, f"does not run ({exc})") from None


def pooled(states: Any, mask: Any) -> Matrix:
    """Token ``states`` (texts × tokens × dimension) pooled to one unit-length row per text:
    the mean over the attention ``mask``, then L2 normalisation."""
    import numpy as np

    weights = mask[:, :, None].astype(np.float32)
    summed = (states * weights).sum(axis=1)
    mean = summed / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.linalg.norm(mean, axis=1, keepdims=True)
    result: Matrix = (mean / np.maximum(norms, 1e-12)).astype(np.float32)
    return result


def _cut(ids: list[int], special: list[int], tokens: int) -> list[int]:
    """``ids`` cut to ``tokens`` (if longer and ``tokens`` > 0), keeping the trailing special
    tokens ([SEP]) as the tokenizer's own truncation does."""
    if not tokens or len(ids) <= tokens:
        return ids
    tail = 0
    while tail < len(special) and special[len(special) - 1 - tail]:
        tail += 1
    tail = min(tail, tokens)
    return ids[: tokens - tail] + ids[len(ids) - tail :]
