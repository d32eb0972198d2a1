"""Where lava may flow and people may walk (POM-62, POM-65, POM-72, POM-73): queries on the city.

The city is read as bit masks (board.py): covered cells, open cells, walks and floods are a few
integer operations per step, and the masks of the lava laid so far are kept in the state, remade
from `lava_order` only when it has grown or was replaced since.
"""
from __future__ import annotations

from . import board as B
from .state import PompeiiState


def lava_masks(state: PompeiiState) -> tuple[int, dict[str, int]]:
    """The covered cells, and per symbol the cells whose tile counts as it (POM-62)."""
    order = state.lava_order
    if state.lava_read is not order or state.lava_seen != len(order):
        covered = 0
        marks: dict[str, int] = {}
        for c, symbol in order:
            covered |= 1 << c
            marks[symbol] = marks.get(symbol, 0) | 1 << c
        state.covered, state.lava_marks, state.lava_read, state.lava_seen = covered, marks, order, len(order)
    return state.covered, state.lava_marks


def note_lava(state: PompeiiState, cell: int, symbol: str) -> None:
    """Lay a tile: the cell, the order of tiles, and the masks when they were up to date."""
    fresh = state.lava_read is state.lava_order and state.lava_seen == len(state.lava_order)
    state.lava[cell] = symbol
    state.lava_order.append((cell, symbol))
    if fresh:
        marks = dict(state.lava_marks)  # clones share the old dict
        marks[symbol] = marks.get(symbol, 0) | 1 << cell
        state.covered |= 1 << cell
        state.lava_marks = marks
        state.lava_seen += 1


def passable(state: PompeiiState, cell: int) -> bool:
    """POM-72: uncovered city square; uncovered vents too unless vents_block_movement."""
    return bool(open_cells(state) >> cell & 1)


def open_cells(state: PompeiiState) -> int:
    """POM-72: the cells a person may enter (uncovered city squares, less uncovered vents when
    vents_block_movement), as a mask."""
    open_ = B.CITY_MASK & ~lava_masks(state)[0]
    if state.options["vents_block_movement"]:
        open_ &= ~B.VENT_MASK
    return open_


def lava_targets(state: PompeiiState, symbol: str) -> int:
    """POM-62: the legal squares for a tile counting as `symbol`, as a mask."""
    covered, marks = lava_masks(state)
    vent = 1 << B.VENT[symbol]
    sources = marks.get(symbol, 0)
    if not sources:
        if not covered & vent:
            return vent
        sources = vent  # vent covered by another symbol (only with lava_on_foreign_vent)
    elif covered & vent:
        sources |= vent
    targets = B.spread(sources) & ~covered
    if not state.options["lava_on_foreign_vent"]:
        targets &= ~B.VENT_MASK | vent
    return targets


def lava_cells(state: PompeiiState, symbol: str) -> list[int]:
    """POM-62: legal squares for a tile counting as `symbol`."""
    return B.cells_of(lava_targets(state, symbol))


def tile_options(state: PompeiiState) -> list[tuple[str, int]]:
    """(symbol, cell) pairs for the pending tile; symbol "" for a one-symbol tile (POM-66)."""
    symbols = B.tile_symbols(state.pending_tile)
    if len(symbols) == 1:
        return [("", c) for c in lava_cells(state, symbols[0])]
    return [(symbol, c) for symbol in symbols for c in lava_cells(state, symbol)]


def tile_fits(state: PompeiiState) -> bool:
    """POM-63: the pending tile has a legal square."""
    return any(lava_targets(state, symbol) for symbol in B.tile_symbols(state.pending_tile))


def walk(open_: int, origin: int, steps: int) -> tuple[int, int]:
    """POM-72/73: the cells reachable from origin within `steps` through `open_` cells, and those
    within steps - 1 (from where an open gate lets the person out), as masks."""
    seen = front = before = 1 << origin
    for d in range(1, steps + 1):
        if d == steps:
            before = seen
        front = B.spread(front) & open_ & ~seen
        if not front:
            return seen, seen
        seen |= front
    return seen, before


def reachable(state: PompeiiState, origin: int, steps: int) -> dict[int, int]:
    """POM-72: cells reachable from origin within `steps`, with their distance."""
    open_ = open_cells(state)
    dist = {origin: 0}
    seen = front = 1 << origin
    for d in range(1, steps + 1):
        front = B.spread(front) & open_ & ~seen
        if not front:
            break
        seen |= front
        dist.update((c, d) for c in B.cells_of(front))
    return dist


def can_leave(state: PompeiiState, dist: dict[int, int], allowance: int) -> bool:
    """POM-73: an open gate square within allowance - 1 steps."""
    return any(dist.get(g, allowance) <= allowance - 1 for g in B.GATES if not state.lava[g])


def cut_off_cells(state: PompeiiState, cells: int) -> int:
    """POM-65: the cells of mask `cells` that no open gate reaches: uncovered gate squares spread
    through passable squares (steps 1-2), and the spreading stops once it has reached all of them."""
    open_ = open_cells(state)
    seen = front = B.GATE_MASK & open_
    while front and cells & ~seen:
        front = B.spread(front) & open_ & ~seen
        seen |= front
    return cells & ~seen
