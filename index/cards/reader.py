"""Reading an MTGJSON AtomicCards file as a stream, one card entry at a time.

The file is recognised by its first bytes, never by its name: xz, gzip and bzip2 are
decompressed on the fly, anything else is read as JSON text. The top-level object is walked by
hand and each ``data`` entry (``"Card Name": [face, ...]``) is decoded on its own with the
standard library's C decoder, so memory holds one entry and a 64 KiB buffer, never the file
(measured against ijson in ``benchmarks/cards_speed.py``).
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Callable, Iterator
from typing import IO, Any, cast

from .errors import CardFileError

__all__ = ["MAX_ENTRY_CHARS", "MAX_TEXT_CHARS", "AtomicCardsReader", "compression_of"]

MAX_ENTRY_CHARS = 8 * 1024 * 1024
"""A card entry (or ``meta``) longer than this is refused: real ones are under 100 KB."""
MAX_TEXT_CHARS = 2 * 1024 * 1024 * 1024
"""More JSON than this is refused (the real file is about 120 MB): no decompression bomb."""

_CHUNK = 1 << 16
_REPORT_EVERY = 1 << 18
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MAGIC = (
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
)
_WS = " \t\r\n"

Progress = Callable[[int], None]
"""Called with the number of (compressed) bytes read so far."""


def compression_of(head: bytes) -> str | None:
    """The compression that the first bytes of a file announce, or ``None`` for plain text."""
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


class _Source(io.RawIOBase):
    """The raw input: hashed and counted as it is read, its first bytes kept for sniffing."""

    def __init__(self, stream: IO[bytes], progress: Progress | None) -> None:
        self.stream = stream
        self.progress = progress
        self.sha256 = hashlib.sha256()
        self.count = 0
        self._reported = 0
        self.head = b""
        while len(self.head) < 6:
            more = stream.read(6 - len(self.head))
            if not more:
                break
            self.head += more
        self._pending = self.head

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        if self._pending:
            n = min(len(view), len(self._pending))
            data, self._pending = self._pending[:n], self._pending[n:]
        else:
            data = self.stream.read(len(view))
            n = len(data)
        view[:n] = data
        if n:
            self.sha256.update(data)
            self.count += n
            # Every 256 KiB is often enough for a progress bar, and cheap.
            if self.progress is not None and self.count - self._reported >= _REPORT_EVERY:
                self._reported = self.count
                self.progress(self.count)
        elif self.progress is not None and self._reported != self.count:
            self._reported = self.count
            self.progress(self.count)  # the end of the input
        return n


def _decompressed(source: _Source, kind: str | None) -> IO[bytes]:
    if kind == "xz":
        import lzma

        return cast(IO[bytes], lzma.LZMAFile(cast(IO[bytes], source)))
    if kind == "gzip":
        import gzip

        return cast(IO[bytes], gzip.GzipFile(fileobj=cast(IO[bytes], source)))
    if kind == "bzip2":
        import bz2

        return cast(IO[bytes], bz2.BZ2File(cast(IO[bytes], source)))
    return cast(IO[bytes], io.BufferedReader(source, _CHUNK))


def _damaged_errors(kind: str | None) -> tuple[type[Exception], ...]:
    """What a decompressor raises for damaged data (none for plain text: let those through)."""
    if kind == "xz":
        import lzma

        return (lzma.LZMAError,)
    if kind == "gzip":
        import gzip
        import zlib

        return (zlib.error, gzip.BadGzipFile)
    if kind == "bzip2":
        return (OSError, ValueError)  # bz2 says "Invalid data stream" as an OSError
    return ()


def _is_date(text: str) -> bool:
    """Checks if ``text`` (``YYYY-MM-DD``) is a day of the calendar: a snapshot is named by it,
    and one named 9999-99-99 would refuse every later file as older."""
    import datetime

    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _first_char_problem(ch: str, head: bytes) -> str:
    if ch == "":
        return "it is empty"
    if ch == "<":
        return "it is an HTML or XML page, not JSON (an error page saved in place of the file?)"
    if ch == "[":
        return (
            "it is a JSON list, not an MTGJSON AtomicCards object "
            "(Scryfall's bulk files are lists; use MTGJSON's AtomicCards.json)"
        )
    if head.startswith(b"PK\x03\x04"):
        return "it is a zip archive: unzip it and import the AtomicCards.json inside"
    return f"it is not JSON (it starts with {head[:6]!r})"


class AtomicCardsReader:
    """Card entries of an AtomicCards stream, read one at a time; ``meta`` once it is met.

    Iterate :meth:`entries` to the end, then read :attr:`meta` (MTGJSON writes it first, but
    nothing here depends on that). Every problem is a :class:`CardFileError` naming ``file``.
    """

    def __init__(self, stream: IO[bytes], file: str, *, progress: Progress | None = None) -> None:
        self.file = file
        self._source = _Source(stream, progress)
        self.compression = compression_of(self._source.head)
        self.meta: dict[str, Any] | None = None
        self.cards = 0
        """How many card entries were read so far."""
        self._text = io.TextIOWrapper(
            _decompressed(self._source, self.compression), encoding="utf-8-sig"
        )
        self._decoder = json.JSONDecoder()
        self._buf = ""
        self._pos = 0
        self._eof = False
        self._consumed = 0
        self._lines = 0
        self._column_base = 0
        """How many characters of the current line came before the buffer."""
        self._card: str | None = None

    @property
    def sha256(self) -> str:
        """The SHA-256 of the bytes read (the whole file, once :meth:`entries` is done)."""
        return self._source.sha256.hexdigest()

    @property
    def bytes_read(self) -> int:
        return self._source.count

    def _error(self, reason: str) -> CardFileError:
        return CardFileError(self.file, reason, card=self._card)

    def _where(self, pos: int) -> str:
        line = self._lines + self._buf.count("\n", 0, pos) + 1
        start = self._buf.rfind("\n", 0, pos) + 1
        column = pos - start + 1 + (self._column_base if start == 0 else 0)
        return f"line {line}, column {column}"

    def _more(self) -> None:
        """Reads the next chunk, dropping what was already parsed."""
        done = self._buf[: self._pos]
        newlines = done.count("\n")
        if newlines:
            self._lines += newlines
            self._column_base = len(done) - done.rfind("\n") - 1
        else:
            self._column_base += len(done)
        self._consumed += self._pos
        try:
            chunk = self._text.read(_CHUNK)
        except UnicodeDecodeError as exc:
            raise self._error(f"it is not UTF-8 text ({exc.reason})") from None
        except EOFError:
            raise self._error(f"the {self.compression} data is truncated") from None
        except _damaged_errors(self.compression) as exc:
            raise self._error(f"the {self.compression} data is damaged ({exc})") from None
        if not chunk:
            self._eof = True
        elif self._consumed + len(self._buf) + len(chunk) > MAX_TEXT_CHARS:
            raise self._error(f"it holds more than {MAX_TEXT_CHARS >> 30} GiB of JSON")
        self._buf = self._buf[self._pos :] + chunk
        self._pos = 0

    def _peek(self) -> str:
        """The next character that is not white space ('' at the end of the file)."""
        while True:
            buf, pos = self._buf, self._pos
            while pos < len(buf) and buf[pos] in _WS:
                pos += 1
            self._pos = pos
            if pos < len(buf):
                return buf[pos]
            if self._eof:
                return ""
            self._more()

    def _expect(self, chars: str, what: str) -> str:
        ch = self._peek()
        if ch == "" or ch not in chars:
            found = "the end of the file" if ch == "" else repr(ch)
            reason = f"expected {what} at {self._where(self._pos)}, found {found}"
            if ch == "":
                reason = f"it ends too soon: expected {what} (the file is truncated)"
            raise self._error(reason)
        self._pos += 1
        return ch

    def _value(self, what: str) -> Any:
        """Decodes the next JSON value, reading more until it is whole."""
        if self._peek() == "":
            raise self._error(f"it ends too soon: expected {what} (the file is truncated)")
        while True:
            try:
                value, end = self._decoder.raw_decode(self._buf, self._pos)
            except json.JSONDecodeError as exc:
                # Truncation shows at the buffer's end or as an unterminated string; an error
                # well inside the buffer (or anywhere but the end, once all is read) is bad
                # JSON that no further reading would mend.
                end_of_text = len(self._buf.rstrip(_WS))
                unterminated = exc.msg.startswith("Unterminated")
                if self._eof and (unterminated or exc.pos >= end_of_text):
                    raise self._error(
                        f"it ends too soon, inside {what} (the file is truncated)"
                    ) from None
                cut = not self._eof and (unterminated or exc.pos >= len(self._buf) - 16)
                if not cut or len(self._buf) - self._pos > MAX_ENTRY_CHARS:
                    raise self._error(
                        f"invalid JSON in {what} at {self._where(exc.pos)}: {exc.msg}"
                    ) from None
                self._more()
                continue
            except RecursionError:
                # The C decoder recurses per level of nesting: a card is a few levels deep.
                raise self._error(f"{what} is nested too deeply to be card data") from None
            except ValueError:  # the only other: int() refuses more than 4,300 digits
                raise self._error(f"{what} holds a number of more than 4,300 digits") from None
            # A number cut by the buffer's end decodes too early ("12" of "123"): read on.
            if end == len(self._buf) and not self._eof:
                self._more()
                continue
            self._pos = end
            return value

    def _key(self, what: str) -> str:
        if self._peek() != '"':
            self._expect('"', what)
        key = self._value(what)
        assert isinstance(key, str)
        self._expect(":", "':'")
        return key

    def entries(self) -> Iterator[tuple[str, list[dict[str, Any]]]]:
        """Each card as ``(name, faces)``, checked to be AtomicCards-shaped, in file order."""
        first = self._peek()
        if first != "{":
            raise self._error(_first_char_problem(first, self._source.head))
        self._pos += 1
        seen_data = False
        if self._peek() != "}":
            while True:
                key = self._key("a key of the top-level object")
                if key == "data":
                    seen_data = True
                    yield from self._data()
                elif key == "meta":
                    meta = self._value('"meta"')
                    if not isinstance(meta, dict):
                        raise self._error('its "meta" is not an object')
                    self.meta = meta
                    self._check_meta()  # before reading 120 MB of cards, not after
                else:
                    self._value(f"{key!r}")
                if self._expect(",}", "',' or '}' after a top-level value") == "}":
                    break
        else:
            self._pos += 1
        self._card = None
        if self._peek() != "":
            raise self._error(f"extra text after the JSON object at {self._where(self._pos)}")
        if not seen_data:
            raise self._error('it has no "data" object: not an MTGJSON AtomicCards file')
        if self.cards == 0:
            raise self._error('its "data" object holds no cards')
        self._check_meta()

    def _check_meta(self) -> None:
        if self.meta is None:
            raise self._error('it has no "meta" object, so no date to name the snapshot by')
        date = self.meta.get("date")
        if not isinstance(date, str) or not _DATE_RE.match(date) or not _is_date(date):
            raise self._error(f'its "meta" has no "date" as YYYY-MM-DD (found {date!r})')

    def _data(self) -> Iterator[tuple[str, list[dict[str, Any]]]]:
        self._expect("{", 'an object after "data":')
        if self._peek() == "}":
            self._pos += 1
            return
        while True:
            name = self._key('a card name in "data"')
            self._card = name
            faces = self._value(f"the entry of {name!r}")
            _check_entry(self, name, faces)
            self.cards += 1
            yield name, faces
            if self._expect(",}", "',' or '}' after a card entry") == "}":
                return


def _check_entry(reader: AtomicCardsReader, name: str, faces: Any) -> None:
    # Only the shape; each field's type is checked where the face is turned into a row.
    if isinstance(faces, dict):
        hint = (
            " (this looks like MTGJSON AllPrintings; use AtomicCards)" if "cards" in faces else ""
        )
        raise reader._error(f"data[{name!r}] is an object, not a list of card faces{hint}")
    if not isinstance(faces, list) or not faces:
        raise reader._error(f"data[{name!r}] is not a list of card faces")
    for face in faces:
        if not isinstance(face, dict) or not isinstance(face.get("name"), str):
            raise reader._error(f'data[{name!r}] has a face without a "name"')
