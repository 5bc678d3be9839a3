"""Keeping the card data current: MTGJSON's AtomicCards file downloaded and stored if it is new.

Whether the file offered is the one stored is found out cheaply where MTGJSON says so:

* every file MTGJSON publishes has its sha256 beside it (``AtomicCards.json.xz.sha256``, the
  hex digest), which is compared with the sha256 the stored snapshot recorded of its file;
* ``Meta.json`` in the same folder names the build's date and version, which the snapshot
  recorded from the file's own ``meta``: the same build in another compression is not fetched
  again, and a build older than the one stored is not fetched at all.

Only when neither answers is the file downloaded to find out, and then its sha256 decides. The
download goes into a temporary file in the data folder (``cards/.tmp-*``, which an abandoned
update leaves for the next write to remove), checked against the published sha256 when there is
one, and is then imported by :meth:`~index.cards.store.CardStore.import_cards`, which makes the
new snapshot live only once complete and checked: a failure anywhere leaves the snapshot that
was answering untouched.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Literal

from ..atomic import Slot, private_prefix
from ..fetch.errors import DownloadTimeoutError, FetchError, UnreachableError
from ..fetch.http import DEFAULT_TIMEOUT, Downloaded, Progress, download_to, get
from .errors import CardFileError, CardWriteError, OlderSnapshotError
from .store import CardStore, SnapshotInfo

__all__ = [
    "DEFAULT_URL",
    "MAX_BYTES",
    "TOTAL_TIMEOUT",
    "CardUpdateResult",
    "Published",
    "find_published",
    "update_cards",
]

DEFAULT_URL = "https://mtgjson.com/api/v5/AtomicCards.json.xz"
"""MTGJSON's AtomicCards file, compressed with xz (about 30 MB; 120 MB of JSON)."""
MAX_BYTES = 512 * 1024 * 1024
"""The largest download accepted, whatever its compression: four times the plain ``.json``
(120 MB in 2026) leaves years of growth, and stops an endless answer long before it fills the
disk. The JSON inside a compressed file is capped separately, by the reader."""
TOTAL_TIMEOUT = 30 * 60.0
"""Seconds the whole download may take: 30 MB at 20 KB/s. Each wait is capped far shorter
(:data:`~index.fetch.http.DEFAULT_TIMEOUT`), so a stalled server fails quickly."""
PROBE_BYTES = 64 * 1024
"""The most read of a ``.sha256`` or ``Meta.json`` file (each is under 1 KB)."""

_HEX_RE = re.compile(r"[0-9a-fA-F]{64}")
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")

Status = Literal["added", "already-stored", "newer-available", "up-to-date"]
Checked = Literal["sha256", "meta", "download", "nothing-stored"]


@dataclasses.dataclass(frozen=True)
class Published:
    """What the server says of the file without sending it."""

    sha256: str | None = None
    """From the ``.sha256`` file beside it (lower-case hex)."""
    date: str | None = None
    """From ``Meta.json`` in the same folder: the build's date."""
    version: str | None = None
    """From ``Meta.json``: the build's version (``5.2.2+20260703``)."""


@dataclasses.dataclass(frozen=True)
class CardUpdateResult:
    """What :func:`update_cards` did or found."""

    status: Status
    """``added``, ``already-stored``, ``up-to-date`` (the data offered is not newer than the
    data stored), or with ``check_only`` ``newer-available``."""
    date: str | None
    """The date of the card data offered (``None`` when only a download could tell)."""
    url: str
    """The address asked for."""
    checked: Checked
    """How it was known: the published ``sha256``, ``meta`` (``Meta.json``), the ``download``
    itself, or ``nothing-stored`` (any data is newer than none)."""
    stored: SnapshotInfo | None
    """The snapshot answering afterwards (the new one when ``added``)."""

    def to_json(self) -> dict[str, Any]:
        """The ``judge cards update --json`` object."""
        return {
            "status": self.status,
            "date": self.date,
            "url": self.url,
            "stored": self.stored.date if self.stored is not None else None,
            "checked": self.checked,
        }


