"""The style sheet and the script every page carries inline (no build step, no extra request).

The pages' Content-Security-Policy allows exactly these two by their hashes, so even a page
that somehow held markup from a CR file could not run it.
"""

from __future__ import annotations

import base64
import hashlib

__all__ = ["CSS", "SCRIPT", "content_security_policy"]

CSS = """
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #fdfdfb; --muted: #666; --link: #0b57d0;
  --mark: #fff3b0; --line: #ddd; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8e8e8; --bg: #17181a; --muted: #aaa;
  --link: #8ab4f8; --mark: #4a4220; --line: #333; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--fg); background: var(--bg); }
header { position: sticky; top: 0; z-index: 2; display: flex; flex-wrap: wrap; gap: .5rem 1rem;
  align-items: center; padding: .5rem 1rem; background: var(--bg);
  border-bottom: 1px solid var(--line); }
header .home { font-weight: 700; text-decoration: none; }
main, footer { max-width: 48rem; margin: 0 auto; padding: 0 1rem; }
footer { color: var(--muted); font-size: .85rem; padding: 2rem 1rem; }
a { color: var(--link); }
.search { position: relative; flex: 1 1 18rem; display: flex; gap: .3rem; }
.search input { flex: 1; min-width: 0; font: inherit; padding: .3rem .5rem; }
.search button, .picker select { font: inherit; }
#results { position: absolute; top: 100%; left: 0; right: 0; margin: 0; padding: 0;
  list-style: none; background: var(--bg); box-shadow: 0 4px 12px rgba(0,0,0,.25);
  max-height: 70vh; overflow: auto; }
#results:empty { display: none; }
#results li { padding: .4rem .6rem; border-bottom: 1px solid var(--line); }
#results a { font-weight: 600; }
#results .snip { display: block; color: var(--muted); font-size: .9rem; }
.picker, .date { margin: 0; color: var(--muted); font-size: .9rem; }
h1 { font-size: 1.5rem; line-height: 1.25; }
.crumbs { margin-top: 1rem; font-size: .9rem; }
.rule { scroll-margin-top: 5rem; padding: .1rem .5rem; border-left: 3px solid transparent; }
.rule p { margin: .35rem 0; }
.rule.d2, .rule.d3 { margin-left: 1.25rem; }
.rule:target { background: var(--mark); border-left-color: var(--link); }
.n { font-weight: 700; text-decoration: none; color: inherit; }
.ex { margin-left: 1rem; font-size: .95rem; }
.cb { font-size: .85rem; color: var(--muted); }
.toc { padding-left: 1.2rem; }
dt { font-weight: 700; margin-top: 1rem; scroll-margin-top: 5rem; }
dt:target { background: var(--mark); }
dd { margin-left: 1rem; }
dd p { margin: .3rem 0; }
.found li { margin-bottom: .8rem; }
.found p { margin: .1rem 0; }
"""

SCRIPT = """
(function () {
  "use strict";
  var body = document.body;
  var base = body.getAttribute("data-base") || "/";
  var edition = body.getAttribute("data-edition") || "";
  var isStatic = body.getAttribute("data-static") === "1";
  var NUMBER = /^\\s*(?:rule\\s+)?(\\d{3}(?:\\.\\d+[a-z]{0,2})?|\\d)\\.?\\s*$/i;

  function anchor(n) { return "R" + n.replace(/\\./g, ""); }
  function pageOf(n) { return n.split(".")[0]; }
  function query() { return edition ? "?edition=" + encodeURIComponent(edition) : ""; }
  function ruleHref(n) {
    var page = pageOf(n);
    return (isStatic ? page + ".html" : base + "rules/" + page + query()) + "#" + anchor(n);
  }
  function termAnchor(t) {
    return "G" + t.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  }
  function termHref(t) {
    return (isStatic ? "glossary.html" : base + "glossary" + query()) + "#" + termAnchor(t);
  }

  var jump = document.getElementById("jump");
  if (jump) {
    jump.addEventListener("submit", function (event) {
      event.preventDefault();
      var m = NUMBER.exec(jump.elements.n.value);
      if (m) { location.href = ruleHref(m[1].toLowerCase()); }
    });
  }

  var picker = document.getElementById("edition-picker");
  if (picker) {
    picker.addEventListener("change", function () { picker.form.submit(); });
  }

  var box = document.getElementById("q");
  var list = document.getElementById("results");
  if (!box || !list || isStatic) { return; }
  var timer = null;
  var asked = 0;

  function item(head, href, snippet) {
    var li = document.createElement("li");
    var a = document.createElement("a");
    a.textContent = head;
    if (href) { a.href = href; }
    li.appendChild(a);
    var span = document.createElement("span");
    span.className = "snip";
    span.textContent = snippet;
    li.appendChild(span);
    return li;
  }

  function show(data) {
    list.textContent = "";
    if (data.error) { list.appendChild(item(data.error, null, "")); return; }
    (data.results || []).forEach(function (r) {
      if (r.kind === "glossary") {
        list.appendChild(item(r.term + " (glossary)", termHref(r.term), r.snippet));
      } else if (r.kind === "rule") {
        var title = r.title ? " — " + r.title : "";
        list.appendChild(item(r.number + title, ruleHref(r.number), r.snippet));
      } else {
        list.appendChild(item(r.title || r.id, null, r.snippet));
      }
    });
  }

  function run() {
    var text = box.value.trim();
    var mine = ++asked;
    if (!text) { list.textContent = ""; return; }
    var url = base + "api/search?limit=10&q=" + encodeURIComponent(text);
    if (edition) { url += "&edition=" + encodeURIComponent(edition); }
    fetch(url).then(function (r) { return r.json(); }).then(function (data) {
      if (mine === asked) { show(data); }
    }).catch(function () {});
  }

  box.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(run, 120);
  });
  box.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { list.textContent = ""; }
  });
})();
"""


def _hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def content_security_policy(*, static: bool) -> str:
    """The policy of every page: nothing runs or loads but this script and style sheet."""
    connect = "'none'" if static else "'self'"
    return (
        f"default-src 'none'; script-src {_hash(SCRIPT)}; style-src {_hash(CSS)}; "
        f"connect-src {connect}; img-src 'self'; base-uri 'none'; form-action 'self'"
    )
