"""The pages and the exported site in a real headless Chromium (Debian's), driven by Playwright.

Screenshots of each page are saved under the test's temporary folder (``*.png``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judge_cli.cli import cli

from .servefixture import corpus_home, hostile_home, running

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _need(ok: bool, why: str) -> None:
    if not ok:
        if os.environ.get("CI"):
            pytest.fail(f"{why}: CI must run the browser tests (.ci/run installs it)")
        pytest.skip(why)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    _need(Path(CHROMIUM).is_file(), "Chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _need(False, "the playwright package is not installed")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 900, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    page = browser.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.dialogs = dialogs
    yield page
    assert dialogs == [], f"a dialog opened: {dialogs}"
    page.close()


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with running(corpus_home()) as url:
        yield url


def _target_id(page: Any) -> str:
    return str(
        page.evaluate("document.querySelector(':target') && document.querySelector(':target').id")
    )


def _in_view(page: Any, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    return box is not None and 0 <= box["y"] < page.viewport_size["height"]


def test_typing_legend_rule_shows_704_5j(page: Any, base: str, tmp_path: Path) -> None:
    page.goto(base)
    assert "Comprehensive Rules effective 2026-01-16" in page.text_content("header")
    page.fill("#q", "legend rule")
    first = page.locator("#results li a").first
    first.wait_for(timeout=15000)
    assert first.text_content().startswith("704.5j")
    page.screenshot(path=str(tmp_path / "search-as-you-type.png"))
    first.click()
    page.wait_for_url("**/rules/704#R7045j")
    assert _target_id(page) == "R7045j"


def test_following_704_5j_from_205_4d_lands_on_the_anchor(
    page: Any, base: str, tmp_path: Path
) -> None:
    page.goto(base + "rules/205")
    link = page.locator("#R2054d a.ref", has_text="704.5j")
    link.click()
    page.wait_for_url("**/rules/704#R7045j")
    assert _target_id(page) == "R7045j" and _in_view(page, "#R7045j")
    page.screenshot(path=str(tmp_path / "rule-704.png"))
    # the edition picker keeps to one edition in every link
    page.select_option("#edition-picker", "2013-07-13")
    page.wait_for_url("**/rules/704?edition=2013-07-13#R7045j")  # the anchor is kept
    assert "Comprehensive Rules effective 2013-07-13" in page.text_content("header")
    page.screenshot(path=str(tmp_path / "rule-704-2013.png"))


def test_pasted_short_url_and_glossary(page: Any, base: str, tmp_path: Path) -> None:
    page.goto(base + "rules/704.5j?edition=2013-07-13")
    page.wait_for_url("**/rules/704?edition=2013-07-13#R7045j")
    page.goto(base + "glossary#Glegend-rule")
    assert _target_id(page) == "Glegend-rule" and _in_view(page, "#Glegend-rule")
    page.screenshot(path=str(tmp_path / "glossary.png"))
    page.goto(base + "search?q=legend+rule")
    assert "704.5j" in page.text_content("ol.found")
    page.screenshot(path=str(tmp_path / "search-page.png"))


def test_markup_in_a_rule_renders_as_text(page: Any, tmp_path: Path) -> None:
    with running(hostile_home()) as url:
        page.goto(url + "rules/704#R7046")
        text = page.text_content("#R7046")
        assert "<script>alert(1)</script>" in text and "<b>bold</b>" in text
        assert page.locator("#R7046 b, #R7046 img, #R7046 script").count() == 0
        page.fill("#q", "script alert")
        page.locator("#results li").first.wait_for(timeout=15000)
        page.screenshot(path=str(tmp_path / "hostile-rule.png"))
    assert page.dialogs == []


def test_the_exported_site_in_a_browser(page: Any, tmp_path: Path) -> None:
    for name, home in (("site", corpus_home()), ("hostile", hostile_home())):
        result = CliRunner().invoke(
            cli, ["export", "html", str(tmp_path / name)], env={"JUDGE_HOME": str(home)}
        )
        assert result.exit_code == 0, result.output
    site = tmp_path / "site"
    page.goto((site / "index.html").as_uri())
    page.screenshot(path=str(tmp_path / "export-index.png"))
    page.goto((site / "205.html").as_uri())
    page.locator("#R2054d a.ref", has_text="704.5j").click()
    page.wait_for_url("**/704.html#R7045j")
    assert _target_id(page) == "R7045j" and _in_view(page, "#R7045j")
    page.screenshot(path=str(tmp_path / "export-704.png"))
    page.fill("#n", "601.2a")
    page.press("#n", "Enter")
    page.wait_for_url("**/601.html#R6012a")
    page.goto((tmp_path / "hostile" / "704.html").as_uri())
    assert "<script>alert(1)</script>" in page.text_content("#R7046")
    page.screenshot(path=str(tmp_path / "export-hostile.png"))
