"""The model store: sentence-embedding models under the data folder, installed atomically.

Layout (``root`` is ``$JUDGE_HOME``, else the user data folder)::

    models/ACTIVE                        the name of the model search uses (replaced atomically)
    models/all-MiniLM-L6-v2/CURRENT      an index.atomic.Slot per model
    models/all-MiniLM-L6-v2/b-<id>/model.json, tokenizer.json, onnx/model.onnx, …

:meth:`ModelStore.import_folder` copies a model folder into a fresh build, hashing each file as
it is copied (and comparing it with ``expected`` hashes when given), then loads the copy and
embeds a test sentence, then writes the quick-loading copy search uses (int8 weights when asked
for, the ``onnx`` package is there and the copy agrees with the published file; its digest is
then another model's, so vectors are made again for it); only when all of that succeeded does
the build go live. A download from
the hub is meant to be the same call: fetch the files into a temporary folder, then
``import_folder(tmp, name, expected=<the hub's hashes>)``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..atomic import Slot, clean_slots, write_json, write_text_atomic
from .model import MODEL_FILE, REQUIRED_FILES, ModelLoadError

if TYPE_CHECKING:
    from .model import Embedder

__all__ = [
    "OPTIONAL_FILES",
    "QUANTISED_AGREEMENT",
    "TEST_SENTENCE",
    "InstalledModel",
    "ModelCheckError",
    "ModelFolderError",
    "ModelStore",
    "NoModelError",
]

OPTIONAL_FILES = (
    "sentence_bert_config.json",
    "1_Pooling/config.json",
    "modules.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "README.md",
)
"""Copied when present: settings the embedder reads, and the model card (its licence)."""
QUANTISED_AGREEMENT = 0.98
"""The least cosine between the quantised and the published model's vectors of one sentence:
over 391 real questions and passages it was 0.984 at worst (median 0.992)."""
TEST_SENTENCE = "If a creature has toughness 0 or less, it's put into its owner's graveyard."
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_META = "model.json"
_ACTIVE = "ACTIVE"
_CHUNK = 1 << 20


class ModelFolderError(ValueError):
    """Raised when a folder is not a model folder: ``missing`` lists the files it lacks."""

    def __init__(self, folder: Path, missing: list[str], reason: str = "") -> None:
        self.folder = folder
        self.missing = missing
        why = reason or f"missing {', '.join(missing)}"
        super().__init__(f"{folder} is not a sentence-embedding model folder ({why})")


class ModelCheckError(ValueError):
    """Raised when a model's file is there but wrong: a bad hash, or it does not load or run."""

    def __init__(self, folder: Path, file: str, reason: str) -> None:
        self.folder = folder
        self.file = file
        self.reason = reason
        super().__init__(f"{folder / file}: {reason}")


class NoModelError(LookupError):
    """Raised when no model (or not the one named) is installed; ``installed`` lists those there."""

    def __init__(self, name: str | None, installed: list[str]) -> None:
        self.name = name
        self.installed = installed
        if name is None:
            super().__init__("no sentence-embedding model is installed")
        else:
            have = ", ".join(installed) if installed else "none"
            super().__init__(f"the model {name} is not installed (installed: {have})")


@dataclass(frozen=True)
class InstalledModel:
    """One installed model: where its files are and the digest its vectors are stored under."""

    name: str
    path: Path
    """The live build folder (the files, laid out as in the source folder)."""
    digest: str
    """A hash of the files that decide the vectors (see :func:`model_digest`)."""
    dimension: int
    source: str
    imported: float
    files: dict[str, str] = field(default_factory=dict)
    """Relative path → sha256 of every file copied."""
    active: bool = False
    quantised: str | None = None
    """How the prepared copy, which search loads, was quantised (``None``: it was not)."""
    published_digest: str = ""
    """The digest of the published weights' vectors when the prepared copy is quantised
    (``Embedder.from_folder(path, published_digest=…)`` names the published file by it)."""

    def load(self, *, threads: int = 1, prepack: bool = False) -> Embedder:
        """The loaded model (imports onnxruntime; see :meth:`Embedder.from_folder`).

        A quantised copy that does not load raises ``ModelLoadError`` rather than falling
        back to the published file: the vectors stored for this model are the copy's.
        """
        from .model import PREPARED_FILE, Embedder

        return Embedder.from_folder(
            self.path,
            digest=self.digest,
            model_file=PREPARED_FILE if self.quantised else None,
            threads=threads,
            prepack=prepack,
        )

    def to_json(self) -> dict[str, Any]:
        """The ``judge model --json`` record."""
        return {
            "name": self.name,
            "digest": self.digest,
            "dimension": self.dimension,
            "source": self.source,
            "imported": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.imported)),
            "active": self.active,
            "files": dict(self.files),
            "quantised": self.quantised,
        }


