"""Scenario files: YAML, JSON, or a Markdown question whose first ```yaml block is the board.

Every complaint names the file, the line and the key, and suggests the closest valid key or
name. Only structural problems a replay cannot work around are errors (bad syntax, wrong types,
unknown keys, duplicate ids, references to objects or players that do not exist); odd but
meaningful boards load and are reported by :meth:`BoardState.status`.
"""

from __future__ import annotations

import datetime
import difflib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .board import (
    VARIANTS,
    ZONES,
    BoardState,
    ChoiceValue,
    Effect,
    Permanent,
    Player,
    parse_pt,
)

__all__ = [
    "CHOICE_NAMES",
    "OBJECT_KEYS",
    "PLAYER_KEYS",
    "TOP_KEYS",
    "Scenario",
    "ScenarioError",
    "ScenarioReferenceError",
    "ScenarioSyntaxError",
    "ScenarioValueError",
    "load_scenario_path",
    "load_scenario_text",
]


class ScenarioError(ValueError):
    """A scenario file that cannot be replayed; the message names the file, line and key."""

    def __init__(self, filename: str, line: int | None, key: str | None, message: str) -> None:
        self.filename = filename
        self.line = line
        self.key = key
        self.reason = message
        where = filename
        if line is not None:
            where += f", line {line}"
        if key:
            where += f", key '{key}'"
        super().__init__(f"{where}: {message}")


class ScenarioSyntaxError(ScenarioError):
    """The text is not YAML, JSON or a Markdown file with a ```yaml block."""


class ScenarioValueError(ScenarioError):
    """An unknown key, or a value of the wrong type."""


class ScenarioReferenceError(ScenarioError):
    """A duplicate id, or a reference to an object or player that is not on the board."""


@dataclass
class Scenario:
    """A loaded scenario file."""

    board: BoardState
    """The board."""
    filename: str
    """The file it came from."""
    question: str | None = None
    """The prose of a Markdown question file (without the board), else ``None``."""
    title: str | None = None
    """The first heading of a Markdown question file, else ``None``."""


TOP_KEYS = ("edition", "variant", "players", "objects", "choices")
PLAYER_KEYS = (
    "name",
    "life",
    "poison",
    "drew_from_empty_library",
    "cant_lose",
    "commander_damage",
    "team",
    "speed",
    "lost",
)
OBJECT_KEYS = (
    "id",
    "name",
    "zone",
    "owner",
    "controller",
    "types",
    "supertypes",
    "subtypes",
    "colors",
    "pt",
    "power",
    "toughness",
    "damage",
    "deathtouch_damage",
    "counters",
    "keywords",
    "regeneration_shields",
    "token",
    "copy",
    "commander",
    "attached_to",
    "enchant",
    "final_chapter",
    "chapter_abilities",
    "ability_on_stack",
    "venture_on_last_room",
    "protector",
    "attacked",
    "sector",
    "world_since",
    "timestamp",
    "max_counters",
    "effects",
    "tapped",
    "in_combat",
    "face_up",
    "moved_since_check",
    "phased_out",
)
EFFECT_KEYS = ("source", "pt", "power", "toughness")
CHOICE_NAMES = (
    "legend_rule",
    "planeswalker_uniqueness_rule",
    "battle_protector",
    "sector_designation",
    "commander_to_command_zone",
)
"""Rule names a scenario's ``choices`` may answer for."""

SECTORS = ("alpha", "beta", "gamma")


def load_scenario_path(path: str | Path) -> Scenario:
    """Reads a scenario file; raises :class:`ScenarioError` (and ``OSError`` if unreadable)."""
    p = Path(path)
    data = p.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioSyntaxError(str(path), None, None, f"not UTF-8 text ({exc.reason})") from None
    return load_scenario_text(text, str(path))


