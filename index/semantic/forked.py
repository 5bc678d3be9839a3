"""The re-rank of a one-shot search, its model work done in a forked child beside whoosh.

A cold ``judge search`` with the re-rank pays for numpy, onnxruntime, the model's session,
the vectors and the question's embedding (~270 ms) on top of whoosh and the lexical search
(~125 ms): too much one after the other. :func:`start` forks, first thing in a search (before
whoosh is imported, after cheap checks only), a child that imports numpy and onnxruntime and
loads the model and the vectors while the parent checks the re-rank's status and searches;
the parent then sends the text to embed (the question search read: a pasted post's, see
:attr:`~index.search.SearchResults.searched`) and the child sends back its cosine with every
document (packed float32, in the vectors' order). :func:`forked_search` combines the two in
pure Python (:func:`rerank_with`, both in :mod:`.forkedsearch`), exactly as
:func:`~index.semantic.searching.reranked_search` does with numpy: the same ids, order and
scores, since every step is the same float64 operation in the same order.

The child's errors come back as data and are raised in the parent as the same library errors
(:class:`~index.semantic.ModelLoadError`, :class:`~index.semantic.VectorsError`,
:class:`~index.semantic.SemanticUnavailableError`). A child that dies, hangs past its
deadline (:data:`TIMEOUT`) or sends garbage makes :func:`forked_search` return ``None``: the
caller re-ranks in process, as before. The child is always reaped (:meth:`Child.close`).
Only a process that would load the model itself gains: :func:`start` declines (``None``)
where there is no ``fork``, when numpy or onnxruntime are already imported, when other
threads run (a fork copies only the calling thread), and for a kept-warm (server) re-rank
or a model already loaded.

A one-shot command can fork the child earlier still, before it imports anything else
(:func:`prestart`, from ``judge search``'s command line: the data folder, the edition's build
folder and the question as typed); :func:`start` then adopts that child if it was made for
the same folders, else ends it and forks as before. Such a child never reads the tokenizer
(~50 ms of CPU, held by the GIL, on the child's critical path): the parent reads it once
forked, and sends the word pieces of the question as typed, which the child embeds as soon as
its model is loaded, and then those of the text to embed (:class:`~.model.QuestionTokenizer`,
the same pieces the in-process re-rank embeds); the same text (a question that is not a
pasted post) is then answered at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import struct
import sys
import time
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .forkedsearch import forked_search, rerank_with

if TYPE_CHECKING:
    from .model import Embedder, QuestionTokenizer
    from .searching import SemanticSearch
    from .vectors import Vectors

__all__ = [
    "TIMEOUT",
    "Answer",
    "Child",
    "forked_search",
    "prestart",
    "rerank_with",
    "start",
]

TIMEOUT = 10.0
"""Seconds from the fork after which a child that has not answered is given up (and killed):
it takes ~0.3 s on an idle machine, several times that on a busy one."""
_FRAME = struct.Struct("<I")


@dataclasses.dataclass(frozen=True)
class Answer:
    """What the child sends back: the question's cosines with every document."""

    model: str
    """The digest of the model the vectors were made with (the child checked it is its own)."""
    ids: int
    """How many documents the vectors hold (the length of ``similarities``)."""
    similarities: Sequence[float]
    """The cosine of the question with each document, in the vectors' ``ids`` order."""


def can_fork() -> bool:
    """Checks if a child would gain anything and can be forked safely (see the module)."""
    import threading

    return (
        hasattr(os, "fork")
        and "numpy" not in sys.modules
        and "onnxruntime" not in sys.modules
        and threading.active_count() == 1
    )


def start(semantic: SemanticSearch, folder: Path, scope: str = "all") -> Child | None:
    """Forks the child that loads the model and ``folder``'s vectors, or returns ``None``.

    Only cheap checks come first (the extra's packages, a models folder, a vectors file), so
    that the child starts early; the caller checks the re-rank's status meanwhile and closes
    the child if it is not ``current``. ``None`` also when forking would not pay (see
    :func:`can_fork`), for a kept-warm re-rank (``semantic.warm``), a model already loaded
    and a scope without vectors.
    """
    from . import is_available
    from .searching import _RERANKED_SCOPES
    from .vectors import FILE

    early = _adopt(semantic, folder)
    if semantic.warm or semantic.loaded or scope not in _RERANKED_SCOPES:
        if early is not None:
            early.close()
        return None
    if early is not None:
        return early
    if not can_fork():
        return None
    if not (semantic.store.models_dir.is_dir() and (folder / FILE).is_file() and is_available()):
        return None
    return _fork(lambda ask, write: _child(ask, write, semantic, folder))


