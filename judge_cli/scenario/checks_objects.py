"""The state-based actions that look at one object at a time: 704.5d–i, m–t, v–x and 704.6d–f."""

from __future__ import annotations

from .actions import Action
from .board import Permanent, Variant
from .cardtext import enchant_allows_object, enchant_allows_player, is_protected_from
from .editions import Kind
from .finder import Finder, check

# Traits: what a check can apply to (see finder); nothing here changes during a replay.


def _is_creature(o: Permanent) -> bool:
    return o.is_type("creature")


def _is_aura(o: Permanent) -> bool:
    return o.has_subtype("Aura")


def _is_gear(o: Permanent) -> bool:
    return o.has_subtype("Equipment") or o.has_subtype("Fortification")


def _is_battle(o: Permanent) -> bool:
    return o.is_type("battle")


# -- tokens and copies: 704.5d, e -------------------------------------------------------------


@check(Kind.TOKEN_ZONE, trait=lambda o: o.token, phased_out=True)
def token_zone(f: Finder, o: Permanent) -> None:
    """704.5d: a token in a zone other than the battlefield (or, 2009–2013, phased out) ceases."""
    if not o.token:
        return
    if f.is_phased_out(o):
        if f.rules.phased_out_tokens_cease:
            f.add(Kind.TOKEN_ZONE, Action.CEASES_TO_EXIST, o, detail="a phased-out token")
    elif o.zone != "battlefield":
        f.add(Kind.TOKEN_ZONE, Action.CEASES_TO_EXIST, o, detail=f"a token in the {o.zone}")


@check(Kind.COPY_ZONE, trait=lambda o: o.copy_of)
def copy_zone(f: Finder, o: Permanent) -> None:
    """704.5e: a copy of a card or spell outside the stack and the battlefield ceases to exist."""
    if o.copy_of and o.zone not in ("stack", "battlefield"):
        f.add(Kind.COPY_ZONE, Action.CEASES_TO_EXIST, o, detail=f"a copy in the {o.zone}")


# -- creatures and planeswalkers: 704.5f–i ----------------------------------------------------


def _creature_toughness(o: Permanent) -> int | None:
    if o.zone != "battlefield" or not o.is_type("creature"):
        return None
    return o.toughness


@check(Kind.ZERO_TOUGHNESS, trait=_is_creature)
def zero_toughness(f: Finder, o: Permanent) -> None:
    """704.5f: a creature with toughness 0 or less is put into its owner's graveyard."""
    toughness = _creature_toughness(o)
    if toughness is None or toughness > 0:
        return
    f.add(Kind.ZERO_TOUGHNESS, Action.PUT_INTO_GRAVEYARD, o, detail=f"toughness {toughness}")
    if o.has_keyword("indestructible") or o.regeneration_shields:
        what = "indestructible" if o.has_keyword("indestructible") else "a regeneration shield"
        f.note(
            f.rules.number(Kind.ZERO_TOUGHNESS),
            f"{what} doesn't help: toughness 0 or less isn't destruction",
            o,
        )


def _destroy(f: Finder, kind: Kind, o: Permanent, detail: str) -> None:
    """Destroys ``o``, unless indestructible (702.12b) or a regeneration shield replaces it."""
    if o.has_keyword("indestructible"):
        f.add(kind, Action.NOT_DESTROYED, o, detail=f"{detail}; indestructible")
        rule = f.rules.notes.get("indestructible", f.rules.number(kind))
        f.note(rule, "indestructible: not destroyed", o)
    elif o.regeneration_shields > 0:
        f.add(kind, Action.REGENERATED, o, detail=f"{detail}; a regeneration shield replaces it")
    else:
        f.add(kind, Action.DESTROYED, o, detail=detail)


@check(Kind.LETHAL_DAMAGE, trait=_is_creature)
def lethal_damage(f: Finder, o: Permanent) -> None:
    """704.5g: a creature with damage at least its toughness is destroyed."""
    toughness = _creature_toughness(o)
    if toughness is None:
        return
    if o.damage > 0 and toughness <= o.damage:
        _destroy(f, Kind.LETHAL_DAMAGE, o, f"{o.damage} damage, toughness {toughness}")
    elif o.deathtouch_damage and not f.rules.has(Kind.DEATHTOUCH):
        f.note(
            f.rules.number(Kind.LETHAL_DAMAGE),
            "no deathtouch state-based action in this edition: only lethal damage destroys it",
            o,
        )


