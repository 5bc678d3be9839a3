"""``judge update --docs`` against a real HTTP server on 127.0.0.1 playing Wizards Play Network.

The page links the documents as the real one does (anchors, and escaped JSON inside a script);
the PDFs are made here from the small fixture documents (:mod:`tests.pdffixture`), read by the
real reader through pypdf. Every failure is checked to change nothing stored.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from index.fetch import (
    DownloadTimeoutError,
    HTTPStatusError,
    RedirectError,
    TooLargeError,
    TruncatedDownloadError,
)
from index.fetch.documents import (
    DocumentLink,
    NoDocumentLinkError,
    NotDocumentFileError,
    document_kind_of_name,
    find_document_links,
    update_documents,
)
from index.tournament.store import DocumentStore
from judge_cli.errors import describe
from judge_cli.update_command import update as update_command

from .conftest import tree_digest
from .httpfixture import Route, Server, serve
from .pdffixture import make_pdf

FIXTURES = Path(__file__).parent / "fixtures"
FAST = {"timeout": 2.0, "total_timeout": 5.0}
NEXT_STEP = (
    "download the PDF from https://wpn.wizards.com/en/rules-documents and run"
    " `judge index build FILE`"
)

_MINI = {"mtr": "mini-mtr.txt", "ipg": "mini-ipg.txt", "jar": "mini-jar.txt"}
_DATE_LINE = re.compile(r"^(Effective|Updated) .*$", re.MULTILINE)


def document_text(kind: str, day: str) -> str:
    """A fixture document (``mtr``, ``ipg``, ``jar``) re-dated to ``day`` (ISO)."""
    date = dt.date.fromisoformat(day)
    text = (FIXTURES / _MINI[kind]).read_text(encoding="utf-8")
    return _DATE_LINE.sub(lambda m: f"{m[1]} {date:%B} {date.day}, {date.year}", text, count=1)


def document_pdf(kind: str, day: str) -> bytes:
    """That document as a two-page PDF."""
    lines = document_text(kind, day).split("\n")
    return make_pdf([lines[: len(lines) // 2], lines[len(lines) // 2 :]])


def wpn_page(*hrefs: str, scripted: tuple[str, ...] = ()) -> bytes:
    """A rules-documents page: ``hrefs`` as anchors, ``scripted`` only in the page's JSON (with
    the slashes escaped as the real page's script does), among links that are none of ours."""
    anchors = "\n".join(f'<a class="btn" href="{h}">Download</a>' for h in hrefs)
    blob = json.dumps({"documents": [{"file": {"url": u}} for u in scripted]})
    blob = blob.replace("/", "\\u002F")
    return (
        "<!doctype html><html><head><title>Rules and Documents</title></head><body>\n"
        '<a href="https://media.wizards.com/2026/downloads/MagicCompRules%2020260116.pdf">CR</a>\n'
        '<a href="/ContentResources/WPN/deck_checklists/MTGFIN_EN_DckCklst.pdf">Checklist</a>\n'
        '<a href="/ContentResources/WPN/MTG_MTR_2026_Feb27_FR.pdf">MTR (français)</a>\n'
        f"{anchors}\n"
        f"<script>window.__NUXT__={blob}</script>\n</body></html>"
    ).encode()


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[Server]:
    with serve() as running:
        yield running


@pytest.fixture
def documents(judge_home: Path) -> DocumentStore:
    return DocumentStore(judge_home)


def _publish(server: Server, *files: tuple[str, str, str]) -> list[str]:
    """Serves each (kind, day, file name) under /ContentResources/WPN/; returns the paths."""
    paths = []
    for kind, day, name in files:
        path = f"/ContentResources/WPN/{name}"
        server.routes[path] = Route(document_pdf(kind, day), content_type="application/pdf")
        paths.append(path)
    return paths


def _statuses(result: object) -> list[tuple[str | None, str, str | None]]:
    return [(d.document, d.status, d.edition) for d in result.documents]  # type: ignore[attr-defined]


