"""State-based actions: finding them (as data that cite their rule), performing them, and the loop.

:func:`check_state_based_actions` looks at a board once and returns every applicable action as a
frozen :class:`StateBasedAction`; :func:`apply_actions` performs a list of them simultaneously;
:func:`replay` repeats the two until nothing applies (rule 704.3) and works out the outcome of
the game (rule 104). Nothing here prints.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from index.model import Document

from .board import BoardState, Permanent, Player
from .editions import EditionRules, Kind, LegendMode

__all__ = [
    "ACTIONS",
    "Note",
    "Outcome",
    "Replay",
    "StateBasedAction",
    "apply_actions",
    "check_state_based_actions",
    "find_actions",
    "replay",
]

ACTIONS = (
    "loses",
    "destroyed",
    "put_into_graveyard",
    "sacrificed",
    "ceases_to_exist",
    "unattached",
    "counters_removed",
    "removed_from_game",
    "regenerated",
    "not_destroyed",
    "speed_set",
    "protector_chosen",
    "sector_chosen",
    "put_into_command_zone",
    "put_on_bottom_of_scheme_deck",
    "planeswalks",
)
"""Every value of :attr:`StateBasedAction.action` (DESIGN.md's list, then the additions)."""

# Actions that don't change the board: reported, but they don't make the check repeat.
_NO_CHANGE = frozenset({"not_destroyed"})

COLORS = ("white", "blue", "black", "red", "green")


@dataclass(frozen=True)
class StateBasedAction:
    """One state-based action on one object or one player, citing its rule."""

    rule: str
    """The rule number in the edition in force (``704.5g``)."""
    kind: Kind
    """Which state-based action this is."""
    action: str
    """What happens: one of :data:`ACTIONS`."""
    object: str | None = None
    """The id of the object it happens to."""
    player: str | None = None
    """The name of the player it happens to (or who performs it)."""
    name: str | None = None
    """The object's name, for the reader."""
    detail: str = ""
    """A short explanation (``2 damage, toughness 2``)."""
    value: str | None = None
    """What was chosen or set: a protector, a sector, a speed."""
    counters: tuple[tuple[str, int], ...] = ()
    """Counters removed, by kind."""

    @property
    def changes_state(self) -> bool:
        """Checks if performing it changes the board (``not_destroyed`` does not)."""
        return self.action not in _NO_CHANGE


@dataclass(frozen=True)
class Note:
    """Something a judge would expect to happen that does not (or a choice someone must make)."""

    rule: str
    """The rule that explains it."""
    note: str
    """The explanation."""
    object: str | None = None
    """The object concerned, if any."""
    player: str | None = None
    """The player concerned, if any."""


@dataclass
class Outcome:
    """The game's result after the state-based actions (rule 104)."""

    losers: list[str] = field(default_factory=list)
    """Players who lost during the replay, in turn order."""
    winners: list[str] = field(default_factory=list)
    """Players who won: the last player or team left."""
    draw: bool = False
    """All players remaining lost at once (rule 104.4a)."""

    @property
    def is_game_over(self) -> bool:
        """Checks if someone won or the game is a draw."""
        return self.draw or bool(self.winners)


@dataclass
class Replay:
    """The result of replaying a board through the state-based actions."""

    initial: BoardState
    """The board as given."""
    final: BoardState
    """The board once no state-based action applies."""
    checks: list[list[StateBasedAction]]
    """One entry per check that did something, in order (the last, empty check is not listed)."""
    notes: list[Note]
    """Things a judge might expect that don't happen, and choices players must make."""
    outcome: Outcome
    """Who won and lost."""
    rules: EditionRules
    """The edition in force."""


# ---------------------------------------------------------------------------------------------
# Finding actions


def check_state_based_actions(
    board: BoardState, edition_rules: EditionRules | Document
) -> list[StateBasedAction]:
    """Every state-based action that applies to ``board`` now, in the order of rule 704.5."""
    return find_actions(board, _as_rules(edition_rules))[0]


def find_actions(
    board: BoardState, rules: EditionRules
) -> tuple[list[StateBasedAction], list[Note]]:
    """The applicable actions and the notes that go with them.

    Phased-out objects are treated as though they do not exist (rule 702.26b): the checks see
    the board without them and without their continuous effects; only the token rule of
    2009-2013 (and the phased-out zone before that) looks at them.
    """
    hidden = _phased_out(board)
    finder = _Finder(_without(board, hidden) if hidden else board, rules)
    finder.run()
    if hidden and rules.phased_out_tokens_cease:
        for o in board.objects:
            if o.id in hidden and o.token:
                finder.add(Kind.TOKEN_ZONE, "ceases_to_exist", o, detail="a phased-out token")
    order = {kind: i for i, kind in enumerate(Kind)}
    # Stable: within one kind, board order (players in turn order) is kept.
    finder.actions.sort(key=lambda a: order[a.kind])
    return finder.actions, finder.notes


def _phased_out(board: BoardState) -> set[str]:
    """Ids of the phased-out permanents: those marked so, and what is attached to them (an Aura
    or Equipment phases out with its permanent, rule 702.26g), however deep."""
    hidden = {o.id for o in board.objects if o.phased_out and o.zone == "battlefield"}
    grew = bool(hidden)
    while grew:
        grew = False
        for o in board.objects:
            if o.id not in hidden and o.zone == "battlefield" and o.attached_to in hidden:
                hidden.add(o.id)
                grew = True
    return hidden


def _without(board: BoardState, hidden: set[str]) -> BoardState:
    """The board as the game sees it with the ``hidden`` objects phased out."""
    view = board.copy()
    view.objects = [o for o in view.objects if o.id not in hidden]
    for o in view.objects:
        _end_effects(o, lambda source: source not in hidden)
    return view


def _end_effects(o: Permanent, keep: Callable[[str], bool]) -> None:
    """Ends the continuous effects on ``o`` whose source ``keep`` rejects, undoing their P/T."""
    if not o.effects or all(keep(e.source) for e in o.effects):
        return
    kept = []
    for e in o.effects:
        if keep(e.source):
            kept.append(e)
            continue
        if o.power is not None:
            o.power -= e.power
        if o.toughness is not None:
            o.toughness -= e.toughness
    o.effects = kept


def _as_rules(edition_rules: EditionRules | Document) -> EditionRules:
    if isinstance(edition_rules, Document):
        return EditionRules.for_document(edition_rules)
    return edition_rules


def _protection_qualities(obj: Permanent) -> list[str]:
    out: list[str] = []
    for keyword in obj.keywords:
        if keyword.startswith("protection from "):
            rest = keyword[len("protection from ") :]
            for part in rest.replace(" and from ", ",").replace(" and ", ",").split(","):
                if part.strip():
                    out.append(part.strip())
    return out


def is_protected_from(host: Permanent, source: Permanent) -> bool:
    """Checks if ``host`` has protection from a quality ``source`` has (702.16)."""
    for quality in _protection_qualities(host):
        if quality == "everything":
            return True
        if quality in COLORS and quality in source.colors:
            return True
        if quality in ("all colors", "each color") and source.colors:
            return True
        if quality == "multicolored" and len(source.colors) >= 2:
            return True
        if quality == "monocolored" and len(source.colors) == 1:
            return True
        if quality == "colorless" and not source.colors:
            return True
        singular = quality[:-1] if quality.endswith("s") else quality
        if singular in source.types or source.has_subtype(singular) or source.has_subtype(quality):
            return True
    return False


class _Finder:
    """One look at the board, in the order rule 704.5 lists the actions."""

    def __init__(self, board: BoardState, rules: EditionRules) -> None:
        self.board = board
        self.rules = rules
        self.actions: list[StateBasedAction] = []
        self.notes: list[Note] = []
        self.by_id: dict[str, Permanent] = {o.id: o for o in board.objects}
        self.players: dict[str, Player] = {p.name: p for p in board.players}
        self.battlefield = [o for o in board.objects if o.zone == "battlefield"]

    def add(self, kind: Kind, action: str, obj: Permanent | None = None, **extra: object) -> None:
        self.actions.append(
            StateBasedAction(
                rule=self.rules.number(kind),
                kind=kind,
                action=action,
                object=obj.id if obj is not None else None,
                name=obj.display_name if obj is not None else None,
                **extra,  # type: ignore[arg-type]
            )
        )

    def note(
        self, rule: str, text: str, obj: Permanent | None = None, player: str | None = None
    ) -> None:
        self.notes.append(Note(rule, text, obj.id if obj is not None else None, player))

    def choice(self, rule_name: str, player: str) -> object:
        return self.board.choices.get(rule_name, {}).get(player)

    def run(self) -> None:
        self.check_players()
        self.check_objects()
        self.check_legends()
        self.check_worlds()
        self.check_attachments()
        self.check_counters()
        self.check_sagas_and_dungeons()
        self.check_space_sculptor()
        self.check_battles()
        self.check_roles()
        self.check_speed()
        self.check_command_zone()

    # -- players: 704.5a-c, 704.6a-c ----------------------------------------------------------

    def is_two_headed(self) -> bool:
        return self.board.variant == "two-headed-giant"

    def team_of(self, player: Player) -> str:
        return (player.team or player.name) if self.is_two_headed() else player.name

    def cant_lose_source(self, player: Player) -> Permanent | None:
        """The object on the battlefield that keeps this player (or, in 2HG, the team) in."""
        members = [player]
        if self.is_two_headed():
            members = [p for p in self.board.players if self.team_of(p) == self.team_of(player)]
        for member in members:
            if member.cant_lose is not None:
                source = self.by_id.get(member.cant_lose)
                if source is not None and source.zone == "battlefield":
                    return source
        return None

    def lose(self, kind: Kind, player: Player, detail: str) -> None:
        source = self.cant_lose_source(player)
        if source is not None:
            self.note(
                self.rules.number(kind),
                f"{player.name} would lose ({detail}) but can't lose the game while "
                f"{source.display_name} is on the battlefield",
                source,
                player.name,
            )
            return
        self.add(kind, "loses", player=player.name, detail=detail)

    def check_players(self) -> None:
        r = self.rules
        two_headed = self.is_two_headed()
        team_life = two_headed and r.has(Kind.TEAM_LIFE)
        team_poison = two_headed and r.has(Kind.TEAM_POISON)
        active = [p for p in self.board.players if not p.lost]
        for p in active:
            if r.has(Kind.PLAYER_LIFE) and not team_life and p.life <= 0:
                self.lose(Kind.PLAYER_LIFE, p, f"{p.life} life")
            if r.has(Kind.EMPTY_LIBRARY) and p.drew_from_empty_library:
                self.lose(Kind.EMPTY_LIBRARY, p, "drew from an empty library")
            if r.has(Kind.POISON) and not team_poison and p.poison >= 10:
                self.lose(Kind.POISON, p, f"{p.poison} poison counters")
            if (
                r.has(Kind.COMMANDER_DAMAGE)
                and self.board.variant == "commander"
                and p.commander_damage
            ):
                worst, amount = max(p.commander_damage.items(), key=lambda kv: kv[1])
                if amount >= 21:
                    self.lose(
                        Kind.COMMANDER_DAMAGE,
                        p,
                        f"{amount} combat damage from {self.name_of(worst)}",
                    )
        if team_life or team_poison:
            teams: dict[str, list[Player]] = defaultdict(list)
            for p in active:
                teams[self.team_of(p)].append(p)
            for team, members in teams.items():
                # A team's life total is shared: each member shows it (the lowest if they differ).
                life = min(m.life for m in members)
                poison = sum(m.poison for m in members)
                for m in members:
                    if team_life and life <= 0:
                        self.lose(Kind.TEAM_LIFE, m, f"team {team} has {life} life")
                    if team_poison and poison >= 15:
                        self.lose(Kind.TEAM_POISON, m, f"team {team} has {poison} poison counters")

    def name_of(self, object_id: str) -> str:
        obj = self.by_id.get(object_id)
        return obj.display_name if obj is not None else object_id

    # -- objects: 704.5d-i ------------------------------------------------------------------

    def check_objects(self) -> None:
        r = self.rules
        for o in self.board.objects:
            if o.token and o.zone != "battlefield" and r.has(Kind.TOKEN_ZONE):
                self.add(Kind.TOKEN_ZONE, "ceases_to_exist", o, detail=f"a token in the {o.zone}")
                continue
            if o.copy_of and o.zone not in ("stack", "battlefield") and r.has(Kind.COPY_ZONE):
                self.add(Kind.COPY_ZONE, "ceases_to_exist", o, detail=f"a copy in the {o.zone}")
                continue
            if o.zone != "battlefield":
                continue
            if o.is_type("creature") and o.toughness is not None:
                self.check_creature(o, o.toughness)
            if o.is_type("planeswalker") and r.has(Kind.ZERO_LOYALTY):
                loyalty = o.counters.get("loyalty", 0)
                if loyalty <= 0:
                    self.add(Kind.ZERO_LOYALTY, "put_into_graveyard", o, detail="loyalty 0")

    def check_creature(self, o: Permanent, toughness: int) -> None:
        r = self.rules
        if toughness <= 0 and r.has(Kind.ZERO_TOUGHNESS):
            self.add(Kind.ZERO_TOUGHNESS, "put_into_graveyard", o, detail=f"toughness {toughness}")
            if o.has_keyword("indestructible") or o.regeneration_shields:
                what = (
                    "indestructible" if o.has_keyword("indestructible") else "a regeneration shield"
                )
                self.note(
                    r.number(Kind.ZERO_TOUGHNESS),
                    f"{what} doesn't help: toughness 0 or less isn't destruction",
                    o,
                )
            return
        lethal = r.has(Kind.LETHAL_DAMAGE) and o.damage > 0 and o.damage >= toughness
        if lethal:
            self.destroy(Kind.LETHAL_DAMAGE, o, f"{o.damage} damage, toughness {toughness}")
        elif o.deathtouch_damage and r.has(Kind.DEATHTOUCH):
            self.destroy(Kind.DEATHTOUCH, o, "dealt damage by a source with deathtouch")
        elif o.deathtouch_damage and r.has(Kind.LETHAL_DAMAGE):
            self.note(
                r.number(Kind.LETHAL_DAMAGE),
                "no deathtouch state-based action in this edition: only lethal damage destroys it",
                o,
            )

    def destroy(self, kind: Kind, o: Permanent, detail: str) -> None:
        if o.has_keyword("indestructible"):
            self.add(kind, "not_destroyed", o, detail=f"{detail}; indestructible")
            rule = self.rules.notes.get("indestructible", self.rules.number(kind))
            self.note(rule, "indestructible: not destroyed", o)
        elif o.regeneration_shields > 0:
            self.add(kind, "regenerated", o, detail=f"{detail}; a regeneration shield replaces it")
        else:
            self.add(kind, "destroyed", o, detail=detail)

    # -- the legend rule, the planeswalker uniqueness rule, the world rule ------------------

    def is_legendary(self, o: Permanent) -> bool:
        if "legendary" in o.supertypes:
            return True
        # Before 2004 the creature type Legend counted too ("Legends or legendary permanents").
        return self.rules.legend_mode is LegendMode.OLDEST and o.has_subtype("Legend")

    def keep_one(
        self, kind: Kind, rule_name: str, controller: str, group: list[Permanent], what: str
    ) -> None:
        """The controller keeps one (their choice, else the first by id); the rest go."""
        ids = sorted(o.id for o in group)
        chosen = self.choice(rule_name, controller)
        wanted = [chosen] if isinstance(chosen, str) else chosen if isinstance(chosen, list) else []
        keep = next((i for i in wanted if i in ids), None)
        if keep is None:
            keep = ids[0]
            self.note(
                self.rules.number(kind),
                f"{controller} chooses which {what} to keep; no choice in "
                f"`choices.{rule_name}`, so the checker kept {keep} (the first by id; "
                f"options: {', '.join(ids)})",
                self.by_id[keep],
                controller,
            )
        for o in sorted(group, key=lambda g: g.id):
            if o.id != keep:
                self.add(
                    kind, "put_into_graveyard", o, player=None, detail=f"{controller} kept {keep}"
                )

    def check_legends(self) -> None:
        r = self.rules
        mode = r.legend_mode
        if r.has(Kind.LEGEND_RULE):
            by_name: dict[str, list[Permanent]] = defaultdict(list)
            for o in self.battlefield:
                if o.name and self.is_legendary(o):
                    by_name[o.name].append(o)
            for name, group in by_name.items():
                if len(group) < 2:
                    continue
                self.apply_uniqueness(Kind.LEGEND_RULE, "legend_rule", group, mode, name)
        if r.has(Kind.PLANESWALKER_UNIQUENESS):
            by_type: dict[str, list[Permanent]] = defaultdict(list)
            for o in self.battlefield:
                if o.is_type("planeswalker"):
                    for subtype in o.subtypes:
                        by_type[subtype].append(o)
            seen: set[str] = set()
            for subtype, group in by_type.items():
                if len(group) < 2:
                    continue
                # A planeswalker sharing two types with others is handled once.
                group = [o for o in group if o.id not in seen]
                if len(group) < 2:
                    continue
                seen.update(o.id for o in group)
                pw_mode = LegendMode.ALL if mode is LegendMode.OLDEST else mode
                self.apply_uniqueness(
                    Kind.PLANESWALKER_UNIQUENESS,
                    "planeswalker_uniqueness_rule",
                    group,
                    pw_mode,
                    subtype,
                )

    def apply_uniqueness(
        self, kind: Kind, rule_name: str, group: list[Permanent], mode: LegendMode, label: str
    ) -> None:
        rule = self.rules.number(kind)
        what = "legend" if kind is Kind.LEGEND_RULE else f"{label} planeswalker"
        if mode is LegendMode.ALL:
            for o in sorted(group, key=lambda g: g.id):
                self.add(
                    kind, "put_into_graveyard", o, detail=f"{len(group)} {label} on the battlefield"
                )
            return
        if mode is LegendMode.OLDEST:
            stamps = [o.timestamp for o in group]
            if any(s is None for s in stamps):
                self.note(rule, f"no timestamps for every {label}: treated as a tie", group[0])
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
                    self.add(kind, "put_into_graveyard", o, detail=detail)
            return
        by_controller: dict[str, list[Permanent]] = defaultdict(list)
        for o in group:
            by_controller[o.controller_name].append(o)
        for controller, own in by_controller.items():
            if len(own) >= 2:
                self.keep_one(kind, rule_name, controller, own, what)
        if len(by_controller) > 1:
            self.note(
                rule,
                f"{label}: controlled by different players ({', '.join(sorted(by_controller))}); "
                "each player's own are compared separately",
                group[0],
            )

    def check_worlds(self) -> None:
        if not self.rules.has(Kind.WORLD_RULE):
            return
        worlds = [o for o in self.battlefield if "world" in o.supertypes]
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
            self.note(
                self.rules.number(Kind.WORLD_RULE),
                "no world timestamps: treated as a tie",
                worlds[0],
            )
        for o in sorted(worlds, key=lambda g: g.id):
            if newest is None or o.id != newest.id:
                detail = (
                    f"{newest.id} is the newest world" if newest else "a tie for the newest world"
                )
                self.add(Kind.WORLD_RULE, "put_into_graveyard", o, detail=detail)

    # -- attachments: 704.5m, n, p ----------------------------------------------------------

    def check_attachments(self) -> None:
        r = self.rules
        for o in self.battlefield:
            is_aura = o.has_subtype("Aura")
            is_gear = o.has_subtype("Equipment") or o.has_subtype("Fortification")
            creature_like = o.is_type("creature") or o.is_type("battle")
            if (
                o.attached_to is not None
                and creature_like
                and r.creatures_attached_rule
                and r.has(Kind.ILLEGAL_ATTACHMENT)
            ):
                self.add(
                    Kind.ILLEGAL_ATTACHMENT,
                    "unattached",
                    o,
                    detail=f"a {o.types[0]} can't be attached",
                )
                continue
            if is_aura:
                if r.has(Kind.ILLEGAL_AURA):
                    reason = self.aura_problem(o)
                    if reason:
                        self.add(Kind.ILLEGAL_AURA, "put_into_graveyard", o, detail=reason)
                continue
            if o.attached_to is None:
                continue
            if is_gear:
                if r.has(Kind.ILLEGAL_EQUIPMENT):
                    reason = self.gear_problem(o)
                    if reason:
                        self.add(Kind.ILLEGAL_EQUIPMENT, "unattached", o, detail=reason)
                continue
            if r.has(Kind.ILLEGAL_ATTACHMENT):
                self.add(
                    Kind.ILLEGAL_ATTACHMENT,
                    "unattached",
                    o,
                    detail="neither an Aura, an Equipment nor a Fortification",
                )

    def aura_problem(self, aura: Permanent) -> str:
        """Why an Aura is illegally attached (or not attached), or ``""``."""
        if aura.attached_to is None:
            return "not attached to anything"
        if aura.attached_to == aura.id:
            return "attached to itself"
        if aura.is_type("creature"):
            return "an Aura that's also a creature can't enchant anything"
        spec = (aura.enchant or "").lower().strip()
        if aura.attached_to in self.players and aura.attached_to not in self.by_id:
            player = self.players[aura.attached_to]
            if player.lost:
                return f"enchanted player {player.name} has left the game"
            if not spec or _enchant_allows_player(spec, aura, player.name):
                return ""
            return f"can't enchant a player (enchant {spec})"
        host = self.by_id.get(aura.attached_to)
        if host is None:
            return f"attached to {aura.attached_to}, which doesn't exist"
        if host.zone != "battlefield" and "graveyard" not in spec:
            return f"{host.display_name} is in the {host.zone}"
        if spec and not _enchant_allows_object(spec, aura, host):
            return f"{host.display_name} isn't a legal object for enchant {spec}"
        if is_protected_from(host, aura):
            return f"{host.display_name} has protection from a quality of {aura.display_name}"
        return ""

    def gear_problem(self, gear: Permanent) -> str:
        """Why an Equipment or Fortification is attached illegally, or ``""``."""
        target = gear.attached_to
        assert target is not None
        if target == gear.id:
            return "attached to itself"
        host = self.by_id.get(target)
        if host is None:
            return (
                f"attached to player {target}"
                if target in self.players
                else f"{target} doesn't exist"
            )
        if host.zone != "battlefield":
            return f"{host.display_name} is in the {host.zone}"
        if gear.is_type("creature"):
            return "an Equipment or Fortification that's also a creature can't be attached"
        if gear.has_subtype("Equipment") and not host.is_type("creature"):
            return f"{host.display_name} isn't a creature"
        if (
            gear.has_subtype("Fortification")
            and not gear.has_subtype("Equipment")
            and not host.is_type("land")
        ):
            return f"{host.display_name} isn't a land"
        if is_protected_from(host, gear):
            return f"{host.display_name} has protection from a quality of {gear.display_name}"
        return ""

    # -- counters: 704.5q, r ----------------------------------------------------------------

    def check_counters(self) -> None:
        r = self.rules
        for o in self.battlefield:
            plus = o.counters.get("+1/+1", 0)
            minus = o.counters.get("-1/-1", 0)
            if plus > 0 and minus > 0 and r.has(Kind.COUNTER_ANNIHILATION):
                n = min(plus, minus)
                self.add(
                    Kind.COUNTER_ANNIHILATION,
                    "counters_removed",
                    o,
                    detail=f"{n} +1/+1 and {n} -1/-1 counters removed",
                    counters=(("+1/+1", n), ("-1/-1", n)),
                )
            if o.max_counters and r.has(Kind.COUNTER_LIMIT):
                for kind, cap in sorted(o.max_counters.items()):
                    have = o.counters.get(kind, 0)
                    if have > cap:
                        self.add(
                            Kind.COUNTER_LIMIT,
                            "counters_removed",
                            o,
                            detail=f"{have - cap} {kind} counters over the limit of {cap}",
                            counters=((kind, have - cap),),
                        )

    # -- Sagas, dungeons: 704.5s, t ---------------------------------------------------------

    def check_sagas_and_dungeons(self) -> None:
        r = self.rules
        if r.has(Kind.SAGA):
            for o in self.battlefield:
                if not o.has_subtype("Saga") or o.final_chapter is None or not o.chapter_abilities:
                    continue
                lore = o.counters.get("lore", 0)
                if lore < o.final_chapter:
                    continue
                if o.ability_on_stack:
                    self.note(
                        r.number(Kind.SAGA),
                        f"{lore} lore counters, final chapter {o.final_chapter}, but a chapter "
                        "ability is still on the stack: not sacrificed yet",
                        o,
                    )
                else:
                    self.add(
                        Kind.SAGA,
                        "sacrificed",
                        o,
                        player=o.controller_name,
                        detail=f"{lore} lore counters, final chapter {o.final_chapter}",
                    )
        if r.has(Kind.DUNGEON):
            for o in self.board.objects:
                if o.is_type("dungeon") and o.zone == "command" and o.venture_on_last_room:
                    if o.ability_on_stack:
                        self.note(
                            r.number(Kind.DUNGEON), "its last room ability is on the stack", o
                        )
                    else:
                        self.add(
                            Kind.DUNGEON,
                            "removed_from_game",
                            o,
                            player=o.owner_name,
                            detail="venture marker on the bottommost room",
                        )

    # -- space sculptor: 704.5u -------------------------------------------------------------

    def check_space_sculptor(self) -> None:
        if not self.rules.has(Kind.SPACE_SCULPTOR):
            return
        sculptors = [o for o in self.battlefield if o.has_keyword("space sculptor")]
        if not sculptors:
            return
        rule = self.rules.number(Kind.SPACE_SCULPTOR)
        waiting = [o for o in self.battlefield if o.is_type("creature") and o.sector is None]
        by_controller: dict[str, list[Permanent]] = defaultdict(list)
        for o in waiting:
            by_controller[o.controller_name].append(o)
        for controller, creatures in by_controller.items():
            chosen = self.choice("sector_designation", controller)
            for o in creatures:
                sector = chosen.get(o.id) if isinstance(chosen, dict) else chosen
                if isinstance(sector, str):
                    self.add(
                        Kind.SPACE_SCULPTOR,
                        "sector_chosen",
                        o,
                        player=controller,
                        value=sector,
                        detail=f"{controller} chose {sector}",
                    )
                else:
                    self.note(
                        rule,
                        f"{controller} chooses a sector designation for {o.display_name} "
                        "(alpha, beta or gamma); give it in `choices.sector_designation`",
                        o,
                        controller,
                    )

    # -- battles: 704.5v, w, x --------------------------------------------------------------

    def check_battles(self) -> None:
        r = self.rules
        for o in self.battlefield:
            if not o.is_type("battle"):
                continue
            if r.has(Kind.BATTLE_DEFENSE) and o.counters.get("defense", 0) <= 0:
                if o.ability_on_stack:
                    self.note(
                        r.number(Kind.BATTLE_DEFENSE),
                        "defense 0, but its ability is on the stack",
                        o,
                    )
                else:
                    self.add(Kind.BATTLE_DEFENSE, "put_into_graveyard", o, detail="defense 0")
                    continue
            protector = self.players.get(o.protector) if o.protector else None
            if protector is not None and protector.lost:
                protector = None
            if protector is None and not o.attacked and r.has(Kind.BATTLE_PROTECTOR):
                self.choose_protector(Kind.BATTLE_PROTECTOR, o)
            elif (
                protector is not None
                and o.has_subtype("Siege")
                and protector.name == o.controller_name
                and r.has(Kind.SIEGE_PROTECTOR)
            ):
                self.choose_protector(Kind.SIEGE_PROTECTOR, o)

    def choose_protector(self, kind: Kind, battle: Permanent) -> None:
        controller = battle.controller_name
        candidates = [p.name for p in self.board.players if not p.lost]
        if battle.has_subtype("Siege") or kind is Kind.SIEGE_PROTECTOR:
            candidates = [n for n in candidates if n != controller]
        if not candidates:
            self.add(kind, "put_into_graveyard", battle, detail="no player can be its protector")
            return
        chosen = self.choice("battle_protector", controller)
        pick = chosen.get(battle.id) if isinstance(chosen, dict) else chosen
        if len(candidates) == 1 and pick is None:
            pick = candidates[0]
        if isinstance(pick, str) and pick in candidates:
            self.add(
                kind,
                "protector_chosen",
                battle,
                player=controller,
                value=pick,
                detail=f"{controller} chose {pick}",
            )
            return
        self.note(
            self.rules.number(kind),
            f"{controller} chooses a protector for {battle.display_name} from "
            f"{', '.join(candidates)}; give it in `choices.battle_protector`",
            battle,
            controller,
        )

    # -- Roles: 704.5y ----------------------------------------------------------------------

    def check_roles(self) -> None:
        if not self.rules.has(Kind.ROLES):
            return
        groups: dict[tuple[str, str], list[Permanent]] = defaultdict(list)
        for o in self.battlefield:
            if o.has_subtype("Role") and o.attached_to is not None:
                groups[(o.attached_to, o.controller_name)].append(o)
        for (host, controller), roles in groups.items():
            if len(roles) < 2:
                continue
            # The most recent timestamp stays; without timestamps, the last listed is the newest.
            order = {o.id: i for i, o in enumerate(roles)}
            newest = max(roles, key=lambda o: (o.timestamp or 0, order[o.id]))
            for o in roles:
                if o is not newest:
                    self.add(
                        Kind.ROLES,
                        "put_into_graveyard",
                        o,
                        detail=f"{controller}'s newer Role {newest.id} stays on {host}",
                    )

    # -- speed: 704.5z ----------------------------------------------------------------------

    def check_speed(self) -> None:
        if not self.rules.has(Kind.SPEED):
            return
        engines = {
            o.controller_name for o in self.battlefield if o.has_keyword("start your engines!")
        }
        for p in self.board.players:
            if p.name in engines and p.speed is None and not p.lost:
                self.add(
                    Kind.SPEED,
                    "speed_set",
                    player=p.name,
                    value="1",
                    detail="controls a permanent with start your engines!",
                )

    # -- variants: 704.6d-f -----------------------------------------------------------------

    def check_command_zone(self) -> None:
        r = self.rules
        if r.has(Kind.COMMANDER_ZONE) and self.board.variant == "commander":
            for o in self.board.objects:
                if not (o.commander and o.zone in ("graveyard", "exile") and o.moved_since_check):
                    continue
                owner = o.owner_name
                chosen = self.choice("commander_to_command_zone", owner)
                if (
                    chosen is True
                    or chosen == o.id
                    or (isinstance(chosen, list) and o.id in chosen)
                ):
                    self.add(Kind.COMMANDER_ZONE, "put_into_command_zone", o, player=owner)
                elif chosen is None:
                    self.note(
                        r.number(Kind.COMMANDER_ZONE),
                        f"{owner} may put {o.display_name} into the command zone or leave it in "
                        f"the {o.zone}; give it in `choices.commander_to_command_zone`",
                        o,
                        owner,
                    )
        if r.has(Kind.SCHEME):
            for o in self.board.objects:
                if (
                    o.is_type("scheme")
                    and o.zone == "command"
                    and o.face_up
                    and "ongoing" not in o.supertypes
                    and not o.ability_on_stack
                ):
                    self.add(Kind.SCHEME, "put_on_bottom_of_scheme_deck", o, player=o.owner_name)
        if r.has(Kind.PHENOMENON):
            for o in self.board.objects:
                if (
                    o.is_type("phenomenon")
                    and o.zone == "command"
                    and o.face_up
                    and not o.ability_on_stack
                ):
                    self.add(Kind.PHENOMENON, "planeswalks", o, player=o.controller_name)


_TYPE_WORDS = (
    "creature",
    "artifact",
    "enchantment",
    "land",
    "planeswalker",
    "battle",
    "instant",
    "sorcery",
    "kindred",
    "tribal",
)


def _enchant_allows_player(spec: str, aura: Permanent, player: str) -> bool:
    for alternative in spec.split(" or "):
        words = alternative.split()
        if "player" in words:
            return True
        if "opponent" in words and player != aura.controller_name:
            return True
        if alternative.strip() == "you" and player == aura.controller_name:
            return True
    return False


def _enchant_allows_object(spec: str, aura: Permanent, host: Permanent) -> bool:
    """Checks if ``host`` matches an enchant specification such as ``creature you control``."""
    for alternative in spec.replace(",", " or ").split(" or "):
        words = alternative.split()
        if not words:
            continue
        ok = True
        if "you control" in alternative and host.controller_name != aura.controller_name:
            ok = False
        if ("opponent controls" in alternative or "you don't control" in alternative) and (
            host.controller_name == aura.controller_name
        ):
            ok = False
        for word in words:
            base = word[:-1] if word.endswith("s") and word[:-1] in _TYPE_WORDS else word
            if base in (
                "permanent",
                "card",
                "object",
                "you",
                "control",
                "controls",
                "an",
                "a",
                "opponent",
                "don't",
                "in",
                "graveyard",
            ):
                continue
            if base.startswith("non") and len(base) > 3:
                negated = base[3:].lstrip("-")
                if negated in host.types or host.has_subtype(negated) or negated in host.supertypes:
                    ok = False
                continue
            if base in _TYPE_WORDS:
                if base not in host.types:
                    ok = False
            elif base in ("legendary", "basic", "snow", "world"):
                if base not in host.supertypes:
                    ok = False
            elif base in COLORS:
                if base not in host.colors:
                    ok = False
            elif base in ("tapped", "untapped"):
                if host.tapped != (base == "tapped"):
                    ok = False
            elif not host.has_subtype(base):
                ok = False
        if "graveyard" in alternative and host.zone != "graveyard":
            ok = False
        if ok:
            return True
    return False


# ---------------------------------------------------------------------------------------------
# Performing actions


def _leave_battlefield(o: Permanent, zone: str) -> None:
    """Moves an object to ``zone`` as a new object: damage, counters and attachments go."""
    if o.zone == "battlefield":
        for e in o.effects:
            if o.power is not None:
                o.power -= e.power
            if o.toughness is not None:
                o.toughness -= e.toughness
        net = o.counters.get("+1/+1", 0) - o.counters.get("-1/-1", 0)
        if o.power is not None:
            o.power -= net
        if o.toughness is not None:
            o.toughness -= net
        o.effects = []
        o.counters = {}
        o.damage = 0
        o.deathtouch_damage = False
        o.attached_to = None
        o.tapped = False
        o.in_combat = False
        o.regeneration_shields = 0
        o.attacked = False
        o.protector = None
        o.sector = None
    o.zone = zone
    o.moved_since_check = True


def _remove_counters(o: Permanent, kind: str, amount: int) -> None:
    have = o.counters.get(kind, 0)
    removed = min(have, amount)
    left = have - removed
    if left:
        o.counters[kind] = left
    else:
        o.counters.pop(kind, None)
    # pt is after counters, so it changes with them.
    sign = 1 if kind == "+1/+1" else -1 if kind == "-1/-1" else 0
    if sign:
        if o.power is not None:
            o.power -= sign * removed
        if o.toughness is not None:
            o.toughness -= sign * removed


def apply_actions(
    board: BoardState,
    actions: Iterable[StateBasedAction],
    rules: EditionRules | None = None,
) -> list[Note]:
    """Performs ``actions`` simultaneously on ``board`` (in place), then what follows from them.

    What follows: continuous effects whose source left the battlefield end, and whatever was
    attached to an object that left is no longer attached to it. Returns notes about
    consequences that are not state-based actions (a Two-Headed Giant teammate losing too).
    """
    by_id = {o.id: o for o in board.objects}
    players = {p.name: p for p in board.players}
    notes: list[Note] = []
    leaving: dict[str, str] = {}
    gone: set[str] = set()
    lost_now: list[str] = []
    for a in actions:
        if not a.changes_state:
            continue
        o = by_id.get(a.object) if a.object else None
        if a.action == "loses" and a.player in players:
            if not players[a.player].lost:
                lost_now.append(a.player)
            players[a.player].lost = True
        elif o is None:
            if a.action == "speed_set" and a.player in players:
                players[a.player].speed = int(a.value or 1)
        elif a.action in ("destroyed", "put_into_graveyard", "sacrificed"):
            leaving[o.id] = "graveyard"
        elif a.action == "ceases_to_exist" or a.action == "removed_from_game":
            gone.add(o.id)
        elif a.action == "put_into_command_zone":
            leaving[o.id] = "command"
        elif a.action == "unattached":
            o.attached_to = None
        elif a.action == "counters_removed":
            for kind, amount in a.counters:
                _remove_counters(o, kind, amount)
        elif a.action == "regenerated":
            o.regeneration_shields -= 1
            o.tapped = True
            o.damage = 0
            o.deathtouch_damage = False
            o.in_combat = False
        elif a.action == "protector_chosen":
            o.protector = a.value
        elif a.action == "sector_chosen":
            o.sector = a.value
        elif a.action in ("put_on_bottom_of_scheme_deck", "planeswalks"):
            o.face_up = False
    for object_id, zone in leaving.items():
        _leave_battlefield(by_id[object_id], zone)
    if lost_now:
        notes += _players_leave(board, lost_now, gone, rules)
    if gone:
        board.objects = [o for o in board.objects if o.id not in gone]
    left = set(leaving) | gone
    if left:
        on_battlefield = {o.id for o in board.objects if o.zone == "battlefield"}
        for o in board.objects:
            if o.zone != "battlefield":
                continue
            if o.attached_to is not None and o.attached_to in left:
                o.attached_to = None
            _end_effects(o, on_battlefield.__contains__)
    if board.variant == "two-headed-giant":
        lost_teams = {p.team or p.name for p in board.players if p.lost}
        for p in board.players:
            if not p.lost and (p.team or p.name) in lost_teams:
                p.lost = True
                rule = rules.notes.get("team_loses", "810.8a") if rules else "810.8a"
                notes.append(Note(rule, f"{p.name} loses with their team", None, p.name))
    return notes


def _players_leave(
    board: BoardState, names: list[str], gone: set[str], rules: EditionRules | None
) -> list[Note]:
    """Rule 800.4a: players who lost a multiplayer game that goes on leave it, with their things.

    Everything they own leaves the game (added to ``gone``); what they control through an
    effect goes back to its owner. Only in a game that began with three or more players and
    still has two or more in it (in two players' games the game is over; Two-Headed Giant
    teams lose together, rule 810.8a), and only in editions that have the rule.
    """
    rule = rules.notes.get("leaves_game") if rules is not None else "800.4a"
    if rule is None or board.variant == "two-headed-giant" or len(board.players) < 3:
        return []
    if sum(1 for p in board.players if not p.lost) < 2:
        return []
    notes: list[Note] = []
    for name in names:
        owned = [o for o in board.objects if o.owner_name == name and o.id not in gone]
        gone.update(o.id for o in owned)
        things = f"the {len(owned)} object{'s' if len(owned) != 1 else ''} they own leave"
        notes.append(Note(rule, f"{name} leaves the game; {things} with them", None, name))
        for o in board.objects:
            if o.id not in gone and o.controller_name == name and o.owner_name != name:
                o.controller = None  # the control effect ends: the owner controls it again
                notes.append(Note(rule, f"{o.name} goes back to {o.owner_name}", o.id, name))
    return notes


def _end_of_check(board: BoardState, moved: set[str]) -> None:
    """What "since the last time state-based actions were checked" forgets after a check."""
    for p in board.players:
        if not p.lost:
            p.drew_from_empty_library = False
    for o in board.objects:
        o.deathtouch_damage = False
        # Only commanders care (704.6d); other objects keep the default so files stay short.
        if o.commander and o.id not in moved:
            o.moved_since_check = False


# ---------------------------------------------------------------------------------------------
# The loop of rule 704.3 and the outcome of rule 104


MAX_CHECKS = 10_000


def replay(board: BoardState, edition_rules: EditionRules | Document) -> Replay:
    """Checks, performs and repeats until no state-based action applies (704.3); then 104."""
    rules = _as_rules(edition_rules)
    current = board.copy()
    checks: list[list[StateBasedAction]] = []
    notes: list[Note] = []
    seen_notes: set[Note] = set()
    reported_not_destroyed: set[str] = set()
    teams_at_start = _teams(current, only_active=True)
    for _ in range(MAX_CHECKS):
        actions, found_notes = find_actions(current, rules)
        for n in found_notes:
            if n not in seen_notes:
                seen_notes.add(n)
                notes.append(n)
        performed = [a for a in actions if a.changes_state]
        if not performed:
            _end_of_check(current, set())
            break
        shown = []
        for a in actions:
            if a.action == "not_destroyed":
                if a.object in reported_not_destroyed:
                    continue
                reported_not_destroyed.add(a.object or "")
            shown.append(a)
        checks.append(shown)
        before = {o.id: o.zone for o in current.objects}
        for n in apply_actions(current, performed, rules):
            if n not in seen_notes:
                seen_notes.add(n)
                notes.append(n)
        moved = {o.id for o in current.objects if before.get(o.id) != o.zone}
        _end_of_check(current, moved)
        if len(teams_at_start) >= 2 and len(_teams(current, only_active=True)) <= 1:
            # The game is over (rule 104.2a, 104.4a): nobody checks again.
            break
    else:
        notes.append(Note(rules.loop_rule, f"stopped after {MAX_CHECKS} checks"))
    outcome = _outcome(board, current)
    return Replay(board, current, checks, notes, outcome, rules)


def _teams(board: BoardState, only_active: bool) -> set[str]:
    two_headed = board.variant == "two-headed-giant"
    return {
        (p.team or p.name) if two_headed else p.name
        for p in board.players
        if not (only_active and p.lost)
    }


def _outcome(initial: BoardState, final: BoardState) -> Outcome:
    was_in = {p.name for p in initial.players if not p.lost}
    losers = [p.name for p in final.players if p.lost and p.name in was_in]
    remaining = [p for p in final.players if not p.lost]
    teams_left = _teams(final, only_active=True)
    teams_at_start = _teams(initial, only_active=True)
    if losers and not remaining:
        return Outcome(losers, [], True)
    if len(teams_at_start) >= 2 and len(teams_left) == 1:
        return Outcome(losers, [p.name for p in remaining], False)
    return Outcome(losers, [], False)