@check(Kind.DEATHTOUCH, trait=_is_creature)
def deathtouch(f: Finder, o: Permanent) -> None:
    """704.5h: a creature dealt damage by a source with deathtouch is destroyed."""
    if _creature_toughness(o) is not None and o.deathtouch_damage:
        _destroy(f, Kind.DEATHTOUCH, o, "dealt damage by a source with deathtouch")


@check(Kind.ZERO_LOYALTY, trait=lambda o: o.is_type("planeswalker"))
def zero_loyalty(f: Finder, o: Permanent) -> None:
    """704.5i: a planeswalker with loyalty 0 is put into its owner's graveyard."""
    if o.zone == "battlefield" and o.is_type("planeswalker") and o.counters.get("loyalty", 0) <= 0:
        f.add(Kind.ZERO_LOYALTY, Action.PUT_INTO_GRAVEYARD, o, detail="loyalty 0")


# -- attachments: 704.5m, n, p ----------------------------------------------------------------


@check(Kind.ILLEGAL_AURA, trait=_is_aura)
def illegal_aura(f: Finder, o: Permanent) -> None:
    """704.5m: an Aura attached illegally, or to nothing, is put into its owner's graveyard."""
    if o.zone == "battlefield" and o.has_subtype("Aura"):
        reason = _aura_problem(f, o)
        if reason:
            f.add(Kind.ILLEGAL_AURA, Action.PUT_INTO_GRAVEYARD, o, detail=reason)


def _aura_problem(f: Finder, aura: Permanent) -> str:
    """Why an Aura is illegally attached (or not attached), or ``""``."""
    if aura.attached_to is None:
        return "not attached to anything"
    if aura.attached_to == aura.id:
        return "attached to itself"
    if aura.is_type("creature"):
        return "an Aura that's also a creature can't enchant anything"
    spec = (aura.enchant or "").lower().strip()
    host = f.find(aura.attached_to)
    if aura.attached_to in f.players and host is None:
        player = f.players[aura.attached_to]
        if player.lost:
            return f"enchanted player {player.name} has left the game"
        if not spec or enchant_allows_player(spec, aura, player.name):
            return ""
        return f"can't enchant a player (enchant {spec})"
    if host is None:
        return f"attached to {aura.attached_to}, which doesn't exist"
    if host.zone != "battlefield" and "graveyard" not in spec:
        return f"{host.display_name} is in the {host.zone}"
    if spec and not enchant_allows_object(spec, aura, host):
        return f"{host.display_name} isn't a legal object for enchant {spec}"
    if is_protected_from(host, aura):
        return f"{host.display_name} has protection from a quality of {aura.display_name}"
    return ""


@check(Kind.ILLEGAL_EQUIPMENT, trait=lambda o: _is_gear(o) and not _is_aura(o))
def illegal_equipment(f: Finder, o: Permanent) -> None:
    """704.5n: an Equipment or Fortification attached illegally becomes unattached."""
    if o.zone != "battlefield" or o.attached_to is None or o.has_subtype("Aura"):
        return
    if _is_gear(o):
        reason = _gear_problem(f, o, o.attached_to)
        if reason:
            f.add(Kind.ILLEGAL_EQUIPMENT, Action.UNATTACHED, o, detail=reason)


def _gear_problem(f: Finder, gear: Permanent, target: str) -> str:
    """Why an Equipment or Fortification is attached illegally, or ``""``."""
    if target == gear.id:
        return "attached to itself"
    host = f.find(target)
    if host is None:
        return f"attached to player {target}" if target in f.players else f"{target} doesn't exist"
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


@check(Kind.ILLEGAL_ATTACHMENT)
def illegal_attachment(f: Finder, o: Permanent) -> None:
    """704.5p: a creature or battle attached to anything, or another attached permanent that is
    neither an Aura, an Equipment nor a Fortification, becomes unattached."""
    if o.zone != "battlefield" or o.attached_to is None:
        return
    if (o.is_type("creature") or o.is_type("battle")) and f.rules.creatures_attached_rule:
        detail = f"a {o.types[0]} can't be attached"
    elif not o.has_subtype("Aura") and not _is_gear(o):
        detail = "neither an Aura, an Equipment nor a Fortification"
    else:
        return
    f.add(Kind.ILLEGAL_ATTACHMENT, Action.UNATTACHED, o, detail=detail)


