"""Fetching over the network, and the Comprehensive Rules update built on it.

* :mod:`index.fetch.http`: every byte that crosses the network (caps, time-outs, redirects, TLS,
  streaming downloads with a sha256 check). The card, tournament-document and model downloads
  use it too; :mod:`index.fetch.errors` holds its exceptions, :mod:`index.fetch.urls` checks
  addresses before any request, :mod:`index.fetch.opener` is the urllib machinery.
* :mod:`index.fetch.links`: finding the rules .txt links on Wizards' page.
* :mod:`index.fetch.update`: which link is the newest edition, and storing it.
* :mod:`index.fetch.documents`: the same for the tournament documents (MTR, IPG, JAR) from
  Wizards Play Network's rules-documents page.

The names importable from ``index.fetch`` before it was split are re-exported here.
"""

from __future__ import annotations

from ..dates import parse_name_date
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
from .http import (
    DEFAULT_TIMEOUT,
    DEFAULT_TOTAL_TIMEOUT,
    MAX_BYTES,
    MAX_REDIRECTS,
    Answer,
    Downloaded,
    Progress,
    download,
    download_to,
    get,
    peek,
)
from .links import CandidateLink, find_rules_links
from .update import (
    DEFAULT_URL,
    MAX_CANDIDATES,
    PEEK_BYTES,
    NoRulesLinkError,
    NotRulesFileError,
    Status,
    StoreLike,
    UpdateResult,
    sniff_edition,
    update,
)
from .urls import NOT_AN_ADDRESS, check_url, file_name, quote_url

__all__ = [
    "DEFAULT_TIMEOUT",
    "DEFAULT_TOTAL_TIMEOUT",
    "DEFAULT_URL",
    "MAX_BYTES",
    "MAX_CANDIDATES",
    "MAX_REDIRECTS",
    "NOT_AN_ADDRESS",
    "PEEK_BYTES",
    "Answer",
    "BadURLError",
    "CandidateLink",
    "DownloadTimeoutError",
    "Downloaded",
    "FetchError",
    "HTTPStatusError",
    "HashMismatchError",
    "NoRulesLinkError",
    "NotRulesFileError",
    "Progress",
    "RedirectError",
    "Status",
    "StoreLike",
    "TooLargeError",
    "TruncatedDownloadError",
    "UnreachableError",
    "UpdateResult",
    "check_url",
    "download",
    "download_to",
    "file_name",
    "find_rules_links",
    "get",
    "parse_name_date",
    "peek",
    "printable",
    "quote_url",
    "sniff_edition",
    "update",
]
