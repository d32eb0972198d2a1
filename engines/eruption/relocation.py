"""ERU-118 Relocate: checking a list of wall moves, and listing one per reachable arrangement."""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Final

from engines.core import IllegalMove

from . import board as B
from .geometry import own_entries

SORTED_ENTRIES: Final = {village: tuple(sorted(entries)) for village, entries in B.ENTRIES.items()}


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
    key = relocation_key(state, seat)
    return [] if key is None else relocations_of(*key)


def relocation_key(state, seat):
    """(sorted entry positions, the wall on each or None) of `seat`'s village, or None when Relocate
    has nothing to do: every step needs a wall to move and an empty position to move it to."""
    entries = SORTED_ENTRIES[state.villages[seat]]
    walls = state.walls.get
    start = tuple([walls(p) for p in entries])
    if None not in start or all(m is None for m in start):
        return None
    return entries, start


@lru_cache(maxsize=4096)
def relocations_of(entries, start):
    """`relocations` for one village's walls: cached, since a seat holding Relocate lists its moves
    once per cards step. Arrangements in the order of their materials, no wall first."""
    moves: list[Any] = _step_table(entries)
    return [tuple([moves[a] for a in plan]) for plan in _index_plans(start)]


@lru_cache(maxsize=64)
def _step_table(entries):
    """Step `a * n + b` (n entry positions) -> the wall move (from_cell, from_edge, to_cell, to_edge)."""
    return [(*a, *b) for a in entries for b in entries]


# A wall's material as a number that sorts as `m or ""` does (no wall first): the plans are searched on
# lists of these ints, which compiled code compares natively.
_CODE: Final[dict[str | None, int]] = {None: 0, **{m: i + 1 for i, m in enumerate(sorted(B.MATERIALS))}}


@lru_cache(maxsize=4096)
def _index_plans(start: tuple[str | None, ...]) -> list[tuple[int, ...]]:
    """The relocation plans of `start` as steps `a * n + b` between indices a, b of the n entry
    positions: the same for every village with walls arranged as `start`."""
    codes = [_CODE[m] for m in start]
    return [_relocation_steps(codes, goal) for goal in _arrangements(codes) if goal != codes]


def _arrangements(start: list[int]) -> list[list[int]]:
    """Every distinct ordering of `start`'s walls (`_CODE`s, 0 for no wall), in ascending order:
    the multiset permutations by the next-permutation step, so each one is made once
    (`set(permutations(start))` makes up to 5040 to keep a few hundred)."""
    keys = sorted(start)
    out: list[list[int]] = []
    n = len(keys)
    while True:
        out.append(keys[:])
        i = n - 2
        while i >= 0 and keys[i] >= keys[i + 1]:
            i -= 1
        if i < 0:
            return out
        j = n - 1
        while keys[j] <= keys[i]:
            j -= 1
        keys[i], keys[j] = keys[j], keys[i]
        keys[i + 1:] = keys[:i:-1]


def _relocation_steps(start: list[int], goal: list[int]) -> tuple[int, ...]:
    """Steps from occupied to empty positions that turn `start` into `goal` (same walls, other places):
    fill an empty position the goal wants filled with a misplaced wall of that material; when none is
    left, move a misplaced wall aside to a free position to break the cycle. Step a -> b is a * n + b."""
    cur, want = start[:], goal
    steps: list[int] = []
    n = len(cur)
    while cur != want:
        src = -1
        hole = 0
        while hole < n:
            if cur[hole] == 0 and want[hole] != 0:
                src = _misplaced(cur, want, want[hole])
                break
            hole += 1
        if src < 0:
            src = _misplaced(cur, want, 0)
            hole = cur.index(0)
        steps.append(src * n + hole)
        cur[hole], cur[src] = cur[src], 0
    return tuple(steps)


def _misplaced(cur: list[int], want: list[int], material: int) -> int:
    """The first position holding a wall the goal wants elsewhere: of `material` (a wall it wants
    moved), or with 0 any wall on a position the goal fills with another."""
    for j in range(len(cur)):
        m = cur[j]
        if material == 0:
            if m != 0 and m != want[j] and want[j] != 0:
                return j
        elif m == material and want[j] != m:
            return j
    raise AssertionError("no misplaced wall")  # goal holds the same walls as cur
