"""A small AtomicCards file of our own, written as .json, .json.gz, .json.xz or .json.bz2."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
from pathlib import Path
from typing import Any

RULING = {"date": "2020-01-01", "text": "Both faces share this ruling."}


def face(name: str, type_line: str, **fields: Any) -> dict[str, Any]:
    """One MTGJSON face: types parsed from the type line, empty lists by default."""
    left, _, right = type_line.partition(" — ")
    words = left.split()
    supertypes = [w for w in words if w in ("Legendary", "Basic", "Snow", "World")]
    record: dict[str, Any] = {
        "name": name,
        "type": type_line,
        "types": [w for w in words if w not in supertypes],
        "supertypes": supertypes,
        "subtypes": right.split() if right else [],
        "layout": "normal",
        "rulings": [],
    }
    record.update(fields)
    return record


def small_cards() -> dict[str, list[dict[str, Any]]]:
    """The fixture's cards, by name, as MTGJSON's ``data`` holds them."""
    delver = "Delver of Secrets // Insectile Aberration"
    cathar = "Brutal Cathar // Moonrage Brute"
    return {
        "Darksteel Citadel": [
            face(
                "Darksteel Citadel",
                "Artifact Land",
                text="Indestructible\n{T}: Add {C}.",
                keywords=["Indestructible"],
                rulings=[{"date": "2014-07-18", "text": "It can't be cast as a spell."}],
            )
        ],
        delver: [
            face(
                delver,
                "Creature — Human Wizard",
                faceName="Delver of Secrets",
                side="a",
                layout="transform",
                manaCost="{U}",
                power="1",
                toughness="1",
                text="At the beginning of your upkeep, you may transform this creature.",
                keywords=["Flying", "Transform"],
                rulings=[{"date": "2021-01-01", "text": "Later ruling."}, RULING],
            ),
            face(
                delver,
                "Creature — Human Insect",
                faceName="Insectile Aberration",
                side="b",
                layout="transform",
                power="3",
                toughness="2",
                text="Flying",
                keywords=["Flying", "Transform"],
                rulings=[{"date": "2021-01-01", "text": "Later ruling."}, RULING],
            ),
        ],
        cathar: [
            face(
                cathar,
                "Creature — Human Soldier",
                faceName="Brutal Cathar",
                side="a",
                layout="transform",
                manaCost="{2}{W}",
                power="3",
                toughness="3",
                keywords=["Daybound"],
            ),
            face(
                cathar,
                "Creature — Human Werewolf",
                faceName="Moonrage Brute",
                side="b",
                layout="transform",
                power="3",
                toughness="3",
                keywords=["Nightbound"],
            ),
        ],
        "Lim-Dûl's Vault": [face("Lim-Dûl's Vault", "Instant", manaCost="{U}{B}", text="Look.")],
        "Thrun, the Last Troll": [
            face(
                "Thrun, the Last Troll",
                "Legendary Creature — Troll Shaman",
                manaCost="{2}{G}{G}",
                power="4",
                toughness="4",
                text="{1}{G}: Regenerate Thrun.",
            )
        ],
        "Platinum Angel": [
            face(
                "Platinum Angel",
                "Artifact Creature — Angel",
                manaCost="{7}",
                power="4",
                toughness="4",
                text="Flying\nYou can't lose the game and your opponents can't win the game.",
                keywords=["Flying"],
                rulings=[
                    {"date": "2009-10-01", "text": "Second."},
                    {"date": "2004-12-01", "text": "First."},
                ],
            )
        ],
        "Platinum Emperion": [
            face(
                "Platinum Emperion",
                "Artifact Creature — Golem",
                manaCost="{8}",
                power="8",
                toughness="8",
                text="Your life total can't change.",
            )
        ],
        "Fire // Ice": [
            face(
                "Fire // Ice",
                "Instant",
                faceName="Fire",
                side="a",
                layout="split",
                manaCost="{1}{R}",
                text="Fire deals 2 damage divided as you choose.",
            )
        ],
        "Steppe Lynx": [
            face(
                "Steppe Lynx",
                "Creature — Cat",
                manaCost="{W}",
                power="0",
                toughness="1",
                keywords=["Landfall"],
            )
        ],
        "Eagles of the North": [
            face(
                "Eagles of the North",
                "Creature — Bird Soldier",
                manaCost="{5}{W}",
                power="3",
                toughness="3",
                keywords=["Flying", "Plainscycling"],
            )
        ],
        "Pir, Imaginative Rascal": [
            face(
                "Pir, Imaginative Rascal",
                "Legendary Creature — Human",
                manaCost="{2}{G}",
                power="1",
                toughness="1",
                keywords=["Partner with"],
            )
        ],
        "Gleaming Oddity": [
            face(
                "Gleaming Oddity",
                "Artifact",
                manaCost="{2/U}{G/P}",
                text="Odd\x1b[31mly red\x07 text.",
                keywords=["Xyzzyfold"],
                rulings=[{"date": "2022-02-02", "text": "Beware \x1b]0;title\x07 here."}],
            )
        ],
        "Grizzly Bears": [
            face("Grizzly Bears", "Creature — Bear", manaCost="{1}{G}", power="2", toughness="2")
        ],
    }


def atomic(
    data: dict[str, Any] | None = None, date: str = "2030-01-01", **meta: Any
) -> dict[str, Any]:
    """The whole file: ``meta`` first, as MTGJSON writes it."""
    return {"meta": {"date": date, "version": "5.test", **meta}, "data": data or small_cards()}


def write_cards(path: Path, doc: dict[str, Any] | None = None, *, kind: str | None = None) -> Path:
    """Writes ``doc`` (default: the fixture) compressed as ``kind`` (default: by the suffix)."""
    raw = json.dumps(doc or atomic(), ensure_ascii=False).encode("utf-8")
    kind = kind or {".gz": "gzip", ".xz": "xz", ".bz2": "bzip2"}.get(path.suffix, "json")
    if kind == "gzip":
        raw = gzip.compress(raw)
    elif kind == "xz":
        raw = lzma.compress(raw)
    elif kind == "bzip2":
        raw = bz2.compress(raw)
    path.write_bytes(raw)
    return path
