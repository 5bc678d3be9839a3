"""Turning the bytes of a rules file into text and lines, whatever Wizards saved it as.

Editions since 1999 have shipped as UTF-8 with and without a byte-order mark, UTF-16, Windows-1252,
and ASCII with a stray byte or two from code page 437 or Mac Roman. The single-byte encodings all
map every byte to *something*, so the choice is made per file by how plausible the decoded
characters are where they stand (a lower-case "â" between lower-case letters beats "‰" or "É").
"""

from __future__ import annotations

import codecs
import re

__all__ = ["DecodeError", "decode_rules_bytes", "split_lines"]


class DecodeError(ValueError):
    """Raised when bytes are not text in any encoding a rules file has used."""


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


def decode_rules_bytes(data: bytes) -> tuple[str, str]:
    """Decodes a rules file; returns ``(text, encoding)``. The BOM, if any, is dropped."""
    if data.startswith(codecs.BOM_UTF8):
        encoding = "utf-8-sig"
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    else:
        encoding = _looks_like_utf16(data) or ""
    if encoding:
        try:
            return data.decode(encoding), encoding
        except UnicodeDecodeError as exc:
            raise DecodeError(f"not valid {encoding} text at byte {exc.start}") from None
    if b"\x00" in data[:65536]:
        raise DecodeError("this is a binary file, not text (it contains NUL bytes)")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    encoding = _guess_single_byte(data)
    return data.decode(encoding), encoding