def _is_web(url: str) -> bool:
    return urllib.parse.urlsplit(url).scheme.lower() in ("http", "https")


def _sha256_url(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path + ".sha256", "", ""))


def _meta_url(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    folder = parts.path.rsplit("/", 1)[0]
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, folder + "/Meta.json", "", ""))


def _probe(url: str, beside: str, *, timeout: float) -> bytes | None:
    """A small file published ``beside`` the card file, or ``None`` if there is none to give.

    A server that cannot be reached raises, naming the card file: it would not come either, and
    asking again would only wait as long again.
    """
    try:
        return get(url, max_bytes=PROBE_BYTES, timeout=timeout, total_timeout=2 * timeout).body
    except DownloadTimeoutError as exc:
        raise DownloadTimeoutError(beside, exc.limit, deadline=exc.deadline) from None
    except UnreachableError as exc:
        raise UnreachableError(beside, exc.reason) from None
    except FetchError:  # 404, a redirect not followed, too large: nothing published there
        return None


def _parse_sha256(body: bytes | None) -> str | None:
    # `sha256sum` writes "HEX  NAME"; MTGJSON writes the digest alone.
    words = (body or b"")[:1024].decode("ascii", "replace").split()
    if words and _HEX_RE.fullmatch(words[0]):
        return words[0].lower()
    return None


def _parse_meta(body: bytes | None) -> tuple[str | None, str | None]:
    try:
        doc = json.loads(body or b"")
    except ValueError:
        return None, None  # an HTML page, say
    data = doc.get("data", doc) if isinstance(doc, dict) else None
    if not isinstance(data, dict):
        return None, None
    date, version = data.get("date"), data.get("version")
    if not isinstance(date, str) or not _DATE_RE.fullmatch(date):
        return None, None
    return date, version if isinstance(version, str) else None


def find_published(url: str, *, timeout: float = DEFAULT_TIMEOUT) -> Published:
    """The sha256 and build date the server publishes beside ``url`` (for MTGJSON's files).

    Only asked of http(s) addresses; a local file is read whole anyway. Raises
    :class:`~index.fetch.errors.UnreachableError` when the server cannot be reached.
    """
    if not _is_web(url):
        return Published()
    sha256 = _parse_sha256(_probe(_sha256_url(url), url, timeout=timeout))
    date, version = _parse_meta(_probe(_meta_url(url), url, timeout=timeout))
    return Published(sha256, date, version)


def _same_build(stored: SnapshotInfo, published: Published) -> Checked | None:
    """How the file offered is known to be the snapshot stored, or ``None``."""
    if published.sha256 is not None and published.sha256 == stored.sha256:
        return "sha256"
    if published.date == stored.date and published.version and published.version == stored.version:
        return "meta"  # the same MTGJSON build, perhaps in another compression
    return None


def _is_newer(published: Published, stored: SnapshotInfo) -> bool:
    """Checks if ``Meta.json`` names a build newer than the one stored (another that day's)."""
    if published.date is None:
        return False
    if published.date > stored.date:
        return True
    return published.date == stored.date and bool(published.version) and bool(stored.version)


@contextlib.contextmanager
def _downloaded(
    store: CardStore,
    url: str,
    *,
    sha256: str | None,
    max_bytes: int,
    timeout: float,
    total_timeout: float,
    progress: Progress | None,
) -> Iterator[tuple[IO[bytes], Downloaded]]:
    """The file downloaded into a temporary file of the data folder, removed afterwards."""
    import tempfile

    folder = store.folder
    created = not folder.exists()
    tmp: str | None = None
    downloading = True
    try:
        folder.mkdir(parents=True, exist_ok=True)
        Slot(folder).clean()  # what killed updates and imports left behind
        # `.tmp-<pid>-`: the name that clean-up removes once that process is gone.
        fd, tmp = tempfile.mkstemp(prefix=private_prefix(".tmp-"), suffix=".download", dir=folder)
        with os.fdopen(fd, "w+b") as fh:
            done = download_to(
                url,
                fh,
                max_bytes=max_bytes,
                sha256=sha256,
                timeout=timeout,
                total_timeout=total_timeout,
                progress=progress,
            )
            fh.flush()
            fh.seek(0)
            downloading = False
            yield fh, done
    except OSError as exc:
        if not downloading or isinstance(exc, CardWriteError):
            raise
        from ..errors import os_reason  # a full disk, a data folder that cannot be written

        raise CardWriteError(Path(tmp or folder), os_reason(exc), store.root) from None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        if created:
            Slot(folder).remove_if_empty()