# --- links ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("MTG_MTR_2026_Feb27_EN.pdf", "mtr"),
        ("MTG_MTR_2025_Apr 21_EN.pdf", "mtr"),
        ("MTG_MTR_2024_May13.pdf", "mtr"),
        ("mtg_ipg_2024apr15_en.pdf", "ipg"),
        ("MTG_IPG_2024Sep23_EN.pdf", "ipg"),
        ("mtg_jar_25sep20_en.pdf", "jar"),
        ("MTG_JAR_2024Aug2_EN.pdf", "jar"),
        ("Magic Tournament Rules.pdf", "mtr"),
        ("MTG_Digital_MTR_2021Nov15_EN.pdf", "dmtr"),
        ("mtg_digital_ipg_2021nov15_en.pdf", "dipg"),
        ("MTG_MTR_2026_Feb27_FR.pdf", None),  # another language's copy
        ("MTG_IPG_2024Sep23_JP.pdf", None),
        ("MTG_MTR_2026_Feb27_EN.docx", None),
        ("MTGFIN_EN_DckCklst.pdf", None),
        ("MagicCompRules 20260116.pdf", None),
    ],
)
def test_document_kind_of_name(name: str, kind: str | None) -> None:
    assert document_kind_of_name(name) == kind


def test_links_are_found_in_anchors_and_in_the_page_script() -> None:
    html = wpn_page(
        "https://media.wizards.com/ContentResources/WPN/MTG_MTR_2026_Feb27_EN.pdf",
        "/ContentResources/WPN/MTG_MTR_2025_Apr 21_EN.pdf",  # a literal space, as Wizards has
        scripted=(
            "https://media.wizards.com/ContentResources/WPN/MTG_IPG_2024Sep23_EN.pdf",
            "https://media.wizards.com/ContentResources/WPN/MTG_MTR_2026_Feb27_EN.pdf",  # again
        ),
    ).decode()
    assert find_document_links(html, "https://wpn.wizards.com/en/rules-documents") == [
        DocumentLink(
            "https://media.wizards.com/ContentResources/WPN/MTG_MTR_2026_Feb27_EN.pdf",
            "MTG_MTR_2026_Feb27_EN.pdf",
            "mtr",
            "2026-02-27",
        ),
        DocumentLink(
            "https://wpn.wizards.com/ContentResources/WPN/MTG_MTR_2025_Apr%2021_EN.pdf",
            "MTG_MTR_2025_Apr 21_EN.pdf",
            "mtr",
            "2025-04-21",
        ),
        DocumentLink(
            "https://media.wizards.com/ContentResources/WPN/MTG_IPG_2024Sep23_EN.pdf",
            "MTG_IPG_2024Sep23_EN.pdf",
            "ipg",
            "2024-09-23",
        ),
    ]


def test_odd_links_are_skipped() -> None:
    html = (
        '<a href="http://[::1">broken</a><a href="javascript:void(0)">x</a>'
        '<a href="mailto:MTG_MTR_2026_Feb27_EN.pdf">mail</a>'
        '<a href="ftp://example.com/MTG_IPG_2024Sep23_EN.pdf">ftp</a>'
    )
    assert find_document_links(html, "https://wpn.wizards.com/en/rules-documents") == []


# --- the update -------------------------------------------------------------------------------


