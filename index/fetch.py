"""Fetching the Comprehensive Rules from Wizards' rules page: find the .txt link, download, store.

Only the standard library talks HTTP here (``urllib.request`` with a verifying TLS context, an
explicit time-out, a ``User-Agent`` and a size cap). Wizards' links are untidy: a literal space in
the file name, ``%20``, ``_`` or nothing between the stem and the date, other stems
(``Comprehensive Rules``, ``MagicComp Rules``, ``MagicCompRulesWOE``), month-first dates and a
9-digit typo. The date in a file name is therefore only used to *order* the candidates; which
edition a file is, and whether it is already stored, is read from the file itself ("These rules
are effective as of …"): first from its opening bytes (a ranged request of a few KiB), and in the
end from the full text, which must parse as a CR before anything is stored.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import http.client
import re
import socket
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from email.message import Message
from html.parser import HTMLParser
from pathlib import Path
from typing import IO, TYPE_CHECKING, Literal, NoReturn, Protocol

if TYPE_CHECKING:
    from .model import Document

__all__ = [
    "DEFAULT_TIMEOUT",
    "DEFAULT_URL",
    "MAX_BYTES",
    "BadURLError",
    "CandidateLink",
    "DownloadTimeoutError",
    "FetchError",
    "HTTPStatusError",
    "NoRulesLinkError",
    "NotRulesFileError",
    "RedirectError",
    "StoreLike",
    "TooLargeError",
    "TruncatedDownloadError",
    "UnreachableError",
    "UpdateResult",
    "download",
    "find_rules_links",
    "parse_name_date",
    "quote_url",
    "sniff_edition",
    "update",
]

DEFAULT_URL = "https://magic.wizards.com/en/rules"
"""Wizards' rules page, which links the current Comprehensive Rules in several formats."""
DEFAULT_TIMEOUT = 30.0
"""Seconds to wait for a connection or for the next bytes of an answer."""
DEFAULT_TOTAL_TIMEOUT = 300.0
"""Seconds a whole download may take, so a server trickling bytes cannot hold us forever."""
MAX_BYTES = 16 * 1024 * 1024
"""The largest answer read (a CR is about 1 MiB; UTF-16 doubles it)."""
MAX_REDIRECTS = 5
"""Redirects followed for one request."""
MAX_CANDIDATES = 8
"""At most this many .txt links from one page are looked at."""
PEEK_BYTES = 16 * 1024
"""How much of a file is read to find its effective date without downloading all of it."""

_CHUNK = 64 * 1024
_NEXT_STEP = f"find the .txt link on {DEFAULT_URL} and pass it with --url"

Progress = Callable[[int, "int | None"], None]
"""Called as ``progress(bytes_read, total_or_None)`` while a download runs."""


# --- exceptions -------------------------------------------------------------------------------


class FetchError(Exception):
    """Raised when the rules cannot be fetched; the message names the URL and the next step."""

    def __init__(self, url: str, message: str) -> None:
        self.url = url
        super().__init__(message)


class UnreachableError(FetchError):
    """Raised when the server cannot be reached at all (offline, DNS, refused, TLS)."""

    def __init__(self, url: str, reason: str) -> None:
        self.reason = reason
        super().__init__(
            url,
            f"could not reach {url} ({reason}). The stored editions still work; try again when"
            " online, or pass --url with a file you downloaded (a path or a file:// URL).",
        )


class DownloadTimeoutError(UnreachableError):
    """Raised when the server takes longer than the time-out to answer."""


class HTTPStatusError(FetchError):
    """Raised when the server answers with an error status such as 404."""

    def __init__(self, url: str, status: int, reason: str) -> None:
        self.status = status
        step = "the server has a problem; try again later" if status >= 500 else _NEXT_STEP
        super().__init__(url, f"{url} answered {status} {reason}; {step}.")


class RedirectError(FetchError):
    """Raised on a redirect loop, too many redirects, or a redirect to a refused scheme."""


class TooLargeError(FetchError):
    """Raised when an answer is larger than the size cap."""


