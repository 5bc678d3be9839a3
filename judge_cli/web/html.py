"""The one HTML renderer: rule, section, glossary, index and search pages of an edition.

The server's pages (:mod:`judge_cli.web.pages`) and ``judge export html``
(:mod:`judge_cli.web.export`) both render here; they differ only in their :class:`Site`, which
says where links point. Every text that came from a CR file goes through :func:`html.escape`
(quotes included) on its way in, and rule references are found by the library's own reader
(:func:`index.numbers.find_references`), so a link is exactly what the cross-references count.
Rule anchors follow Yawgatog's hyperlinked CR: ``#R`` and the number without dots
(``#R7045j``), so links written for it keep working after the host part is changed.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from html import escape
from string import Template
from typing import TYPE_CHECKING

from . import assets

if TYPE_CHECKING:
    from index.edition import Edition
    from index.model import Rule
    from index.search import SearchResults

__all__ = [
    "Site",
    "anchor",
    "error_page",
    "glossary_page",
    "index_page",
    "page_of",
    "rule_page",
    "search_page",
    "section_page",
    "term_anchor",
]


def anchor(number: str) -> str:
    """The anchor of a rule, as Yawgatog writes it: ``704.5j`` → ``R7045j``."""
    return "R" + number.replace(".", "")


def term_anchor(term: str) -> str:
    """The anchor of a glossary entry: ``Legend Rule`` → ``Glegend-rule``."""
    return "G" + re.sub(r"[^a-z0-9]+", "-", term.lower()).strip("-")


def page_of(number: str) -> str:
    """The page a rule is shown on: its three-digit rule, or the section itself."""
    return number.split(".", 1)[0]


@dataclass(frozen=True)
class Site:
    """Where a page's links point: the live server, or a folder of files (``static``)."""

    static: bool
    edition: str | None = None
    """The edition the URL named (``edition=``), kept in every link; ``None``: the newest."""
    base: str = "/"
    """The server's URL prefix."""
    editions: tuple[str, ...] = ()
    """The editions the picker offers (the server's stored editions)."""

    def _query(self) -> str:
        return "?" + urllib.parse.urlencode({"edition": self.edition}) if self.edition else ""

    def page(self, name: str) -> str:
        """The URL of a page: ``index``, ``glossary``, ``search`` or a rule's page (``704``)."""
        if self.static:
            return f"{name}.html"
        if name == "index":
            return self.base + self._query()
        if name in ("glossary", "search"):
            return f"{self.base}{name}{self._query()}"
        return f"{self.base}rules/{name}{self._query()}"

    def rule(self, number: str) -> str:
        """The URL of a rule: its page and its anchor."""
        return f"{self.page(page_of(number))}#{anchor(number)}"

    def term(self, term: str) -> str:
        """The URL of a glossary entry."""
        return f"{self.page('glossary')}#{term_anchor(term)}"


# --- text with its references made links -----------------------------------------------------

_QUOTED = re.compile(r"“([^”]{3,60})”")


def _glossary_links(text: str, ed: Edition, site: Site) -> str:
    """Escaped ``text`` with each quoted phrase that is a glossary term linked to its entry."""
    from glossary.entry import normalise_term

    lookup = ed.terms
    out: list[str] = []
    pos = 0
    for m in _QUOTED.finditer(text):
        key = normalise_term(m.group(1).rstrip(".,"))
        entry = lookup.by_key.get(key) or lookup.by_alias.get(key)
        if entry is None:
            continue
        out.append(escape(text[pos : m.start(1)]))
        out.append(f'<a class="term" href="{escape(site.term(entry.term))}">')
        out.append(escape(m.group(1)) + "</a>")
        pos = m.end(1)
    out.append(escape(text[pos:]))
    return "".join(out)


def linked(text: str, ed: Edition, site: Site) -> str:
    """``text`` as HTML: escaped, rule references linked, quoted glossary terms linked."""
    from index.textrefs import find_references

    rules = ed.document.rules
    out: list[str] = []
    pos = 0
    for found in find_references(text):
        target = str(found.ref.start)
        if target not in rules or found.start < pos:
            continue
        out.append(_glossary_links(text[pos : found.start], ed, site))
        href = escape(site.rule(target))
        out.append(f'<a class="ref" href="{href}">{escape(found.text)}</a>')
        pos = found.end
    out.append(_glossary_links(text[pos:], ed, site))
    return "".join(out)


def _ref_link(ref: str, site: Site) -> str:
    if ref.startswith("glossary:"):
        term = ref[len("glossary:") :]
        return f'<a class="term" href="{escape(site.term(term))}">{escape(term)}</a>'
    return f'<a class="ref" href="{escape(site.rule(ref))}">{escape(ref)}</a>'