def test_update_stores_the_newest_of_each_and_then_downloads_nothing(
    server: Server, documents: DocumentStore
) -> None:
    paths = _publish(
        server,
        ("mtr", "2030-06-02", "MTG_MTR_2030_Jun02_EN.pdf"),
        ("ipg", "2030-05-01", "MTG_IPG_2030May01_EN.pdf"),
        ("ipg", "2029-01-15", "MTG_IPG_2029Jan15_EN.pdf"),
        ("jar", "2030-07-03", "mtg_jar_03jul30_en.pdf"),
    )
    server.routes["/en/rules-documents"] = Route(
        wpn_page(paths[0], paths[2], scripted=(server.url(paths[1]), server.url(paths[3]))),
        content_type="text/html; charset=utf-8",
    )
    page = server.url("/en/rules-documents")
    result = update_documents(documents, page, **FAST)
    assert _statuses(result) == [
        ("mtr", "added", "2030-06-02"),
        ("ipg", "added", "2030-05-01"),
        ("jar", "added", "2030-07-03"),
    ]
    assert [(i.document, i.edition, i.source) for i in documents.editions()] == [
        ("mtr", "2030-06-02", server.url(paths[0])),
        ("ipg", "2030-05-01", server.url(paths[1])),
        ("jar", "2030-07-03", server.url(paths[3])),
    ]
    assert server.full_downloads(paths[2]) == 0  # the older IPG was never fetched
    before = len(server.requests)
    again = update_documents(documents, page, **FAST)
    assert _statuses(again) == [
        ("mtr", "already-stored", "2030-06-02"),
        ("ipg", "already-stored", "2030-05-01"),
        ("jar", "already-stored", "2030-07-03"),
    ]
    assert [r.path for r in server.requests[before:]] == ["/en/rules-documents"]


def test_a_document_stored_from_a_file_is_not_downloaded(
    server: Server, documents: DocumentStore, tmp_path: Path
) -> None:
    from index.tournament.ingest import store_tournament_bytes

    store_tournament_bytes(documents.root, document_text("ipg", "2030-05-01").encode(), "ipg.txt")
    (path,) = _publish(server, ("ipg", "2030-05-01", "MTG_IPG_2030May01_EN.pdf"))
    server.routes["/p"] = Route(wpn_page(path), content_type="text/html")
    result = update_documents(documents, server.url("/p"), kinds=("ipg",), **FAST)
    assert _statuses(result) == [("ipg", "already-stored", "2030-05-01")]
    assert server.fetched(path) == 0


def test_check_reads_only_the_page(server: Server, documents: DocumentStore) -> None:
    paths = _publish(
        server,
        ("mtr", "2030-06-02", "MTG_MTR_2030_Jun02_EN.pdf"),
        ("ipg", "2030-05-01", "MTG_IPG_2030May01_EN.pdf"),
        ("jar", "2030-07-03", "mtg_jar_03jul30_en.pdf"),
    )
    server.routes["/p"] = Route(wpn_page(*paths), content_type="text/html")
    result = update_documents(documents, server.url("/p"), check_only=True, **FAST)
    assert _statuses(result) == [
        ("mtr", "newer-available", "2030-06-02"),
        ("ipg", "newer-available", "2030-05-01"),
        ("jar", "newer-available", "2030-07-03"),
    ]
    assert all(server.fetched(p) == 0 for p in paths)
    assert documents.editions() == []
    update_documents(documents, server.url("/p"), **FAST)
    assert _statuses(update_documents(documents, server.url("/p"), check_only=True, **FAST)) == [
        ("mtr", "up-to-date", "2030-06-02"),
        ("ipg", "up-to-date", "2030-05-01"),
        ("jar", "up-to-date", "2030-07-03"),
    ]


def test_an_undated_name_is_read_to_know_its_edition(
    server: Server, documents: DocumentStore
) -> None:
    server.routes["/d/Magic Tournament Rules.pdf"] = Route(document_pdf("mtr", "2030-06-02"))
    server.routes["/p"] = Route(wpn_page("/d/Magic Tournament Rules.pdf"), content_type="text/html")
    checked = update_documents(documents, server.url("/p"), kinds=("mtr",), check_only=True)
    assert _statuses(checked) == [("mtr", "newer-available", "2030-06-02")]
    assert documents.editions() == []  # read, not kept
    assert _statuses(update_documents(documents, server.url("/p"), kinds=("mtr",))) == [
        ("mtr", "added", "2030-06-02")
    ]


