"""The state-based actions that compare objects: uniqueness rules, Roles, sectors and speed.

704.5j–k (the planeswalker uniqueness rule, the legend rule), the world rule, 704.5u (space
sculptor), 704.5y (Roles) and 704.5z (speed). Each is given the objects that can take part
(``members``), on the battlefield and not phased out, in board order.
"""

from __future__ import annotations

from collections import defaultdict

from .actions import Action
from .board import Permanent
from .editions import Kind, LegendMode
from .finder import Finder, Scope, check

# -- the legend rule, the planeswalker uniqueness rule, the world rule ------------------------


def _may_be_legendary(o: Permanent) -> bool:
    return "legendary" in o.supertypes or o.has_subtype("Legend")


def _is_planeswalker(o: Permanent) -> bool:
    return o.is_type("planeswalker")


def _is_world(o: Permanent) -> bool:
    return "world" in o.supertypes


@check(Kind.PLANESWALKER_UNIQUENESS, Scope.GROUP, trait=_is_planeswalker)
def planeswalker_uniqueness(f: Finder, members: list[Permanent]) -> None:
    """704.5j (2009–2017): planeswalkers sharing a planeswalker type don't stay together."""
    by_type: dict[str, list[Permanent]] = defaultdict(list)
    for o in members:
        for subtype in o.subtypes:
            by_type[subtype].append(o)
    seen: set[str] = set()
    mode = f.rules.legend_mode
    mode = LegendMode.ALL if mode is LegendMode.OLDEST else mode
    for subtype, group in by_type.items():
        # A planeswalker sharing two types with others is handled once.
        group = [o for o in group if o.id not in seen]
        if len(group) < 2:
            continue
        seen.update(o.id for o in group)
        _uniqueness(
            f, Kind.PLANESWALKER_UNIQUENESS, "planeswalker_uniqueness_rule", group, mode, subtype
        )


@check(Kind.LEGEND_RULE, Scope.GROUP, trait=_may_be_legendary)
def legend_rule(f: Finder, members: list[Permanent]) -> None:
    """704.5j: legendary permanents with the same name don't stay together."""
    mode = f.rules.legend_mode
    by_name: dict[str, list[Permanent]] = defaultdict(list)
    for o in members:
        # Before 2004 the creature type Legend counted too ("Legends or legendary permanents").
        if o.name and ("legendary" in o.supertypes or mode is LegendMode.OLDEST):
            by_name[o.name].append(o)
    for name, group in by_name.items():
        if len(group) >= 2:
            _uniqueness(f, Kind.LEGEND_RULE, "legend_rule", group, mode, name)


def _uniqueness(
    f: Finder, kind: Kind, rule_name: str, group: list[Permanent], mode: LegendMode, label: str
) -> None:
    rule = f.rules.number(kind)
    if mode is LegendMode.ALL:
        for o in sorted(group, key=lambda g: g.id):
            f.add(
                kind,
                Action.PUT_INTO_GRAVEYARD,
                o,
                detail=f"{len(group)} {label} on the battlefield",
            )
        return
    if mode is LegendMode.OLDEST:
        stamps = [o.timestamp for o in group]
        if any(s is None for s in stamps):
            f.note(rule, f"no timestamps for every {label}: treated as a tie", group[0])
            oldest: list[Permanent] = list(group)
        else:
            first = min(s for s in stamps if s is not None)
            oldest = [o for o in group if o.timestamp == first]
        keep = oldest[0].id if len(oldest) == 1 else None
        for o in sorted(group, key=lambda g: g.id):
            if o.id != keep:
                detail = (
                    f"{keep} has been legendary the longest" if keep else "a tie for the oldest"
                )
                f.add(kind, Action.PUT_INTO_GRAVEYARD, o, detail=detail)
        return
    what = "legend" if kind is Kind.LEGEND_RULE else f"{label} planeswalker"
    by_controller: dict[str, list[Permanent]] = defaultdict(list)
    for o in group:
        by_controller[o.controller_name].append(o)
    for controller, own in by_controller.items():
        if len(own) >= 2:
            _keep_one(f, kind, rule_name, controller, own, what)
    if len(by_controller) > 1:
        f.note(
            rule,
            f"{label}: controlled by different players ({', '.join(sorted(by_controller))}); "
            "each player's own are compared separately",
            group[0],
        )


