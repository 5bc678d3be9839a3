"""Rule vectors: one file per edition build, written atomically, read lazily.

What represents each document (:func:`passages`), chosen on the real questions:

* a rule: its text (examples left out: adding them did not help);
* each players' phrasing of a rule (:mod:`index.search.phrasings`), as a passage of its rule:
  a question is closer to another question than to the rule's wording (success@5 of the
  re-rank 0.43 → 0.47 on the 91 real questions);
* a glossary entry: ``Term: definition``.

A document's similarity to a question is the best of its passages', the question's vector first
moved by the question adapter fitted on the phrasings at build (:mod:`.adapter`). The file,
``<build folder>/semantic.vec``, holds a JSON header (the model's digest, the passages' digest,
the phrasings' digest, the edition and its source's sha256, the adapter's settings), then the
passages' owners, then a short hash of each passage's text, then the vectors, as int8 with a
float32 scale per row (float16 and float32 are kept for measuring), then the adapter (a float32
dimension × dimension matrix; none when the edition has too few phrasings). Vectors are stale
when the model, the edition, the phrasings, the adapter's settings or this format change
(:func:`vectors_status`); :func:`ensure_vectors` rebuilds them then, and only then.

Embedding is the cost of a build (about 250,000 tokens an edition: a minute or more of CPU), so
a build takes the vectors of passages whose text it finds, made by the same model, in other
vectors files (``reuse``: the other stored editions): editions a few months apart share almost
all their rules, and every players' phrasing.
"""

from __future__ import annotations

import hashlib
import json
import struct
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..atomic import write_bytes_atomic

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..model import Document
    from .model import Encoder

__all__ = [
    "FILE",
    "STALE",
    "Passage",
    "Vectors",
    "VectorsError",
    "build_vectors",
    "ensure_vectors",
    "load_vectors",
    "passages",
    "text_hash",
    "vectors_status",
]

FILE = "semantic.vec"
FORMAT = 2
"""Bumped whenever :func:`passages` or the file layout changes (stored vectors go stale).
The question adapter (:mod:`.adapter`, 2026-12-02) is an addition, not a change: a file
without one is read as before, and is stale (``adapter``) until it is rebuilt, from its own
rows, with nothing embedded again."""
STALE = ("missing", "model", "adapter", "edition", "phrasings")
"""The states of :func:`vectors_status` that a rebuild (:func:`ensure_vectors`) settles."""
_MAGIC = b"judge-vectors\n"
_ALIGN = 64
DTYPES = ("int8", "float16", "float32")
_HASH = 8
"""Bytes of a passage's text hash (blake2b): collisions among ~10,000 passages are ~1e-11."""


def text_hash(text: str) -> bytes:
    """The short hash under which a passage's vector is found again (see ``reuse``)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=_HASH).digest()


class VectorsError(ValueError):
    """Raised when a vectors file is absent, damaged, or of another format; ``path`` names it."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


@dataclass(frozen=True)
class Passage:
    """A text embedded for one document (``id`` as search results name it)."""

    id: str
    kind: str
    """``rule``, ``asked`` (a players' phrasing of the rule) or ``glossary``."""
    text: str


def passages(doc: Document, *, phrasings: bool = True) -> list[Passage]:
    """The texts that represent ``doc``'s rules and glossary entries, grouped by document."""
    from ..search.phrasings import asked_for

    asked = asked_for(doc) if phrasings and doc.rules else {}
    out: list[Passage] = []
    for number, rule in doc.rules.items():
        out.append(Passage(number, "rule", rule.text))
        out.extend(Passage(number, "asked", p) for p in asked.get(number, ()))
    out.extend(Passage(g.ref_id, "glossary", f"{g.term}: {g.definition}") for g in doc.glossary)
    return out


def passages_digest(items: Sequence[Passage]) -> str:
    """A hash of the passages (what the vectors are of)."""
    h = hashlib.sha256(f"judge-passages-{FORMAT}\n".encode())
    for p in items:
        h.update(json.dumps([p.id, p.kind, p.text], ensure_ascii=False).encode())
    return h.hexdigest()


def _phrasings_digest() -> str:
    from ..search.phrasings import asked_digest

    return asked_digest()


def _source_sha(folder: Path) -> str | None:
    """The sha256 of the CR file the build folder's edition came from (its ``meta.json``)."""
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    sha = meta.get("sha256") if isinstance(meta, dict) else None
    return sha if isinstance(sha, str) and sha else None


def _pad(n: int) -> int:
    return (-n) % _ALIGN


