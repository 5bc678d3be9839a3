"""Reading card text the state-based actions depend on: protection qualities and enchant lines.

Written for the words scenario files use (``protection from red``, ``enchant creature you
control``, ``enchant land or planeswalker``); anything else is read as a subtype.
"""

from __future__ import annotations

from .board import Permanent

__all__ = ["COLORS", "enchant_allows_object", "enchant_allows_player", "is_protected_from"]

COLORS = ("white", "blue", "black", "red", "green")


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


def enchant_allows_player(spec: str, aura: Permanent, player: str) -> bool:
    """Checks if an enchant specification such as ``player`` or ``opponent`` allows ``player``."""
    for alternative in spec.split(" or "):
        words = alternative.split()
        if "player" in words:
            return True
        if "opponent" in words and player != aura.controller_name:
            return True
        if alternative.strip() == "you" and player == aura.controller_name:
            return True
    return False


def enchant_allows_object(spec: str, aura: Permanent, host: Permanent) -> bool:
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
