"""Turning the bytes of a rules file into text and lines, whatever Wizards saved it as.

Editions since 1999 have shipped as UTF-8 with and without a byte-order mark, UTF-16, Windows-1252,
and ASCII with a stray byte or two from code page 437 or Mac Roman. The single-byte encodings all
map every byte to *something*, so the choice is made per file by how plausible the decoded
characters are where they stand (a lower-case "â" between lower-case letters beats "‰" or "É").

A file whose non-ASCII bytes are mostly well-formed UTF-8 is UTF-8, even when a few bytes are not:
it is read with those bytes as U+FFFD and the count reported (:attr:`DecodedText.undecodable`),
never as a single-byte guess that would turn every ’ and “ of it into mojibake.

Every reader of a rules file (``index build``, ``update``, ``cite-check``) reads at most
:data:`MAX_RULES_BYTES` of it (:func:`read_rules_file`).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

__all__ = [
    "MAX_RULES_BYTES",
    "BinaryFileError",
    "DecodeError",
    "DecodedText",
    "FileTooLargeError",
    "decode_rules_bytes",
    "decode_text",
    "encoding_name",
    "read_rules_file",
    "read_rules_stream",
    "split_lines",
]

MAX_RULES_BYTES = 16 * 1024 * 1024
"""The largest rules file read, from disk or the network (a CR is about 1 MiB, twice in UTF-16)."""


class DecodeError(ValueError):
    """Raised when bytes are not text in any encoding a rules file has used."""

    file: str | None = None
    """The file the bytes came from, when the caller knows it."""


class BinaryFileError(DecodeError):
    """Raised for a file that is not text: a NUL byte anywhere in it (unless it is UTF-16), or
    control bytes throughout."""

    def __init__(self, offset: int, controls: int = 0) -> None:
        self.offset = offset
        """Where the first NUL (or control) byte is."""
        self.controls = controls
        """How many control bytes there are, when that is the reason."""
        what = f"{controls} control bytes" if controls else "a NUL byte"
        super().__init__(f"this is a binary file, not text ({what}, the first at offset {offset})")


class FileTooLargeError(DecodeError):
    """Raised for a file larger than :data:`MAX_RULES_BYTES`."""

    role: str = "rules"
    """What the file was meant to be (``rules``, ``text``), for the advice."""

    def __init__(self, path: str, limit: int) -> None:
        self.path = path
        self.limit = limit
        super().__init__(
            f"it is larger than {limit // (1024 * 1024)} MiB, the most a rules file may be"
        )


@dataclass(frozen=True)
class DecodedText:
    """The text of a file and how it was read."""

    text: str
    """The text, without a byte-order mark."""
    encoding: str
    """The Python codec used: ``utf-8``, ``utf-8-sig``, ``utf-16``, ``cp1252``, ``cp437``, …"""
    undecodable: int = 0
    """How many bytes were not valid in that encoding (each read as U+FFFD)."""

    @property
    def is_guess(self) -> bool:
        """Checks if the encoding is a single-byte guess (every byte decodes in those)."""
        return self.encoding in _SINGLE_BYTE

    @property
    def is_unicode(self) -> bool:
        """Checks if the file is UTF-8 or UTF-16 (the encodings that say they are right)."""
        return not self.is_guess

    def describe(self) -> str:
        """How it was read, for people: ``Windows-1252``, ``UTF-8 with 1 undecodable byte``."""
        name = encoding_name(self.encoding)
        if self.undecodable:
            plural = "" if self.undecodable == 1 else "s"
            return f"{name} with {self.undecodable} undecodable byte{plural}"
        return name


_NAMES = {
    "utf-8": "UTF-8",
    "utf-8-sig": "UTF-8",
    "utf-16": "UTF-16",
    "utf-16-le": "UTF-16",
    "utf-16-be": "UTF-16",
    "cp1252": "Windows-1252",
    "cp437": "code page 437",
    "mac_roman": "Mac Roman",
}


def encoding_name(encoding: str) -> str:
    """The name people know an encoding by (``cp1252`` → ``Windows-1252``)."""
    return _NAMES.get(encoding, encoding)


def read_rules_file(path: str | Path, limit: int = MAX_RULES_BYTES) -> bytes:
    """The bytes of a file, refusing one larger than ``limit`` without reading all of it.

    Raises :class:`FileTooLargeError`, or ``OSError``. A pipe or a device (``/dev/zero``) is
    read only as far as the limit.
    """
    with open(path, "rb") as fh:
        return read_rules_stream(fh, str(path), limit)


def read_rules_stream(stream: BinaryIO, name: str, limit: int = MAX_RULES_BYTES) -> bytes:
    """The bytes of an open binary stream (standard input), at most ``limit`` of them.

    Raises :class:`FileTooLargeError` naming ``name``, or ``OSError``.
    """
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise FileTooLargeError(name, limit)
    return data


_LINE_BREAK_RE = re.compile(r"\r\n|\r|\n")
_SINGLE_BYTE = ("cp1252", "cp437", "mac_roman")
_TYPOGRAPHY = {
    "\u2019": "apostrophe",
    "\u2018": "open",
    "\u201c": "open",
    "\u201d": "close",
    "\u2013": "dash",
    "\u2014": "dash",
    "\u2122": "mark",
    "\u00ae": "mark",
    "\u00a9": "mark",
    "\u2026": "ellipsis",
    "\u2022": "bullet",
}


def split_lines(text: str) -> list[str]:
    """Splits on CRLF, bare CR and LF alike (files mix them)."""
    return _LINE_BREAK_RE.split(text)


def _plausibility(text: str, index: int) -> float:
    char = text[index]
    before = text[index - 1] if index > 0 else " "
    after = text[index + 1] if index + 1 < len(text) else " "
    if ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0:
        return -5.0  # a control character is never what a rules file meant
    kind = _TYPOGRAPHY.get(char)
    if kind == "apostrophe":
        return 2.0 if before.isalpha() else 0.0
    if kind == "open":
        return 2.0 if not before.isalnum() and (after.isalnum() or after in "[{") else 0.0
    if kind == "close":
        return 2.0 if (before.isalnum() or before in ".,!?)]}") and not after.isalnum() else 0.0
    if kind == "dash":
        return 1.5 if before in " 0123456789" or after in " 0123456789" or before.isalpha() else 0.0
    if kind in ("mark", "ellipsis", "bullet"):
        return 1.5
    if char.isalpha() and "\u00c0" <= char <= "\u00ff":
        if char.islower():
            return 2.0 if before.isalpha() or after.isalpha() else 0.5
        # An upper-case letter is plausible at the start of a word ("Æther").
        return 2.0 if not before.isalpha() and after.islower() else 0.5
    return 0.0


def _score(data: bytes, encoding: str) -> float:
    text = data.decode(encoding)
    return sum(_plausibility(text, i) for i, ch in enumerate(text) if ord(ch) > 0x7F)


def _guess_single_byte(data: bytes) -> str:
    """Picks the single-byte encoding whose high characters read most plausibly."""
    has_cr_only = b"\r" in data and b"\n" not in data
    # Classic Mac files (bare CR line ends) were saved as Mac Roman: try it first on ties.
    order = ("mac_roman", "cp1252", "cp437") if has_cr_only else _SINGLE_BYTE
    best, best_score = order[0], float("-inf")
    # Only the bytes near non-ASCII bytes matter; score those windows, not the whole file.
    windows = b"".join(
        data[max(0, m.start() - 2) : m.end() + 2] + b"\n"
        for m in re.finditer(rb"[\x80-\xff]+", data)
    )
    for encoding in order:
        try:
            score = _score(windows, encoding)
        except UnicodeDecodeError:
            continue
        if score > best_score:
            best, best_score = encoding, score
    return best


def _looks_like_utf16(data: bytes) -> str | None:
    sample = data[:4000]
    if len(sample) < 4:
        return None
    even_nuls = sample[0::2].count(0)
    odd_nuls = sample[1::2].count(0)
    half = len(sample) // 2
    if odd_nuls > half * 0.6 and even_nuls < half * 0.1:
        return "utf-16-le"
    if even_nuls > half * 0.6 and odd_nuls < half * 0.1:
        return "utf-16-be"
    return None


# Well-formed UTF-8 multi-byte sequences (RFC 3629: no overlongs, no surrogates).
_UTF8_SEQUENCE_RE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
    rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
    rb"|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)
_HIGH_BYTE_RE = re.compile(rb"[\x80-\xff]")
# C0 controls but tab, line feed, vertical tab, form feed and carriage return; and DEL.
_CONTROL_RE = re.compile(rb"[\x01-\x08\x0e-\x1f\x7f]")


def _utf8_counts(data: bytes) -> tuple[int, int]:
    """How many well-formed UTF-8 multi-byte sequences ``data`` has, and how many high bytes
    stand outside them."""
    sequences = _UTF8_SEQUENCE_RE.findall(data)
    return len(sequences), len(_HIGH_BYTE_RE.findall(data)) - sum(map(len, sequences))


def _is_mostly_utf8(data: bytes) -> bool:
    """Checks if ``data`` is UTF-8 with a few bad bytes: its well-formed multi-byte sequences
    outnumber the bytes outside them. A single-byte file (Windows-1252 quotes, a code page 437
    "â") has almost none: every corpus file is one or the other by thousands to none."""
    sequences, stray = _utf8_counts(data)
    return sequences > stray


def decode_text(data: bytes) -> DecodedText:
    """Decodes a rules file (or any text file a rules tool reads), saying how.

    Raises :class:`BinaryFileError` for NUL bytes in anything but UTF-16, and
    :class:`DecodeError` for UTF-16 that is not valid.
    """
    if data.startswith(codecs.BOM_UTF8):
        encoding = "utf-8-sig"
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    else:
        encoding = _looks_like_utf16(data) or ""
    if encoding:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as exc:
            if encoding != "utf-8-sig":
                raise DecodeError(f"not valid {encoding} text at byte {exc.start}") from None
            return _lossy_utf8(data, encoding)
        nul = text.find("\x00")
        if nul >= 0:
            # NUL characters in decoded text are binary too ("\x00\x00" pairs in UTF-16).
            raise BinaryFileError(len(text[:nul].encode(encoding)))
        return DecodedText(text, encoding)
    # The whole file, not its head: one memchr over the bytes, far cheaper than decoding them.
    nul = data.find(b"\x00")
    if nul >= 0:
        raise BinaryFileError(nul)
    try:
        return DecodedText(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    if _is_mostly_utf8(data):
        return _lossy_utf8(data, "utf-8")
    controls = _CONTROL_RE.findall(data)
    # A stray escape or two is text to show harmlessly; one byte in a hundred is not text.
    if len(controls) > max(8, len(data) // 100):
        found = _CONTROL_RE.search(data)
        raise BinaryFileError(found.start() if found else 0, len(controls))
    encoding = _guess_single_byte(data)
    return DecodedText(data.decode(encoding), encoding)


def _lossy_utf8(data: bytes, encoding: str) -> DecodedText:
    text = data.decode(encoding, errors="replace")
    # Count the bytes, not the U+FFFD (a file may hold real ones, as the 1999 edition does).
    _, stray = _utf8_counts(data)
    return DecodedText(text, encoding, undecodable=max(stray, 1))


def decode_rules_bytes(data: bytes) -> tuple[str, str]:
    """Decodes a rules file; returns ``(text, encoding)`` (see :func:`decode_text`)."""
    decoded = decode_text(data)
    return decoded.text, decoded.encoding
