"""The HTML renderer and ``judge export html``: escaping, links, anchors, the site on disk."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from index.edition import Edition, open_edition
from index.store import EditionStore
from judge_cli.cli import cli
from judge_cli.web.html import Site, anchor, glossary_page, linked, rule_page, term_anchor

from .servefixture import hostile_home


@pytest.fixture(scope="module")
def hostile() -> Edition:
    return open_edition(store=EditionStore(hostile_home())).load()


@pytest.mark.parametrize(
    ("number", "expected"),
    [("704.5j", "R7045j"), ("704", "R704"), ("7", "R7"), ("100.1a", "R1001a")],
)
def test_anchors_follow_yawgatog(number: str, expected: str) -> None:
    assert anchor(number) == expected


def test_term_anchor() -> None:
    assert term_anchor("Legend Rule") == "Glegend-rule"
    assert term_anchor("Partner, “Partner—[text],”") == "Gpartner-partner-text"


def test_markup_in_a_rule_is_escaped_everywhere(hostile: Edition) -> None:
    for site in (Site(static=True), Site(static=False)):
        page = rule_page(hostile, "704", site)
        assert "<script>alert(1)</script>" not in page and "<b>bold</b>" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert "&quot;&lt;img src=x onerror=alert(2)&gt;&quot;" in page
        assert "onerror=alert(2)>" not in page
        # the page's only scripts are its own
        assert page.count("<script>") == 1


def test_references_are_links_to_their_anchor(hostile: Edition) -> None:
    html = linked(
        "See rule 704.5j, rules 704.5a–704.5f and rule 999.9.", hostile, Site(static=True)
    )
    assert '<a class="ref" href="704.html#R7045j">704.5j</a>' in html
    assert '<a class="ref" href="704.html#R7045a">704.5a–704.5f</a>' in html
    assert "999.9" in html and "R9999" not in html  # not a rule of this edition: plain text
    server = linked("rule 704.5j", hostile, Site(static=False, edition="2025-03-01"))
    assert 'href="/rules/704?edition=2025-03-01#R7045j"' in server


def test_rule_page_lists_what_cites_each_rule(hostile: Edition) -> None:
    page = rule_page(hostile, "704", Site(static=True))
    block = page[page.index('id="R7045j"') :]
    block = block[: block.index("</div>")]
    assert '<p class="cb">Cited by' in block
    assert 'href="704.html#R7046"' in block  # the hostile rule cites 704.5j
    assert 'href="glossary.html#Glegend-rule"' in block
    assert "Comprehensive Rules effective 2025-03-01" in page


def test_glossary_page_links_terms_and_rules(hostile: Edition) -> None:
    page = glossary_page(hostile, Site(static=True))
    assert '<dt id="Glegend-rule"><a href="#Glegend-rule">Legend Rule</a></dt>' in page
    assert '<a class="ref" href="704.html#R7045j">704.5j</a>' in page
    # a quoted glossary term in a rule's text links to its entry
    rules = rule_page(hostile, "704", Site(static=True))
    assert '<a class="term" href="glossary.html#Glegend-rule">legend rule.</a>' in rules


def test_export_writes_a_linked_site(tmp_path: Path) -> None:
    target = tmp_path / "site"
    env = {"JUDGE_HOME": str(hostile_home())}
    result = CliRunner().invoke(cli, ["export", "html", str(target)], env=env)
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"Wrote 7 pages of the 2025-03-01 edition to {target} (open index.html).\n"
    )
    names = sorted(p.name for p in target.iterdir())
    assert names[:4] == [".judge-export", "1.html", "100.html", "101.html"]
    assert {"index.html", "glossary.html", "704.html", "7.html"} <= set(names)
    index = (target / "index.html").read_text(encoding="utf-8")
    assert 'href="704.html">704. State-Based Actions</a>' in index
    # every link between pages names a page that was written
    for page in target.glob("*.html"):
        for href in re.findall(r'href="([^"#?:]+\.html)', page.read_text(encoding="utf-8")):
            assert (target / href).is_file(), (page.name, href)
    # exporting again replaces the earlier export whole
    (target / "stale.html").write_text("old", encoding="utf-8")
    again = CliRunner().invoke(cli, ["export", "html", str(target)], env=env)
    assert again.exit_code == 0 and not (target / "stale.html").exists()
    assert not [p for p in tmp_path.iterdir() if p.name != "site"]  # nothing left beside it


def test_export_refuses_a_folder_it_did_not_make(tmp_path: Path) -> None:
    target = tmp_path / "mine"
    target.mkdir()
    (target / "notes.txt").write_text("keep me", encoding="utf-8")
    env = {"JUDGE_HOME": str(hostile_home())}
    result = CliRunner().invoke(cli, ["export", "html", str(target)], env=env)
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {target} is not empty, and no earlier export made it. "
        "Choose a new or empty folder.\n"
    )
    assert [p.name for p in target.iterdir()] == ["notes.txt"]


def test_export_of_the_sample(tmp_path: Path) -> None:
    env = {"JUDGE_HOME": str(tmp_path / "empty")}
    result = CliRunner().invoke(cli, ["export", "html", str(tmp_path / "s")], env=env)
    assert result.exit_code == 0, result.output
    assert "the bundled sample" in (tmp_path / "s" / "index.html").read_text(encoding="utf-8")
    assert "Mana Burn" in (tmp_path / "s" / "glossary.html").read_text(encoding="utf-8")