def _keep_one(
    f: Finder, kind: Kind, rule_name: str, controller: str, group: list[Permanent], what: str
) -> None:
    """The controller keeps one (their choice, else the first by id); the rest go."""
    ids = sorted(o.id for o in group)
    chosen = f.choice(rule_name, controller)
    wanted = [chosen] if isinstance(chosen, str) else chosen if isinstance(chosen, list) else []
    keep = next((i for i in wanted if i in ids), None)
    if keep is None:
        keep = ids[0]
        f.note(
            f.rules.number(kind),
            f"{controller} chooses which {what} to keep; no choice in "
            f"`choices.{rule_name}`, so the checker kept {keep} (the first by id; "
            f"options: {', '.join(ids)})",
            f.find(keep),
            controller,
        )
    for o in sorted(group, key=lambda g: g.id):
        if o.id != keep:
            f.add(kind, Action.PUT_INTO_GRAVEYARD, o, detail=f"{controller} kept {keep}")


@check(Kind.WORLD_RULE, Scope.GROUP, trait=_is_world)
def world_rule(f: Finder, worlds: list[Permanent]) -> None:
    """The world rule: only the newest world permanent stays."""
    if len(worlds) < 2:
        return

    def since(o: Permanent) -> int | None:
        return o.world_since if o.world_since is not None else o.timestamp

    stamps = [since(o) for o in worlds]
    newest: Permanent | None = None
    if all(s is not None for s in stamps):
        top = max(s for s in stamps if s is not None)
        tops = [o for o in worlds if since(o) == top]
        newest = tops[0] if len(tops) == 1 else None
    else:
        f.note(f.rules.number(Kind.WORLD_RULE), "no world timestamps: treated as a tie", worlds[0])
    for o in sorted(worlds, key=lambda g: g.id):
        if newest is None or o.id != newest.id:
            detail = f"{newest.id} is the newest world" if newest else "a tie for the newest world"
            f.add(Kind.WORLD_RULE, Action.PUT_INTO_GRAVEYARD, o, detail=detail)


# -- space sculptor: 704.5u -------------------------------------------------------------------


def _takes_sectors(o: Permanent) -> bool:
    return o.is_type("creature") or o.has_keyword("space sculptor")


@check(Kind.SPACE_SCULPTOR, Scope.GROUP, trait=_takes_sectors)
def space_sculptor(f: Finder, members: list[Permanent]) -> None:
    """704.5u: while a permanent with space sculptor is out, creatures get a sector."""
    if not any(o.has_keyword("space sculptor") for o in members):
        return
    rule = f.rules.number(Kind.SPACE_SCULPTOR)
    by_controller: dict[str, list[Permanent]] = defaultdict(list)
    for o in members:
        if o.is_type("creature") and o.sector is None:
            by_controller[o.controller_name].append(o)
    for controller, creatures in by_controller.items():
        chosen = f.choice("sector_designation", controller)
        for o in creatures:
            sector = chosen.get(o.id) if isinstance(chosen, dict) else chosen
            if isinstance(sector, str):
                f.add(
                    Kind.SPACE_SCULPTOR,
                    Action.SECTOR_CHOSEN,
                    o,
                    player=controller,
                    value=sector,
                    detail=f"{controller} chose {sector}",
                )
            else:
                f.note(
                    rule,
                    f"{controller} chooses a sector designation for {o.display_name} "
                    "(alpha, beta or gamma); give it in `choices.sector_designation`",
                    o,
                    controller,
                )


# -- Roles: 704.5y ----------------------------------------------------------------------------


def _is_role(o: Permanent) -> bool:
    return o.has_subtype("Role")


@check(Kind.ROLES, Scope.GROUP, trait=_is_role)
def roles(f: Finder, members: list[Permanent]) -> None:
    """704.5y: of the Roles one player controls on a permanent, only the newest stays."""
    groups: dict[tuple[str, str], list[Permanent]] = defaultdict(list)
    for o in members:
        if o.attached_to is not None:
            groups[(o.attached_to, o.controller_name)].append(o)
    for (host, controller), group in groups.items():
        if len(group) < 2:
            continue
        # The most recent timestamp stays; without timestamps, the last listed is the newest.
        order = {o.id: i for i, o in enumerate(group)}
        newest = max(group, key=lambda o: (o.timestamp or 0, order[o.id]))
        for o in group:
            if o is not newest:
                f.add(
                    Kind.ROLES,
                    Action.PUT_INTO_GRAVEYARD,
                    o,
                    detail=f"{controller}'s newer Role {newest.id} stays on {host}",
                )


# -- speed: 704.5z ----------------------------------------------------------------------------


def _starts_engines(o: Permanent) -> bool:
    return o.has_keyword("start your engines!")


@check(Kind.SPEED, Scope.GROUP, trait=_starts_engines)
def speed(f: Finder, engines: list[Permanent]) -> None:
    """704.5z: a player with a start your engines! permanent and no speed gets speed 1."""
    controllers = {o.controller_name for o in engines}
    for p in f.board.players:
        if p.name in controllers and p.speed is None and not p.lost:
            f.add(
                Kind.SPEED,
                Action.SPEED_SET,
                player=p.name,
                value="1",
                detail="controls a permanent with start your engines!",
            )