def build_vectors(
    doc: Document,
    folder: Path,
    model: Encoder,
    *,
    progress: Callable[[int, int], None] | None = None,
    dtype: str = "int8",
    phrasings: bool = True,
    reuse: Sequence[Path] = (),
) -> dict[str, Any]:
    """Embeds ``doc``'s passages and writes ``folder / FILE`` atomically; returns its header.

    Call it where the search index is built (the store's ``extra`` hook, inside the private
    build folder), or on a stored edition's folder (see :func:`ensure_vectors`). ``progress`` is
    told ``(passages embedded, passages to embed)``. ``reuse``: build folders whose vectors
    (made by the same model) give the passages whose text they hold without embedding them
    again; unreadable ones are passed over. The header's ``reused`` says how many were.
    """
    import numpy as np

    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, not {dtype!r}")
    items = passages(doc, phrasings=phrasings)
    ids: list[str] = []
    owner: list[int] = []
    for p in items:  # passages of one document are consecutive (see passages())
        if not ids or ids[-1] != p.id:
            ids.append(p.id)
        owner.append(len(ids) - 1)
    hashes = [text_hash(p.text) for p in items]
    known = _known_rows(reuse, model.digest, set(hashes))
    todo = [i for i, h in enumerate(hashes) if h not in known]
    dimension = int(model.dimension)
    if known:
        dimension = len(next(iter(known.values())))
    fresh = _embed_all(model, [items[i].text for i in todo], progress) if todo else None
    if fresh is not None:
        dimension = int(fresh.shape[1])
    matrix = np.zeros((len(items), dimension), dtype=np.float32)
    if fresh is not None:
        matrix[todo] = fresh
    for i, h in enumerate(hashes):
        row = known.get(h)
        if row is not None:
            matrix[i] = row
    from . import adapter

    asked = np.asarray([i for i, p in enumerate(items) if p.kind == "asked"], dtype=np.intp)
    learnt = adapter.fit(matrix, np.asarray(owner, dtype=np.intp), asked)
    parts: list[bytes] = [np.asarray(owner, dtype="<i4").tobytes(), b"".join(hashes)]
    if dtype == "int8":
        scale = np.abs(matrix).max(axis=1) / 127.0 if len(matrix) else np.zeros(0)
        scale = np.where(scale > 0, scale, 1.0).astype("<f4")
        quantized = np.clip(np.rint(matrix / scale[:, None]), -127, 127).astype(np.int8)
        parts += [scale.tobytes(), quantized.tobytes()]
    else:
        parts.append(matrix.astype("<f2" if dtype == "float16" else "<f4").tobytes())
    if learnt is not None:
        parts.append(learnt.astype("<f4").tobytes())
    offsets: list[int] = []
    body = b""
    for part in parts:
        body += b"\0" * _pad(len(body))
        offsets.append(len(body))
        body += part
    fitted = {
        "settings": adapter.settings(),
        "phrasings": len(asked),
        "offset": offsets.pop() if learnt is not None else None,
    }
    header = {
        "format": FORMAT,
        "model": model.digest,
        "passages": passages_digest(items),
        "phrasings": _phrasings_digest() if phrasings else None,
        "edition": doc.edition,
        "source": _source_sha(folder),
        "dimension": dimension,
        "rows": len(items),
        "dtype": dtype,
        "offsets": offsets,
        "ids": ids,
        "reused": len(items) - len(todo),
        "adapter": fitted,
    }
    write_bytes_atomic(folder / FILE, _head(header) + body)
    return header


def _known_rows(
    folders: Sequence[Path], digest: str, wanted: set[bytes]
) -> dict[bytes, npt.NDArray[np.float32]]:
    """The vectors of texts in ``wanted`` that ``folders``' files (of model ``digest``) hold."""
    found: dict[bytes, npt.NDArray[np.float32]] = {}
    for other in folders:
        if len(found) == len(wanted):
            break
        header = read_header(other)
        if header is None or header.get("model") != digest:
            continue
        try:
            vectors = load_vectors(other)
            matrix, _ = vectors._decode()
            for i, h in enumerate(vectors.row_hashes()):
                if h in wanted and h not in found:
                    found[h] = matrix[i]
        except VectorsError:
            continue  # a damaged file of another edition: embed those passages instead
    return found


_CHUNK = 512


def _embed_all(
    model: Encoder, texts: list[str], progress: Callable[[int, int], None] | None
) -> npt.NDArray[np.float32]:
    """``model.embed(texts)``, in chunks when ``progress`` is to be told how far it is."""
    import numpy as np

    if progress is None:
        return model.embed(texts)
    parts = []
    for start in range(0, len(texts), _CHUNK):
        parts.append(model.embed(texts[start : start + _CHUNK]))
        progress(min(start + _CHUNK, len(texts)), len(texts))
    return np.concatenate(parts)