def load_scenario_text(text: str, filename: str = "<board>") -> Scenario:
    """Reads scenario text; the file name's extension picks Markdown, JSON or YAML."""
    lower = filename.lower()
    question: str | None = None
    title: str | None = None
    offset = 0
    if lower.endswith((".md", ".markdown")):
        text, offset, question, title = _extract_markdown_board(text, filename)
    elif lower.endswith(".json"):
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            raise ScenarioSyntaxError(
                filename, exc.lineno, None, f"not valid JSON: {exc.msg} (column {exc.colno})"
            ) from None
    lines: dict[str, int] = {}
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 + offset if mark is not None else None
        raise ScenarioSyntaxError(
            filename, line, None, f"not valid YAML: {exc.problem or exc.context}"
        ) from None
    except yaml.YAMLError as exc:
        raise ScenarioSyntaxError(filename, None, None, f"not valid YAML: {exc}") from None
    if node is None:
        raise ScenarioSyntaxError(filename, None, None, "the board is empty; add `players:`")
    converter = _Converter(filename, offset, lines)
    data = converter.convert(node, "")
    board = _Builder(filename, lines).build(data, node.start_mark.line + 1 + offset)
    return Scenario(board, filename, question, title)


def _extract_markdown_board(text: str, filename: str) -> tuple[str, int, str, str | None]:
    """The first ```yaml block, its line offset, the question around it, and the first heading."""
    # Imported here so that `judge --help` does not pay for markdown-it-py.
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(text)
    title: str | None = None
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and title is None and i + 1 < len(tokens):
            title = tokens[i + 1].content.strip() or None
        if token.type == "fence" and token.info.strip().split(" ")[0].lower() in ("yaml", "yml"):
            assert token.map is not None
            start, end = token.map
            source_lines = text.splitlines()
            prose = source_lines[:start] + source_lines[end:]
            if title is not None:
                # The first heading is the title; the question is the rest of the prose.
                for n, line in enumerate(prose):
                    if line.lstrip().startswith("#") and title in line:
                        del prose[n]
                        break
            question = re.sub(r"\n{3,}", "\n\n", "\n".join(prose)).strip()
            return token.content, start + 1, question, title
    raise ScenarioSyntaxError(
        filename, None, None, "no ```yaml block found; put the board in a fenced ```yaml block"
    )


class _Converter:
    """Turns composed YAML nodes into plain values, noting the line of every key."""

    def __init__(self, filename: str, offset: int, lines: dict[str, int]) -> None:
        self.filename = filename
        self.offset = offset
        self.lines = lines
        self.constructor = yaml.SafeLoader("")

    def convert(self, node: yaml.Node, path: str) -> Any:
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key_value = self.constructor.construct_object(key_node, deep=True)
                key = str(key_value)
                child = f"{path}.{key}" if path else key
                line = key_node.start_mark.line + 1 + self.offset
                if key in out:
                    raise ScenarioValueError(
                        self.filename,
                        line,
                        child,
                        f"duplicate key (first on line {self.lines[child]})",
                    )
                self.lines[child] = line
                out[key] = self.convert(value_node, child)
            return out
        if isinstance(node, yaml.SequenceNode):
            items: list[Any] = []
            for i, item in enumerate(node.value):
                child = f"{path}[{i}]"
                self.lines[child] = item.start_mark.line + 1 + self.offset
                items.append(self.convert(item, child))
            return items
        value = self.constructor.construct_object(node, deep=True)
        if isinstance(value, datetime.date):
            return value.isoformat()
        return value


def _suggest(word: str, options: tuple[str, ...] | list[str]) -> str:
    """ "; did you mean 'x'?" for the closest option, or a list of the valid ones."""
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.5)
    if close:
        return f"; did you mean '{close[0]}'?"
    shown = ", ".join(options[:12]) + (", …" if len(options) > 12 else "")
    return f"; valid: {shown}"


