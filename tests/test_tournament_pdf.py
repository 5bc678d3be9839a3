"""Tournament documents as PDFs: read through pypdf, and every kind of bad PDF refused whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from index.tournament.model import (
    DamagedPdfError,
    DocumentReadError,
    EncryptedPdfError,
    ImageOnlyPdfError,
    NotATournamentDocumentError,
)
from index.tournament.reader import read_document_bytes
from judge_cli.cli import cli

from .conftest import tree_digest
from .pdffixture import encrypted, make_pdf

FIXTURES = Path(__file__).parent / "fixtures"

PAGES = [
    ["1", "MAGIC INFRACTION PROCEDURE GUIDE", "Effective May 1, 2031", "INTRODUCTION", "A guide."],
    [
        "2",
        "1. GENERAL PHILOSOPHY",
        "Judges settle what went wrong and, when a paragraph runs over the end of a page,",
    ],
    [
        "3",
        "the reader joins it again without the page number.",
        "1.1. DEFINITION OF PENALTIES",
        "Warning",
        "A Warning records the infraction (see section 1).",
    ],
]


def test_a_pdf_reads_like_its_text() -> None:
    doc = read_document_bytes(make_pdf(PAGES), "guide.pdf")
    assert (doc.kind, doc.edition, doc.problems) == ("ipg", "2031-05-01", [])
    assert [(s.number, s.title) for s in doc.sections] == [
        ("introduction", "INTRODUCTION"),  # as printed: there is no contents to recase it from
        ("1", "GENERAL PHILOSOPHY"),
        ("1.1", "DEFINITION OF PENALTIES"),
    ]
    general = doc.find_section("1")
    assert general is not None and general.text == (
        "Judges settle what went wrong and, when a paragraph runs over the end of a page, "
        "the reader joins it again without the page number."
    )
    penalties = doc.find_section("1.1")
    assert penalties is not None
    assert [(p.heading, p.text, p.line) for p in penalties.parts] == [
        ("Warning", "A Warning records the infraction (see section 1).", 9)
    ]


def test_a_pdf_locked_only_against_editing_reads() -> None:
    # Wizards' PDFs may carry an owner password only: no password is needed to read them.
    doc = read_document_bytes(encrypted(make_pdf(PAGES), ""), "guide.pdf")
    assert [s.number for s in doc.sections] == ["introduction", "1", "1.1"]


def _bad_pdfs() -> dict[str, tuple[bytes, type[DocumentReadError], str]]:
    good = make_pdf(PAGES)
    menu = make_pdf([["Lunch menu", "Soup of the day", "Bread"]])
    broken = b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 9 0 R >>\nendobj\ntrailer\n%%EOF\n"
    return {
        "not-a-document.pdf": (menu, NotATournamentDocumentError, "it begins “Lunch menu”"),
        "encrypted.pdf": (encrypted(good, "secret"), EncryptedPdfError, "needs a password"),
        "half.pdf": (good[: len(good) // 2], DamagedPdfError, "truncated"),
        "no-eof.pdf": (good[:-8], DamagedPdfError, "truncated"),
        "broken.pdf": (broken, DamagedPdfError, "cannot be read"),
        "scanned.pdf": (make_pdf([[], []]), ImageOnlyPdfError, "2 page(s) but no text"),
    }


@pytest.mark.parametrize("name", list(_bad_pdfs()))
def test_bad_pdfs_raise_narrow_errors(name: str) -> None:
    data, error, words = _bad_pdfs()[name]
    with pytest.raises(error) as caught:
        read_document_bytes(data, name)
    assert caught.value.source == name
    assert words in str(caught.value)


@pytest.mark.parametrize("name", list(_bad_pdfs()))
def test_bad_pdfs_store_nothing(name: str, judge_home: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    stored = runner.invoke(cli, ["index", "build", str(FIXTURES / "mini-ipg.txt")])
    assert stored.exit_code == 0, stored.output
    before = tree_digest(judge_home)
    data, _, words = _bad_pdfs()[name]
    path = tmp_path / name
    path.write_bytes(data)
    result = runner.invoke(cli, ["index", "build", str(path)])
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit)  # an Error: line, not a traceback
    assert result.output.startswith(f"Error: {path}: ")
    assert words in result.output and "Nothing was stored." in result.output
    assert tree_digest(judge_home) == before


def test_a_bad_pdf_among_good_files_is_reported_and_the_others_stored(
    judge_home: Path, tmp_path: Path
) -> None:
    bad = tmp_path / "scanned.pdf"
    bad.write_bytes(make_pdf([[]]))
    result = CliRunner().invoke(
        cli,
        [
            "index",
            "build",
            str(FIXTURES / "mini-mtr.txt"),
            str(bad),
            str(FIXTURES / "mini-jar.txt"),
        ],
    )
    assert result.exit_code == 1
    assert f"1 of 3 files not stored ({bad})" in result.output
    listing = CliRunner().invoke(cli, ["editions", "--json"])
    assert sorted(r["document"] for r in json.loads(listing.output)) == ["jar", "mtr"]
