"""The Eruption state: every field declared, named as the rules name it (docs/rules/eruption.md).

Hidden parts: hands, the draw pile's order, the stack's order, the tiles removed at a burnout
and the rng. Cells are (x, y) tuples; a lava mask has bit e set for lava on edge e (ERU-11).
"""
from __future__ import annotations

import itertools
import random
from typing import TYPE_CHECKING, Any, Final

from .board import Cell, Position
from .derived import share

if TYPE_CHECKING:
    from .derived import Derived

# The steps of a turn (ERU-40) as `state.phase` names them; OVER once the game has ended (ERU-150).
# Final, so that compiled modules use the literals instead of looking the names up at every use.
ERUPTION: Final = "eruption"
PLACEMENT: Final = "placement"
EXTRA_PLACEMENT: Final = "extra_placement"
CARDS: Final = "cards"
QUAKE: Final = "quake"
WALLS: Final = "walls"
OVER: Final = "over"
PHASES: Final = (ERUPTION, PLACEMENT, EXTRA_PLACEMENT, CARDS, QUAKE, WALLS, OVER)

# What started the current placement action (ERU-42(b), ERU-42(c), ERU-113/116): `placement_origin`.
REGULAR: Final = "regular"
EXTRA: Final = "extra"
CARD: Final = "card"

# Eruption tile statuses (ERU-60..65), by tile: `eruption_status`.
UNCLAIMED: Final = "unclaimed"
HELD: Final = "held"
ON_BOARD: Final = "board"
REMOVED: Final = "removed"


_STAMPS = itertools.count(1)


class Cells(dict[Any, Any]):
    """`board` and `lava`: a dict that takes a new stamp, unique in the process, at every change and
    remembers its last change when that added a cell. derived.py's board answers hold while the stamps
    they were made for are the board's, and follow a tile put on an empty space without comparing
    boards; a copy keeps the stamp (same contents). A state pickles them as plain dicts."""

    stamp: int
    added: tuple[int, Any] | None  # (the stamp before, the cell) when the last change added a cell
    __slots__ = ("stamp", "added")

    def __init__(self, *args: Any) -> None:
        dict.__init__(self, *args)
        self.stamp, self.added = next(_STAMPS), None

    def copy(self) -> Cells:
        out = Cells(self)
        out.stamp, out.added = self.stamp, self.added
        return out

    def __setitem__(self, key: Any, value: Any) -> None:
        new = key not in self
        dict.__setitem__(self, key, value)
        before, self.stamp = self.stamp, next(_STAMPS)
        self.added = (before, key) if new else None

    def _changed(self) -> None:
        self.stamp, self.added = next(_STAMPS), None

    def __delitem__(self, key: Any) -> None:
        dict.__delitem__(self, key)
        self._changed()

    def pop(self, *args: Any) -> Any:
        value = dict.pop(self, *args)
        self._changed()
        return value

    def popitem(self) -> Any:
        item = dict.popitem(self)
        self._changed()
        return item

    def clear(self) -> None:
        dict.clear(self)
        self._changed()

    def update(self, *args: Any, **kwargs: Any) -> None:
        dict.update(self, *args, **kwargs)
        self._changed()

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return dict.__getitem__(self, key)

    def __ior__(self, other: Any) -> Cells:  # type: ignore[misc]  # dict's own |= would not stamp
        self.update(other)
        return self


