"""Every byte that crosses the network: one GET, bounded in every way, in memory or to a file.

Only the standard library talks HTTP (``urllib.request``), with a verifying TLS context, a
``User-Agent``, a time-out for the connection and for each read, a deadline for the whole
request (connecting, TLS, headers, body, redirects: a server trickling bytes cannot hold us), a
size cap the caller chooses, at most :data:`MAX_REDIRECTS` redirects and never one from https to
http or to another scheme (see :mod:`index.fetch.opener`). Plain paths and ``file://`` URLs are
read the same way, so a file downloaded by hand goes the same road.

* :func:`download` / :func:`get` read a small answer whole; :func:`peek` reads the first bytes
  (a ranged request).
* :func:`download_to` streams a big one into a file object or a path as it arrives; a path is
  written beside the target and renamed over it only once complete and its sha256 checked.

Every failure is a :class:`~index.fetch.errors.FetchError` carrying its data; its message names
no command-line option, so each caller adds its own next step. Import from :mod:`index.fetch`.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import http.client
import os
import socket
import ssl
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, NoReturn

from ..decode import MAX_RULES_BYTES
from .errors import (
    BadURLError,
    DownloadTimeoutError,
    FetchError,
    HashMismatchError,
    HTTPStatusError,
    RedirectError,
    TooLargeError,
    TruncatedDownloadError,
    UnreachableError,
    printable,
)
from .opener import MAX_REDIRECTS, Watchdog, build_opener
from .urls import check_url

__all__ = [
    "DEFAULT_TIMEOUT",
    "DEFAULT_TOTAL_TIMEOUT",
    "MAX_BYTES",
    "MAX_REDIRECTS",
    "Answer",
    "Downloaded",
    "Progress",
    "download",
    "download_to",
    "get",
    "peek",
]

DEFAULT_TIMEOUT = 30.0
"""Seconds to wait for a connection or for the next bytes of an answer."""
DEFAULT_TOTAL_TIMEOUT = 300.0
"""Seconds a whole transfer may take unless the caller says otherwise."""
MAX_BYTES = MAX_RULES_BYTES
"""The default cap of :func:`download` and :func:`get`: the cap of a rules file, which
``judge index build`` applies too (a CR is about 1 MiB)."""

_CHUNK = 64 * 1024

Progress = Callable[[int, "int | None"], None]
"""Called as ``progress(bytes_so_far, total_or_None)`` while a transfer runs."""


# --- the transfer -----------------------------------------------------------------------------


@functools.cache
def _user_agent() -> str:
    from importlib import metadata

    try:
        version = metadata.version("judge-cli")
    except metadata.PackageNotFoundError:
        version = "0"
    return f"judge-cli/{version}"


@functools.cache
def _tls_context() -> ssl.SSLContext:
    # Verifies certificates and host names; made once, as loading the CA store takes ~50 ms.
    return ssl.create_default_context()


def _reason(error: BaseException) -> str:
    if isinstance(error, ssl.SSLCertVerificationError):
        return f"TLS certificate not verified: {error.verify_message}"
    if isinstance(error, socket.gaierror):
        return "name not resolved; are you offline?"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    text = getattr(error, "strerror", None) or str(error) or type(error).__name__
    return str(text)


@contextmanager
def _network_errors(url: str, timeout: float, watchdog: Watchdog) -> Iterator[None]:
    """Turns what urllib, http.client and sockets raise into :class:`FetchError`."""
    try:
        yield
    except FetchError:
        raise
    except Exception as error:
        if watchdog.expired:  # whatever broke, it broke because the deadline shut the socket
            raise DownloadTimeoutError(url, watchdog.seconds, deadline=True) from None
        _translate(url, timeout, error)


def _translate(url: str, timeout: float, error: Exception) -> NoReturn:
    if isinstance(error, urllib.error.HTTPError):
        if 300 <= error.code < 400:
            first = str(error.reason).splitlines()[0]
            what = "too many times" if "loop" in first else f"in a way not followed ({first})"
            raise RedirectError(url, printable(what)) from None
        raise HTTPStatusError(url, error.code, str(error.reason)) from None
    reason = error.reason if isinstance(error, urllib.error.URLError) else error
    if isinstance(reason, TimeoutError):
        raise DownloadTimeoutError(url, timeout) from None
    if isinstance(error, http.client.IncompleteRead):
        raise TruncatedDownloadError(url, len(error.partial), error.expected) from None
    if isinstance(reason, (http.client.HTTPException, OSError)):
        # sockets that fail mid-read, file:// paths that vanish, a server speaking nonsense
        raise UnreachableError(url, _reason(reason)) from None
    if isinstance(error, urllib.error.URLError):
        raise UnreachableError(url, str(reason)) from None
    if isinstance(error, ValueError):
        raise BadURLError(url, f"the address is malformed ({printable(str(error))})") from None
    raise error


def _content_length(response: http.client.HTTPResponse) -> int | None:
    if response.status == 206:
        return None  # the length of the range, not of the file
    header = response.headers.get("Content-Length")
    return int(header) if header and header.isdigit() else None


@dataclasses.dataclass(frozen=True)
class _Transfer:
    url: str
    content_type: str
    size: int


def _transfer(
    url: str,
    write: Callable[[bytes], object],
    *,
    max_bytes: int,
    timeout: float,
    total_timeout: float | None,
    progress: Progress | None,
    partial: bool = False,
) -> _Transfer:
    """GETs ``url`` and hands its body to ``write`` piece by piece as it arrives.

    With ``partial`` only the first ``max_bytes`` are read (a ranged request); otherwise more
    than ``max_bytes`` is an error, raised before the excess is written.
    """
    address = check_url(url)
    request = urllib.request.Request(address, headers={"User-Agent": _user_agent()})
    if partial and not address.startswith("file:"):
        request.add_header("Range", f"bytes=0-{max_bytes - 1}")
    watchdog = Watchdog(total_timeout or DEFAULT_TOTAL_TIMEOUT)
    opener = build_opener(watchdog, _tls_context())
    with watchdog:
        with _network_errors(address, timeout, watchdog):
            response = opener.open(request, timeout=timeout)
        with response:
            length = _content_length(response)
            if length is not None and length > max_bytes and not partial:
                raise TooLargeError(address, max_bytes, length)
            # read1 returns what has arrived instead of waiting for a full chunk.
            read_some = getattr(response, "read1", response.read)
            done = 0
            while not watchdog.expired:
                with _network_errors(address, timeout, watchdog):
                    chunk = read_some(min(_CHUNK, max_bytes + 1 - done))
                if not chunk:
                    break
                if done + len(chunk) > max_bytes:
                    if not partial:
                        raise TooLargeError(address, max_bytes)
                    chunk = chunk[: max_bytes - done]
                write(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, length)
                if partial and done >= max_bytes:
                    break
            # An end of the body may only be the deadline shutting the socket.
            if watchdog.expired:
                raise DownloadTimeoutError(address, watchdog.seconds, deadline=True)
            if length is not None and done < length and not partial:
                raise TruncatedDownloadError(address, done, length)
            content_type = response.headers.get("Content-Type", "") or ""
            return _Transfer(response.geturl(), content_type, done)


@dataclasses.dataclass(frozen=True)
class Answer:
    """An answer read into memory."""

    url: str
    """The address finally answered, after redirects."""
    body: bytes
    content_type: str
    """The ``Content-Type`` header as sent (``""`` when none)."""


@dataclasses.dataclass(frozen=True)
class Downloaded:
    """What :func:`download_to` wrote."""

    url: str
    """The address finally answered, after redirects."""
    size: int
    """Bytes written."""
    sha256: str
    """The hex sha256 of those bytes."""
    content_type: str


def _check_hash(url: str, expected: str | None, digest: hashlib._Hash) -> str:
    actual = digest.hexdigest()
    if expected is not None and actual != expected.strip().lower():
        raise HashMismatchError(url, expected, actual)
    return actual


def _read(
    url: str,
    max_bytes: int,
    *,
    timeout: float,
    total_timeout: float | None,
    progress: Progress | None = None,
    partial: bool = False,
) -> Answer:
    chunks: list[bytes] = []
    done = _transfer(
        url,
        chunks.append,
        max_bytes=max_bytes,
        timeout=timeout,
        total_timeout=total_timeout,
        progress=progress,
        partial=partial,
    )
    return Answer(done.url, b"".join(chunks), done.content_type)


def get(
    url: str,
    *,
    max_bytes: int = MAX_BYTES,
    timeout: float = DEFAULT_TIMEOUT,
    total_timeout: float | None = None,
    progress: Progress | None = None,
    sha256: str | None = None,
) -> Answer:
    """GETs ``url`` whole into memory (at most ``max_bytes``); raises :class:`FetchError`."""
    answer = _read(url, max_bytes, timeout=timeout, total_timeout=total_timeout, progress=progress)
    if sha256 is not None:
        _check_hash(answer.url, sha256, hashlib.sha256(answer.body))
    return answer


def download(
    url: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = MAX_BYTES,
    progress: Progress | None = None,
    total_timeout: float | None = None,
    sha256: str | None = None,
) -> bytes:
    """Downloads ``url`` whole (at most ``max_bytes``), raising a :class:`FetchError` on failure."""
    return get(
        url,
        max_bytes=max_bytes,
        timeout=timeout,
        total_timeout=total_timeout,
        progress=progress,
        sha256=sha256,
    ).body


def peek(
    url: str,
    size: int,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    total_timeout: float | None = None,
) -> Answer:
    """The first ``size`` bytes of ``url`` (fewer if it is shorter), by a ranged request.

    A server that ignores the range is read only that far.
    """
    return _read(url, size, timeout=timeout, total_timeout=total_timeout, partial=True)


def download_to(
    url: str,
    target: str | os.PathLike[str] | BinaryIO,
    *,
    max_bytes: int,
    sha256: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    total_timeout: float | None = None,
    progress: Progress | None = None,
) -> Downloaded:
    """Streams ``url`` into ``target`` as it arrives, never holding the whole body in memory.

    ``target`` is a path or a binary file object open for writing. A path is written beside it
    under a temporary name and renamed over it only when the download is complete and, with
    ``sha256``, matches it; on any failure the path is left as it was. A file object keeps what
    was written before a failure: discard it then.

    Raises :class:`FetchError` (:class:`HashMismatchError` for a wrong sha256), and
    :class:`OSError` when the target cannot be written.
    """
    digest = hashlib.sha256()

    def into(fh: BinaryIO) -> Downloaded:
        def write(chunk: bytes) -> None:
            fh.write(chunk)
            digest.update(chunk)

        done = _transfer(
            url,
            write,
            max_bytes=max_bytes,
            timeout=timeout,
            total_timeout=total_timeout,
            progress=progress,
        )
        actual = _check_hash(done.url, sha256, digest)
        return Downloaded(done.url, done.size, actual, done.content_type)

    if isinstance(target, (str, os.PathLike)):
        from ..atomic import open_atomic

        with open_atomic(Path(target)) as fh:
            return into(fh)
    return into(target)