_early: tuple[Child, Path, Path] | None = None
"""The child :func:`prestart` forked, with its data folder and build folder, until adopted."""


def prestart(root: Path, folder: Path, question: str = "") -> bool:
    """Forks the child of a one-shot search's re-rank first thing; returns whether it did.

    For a process that will search ``folder`` (an edition's build folder) of the data folder
    ``root`` once, with the installed model: only cheap checks come first (:func:`can_fork`,
    the active model's name, the vectors file, the extra's packages). The child is sent word
    pieces (:meth:`Child.tokenize_for`): ``question``, the text the search will most likely
    embed, is tokenised here once forked (~50 ms, beside the child's imports) and embedded
    while the child waits for the real one; without it, the tokenizer is read when the real
    one is sent. The first :func:`start` for the same folders adopts the child; any other
    ends it, and so does the process's exit.
    """
    global _early
    from . import is_available
    from .vectors import FILE

    if _early is not None or not can_fork():
        return False
    if not ((root / "models" / "ACTIVE").is_file() and (folder / FILE).is_file()):
        return False
    if not is_available():
        return False

    def child(ask: int, write: int) -> None:
        from .searching import SemanticSearch

        _child(ask, write, SemanticSearch.for_root(root), folder, tokenizer=False)

    forked = _fork(child)
    if forked is None:
        return False
    _early = (forked, root, folder)
    import atexit

    atexit.register(forked.close)  # never adopted (an error, another edition): ended at exit
    forked.tokenize_for(root)
    if question:
        forked.send(question, final=False)
    return True


def _tokenizer(root: Path) -> QuestionTokenizer | None:
    """The active model's tokenizer (``None``: no model, or it cannot be read: the child then
    reads it, and fails as the in-process re-rank would)."""
    from .model import ModelLoadError, QuestionTokenizer, SemanticUnavailableError
    from .models import ModelStore

    installed = ModelStore(root).find()
    if installed is None:
        return None
    try:
        return QuestionTokenizer.from_folder(installed.path)
    except (ModelLoadError, SemanticUnavailableError):
        return None


def _adopt(semantic: SemanticSearch, folder: Path) -> Child | None:
    """The child :func:`prestart` forked, if made for ``semantic``'s data folder and ``folder``
    (else it is ended); taken once."""
    global _early
    if _early is None:
        return None
    early, root, made_for = _early
    _early = None
    same = semantic.store.root == root and folder == made_for and semantic.threads == 1
    if same and not semantic.warm and not semantic.loaded:
        return early
    early.close()
    return None


def _fork(work: Callable[[int, int], None]) -> Child | None:
    """Forks a child that runs ``work(ask, write)`` (and never returns), or ``None``."""
    ask_read, ask_write = os.pipe()
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        for fd in (ask_read, ask_write, read, write):
            os.close(fd)
        return None
    if pid == 0:  # the child: never returns
        os.close(ask_write)
        os.close(read)
        try:
            work(ask_read, write)
        finally:
            os._exit(1)
    os.close(ask_read)
    os.close(write)
    return Child(pid, ask_write, read, time.monotonic() + TIMEOUT)


def _child(
    ask: int, fd: int, semantic: SemanticSearch, folder: Path, *, tokenizer: bool = True
) -> None:
    """Does the model's part, writes the answer to ``fd`` and exits (status 0, else 1);
    without ``tokenizer``, it is read only if the parent sends a text (see :func:`prestart`)."""
    status = 1
    try:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends it quietly
        # numpy's OpenBLAS would start a thread per core at import (~35 ms of CPU measured,
        # beside the parent's search on a two-core machine) for products it never makes here.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        # The parent owns the terminal: nothing the runtime logs may reach it.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        data = _answer(ask, semantic, folder, tokenizer)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        status = 0
    except BaseException:  # anything else: the parent re-ranks in process
        pass
    finally:
        os._exit(status)