def test_the_date_inside_the_file_decides(server: Server, documents: DocumentStore) -> None:
    (path,) = _publish(server, ("mtr", "2030-06-09", "MTG_MTR_2030_Jun02_EN.pdf"))
    server.routes["/p"] = Route(wpn_page(path), content_type="text/html")
    result = update_documents(documents, server.url("/p"), kinds=("mtr",), **FAST)
    assert _statuses(result) == [("mtr", "added", "2030-06-09")]
    assert documents.dates("mtr") == ["2030-06-09"]


def test_a_redirect_is_followed_and_the_link_recorded(
    server: Server, documents: DocumentStore
) -> None:
    server.routes["/go/MTG_IPG_2030May01_EN.pdf"] = Route(
        status=302, headers={"Location": "/cdn/ipg.pdf"}
    )
    server.routes["/cdn/ipg.pdf"] = Route(document_pdf("ipg", "2030-05-01"))
    server.routes["/p"] = Route(wpn_page("/go/MTG_IPG_2030May01_EN.pdf"), content_type="text/html")
    result = update_documents(documents, server.url("/p"), kinds=("ipg",), **FAST)
    assert _statuses(result) == [("ipg", "added", "2030-05-01")]
    assert documents.info("ipg", "2030-05-01").source == server.url("/go/MTG_IPG_2030May01_EN.pdf")


# Each way one document's download can go wrong: the error, and its Error: line.
BAD = [
    pytest.param(
        Route(b"<html><body>Not found</body></html>", 404, "text/html"),
        HTTPStatusError,
        "{url} answered 404 Not Found; " + NEXT_STEP + ".",
        id="404",
    ),
    pytest.param(
        Route(b"<!DOCTYPE html><html><body>Sorry, we are down</body></html>", 200, "text/html"),
        NotDocumentFileError,
        "{url} is not a tournament document PDF (the server sent a web page instead); "
        + NEXT_STEP
        + ".",
        id="html-instead",
    ),
    pytest.param(
        "cut",
        TruncatedDownloadError,
        "the download of {url} stopped after 1500 of {size} bytes; try again.",
        id="truncated-transfer",
    ),
    pytest.param(
        "no-eof",
        NotDocumentFileError,
        "{url} is not a tournament document PDF (the PDF is truncated: it ends before its %%EOF"
        " marker); " + NEXT_STEP + ".",
        id="truncated-file",
    ),
    pytest.param(
        "slow",
        DownloadTimeoutError,
        "could not reach {url} (timed out after 0.3 s). The stored documents still work; try"
        " again when online, or pass --url with a file you downloaded (a path or a file:// URL).",
        id="slow",
    ),
    pytest.param(
        "loop",
        RedirectError,
        "{url} redirects too many times; " + NEXT_STEP + ".",
        id="redirect-loop",
    ),
    pytest.param(
        "mtr-instead",
        NotDocumentFileError,
        "{url} is not a tournament document PDF (it is the MTR 2030-06-02, not the IPG); "
        + NEXT_STEP
        + ".",
        id="another-document",
    ),
    pytest.param(
        "big",
        TooLargeError,
        "{url} is {size} bytes, more than the 50000 a tournament document can be; "
        + NEXT_STEP
        + ".",
        id="too-large",
    ),
]