def _date_inside(stream: IO[bytes], url: str) -> str:
    """The ``meta.date`` of a card file, reading it to the end (MTGJSON may write it last)."""
    from .reader import AtomicCardsReader

    reader = AtomicCardsReader(stream, url)
    for _ in reader.entries():
        pass
    assert reader.meta is not None  # the reader checks it is there
    return str(reader.meta["date"])


def update_cards(
    store: CardStore,
    url: str | None = None,
    *,
    check_only: bool = False,
    progress: Progress | None = None,
    import_progress: Progress | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    total_timeout: float = TOTAL_TIMEOUT,
    max_bytes: int = MAX_BYTES,
) -> CardUpdateResult:
    """Downloads the AtomicCards file at ``url`` and stores it, unless it is stored already.

    ``url`` defaults to :data:`DEFAULT_URL`; a plain path or ``file://`` URL is read the same
    way. With ``check_only`` nothing is stored, and nothing is downloaded when the server
    publishes a sha256 or a build date: the result is ``newer-available`` or ``up-to-date``.
    ``progress`` follows the download, ``import_progress`` the import.

    Raises :class:`~index.fetch.errors.FetchError` (its ``purpose`` set to ``cards``),
    :class:`~index.cards.errors.CardFileError` for a file that is no card file, and
    :class:`~index.cards.errors.CardWriteError` when the data folder cannot be written; each
    carries ``kept``, the date of the snapshot that still answers.
    """
    address = url or DEFAULT_URL
    stored = store.find_info_quietly()  # a damaged snapshot is replaced, not compared
    try:
        return _update(
            store,
            address,
            stored,
            check_only=check_only,
            progress=progress,
            import_progress=import_progress,
            timeout=timeout,
            total_timeout=total_timeout,
            max_bytes=max_bytes,
        )
    except (FetchError, CardFileError, CardWriteError) as error:
        if isinstance(error, FetchError):
            error.purpose = "cards"
        error.kept = stored.date if stored is not None else None
        raise


def _update(
    store: CardStore,
    url: str,
    stored: SnapshotInfo | None,
    *,
    check_only: bool,
    progress: Progress | None,
    import_progress: Progress | None,
    timeout: float,
    total_timeout: float,
    max_bytes: int,
) -> CardUpdateResult:
    def result(status: Status, date: str | None, checked: Checked) -> CardUpdateResult:
        return CardUpdateResult(status, date, url, checked, store.find_info_quietly())

    published = find_published(url, timeout=timeout)
    if stored is not None:
        same = _same_build(stored, published)
        if same is not None:
            return result("up-to-date" if check_only else "already-stored", stored.date, same)
        if published.date is not None and published.date < stored.date:
            return result("up-to-date", published.date, "meta")
        if check_only and _is_newer(published, stored):
            return result("newer-available", published.date, "meta")
    elif check_only:
        return result("newer-available", published.date, "nothing-stored")

    with _downloaded(
        store,
        url,
        sha256=published.sha256,
        max_bytes=max_bytes,
        timeout=timeout,
        total_timeout=total_timeout,
        progress=progress,
    ) as (stream, done):
        if stored is not None and done.sha256 == stored.sha256:
            return result("up-to-date" if check_only else "already-stored", stored.date, "download")
        if check_only:
            assert stored is not None  # handled above
            date = _date_inside(stream, url)
            return result(
                "newer-available" if date > stored.date else "up-to-date", date, "download"
            )
        try:
            info = store.import_cards(stream, name=url, progress=import_progress)
        except OlderSnapshotError as exc:
            return result("up-to-date", exc.date, "download")
        return CardUpdateResult("added", info.date, url, "download", info)