def _read_exactly(fd: int, size: int) -> bytes | None:
    """``size`` bytes from ``fd``, or ``None`` if it closes first."""
    chunks: list[bytes] = []
    while size:
        chunk = os.read(fd, size)
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _request(fd: int) -> dict[str, Any] | None:
    """The parent's next message (see :meth:`Child.send`), or ``None``: it closed the pipe."""
    head = _read_exactly(fd, _FRAME.size)
    if head is None:
        return None
    body = _read_exactly(fd, _FRAME.unpack(head)[0])
    message = json.loads(body) if body is not None else None
    if not isinstance(message, dict):
        raise ValueError("not a message")
    return message


def _loaded(
    semantic: SemanticSearch, folder: Path, tokenizer: bool = True
) -> tuple[Vectors, Embedder]:
    """The vectors (decoded) and the model, loading in parallel; errors in the in-process
    order: the vectors file, the model, the vectors' data."""
    import threading

    import numpy  # noqa: F401  (first: onnxruntime imports it, and the decoding needs it)

    from .models import NoModelError
    from .vectors import load_vectors

    vectors = load_vectors(folder)
    decoded: list[BaseException | None] = []

    def decode() -> None:
        try:
            vectors._decode()
            decoded.append(None)
        except BaseException as exc:  # raised below, after the model's
            decoded.append(exc)

    # numpy releases the GIL while it decodes: the session is made meanwhile.
    worker = threading.Thread(target=decode)
    worker.start()
    try:
        installed = semantic.installed()
        if installed is None:
            raise NoModelError(None, [])
        model = installed.load(threads=semantic.threads, prepack=False, tokenizer=tokenizer)
    finally:
        worker.join()
    if decoded and decoded[0] is not None:
        raise decoded[0]
    return vectors, model


def _answer(ask: int, semantic: SemanticSearch, folder: Path, tokenizer: bool = True) -> bytes:
    """The framed answer: a JSON head (or the error, as data), then the float32 cosines of
    the parent's final text; its guesses are embedded as they come (see :func:`prestart`)."""
    from .model import ModelLoadError, SemanticUnavailableError
    from .reranking import _question_vector
    from .vectors import VectorsError

    head: dict[str, Any]
    payload = b""
    try:
        vectors, model = _loaded(semantic, folder, tokenizer)
        if vectors.model != model.digest:
            raise RuntimeError("the vectors were made with another model")  # see _child
        guessed: dict[tuple[int, ...], Any] = {}
        while True:
            message = _request(ask)
            if message is None:
                raise RuntimeError("no question")  # the parent did not need the re-rank
            if "text" in message:
                question = _question_vector(model, str(message["text"]))
            else:
                if message.get("folder") != str(model.folder):  # another model went active
                    raise RuntimeError("word pieces of another model")
                ids = tuple(int(i) for i in message["ids"])
                question = guessed.get(ids)
                if question is None:
                    question = model.embed_ids([ids])[0]
            if message.get("final"):
                break
            if "ids" in message:
                guessed[ids] = question
        sims = vectors.similarities(question)
        payload = sims.astype("<f4").tobytes()
        head = {"model": vectors.model, "ids": len(vectors.ids)}
    except VectorsError as exc:
        head = {"error": "vectors", "path": str(exc.path), "reason": exc.reason}
    except ModelLoadError as exc:
        head = {"error": "model", "folder": str(exc.folder), "file": exc.file, "reason": exc.reason}
    except SemanticUnavailableError as exc:
        head = {"error": "unavailable", "package": exc.package}
    raw = json.dumps(head).encode()
    return _FRAME.pack(len(raw)) + raw + payload


