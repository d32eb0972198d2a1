"""`Event`, what a move made happen (re-exported by engines.core, where the engine contract lives).

Its own module so that the mypyc build compiles it (engines/native.py): a playout makes about two
events per move, and the interpreted `__init__` cost about 2,700 instructions per event, a sixth of a
compiled Citadels move (bench/notes/core.md); compiled, a native constructor call from the engines'
compiled effects.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Final

PUBLIC: Final = None  # Event.to value for events every seat and spectator may see


class Event:
    """Something that happened. `to` is PUBLIC (None) or the only seat that may see it.

    `kind` names the event in the game's vocabulary and `data` holds plain
    JSON-like values; both match the game's protobuf event message field names.
    A value: never changed once made. `kind` has a default only so that the unpickler can make an
    empty one (a compiled class's `__new__` runs `__init__`) before `__setstate__` fills it.
    """

    __slots__ = ("kind", "data", "to")
    __match_args__: ClassVar[tuple[str, ...]] = ("kind", "data", "to")

    def __init__(self, kind: str = "", data: Mapping[str, Any] | None = None, to: int | None = PUBLIC) -> None:
        self.kind = kind
        self.data: Mapping[str, Any] = {} if data is None else data
        self.to = to

    def visible_to(self, seat: int | None) -> bool:
        return self.to is PUBLIC or self.to == seat

    def __repr__(self) -> str:
        return f"Event(kind={self.kind!r}, data={self.data!r}, to={self.to!r})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Event:
            return NotImplemented
        return (self.kind, self.data, self.to) == (other.kind, other.data, other.to)

    def __hash__(self) -> int:
        return hash((self.kind, self.data, self.to))

    def __reduce__(self) -> tuple[type[Event], tuple[str, Mapping[str, Any], int | None]]:
        return Event, (self.kind, self.data, self.to)

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        """Loads events pickled when Event was a frozen dataclass (its fields as a dict)."""
        self.kind, self.data, self.to = state["kind"], state["data"], state["to"]
