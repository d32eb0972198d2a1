"""ERU-118 Relocate: checking a list of wall moves, and listing one per reachable arrangement."""
from __future__ import annotations

from functools import lru_cache
from itertools import permutations

from engines.core import IllegalMove

from .geometry import own_entries


def village_walls(state, seat):
    """The walls on `seat`'s own entry positions: position -> material."""
    return {p: state.walls[p] for p in own_entries(state, seat) if p in state.walls}


def check_steps(state, seat, steps):
    """ERU-118: each step moves a wall between entry positions of your own village."""
    entries = set(own_entries(state, seat))
    if not isinstance(steps, tuple) or not steps:
        raise IllegalMove("ERU-118", "Relocate needs at least one wall move")
    walls = village_walls(state, seat)
    if not walls:
        raise IllegalMove("ERU-115", "there is no wall in your village")
    for step in steps:
        if not isinstance(step, tuple) or len(step) != 4:
            raise IllegalMove("ERU-118", "a relocate step is (from_cell, from_edge, to_cell, to_edge)")
        src, dst = (step[0], step[1]), (step[2], step[3])
        if src not in entries or dst not in entries:
            raise IllegalMove("ERU-118", "walls move only between your own village's entry positions")
        if src not in walls:
            raise IllegalMove("ERU-118", f"no wall on {src}")
        if dst in walls:
            raise IllegalMove("ERU-91", f"{dst} already holds a wall")
        walls[dst] = walls.pop(src)


def relocations(state, seat):
    """ERU-118: one step list per arrangement of the village's walls reachable by Relocate (the same
    walls on other entry positions), so that every distinct outcome is listed once."""
    entries = tuple(sorted(own_entries(state, seat)))
    start = tuple(state.walls.get(p) for p in entries)
    if None not in start or all(m is None for m in start):
        return []  # every step needs a wall to move and an empty position to move it to
    return _relocation_plans(entries, start)


@lru_cache(maxsize=4096)
def _relocation_plans(entries, start):
    """`relocations` for one village's walls: cached, since up to 5040 permutations are
    sorted out each time a seat holding Relocate lists its moves."""
    return [_relocation_steps(entries, start, goal) for goal in sorted(set(permutations(start)) - {start},
                                                                        key=lambda t: [m or "" for m in t])]


def _relocation_steps(entries, start, goal):
    """Steps from occupied to empty positions that turn `start` into `goal` (same walls, other places):
    fill an empty position the goal wants filled with a misplaced wall of that material; when none is
    left, move a misplaced wall aside to a free position to break the cycle."""
    cur, steps = list(start), []

    def step(a, b):
        steps.append((*entries[a], *entries[b]))
        cur[b], cur[a] = cur[a], None

    while cur != list(goal):
        hole = next((i for i, m in enumerate(cur) if m is None and goal[i] is not None), None)
        if hole is not None:
            src = next(j for j, m in enumerate(cur) if m == goal[hole] and goal[j] != m)
            step(src, hole)
        else:
            src = next(j for j, m in enumerate(cur) if m is not None and m != goal[j] and goal[j] is not None)
            step(src, cur.index(None))
    return tuple(steps)