class _Builder:
    """Checks plain values against the scenario format and builds the board."""

    def __init__(self, filename: str, lines: dict[str, int]) -> None:
        self.filename = filename
        self.lines = lines

    # -- errors -----------------------------------------------------------------------------

    def line_of(self, path: str) -> int | None:
        while path:
            if path in self.lines:
                return self.lines[path]
            cut = max(path.rfind("."), path.rfind("["))
            if cut <= 0:
                break
            path = path[:cut]
        return self.lines.get(path)

    def value_error(self, path: str, message: str) -> ScenarioValueError:
        return ScenarioValueError(self.filename, self.line_of(path), path, message)

    def reference_error(self, path: str, message: str) -> ScenarioReferenceError:
        return ScenarioReferenceError(self.filename, self.line_of(path), path, message)

    def check_keys(self, data: dict[str, Any], path: str, valid: tuple[str, ...]) -> None:
        for key in data:
            if key not in valid:
                child = f"{path}.{key}" if path else key
                raise self.value_error(child, "unknown key" + _suggest(key, valid))

    # -- typed getters ----------------------------------------------------------------------

    def get_int(self, data: dict[str, Any], key: str, path: str, default: int) -> int:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.value_error(f"{path}.{key}", f"expected a whole number, got {value!r}")
        return value

    def get_opt_int(self, data: dict[str, Any], key: str, path: str) -> int | None:
        if data.get(key) is None:
            return None
        return self.get_int(data, key, path, 0)

    def get_bool(self, data: dict[str, Any], key: str, path: str, default: bool) -> bool:
        value = data.get(key, default)
        if not isinstance(value, bool):
            raise self.value_error(f"{path}.{key}", f"expected true or false, got {value!r}")
        return value

    def get_str(self, data: dict[str, Any], key: str, path: str) -> str | None:
        value = data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.value_error(f"{path}.{key}", f"expected text, got {value!r}")
        return str(value)

    def get_str_list(self, data: dict[str, Any], key: str, path: str, lower: bool) -> list[str]:
        value = data.get(key)
        if value is None:
            return []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, (str, int)) for v in value):
            raise self.value_error(f"{path}.{key}", f"expected a list of words, got {value!r}")
        return [str(v).lower() if lower else str(v) for v in value]

    def get_counts(self, data: dict[str, Any], key: str, path: str) -> dict[str, int]:
        value = data.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.value_error(f"{path}.{key}", f"expected a mapping of counts, got {value!r}")
        out: dict[str, int] = {}
        for name, count in value.items():
            if isinstance(count, bool) or not isinstance(count, int):
                raise self.value_error(
                    f"{path}.{key}.{name}", f"expected a whole number, got {count!r}"
                )
            out[str(name)] = count
        return out

    # -- building ---------------------------------------------------------------------------

    def build(self, data: Any, first_line: int) -> BoardState:
        if not isinstance(data, dict):
            raise ScenarioValueError(
                self.filename, first_line, None, "the board must be a mapping with `players:`"
            )
        self.check_keys(data, "", TOP_KEYS)
        edition = self.get_str(data, "edition", "")
        if edition is not None and data.get("edition") is not None:
            edition = str(data["edition"])
        variant = self.get_str(data, "variant", "") or "two-player"
        if variant not in VARIANTS:
            raise self.value_error(
                "variant", f"unknown variant {variant!r}" + _suggest(variant, VARIANTS)
            )
        raw_players = data.get("players")
        if not isinstance(raw_players, list) or not raw_players:
            raise ScenarioValueError(
                self.filename,
                self.line_of("players") or first_line,
                "players",
                "expected a list of players, e.g. `players: [{name: Alice}, {name: Bob}]`",
            )
        players = [self.build_player(p, f"players[{i}]") for i, p in enumerate(raw_players)]
        seen: dict[str, int] = {}
        for i, p in enumerate(players):
            if p.name in seen:
                raise self.reference_error(
                    f"players[{i}].name", f"duplicate player name {p.name!r}"
                )
            seen[p.name] = i
        raw_objects = data.get("objects") or []
        if not isinstance(raw_objects, list):
            raise self.value_error("objects", "expected a list of objects")
        for i, o in enumerate(raw_objects):
            if not isinstance(o, dict):
                raise self.value_error(f"objects[{i}]", f"expected a mapping, got {o!r}")
        objects = self.build_objects(raw_objects, list(seen))
        board = BoardState(players, objects, edition, variant, {})
        self.check_references(board, raw_players)
        board.choices = self.build_choices(data.get("choices"), board)
        return board

    def build_player(self, data: Any, path: str) -> Player:
        if isinstance(data, str):
            return Player(data)
        if not isinstance(data, dict):
            raise self.value_error(path, f"expected a mapping with `name:`, got {data!r}")
        self.check_keys(data, path, PLAYER_KEYS)
        name = self.get_str(data, "name", path)
        if not name:
            raise self.value_error(path, "a player needs a `name:`")
        return Player(
            name=name,
            life=self.get_int(data, "life", path, 20),
            poison=self.get_int(data, "poison", path, 0),
            drew_from_empty_library=self.get_bool(data, "drew_from_empty_library", path, False),
            cant_lose=self.get_str(data, "cant_lose", path),
            commander_damage=self.get_counts(data, "commander_damage", path),
            team=self.get_str(data, "team", path),
            speed=self.get_opt_int(data, "speed", path),
            lost=self.get_bool(data, "lost", path, False),
        )

    def build_objects(self, raw: list[dict[str, Any]], players: list[str]) -> list[Permanent]:
        names = [self.get_str(o, "name", f"objects[{i}]") for i, o in enumerate(raw)]
        objects: list[Permanent] = []
        ids: dict[str, int] = {}
        for i, data in enumerate(raw):
            path = f"objects[{i}]"
            self.check_keys(data, path, OBJECT_KEYS)
            name = names[i] or ""
            object_id = self.get_str(data, "id", path)
            if object_id is None:
                if not name:
                    raise self.value_error(path, "an object needs an `id:` or a `name:`")
                if names.count(name) > 1:
                    raise self.reference_error(
                        f"{path}.name",
                        f"the name {name!r} is not unique, so this object needs an `id:`",
                    )
                object_id = name
            if object_id in ids:
                raise self.reference_error(
                    f"{path}.id" if "id" in data else f"{path}.name",
                    f"duplicate id {object_id!r} (first used by objects[{ids[object_id]}])",
                )
            ids[object_id] = i
            objects.append(self.build_object(data, path, object_id, name, players))
        return objects

    def build_object(
        self, data: dict[str, Any], path: str, object_id: str, name: str, players: list[str]
    ) -> Permanent:
        zone = self.get_str(data, "zone", path) or "battlefield"
        if zone not in ZONES:
            raise self.value_error(f"{path}.zone", f"unknown zone {zone!r}" + _suggest(zone, ZONES))
        owner = self.get_str(data, "owner", path)
        controller = self.get_str(data, "controller", path)
        if owner is None and controller is None:
            if len(players) != 1:
                raise self.value_error(
                    path, f"object {object_id!r} needs a `controller:` (or an `owner:`)"
                )
            controller = players[0]
        for key, who in (("owner", owner), ("controller", controller)):
            if who is not None and who not in players:
                raise self.reference_error(
                    f"{path}.{key}", f"unknown player {who!r}" + _suggest(who, players)
                )
        power = self.get_opt_int(data, "power", path)
        toughness = self.get_opt_int(data, "toughness", path)
        if data.get("pt") is not None:
            if "power" in data or "toughness" in data:
                raise self.value_error(f"{path}.pt", "give either `pt:` or `power:`/`toughness:`")
            try:
                power, toughness = parse_pt(str(data["pt"]))
            except ValueError:
                raise self.value_error(
                    f"{path}.pt", f"expected power/toughness such as 2/2, got {data['pt']!r}"
                ) from None
        protector = self.get_str(data, "protector", path)
        if protector is not None and protector not in players:
            raise self.reference_error(
                f"{path}.protector", f"unknown player {protector!r}" + _suggest(protector, players)
            )
        sector = self.get_str(data, "sector", path)
        if sector is not None and sector.lower() not in SECTORS:
            raise self.value_error(
                f"{path}.sector", f"unknown sector {sector!r}" + _suggest(sector.lower(), SECTORS)
            )
        effects: list[Effect] = []
        raw_effects = data.get("effects") or []
        if not isinstance(raw_effects, list):
            raise self.value_error(f"{path}.effects", "expected a list of {source:, pt:} mappings")
        for j, raw in enumerate(raw_effects):
            effects.append(self.build_effect(raw, f"{path}.effects[{j}]"))
        counters = self.get_counts(data, "counters", path)
        return Permanent(
            id=object_id,
            name=name,
            zone=zone,
            owner=owner,
            controller=controller,
            types=self.get_str_list(data, "types", path, lower=True),
            supertypes=self.get_str_list(data, "supertypes", path, lower=True),
            subtypes=self.get_str_list(data, "subtypes", path, lower=False),
            colors=self.get_str_list(data, "colors", path, lower=True),
            power=power,
            toughness=toughness,
            damage=self.get_int(data, "damage", path, 0),
            deathtouch_damage=self.get_bool(data, "deathtouch_damage", path, False),
            counters=counters,
            keywords=self.get_str_list(data, "keywords", path, lower=True),
            regeneration_shields=self.get_int(data, "regeneration_shields", path, 0),
            token=self.get_bool(data, "token", path, False),
            copy_of=self.get_bool(data, "copy", path, False),
            commander=self.get_bool(data, "commander", path, False),
            attached_to=self.get_str(data, "attached_to", path),
            enchant=self.get_str(data, "enchant", path),
            final_chapter=self.get_opt_int(data, "final_chapter", path),
            chapter_abilities=self.get_bool(data, "chapter_abilities", path, True),
            ability_on_stack=self.get_bool(data, "ability_on_stack", path, False),
            venture_on_last_room=self.get_bool(data, "venture_on_last_room", path, False),
            protector=protector,
            attacked=self.get_bool(data, "attacked", path, False),
            sector=sector.lower() if sector else None,
            world_since=self.get_opt_int(data, "world_since", path),
            timestamp=self.get_opt_int(data, "timestamp", path),
            max_counters=self.get_counts(data, "max_counters", path),
            effects=effects,
            tapped=self.get_bool(data, "tapped", path, False),
            in_combat=self.get_bool(data, "in_combat", path, False),
            face_up=self.get_bool(data, "face_up", path, True),
            moved_since_check=self.get_bool(data, "moved_since_check", path, True),
            phased_out=self.get_bool(data, "phased_out", path, False),
        )

    def build_effect(self, raw: Any, path: str) -> Effect:
        if not isinstance(raw, dict):
            raise self.value_error(
                path, f"expected a mapping such as {{source: anthem, pt: +1/+1}}, got {raw!r}"
            )
        self.check_keys(raw, path, EFFECT_KEYS)
        source = self.get_str(raw, "source", path)
        if not source:
            raise self.value_error(path, "an effect needs a `source:` (the id of its source)")
        power = self.get_int(raw, "power", path, 0)
        toughness = self.get_int(raw, "toughness", path, 0)
        if raw.get("pt") is not None:
            try:
                power, toughness = parse_pt(str(raw["pt"]))
            except ValueError:
                raise self.value_error(
                    f"{path}.pt", f"expected a change such as +1/+1, got {raw['pt']!r}"
                ) from None
        return Effect(source, power, toughness)

    def check_references(self, board: BoardState, raw_players: list[Any]) -> None:
        ids = [o.id for o in board.objects]
        id_set = set(ids)
        names = [p.name for p in board.players]
        for i, p in enumerate(board.players):
            path = f"players[{i}]"
            if p.cant_lose is not None and p.cant_lose not in id_set:
                raise self.reference_error(
                    f"{path}.cant_lose",
                    f"no object with id {p.cant_lose!r}" + _suggest(p.cant_lose, ids),
                )
            for commander in p.commander_damage:
                if commander not in id_set:
                    raise self.reference_error(
                        f"{path}.commander_damage.{commander}",
                        f"no object with id {commander!r}" + _suggest(commander, ids),
                    )
        for i, o in enumerate(board.objects):
            path = f"objects[{i}]"
            if (
                o.attached_to is not None
                and o.attached_to not in id_set
                and o.attached_to not in names
            ):
                raise self.reference_error(
                    f"{path}.attached_to",
                    f"no object or player {o.attached_to!r}" + _suggest(o.attached_to, ids + names),
                )
            for j, e in enumerate(o.effects):
                if e.source not in id_set:
                    raise self.reference_error(
                        f"{path}.effects[{j}].source",
                        f"no object with id {e.source!r}" + _suggest(e.source, ids),
                    )

    def build_choices(self, raw: Any, board: BoardState) -> dict[str, dict[str, ChoiceValue]]:
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            raise self.value_error("choices", "expected a mapping: rule name → {player: choice}")
        ids = [o.id for o in board.objects]
        names = [p.name for p in board.players]
        out: dict[str, dict[str, ChoiceValue]] = {}
        for rule_name, per_player in raw.items():
            path = f"choices.{rule_name}"
            if rule_name not in CHOICE_NAMES:
                raise self.value_error(path, "unknown choice" + _suggest(rule_name, CHOICE_NAMES))
            if not isinstance(per_player, dict):
                raise self.value_error(path, "expected a mapping of player → choice")
            out[rule_name] = {}
            for player, value in per_player.items():
                ppath = f"{path}.{player}"
                if player not in names:
                    raise self.reference_error(
                        ppath, f"unknown player {player!r}" + _suggest(player, names)
                    )
                out[rule_name][player] = self.check_choice(rule_name, value, ppath, ids, names)
        return out

    def check_choice(
        self, rule_name: str, value: Any, path: str, ids: list[str], names: list[str]
    ) -> ChoiceValue:
        def need(kind: str, item: Any, valid: list[str], item_path: str) -> str:
            if not isinstance(item, (str, int)) or str(item) not in valid:
                raise self.reference_error(
                    item_path, f"no {kind} {item!r}" + _suggest(str(item), valid)
                )
            return str(item)

        checks: dict[str, Callable[[Any, str], str]] = {
            "legend_rule": lambda v, p: need("object with id", v, ids, p),
            "planeswalker_uniqueness_rule": lambda v, p: need("object with id", v, ids, p),
            "battle_protector": lambda v, p: need("player", v, names, p),
            "sector_designation": lambda v, p: need("sector", str(v).lower(), list(SECTORS), p),
            "commander_to_command_zone": lambda v, p: need("object with id", v, ids, p),
        }
        check = checks[rule_name]
        if isinstance(value, bool):
            if rule_name != "commander_to_command_zone":
                raise self.value_error(path, f"expected a choice, got {value!r}")
            return value
        if isinstance(value, list):
            return [check(v, f"{path}[{k}]") for k, v in enumerate(value)]
        if isinstance(value, dict):
            if rule_name not in ("battle_protector", "sector_designation"):
                raise self.value_error(path, "expected an object id or a list of ids")
            out: dict[str, str] = {}
            for key, v in value.items():
                need("object with id", key, ids, f"{path}.{key}")
                out[str(key)] = check(v, f"{path}.{key}")
            return out
        return check(value, path)
