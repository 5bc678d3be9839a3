"""The ``/api/*`` routes: each answers with exactly the JSON of its CLI command's ``--json``.

Each is a few lines over the same library calls and record builders as its command
(:mod:`judge_cli.answers`, :meth:`~index.search.SearchResults.to_json`,
:func:`~judge_cli.scenario.ruling.ruling_json`, :mod:`index.diff`); ``tests/test_serve.py``
runs each command and its route on one store and compares the two.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .routes import Ask, BadRequest, Handler, get, post

if TYPE_CHECKING:
    from starlette.routing import Route

__all__ = ["routes"]


def rule(ask: Ask) -> Any:
    """``judge rule REF --json``; ``no_subrules=true`` is ``--no-subrules``."""
    from index.numbers import parse_rule_ref

    from ..answers import rule_record
    from ..cli import _parse_refs  # the command's own reading of REF ("601.2a - h", "a, b")

    raw = ask.path["ref"]
    parsed = _parse_refs((raw,))
    if not parsed:
        parse_rule_ref(raw)  # raises the library's error for what is not a reference
    ed = ask.edition()
    no_subrules = ask.flag("no_subrules")
    records: list[dict[str, Any]] = []
    for ref in parsed:
        with_subrules = ref.with_subrules and not no_subrules
        records.extend(rule_record(ed, r, with_subrules=with_subrules) for r in ed.rules(ref))
    return {"edition": ed.date, "rules": records}


def define(ask: Ask) -> Any:
    """``judge define TERM --json``."""
    from ..answers import definition_record

    ed = ask.edition()
    return definition_record(ed, ed.define(ask.path["term"]))


def search(ask: Ask) -> Any:
    """``judge search QUERY --json --limit N --in SCOPE``: ``q=``, ``limit=``, ``in=``."""
    query = ask.required("q")
    limit = ask.whole_number("limit", 10, 1, 200)
    from index.search.kinds import SCOPES

    scope = ask.choice("in", SCOPES, "all")
    return ask.edition().search(query, limit=limit, scope=scope).to_json()


_BOARD_NAMES = {"json": "board.json", "markdown": "board.md"}


def check(ask: Ask) -> Any:
    """``judge check FILE --json``, the board POSTed as YAML, JSON or a Markdown question."""
    from index.cards.store import CardStore

    from ..scenario.cards import load_with_cards
    from ..scenario.loader import ScenarioSyntaxError, load_scenario_text
    from ..scenario.ruling import ruling_json
    from ..scenario.sba import Note, replay

    kind = ask.content_type.split(";")[0].strip().lower()
    name = next((n for k, n in _BOARD_NAMES.items() if k in kind), "board.yaml")
    try:
        text = ask.body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioSyntaxError(name, None, None, f"not UTF-8 text ({exc.reason})") from None
    # The card data of the data folder the editions come from, opened only for a board with cards.
    scenario, cards = load_with_cards(
        lambda fill: load_scenario_text(text, name, fill=fill), CardStore(ask.editions.store.root)
    )
    board = scenario.board
    edition = ask.query.get("edition") or None
    ed = ask.editions.get(edition or board.edition)
    rules = ask.editions.scenario_rules(ed)
    result = replay(board, rules)
    if edition and board.edition and edition != board.edition:
        # The command's note, word for word, so that the two answers stay the same.
        note = f"--edition {edition} overrides the file's edition {board.edition}"
        result.notes.insert(0, Note(rules.loop_rule, note))
    out = ruling_json(result, scenario.question, cards)
    if ed.is_sample:
        out["sample"] = True
    return out


def editions(ask: Ask) -> Any:
    """``judge editions --json``."""
    from ..answers import editions_records

    return editions_records(ask.editions.store)


def diff(ask: Ask) -> Any:
    """``judge diff [REF] --from E1 --to E2 [--doc KIND] --json``: ``ref=``, ``from=``, ``to=``,
    ``doc=``."""
    from index.diff import diff_documents
    from index.edition import edition_before

    to = ask.query.get("to") or None
    doc = _document_kind(ask)
    if doc is not None:
        from ..docs_diff import diff_record

        ref = ask.query.get("ref") or None
        return diff_record(_documents(ask), doc, ref, ask.query.get("from") or None, to)
    from_ = ask.query.get("from") or edition_before(to, store=ask.editions.store)
    old = ask.editions.stored(from_).document
    new = ask.editions.stored(to).document
    changes = diff_documents(old, new, ask.query.get("ref") or None)
    return {"from": old.edition, "to": new.edition, "changes": [c.to_json() for c in changes]}


def history(ask: Ask) -> Any:
    """``judge history REF [--doc KIND] --json``: ``edition=``, ``doc=``."""
    from index.diff import history as rule_history

    ref = ask.path["ref"]
    edition = ask.query.get("edition") or None
    doc = _document_kind(ask)
    if doc is not None:
        from ..docs_diff import history_record

        return history_record(_documents(ask), doc, ref, edition)
    anchor = ask.editions.store.resolve(edition) if edition is not None else None
    documents = [ed.document for ed in ask.editions.all_stored()]
    events = rule_history(documents, ref, anchor)
    return {"rule": ref.strip(), "events": [e.to_json() for e in events]}


def card(ask: Ask) -> Any:
    """``judge card NAME... --json``: ``/api/card/NAME``, or ``/api/card?name=A&name=B``."""
    from ..card_render import card_answer

    names = [ask.path["name"]] if ask.path.get("name") else []
    names += ask.every("name")
    if not [name for name in names if name.strip()]:
        raise BadRequest("give a card name: /api/card/NAME, or /api/card?name=A&name=B")
    named = bool(ask.query.get("edition"))
    db = ask.editions.cards.get()
    finder = ask.editions.keyword_finder
    return card_answer(db, names, ask.edition, named=named, finder=finder).json


def _documents(ask: Ask) -> Any:
    from index.tournament.store import DocumentStore

    return DocumentStore(ask.editions.store.root)


def _document_kind(ask: Ask) -> str | None:
    """The ``doc=`` parameter of diff and history (``--doc``), if given."""
    from index.tournament.kinds import KINDS

    if not ask.query.get("doc"):
        return None
    return ask.choice("doc", tuple(KINDS), "mtr")


def _tournament(kind: str) -> Handler:
    """The route of ``judge KIND REF... --json`` (mtr, ipg, jar): ``edition=``,
    ``cr_edition=``, and ``digital=true`` for ``--digital``."""

    def answer(ask: Ask) -> Any:
        from ..docs_answers import look_up_record

        digital = kind in ("mtr", "ipg") and ask.flag("digital")
        # The path splits into words as a shell splits `judge ipg 2.1 2.2`.
        words = ask.path.get("ref", "").split()
        if not words and kind != "jar":
            raise BadRequest(f"give a section: /api/{kind}/2.1, or a name: /api/{kind}/NAME")
        edition = ask.query.get("edition") or None
        cr_edition = None if kind == "jar" else ask.query.get("cr_edition") or None
        store = ask.editions.store
        _, _, record = look_up_record(
            store, f"d{kind}" if digital else kind, words, edition, cr_edition
        )
        return record

    answer.__name__ = kind
    answer.__doc__ = f"``judge {kind} REF... --json``."
    return answer


def routes() -> list[Route]:
    """The ``/api`` routes (``edition=`` on each)."""
    return [
        get("/api/rule/{ref}", rule),
        get("/api/define/{term:path}", define),
        get("/api/search", search),
        post("/api/check", check),
        get("/api/editions", editions),
        get("/api/diff", diff),
        get("/api/history/{ref}", history),
        # A card's name may hold a slash ("Fire // Ice"): the rest of the path is the name.
        get("/api/card/{name:path}", card),
        get("/api/card", card),
        get("/api/ipg/{ref:path}", _tournament("ipg")),
        get("/api/mtr/{ref:path}", _tournament("mtr")),
        get("/api/jar/{ref:path}", _tournament("jar")),
        get("/api/jar", _tournament("jar")),
    ]
