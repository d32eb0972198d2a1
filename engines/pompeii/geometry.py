"""Where lava may flow and people may walk (POM-62, POM-65, POM-72, POM-73): queries on the city."""
from __future__ import annotations

from collections import deque

from . import board as B
from .state import PompeiiState


def passable(state: PompeiiState, cell: int) -> bool:
    """POM-72: uncovered city square; uncovered vents too unless vents_block_movement."""
    return (B.IS_CITY[cell] and not state.lava[cell]
            and not (B.IS_VENT[cell] and state.options["vents_block_movement"]))


def lava_cells(state: PompeiiState, symbol: str) -> list[int]:
    """POM-62: legal squares for a tile counting as `symbol`."""
    lava = state.lava
    vent = B.VENT[symbol]
    foreign = state.options["lava_on_foreign_vent"]
    sources = [c for c in B.CITY if lava[c] == symbol]
    if not sources:
        if not lava[vent]:
            return [vent]
        sources = [vent]  # vent covered by another symbol (only with lava_on_foreign_vent)
    elif lava[vent] and lava[vent] != symbol:
        sources.append(vent)
    out = set()
    for source in sources:
        for n in B.NEIGHBOURS[source]:
            if not lava[n] and (foreign or not B.IS_VENT[n] or B.VENT_SYMBOL[n] == symbol):
                out.add(n)
    return sorted(out)


def tile_options(state: PompeiiState) -> list[tuple[str, int]]:
    """(symbol, cell) pairs for the pending tile; symbol "" for a one-symbol tile (POM-66)."""
    symbols = B.tile_symbols(state.pending_tile)
    if len(symbols) == 1:
        return [("", c) for c in lava_cells(state, symbols[0])]
    return [(symbol, c) for symbol in symbols for c in lava_cells(state, symbol)]


_BLOCKED_AT_START = {v: tuple(not B.IS_CITY[c] or (v and B.IS_VENT[c]) for c in range(B.CELLS))
                     for v in (False, True)}


def blocked_cells(state: PompeiiState) -> list[bool]:
    """POM-72: cells a person cannot enter (void, covered, or uncovered vents with vents_block_movement)."""
    blocked = list(_BLOCKED_AT_START[state.options["vents_block_movement"]])
    for c, _ in state.lava_order:
        blocked[c] = True
    return blocked


def reachable(state: PompeiiState, origin: int, steps: int, blocked=None) -> dict[int, int]:
    """POM-72: cells reachable from origin within `steps`, with their distance."""
    if blocked is None:
        blocked = blocked_cells(state)
    dist = {origin: 0}
    frontier = [origin]
    for d in range(1, steps + 1):
        nxt = []
        for c in frontier:
            for n in B.NEIGHBOURS[c]:
                if n not in dist and not blocked[n]:
                    dist[n] = d
                    nxt.append(n)
        if not nxt:
            break
        frontier = nxt
    return dist


def can_leave(state: PompeiiState, dist: dict[int, int], allowance: int) -> bool:
    """POM-73: an open gate square within allowance - 1 steps."""
    return any(dist.get(g, allowance) <= allowance - 1 for g in B.GATES if not state.lava[g])


def reached_from_gates(state: PompeiiState) -> set[int]:
    """POM-65 steps 1-2: uncovered gate squares spread through passable squares."""
    blocked = blocked_cells(state)
    seen = {g for g in B.GATES if not blocked[g]}
    queue = deque(seen)
    while queue:
        c = queue.popleft()
        for n in B.NEIGHBOURS[c]:
            if n not in seen and not blocked[n]:
                seen.add(n)
                queue.append(n)
    return seen