class EruptionState:
    """The whole game; `clone` copies the mutable parts by hand (search speed depends on it)."""

    seats: int  # player count (ERU-1)
    options: dict[str, Any]  # the game's options, every flag present (spec.py)
    rng: random.Random  # all chance: shuffles and dice
    villages: tuple[int, ...]  # seat -> village number (ERU-16)
    temperatures: list[int]  # seat -> 0..290 (ERU-7)
    stockpiles: list[list[int]]  # seat -> [straw, wood, stone] walls (ERU-31.4)
    hands: list[list[str]]  # seat -> sorted card kinds (ERU-110)
    draw_pile: list[str]  # card kinds, top last (ERU-111)
    discard: list[str]  # card kinds, in the order used (ERU-113)
    stack: list[int]  # lava tile ids, top last (ERU-31.1)
    board: dict[Cell, tuple[int, int]]  # cell -> (tile id, rotation)
    lava: dict[Cell, int]  # cell -> lava mask of the tile there (ERU-12)
    walls: dict[Position, str]  # (cell, edge) -> material (ERU-24)
    supply: list[int]  # [straw, wood, stone] walls left in the supply (ERU-97)
    eruption_holder: list[int]  # eruption tile -> seat holding it, or -1
    eruption_status: list[str]  # eruption tile -> UNCLAIMED / HELD / ON_BOARD / REMOVED
    active: int  # the seat whose turn it is (ERU-40)
    first_player: int  # ERU-32
    turn: int  # turns started so far
    phase: str  # one of PHASES
    drawn_tile: int  # the lava tile being placed, or -1 (ERU-70)
    quake_tile: int  # the tile a Quake drew, or -1 (ERU-123)
    placement_origin: str  # REGULAR / EXTRA / CARD during a placement, else ""
    excluded: set[Cell]  # spaces closed to the drawn tile after a failed attempt (ERU-75)
    eruptions_placed: int  # eruption tiles placed this turn (ERU-62)
    walls_built: int  # walls built in this walls step (ERU-92)
    end_trigger: str  # "", "burnout" or "exhaustion" (ERU-150..152)
    trigger_seat: int  # the seat that triggered the end, or -1
    turns_left: int  # turns left once the end is triggered, or -1
    removed_tiles: list[int]  # tiles removed from the game, in order
    burnout_removed: list[int]  # the stack removed at a burnout (hidden, ERU-151)
    removed_walls: list[int]  # [straw, wood, stone] walls removed from the game (ERU-94)
    derived: Derived | None  # what the board implies, cached for that board (derived.py), or None
    __slots__ = tuple(__annotations__)  # the fields above, and no others

    def __getstate__(self) -> tuple[None, dict[str, object]]:
        """The game's fields without `derived`: a cache is no part of the state (pickles and
        bit-for-bit comparisons see the same state whatever was asked of it)."""
        return None, {name: _plain(getattr(self, name)) for name in self.__slots__
                      if name != "derived" and hasattr(self, name)}

    def __setstate__(self, state: tuple[None, dict[str, object]]) -> None:
        for name, value in state[1].items():
            setattr(self, name, Cells(value) if name in _CELLS and type(value) is dict else value)
        self.derived = None

    def clone(self) -> EruptionState:
        state = EruptionState.__new__(EruptionState)
        state.seats = self.seats
        state.options = self.options
        state.rng = random.Random()
        state.rng.setstate(self.rng.getstate())
        state.villages = self.villages
        state.temperatures = self.temperatures[:]
        state.stockpiles = [p[:] for p in self.stockpiles]
        state.hands = [h[:] for h in self.hands]
        state.draw_pile = self.draw_pile[:]
        state.discard = self.discard[:]
        state.stack = self.stack[:]
        state.board = self.board.copy()
        state.lava = self.lava.copy()
        state.walls = dict(self.walls)
        state.supply = self.supply[:]
        state.eruption_holder = self.eruption_holder[:]
        state.eruption_status = self.eruption_status[:]
        state.active = self.active
        state.first_player = self.first_player
        state.turn = self.turn
        state.phase = self.phase
        state.drawn_tile = self.drawn_tile
        state.quake_tile = self.quake_tile
        state.placement_origin = self.placement_origin
        state.excluded = set(self.excluded)
        state.eruptions_placed = self.eruptions_placed
        state.walls_built = self.walls_built
        state.end_trigger = self.end_trigger
        state.trigger_seat = self.trigger_seat
        state.turns_left = self.turns_left
        state.removed_tiles = self.removed_tiles[:]
        state.burnout_removed = self.burnout_removed[:]
        state.removed_walls = self.removed_walls[:]
        state.derived = self.derived  # shared: it is checked against the board before each use
        share(self.derived)
        return state


_CELLS = ("board", "lava")


def _plain(value: object) -> object:
    return dict(value) if type(value) is Cells else value
