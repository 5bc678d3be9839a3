"""The Comprehensive Rules update policy: which link is the newest edition, and storing it.

Which edition a file is, and whether it is already stored, is read from the file itself ("These
rules are effective as of …"): first from its opening bytes (a ranged request of a few KiB), and
in the end from the full text, which must parse as a CR before anything is stored. The dates in
file names only order the candidates (see :mod:`index.fetch.links`).
"""

from __future__ import annotations

import dataclasses
import urllib.parse
from collections.abc import Callable, Sequence
from email.message import Message
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from ..dates import find_effective_date
from .errors import FetchError, printable
from .http import (
    DEFAULT_TIMEOUT,
    MAX_BYTES,
    Answer,
    Progress,
    download,
    get,
    peek,
)
from .links import CandidateLink, candidate, find_rules_links
from .urls import check_url, file_name, quote_url

if TYPE_CHECKING:
    from ..model import Document

__all__ = [
    "DEFAULT_URL",
    "MAX_CANDIDATES",
    "PEEK_BYTES",
    "NoRulesLinkError",
    "NotRulesFileError",
    "StoreLike",
    "UpdateResult",
    "sniff_edition",
    "update",
]

DEFAULT_URL = "https://magic.wizards.com/en/rules"
"""Wizards' rules page, which links the current Comprehensive Rules in several formats."""
MAX_CANDIDATES = 8
"""At most this many .txt links from one page are looked at."""
PEEK_BYTES = 16 * 1024
"""How much of a file is read to find its effective date without downloading all of it."""


class NotRulesFileError(FetchError):
    """Raised when a download is not a Comprehensive Rules text file (a web page, a PDF …)."""

    def __init__(self, url: str, reason: str) -> None:
        self.reason = reason
        super().__init__(url, f"{url} is not a Comprehensive Rules text file ({reason}).")


class NoRulesLinkError(FetchError):
    """Raised when a page links no Comprehensive Rules .txt file."""

    def __init__(self, url: str) -> None:
        super().__init__(url, f"no Comprehensive Rules .txt link found on {printable(url)}.")


# --- the effective date in the first bytes ----------------------------------------------------


def _decode_head(head: bytes) -> str:
    # Only the ASCII date line matters here, so any decoding that keeps ASCII readable will do.
    if head.startswith(b"\xef\xbb\xbf"):
        return head[3:].decode("utf-8", "replace")
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return head.decode("utf-16", "replace")
    sample = head[:400]
    if sample.count(0) > len(sample) // 4:
        even_zeros = sample[::2].count(0)
        odd_zeros = sample[1::2].count(0)
        return head.decode("utf-16-be" if even_zeros > odd_zeros else "utf-16-le", "replace")
    return head.decode("latin-1")


def sniff_edition(head: bytes) -> str | None:
    """Reads the effective date from the opening bytes of a rules file; ``None`` if not there."""
    return find_effective_date(_decode_head(head))


def _looks_like_html(head: bytes, content_type: str) -> bool:
    # A rules file never starts with markup; a page always does (doctype, comment or tag).
    if _decode_head(head[:2048]).lstrip("\ufeff \t\r\n").startswith("<"):
        return True
    # The header alone is not trusted: a misconfigured server may label the rules text/html.
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind in ("text/html", "application/xhtml+xml") and sniff_edition(head) is None


# --- update -----------------------------------------------------------------------------------


class _EditionLike(Protocol):
    @property
    def edition(self) -> str: ...

    @property
    def source(self) -> str: ...


class StoreLike(Protocol):
    """What :func:`update` needs of an edition store (``index.store.EditionStore``)."""

    def editions(self) -> Sequence[_EditionLike]: ...

    def has(self, edition: str) -> bool: ...

    def add_document(
        self,
        doc: Document,
        source: str,
        sha256: str,
        *,
        extra: Callable[[Document, Path], None] | None = None,
    ) -> _EditionLike: ...


Status = Literal["added", "already-stored", "newer-available", "up-to-date"]


@dataclasses.dataclass(frozen=True)
class UpdateResult:
    """What :func:`update` did or found."""

    status: Status
    """``added``, ``already-stored``; with ``check_only``: ``newer-available``, ``up-to-date``."""
    edition: str
    """The effective date of the newest edition offered, ISO ``YYYY-MM-DD``."""
    url: str
    """The .txt address that edition comes from."""
    page_url: str
    """The page (or file) address the update started from."""
    warnings: tuple[str, ...] = ()
    """Other links on the page that could not be read, one message each."""
    problems: tuple[FetchError, ...] = ()
    """The errors behind :attr:`warnings`, in the same order, for callers to word their own."""

    def to_json(self) -> dict[str, str]:
        """The ``judge update --json`` object."""
        return {"status": self.status, "edition": self.edition, "url": self.url}


@dataclasses.dataclass
class _Resolved:
    link: CandidateLink
    edition: str
    data: bytes | None = None
    """The whole file, when it had to be downloaded to find its date."""
    document: Document | None = None
    """The file parsed, when it was."""


def _candidates_from(
    url: str, *, timeout: float, max_bytes: int, total_timeout: float | None
) -> tuple[list[CandidateLink], Answer | None]:
    """The rules links ``url`` leads to, or the file itself when ``url`` is a rules file."""
    address = check_url(url)
    if file_name(address).lower().endswith(".txt"):
        return [candidate(address)], None
    page = get(address, timeout=timeout, max_bytes=max_bytes, total_timeout=total_timeout)
    if not _looks_like_html(page.body, page.content_type):
        # An address without .txt that serves the rules file itself.
        link = candidate(page.url)
        return [dataclasses.replace(link, url=address)], page
    charset = Message()
    charset["Content-Type"] = page.content_type or "text/html"
    encoding = charset.get_content_charset() or "utf-8"
    try:
        html = page.body.decode(encoding, "replace")
    except LookupError:
        html = page.body.decode("utf-8", "replace")
    links = find_rules_links(html, page.url)
    if not links:
        raise NoRulesLinkError(url)
    return links, None


