"""The file's values one by one: typed getters and errors that name the file, line and key."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from .errors import ScenarioReferenceError, ScenarioValueError

__all__ = ["ValueReader"]


def _nearest(word: str, options: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The options closest to ``word``, best first (at most three)."""
    return tuple(difflib.get_close_matches(word, list(options), n=3, cutoff=0.5))


def _suggest(word: str, options: tuple[str, ...] | list[str], none: str = "") -> str:
    """ "; did you mean 'x'?" for the closest option, else the valid ones (or ``none``)."""
    close = _nearest(word, options)
    if close:
        return f"; did you mean '{close[0]}'?"
    if not options:
        return f"; {none}" if none else ""
    shown = ", ".join(options[:12]) + (", …" if len(options) > 12 else "")
    return f"; valid: {shown}"


class ValueReader:
    """Reads a file's plain values by key; each error names the file, the line and the key."""

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

    @staticmethod
    def join(path: str, key: str) -> str:
        """The path of ``key`` inside ``path`` (``objects[0].pt``)."""
        return f"{path}.{key}" if path else key

    def value_error(
        self,
        path: str,
        message: str,
        word: str | None = None,
        options: tuple[str, ...] | list[str] = (),
    ) -> ScenarioValueError:
        """The error at ``path``; with ``word``, ending in a suggestion from ``options``."""
        line = self.line_of(path)
        if word is None:
            return ScenarioValueError(self.filename, line, path, message)
        message += _suggest(word, options)
        return ScenarioValueError(
            self.filename, line, path, message, nearest=_nearest(word, options)
        )

    def reference_error(
        self,
        path: str,
        message: str,
        word: str | None = None,
        options: tuple[str, ...] | list[str] = (),
        none: str = "",
    ) -> ScenarioReferenceError:
        """The error at ``path``; with ``word``, the message ends in a suggestion from ``options``
        (or says ``none`` when there are none)."""
        line = self.line_of(path)
        if word is None:
            return ScenarioReferenceError(self.filename, line, path, message)
        message += _suggest(word, options, none)
        return ScenarioReferenceError(
            self.filename, line, path, message, nearest=_nearest(word, options)
        )

    def check_keys(self, data: Mapping[str, Any], path: str, valid: tuple[str, ...]) -> None:
        for key in data:
            if key not in valid:
                child = f"{path}.{key}" if path else key
                raise self.value_error(child, "unknown key", key, valid)

    # -- typed getters ----------------------------------------------------------------------

    def get_int(self, data: Mapping[str, Any], key: str, path: str, default: int) -> int:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.value_error(self.join(path, key), f"expected a whole number, got {value!r}")
        return value

    def get_opt_int(self, data: Mapping[str, Any], key: str, path: str) -> int | None:
        if data.get(key) is None:
            return None
        return self.get_int(data, key, path, 0)

    def get_bool(self, data: Mapping[str, Any], key: str, path: str, default: bool) -> bool:
        value = data.get(key, default)
        if not isinstance(value, bool):
            raise self.value_error(self.join(path, key), f"expected true or false, got {value!r}")
        return value

    def get_str(self, data: Mapping[str, Any], key: str, path: str) -> str | None:
        value = data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise self.value_error(self.join(path, key), f"expected text, got {value!r}")
        return str(value)

    def get_str_list(self, data: Mapping[str, Any], key: str, path: str, lower: bool) -> list[str]:
        value = data.get(key)
        if value is None:
            return []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str | int) for v in value):
            raise self.value_error(self.join(path, key), f"expected a list of words, got {value!r}")
        return [str(v).lower() if lower else str(v) for v in value]

    def get_counts(self, data: Mapping[str, Any], key: str, path: str) -> dict[str, int]:
        value = data.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.value_error(
                self.join(path, key), f"expected a mapping of counts, got {value!r}"
            )
        out: dict[str, int] = {}
        for name, count in value.items():
            if isinstance(count, bool) or not isinstance(count, int):
                raise self.value_error(
                    f"{self.join(path, key)}.{name}", f"expected a whole number, got {count!r}"
                )
            out[str(name)] = count
        return out
