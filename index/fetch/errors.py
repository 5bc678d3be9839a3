"""What can go wrong fetching something, as exceptions that carry their data.

Every failure is a :class:`FetchError` with the ``url`` that failed and the facts of the case
(``reason``, ``status``, ``limit``, ``size``, ``received``, ``expected`` …). Messages are plain
English and name no command-line option: each caller adds its own next step.
"""

from __future__ import annotations

__all__ = [
    "BadURLError",
    "DownloadTimeoutError",
    "FetchError",
    "HTTPStatusError",
    "HashMismatchError",
    "RedirectError",
    "TooLargeError",
    "TruncatedDownloadError",
    "UnreachableError",
    "printable",
]


def printable(text: str) -> str:
    """``text`` with control characters escaped (``\\x1b``), safe to show on a terminal."""
    # Servers choose reason phrases and Location headers: never let them reach a terminal raw.
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


class FetchError(Exception):
    """Raised when something cannot be fetched; ``url`` is the address that failed."""

    purpose = "rules"
    """What was being fetched, for the advice: ``rules`` (the CR update) or ``model`` (set by
    :func:`index.semantic.hub.install_model`)."""

    def __init__(self, url: str, message: str) -> None:
        self.url = url
        self.purpose = "rules"
        """What was being fetched, so that the next step named can fit it: ``rules`` (the CR
        update), ``cards`` or ``documents`` (set by their updates as the error passes)."""
        self.kept: str | None = None
        """The date of the data still answering after the failure, when the caller knows it."""
        super().__init__(message)


class BadURLError(FetchError):
    """Raised for an address that cannot be fetched at all: malformed, or another scheme."""

    def __init__(self, url: str, reason: str) -> None:
        self.reason = reason
        super().__init__(url, f"cannot fetch {url!r}: {reason}.")


class UnreachableError(FetchError):
    """Raised when the server cannot be reached or fails mid-answer (offline, DNS, TLS …)."""

    def __init__(self, url: str, reason: str) -> None:
        self.reason = printable(reason)
        super().__init__(url, f"could not reach {url} ({self.reason}).")


class DownloadTimeoutError(UnreachableError):
    """Raised when the server is silent longer than the time-out, or misses the deadline."""

    def __init__(self, url: str, limit: float, *, deadline: bool = False) -> None:
        self.limit = limit
        """The time-out or deadline that ran out, in seconds."""
        self.deadline = deadline
        """``True`` when the whole transfer took too long, ``False`` when one wait did."""
        reason = (
            f"the download took longer than {limit:g} s"
            if deadline
            else f"timed out after {limit:g} s"
        )
        super().__init__(url, reason)


class HTTPStatusError(FetchError):
    """Raised when the server answers with an error status such as 404."""

    def __init__(self, url: str, status: int, reason: str) -> None:
        self.status = status
        self.reason = printable(reason)
        later = "; the server has a problem; try again later" if status >= 500 else ""
        super().__init__(url, f"{url} answered {status} {self.reason}{later}.")


class RedirectError(FetchError):
    """Raised on a redirect loop, too many redirects, or a redirect that is not followed."""

    def __init__(self, url: str, reason: str, location: str | None = None) -> None:
        self.reason = reason
        """How it redirects: ``too many times``, ``to … which is not followed`` …"""
        self.location = location
        """Where it redirected to, when that is known."""
        super().__init__(url, f"{url} redirects {reason}.")


class TooLargeError(FetchError):
    """Raised when an answer is larger than the caller's size cap."""

    def __init__(self, url: str, limit: int, size: int | None = None) -> None:
        self.limit = limit
        self.size = size
        """The size the server announced; ``None`` when it only showed by reading too much."""
        if size is None:
            message = f"{url} is larger than the limit of {limit} bytes."
        else:
            message = f"{url} is {size} bytes, more than the limit of {limit}."
        super().__init__(url, message)


class TruncatedDownloadError(FetchError):
    """Raised when the connection ends before the whole answer arrived."""

    def __init__(self, url: str, received: int, expected: int | None = None) -> None:
        self.received = received
        self.expected = expected
        of = f" of {expected}" if expected is not None else ""
        super().__init__(
            url, f"the download of {url} stopped after {received}{of} bytes; try again."
        )


class HashMismatchError(FetchError):
    """Raised when a download is complete but its sha256 is not the one expected."""

    def __init__(self, url: str, expected: str, actual: str) -> None:
        self.expected = expected
        self.actual = actual
        super().__init__(
            url, f"the download of {url} has sha256 {actual}, not the expected {expected}."
        )
