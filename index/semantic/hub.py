"""Installing all-MiniLM-L6-v2 from the Hugging Face hub (``judge model install``).

Each file of :data:`HUB_FILES` is streamed from ``<base>/<file>`` (default :data:`HUB_URL`;
any mirror that serves the same files under the same paths will do) into a private folder
under the data folder, checked against the sha256 the hub publishes for it
(:data:`HUB_SHA256`), and only then handed to :meth:`ModelStore.import_folder
<index.semantic.ModelStore.import_folder>`, which copies, checks again and loads the model
before it goes live. Whatever fails, nothing is installed and the download folder is removed.

The expected hashes are a table per source: the hub's are pinned here (the LFS files' sha256
as the hub serves them; the small files' as published, which ``../shared/models`` holds too).
A source that serves another export of the same weights (a local ONNX export has other
bytes than the hub's) passes its own table, e.g. read from its ``SHA256SUMS``
(:func:`read_sums`).
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import private_dir, sweep

if TYPE_CHECKING:
    from .models import InstalledModel, ModelStore

__all__ = [
    "HUB_FILES",
    "HUB_NAME",
    "HUB_SHA256",
    "HUB_URL",
    "SumsFileError",
    "install_model",
    "read_sums",
]

HUB_NAME = "all-MiniLM-L6-v2"
HUB_URL = "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main"
"""The default base address: ``<HUB_URL>/<file>`` is each file."""

HUB_SHA256: dict[str, str] = {
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "sentence_bert_config.json": "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
    "1_Pooling/config.json": "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
    # The hub's own ONNX export (an LFS file: 90,405,214 bytes).
    "onnx/model.onnx": "6fd5d72fe4589f189f8ebc006442dbb529bb7ce38f8082112682524616046452",
}
"""sha256 of each file as the hub publishes it."""

HUB_FILES = tuple(HUB_SHA256)
"""What is downloaded, in this order (the small files first: a wrong address fails before the
90 MB): the tokenizer, the settings the embedder reads, the weights."""

_LIMITS = {"onnx/model.onnx": 1 << 30}
"""The most bytes a file may have (the weights; the others are a few hundred KiB at most)."""
_SMALL_LIMIT = 16 << 20
_SECONDS_PER_FILE = 3600.0
"""Deadline of one file's transfer: 90 MB at 25 KiB/s."""

Progress = Callable[[int, "int | None"], None]


class SumsFileError(ValueError):
    """Raised when a list of hashes cannot be read; ``line`` is 0 when the file is unreadable."""

    def __init__(self, file: str, line: int, reason: str) -> None:
        self.file = file
        self.line = line
        self.reason = reason
        where = f"{file}, line {line}" if line else file
        super().__init__(f"{where}: {reason}")


def read_sums(path: Path, name: str = HUB_NAME) -> dict[str, str]:
    """The hashes of a ``SHA256SUMS`` file (``sha256sum`` output), by path in the model folder.

    Paths may start with the model's folder name (``all-MiniLM-L6-v2/onnx/model.onnx``), as
    in a listing of several models. Raises :class:`SumsFileError`.
    """
    import re

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SumsFileError(str(path), 0, f"cannot be read ({exc})") from None
    found: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        match = re.fullmatch(r"([0-9a-fA-F]{64}) [ *](.+)", line.strip())
        if match is None:
            raise SumsFileError(str(path), number, "expected a sha256 and a file name")
        rel = match.group(2).strip().removeprefix("./").removeprefix(f"{name}/")
        found[rel] = match.group(1).lower()
    return found


@contextlib.contextmanager
def _download_folder(store: ModelStore) -> Iterator[Path]:
    """A private folder beside the models (one filesystem), removed whatever happens."""
    store.models_dir.mkdir(parents=True, exist_ok=True)
    sweep(store.models_dir, ".download-")  # what a killed install left
    folder = private_dir(store.models_dir, ".download-")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def install_model(
    store: ModelStore,
    base: str = HUB_URL,
    *,
    name: str = HUB_NAME,
    expected: Mapping[str, str] | None = None,
    progress: Progress | None = None,
    timeout: float | None = None,
    quantise: bool = False,
) -> InstalledModel:
    """Downloads the model's files from ``base``, checks them, and installs them as ``name``
    (``quantise``: as :meth:`~index.semantic.ModelStore.import_folder`'s).

    ``expected`` overrides :data:`HUB_SHA256` file by file (another source's table); every
    file is checked. ``progress`` is told ``(bytes so far, bytes in all or None)`` over all
    files. Raises :class:`~index.fetch.FetchError` (its ``purpose`` set to ``"model"``: a
    file that cannot be fetched, is cut short or has another sha256), and what
    :meth:`~index.semantic.ModelStore.import_folder` raises; nothing is installed then.
    """
    from ..fetch import DEFAULT_TIMEOUT, FetchError, download_to
    from .model import require_runtime

    require_runtime()  # before downloading 90 MB for nothing
    hashes = {**HUB_SHA256, **(expected or {})}
    base = base.rstrip("/")
    done_before = 0

    def told(done: int, total: int | None) -> None:
        if progress is not None:
            progress(done_before + done, None)

    with _download_folder(store) as folder:
        for rel in HUB_FILES:
            target = folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                got = download_to(
                    f"{base}/{rel}",
                    target,
                    max_bytes=_LIMITS.get(rel, _SMALL_LIMIT),
                    sha256=hashes[rel],
                    timeout=timeout or DEFAULT_TIMEOUT,
                    total_timeout=_SECONDS_PER_FILE,
                    progress=told,
                )
            except FetchError as exc:
                exc.purpose = "model"
                raise
            done_before += got.size
        wanted = {rel: hashes[rel] for rel in HUB_FILES}
        return store.import_folder(folder, name, expected=wanted, source=base, quantise=quantise)
