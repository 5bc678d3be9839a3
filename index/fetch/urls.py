"""Addresses: percent-encoding them, naming their file, and refusing what cannot be fetched.

:func:`check_url` runs before any request, so a malformed address (unbalanced brackets, a port
out of range, a space in the host, credentials, a host name IDNA cannot encode, another scheme)
is a :class:`~index.fetch.errors.BadURLError` saying why, never a traceback from deep in urllib.
"""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

from .errors import BadURLError, printable

__all__ = ["NOT_AN_ADDRESS", "check_url", "file_name", "quote_url"]

NOT_AN_ADDRESS = "it is neither an http(s):// address nor an existing file"
"""The :attr:`~index.fetch.errors.BadURLError.reason` of another scheme, or a missing file."""

_SCHEMES = ("http", "https", "file")


def quote_url(url: str) -> str:
    """Percent-encodes spaces and other unsafe characters, leaving existing escapes alone.

    Raises :class:`ValueError` for what :func:`urllib.parse.urlsplit` cannot split.
    """
    parts = urllib.parse.urlsplit(url.strip())
    path = urllib.parse.quote(parts.path, safe="/%:@!$&'()*+,;=~")
    query = urllib.parse.quote(parts.query, safe="/%:@!$&'()*+,;=~?")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, query, ""))


def file_name(url: str) -> str:
    """The last part of the address's path, percent-decoded (``MagicCompRules 20250207.txt``)."""
    path = urllib.parse.urlsplit(url).path
    return urllib.parse.unquote(path.rsplit("/", 1)[-1])


def _local_path_url(url: str) -> str | None:
    """A plain path to an existing file, as a file:// URL (``~/Downloads/cr.txt``)."""
    try:
        if urllib.parse.urlsplit(url).scheme.lower() in _SCHEMES:
            return None
        path = Path(url).expanduser()
        return path.resolve().as_uri() if path.is_file() else None
    except (OSError, ValueError, RuntimeError):  # NUL bytes, names too long, odd home folders
        return None


_PORT_RE = re.compile(r":([^:\]]*)$")


def check_url(url: str) -> str:
    """The address to request for ``url``, percent-encoded; a path to a file becomes file://.

    Raises :class:`BadURLError` (with the reason) for anything that cannot be requested: another
    scheme, a missing file, no host, a bad port, spaces or control characters in the host,
    credentials, a host name IDNA cannot encode, unbalanced brackets.
    """
    local = _local_path_url(url)
    if local is not None:
        return local
    try:
        address = quote_url(url)
        parts = urllib.parse.urlsplit(address)
        scheme = parts.scheme.lower()
        if scheme not in _SCHEMES:
            raise BadURLError(address, NOT_AN_ADDRESS)
        if scheme == "file":
            return address
        host = parts.netloc.rpartition("@")[2]
        if any(ch.isspace() or not ch.isprintable() for ch in parts.netloc):
            raise BadURLError(url, "the host part holds a space or a control character")
        try:
            port = parts.port
        except ValueError:
            found = _PORT_RE.search(host)
            text = found.group(1) if found else host
            raise BadURLError(url, f"the port {text!r} is not a number from 1 to 65535") from None
        if port == 0:
            raise BadURLError(url, "the port '0' is not a number from 1 to 65535")
        if parts.username is not None or parts.password is not None:
            raise BadURLError(url, "addresses with a user name or password are not supported")
        hostname = parts.hostname
        if not hostname:
            raise BadURLError(url, "the address names no host")
        if not host.startswith("["):
            try:
                hostname.encode("idna")
            except UnicodeError as error:
                # "encoding with 'idna' codec failed (UnicodeError: label too long)"
                found = re.search(r"UnicodeError: (.+)\)$", str(error))
                reason = found.group(1) if found else printable(str(error))
                raise BadURLError(url, f"the host name is not valid ({reason})") from None
    except BadURLError:
        raise
    except ValueError as error:  # unbalanced [ ], a bracketed host that is no IP address
        raise BadURLError(url, f"the address is malformed ({printable(str(error))})") from None
    return address
