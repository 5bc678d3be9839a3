"""Turning one AtomicCards entry into the rows of the card database (and checking its fields)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .errors import CardFileError
from .names import fold_name, loose_name, split_name

__all__ = ["CardRows", "card_rows"]

_COLOR_ORDER = "WUBRG"
_SYMBOL_RE = re.compile(r"\{([^}]*)\}")
_LIST_KEYS = ("types", "subtypes", "supertypes", "keywords", "colors", "colorIndicator")
_TEXT_KEYS = ("manaCost", "type", "text", "power", "toughness", "loyalty", "defense", "layout")


@dataclass
class CardRows:
    """What one card adds to the database (ids are given by the writer)."""

    name: str
    layout: str | None
    faces: list[tuple[Any, ...]]
    """``(position, side, name, mana_cost, type_line, types, supertypes, subtypes, colors,
    text, power, toughness, loyalty, defense, keywords)``, lists as JSON text."""
    rulings: list[tuple[str, str]]
    """``(date, text)``, by date, each ruling once (MTGJSON repeats them on every face)."""
    names: list[tuple[str, str, str, int | None]]
    """``(kind, folded, loose, face position or None)``: the keys the card is found by."""


def colors_of(face: dict[str, Any]) -> list[str]:
    """The face's colors: the file's ``colors``, else its color indicator, else its mana cost.

    The mana cost gives an object's color (rule 202.2); devoid makes it colorless.
    """
    if face.get("colors") is not None:
        return list(face["colors"])
    if face.get("colorIndicator") is not None:
        found = set(face["colorIndicator"])
    else:
        if "Devoid" in (face.get("keywords") or []):
            return []
        found = set()
        for symbol in _SYMBOL_RE.findall(face.get("manaCost") or ""):
            found.update(c for c in symbol.upper() if c in _COLOR_ORDER)
    return [c for c in _COLOR_ORDER if c in found]


def _checked(name: str, face: dict[str, Any], file: str) -> None:
    for key in _TEXT_KEYS:
        value = face.get(key)
        if value is not None and not isinstance(value, str):
            raise CardFileError(file, f"data[{name!r}]: {key!r} is not a string", card=name)
    for key in _LIST_KEYS:
        value = face.get(key)
        if value is not None and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            raise CardFileError(
                file, f"data[{name!r}]: {key!r} is not a list of strings", card=name
            )
    rulings = face.get("rulings")
    if rulings is not None and not (
        isinstance(rulings, list)
        and all(
            isinstance(r, dict)
            and isinstance(r.get("date"), str)
            and isinstance(r.get("text"), str)
            for r in rulings
        )
    ):
        raise CardFileError(
            file, f'data[{name!r}]: "rulings" is not a list of {{date, text}}', card=name
        )


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _json_list(value: Any) -> str:
    return _ENCODE(value or [])


def card_rows(name: str, faces: list[dict[str, Any]], file: str) -> CardRows:
    """The rows of one card entry; raises :class:`CardFileError` for a field of the wrong type."""
    face_rows: list[tuple[Any, ...]] = []
    rulings: dict[tuple[str, str], None] = {}
    keys: dict[str, tuple[str, str, str, int | None]] = {}
    folded = fold_name(name)
    keys[folded] = ("card", folded, loose_name(name), None)
    multi = len(faces) > 1 or "//" in name
    for position, face in enumerate(faces):
        _checked(name, face, file)
        face_name = face.get("faceName") if isinstance(face.get("faceName"), str) else None
        shown = face_name or face["name"]
        side = face.get("side") if isinstance(face.get("side"), str) else None
        face_rows.append(
            (
                position,
                side,
                shown,
                face.get("manaCost") or None,
                face.get("type") or "",
                _json_list(face.get("types")),
                _json_list(face.get("supertypes")),
                _json_list(face.get("subtypes")),
                _json_list(colors_of(face)),
                face.get("text"),
                face.get("power"),
                face.get("toughness"),
                face.get("loyalty"),
                face.get("defense"),
                _json_list(face.get("keywords")),
            )
        )
        for ruling in face.get("rulings") or []:
            rulings.setdefault((ruling["date"], ruling["text"]), None)
        if multi:
            key = fold_name(shown)
            keys.setdefault(key, ("face", key, loose_name(shown), position))
    if multi:
        # This copy of the data lacks the back faces of split and adventure cards; their names
        # are still in the card's name ("Fire // Ice"), so they can be found by it.
        for part in split_name(name):
            key = fold_name(part)
            keys.setdefault(key, ("face", key, loose_name(part), None))
    layout = faces[0].get("layout")
    ordered = sorted(rulings, key=lambda r: r[0])  # stable: the file's order within a date
    rows = CardRows(name, layout, face_rows, ordered, list(keys.values()))
    _check_unicode(rows, file)
    return rows


_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def _check_unicode(rows: CardRows, file: str) -> None:
    """Raises :class:`CardFileError` for a lone surrogate (JSON's ``"\\ud800"``): the database
    stores UTF-8, which cannot hold one."""
    texts = [rows.name, rows.layout, *(v for row in (*rows.faces, *rows.rulings) for v in row)]
    for text in texts:
        if isinstance(text, str) and not text.isascii() and _SURROGATE_RE.search(text):
            raise CardFileError(
                file,
                f"data[{rows.name!r}] holds a lone surrogate escape (\\ud800 to \\udfff), "
                "which is not text",
                card=rows.name,
            )
