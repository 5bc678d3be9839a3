"""Plain record classes: what ``@dataclass`` gives, without its cost at import.

``judge rule`` starts in a few tens of milliseconds, and each ``@dataclass`` compiles its
methods from source when its module is imported (about 0.5 ms a class). The records a rule
lookup touches derive from these bases instead: each names its ``_fields`` and writes its own
``__init__``; equality, ``repr``, and for :class:`FrozenRecord` hashing and immutability behave
as a dataclass's do.
"""

from __future__ import annotations

import operator
from typing import Any, ClassVar

__all__ = ["FrozenRecord", "Record"]


class _Fields:
    """Equality and ``repr`` from ``_fields``, as a dataclass has them."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    """The fields, in order: compared, and shown by ``repr`` unless in ``_hidden``."""
    _hidden: ClassVar[tuple[str, ...]] = ()
    """Fields kept out of ``repr`` and equality (caches)."""

    @staticmethod
    def _values(obj: Any) -> tuple[Any, ...]:
        """The compared fields' values, as a tuple (each class sets its own: see below)."""
        return ()

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        compared = [name for name in cls._fields if name not in cls._hidden]
        if not compared:
            return
        # An attrgetter, as equality and hashing are hot (rule numbers key dictionaries); of
        # one name it returns the value itself, not a 1-tuple.
        getter = operator.attrgetter(*compared)
        values = getter if len(compared) > 1 else lambda obj: (getter(obj),)
        cls._values = staticmethod(values)  # type: ignore[method-assign,assignment]

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        values = self._values
        return values(self) == values(other)

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={getattr(self, name)!r}" for name in self._fields if name not in self._hidden
        )
        return f"{self.__class__.__qualname__}({shown})"


class Record(_Fields):
    """A mutable record: equal when of the same class with equal fields; unhashable."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]  # mutable, as a dataclass with eq=True


class FrozenRecord(_Fields):
    """An immutable, hashable record (as ``@dataclass(frozen=True)``); picklable and copyable."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._values(self))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (self.__class__, tuple(getattr(self, name) for name in self._fields))

    def _init(self, *values: Any) -> None:
        """Sets the fields, in order (``__init__`` calls it: plain assignment is refused)."""
        for name, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, name, value)