# -- counters: 704.5q, r ----------------------------------------------------------------------


@check(Kind.COUNTER_ANNIHILATION)
def counter_annihilation(f: Finder, o: Permanent) -> None:
    """704.5q: +1/+1 and -1/-1 counters on one permanent are removed in pairs."""
    if o.zone != "battlefield":
        return
    plus = o.counters.get("+1/+1", 0)
    minus = o.counters.get("-1/-1", 0)
    if plus > 0 and minus > 0:
        n = min(plus, minus)
        f.add(
            Kind.COUNTER_ANNIHILATION,
            Action.COUNTERS_REMOVED,
            o,
            detail=f"{n} +1/+1 and {n} -1/-1 counters removed",
            counters=(("+1/+1", n), ("-1/-1", n)),
        )


@check(Kind.COUNTER_LIMIT, trait=lambda o: bool(o.max_counters))
def counter_limit(f: Finder, o: Permanent) -> None:
    """704.5r: counters beyond what an ability allows ("can't have more than N") are removed."""
    if o.zone != "battlefield" or not o.max_counters:
        return
    for kind, cap in sorted(o.max_counters.items()):
        have = o.counters.get(kind, 0)
        if have > cap:
            f.add(
                Kind.COUNTER_LIMIT,
                Action.COUNTERS_REMOVED,
                o,
                detail=f"{have - cap} {kind} counters over the limit of {cap}",
                counters=((kind, have - cap),),
            )


# -- Sagas, dungeons: 704.5s, t ---------------------------------------------------------------


@check(Kind.SAGA, trait=lambda o: o.has_subtype("Saga"))
def saga(f: Finder, o: Permanent) -> None:
    """704.5s: a Saga with lore counters at least its final chapter is sacrificed."""
    if o.zone != "battlefield" or not o.has_subtype("Saga"):
        return
    if o.final_chapter is None or not o.chapter_abilities:
        return
    lore = o.counters.get("lore", 0)
    if lore < o.final_chapter:
        return
    if o.ability_on_stack:
        f.note(
            f.rules.number(Kind.SAGA),
            f"{lore} lore counters, final chapter {o.final_chapter}, but a chapter "
            "ability is still on the stack: not sacrificed yet",
            o,
        )
        return
    f.add(
        Kind.SAGA,
        Action.SACRIFICED,
        o,
        player=o.controller_name,
        detail=f"{lore} lore counters, final chapter {o.final_chapter}",
    )


@check(Kind.DUNGEON, trait=lambda o: o.is_type("dungeon"))
def dungeon(f: Finder, o: Permanent) -> None:
    """704.5t: a dungeon whose venture marker is on its last room is removed from the game."""
    if not (o.is_type("dungeon") and o.zone == "command" and o.venture_on_last_room):
        return
    if o.ability_on_stack:
        f.note(f.rules.number(Kind.DUNGEON), "its last room ability is on the stack", o)
        return
    f.add(
        Kind.DUNGEON,
        Action.REMOVED_FROM_GAME,
        o,
        player=o.owner_name,
        detail="venture marker on the bottommost room",
    )


# -- battles: 704.5v, w, x --------------------------------------------------------------------


def _battle(o: Permanent) -> bool:
    return o.zone == "battlefield" and o.is_type("battle")


@check(Kind.BATTLE_DEFENSE, trait=_is_battle)
def battle_defense(f: Finder, o: Permanent) -> None:
    """704.5v: a battle with defense 0 is put into its owner's graveyard."""
    if not _battle(o) or o.counters.get("defense", 0) > 0:
        return
    if o.ability_on_stack:
        f.note(f.rules.number(Kind.BATTLE_DEFENSE), "defense 0, but its ability is on the stack", o)
        return
    f.add(Kind.BATTLE_DEFENSE, Action.PUT_INTO_GRAVEYARD, o, detail="defense 0")


