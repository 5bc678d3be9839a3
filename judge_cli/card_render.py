"""What ``judge card`` prints: the JSON records, and the text made from them.

Plain lines, not the Markdown renderer of :mod:`judge_cli.render`: Oracle text is one ability a
line and must never be reflowed into a paragraph; on a terminal only names are bold and long
lines wrap.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import GET_RULES
from .render import safe, style, wrap

if TYPE_CHECKING:
    from index.cards.lookup import CardDB, CardMatch
    from index.cards.rules import KeywordFinder, KeywordRules
    from index.cards.store import SnapshotInfo
    from index.edition import Edition

__all__ = ["CardAnswer", "card_answer", "card_record", "cards_text", "keyword_rules"]


class CardAnswer(NamedTuple):
    """What ``judge card NAME...`` answers, before it is printed."""

    json: dict[str, Any]
    """The ``--json`` object (``GET /api/card/NAME`` answers the same)."""
    records: list[dict[str, Any]]
    """Each card's record, as in :attr:`json`."""
    rules: KeywordRules | None
    """The rules the cards' keywords name, or ``None`` (see :attr:`note`)."""
    note: str
    """Why no rules are shown, when none are."""


Finder = Callable[["Edition"], "KeywordFinder"]
"""Gives the keyword finder of an edition (a server keeps one warm per edition)."""


def _new_finder(ed: Edition) -> KeywordFinder:
    from index.cards.rules import KeywordFinder

    return KeywordFinder(ed.store, ed.date)


def keyword_rules(
    ed: Edition, keywords: Sequence[str], *, named: bool, finder: Finder = _new_finder
) -> tuple[KeywordRules | None, str]:
    """The rules ``keywords`` name in ``ed``, or ``None`` and why there are none.

    ``named`` says that the edition was asked for by name (``--edition``, ``edition=``).
    """
    if ed.is_sample and named:
        return None, "No rules shown: the bundled sample has no numbered rules."
    if ed.is_sample:
        return None, "No rules shown: no Comprehensive Rules edition is stored. " + GET_RULES
    return finder(ed).rules(keywords), ""


def card_answer(
    db: CardDB,
    names: Sequence[str],
    edition: Callable[[], Edition],
    *,
    named: bool,
    finder: Finder = _new_finder,
) -> CardAnswer:
    """The cards ``names`` name in ``db``, with the rules of the edition ``edition()`` opens.

    The names are looked up first, so a name that finds no card is the error reported.
    """
    matches = [match for name in names for match in db.get(name)]
    keywords = list(dict.fromkeys(k for m in matches for k in m.card.keywords))
    rules, note = keyword_rules(edition(), keywords, named=named, finder=finder)
    records = [card_record(m, rules) for m in matches]
    data = {
        "source": {"date": db.info.date, "cards": db.info.cards},
        "edition": rules.edition if rules is not None else None,
        "cards": records,
    }
    return CardAnswer(data, records, rules, note)


def card_record(match: CardMatch, rules: KeywordRules | None) -> dict[str, Any]:
    """The ``judge card --json`` record of one card (``rules`` from the chosen edition)."""
    card = match.card
    by_keyword = rules.by_keyword if rules is not None else {}
    numbers: dict[str, None] = {}
    for keyword in card.keywords:
        for number in by_keyword.get(keyword, []):
            numbers.setdefault(number, None)
    return {
        "name": card.name,
        "match": match.how,
        "query": match.query,
        "layout": card.layout,
        "faces": [face.to_json() for face in card.faces],
        "rulings": [{"date": r.date, "text": r.text} for r in card.rulings],
        "rules": list(numbers),
        "keyword_rules": [
            {"keyword": keyword, "rules": by_keyword.get(keyword, [])} for keyword in card.keywords
        ]
        if rules is not None
        else [],
    }


Line = tuple[str, str]
"""``(style, text)``: style ``name`` (bold on a terminal), ``text`` or ``ruling``."""