def model_digest(hashes: dict[str, str]) -> str:
    """The digest of a model: the weights, the tokenizer and the settings that change vectors."""
    h = hashlib.sha256(b"judge-model-1\n")
    for name in (*REQUIRED_FILES, "sentence_bert_config.json", "1_Pooling/config.json"):
        if name in hashes:
            h.update(f"{name}\t{hashes[name]}\n".encode())
    return h.hexdigest()


def quantised_digest(published: str, method: str, hashes: dict[str, str]) -> str:
    """The digest of a quantised copy: the published model's, how, and the files made."""
    h = hashlib.sha256(b"judge-model-quantised-1\n")
    h.update(f"{published}\n{method}\n".encode())
    for name in sorted(hashes):
        h.update(f"{name}\t{hashes[name]}\n".encode())
    return h.hexdigest()


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def _copy_hashed(src: Path, dst: Path, progress: Callable[[int], None] | None = None) -> str:
    """Copies ``src`` to ``dst`` and returns the sha256 of what was copied."""
    h = hashlib.sha256()
    dst.parent.mkdir(parents=True, exist_ok=True)
    with src.open("rb") as fin, dst.open("wb") as fout:
        while chunk := fin.read(_CHUNK):
            h.update(chunk)
            fout.write(chunk)
            if progress is not None:
                progress(len(chunk))
    return h.hexdigest()


