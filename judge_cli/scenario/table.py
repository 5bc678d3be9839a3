"""A board as text: the players and a table of objects (``str(board)``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .format import format_pt

if TYPE_CHECKING:
    from .board import BoardState, Permanent, Player

__all__ = ["board_table", "describe_player"]


def board_table(board: BoardState) -> str:
    """The board as the table a judge reads: the players, then one row per object."""
    lines = [
        f"Variant: {board.variant}" + (f"   Edition: {board.edition}" if board.edition else "")
    ]
    lines.append("Players:")
    for p in board.players:
        lines.append("  " + describe_player(p))
    header = ("id", "name", "zone", "controller", "type", "P/T", "dmg", "counters", "notes")
    rows = [header] + [_object_row(o) for o in board.objects]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines.append("Objects:" if board.objects else "Objects: none")
    if board.objects:
        for n, row in enumerate(rows):
            lines.append(
                "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
            )
            if n == 0:
                lines.append("  " + "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def describe_player(p: Player) -> str:
    """One line about a player: life, poison, speed, team, flags."""
    parts = [f"{p.name}: life {p.life}"]
    if p.poison:
        parts.append(f"poison {p.poison}")
    if p.team:
        parts.append(f"team {p.team}")
    if p.speed is not None:
        parts.append(f"speed {p.speed}")
    for commander, amount in p.commander_damage.items():
        parts.append(f"{amount} commander damage from {commander}")
    if p.drew_from_empty_library:
        parts.append("drew from an empty library")
    if p.cant_lose:
        parts.append(f"can't lose ({p.cant_lose})")
    if p.lost:
        parts.append("LOST")
    return ", ".join(parts)


def _object_row(o: Permanent) -> tuple[str, str, str, str, str, str, str, str, str]:
    type_line = " ".join(o.supertypes + o.types)
    if o.subtypes:
        type_line += " — " + " ".join(o.subtypes)
    pt = format_pt(o.power or 0, o.toughness) if o.toughness is not None else ""
    counters = ", ".join(f"{k}:{v}" for k, v in o.counters.items() if v)
    notes: list[str] = []
    if o.card:
        same = o.card.casefold() == o.name.casefold()
        notes.append("card" if same else f"card {o.card}")
    if o.attached_to:
        notes.append(f"attached to {o.attached_to}")
    notes.extend(o.keywords)
    for flag in (
        "token",
        "copy_of",
        "commander",
        "tapped",
        "deathtouch_damage",
        "ability_on_stack",
        "phased_out",
    ):
        if getattr(o, flag):
            notes.append(flag.replace("_of", "").replace("_", " "))
    if o.regeneration_shields:
        notes.append(f"{o.regeneration_shields} regeneration shield(s)")
    if o.protector:
        notes.append(f"protector {o.protector}")
    return (
        o.id,
        o.name,
        o.zone,
        o.controller_name,
        type_line,
        pt,
        str(o.damage) if o.damage else "",
        counters,
        "; ".join(notes),
    )