def _label(rule: Rule) -> str:
    """The number as the CR prints it: ``704.5.`` for a numbered rule, ``704.5j`` for a subrule."""
    number = rule.number
    return number + "." if number[-1].isdigit() else number


def _rule_block(rule: Rule, ed: Edition, site: Site) -> str:
    depth = rule.number.count(".") + (0 if rule.number[-1].isdigit() else 1)
    ident = anchor(rule.number)
    number = f'<a class="n" href="#{ident}">{escape(_label(rule))}</a>'
    parts = [
        f'<div class="rule d{depth}" id="{ident}">',
        f"<p>{number} {linked(rule.text, ed, site)}</p>",
    ]
    parts.extend(
        f'<p class="ex"><em>Example:</em> {linked(example, ed, site)}</p>'
        for example in rule.examples
    )
    cited_by = ed.cited_by(rule.number)
    if cited_by:
        links = ", ".join(_ref_link(ref, site) for ref in cited_by)
        parts.append(f'<p class="cb">Cited by {links}</p>')
    parts.append("</div>")
    return "\n".join(parts)


# --- pages -----------------------------------------------------------------------------------

_PAGE = Template(
    """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="$csp">
<title>$title</title>
<style>$css</style>
</head>
<body data-base="$base" data-edition="$edition" data-static="$static">
<header>
<a class="home" href="$home">judge</a>
$search
$picker
</header>
<main>
$body
</main>
<footer>$footer</footer>
<script>$js</script>
</body>
</html>
"""
)

_SEARCH = Template(
    """<form class="search" action="$action" method="get" role="search">
<input id="q" name="q" type="search" value="$value" autocomplete="off"
 placeholder="Search: legend rule, 704.5j" aria-label="Search the rules">
$hidden<button type="submit">Search</button>
<ol id="results" aria-live="polite"></ol>
</form>"""
)

_JUMP = """<form class="search" id="jump" action="#" role="search">
<input id="n" name="n" type="text" autocomplete="off"
 placeholder="Go to rule: 704.5j" aria-label="Go to a rule by number">
<button type="submit">Go</button>
</form>"""


def _edition_label(ed: Edition) -> str:
    return "the bundled sample" if ed.is_sample else f"Comprehensive Rules effective {ed.label}"


def _picker(ed: Edition, site: Site) -> str:
    if site.static or not site.editions:
        return f'<p class="date">{escape(_edition_label(ed))}</p>'
    options = "".join(
        f'<option value="{escape(d)}"{" selected" if d == ed.date else ""}>{escape(d)}</option>'
        for d in reversed(site.editions)
    )
    return (
        '<form class="picker" method="get"><label>Edition '
        f'<select id="edition-picker" name="edition">{options}</select></label>'
        '<noscript><button type="submit">Show</button></noscript></form>'
        f'<p class="date">{escape(_edition_label(ed))}</p>'
    )


def _page(title: str, body: str, ed: Edition, site: Site, query: str = "") -> str:
    if site.static:
        search = _JUMP
    else:
        hidden = (
            f'<input type="hidden" name="edition" value="{escape(site.edition)}">'
            if site.edition
            else ""
        )
        search = _SEARCH.substitute(
            action=escape(f"{site.base}search"), value=escape(query), hidden=hidden
        )
    footer = f"{escape(_edition_label(ed))}. Rules text © Wizards of the Coast."
    return _PAGE.substitute(
        csp=escape(assets.content_security_policy(static=site.static)),
        title=escape(title),
        css=assets.CSS,
        js=assets.SCRIPT,
        base=escape(site.base),
        edition=escape(site.edition or ""),
        static="1" if site.static else "",
        home=escape(site.page("index")),
        search=search,
        picker=_picker(ed, site),
        body=body,
        footer=footer,
    )


def rule_page(ed: Edition, number: str, site: Site) -> str:
    """The page of a three-digit rule (``704``): it and every subrule, each with its anchor."""
    head = ed.document.get_rule(number)
    section = ed.document.rules.get(number[0])
    crumbs = [f'<a href="{escape(site.page("index"))}">Contents</a>']
    if section is not None:
        crumbs.append(
            f'<a href="{escape(site.page(section.number))}">'
            f"{escape(section.number)}. {escape(section.text)}</a>"
        )
    blocks = [
        f'<nav class="crumbs">{" › ".join(crumbs)}</nav>',
        f'<h1 id="{anchor(head.number)}">{escape(head.number)}. {linked(head.text, ed, site)}</h1>',
    ]
    for child in ed.document.descendants(number):
        blocks.append(_rule_block(ed.document.rules[child], ed, site))
    cited_by = ed.cited_by(number)
    if cited_by:
        links = ", ".join(_ref_link(ref, site) for ref in cited_by)
        blocks.append(f'<p class="cb">Rule {escape(number)} is cited by {links}</p>')
    return _page(f"{number}. {head.text} — {ed.label}", "\n".join(blocks), ed, site)


