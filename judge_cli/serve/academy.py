"""Routes in the shapes of the Academy Ruins API, so a bot switches by changing its base URL.

Shapes (read from lunakv/academyruins-api's ``src/cr`` router and response models; every
route also takes ``edition=``, which Academy Ruins does not have):

``GET /cr/{rule}[?find_definition=true]``
    ``{"ruleNumber": "704.5j", "ruleText": "…"}``. With ``find_definition``, a keyword rule
    (``702.3``, ``701.21``) answers with the subrule that defines it (``702.3b``), so check
    ``ruleNumber``. Not found: 404 ``{"detail": "Rule not found", "ruleNumber": "…"}``.
``GET /cr/example/{rule}``
    ``{"ruleNumber": "…", "examples": ["…"]}`` without the ``Example:`` label; ``null`` when
    the rule has none. Not found: as above.
``GET /cr/glossary/{term}[?fuzzy=true]``
    ``{"term": "Legend Rule", "definition": "…"}``: the term in any case, or with ``fuzzy``
    a close match. Not found: 404 ``{"detail": "Entry not found."}``. (``unofficial`` is
    accepted; there is no unofficial glossary here.)
``GET /cr/glossary``
    ``{"legend rule": {"term": "Legend Rule", "definition": "…"}, …}``, keyed in lower case.
``GET /cr/keywords``
    ``{"keywordAbilities": [...], "keywordActions": [...], "abilityWords": [...]}`` from rules
    702.2 on, 701.2 on and 207.2c (ability words in lower case).
``GET /cr/toc``
    ``[{"number": 1, "title": "Game Concepts", "subsections": [{"number": 100, …}]}, …]``.
``GET /cr``
    Every numbered rule (not the titles) by number: ``{"ruleNumber", "ruleText",
    "examples", "fragment", "navigation": {"previousRule", "nextRule"}}``.
``GET /file/cr``
    The edition's text in UTF-8 (``text/plain``), written back from the stored edition.

Every error body also carries this server's ``error`` (the CLI's message) and ``status``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .routes import Ask, Reply, error_body, get

if TYPE_CHECKING:
    from starlette.routing import Route

    from index.edition import Edition
    from index.model import Rule

__all__ = ["routes"]

_KEYWORD_RULE = re.compile(r"70([12])\.(\d+)")
# "Defender is a static ability." says what kind of ability, not what it does.
_ONLY_A_KIND = re.compile(r"^[^.]*\bis an?\b[^.]*\.$")
_ABILITY_WORDS = re.compile(r"The ability words are (.*)")


def _rule_not_found(ask: Ask, exc: BaseException, message: str, status: int) -> Any:
    from index.edition import NotInSampleError
    from index.model import UnknownRuleError
    from index.numbers import InvalidRuleReferenceError

    if isinstance(exc, (UnknownRuleError, InvalidRuleReferenceError, NotInSampleError)):
        body = {"detail": "Rule not found", "ruleNumber": ask.path.get("rule", "")}
        return Reply(_dump(body | error_body(message, 404)), status=404)
    return {"detail": message} | error_body(message, status)


def _term_not_found(ask: Ask, exc: BaseException, message: str, status: int) -> Any:
    from glossary.lookup import UnknownTermError

    detail = "Entry not found." if isinstance(exc, UnknownTermError) else message
    return {"detail": detail} | error_body(message, status)


def _detail(ask: Ask, exc: BaseException, message: str, status: int) -> Any:
    return {"detail": message} | error_body(message, status)


def _dump(data: Any) -> str:
    import json

    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _defining(ed: Edition, found: Rule) -> Rule:
    """For a keyword rule, the subrule that says what the keyword does (else ``found``)."""
    m = _KEYWORD_RULE.fullmatch(found.number)
    if m is None or int(m.group(2)) < 2:
        return found
    subrules = ed.subrules(found.number)
    if not subrules:
        return found
    if m.group(1) == "1":  # a keyword action: its first subrule says what doing it means
        return subrules[0]
    for sub in subrules:
        if not _ONLY_A_KIND.match(sub.text):
            return sub
    return subrules[-1]


def rule(ask: Ask) -> Any:
    """``/cr/{rule}``: one rule's number and text."""
    ed = ask.edition()
    found = ed.rule(ask.path["rule"])
    if ask.flag("find_definition"):
        found = _defining(ed, found)
    return {"ruleNumber": found.number, "ruleText": found.text}


