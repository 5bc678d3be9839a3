"""Keeping the tournament documents current: the MTR, IPG and JAR from Wizards Play Network.

Wizards' rules-documents page links each document as a PDF whose name carries its date
(``MTG_MTR_2026_Feb27_EN.pdf``, ``mtg_ipg_2024apr15_en.pdf``, ``mtg_jar_25sep20_en.pdf``, even
``MTG_MTR_2025_Apr 21_EN.pdf`` with a space), in ``href`` attributes or only inside the page's
scripts as JSON (``"https:\\u002F\\u002Fmedia.wizards.com\\u002F…"``). Links are found in
both, leniently: which document a link is comes from its file name (``mtr``, ``ipg``, ``jar``,
``digital``), and links to other languages' copies are left alone.

The policy is the CR update's (:mod:`index.fetch.update`), with the same safety: time-outs and
a size cap on every request (:mod:`index.fetch.http`), each PDF read whole before anything is
stored, stored atomically (:class:`~index.tournament.store.DocumentStore`), nothing changed on
failure. A document is not downloaded again when the store has it already: the link it came
from is recorded, and a PDF whose name carries a date the store holds is that edition (a PDF's
opening bytes, unlike a text file's, do not say its date). A link whose name has no date is
downloaded and read to know which edition it is. The date inside the file decides, as for
the CR: a file named for one date and effective another is stored under the date it prints.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import urllib.parse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from ..dates import find_name_date
from .errors import FetchError, printable
from .http import DEFAULT_TIMEOUT, Answer, Progress, get
from .links import _join, _LinkParser
from .urls import check_url, file_name, quote_url

if TYPE_CHECKING:
    from ..tournament.model import TournamentDocument
    from ..tournament.store import DocumentStore

__all__ = [
    "DEFAULT_DOCUMENTS_URL",
    "DOCUMENT_KINDS",
    "MAX_DOCUMENT_BYTES",
    "DocumentLink",
    "DocumentUpdate",
    "DocumentsUpdate",
    "NoDocumentLinkError",
    "NotDocumentFileError",
    "document_kind_of_name",
    "find_document_links",
    "update_documents",
]

DEFAULT_DOCUMENTS_URL = "https://wpn.wizards.com/en/rules-documents"
"""Wizards Play Network's rules-documents page, which links the current MTR, IPG and JAR."""
DOCUMENT_KINDS = ("mtr", "ipg", "jar")
"""The documents the update looks for unless told otherwise."""
MAX_DOCUMENT_BYTES = 32 * 1024 * 1024
"""The size cap of one PDF (the MTR is about half a megabyte)."""
MAX_PAGE_BYTES = 8 * 1024 * 1024
"""The size cap of the page that links them."""
MAX_CANDIDATES = 4
"""At most this many links of one document are tried, newest name first."""

_LABELS = {"mtr": "MTR", "ipg": "IPG", "jar": "JAR", "dmtr": "Digital MTR", "dipg": "Digital IPG"}


class NotDocumentFileError(FetchError):
    """Raised when a download is not the tournament document it was linked as."""

    def __init__(self, url: str, reason: str) -> None:
        self.reason = reason
        super().__init__(url, f"{url} is not a tournament document PDF ({reason}).")


class NoDocumentLinkError(FetchError):
    """Raised when a page links no PDF of a document (``kind``), or none at all (``None``)."""

    def __init__(self, url: str, kind: str | None = None) -> None:
        self.kind = kind
        self.what = f"{_LABELS.get(kind, kind)} PDF" if kind else "MTR, IPG or JAR PDF"
        """What was looked for: ``IPG PDF``."""
        super().__init__(url, f"no {self.what} link found on {printable(url)}.")