def _is_immutable(link: CandidateLink) -> bool:
    scheme = urllib.parse.urlsplit(link.url).scheme.lower()
    return scheme in ("http", "https") and link.name_date is not None


def update(
    store: StoreLike,
    url: str | None = None,
    *,
    check_only: bool = False,
    progress: Progress | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = MAX_BYTES,
    total_timeout: float | None = None,
    extra: Callable[[Document, Path], None] | None = None,
) -> UpdateResult:
    """Finds the newest CR edition behind ``url`` and stores it unless it is already stored.

    ``url`` is Wizards' rules page (the default), another page, a direct .txt link or a local
    path. Each candidate's edition is known from the store (an edition records the URL it came
    from), else read from the file's first bytes, else from the whole file; the newest wins. With
    ``check_only`` nothing is downloaded beyond those first bytes and nothing is stored: the result
    is ``newer-available`` when the newest edition offered is newer than every stored one.

    Raises :class:`FetchError` (with the URL) when nothing usable was found; nothing stored is
    changed then. ``extra`` is handed to the store's ``add_document`` (it builds the search index
    inside the new edition before it goes live).
    """
    import hashlib

    from ..reader import CRReadError, read_cr_bytes

    page_url = url or DEFAULT_URL
    links, page = _candidates_from(
        page_url, timeout=timeout, max_bytes=max_bytes, total_timeout=total_timeout
    )
    # Newest name first; names without a readable date last. Only an ordering: see below.
    links = sorted(links, key=lambda link: link.name_date or "", reverse=True)[:MAX_CANDIDATES]
    stored = list(store.editions())
    by_source: dict[str, str] = {}
    for info in stored:
        if info.source:
            try:
                by_source[quote_url(info.source)] = info.edition
            except ValueError:
                continue  # a source recorded by hand that is no address

    errors: list[FetchError] = []
    resolved: list[_Resolved] = []

    def full_download(link: CandidateLink) -> bytes:
        if page is not None:
            return page.body
        return download(
            link.url,
            timeout=timeout,
            max_bytes=max_bytes,
            progress=progress,
            total_timeout=total_timeout,
        )

    def read_document(link: CandidateLink, data: bytes) -> tuple[Document, str]:
        if _looks_like_html(data[:2048], ""):
            raise NotRulesFileError(link.url, "the server sent a web page instead")
        try:
            document = read_cr_bytes(data, link.url)
        except CRReadError as error:
            raise NotRulesFileError(link.url, str(error)) from None
        if document.edition is None:
            raise NotRulesFileError(link.url, "no effective date")
        return document, document.edition

    for link in links:
        # A dated file name on a web server is never reused for another edition, so the store's
        # record of where each edition came from answers without a request. An undated address
        # or a local file may hold new contents under the same name: those are always read.
        known = by_source.get(link.url) if _is_immutable(link) and page is None else None
        if known is not None:
            resolved.append(_Resolved(link, known))
            continue
        try:
            if page is not None:
                head, content_type = page.body[:PEEK_BYTES], page.content_type
            else:
                answer = peek(link.url, PEEK_BYTES, timeout=timeout, total_timeout=total_timeout)
                head, content_type = answer.body, answer.content_type
            if _looks_like_html(head, content_type):
                raise NotRulesFileError(link.url, "the server sent a web page instead")
            sniffed = sniff_edition(head)
            if sniffed is not None:
                resolved.append(_Resolved(link, sniffed))
            else:
                # No date where a CR has it: let the reader judge the whole file.
                data = full_download(link)
                document, edition = read_document(link, data)
                resolved.append(_Resolved(link, edition, data, document))
        except FetchError as error:
            errors.append(error)

    if not resolved:
        raise errors[0]
    resolved.sort(key=lambda item: item.edition, reverse=True)

    def result(status: Status, item: _Resolved, errors: Sequence[FetchError]) -> UpdateResult:
        return UpdateResult(
            status=status,
            edition=item.edition,
            url=item.link.url,
            page_url=page_url,
            warnings=tuple(str(error) for error in errors),
            problems=tuple(errors),
        )

    if check_only:
        best = resolved[0]
        newest = max((info.edition for info in stored), default=None)
        if store.has(best.edition) or (newest is not None and best.edition <= newest):
            return result("up-to-date", best, errors)
        return result("newer-available", best, errors)

    # Newest first; if its download fails, fall back to the next one (with a warning).
    for item in resolved:
        if store.has(item.edition):
            return result("already-stored", item, errors)
        try:
            data = item.data if item.data is not None else full_download(item.link)
            if item.document is not None:
                document, edition = item.document, item.edition
            else:
                document, edition = read_document(item.link, data)
        except FetchError as error:
            errors.append(error)
            continue
        # The date inside the file decides, whatever its name or first bytes said.
        item = dataclasses.replace(item, edition=edition)
        if store.has(edition):
            return result("already-stored", item, errors)
        sha256 = hashlib.sha256(data).hexdigest()
        info = store.add_document(document, item.link.url, sha256, extra=extra)
        return result("added", dataclasses.replace(item, edition=info.edition), errors)
    raise errors[0]