class TruncatedDownloadError(FetchError):
    """Raised when the connection ends before the whole answer arrived."""


class NotRulesFileError(FetchError):
    """Raised when a download is not a Comprehensive Rules text file (a web page, a PDF …)."""


class NoRulesLinkError(FetchError):
    """Raised when a page links no Comprehensive Rules .txt file."""


class BadURLError(FetchError):
    """Raised for an address urllib cannot open (unknown scheme, malformed)."""


# --- link discovery ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class CandidateLink:
    """A link that looks like a Comprehensive Rules .txt file."""

    url: str
    """The absolute URL, with spaces and other unsafe characters percent-encoded."""
    name: str
    """The file name as written (percent-decoded), e.g. ``MagicCompRules 20250207.txt``."""
    name_date: str | None
    """The ISO date read from the file name, or ``None``; only used to order candidates."""


# The stems seen in the wild, once spaces, underscores and dashes are removed and case folded:
# MagicCompRules, Comprehensive Rules, MagicComp Rules, MagicCompRulesWOE,
# MagicCompRules_CN2_Update.
_STEM_RE = re.compile(r"(?:magic|mtg)?comp(?:rehensive)?rules[a-z0-9]*")
_SEPARATORS_RE = re.compile(r"[\s_\-.+]+")
_TRAILING_DIGITS_RE = re.compile(r"(\d+)\s*$")
# Links inside scripts may hold a literal space, as Wizards' file names do; never a line break.
_TXT_URL_IN_TEXT_RE = re.compile(r"""https?:(?://|\\/\\/)[^\r\n"'<>]+?\.txt\b""", re.IGNORECASE)


def _file_name(url: str) -> str:
    path = urllib.parse.urlsplit(url).path
    return urllib.parse.unquote(path.rsplit("/", 1)[-1])


def _is_rules_txt_name(name: str) -> bool:
    if not name.lower().endswith(".txt"):
        return False
    compact = _SEPARATORS_RE.sub("", name[: -len(".txt")]).lower()
    return _STEM_RE.fullmatch(compact) is not None


def _iso(year: int, month: int, day: int) -> str | None:
    if not 1993 <= year <= 2100:
        return None
    try:
        return dt.date(year, month, day).isoformat()
    except ValueError:
        return None


def _eight_digit_date(digits: str) -> str | None:
    # Year first (20250207) is the rule; month first (04102024) has been seen once.
    return _iso(int(digits[:4]), int(digits[4:6]), int(digits[6:])) or _iso(
        int(digits[4:]), int(digits[:2]), int(digits[2:4])
    )


def _six_digit_date(digits: str) -> str | None:
    # 2007-era names: 070713 (year first) and 031503 (month first).
    first, middle, last = int(digits[:2]), int(digits[2:4]), int(digits[4:])

    def century(two: int) -> int:
        return 1900 + two if two >= 90 else 2000 + two

    return _iso(century(first), middle, last) or _iso(century(last), first, middle)


def parse_name_date(digits: str) -> str | None:
    """Reads a date from the digits of a file name, leniently; ``None`` when it cannot."""
    if len(digits) == 8:
        return _eight_digit_date(digits)
    if len(digits) == 6:
        return _six_digit_date(digits)
    if len(digits) == 9:
        # A typo'd extra digit (202109224): prefer dropping one of a doubled digit, the usual slip.
        doubled = [i for i in range(1, 9) if digits[i] == digits[i - 1]]
        for i in doubled:
            date = _eight_digit_date(digits[:i] + digits[i + 1 :])
            if date is not None:
                return date
        found = {_eight_digit_date(digits[:i] + digits[i + 1 :]) for i in range(9)} - {None}
        if len(found) == 1:
            return found.pop()
    return None


def _name_date(name: str) -> str | None:
    match = _TRAILING_DIGITS_RE.search(
        name[: -len(".txt")] if name.lower().endswith(".txt") else name
    )
    return parse_name_date(match.group(1)) if match else None