class Child:
    """A forked child at work: :meth:`answer` once, :meth:`close` always (it reaps it)."""

    def __init__(self, pid: int, ask: int, fd: int, deadline: float) -> None:
        self.pid = pid
        self._ask = ask
        self._fd = fd
        self.deadline = deadline
        """When (``time.monotonic()``) :meth:`answer` gives up."""
        self._reaped = False
        self.tokenizer: QuestionTokenizer | None = None
        """The model's tokenizer, when the parent tokenises (see :func:`prestart`): the child
        is sent word pieces, else the text."""
        self._tokenize_for: Path | None = None

    def tokenize_for(self, root: Path) -> None:
        """Makes :meth:`send` tokenise with the active model of the data folder ``root`` (read
        when first needed: a search the re-rank has nothing to add to never reads it)."""
        self._tokenize_for = root

    def send(self, question: str, *, final: bool = True) -> bool:
        """Sends ``question`` to embed (its word pieces, with :attr:`tokenizer`); the ``final``
        one is answered, the others are guesses. ``False`` (and the child is ended) if the
        child is gone."""
        message: dict[str, Any] = {"final": final}
        if self._tokenize_for is not None and not self._reaped:
            self.tokenizer = _tokenizer(self._tokenize_for)
            self._tokenize_for = None
        try:
            if self.tokenizer is not None:
                message["ids"] = self.tokenizer.ids(question)
                message["folder"] = str(self.tokenizer.folder)  # the model they are for
            else:
                message["text"] = question
        except Exception:  # tokenizers raises its own Exception subclass: the child tokenises
            message = {"final": final, "text": question}
        raw = json.dumps(message).encode()
        try:
            # A question (5,000 characters at most) fits a pipe's buffer: never wait on it.
            os.set_blocking(self._ask, False)
            view = memoryview(_FRAME.pack(len(raw)) + raw)
            while view:
                view = view[os.write(self._ask, view) :]
        except OSError:  # the child is gone (EPIPE), or the pipe is full (EAGAIN)
            self.close()
            return False
        return True

    def answer(self, question: str) -> Answer | None:
        """The cosines of ``question``; ``None`` if the child died, hung or sent garbage.

        Raises :class:`~index.semantic.ModelLoadError`, :class:`~index.semantic.VectorsError`
        or :class:`~index.semantic.SemanticUnavailableError` as the in-process path would.
        """
        if self._reaped or not self.send(question):
            return None
        with contextlib.suppress(OSError):
            os.close(self._ask)
        self._ask = -1
        data = self._read()
        self.close()
        if data is None or len(data) < _FRAME.size:
            return None
        (length,) = _FRAME.unpack_from(data)
        try:
            head = json.loads(data[_FRAME.size : _FRAME.size + length])
            if not isinstance(head, dict):
                return None
            _raise_error(head)
            sims = array("f")
            sims.frombytes(data[_FRAME.size + length :])
            if sys.byteorder != "little":
                sims.byteswap()
            if len(sims) != head["ids"]:
                return None
            return Answer(str(head["model"]), int(head["ids"]), sims)
        except (UnicodeDecodeError, ValueError, KeyError, TypeError):
            return None

    def _read(self) -> bytes | None:
        """Everything the child wrote until it closed the pipe, or ``None`` past the deadline."""
        import select

        chunks: list[bytes] = []
        while True:
            # Past the deadline, what the child has written already is still read.
            left = max(0.0, self.deadline - time.monotonic())
            try:
                ready, _, _ = select.select([self._fd], [], [], left)
                if not ready:
                    return None
                chunk = os.read(self._fd, 1 << 16)
            except OSError:
                return None
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)

    def close(self) -> None:
        """Kills the child if it still runs and reaps it (no zombie is left)."""
        if self._reaped:
            return
        self._reaped = True
        for fd in (self._ask, self._fd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        try:
            done, _ = os.waitpid(self.pid, os.WNOHANG)
            if done == 0:
                import signal

                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
        except ChildProcessError:  # reaped by someone else (a test's handler)
            pass


def _raise_error(head: dict[str, Any]) -> None:
    """Raises the library error a child sent as data (none: nothing)."""
    from .model import ModelLoadError, SemanticUnavailableError
    from .vectors import VectorsError

    kind = head.get("error")
    if kind == "vectors":
        raise VectorsError(Path(head["path"]), str(head["reason"]))
    if kind == "model":
        raise ModelLoadError(Path(head["folder"]), str(head["file"]), str(head["reason"]))
    if kind == "unavailable":
        raise SemanticUnavailableError(str(head["package"]))
    if kind is not None:
        raise ValueError(kind)