def _split(path: Path, data: bytes) -> tuple[dict[str, Any], int]:
    """The header of a vectors file and where its body starts."""
    if not data.startswith(_MAGIC) or len(data) < len(_MAGIC) + 8:
        raise VectorsError(path, "not a vectors file")
    (length,) = struct.unpack_from("<Q", data, len(_MAGIC))
    start = len(_MAGIC) + 8
    try:
        header = json.loads(data[start : start + length])
    except (UnicodeDecodeError, ValueError):
        raise VectorsError(path, "its header is damaged") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise VectorsError(path, "written by another version of judge")
    body = start + length
    return header, body + _pad(body)


def read_header(folder: Path) -> dict[str, Any] | None:
    """The header of ``folder``'s vectors, or ``None`` (none, or unreadable)."""
    path = folder / FILE
    try:
        with path.open("rb") as fh:
            first = fh.read(len(_MAGIC) + 8)
            if len(first) < len(_MAGIC) + 8 or not first.startswith(_MAGIC):
                return None
            (length,) = struct.unpack_from("<Q", first, len(_MAGIC))
            header, _ = _split(path, first + fh.read(length))
    except (OSError, VectorsError):
        return None
    return header


def vectors_status(folder: Path, model: Encoder | str, doc: Document | None = None) -> str:
    """``current``, ``missing``, or what makes them stale: ``model``, ``adapter`` (fitted with
    other settings), ``edition``, ``phrasings``.

    Without ``doc`` the edition is compared by its source's sha256 (cheap: no document is
    loaded); with it, by the passages themselves.
    """
    header = read_header(folder)
    if header is None:
        return "missing"
    digest = model if isinstance(model, str) else model.digest
    if header.get("model") != digest:
        return "model"
    if not _adapter_current(header):
        return "adapter"
    if doc is not None:
        if header.get("edition") != doc.edition:
            return "edition"
        expected = passages_digest(passages(doc, phrasings=header.get("phrasings") is not None))
        return "current" if header.get("passages") == expected else "edition"
    if header.get("source") != _source_sha(folder):
        return "edition"
    if header.get("phrasings") is not None and header["phrasings"] != _phrasings_digest():
        return "phrasings"
    return "current"


def _adapter_current(header: dict[str, Any]) -> bool:
    """Whether the header's question adapter was fitted with today's settings."""
    from .adapter import settings

    fitted = header.get("adapter")
    return isinstance(fitted, dict) and fitted.get("settings") == settings()


def _restamp(folder: Path) -> None:
    """Rewrites the header of ``folder``'s vectors with today's phrasings and source digests."""
    path = folder / FILE
    data = path.read_bytes()
    header, body = _split(path, data)
    header["phrasings"] = _phrasings_digest() if header.get("phrasings") is not None else None
    header["source"] = _source_sha(folder)
    write_bytes_atomic(path, _head(header) + data[body:])


def _head(header: dict[str, Any]) -> bytes:
    raw = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode()
    head = _MAGIC + struct.pack("<Q", len(raw)) + raw
    return head + b"\0" * _pad(len(head))


def ensure_vectors(
    folder: Path,
    model: Encoder,
    document: Document | Callable[[], Document],
    *,
    progress: Callable[[int, int], None] | None = None,
    dtype: str = "int8",
    reuse: Sequence[Path] = (),
) -> bool:
    """(Re)builds ``folder``'s vectors if they are missing or stale; returns whether it did.

    ``document`` may be a function that loads the edition: it is called only when the cheap
    checks (:func:`vectors_status` without a document) do not settle it. Vectors stored as
    another ``dtype`` are rebuilt too. ``reuse``: see :func:`build_vectors` (the folder's own
    vectors are always looked in).
    """
    header = read_header(folder)
    status = vectors_status(folder, model)
    if header is not None and header.get("dtype") != dtype:
        status = "dtype"
    if status == "current" and not callable(document):
        status = vectors_status(folder, model, document)
    if status == "current":
        return False
    doc = document() if callable(document) else document
    if status in ("phrasings", "edition") and vectors_status(folder, model, doc) == "current":
        # The phrasing files (or the source's bytes) changed, but none of this edition's
        # passages did: the vectors stand; only their header is brought up to date.
        _restamp(folder)
        return False
    build_vectors(doc, folder, model, progress=progress, dtype=dtype, reuse=[folder, *reuse])
    return True


