"""Reading a scenario's plain values into a board, by the specs of :mod:`.format`.

Each check names the file, the line and the key, and suggests the closest valid key or name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .errors import FillError, ScenarioLimitError, ScenarioReferenceError, ScenarioValueError
from .format import (
    CHOICE_NAMES,
    CHOICES,
    MAX_OBJECTS,
    MAX_PLAYERS,
    SECTORS,
    Fill,
    Given,
    Spec,
    hint_item,
    keys_of,
    pairs_of,
    parse_pt,
    pt_change,
    specs,
    top_keys,
)
from .values import ValueReader

__all__ = ["Reader"]

_NO_OBJECTS = "the board has no objects"


class Reader(ValueReader):
    """Checks plain values against the scenario format and builds the board."""

    def __init__(self, filename: str, lines: dict[str, int], fill: Fill | None = None) -> None:
        super().__init__(filename, lines)
        self.fill = fill
        self.written: dict[str, frozenset[str]] = {}
        """The keys the file itself wrote for each object, by object id."""

    # -- a dataclass from its fields ------------------------------------------------------------

    def read_fields(
        self,
        cls: type,
        data: Mapping[str, Any],
        path: str,
        players: list[str],
        skip: tuple[str, ...] = (),
    ) -> dict[str, Any]:
        """The constructor arguments of ``cls`` from ``data``, field by field, in order."""
        out: dict[str, Any] = {}
        pairs: set[str] = set()
        for spec in specs(cls):
            if spec.name in skip:
                continue
            pair = spec.meta.get("pair")
            if pair:
                if pair not in pairs:
                    pairs.add(pair)
                    out.update(self._read_pair(cls, pair, data, path))
                continue
            out[spec.name] = self._read(spec, data, path, players)
        return out

    def _read(self, spec: Spec, data: Mapping[str, Any], path: str, players: list[str]) -> Any:
        key, kind, meta = spec.key, spec.kind, spec.meta
        value: Any
        if kind in ("text", "text?"):
            value = self.get_str(data, key, path)
            if spec.default is not None:
                value = value or spec.default
            if meta.get("required") and not value:
                raise self.value_error(path, meta["required"])
            if value is not None:
                value = self._check_text(spec, value, path, players)
        elif kind == "whole":
            value = self.get_int(data, key, path, spec.default)
        elif kind == "whole?":
            value = self.get_opt_int(data, key, path)
        elif kind == "truth":
            value = self.get_bool(data, key, path, spec.default)
        elif kind == "words":
            value = self.get_str_list(data, key, path, lower=bool(meta.get("lower")))
        elif kind == "counts":
            value = self.get_counts(data, key, path)
        elif kind == "items":
            assert spec.item is not None
            value = self._read_items(spec, spec.item, data.get(key) or [], self.join(path, key))
        else:
            raise TypeError(f"no reader for the field {spec.name!r}")
        return value

    def _check_text(self, spec: Spec, value: str, path: str, players: list[str]) -> str:
        meta = spec.meta
        lowered = value.lower() if meta.get("lower") else value
        valid = meta.get("valid")
        if valid is not None and lowered not in valid:
            what = meta.get("what", spec.key)
            raise self.value_error(
                self.join(path, spec.key), f"unknown {what} {value!r}", lowered, valid
            )
        if meta.get("ref") == "player" and value not in players:
            raise self.reference_error(
                self.join(path, spec.key), f"unknown player {value!r}", value, players
            )
        return lowered

    def _read_pair(
        self, cls: type, pair: str, data: Mapping[str, Any], path: str
    ) -> dict[str, Any]:
        members = [s for s in specs(cls) if s.meta.get("pair") == pair]
        first = members[0].meta
        values = {s.name: self._read(s, data, path, []) for s in members}
        raw = data.get(pair)
        if raw is not None:
            if first.get("exclusive") and any(s.key in data for s in members):
                forms = "`/`".join(f"{s.key}:" for s in members)
                raise self.value_error(f"{path}.{pair}", f"give either `{pair}:` or `{forms}`")
            try:
                parsed = parse_pt(str(raw))
            except ValueError:
                raise self.value_error(
                    f"{path}.{pair}", f"expected {first['example']}, got {raw!r}"
                ) from None
            values = {s.name: v for s, v in zip(members, parsed, strict=True)}
        return values

    def _read_items(self, spec: Spec, item: type, raw: Any, path: str) -> list[Any]:
        example = spec.meta.get("example", "{…}")
        if not isinstance(raw, list):
            raise self.value_error(
                path, f"expected a list of {spec.meta.get('shape', '')} mappings"
            )
        out = []
        for j, entry in enumerate(raw):
            entry_path = f"{path}[{j}]"
            if not isinstance(entry, dict):
                raise self.value_error(
                    entry_path, f"expected a mapping such as {example}, got {entry!r}"
                )
            self.check_keys(entry, entry_path, keys_of(item))
            out.append(item(**self.read_fields(item, entry, entry_path, [])))
        return out

    # -- the board ------------------------------------------------------------------------------

    def read_board(self, cls: type, data: Any, first_line: int) -> Any:
        """An instance of ``cls`` (``BoardState``) from the file's plain values."""
        if not isinstance(data, dict):
            raise ScenarioValueError(
                self.filename, first_line, None, "the board must be a mapping with `players:`"
            )
        board_specs = {s.name: s for s in specs(cls)}
        self.check_keys(data, "", top_keys(cls))
        edition = self.get_str(data, "edition", "")
        variant = self._read(board_specs["variant"], data, "", [])
        raw_players = data.get("players")
        if not isinstance(raw_players, list) or not raw_players:
            raise ScenarioValueError(
                self.filename,
                self.line_of("players") or first_line,
                "players",
                "expected a list of players, e.g. `players: [{name: Alice}, {name: Bob}]`",
            )
        self._limit("players", len(raw_players), MAX_PLAYERS)
        player_cls = hint_item(cls, "players")
        players = [
            self.read_player(player_cls, p, f"players[{i}]") for i, p in enumerate(raw_players)
        ]
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
        self._limit("objects", len(raw_objects), MAX_OBJECTS)
        for i, o in enumerate(raw_objects):
            if not isinstance(o, dict):
                raise self.value_error(f"objects[{i}]", f"expected a mapping, got {o!r}")
        objects = self.read_objects(hint_item(cls, "objects"), raw_objects, list(seen))
        board = cls(players=players, objects=objects, edition=edition, variant=variant)
        self.check_references(board)
        board.choices = self.read_choices(data.get("choices"), board)
        return board

    def _limit(self, key: str, count: int, limit: int) -> None:
        if count > limit:
            raise ScenarioLimitError(
                self.filename,
                self.line_of(key),
                key,
                f"{count:,} {key}; a scenario may have at most {limit:,}",
                limit,
            )

    def read_player(self, cls: type, data: Any, path: str) -> Any:
        if isinstance(data, str):
            return cls(data)
        if not isinstance(data, dict):
            raise self.value_error(path, f"expected a mapping with `name:`, got {data!r}")
        self.check_keys(data, path, keys_of(cls))
        return cls(**self.read_fields(cls, data, path, []))

    def read_objects(self, cls: type, raw: list[dict[str, Any]], players: list[str]) -> list[Any]:
        valid = keys_of(cls)
        merged: list[Mapping[str, Any]] = list(raw)
        filled: list[frozenset[str]] = [frozenset()] * len(raw)
        needs = {s.key: s.meta["fill"] for s in specs(cls) if s.meta.get("fill")}
        for i, data in enumerate(raw):
            self.check_keys(data, f"objects[{i}]", valid)
            if self.fill is not None:
                # The filled keys come first, so that an id can default to a name a card gave.
                merged[i], filled[i] = self._filled(cls, data, f"objects[{i}]")
            else:
                for key, source in needs.items():
                    if data.get(key) is not None:
                        raise self.value_error(
                            f"objects[{i}].{key}",
                            f"`{key}:` is filled from {source}, and the board was read without it",
                        )
        names = [self.get_str(o, "name", f"objects[{i}]") for i, o in enumerate(merged)]
        counts: dict[str, int] = {}
        for name in names:
            if name:
                counts[name] = counts.get(name, 0) + 1
        objects: list[Any] = []
        ids: dict[str, int] = {}
        for i, given in enumerate(merged):
            path = f"objects[{i}]"
            data = dict(given)
            name = names[i] or ""
            # An object's id defaults to its name, when no other object has that name.
            object_id = self.get_str(data, "id", path)
            if object_id is None:
                if not name:
                    raise self.value_error(path, "an object needs an `id:` or a `name:`")
                if counts[name] > 1:
                    raise self.reference_error(
                        f"{path}.name" if "name" in raw[i] else path,
                        f"the name {name!r} is not unique, so this object needs an `id:`",
                    )
                object_id = name
            if object_id in ids:
                raise self.reference_error(
                    f"{path}.id" if "id" in data else f"{path}.name",
                    f"duplicate id {object_id!r} (first used by objects[{ids[object_id]}])",
                )
            ids[object_id] = i
            self.written[object_id] = frozenset(raw[i])
            # With neither an owner nor a controller, the only player is both.
            if data.get("owner") is None and data.get("controller") is None:
                if len(players) != 1:
                    raise self.value_error(
                        path, f"object {object_id!r} needs a `controller:` (or an `owner:`)"
                    )
                data = {**data, "controller": players[0]}
            fields = self.read_fields(cls, data, path, players, skip=("id", "name"))
            obj = cls(id=object_id, name=name, **fields)
            if filled[i]:
                keys = filled[i] - self.written[object_id]
                self._record_given(cls, obj, keys, self.written[object_id])
            objects.append(obj)
        return objects

    def _filled(
        self, cls: type, data: Mapping[str, Any], path: str
    ) -> tuple[dict[str, Any], frozenset[str]]:
        """The object's keys from :attr:`fill`, then the file's own on top (see the module), and
        the keys the fill gave (those of a pair the file wrote left out)."""
        assert self.fill is not None
        try:
            filled = dict(self.fill(data, path))
        except FillError as exc:
            where = self.join(path, exc.key)
            raise ScenarioReferenceError(
                self.filename, self.line_of(where), where, exc.message, nearest=exc.nearest
            ) from None
        self.check_keys(filled, path, keys_of(cls))
        for pair, members in pairs_of(cls).items():
            # What the file writes of a pair wins over the other form the source filled in.
            if pair in data:
                for member in members:
                    filled.pop(member, None)
            if any(member in data for member in members):
                filled.pop(pair, None)
        return {**filled, **data}, frozenset(filled)

    @staticmethod
    def _record_given(cls: type, obj: Any, keys: frozenset[str], written: frozenset[str]) -> None:
        """Remembers what the fill gave ``obj`` (:class:`.format.Given`); a filled P/T is the
        printed one, so the object's P/T counters and effects are added to it."""
        values: dict[str, Any] = {}
        change = pt_change(getattr(obj, "counters", {}), getattr(obj, "effects", ()))
        index: dict[str, int] = {}
        for members in pairs_of(cls).values():
            index.update({m: n for n, m in enumerate(members)})
        for spec in specs(cls):
            pair = spec.meta.get("pair")
            if spec.key not in keys and not (pair and pair in keys):
                continue
            value = getattr(obj, spec.name)
            values[spec.name] = value
            if pair == "pt" and value is not None:
                setattr(obj, spec.name, value + change[index[spec.key]])
        obj.given = Given(values, written)

    def check_references(self, board: Any) -> None:
        """Every reference to an object (or player) names one on the board."""
        ids = [o.id for o in board.objects]
        id_set = set(ids)
        names = [p.name for p in board.players]
        for things, label in ((board.players, "players"), (board.objects, "objects")):
            for i, thing in enumerate(things):
                self._check_refs(thing, f"{label}[{i}]", ids, id_set, names)

    def _check_refs(
        self, thing: Any, path: str, ids: list[str], id_set: set[str], names: list[str]
    ) -> None:
        cls: type = type(thing)
        for spec in specs(cls):
            value = getattr(thing, spec.name)
            ref = spec.meta.get("ref")
            if ref == "object" and value is not None and value not in id_set:
                raise self.reference_error(
                    f"{path}.{spec.key}",
                    f"no object with id {value!r}",
                    value,
                    ids,
                    _NO_OBJECTS,
                )
            if (
                ref == "object or player"
                and value is not None
                and value not in id_set
                and value not in names
            ):
                raise self.reference_error(
                    f"{path}.{spec.key}",
                    f"no object or player {value!r}",
                    value,
                    ids + names,
                )
            if spec.meta.get("ref_keys") == "object":
                for key in value:
                    if key not in id_set:
                        raise self.reference_error(
                            f"{path}.{spec.key}.{key}",
                            f"no object with id {key!r}",
                            key,
                            ids,
                            _NO_OBJECTS,
                        )
            if spec.kind == "items":
                for j, item in enumerate(value):
                    self._check_refs(item, f"{path}.{spec.key}[{j}]", ids, id_set, names)

    def read_choices(self, raw: Any, board: Any) -> dict[str, dict[str, Any]]:
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            raise self.value_error("choices", "expected a mapping: rule name → {player: choice}")
        ids = [o.id for o in board.objects]
        names = [p.name for p in board.players]
        out: dict[str, dict[str, Any]] = {}
        for rule_name, per_player in raw.items():
            path = f"choices.{rule_name}"
            if rule_name not in CHOICES:
                raise self.value_error(path, "unknown choice", rule_name, CHOICE_NAMES)
            if not isinstance(per_player, dict):
                raise self.value_error(path, "expected a mapping of player → choice")
            out[rule_name] = {}
            for player, value in per_player.items():
                ppath = f"{path}.{player}"
                if player not in names:
                    raise self.reference_error(ppath, f"unknown player {player!r}", player, names)
                out[rule_name][player] = self.check_choice(rule_name, value, ppath, ids, names)
        return out

    def check_choice(
        self, rule_name: str, value: Any, path: str, ids: list[str], names: list[str]
    ) -> Any:
        def need(kind: str, item: Any, valid: list[str], item_path: str) -> str:
            if not isinstance(item, str | int) or str(item) not in valid:
                none = _NO_OBJECTS if kind == "object with id" else ""
                raise self.reference_error(item_path, f"no {kind} {item!r}", str(item), valid, none)
            return str(item)

        checks: dict[str, Callable[[Any, str], str]] = {
            "object": lambda v, p: need("object with id", v, ids, p),
            "player": lambda v, p: need("player", v, names, p),
            "sector": lambda v, p: need("sector", str(v).lower(), list(SECTORS), p),
        }
        check = checks[CHOICES[rule_name]]
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
