"""The re-rank of a one-shot search, its model work done in a forked child beside whoosh.

A cold ``judge search`` with the re-rank pays for numpy, onnxruntime, the model's session,
the vectors and the question's embedding (~270 ms) on top of whoosh and the lexical search
(~125 ms): too much one after the other. :func:`start` forks, first thing in a search (before
whoosh is imported, after cheap checks only), a child that imports numpy and onnxruntime and
loads the model and the vectors while the parent checks the re-rank's status and searches;
the parent then sends the text to embed (the question search read: a pasted post's, see
:attr:`~index.search.SearchResults.searched`) and the child sends back its cosine with every
document (packed float32, in the vectors' order). :func:`forked_search` combines the two in
pure Python (:func:`rerank_with`), exactly as
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
the same folders, else ends it and forks as before. The child embeds the question as typed
while it waits for the text to embed: the same text (a question that is not a pasted post)
is then answered at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import heapq
import json
import os
import struct
import sys
import time
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .reranking import ADD, CARDS_WEIGHT, DEPTH, WEIGHT, H, combine

if TYPE_CHECKING:
    from ..search import Searcher, SearchResult, SearchResults
    from .model import Encoder
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
    the active model's name, the vectors file, the extra's packages). ``question``: the text
    the search will most likely embed, embedded while the child waits for the real one. The
    first :func:`start` for the same folders adopts the child; any other ends it, and so
    does the process's exit.
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

        _child(ask, write, SemanticSearch.for_root(root), folder, question)

    forked = _fork(child)
    if forked is None:
        return False
    _early = (forked, root, folder)
    import atexit

    atexit.register(forked.close)  # never adopted (an error, another edition): ended at exit
    return True


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


def _child(ask: int, fd: int, semantic: SemanticSearch, folder: Path, question: str = "") -> None:
    """Does the model's part, writes the answer to ``fd`` and exits (status 0, else 1);
    ``question``: see :func:`prestart`."""
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
        data = _answer(ask, semantic, folder, question)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        status = 0
    except BaseException:  # anything else: the parent re-ranks in process
        pass
    finally:
        os._exit(status)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def _loaded(semantic: SemanticSearch, folder: Path) -> tuple[Vectors, Encoder]:
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
        model = installed.load(threads=semantic.threads, prepack=False)
    finally:
        worker.join()
    if decoded and decoded[0] is not None:
        raise decoded[0]
    return vectors, model


def _answer(ask: int, semantic: SemanticSearch, folder: Path, guess: str = "") -> bytes:
    """The framed answer: a JSON head (or the error, as data), then the float32 cosines;
    ``guess``, the question as typed, is embedded before the text to embed is read."""
    from .model import ModelLoadError, SemanticUnavailableError
    from .reranking import question_matrix
    from .vectors import VectorsError

    head: dict[str, Any]
    payload = b""
    try:
        vectors, model = _loaded(semantic, folder)
        if vectors.model != model.digest:
            raise RuntimeError("the vectors were made with another model")  # see _child
        if guess:
            # The model remembers the last few questions: the same text is not embedded again.
            with contextlib.suppress(Exception):  # a failure recurs below, with the real text
                question_matrix(model, guess)
        question = _read_all(ask).decode("utf-8")
        if not question:
            raise RuntimeError("no question")  # the parent did not need the re-rank
        sims = vectors.similarities(question_matrix(model, question)[0])
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

    def answer(self, question: str) -> Answer | None:
        """The cosines of ``question``; ``None`` if the child died, hung or sent garbage.

        Raises :class:`~index.semantic.ModelLoadError`, :class:`~index.semantic.VectorsError`
        or :class:`~index.semantic.SemanticUnavailableError` as the in-process path would.
        """
        from glossary.fold import without_surrogates

        try:
            # A question (5,000 characters at most) fits a pipe's buffer: never wait on it.
            os.set_blocking(self._ask, False)
            view = memoryview(without_surrogates(question).encode("utf-8"))
            while view:
                view = view[os.write(self._ask, view) :]
            os.close(self._ask)
            self._ask = -1
        except OSError:  # the child is gone (EPIPE), or the pipe is full (EAGAIN)
            self.close()
            return None
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


def rerank_with(
    similarities: Sequence[float],
    ids: Sequence[str],
    pool: Sequence[H],
    *,
    weight: float = WEIGHT,
    depth: int = DEPTH,
    add: int = ADD,
    keep: int = 0,
    make: Callable[[str], H | None] | None = None,
) -> list[H]:
    """:func:`~index.semantic.rerank` of ``pool`` given the question's cosines, in pure Python.

    ``similarities[i]`` is the cosine with document ``ids[i]``. Both share
    :func:`~index.semantic.reranking.combine`; only the nearest documents are found without
    numpy (ties in index order, as numpy's stable sort), so the results are the same to the
    last bit.
    """
    position = {rid: i for i, rid in enumerate(ids)}

    def nearest(n: int) -> list[str]:
        # heapq.nsmallest is sorted(...)[:n]: ties in index order, as a stable argsort.
        closest = heapq.nsmallest(n, range(len(ids)), key=lambda i: -similarities[i])
        return [ids[i] for i in closest]

    return combine(
        similarities,
        position,
        nearest,
        pool,
        weight=weight,
        depth=depth,
        add=add,
        keep=keep,
        make=make,
    )


def forked_search(
    semantic: SemanticSearch,
    searcher: Searcher,
    query: str,
    folder: Path,
    child: Child,
    limit: int = 10,
    scope: str = "all",
) -> SearchResults | None:
    """:meth:`SemanticSearch.search <index.semantic.searching.SemanticSearch.search>` with the
    child's cosines (the same results, the model's name from ``semantic``).

    Searches while the child works, then combines. ``None`` when the child gave nothing
    usable (see :meth:`Child.answer`) or answered for other vectors than ``folder``'s now:
    re-rank in process then. Raises the child's errors (see :meth:`Child.answer`).
    """
    from .searching import nothing_to_add, reranked
    from .vectors import read_header

    found = searcher.search(query, limit=max(limit, DEPTH), scope=scope)
    if nothing_to_add(found):  # and it is not waited for
        child.close()
        found.results = found.results[:limit]
        return found
    answer = child.answer(found.searched or query)
    header = read_header(folder)
    if answer is None or header is None:
        return None
    ids = header.get("ids")
    if header.get("model") != answer.model or not isinstance(ids, list) or len(ids) != answer.ids:
        return None  # the vectors were replaced meanwhile

    def make(doc_id: str) -> SearchResult | None:
        return searcher.find_record(doc_id, scope)

    keep = found.pinned
    weight = CARDS_WEIGHT if found.cards else WEIGHT
    ranked = rerank_with(
        answer.similarities, ids, found.results, weight=weight, keep=keep, make=make
    )
    installed = semantic.installed()
    record = {
        "model": installed.name if installed is not None else None,
        "digest": answer.model[:12],
        "weight": weight,
        "depth": DEPTH,
        "add": ADD,
    }
    return reranked(found, ranked, limit, record)