class Vectors:
    """An edition's stored vectors; the matrix is decoded on first use."""

    def __init__(self, path: Path, header: dict[str, Any], data: bytes, body: int) -> None:
        self.path = path
        self.header = header
        self.ids: list[str] = list(header["ids"])
        self.position = {rid: i for i, rid in enumerate(self.ids)}
        self._data = data
        self._body = body
        self._matrix: npt.NDArray[np.float32] | None = None
        self._starts: npt.NDArray[np.intp] | None = None
        self._adapter: npt.NDArray[np.float32] | None = None
        self._hashes = b""
        # A server's requests may decode at once: one would read the data the other let go.
        self._decoding = threading.Lock()

    @property
    def model(self) -> str:
        """The digest of the model the vectors were made with."""
        return str(self.header["model"])

    def _decode(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.intp]]:
        decoded = self._matrix, self._starts
        if decoded[0] is not None and decoded[1] is not None:
            return decoded[0], decoded[1]
        with self._decoding:
            if self._matrix is None or self._starts is None:
                self._matrix, self._starts = self._decoded()
                self._data = b""
            return self._matrix, self._starts

    def _decoded(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.intp]]:
        import numpy as np

        rows, dim = int(self.header["rows"]), int(self.header["dimension"])
        offsets = [self._body + o for o in self.header["offsets"]]
        try:
            owner = np.frombuffer(self._data, dtype="<i4", count=rows, offset=offsets[0])
            self._hashes = bytes(self._data[offsets[1] : offsets[1] + rows * _HASH])
            if len(self._hashes) != rows * _HASH:
                raise ValueError("short")
            if self.header["dtype"] == "int8":
                scale = np.frombuffer(self._data, dtype="<f4", count=rows, offset=offsets[2])
                q = np.frombuffer(self._data, dtype=np.int8, count=rows * dim, offset=offsets[3])
                matrix = q.reshape(rows, dim).astype(np.float32) * scale[:, None]
            else:
                kind = "<f2" if self.header["dtype"] == "float16" else "<f4"
                raw = np.frombuffer(self._data, dtype=kind, count=rows * dim, offset=offsets[2])
                matrix = raw.reshape(rows, dim).astype(np.float32)
            at = _adapter_offset(self.header)
            if at is not None:
                w = np.frombuffer(self._data, dtype="<f4", count=dim * dim, offset=self._body + at)
                self._adapter = w.reshape(dim, dim).copy()  # the file's bytes are let go
        except (ValueError, IndexError, KeyError):
            raise VectorsError(self.path, "its data is truncated or damaged") from None
        if rows and (owner[0] != 0 or np.any(np.diff(owner) < 0) or owner[-1] >= len(self.ids)):
            raise VectorsError(self.path, "its passages do not match its documents")
        # Rows are grouped by document: the best passage of each is a reduceat over groups.
        starts = np.searchsorted(owner, np.arange(len(self.ids))).astype(np.intp)
        return matrix, starts

    def row_hashes(self) -> list[bytes]:
        """The text hash of each stored passage, in row order (see :func:`text_hash`)."""
        self._decode()
        h = self._hashes
        return [h[i : i + _HASH] for i in range(0, len(h), _HASH)]

    def similarities(self, query: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The cosine of ``query`` (a question's unit vector) with each document, in :attr:`ids`
        order: the question moved by the vectors' adapter first (:mod:`.adapter`), if any."""
        import numpy as np

        from .adapter import adapt

        matrix, starts = self._decode()
        if not len(matrix):
            return np.zeros(len(self.ids), dtype=np.float32)
        # numpy's own loop, not BLAS: OpenBLAS splits a product this small over every core,
        # and on a busy machine waiting for its threads took 12-16 ms where one thread takes 1.
        rows = np.einsum("ij,j->i", matrix, adapt(query, self._adapter))
        best: npt.NDArray[np.float32] = np.maximum.reduceat(rows, starts)
        return best


def _adapter_offset(header: dict[str, Any]) -> int | None:
    """Where the question adapter starts in the body (``None``: the vectors have none)."""
    fitted = header.get("adapter")
    at = fitted.get("offset") if isinstance(fitted, dict) else None
    return at if isinstance(at, int) and not isinstance(at, bool) and at >= 0 else None


def load_vectors(folder: Path) -> Vectors:
    """Opens ``folder``'s vectors; raises :class:`VectorsError` when absent or damaged."""
    path = folder / FILE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise VectorsError(path, "no vectors have been built for this edition") from None
    except OSError as exc:
        raise VectorsError(path, f"cannot be read ({exc.strerror or exc})") from None
    header, body = _split(path, data)
    try:
        rows, dim, ids = int(header["rows"]), int(header["dimension"]), header["ids"]
        if not isinstance(ids, list) or header.get("dtype") not in DTYPES:
            raise ValueError
    except (KeyError, TypeError, ValueError):
        raise VectorsError(path, "its header is incomplete") from None
    width = {"int8": 1, "float16": 2, "float32": 4}[header["dtype"]]
    at = _adapter_offset(header)
    if len(data) < body + rows * (dim * width + 4 + _HASH) or (
        at is not None and len(data) < body + at + dim * dim * 4
    ):
        raise VectorsError(path, "it is truncated")
    return Vectors(path, header, data, body)