def _face_lines(face: dict[str, Any]) -> list[Line]:
    head = face["name"] + (f" {face['mana_cost']}" if face["mana_cost"] else "")
    lines: list[Line] = [("name", safe(head))]
    if face["type_line"]:
        lines.append(("text", safe(face["type_line"])))
    if face["text"]:
        lines.extend(("text", line) for line in safe(face["text"]).split("\n"))
    if face["power"] is not None or face["toughness"] is not None:
        lines.append(("text", safe(f"{face['power'] or ''}/{face['toughness'] or ''}")))
    if face["loyalty"] is not None:
        lines.append(("text", safe(f"Loyalty: {face['loyalty']}")))
    if face["defense"] is not None:
        lines.append(("text", safe(f"Defense: {face['defense']}")))
    if face["keywords"]:
        lines.append(("text", safe("Keywords: " + ", ".join(face["keywords"]))))
    return lines


def _rules_lines(record: dict[str, Any], rules: KeywordRules) -> list[Line]:
    lines: list[Line] = [("text", f"Rules for its keywords in the {rules.edition} edition:")]
    for number in record["rules"]:
        title = rules.titles.get(number, "")
        if len(title) > 70:
            title = title[:69].rstrip() + "…"
        lines.append(("text", f"  {number}  {title}".rstrip()))
    missing = [k["keyword"] for k in record["keyword_rules"] if not k["rules"]]
    if missing:
        lines.append(("text", f"  (no rule found for {safe(', '.join(missing))})"))
    return lines


def _card_blocks(
    record: dict[str, Any], rules: KeywordRules | None, edition_note: str | None
) -> list[list[Line]]:
    blocks: list[list[Line]] = []
    if record["match"] == "fuzzy":
        query, name = safe(record["query"]), safe(record["name"])
        blocks.append([("text", f"No card named “{query}”; did you mean {name}?")])
    faces = record["faces"]
    if len(faces) > 1 or faces[0]["name"] != record["name"]:
        layout = f" ({safe(record['layout'])})" if record["layout"] else ""
        blocks.append([("name", safe(record["name"]) + layout)])
    blocks.extend(_face_lines(face) for face in faces)
    if record["rulings"]:
        blocks.append(
            [("text", "Rulings:")]
            + [("ruling", f"  {safe(r['date'])}  {safe(r['text'])}") for r in record["rulings"]]
        )
    if any(face["keywords"] for face in faces):
        if rules is not None:
            blocks.append(_rules_lines(record, rules))
        elif edition_note:
            blocks.append([("text", edition_note)])
    return blocks


def cards_text(
    records: list[dict[str, Any]],
    info: SnapshotInfo,
    rules: KeywordRules | None,
    *,
    edition_note: str | None = None,
    terminal: bool = False,
    width: int = 80,
) -> str:
    """The text answer: each card's faces, rulings and rules, then where the answer came from.

    On a terminal names are bold and long lines wrap at ``width``; otherwise plain, unwrapped.
    """
    blocks: list[list[Line]] = []
    for record in records:
        blocks.extend(_card_blocks(record, rules, edition_note))
    footer = f"Oracle card data of {safe(info.date)} ({info.cards} cards)"
    footer += f"; Comprehensive Rules effective {rules.edition}." if rules is not None else "."
    blocks.append([("text", footer)])
    return (
        "\n\n".join("\n".join(_styled(line, terminal, width) for line in b) for b in blocks) + "\n"
    )


def _styled(line: Line, terminal: bool, width: int) -> str:
    kind, text = line
    if not terminal:
        return text
    if kind == "name":
        return style(text, "strong", True)
    if len(text) <= width:
        return text
    indent = " " * (len(text) - len(text.lstrip(" ")))
    hang = indent + " " * 12 if kind == "ruling" else indent
    return wrap(text.strip(), width, indent, hang)