def quote_url(url: str) -> str:
    """Percent-encodes spaces and other unsafe characters, leaving existing escapes alone."""
    parts = urllib.parse.urlsplit(url.strip())
    path = urllib.parse.quote(parts.path, safe="/%:@!$&'()*+,;=~")
    query = urllib.parse.quote(parts.query, safe="/%:@!$&'()*+,;=~?")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, query, ""))


class _LinkParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []
        self.base: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key == "href" and value:
                if tag == "base" and self.base is None:
                    self.base = value.strip()
                else:
                    self.hrefs.append(value.strip())


def find_rules_links(html: str, base_url: str) -> list[CandidateLink]:
    """Finds the Comprehensive Rules .txt links on a page, in page order, without duplicates."""
    parser = _LinkParser()
    parser.feed(html)
    parser.close()
    hrefs = parser.hrefs
    if not any(_is_rules_txt_name(_file_name(h)) for h in hrefs):
        # Some pages carry their links only inside scripts (JSON, with escaped slashes).
        hrefs = [m.group(0).replace("\\/", "/") for m in _TXT_URL_IN_TEXT_RE.finditer(html)]
    base = urllib.parse.urljoin(base_url, parser.base) if parser.base else base_url
    links: list[CandidateLink] = []
    seen: set[str] = set()
    for href in hrefs:
        absolute = urllib.parse.urljoin(base, href)
        if urllib.parse.urlsplit(absolute).scheme.lower() not in ("http", "https"):
            continue
        name = _file_name(absolute)
        if not _is_rules_txt_name(name):
            continue
        url = quote_url(absolute)
        if url in seen:
            continue
        seen.add(url)
        links.append(CandidateLink(url=url, name=name, name_date=_name_date(name)))
    return links


# --- the effective date in the first bytes ----------------------------------------------------

_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_EFFECTIVE_RE = re.compile(
    r"(?:effective|current)\s+as\s+of\s+([A-Za-z]+)\.?\s+(\d{1,2}),?\s+(\d{4})", re.IGNORECASE
)


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
    match = _EFFECTIVE_RE.search(_decode_head(head))
    if match is None:
        return None
    month = _MONTHS.get(match.group(1).lower())
    if month is None:
        return None
    return _iso(int(match.group(3)), month, int(match.group(2)))


def _looks_like_html(head: bytes, content_type: str) -> bool:
    # A rules file never starts with markup; a page always does (doctype, comment or tag).
    if _decode_head(head[:2048]).lstrip("\ufeff \t\r\n").startswith("<"):
        return True
    # The header alone is not trusted: a misconfigured server may label the rules text/html.
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind in ("text/html", "application/xhtml+xml") and sniff_edition(head) is None


# --- HTTP -------------------------------------------------------------------------------------


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