# --- links ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class DocumentLink:
    """A link that looks like one of the tournament documents' PDFs."""

    url: str
    """The absolute URL, percent-encoded."""
    name: str
    """The file name as written (percent-decoded): ``MTG_IPG_2024Sep23_EN.pdf``."""
    kind: str | None
    """``mtr``, ``ipg``, ``jar``, ``dmtr`` or ``dipg``; ``None`` for a direct link whose name
    does not say (the file is read to know)."""
    name_date: str | None
    """The ISO date in the file name, or ``None``."""


_TOKEN_RE = re.compile(r"[a-z]+|\d+")
# Copies in other languages carry their code where the English ones carry "en".
_OTHER_LANGUAGES = frozenset(
    ("fr", "de", "it", "es", "pt", "br", "ja", "jp", "ko", "kr", "ru", "zh", "cn", "tw", "pl")
)
_PDF_URL_IN_TEXT_RE = re.compile(r"""https?:(?://|\\/\\/)[^\r\n"'<>\\]+?\.pdf\b""", re.I)


def document_kind_of_name(name: str) -> str | None:
    """Which document a PDF's file name says it is; ``None`` for any other file.

    >>> document_kind_of_name("MTG_MTR_2025_Apr 21_EN.pdf")
    'mtr'
    """
    if not name.lower().endswith(".pdf"):
        return None
    words = _TOKEN_RE.findall(name[: -len(".pdf")].lower())
    if any(w in _OTHER_LANGUAGES for w in words):
        return None
    joined = " ".join(words)
    digital = "digital" in words or "mtgo" in words or "arena" in words
    if "ipg" in words or "infraction procedure" in joined:
        return "dipg" if digital else "ipg"
    if "mtr" in words or "tournament rules" in joined:
        return "dmtr" if digital else "mtr"
    if "jar" in words or "regular rel" in joined or "regular rules enforcement" in joined:
        return None if digital else "jar"
    return None


def _unescape_json(html: str) -> str:
    # Links inside scripts: "https:\/\/…" or "https:\u002F\u002F…".
    return html.replace("\\u002F", "/").replace("\\u002f", "/").replace("\\/", "/")


def find_document_links(html: str, base_url: str) -> list[DocumentLink]:
    """The tournament documents' PDF links on a page, in page order, without duplicates."""
    parser = _LinkParser()
    parser.feed(html)
    parser.close()
    base = (_join(base_url, parser.base) or base_url) if parser.base else base_url
    hrefs = [
        *parser.hrefs,
        *(m.group(0) for m in _PDF_URL_IN_TEXT_RE.finditer(_unescape_json(html))),
    ]
    links: list[DocumentLink] = []
    seen: set[str] = set()
    for href in hrefs:
        absolute = _join(base, _unescape_json(href))
        if absolute is None:
            continue
        try:
            if urllib.parse.urlsplit(absolute).scheme.lower() not in ("http", "https"):
                continue
            url = quote_url(absolute)
            name = file_name(url)
        except ValueError:
            continue
        kind = document_kind_of_name(name)
        if kind is None or url in seen:
            continue
        seen.add(url)
        links.append(DocumentLink(url, name, kind, find_name_date(name)))
    return links


# --- the update -------------------------------------------------------------------------------

Status = Literal["added", "already-stored", "newer-available", "up-to-date", "failed"]


@dataclasses.dataclass(frozen=True)
class DocumentUpdate:
    """What the update did or found for one document."""

    document: str | None
    """``mtr``, ``ipg`` …; ``None`` when a direct link whose name does not say failed."""
    status: Status
    """``added``, ``already-stored``; with ``check_only``: ``newer-available``, ``up-to-date``;
    ``failed`` when no link of it could be used (see :attr:`error`)."""
    edition: str | None
    """The effective date of the newest edition offered (``None`` when it failed)."""
    url: str | None
    """The PDF that edition comes from (for ``failed``: the address that failed)."""
    problems: tuple[FetchError, ...] = ()
    """Links of this document that could not be used, though another could."""
    error: FetchError | None = None
    """Why it failed."""

    def to_json(self) -> dict[str, Any]:
        """One record of ``judge update --docs --json``: the CR update's keys and ``document``."""
        return {
            "document": self.document,
            "status": self.status,
            "edition": self.edition,
            "url": self.url,
        }