def _protector(f: Finder, battle: Permanent) -> str | None:
    """The battle's protector, if that player is still in the game."""
    player = f.players.get(battle.protector) if battle.protector else None
    return None if player is None or player.lost else player.name


@check(Kind.BATTLE_PROTECTOR, trait=_is_battle)
def battle_protector(f: Finder, o: Permanent) -> None:
    """704.5w: a battle nobody protects gets a protector (or goes to the graveyard)."""
    if _battle(o) and _protector(f, o) is None and not o.attacked:
        _choose_protector(f, Kind.BATTLE_PROTECTOR, o)


@check(Kind.SIEGE_PROTECTOR, trait=_is_battle)
def siege_protector(f: Finder, o: Permanent) -> None:
    """704.5x: a Siege its controller protects gets an opponent as protector."""
    if not _battle(o) or not o.has_subtype("Siege"):
        return
    protector = _protector(f, o)
    if protector is not None and protector == o.controller_name:
        _choose_protector(f, Kind.SIEGE_PROTECTOR, o)


def _choose_protector(f: Finder, kind: Kind, battle: Permanent) -> None:
    controller = battle.controller_name
    candidates = [p.name for p in f.board.players if not p.lost]
    if battle.has_subtype("Siege") or kind is Kind.SIEGE_PROTECTOR:
        candidates = [n for n in candidates if n != controller]
    if not candidates:
        f.add(kind, Action.PUT_INTO_GRAVEYARD, battle, detail="no player can be its protector")
        return
    chosen = f.choice("battle_protector", controller)
    pick = chosen.get(battle.id) if isinstance(chosen, dict) else chosen
    if len(candidates) == 1 and pick is None:
        pick = candidates[0]
    if isinstance(pick, str) and pick in candidates:
        f.add(
            kind,
            Action.PROTECTOR_CHOSEN,
            battle,
            player=controller,
            value=pick,
            detail=f"{controller} chose {pick}",
        )
        return
    f.note(
        f.rules.number(kind),
        f"{controller} chooses a protector for {battle.display_name} from "
        f"{', '.join(candidates)}; give it in `choices.battle_protector`",
        battle,
        controller,
    )


# -- the command zone: 704.6d–f ---------------------------------------------------------------


@check(Kind.COMMANDER_ZONE, trait=lambda o: o.commander)
def commander_zone(f: Finder, o: Permanent) -> None:
    """704.6d: a commander put into a graveyard or exile may go to the command zone."""
    if f.variant is not Variant.COMMANDER:
        return
    if not (o.commander and o.zone in ("graveyard", "exile") and o.moved_since_check):
        return
    owner = o.owner_name
    chosen = f.choice("commander_to_command_zone", owner)
    if chosen is True or chosen == o.id or (isinstance(chosen, list) and o.id in chosen):
        f.add(Kind.COMMANDER_ZONE, Action.PUT_INTO_COMMAND_ZONE, o, player=owner)
    elif chosen is None:
        f.note(
            f.rules.number(Kind.COMMANDER_ZONE),
            f"{owner} may put {o.display_name} into the command zone or leave it in "
            f"the {o.zone}; give it in `choices.commander_to_command_zone`",
            o,
            owner,
        )


def _face_up_card(o: Permanent, card_type: str) -> bool:
    return o.is_type(card_type) and o.zone == "command" and o.face_up and not o.ability_on_stack


@check(Kind.SCHEME, trait=lambda o: o.is_type("scheme"))
def scheme(f: Finder, o: Permanent) -> None:
    """704.6e: a face-up non-ongoing scheme goes to the bottom of its owner's scheme deck."""
    if _face_up_card(o, "scheme") and "ongoing" not in o.supertypes:
        f.add(Kind.SCHEME, Action.PUT_ON_BOTTOM_OF_SCHEME_DECK, o, player=o.owner_name)


@check(Kind.PHENOMENON, trait=lambda o: o.is_type("phenomenon"))
def phenomenon(f: Finder, o: Permanent) -> None:
    """704.6f: a face-up phenomenon makes the planar controller planeswalk."""
    if _face_up_card(o, "phenomenon"):
        f.add(Kind.PHENOMENON, Action.PLANESWALKS, o, player=o.controller_name)