class ModelStore:
    """The models installed in one data folder."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def from_env(cls) -> ModelStore:
        """The store at ``$JUDGE_HOME``, else the user data folder."""
        from ..store import _default_root

        return cls(_default_root())

    @property
    def models_dir(self) -> Path:
        return self.root / "models"

    def names(self) -> list[str]:
        """The installed models' names, sorted."""
        if not self.models_dir.is_dir():
            return []
        return sorted(
            p.name
            for p in self.models_dir.iterdir()
            if p.is_dir() and _NAME_RE.fullmatch(p.name) and self._read(p.name) is not None
        )

    def active_name(self) -> str | None:
        """The model search uses: the one ``ACTIVE`` names, else the only one installed."""
        try:
            name = (self.models_dir / _ACTIVE).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            name = ""
        names = self.names()
        if name in names:
            return name
        return names[0] if len(names) == 1 else None

    def _read(self, name: str) -> InstalledModel | None:
        build = Slot(self.models_dir / name).current()
        if build is None:
            return None
        try:
            meta = json.loads((build / _META).read_text(encoding="utf-8"))
            return InstalledModel(
                name=name,
                path=build,
                digest=str(meta["digest"]),
                dimension=int(meta["dimension"]),
                source=str(meta.get("source", "")),
                imported=float(meta.get("imported", 0.0)),
                files={str(k): str(v) for k, v in meta.get("files", {}).items()},
                quantised=str(meta["quantised"]) if meta.get("quantised") else None,
                published_digest=str(meta.get("published_digest", "")),
            )
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def models(self) -> list[InstalledModel]:
        """Every installed model, the active one marked."""
        active = self.active_name()
        out: list[InstalledModel] = []
        for name in self.names():
            found = self._read(name)
            if found is not None:
                out.append(dataclasses.replace(found, active=name == active))
        return out

    def find(self, name: str | None = None) -> InstalledModel | None:
        """The model named (default: the active one), or ``None``."""
        wanted = name if name is not None else self.active_name()
        if wanted is None or not _NAME_RE.fullmatch(wanted):
            return None
        return self._read(wanted)

    def get(self, name: str | None = None) -> InstalledModel:
        """The model named (default: the active one); raises :class:`NoModelError`."""
        found = self.find(name)
        if found is None:
            raise NoModelError(name, self.names())
        return found

    def import_folder(
        self,
        folder: Path,
        name: str | None = None,
        *,
        expected: dict[str, str] | None = None,
        progress: Callable[[int, int], None] | None = None,
        source: str | None = None,
        quantise: bool = False,
    ) -> InstalledModel:
        """Copies a model folder into the store, checks it, and makes it the active model.

        ``name`` defaults to the folder's name; ``expected`` maps relative paths to the sha256
        their copies must have; ``progress`` is told ``(bytes copied, bytes in all)``;
        ``quantise``: the copy search loads has int8 weights (see ``quantise_model``; without
        the ``onnx`` package, or if the quantised copy embeds too differently, it has the
        published float weights). Not the default: on the real questions held back, the
        re-rank's MRR fell from 0.371 to 0.339 with it (``benchmarks/relevance.py``); with the
        question adapter (2026-12-02; questions and vectors both int8, judge+cards+sem) from
        0.402 to 0.390, all 91 0.604 / 0.475 → 0.604 / 0.469, ours 0.881 / 0.753 → 0.879 /
        0.755, for about half the CPU of a warm question. Raises
        :class:`ModelFolderError` (not a model folder), :class:`ModelCheckError` (a wrong hash,
        a model that does not load or does not embed) and
        :class:`~index.semantic.model.SemanticUnavailableError` (the extra is not installed);
        on any of them nothing is installed and the model installed before stays as it was.
        """
        from .model import require_runtime

        name = name or folder.name
        if not _NAME_RE.fullmatch(name):
            raise ModelFolderError(
                folder, [], f"{name!r} cannot name a model: use letters, digits, . _ -"
            )
        if not folder.is_dir():
            raise ModelFolderError(folder, list(REQUIRED_FILES), "not a folder")
        missing = [f for f in REQUIRED_FILES if not (folder / f).is_file()]
        missing += [f for f in (expected or {}) if f not in missing and not (folder / f).is_file()]
        if missing:
            raise ModelFolderError(folder, missing)
        require_runtime()  # before copying 90 MB for nothing
        files = [f for f in (*REQUIRED_FILES, *OPTIONAL_FILES) if (folder / f).is_file()]
        total = sum((folder / f).stat().st_size for f in files)
        done = 0

        def advance(n: int) -> None:
            nonlocal done
            done += n
            if progress is not None:
                progress(done, total)

        clean_slots(self.models_dir)  # other imports killed before going live
        with Slot(self.models_dir / name).new_build() as build:
            hashes: dict[str, str] = {}
            for rel in files:
                hashes[rel] = _copy_hashed(folder / rel, build / rel, advance)
                want = (expected or {}).get(rel)
                if want is not None and want.lower() != hashes[rel]:
                    raise ModelCheckError(
                        folder, rel, f"sha256 is {hashes[rel]}, expected {want.lower()}"
                    )
            digest = model_digest(hashes)
            dimension, vector = self._check(folder, build, digest)
            quantised = self._prepare(build, vector, quantise=True) if quantise else []
            meta: dict[str, Any] = {
                "name": name,
                "digest": digest,
                "dimension": dimension,
                "source": source if source is not None else str(folder),
                "imported": time.time(),
                "files": hashes,
                "prepared": bool(quantised or self._prepare(build, vector, quantise=False)),
            }
            if quantised:
                from .model import QUANTISED

                made = {rel: _sha256(build / rel) for rel in quantised}
                meta.update(
                    digest=quantised_digest(digest, QUANTISED, made),
                    published_digest=digest,
                    quantised=QUANTISED,
                    prepared_files=made,
                )
            write_json(build / _META, meta)
        write_text_atomic(self.models_dir / _ACTIVE, name + "\n")
        return dataclasses.replace(self.get(name), active=True)

    @staticmethod
    def _check(folder: Path, build: Path, digest: str) -> tuple[int, Any]:
        """Loads the copied model and embeds :data:`TEST_SENTENCE`: (dimension, its vector)."""
        import math

        from .model import Embedder

        try:
            embedder = Embedder.from_folder(build, digest=digest, model_file=MODEL_FILE)
            vector = embedder.embed([TEST_SENTENCE])
        except ModelLoadError as exc:
            # Named by the source folder: the build folder is about to be removed.
            raise ModelCheckError(folder, exc.file, exc.reason) from None
        try:
            config = json.loads((build / "config.json").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise ModelCheckError(folder, "config.json", f"not readable JSON ({exc})") from None
        size = config.get("hidden_size") if isinstance(config, dict) else None
        dimension = int(vector.shape[1]) if vector.ndim == 2 else 0
        if vector.shape[0] != 1 or dimension == 0 or (isinstance(size, int) and size != dimension):
            raise ModelCheckError(
                folder,
                MODEL_FILE,
                f"a test sentence embeds to {tuple(vector.shape)}, expected (1, {size or 'n'})",
            )
        norm = math.sqrt(float((vector * vector).sum()))
        if not math.isfinite(norm) or abs(norm - 1.0) > 1e-3:
            raise ModelCheckError(folder, MODEL_FILE, "a test sentence embeds to a broken vector")
        return dimension, vector[0]

    @staticmethod
    def _prepare(build: Path, vector: Any, *, quantise: bool) -> list[str]:
        """Writes the quick-loading copy of the model (see ``prepare_model``) if it agrees;
        returns the files written (none: it was left out).

        It must embed the test sentence as the published file does: to a cosine of 0.99999,
        or :data:`QUANTISED_AGREEMENT` when quantised. Otherwise, or if onnxruntime cannot
        write it (or quantise it: the ``onnx`` package is absent), it is left out: the published
        file is loaded instead, more slowly, or the float copy is tried next.
        """
        from .model import PREPARED_FILE, Embedder, SemanticUnavailableError, prepare_model

        bound = QUANTISED_AGREEMENT if quantise else 0.99999
        written: list[str] = []
        try:
            written = prepare_model(build, quantise=quantise)
            prepared = Embedder.from_folder(build, model_file=PREPARED_FILE)
            again = prepared.embed([TEST_SENTENCE])[0]
            if float(again @ vector) >= bound:
                return written
        except (ModelLoadError, SemanticUnavailableError):
            pass
        for rel in written:
            (build / rel).unlink(missing_ok=True)
        return []