@dataclasses.dataclass(frozen=True)
class DocumentsUpdate:
    """What :func:`update_documents` did, document by document."""

    page_url: str
    documents: tuple[DocumentUpdate, ...]

    @property
    def failed(self) -> list[DocumentUpdate]:
        return [d for d in self.documents if d.status == "failed"]


def _for_documents(error: FetchError) -> FetchError:
    error.purpose = "documents"
    return error


@dataclasses.dataclass(frozen=True)
class _Limits:
    timeout: float
    total_timeout: float | None
    max_bytes: int
    progress: Progress | None


def _links_from(url: str, limits: _Limits) -> tuple[list[DocumentLink], dict[str, bytes], bool]:
    """The document links ``url`` leads to, the bytes already read (by link URL), and whether
    ``url`` is a document itself rather than a page."""
    address = check_url(url)
    name = file_name(address)
    if name.lower().endswith(".pdf"):
        link = DocumentLink(address, name, document_kind_of_name(name), find_name_date(name))
        return [link], {}, True
    page = get(
        address,
        timeout=limits.timeout,
        total_timeout=limits.total_timeout,
        max_bytes=max(limits.max_bytes, MAX_PAGE_BYTES),
    )
    from ..tournament.pdf import is_pdf

    if is_pdf(page.body):  # an address without .pdf that serves the document itself
        served = file_name(page.url)
        link = DocumentLink(address, served, document_kind_of_name(served), find_name_date(served))
        return [link], {address: page.body}, True
    links = find_document_links(_decode_page(page), page.url)
    if not links:
        raise NoDocumentLinkError(url)
    return links, {}, False


def _decode_page(page: Answer) -> str:
    from email.message import Message

    header = Message()
    header["Content-Type"] = page.content_type or "text/html"
    try:
        return page.body.decode(header.get_content_charset() or "utf-8", "replace")
    except LookupError:
        return page.body.decode("utf-8", "replace")


def _read(link: DocumentLink, data: bytes, wanted: str | None) -> TournamentDocument:
    """The document a download holds, read whole; raises :class:`NotDocumentFileError`."""
    from ..tournament.kinds import LABELS
    from ..tournament.model import DocumentReadError
    from ..tournament.pdf import is_pdf
    from ..tournament.reader import read_document_bytes
    from .update import _looks_like_html

    if not is_pdf(data) and _looks_like_html(data[:2048], ""):
        raise NotDocumentFileError(link.url, "the server sent a web page instead")
    try:
        doc = read_document_bytes(data, link.url)
    except DocumentReadError as exc:
        raise NotDocumentFileError(link.url, exc.reason) from None
    if wanted is not None and doc.kind != wanted:
        raise NotDocumentFileError(
            link.url, f"it is the {LABELS[doc.kind]} {doc.edition}, not the {LABELS[wanted]}"
        )
    return doc


def _is_immutable(link: DocumentLink) -> bool:
    # As for the CR: a dated file name on a web server is never reused for another edition; an
    # undated address or a local file may hold new contents under the same name.
    scheme = urllib.parse.urlsplit(link.url).scheme.lower()
    return scheme in ("http", "https") and link.name_date is not None


def _status(check_only: bool, stored: list[str], edition: str, is_stored: bool) -> Status:
    if not check_only:
        return "already-stored"
    newer = not is_stored and (not stored or edition > stored[-1])
    return "newer-available" if newer else "up-to-date"