@pytest.mark.parametrize(("route", "kind", "message"), BAD)
def test_a_bad_download_fails_that_document_alone_and_changes_nothing(
    server: Server,
    documents: DocumentStore,
    judge_home: Path,
    route: Route | str,
    kind: type[Exception],
    message: str,
) -> None:
    path = "/ContentResources/WPN/MTG_IPG_2030May01_EN.pdf"
    pdf = document_pdf("ipg", "2030-05-01")
    limits = dict(FAST)
    max_bytes = 10_000_000
    if route == "cut":
        route = Route(pdf, send_bytes=1500)
    elif route == "no-eof":
        route = Route(pdf[: len(pdf) - 40])
    elif route == "slow":
        route, limits = Route(pdf, delay=10), {"timeout": 0.3, "total_timeout": 2.0}
    elif route == "loop":
        route = Route(status=302, headers={"Location": path})
    elif route == "mtr-instead":
        route = Route(document_pdf("mtr", "2030-06-02"))
    elif route == "big":
        route, max_bytes = Route(pdf + b" " * 60_000), 50_000
    assert isinstance(route, Route)
    server.routes[path] = route
    (mtr,) = _publish(server, ("mtr", "2029-06-02", "MTG_MTR_2029_Jun02_EN.pdf"))
    server.routes["/p"] = Route(wpn_page(mtr, path), content_type="text/html")
    from index.tournament.ingest import store_tournament_bytes

    store_tournament_bytes(judge_home, document_text("ipg", "2029-01-15").encode(), "old-ipg.txt")
    ipg_before = tree_digest(judge_home / "documents" / "ipg")
    result = update_documents(
        documents, server.url("/p"), kinds=("mtr", "ipg"), max_bytes=max_bytes, **limits
    )
    assert _statuses(result)[0] == ("mtr", "added", "2029-06-02")  # the other document still
    failed = result.documents[1]
    assert (failed.document, failed.status, failed.edition) == ("ipg", "failed", None)
    assert isinstance(failed.error, kind)
    assert failed.error.purpose == "documents"
    described = describe(failed.error)
    assert described is not None
    size = len(pdf) if route.send_bytes else len(route.body)
    expected = message.format(url=server.url(path), size=size)
    assert described.message == expected
    assert tree_digest(judge_home / "documents" / "ipg") == ipg_before
    assert documents.dates("ipg") == ["2029-01-15"]


def test_the_next_link_is_tried_when_the_newest_fails(
    server: Server, documents: DocumentStore
) -> None:
    server.routes["/d/MTG_IPG_2030May01_EN.pdf"] = Route(status=404)
    (older,) = _publish(server, ("ipg", "2029-01-15", "MTG_IPG_2029Jan15_EN.pdf"))
    server.routes["/p"] = Route(
        wpn_page("/d/MTG_IPG_2030May01_EN.pdf", older), content_type="text/html"
    )
    result = update_documents(documents, server.url("/p"), kinds=("ipg",), **FAST)
    (ipg,) = result.documents
    assert (ipg.status, ipg.edition) == ("added", "2029-01-15")
    assert [type(p).__name__ for p in ipg.problems] == ["HTTPStatusError"]


def test_a_page_without_links_is_an_error(server: Server, documents: DocumentStore) -> None:
    server.routes["/p"] = Route(b"<html><body>Nothing here</body></html>", content_type="text/html")
    with pytest.raises(NoDocumentLinkError) as caught:
        update_documents(documents, server.url("/p"), **FAST)
    described = describe(caught.value)
    assert described is not None
    assert described.message == (
        f"no MTR, IPG or JAR PDF link found on {server.url('/p')}; {NEXT_STEP} (or pass the PDF's"
        " address or path with --url)."
    )
    assert not documents.documents_dir.exists()


def test_a_page_that_is_not_there(server: Server, documents: DocumentStore) -> None:
    with pytest.raises(HTTPStatusError) as caught:
        update_documents(documents, server.url("/gone"), **FAST)
    described = describe(caught.value)
    assert described is not None
    assert described.message == f"{server.url('/gone')} answered 404 Not Found; {NEXT_STEP}."


def test_a_pdf_path_is_stored_whatever_document_it_is(
    documents: DocumentStore, tmp_path: Path
) -> None:
    pdf = tmp_path / "downloaded.pdf"
    pdf.write_bytes(document_pdf("jar", "2030-07-03"))
    result = update_documents(documents, str(pdf))
    assert _statuses(result) == [("jar", "added", "2030-07-03")]
    assert _statuses(update_documents(documents, str(pdf))) == [
        ("jar", "already-stored", "2030-07-03")
    ]
    pdf.write_bytes(b"%PDF-1.4\nnot really")
    with pytest.raises(NotDocumentFileError):
        update_documents(documents, str(pdf))