class _LimitedRedirects(urllib.request.HTTPRedirectHandler):
    """Follows at most MAX_REDIRECTS redirects, and only to http(s), never https → http."""

    max_redirections = MAX_REDIRECTS
    max_repeats = 2

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: http.client.HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        old_scheme = urllib.parse.urlsplit(req.full_url).scheme.lower()
        new_scheme = urllib.parse.urlsplit(newurl).scheme.lower()
        if new_scheme not in ("http", "https") or (old_scheme == "https" and new_scheme == "http"):
            raise RedirectError(
                req.full_url,
                f"{req.full_url} redirects to {newurl}, which is not followed (only https, or"
                f" http from http); {_NEXT_STEP}.",
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


@dataclasses.dataclass
class _Answer:
    url: str
    """The URL finally answered, after redirects."""
    body: bytes
    content_type: str


def _local_path_url(url: str) -> str | None:
    """A plain path to an existing file, as a file:// URL (``--url ~/Downloads/cr.txt``)."""
    if urllib.parse.urlsplit(url).scheme.lower() in ("http", "https", "file"):
        return None
    path = Path(url).expanduser()
    return path.resolve().as_uri() if path.is_file() else None


def _reason(error: BaseException) -> str:
    if isinstance(error, ssl.SSLCertVerificationError):
        return f"TLS certificate not verified: {error.verify_message}"
    if isinstance(error, socket.gaierror):
        return "name not resolved; are you offline?"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    text = getattr(error, "strerror", None) or str(error) or type(error).__name__
    return str(text)


def _fetch(
    url: str,
    *,
    timeout: float,
    max_bytes: int,
    total_timeout: float | None = None,
    progress: Progress | None = None,
    partial: bool = False,
) -> _Answer:
    """GETs ``url``; with ``partial`` reads only the first ``max_bytes`` (a ranged request)."""
    url = _local_path_url(url) or quote_url(url)
    scheme = urllib.parse.urlsplit(url).scheme.lower()
    if scheme not in ("http", "https", "file"):
        raise BadURLError(
            url,
            f"cannot fetch {url!r}: it is neither an http(s):// address nor an existing file;"
            f" check it, or leave out --url to use {DEFAULT_URL}.",
        )
    request = urllib.request.Request(url, headers={"User-Agent": _user_agent()})
    if partial and scheme != "file":
        request.add_header("Range", f"bytes=0-{max_bytes - 1}")
    opener = urllib.request.build_opener(
        urllib.request.HTTPSHandler(context=_tls_context()), _LimitedRedirects()
    )
    deadline = time.monotonic() + (total_timeout or DEFAULT_TOTAL_TIMEOUT)

    def timed_out() -> NoReturn:
        raise DownloadTimeoutError(url, f"timed out after {timeout:g} s")

    try:
        with opener.open(request, timeout=timeout) as response:
            length_header = response.headers.get("Content-Length")
            length = int(length_header) if length_header and length_header.isdigit() else None
            if response.status == 206:
                length = None  # the length of the range, not of the file
            if length is not None and length > max_bytes and not partial:
                raise TooLargeError(
                    url,
                    f"{url} is {length} bytes, more than the {max_bytes} a rules file can be;"
                    f" {_NEXT_STEP}.",
                )
            # read1 returns what has arrived instead of waiting for a full chunk, so a server
            # trickling bytes still meets the deadline check below.
            read_some = getattr(response, "read1", response.read)
            chunks: list[bytes] = []
            read = 0
            while True:
                if time.monotonic() > deadline:
                    limit = total_timeout or DEFAULT_TOTAL_TIMEOUT
                    raise DownloadTimeoutError(url, f"the download took longer than {limit:g} s")
                chunk = read_some(min(_CHUNK, max_bytes + 1 - read))
                if not chunk:
                    break
                chunks.append(chunk)
                read += len(chunk)
                if progress is not None:
                    progress(read, length)
                if read >= max_bytes:
                    if partial:
                        break
                    if read > max_bytes:
                        raise TooLargeError(
                            url,
                            f"{url} is larger than the {max_bytes} bytes a rules file can be;"
                            f" {_NEXT_STEP}.",
                        )
            if length is not None and read < length and not partial:
                raise TruncatedDownloadError(
                    url,
                    f"the download of {url} stopped after {read} of {length} bytes; try again.",
                )
            return _Answer(
                url=response.geturl(),
                body=b"".join(chunks),
                content_type=response.headers.get("Content-Type", "") or "",
            )
    except FetchError:
        raise
    except urllib.error.HTTPError as error:
        if 300 <= error.code < 400:
            first = str(error.reason).splitlines()[0]
            what = "too many times" if "loop" in first else f"in a way not followed ({first})"
            raise RedirectError(url, f"{url} redirects {what}; {_NEXT_STEP}.") from None
        raise HTTPStatusError(url, error.code, str(error.reason)) from None
    except urllib.error.URLError as error:
        if isinstance(error.reason, TimeoutError):
            timed_out()
        reason = error.reason
        text = _reason(reason) if isinstance(reason, BaseException) else str(reason)
        raise UnreachableError(url, text) from None
    except TimeoutError:
        timed_out()
    except http.client.IncompleteRead as error:
        raise TruncatedDownloadError(
            url, f"the download of {url} stopped after {len(error.partial)} bytes; try again."
        ) from None
    except (http.client.HTTPException, ConnectionError) as error:
        raise UnreachableError(url, _reason(error)) from None
    except OSError as error:
        # file:// paths that vanish, sockets that fail mid-read
        raise UnreachableError(url, _reason(error)) from None
    except ValueError as error:
        raise BadURLError(url, f"cannot fetch {url!r} ({error}).") from None


def download(
    url: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = MAX_BYTES,
    progress: Progress | None = None,
    total_timeout: float | None = None,
) -> bytes:
    """Downloads ``url`` whole (at most ``max_bytes``), raising a :class:`FetchError` on failure."""
    return _fetch(
        url, timeout=timeout, max_bytes=max_bytes, total_timeout=total_timeout, progress=progress
    ).body


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
) -> tuple[list[CandidateLink], _Answer | None]:
    """The rules links ``url`` leads to, or the file itself when ``url`` is a rules file."""
    address = _local_path_url(url) or quote_url(url)
    name = _file_name(address)
    if name.lower().endswith(".txt"):
        return [CandidateLink(url=address, name=name, name_date=_name_date(name))], None
    page = _fetch(address, timeout=timeout, max_bytes=max_bytes, total_timeout=total_timeout)
    if not _looks_like_html(page.body, page.content_type):
        # An address without .txt that serves the rules file itself.
        name = _file_name(page.url)
        return [CandidateLink(url=address, name=name, name_date=_name_date(name))], page
    charset = Message()
    charset["Content-Type"] = page.content_type or "text/html"
    encoding = charset.get_content_charset() or "utf-8"
    try:
        html = page.body.decode(encoding, "replace")
    except LookupError:
        html = page.body.decode("utf-8", "replace")
    links = find_rules_links(html, page.url)
    if not links:
        raise NoRulesLinkError(
            url,
            f"no Comprehensive Rules .txt link found on {url}; {_NEXT_STEP}"
            " (or download the file and pass its path with --url).",
        )
    return links, None


