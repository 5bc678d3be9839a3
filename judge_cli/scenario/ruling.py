"""A replay as a ruling: the JSON of DESIGN.md (``judge check --json``), plain text and Markdown."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..render import MAX_WIDTH, wrap_lines
from .actions import Note, Replay, StateBasedAction
from .board import BoardState, Status, format_pt, object_to_dict, player_to_dict
from .perform import PERFORM

if TYPE_CHECKING:
    from .cards import CardUse

__all__ = [
    "action_sentence",
    "card_sentence",
    "ruling_json",
    "ruling_markdown",
    "ruling_text",
]

WIDTH = MAX_WIDTH


def action_sentence(a: StateBasedAction) -> str:
    """One sentence saying what an action does, for a judge to read (``PERFORM``'s sentence)."""
    what = f"{a.name} ({a.object})" if a.object else ""
    if a.name == a.object:
        what = a.object or ""
    detail = f" ({a.detail})" if a.detail else ""
    row = PERFORM.get(a.action)
    if row is None:
        return f"{what or a.player}: {a.action}{detail}."
    return row.sentence.format(
        what=what, player=a.player, value=a.value, detail=detail, bare_detail=a.detail
    )


def _note_line(n: Note, result: Replay) -> str:
    """``Name (id): note`` — the subject left out when the note already names it."""
    subject = ""
    if n.object:
        obj = result.initial.find_object(n.object) or result.final.find_object(n.object)
        name = obj.display_name if obj is not None else n.object
        if name not in n.note and n.object not in n.note:
            subject = name if name == n.object else f"{name} ({n.object})"
    elif n.player and n.player not in n.note:
        subject = n.player
    return f"{subject}: {n.note}" if subject else n.note


def _outcome_sentence(result: Replay) -> str:
    o = result.outcome
    if o.draw:
        return f"The game is a draw: {', '.join(o.losers)} lose at the same time."
    parts: list[str] = []
    if o.losers:
        parts.append(f"{_join(o.losers)} {'loses' if len(o.losers) == 1 else 'lose'} the game")
    if o.winners:
        parts.append(f"{_join(o.winners)} {'wins' if len(o.winners) == 1 else 'win'}")
    if not parts:
        return "Nobody wins or loses: the game goes on."
    return "; ".join(parts) + "."


def _join(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def status_names(board: BoardState) -> list[str]:
    """The names of the :class:`Status` flags the board raises."""
    status = board.status()
    return [flag.name or "" for flag in Status if flag and flag in status]


# ---------------------------------------------------------------------------------------------
# JSON


def ruling_json(
    result: Replay, question: str | None = None, cards: Sequence[CardUse] = ()
) -> dict[str, Any]:
    """The ``judge check --json`` object of DESIGN.md (with extra keys, never renamed ones).

    ``cards`` are the objects that name a card (:func:`.cards.load_with_cards`).
    """
    rules = result.rules
    out: dict[str, Any] = {
        "edition": rules.edition,
        "term": rules.term,
        "checks": [
            {"actions": [_action_json(a, result) for a in check]} for check in result.checks
        ],
        "notes": [
            {"rule": n.rule, "object": n.object, "player": n.player, "note": n.note}
            for n in result.notes
        ],
        "outcome": {
            "losers": list(result.outcome.losers),
            "winners": list(result.outcome.winners),
            "draw": result.outcome.draw,
        },
        "final": {
            "players": [player_to_dict(p) for p in result.final.players],
            "objects": [object_to_dict(o) for o in result.final.objects],
        },
        "warnings": status_names(result.initial),
        "cards": [use.to_json() for use in cards],
    }
    if question is not None:
        out["question"] = question
    return out


def _action_json(a: StateBasedAction, result: Replay) -> dict[str, Any]:
    return {
        "rule": a.rule,
        "action": a.action,
        "object": a.object,
        "name": a.name,
        "player": a.player,
        "text": result.rules.text(a.rule),
        "kind": a.kind.value,
        "detail": a.detail,
        "value": a.value,
    }


# ---------------------------------------------------------------------------------------------
# Plain text


def _wrap(text: str, indent: str) -> list[str]:
    return wrap_lines(text, WIDTH, indent, split_words=True)


def _quote(result: Replay, rule: str) -> str:
    text = result.rules.text(rule)
    if not text:
        return "(rule text not stored)"
    return f"“{text}”"


def card_sentence(use: CardUse) -> str:
    """What an object has from its card, for a judge to read (``judge check``'s Cards)."""
    card = use.face if use.face == use.card else f"{use.face}, a face of {use.card}"
    parts = [f"{use.object} is {card}"]
    if use.from_card:
        parts.append("from the card data: " + ", ".join(use.from_card))
    if use.from_file:
        parts.append("written in the file: " + ", ".join(use.from_file))
    text = "; ".join(parts) + "."
    for what, value in use.printed.items():
        if what == "pt":
            text += f" Printed P/T {value} is not a number: the file gives the P/T."
        else:
            text += f" Printed {what} {value} is not a counter: the file gives the counters."
    return text


def ruling_text(result: Replay, source: str | None = None, cards: Sequence[CardUse] = ()) -> str:
    """The ruling as plain text: cards, checks, quoted rules, notes, final board and outcome."""
    rules = result.rules
    lines: list[str] = []
    if rules.edition:
        head = f"Edition {rules.edition}: {rules.term}, checked as rule {rules.loop_rule} says."
    else:
        # The sample has no numbered rules: numbers follow the newest rules judge knows.
        head = (
            f"The bundled sample has no numbered rules: {rules.term} as numbered in the newest "
            f"rules known to judge, without their text, checked as rule {rules.loop_rule} says."
        )
    lines.extend(_wrap(head, ""))
    warnings = status_names(result.initial)
    if warnings:
        lines.append(f"Warning: odd board ({', '.join(warnings)}); replayed anyway.")
    lines.append("")
    if cards:
        lines.append("Cards:")
        for use in cards:
            lines.extend(wrap_lines(card_sentence(use), WIDTH, "  - ", "    ", split_words=True))
        lines.append("")
    if not result.checks:
        lines.append(f"No {rules.term[:-1]} applies.")
    for i, check in enumerate(result.checks, start=1):
        lines.append(f"Check {i}:")
        for rule, actions in _by_rule(check):
            lines.extend(_wrap(f"{rule}  {_quote(result, rule)}", "  "))
            for a in actions:
                lines.extend(
                    wrap_lines(action_sentence(a), WIDTH, "    - ", "      ", split_words=True)
                )
        lines.append("")
    if result.checks:
        lines.append(f"Check {len(result.checks) + 1}: nothing applies, so the checking stops.")
        lines.append("")
    if result.notes:
        lines.append("Notes:")
        for n in result.notes:
            text = f"{n.rule}  {_note_line(n, result)}."
            lines.extend(wrap_lines(text, WIDTH, "  - ", "    ", split_words=True))
        lines.append("")
    lines.append("Final board:")
    lines.extend("  " + line for line in str(result.final).splitlines())
    lines.append("")
    lines.append("Outcome: " + _outcome_sentence(result))
    if source:
        lines.append(source)
    return "\n".join(lines)


def _by_rule(check: list[StateBasedAction]) -> list[tuple[str, list[StateBasedAction]]]:
    groups: dict[str, list[StateBasedAction]] = {}
    for a in check:
        groups.setdefault(a.rule, []).append(a)
    return list(groups.items())


# ---------------------------------------------------------------------------------------------
# Markdown


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def _md_text(text: str) -> str:
    for mark in ("\\", "*", "_", "`", "|", "[", "<"):
        text = text.replace(mark, "\\" + mark)
    return text


def ruling_markdown(
    result: Replay,
    question: str | None = None,
    title: str | None = None,
    cards: Sequence[CardUse] = (),
) -> str:
    """The ruling as Markdown ready to paste, with the question when there was one."""
    rules = result.rules
    out: list[str] = [f"## {title or 'Ruling'}", ""]
    if question:
        out.append("**Question**")
        out.append("")
        out.extend("> " + line if line else ">" for line in question.splitlines())
        out.append("")
    if cards:
        out.append("**Cards**")
        out.append("")
        # Card text may hold Markdown's own marks ("*/1+*", "_____").
        out.extend(f"- {_md_text(card_sentence(use))}" for use in cards)
        out.append("")
    edition = rules.edition or "the bundled sample"
    out.append(f"**Answer** ({rules.term}, Comprehensive Rules {edition}, rule {rules.loop_rule}):")
    out.append("")
    if not result.checks:
        out.append(f"No {rules.term[:-1]} applies.")
        out.append("")
    for i, check in enumerate(result.checks, start=1):
        out.append(f"{i}. Check {i}:")
        for rule, actions in _by_rule(check):
            for a in actions:
                out.append(f"   - **{rule}**: {action_sentence(a)}")
            out.append(f"     > {_quote(result, rule)}")
        out.append("")
    if result.notes:
        out.append("**Notes**")
        out.append("")
        for n in result.notes:
            out.append(f"- **{n.rule}**: {_note_line(n, result)}.")
        out.append("")
    out.append(f"**Outcome:** {_outcome_sentence(result)}")
    out.append("")
    out.append("**Final board**")
    out.append("")
    out.append("| Player | Life | Poison | Lost |")
    out.append("|---|---|---|---|")
    for p in result.final.players:
        out.append(f"| {_md_escape(p.name)} | {p.life} | {p.poison} | {'yes' if p.lost else ''} |")
    out.append("")
    if result.final.objects:
        out.append("| Object | Zone | Controller | P/T | Damage | Counters | Attached to |")
        out.append("|---|---|---|---|---|---|---|")
        for o in result.final.objects:
            pt = format_pt(o.power or 0, o.toughness) if o.toughness is not None else ""
            counters = ", ".join(f"{k}: {v}" for k, v in o.counters.items() if v)
            out.append(
                f"| {_md_escape(o.display_name)} (`{o.id}`) | {o.zone} | {o.controller_name} "
                f"| {pt} | {o.damage or ''} | {_md_escape(counters)} | {o.attached_to or ''} |"
            )
        out.append("")
    return "\n".join(out)
