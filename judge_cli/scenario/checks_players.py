"""The state-based actions that make players lose: 704.5a–c and the variants' 704.6a–c."""

from __future__ import annotations

from collections import defaultdict

from .actions import Action
from .board import Permanent, Player, Variant
from .editions import Kind
from .finder import Finder, Scope, check


def _cant_lose_source(f: Finder, player: Player) -> Permanent | None:
    """The object on the battlefield that keeps this player (or, in 2HG, the team) in."""
    members = [player]
    if f.is_two_headed:
        members = [p for p in f.board.players if f.team_of(p) == f.team_of(player)]
    for member in members:
        if member.cant_lose is not None:
            source = f.find(member.cant_lose)
            if source is not None and source.zone == "battlefield":
                return source
    return None


def _lose(f: Finder, kind: Kind, player: Player, detail: str) -> None:
    source = _cant_lose_source(f, player)
    if source is not None:
        f.note(
            f.rules.number(kind),
            f"{player.name} would lose ({detail}) but can't lose the game while "
            f"{source.display_name} is on the battlefield",
            source,
            player.name,
        )
        return
    f.add(kind, Action.LOSES, player=player.name, detail=detail)


def _active(f: Finder) -> list[Player]:
    return [p for p in f.board.players if not p.lost]


def _shares_life(f: Finder) -> bool:
    """Checks if a Two-Headed Giant team's life is checked as a team's (704.6a)."""
    return f.is_two_headed and f.rules.has(Kind.TEAM_LIFE)


def _shares_poison(f: Finder) -> bool:
    return f.is_two_headed and f.rules.has(Kind.TEAM_POISON)


@check(Kind.PLAYER_LIFE, Scope.PLAYERS)
def player_life(f: Finder) -> None:
    """704.5a: a player with 0 or less life loses (a team's life in Two-Headed Giant: 704.6a)."""
    if _shares_life(f):
        return
    for p in _active(f):
        if p.life <= 0:
            _lose(f, Kind.PLAYER_LIFE, p, f"{p.life} life")


@check(Kind.EMPTY_LIBRARY, Scope.PLAYERS)
def empty_library(f: Finder) -> None:
    """704.5b: a player who attempted to draw from an empty library loses."""
    for p in _active(f):
        if p.drew_from_empty_library:
            _lose(f, Kind.EMPTY_LIBRARY, p, "drew from an empty library")


@check(Kind.POISON, Scope.PLAYERS)
def poison(f: Finder) -> None:
    """704.5c: a player with ten or more poison counters loses (a team's fifteen: 704.6b)."""
    if _shares_poison(f):
        return
    for p in _active(f):
        if p.poison >= 10:
            _lose(f, Kind.POISON, p, f"{p.poison} poison counters")


def _teams(f: Finder) -> dict[str, list[Player]]:
    teams: dict[str, list[Player]] = defaultdict(list)
    for p in _active(f):
        teams[f.team_of(p)].append(p)
    return teams


@check(Kind.TEAM_LIFE, Scope.PLAYERS)
def team_life(f: Finder) -> None:
    """704.6a: a Two-Headed Giant team with 0 or less life loses."""
    if not _shares_life(f):
        return
    for team, members in _teams(f).items():
        # A team's life total is shared: each member shows it (the lowest if they differ).
        life = min(m.life for m in members)
        if life <= 0:
            for m in members:
                _lose(f, Kind.TEAM_LIFE, m, f"team {team} has {life} life")


@check(Kind.TEAM_POISON, Scope.PLAYERS)
def team_poison(f: Finder) -> None:
    """704.6b: a Two-Headed Giant team with fifteen or more poison counters loses."""
    if not _shares_poison(f):
        return
    for team, members in _teams(f).items():
        total = sum(m.poison for m in members)
        if total >= 15:
            for m in members:
                _lose(f, Kind.TEAM_POISON, m, f"team {team} has {total} poison counters")


@check(Kind.COMMANDER_DAMAGE, Scope.PLAYERS)
def commander_damage(f: Finder) -> None:
    """704.6c: 21 or more combat damage from one commander loses the game."""
    if f.variant is not Variant.COMMANDER:
        return
    for p in _active(f):
        if not p.commander_damage:
            continue
        worst, amount = max(p.commander_damage.items(), key=lambda kv: kv[1])
        if amount >= 21:
            _lose(f, Kind.COMMANDER_DAMAGE, p, f"{amount} combat damage from {f.name_of(worst)}")
