"""Every encoding and line ending Wizards has shipped, on our own small CR file."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from index.decode import DecodeError, decode_rules_bytes, split_lines
from index.reader import CRReadError, read_cr_bytes


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