def _is_immutable(link: CandidateLink) -> bool:
    scheme = urllib.parse.urlsplit(link.url).scheme.lower()
    return scheme in ("http", "https") and link.name_date is not None


def _not_rules(url: str, what: str) -> NotRulesFileError:
    return NotRulesFileError(
        url, f"{url} is not a Comprehensive Rules text file ({what}); {_NEXT_STEP}."
    )


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

    Raises :class:`FetchError` (with the URL and the next step) when nothing usable was found;
    nothing stored is changed then. ``extra`` is handed to the store's ``add_document`` (it builds
    the search index inside the new edition before it goes live).
    """
    import hashlib

    from .reader import CRReadError, read_cr_bytes

    page_url = url or DEFAULT_URL
    links, page = _candidates_from(
        page_url, timeout=timeout, max_bytes=max_bytes, total_timeout=total_timeout
    )
    # Newest name first; names without a readable date last. Only an ordering: see below.
    links = sorted(links, key=lambda link: link.name_date or "", reverse=True)[:MAX_CANDIDATES]
    stored = list(store.editions())
    by_source = {quote_url(info.source): info.edition for info in stored if info.source}

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
            raise _not_rules(link.url, "the server sent a web page instead")
        try:
            document = read_cr_bytes(data, link.url)
        except CRReadError as error:
            raise _not_rules(link.url, str(error)) from None
        if document.edition is None:
            raise _not_rules(link.url, "no effective date")
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
                head = page.body[:PEEK_BYTES]
                content_type = page.content_type
            else:
                answer = _fetch(
                    link.url,
                    timeout=timeout,
                    max_bytes=PEEK_BYTES,
                    total_timeout=total_timeout,
                    partial=True,
                )
                head, content_type = answer.body, answer.content_type
            if _looks_like_html(head, content_type):
                raise _not_rules(link.url, "the server sent a web page instead")
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