def _update_one(
    documents: DocumentStore,
    kind: str | None,
    links: Sequence[DocumentLink],
    read_already: dict[str, bytes],
    *,
    check_only: bool,
    limits: _Limits,
) -> DocumentUpdate:
    """Stores the newest edition of one document that ``links`` offer, unless it is stored."""
    errors: list[FetchError] = []
    by_source = {
        (info.document, info.source): info.edition for info in documents.editions() if info.source
    }
    ordered = sorted(links, key=lambda link: link.name_date or "", reverse=True)
    for link in ordered[:MAX_CANDIDATES]:
        stored = documents.dates(kind) if kind else []
        if kind is not None and _is_immutable(link) and link.url not in read_already:
            # Known without a request: stored from this very link, or its name's date is stored.
            known = by_source.get((kind, link.url))
            if known is None and link.name_date in stored:
                known = link.name_date
            if known is not None:
                return DocumentUpdate(
                    kind, _status(check_only, stored, known, True), known, link.url, tuple(errors)
                )
            if check_only:
                assert link.name_date is not None
                status = _status(check_only, stored, link.name_date, False)
                return DocumentUpdate(kind, status, link.name_date, link.url, tuple(errors))
        try:
            data = read_already.get(link.url)
            if data is None:
                data = get(
                    link.url,
                    timeout=limits.timeout,
                    total_timeout=limits.total_timeout,
                    max_bytes=limits.max_bytes,
                    progress=limits.progress,
                ).body
            doc = _read(link, data, kind)
        except FetchError as error:
            errors.append(_for_documents(error))
            continue
        # The date inside the file decides, whatever its name said.
        stored = documents.dates(doc.kind)
        if doc.edition in stored or check_only:
            status = _status(check_only, stored, doc.edition, doc.edition in stored)
            return DocumentUpdate(doc.kind, status, doc.edition, link.url, tuple(errors))
        documents.add(doc, link.url, hashlib.sha256(data).hexdigest())
        return DocumentUpdate(doc.kind, "added", doc.edition, link.url, tuple(errors))
    first = errors[0] if errors else _for_documents(NoDocumentLinkError("", kind))
    return DocumentUpdate(kind, "failed", None, first.url, tuple(errors[1:]), first)


def update_documents(
    documents: DocumentStore,
    url: str | None = None,
    *,
    kinds: Sequence[str] = DOCUMENT_KINDS,
    check_only: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
    total_timeout: float | None = None,
    max_bytes: int = MAX_DOCUMENT_BYTES,
    progress: Progress | None = None,
) -> DocumentsUpdate:
    """Finds the newest edition of each of ``kinds`` behind ``url`` and stores those not stored.

    ``url`` is Wizards Play Network's rules-documents page (the default), another page, or a
    direct link to (or path of) one PDF, which is then stored whatever document it is. With
    ``check_only`` nothing is stored: a document is ``newer-available`` when the newest
    edition offered is newer than every stored one (known from its file name's date when it
    has one; otherwise the file is downloaded and read, and not kept).

    Each document succeeds or fails on its own: a failure (``status`` ``failed``, with the
    error) changes nothing stored. Raises :class:`FetchError` when the page itself cannot be
    read or links none of the documents; every error it raises or reports has ``purpose`` set
    to ``documents``.
    """
    page_url = url or DEFAULT_DOCUMENTS_URL
    limits = _Limits(timeout, total_timeout, max_bytes, progress)
    try:
        links, read_already, direct = _links_from(page_url, limits)
    except FetchError as error:
        raise _for_documents(error) from None
    if direct:
        kind = links[0].kind
        one = _update_one(
            documents, kind, links, read_already, check_only=check_only, limits=limits
        )
        if one.error is not None:
            raise one.error
        return DocumentsUpdate(page_url, (one,))
    results = []
    for kind in kinds:
        mine = [link for link in links if link.kind == kind]
        if not mine:
            missing = _for_documents(NoDocumentLinkError(page_url, kind))
            results.append(DocumentUpdate(kind, "failed", None, page_url, (), missing))
            continue
        results.append(
            _update_one(documents, kind, mine, read_already, check_only=check_only, limits=limits)
        )
    if all(r.status == "failed" and isinstance(r.error, NoDocumentLinkError) for r in results):
        raise _for_documents(NoDocumentLinkError(page_url))
    return DocumentsUpdate(page_url, tuple(results))