def section_page(ed: Edition, number: str, site: Site) -> str:
    """The page of a section (``7``): its three-digit rules, as links with their titles."""
    section = ed.document.get_rule(number)
    items = [
        f'<li><a href="{escape(site.page(child))}">{escape(child)}. '
        f"{escape(ed.document.rules[child].text)}</a></li>"
        for child in ed.document.children(number)
    ]
    body = (
        f'<nav class="crumbs"><a href="{escape(site.page("index"))}">Contents</a></nav>'
        f'<h1 id="{anchor(number)}">{escape(number)}. {escape(section.text)}</h1>'
        f'<ul class="toc">{"".join(items)}</ul>'
    )
    return _page(f"{number}. {section.text} — {ed.label}", body, ed, site)


def index_page(ed: Edition, site: Site) -> str:
    """The contents: every section and its three-digit rules, and the glossary."""
    doc = ed.document
    parts = [f"<h1>{escape(doc.title)}</h1>"]
    if ed.is_sample:
        parts.append(
            "<p>No edition is stored: this is the bundled sample (glossary excerpts). "
            "Run <code>judge update</code> for the full rules.</p>"
        )
    for number, section in doc.rules.items():
        if len(number) != 1:
            continue
        items = "".join(
            f'<li><a href="{escape(site.page(child))}">{escape(child)}. '
            f"{escape(doc.rules[child].text)}</a></li>"
            for child in doc.children(number)
        )
        parts.append(
            f'<h2><a href="{escape(site.page(number))}">{escape(number)}. '
            f'{escape(section.text)}</a></h2><ul class="toc">{items}</ul>'
        )
    parts.append(
        f'<h2><a href="{escape(site.page("glossary"))}">Glossary</a></h2>'
        f"<p>{len(doc.glossary)} terms.</p>"
    )
    return _page(f"{doc.title} — {ed.label}", "\n".join(parts), ed, site)


def glossary_page(ed: Edition, site: Site) -> str:
    """Every glossary entry, each with its anchor, its references linked."""
    rows: list[str] = [
        f'<nav class="crumbs"><a href="{escape(site.page("index"))}">Contents</a></nav>',
        "<h1>Glossary</h1>",
        "<dl>",
    ]
    for entry in ed.document.glossary:
        ident = term_anchor(entry.term)
        paragraphs = "".join(
            f"<p>{linked(p, ed, site)}</p>" for p in entry.definition.split("\n") if p.strip()
        )
        rows.append(
            f'<dt id="{ident}"><a href="#{ident}">{escape(entry.term)}</a></dt>'
            f"<dd>{paragraphs}</dd>"
        )
    rows.append("</dl>")
    return _page(f"Glossary — {ed.label}", "\n".join(rows), ed, site)


def search_page(ed: Edition, found: SearchResults, site: Site) -> str:
    """The results of a search, for a browser without JavaScript or a pasted link."""
    items: list[str] = []
    for r in found.results:
        if r.kind == "glossary" and r.term:
            head = f'<a href="{escape(site.term(r.term))}">{escape(r.term)}</a> (glossary)'
        elif r.kind == "rule" and r.number:
            title = f" — {escape(r.title)}" if r.title else ""
            head = f'<a href="{escape(site.rule(r.number))}">{escape(r.number)}</a>{title}'
        else:
            head = escape(r.title or r.id)
        items.append(f"<li><p>{head}</p><p>{escape(r.snippet)}</p></li>")
    if not items:
        hint = ", ".join(escape(s) for s in found.suggestions)
        items.append(f"<li>No results.{' Did you mean: ' + hint + '?' if hint else ''}</li>")
    body = f'<h1>Search: {escape(found.query)}</h1><ol class="found">{"".join(items)}</ol>'
    return _page(f"Search: {found.query} — {ed.label}", body, ed, site, query=found.query)


def error_page(message: str, status: int) -> str:
    """A page for a browser that asked for something that is not there."""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{status}</title><style>{assets.CSS}</style></head><body><main>"
        f'<h1>{status}</h1><p>{escape(message)}</p><p><a href="/">Contents</a></p>'
        "</main></body></html>"
    )