def example(ask: Ask) -> Any:
    """``/cr/example/{rule}``: a rule's examples, or ``null``."""
    found = ask.edition().rule(ask.path["rule"])
    return {"ruleNumber": found.number, "examples": list(found.examples) or None}


def glossary_term(ask: Ask) -> Any:
    """``/cr/glossary/{term}``: exact (any case) unless ``fuzzy=true``."""
    from glossary.lookup import UnknownTermError

    ask.flag("unofficial")  # accepted for compatibility; checked for a readable value
    ed = ask.edition()
    term = ask.path["term"]
    match = ed.define(term)
    if not ask.flag("fuzzy") and match.how != "exact":
        raise UnknownTermError(term, [match.entry.term], ed.label)
    return {"term": match.entry.term, "definition": match.entry.definition}


def glossary(ask: Ask) -> Any:
    """``/cr/glossary``: every entry, keyed by its term in lower case."""
    entries = ask.edition().document.glossary
    return {e.term.lower(): {"term": e.term, "definition": e.definition} for e in entries}


def _split_names(title: str) -> list[str]:
    return [part.strip() for part in title.split(" and ") if part.strip()]


def keywords(ask: Ask) -> Any:
    """``/cr/keywords``: keyword abilities, keyword actions and ability words."""
    rules = ask.edition().document.rules
    abilities: list[str] = []
    actions: list[str] = []
    for number, found in rules.items():
        m = _KEYWORD_RULE.fullmatch(number)
        if m is not None and int(m.group(2)) >= 2:
            (abilities if m.group(1) == "2" else actions).extend(_split_names(found.text))
    words: list[str] = []
    listing = rules.get("207.2c")
    m = _ABILITY_WORDS.search(listing.text) if listing is not None else None
    if m is not None:
        words = [w for w in re.split(r", (?:and )?", m.group(1).rstrip(". ")) if w]
    return {"keywordAbilities": abilities, "keywordActions": actions, "abilityWords": words}


def toc(ask: Ask) -> Any:
    """``/cr/toc``: sections and their three-digit rules, with titles."""
    out: list[dict[str, Any]] = []
    for number, found in ask.edition().document.rules.items():
        if len(number) == 1:
            out.append({"number": int(number), "title": found.text, "subsections": []})
        elif len(number) == 3 and out:
            out[-1]["subsections"].append({"number": int(number), "title": found.text})
    return out


def all_rules(ask: Ask) -> Any:
    """``/cr``: every numbered rule with its examples and its neighbours."""
    numbered = [r for r in ask.edition().document.rules.values() if not r.is_heading]
    out: dict[str, Any] = {}
    for i, found in enumerate(numbered):
        out[found.number] = {
            "ruleNumber": found.number,
            "ruleText": found.text,
            "examples": list(found.examples) or None,
            "fragment": found.number.split(".", 1)[1],
            "navigation": {
                "previousRule": numbered[i - 1].number if i else None,
                "nextRule": numbered[i + 1].number if i + 1 < len(numbered) else None,
            },
        }
    return out


def cr_file(ask: Ask) -> Any:
    """``/file/cr``: the edition as UTF-8 text."""
    from index.cr_text import document_text

    ed = ask.edition()
    text = document_text(ed.document)
    return Reply(text, media_type="text/plain; charset=utf-8")


def routes() -> list[Route]:
    """The Academy Ruins-compatible routes (before ``/cr/{rule}``, the fixed paths)."""
    return [
        get("/cr", all_rules, _detail),
        get("/cr/keywords", keywords, _detail),
        get("/cr/toc", toc, _detail),
        get("/cr/glossary", glossary, _detail),
        get("/cr/glossary/{term:path}", glossary_term, _term_not_found),
        get("/cr/example/{rule}", example, _rule_not_found),
        get("/cr/{rule}", rule, _rule_not_found),
        get("/file/cr", cr_file, _detail),
    ]
