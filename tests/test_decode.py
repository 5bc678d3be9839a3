"""Every encoding and line ending Wizards has shipped, on our own small CR file."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from index.decode import (
    MAX_RULES_BYTES,
    BinaryFileError,
    DecodeError,
    FileTooLargeError,
    decode_rules_bytes,
    decode_text,
    read_rules_file,
    split_lines,
)
from index.reader import CRReadError, read_cr_bytes, read_cr_path


def _text(cr_excerpt: Path) -> str:
    return cr_excerpt.read_bytes().decode("utf-8-sig")


def _variants(text: str) -> dict[str, bytes]:
    lf = text.replace("\r\n", "\n")
    straight = lf.replace("’", "'").replace("“", '"').replace("”", '"').replace("–", "-")
    return {
        "utf-8 bom crlf": codecs.BOM_UTF8 + text.encode("utf-8"),
        "utf-8 lf": lf.encode("utf-8"),
        "utf-8 bare cr": lf.replace("\n", "\r").encode("utf-8"),
        "mixed endings": (lf[:800].replace("\n", "\r") + lf[800:].replace("\n", "\r\n")).encode(),
        "utf-16-le bom": codecs.BOM_UTF16_LE + text.encode("utf-16-le"),
        "utf-16-be bom": codecs.BOM_UTF16_BE + text.encode("utf-16-be"),
        "utf-16-le no bom": lf.encode("utf-16-le"),
        "windows-1252": text.encode("cp1252"),
        "ascii": straight.encode("ascii"),
    }


@pytest.mark.parametrize(
    "variant",
    [
        "utf-8 bom crlf",
        "utf-8 lf",
        "utf-8 bare cr",
        "mixed endings",
        "utf-16-le bom",
        "utf-16-be bom",
        "utf-16-le no bom",
        "windows-1252",
        "ascii",
    ],
)
def test_every_variant_reads_the_same(cr_excerpt: Path, variant: str) -> None:
    data = _variants(_text(cr_excerpt))[variant]
    doc = read_cr_bytes(data)
    assert doc.edition == "2030-03-01"
    assert len(doc.rules) == 37
    assert [e.term for e in doc.glossary][:2] == ["Legend Rule", "Lethal Damage"]
    text = doc.get_rule("704.5j").text
    assert text.endswith(("“legend rule.”", '"legend rule."'))
    assert "\ufffd" not in text


@pytest.mark.parametrize(
    ("data", "expected", "encoding"),
    [
        (b"the \x92ther Storm card", "the Æther Storm card", "cp437"),
        (b"El-Hajj\x83j", "El-Hajjâj", "cp437"),
        (b"a player\x92s \x93legend rule\x94", "a player’s “legend rule”", "cp1252"),
        (b"El-Hajj\x89j\rnext line\r", "El-Hajjâj\rnext line\r", "mac_roman"),
    ],
)
def test_single_byte_guess(data: bytes, expected: str, encoding: str) -> None:
    assert decode_rules_bytes(data) == (expected, encoding)


def test_split_lines_handles_every_ending() -> None:
    assert split_lines("a\r\nb\rc\nd\r\r\ne") == ["a", "b", "c", "d", "", "e"]


def test_binary_is_refused() -> None:
    with pytest.raises(DecodeError):
        decode_rules_bytes(b"\x00\x01\x02\x03" * 100 + b"\xff\xfe\x00")
    with pytest.raises(CRReadError, match="binary"):
        read_cr_bytes(bytes(range(256)))


def test_utf16_with_bad_bytes_is_an_error_not_a_traceback() -> None:
    with pytest.raises(CRReadError):
        read_cr_bytes(codecs.BOM_UTF16_LE + b"\x00\xd8")  # a lone surrogate


# What every corpus file decoded to before UTF-8-with-bad-bytes was read as UTF-8: the encoding
# and the first 16 hex digits of the sha256 of the text (as UTF-8). Nothing may change.
CORPUS_DECODING = [
    ("cr-19990423.txt", "utf-8", "959da92d41291aef"),
    ("cr-20030315.txt", "utf-8", "4ba8edd775f3a786"),
    ("cr-20070501.txt", "cp437", "20f4cca5809c5d16"),
    ("cr-20070713.txt", "mac_roman", "cce7f4de5c7d2128"),
    ("cr-20090711.txt", "utf-8", "8ccf12ebb098db9d"),
    ("cr-20130713.txt", "cp437", "8c119294140533e4"),
    ("cr-20180713.txt", "cp1252", "109a751efafaf9eb"),
    ("cr-20220429.txt", "utf-8-sig", "a3dd9d8b84e97a26"),
    ("cr-20250207.txt", "utf-8-sig", "e2e1f904ad72dabc"),
    ("cr-20251114.txt", "utf-8-sig", "07ae6569afa4e786"),
    ("cr-20260116.txt", "utf-8-sig", "14904b100b070b20"),
    ("reformatted-lzybluee/cr-20180713.txt", "utf-8", "34f88384d9620146"),
    ("reformatted-lzybluee/cr-20220429.txt", "utf-8-sig", "703bfd43c8b15f17"),
]


@pytest.mark.parametrize(("name", "encoding", "digest"), CORPUS_DECODING)
def test_corpus_decodes_exactly_as_before(name: str, encoding: str, digest: str) -> None:
    import hashlib

    from .conftest import CORPUS, corpus_file

    corpus_file("20250207")  # skips (or fails under CI) when the corpus is absent
    decoded = decode_text((CORPUS / name).read_bytes())
    assert (decoded.encoding, decoded.undecodable) == (encoding, 0)
    assert hashlib.sha256(decoded.text.encode("utf-8")).hexdigest()[:16] == digest


def test_one_bad_byte_in_utf8_is_utf8_with_one_undecodable_byte() -> None:
    # Issue 16: the 2026 CR, its BOM removed and one 0xFF added, was read as Mac Roman.
    from .conftest import corpus_file

    data = corpus_file("20260116").read_bytes()[3:]
    mutated = data[:5000] + b"\xff" + data[5000:]
    decoded = decode_text(mutated)
    assert (decoded.encoding, decoded.undecodable) == ("utf-8", 1)
    assert decoded.text == data[:5000].decode() + "\ufffd" + data[5000:].decode()
    assert decoded.describe() == "UTF-8 with 1 undecodable byte"


@pytest.mark.parametrize(
    ("data", "encoding", "undecodable"),
    [
        ("a player’s “legend rule”".encode() + b"\x92", "utf-8", 1),
        ("“x” “y” ’".encode() + b"\x93\x94", "utf-8", 2),
        # Single-byte text with one accidental UTF-8 pair ("Â®" is C2 AE) stays single-byte.
        (b"\x93legend rule\x94 \x92s \xc2\xae \x96 done", "cp1252", 0),
        # A BOM says UTF-8: bad bytes after it are counted, not an error.
        (codecs.BOM_UTF8 + b"704.5j \xff", "utf-8-sig", 1),
    ],
)
def test_mostly_utf8(data: bytes, encoding: str, undecodable: int) -> None:
    decoded = decode_text(data)
    assert (decoded.encoding, decoded.undecodable) == (encoding, undecodable)


def test_nul_anywhere_is_binary(cr_excerpt: Path) -> None:
    # Issue 16: NUL bytes after the first 64 KB were stored and printed.
    data = cr_excerpt.read_bytes() + b"\n" + b"padding line\n" * 6000 + b"\x00 tail\n"
    assert len(data) > 65536
    with pytest.raises(BinaryFileError) as caught:
        decode_text(data)
    assert caught.value.offset == data.index(b"\x00")
    with pytest.raises(CRReadError, match="binary"):
        read_cr_bytes(data)


def test_nul_characters_in_utf16_are_binary(cr_excerpt: Path) -> None:
    text = _text(cr_excerpt) + "\x00" * 4
    with pytest.raises(BinaryFileError):
        decode_text(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))


def test_control_bytes_throughout_are_binary() -> None:
    with pytest.raises(BinaryFileError, match="control bytes"):
        decode_text(bytes(range(1, 32)) * 50 + b"\xe9")
    # A stray escape in a text is text (shown harmlessly elsewhere).
    assert decode_text(b"caf\xe9 \x1b[2J ok").encoding in ("cp1252", "cp437", "mac_roman")


def test_size_cap_reads_no_further(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    with big.open("wb") as fh:  # sparse: no disk is written
        fh.truncate(MAX_RULES_BYTES + 1)
    with pytest.raises(FileTooLargeError) as caught:
        read_rules_file(big)
    assert caught.value.limit == MAX_RULES_BYTES
    assert str(caught.value) == "it is larger than 16 MiB, the most a rules file may be"
    small = tmp_path / "small.txt"
    small.write_bytes(b"x" * 100)
    assert read_rules_file(small, limit=100) == b"x" * 100
    with pytest.raises(FileTooLargeError):
        read_rules_file(small, limit=99)
    with pytest.raises(CRReadError, match="larger than 16 MiB"):
        read_cr_path(big)