# --- the command ------------------------------------------------------------------------------


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(update_command, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_update_docs_command(server: Server, judge_home: Path) -> None:
    paths = _publish(
        server,
        ("mtr", "2030-06-02", "MTG_MTR_2030_Jun02_EN.pdf"),
        ("ipg", "2030-05-01", "MTG_IPG_2030May01_EN.pdf"),
    )
    server.routes["/p"] = Route(
        wpn_page(*paths, "/d/mtg_jar_03jul30_en.pdf"), content_type="text/html"
    )
    page = server.url("/p")
    jar = server.url("/d/mtg_jar_03jul30_en.pdf")
    # Dated names: --check reads the page alone, and cannot know that the JAR's link is dead.
    code, out, err = _invoke("--docs", "--url", page, "--check")
    assert (code, out, err) == (
        0,
        f"A newer MTR is available: 2030-06-02 ({server.url(paths[0])}).\n"
        f"A newer IPG is available: 2030-05-01 ({server.url(paths[1])}).\n"
        f"A newer JAR is available: 2030-07-03 ({jar}).\n"
        "Run `judge update --docs` to download them.\n",
        "",
    )
    code, out, err = _invoke("--docs", "--url", page)
    assert (code, out, err) == (
        1,
        f"Added the MTR 2030-06-02 from {server.url(paths[0])}.\n"
        f"Added the IPG 2030-05-01 from {server.url(paths[1])}.\n",
        f"Error: {jar} answered 404 Not Found; {NEXT_STEP}.\n"
        "Error: 1 of 3 documents not updated (JAR).\n",
    )
    server.routes["/d/mtg_jar_03jul30_en.pdf"] = Route(document_pdf("jar", "2030-07-03"))
    code, out, err = _invoke("--docs", "--url", page, "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "url": page,
        "documents": [
            {
                "document": "mtr",
                "status": "already-stored",
                "edition": "2030-06-02",
                "url": server.url(paths[0]),
            },
            {
                "document": "ipg",
                "status": "already-stored",
                "edition": "2030-05-01",
                "url": server.url(paths[1]),
            },
            {"document": "jar", "status": "added", "edition": "2030-07-03", "url": jar},
        ],
    }
    code, out, err = _invoke("--docs", "--url", page, "--check")
    assert (code, out) == (
        0,
        "Up to date: the newest MTR offered, 2030-06-02, is already stored.\n"
        "Up to date: the newest IPG offered, 2030-05-01, is already stored.\n"
        "Up to date: the newest JAR offered, 2030-07-03, is already stored.\n",
    )


def test_update_docs_json_names_the_error(server: Server, judge_home: Path) -> None:
    server.routes["/p"] = Route(wpn_page("/d/MTG_IPG_2030May01_EN.pdf"), content_type="text/html")
    code, out, err = _invoke("--docs", "--url", server.url("/p"), "--json")
    assert code == 1
    records = json.loads(out)["documents"]
    assert [(r["document"], r["status"]) for r in records] == [
        ("mtr", "failed"),
        ("ipg", "failed"),
        ("jar", "failed"),
    ]
    assert records[0]["error"] == (
        f"no MTR PDF link found on {server.url('/p')}; {NEXT_STEP} (or pass the PDF's address or"
        " path with --url)."
    )
    assert records[1]["url"] == server.url("/d/MTG_IPG_2030May01_EN.pdf")
    assert err.endswith("Error: 3 of 3 documents not updated (MTR, IPG, JAR).\n")


def test_update_docs_unreachable(judge_home: Path) -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code, out, err = _invoke("--docs", "--url", f"http://127.0.0.1:{port}/en/rules-documents")
    assert code == 1
    assert err == (
        f"Error: could not reach http://127.0.0.1:{port}/en/rules-documents (connection refused)."
        " The stored documents still work; try again when online, or pass --url with a file you"
        " downloaded (a path or a file:// URL).\n"
    )
