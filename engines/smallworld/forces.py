"""Small queries about who holds what: a *force* is the token kind that conquers now (the current
player's active race, his in-decline Ghouls during their phase, SW-133, or the Necromancer's Ghosts, NEC-9)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from . import data as D
from .state import SmallWorldState

GHOSTS: Final = D.GHOSTS
NONE: Final = D.NO_RACE
N_RACES: Final = D.N_RACES


def option(state: SmallWorldState, name: str) -> Any:
    return state.options[name]


def board_of(state: SmallWorldState) -> D.Board:
    """`state.board` as a compiled call: the property is a Python-level call from compiled code."""
    return D.BOARDS[state.map_key]


def regions_of(state: SmallWorldState, k: int) -> list[int]:
    """The regions force k holds, in region order (a loop the compiled build runs on native ints)."""
    return [r for r, x in enumerate(state.occupant) if x == k]


def on_map(state: SmallWorldState, k: int) -> int:
    tokens: list[int] = state.tokens
    return sum([tokens[r] for r in regions_of(state, k)])


def seat_of(state: SmallWorldState, k: int) -> int:
    if k == GHOSTS:
        return state.necromancer
    if 0 <= k < D.N_RACES:
        return state.owner[k]
    return -1


def active_force(state: SmallWorldState, seat: int) -> int:
    if seat < 0:
        return NONE
    return GHOSTS if seat == state.necromancer else state.active_race[seat]


def is_active_race(state: SmallWorldState, k: int) -> bool:
    return 0 <= k < D.N_RACES and state.owner[k] >= 0 and not state.in_decline[k]


# the powers of a race with badge p, built once
BADGE_POWERS: Final[tuple[tuple[int], ...]] = tuple((p,) for p in range(D.N_POWERS))


def powers(state: SmallWorldState, k: int) -> Sequence[int]:
    """Powers that act for force k: an active race's badge, or the Necromancer's active powers (NEC-25)."""
    if 0 <= k < N_RACES:
        p = state.power_of[k]
        if p >= 0 and state.owner[k] >= 0 and not state.in_decline[k]:  # is_active_race
            return BADGE_POWERS[p]
        return ()
    if k == GHOSTS:
        return state.necromancer_powers if state.options["necro_powers_active"] else ()
    return ()


def race_ability(state: SmallWorldState, k: int, race: int) -> bool:
    return k == race and not state.in_decline[k] and state.owner[k] >= 0


def tokens_of(state: SmallWorldState, k: int) -> int:
    return on_map(state, k) + state.hand[k] + state.kept[k] + state.set_aside[k]


def kinds_of(state: SmallWorldState, seat: int) -> list[int]:
    ks: list[int] = []
    if seat == state.necromancer:
        ks.append(GHOSTS)
    elif state.active_race[seat] >= 0:
        ks.append(state.active_race[seat])
    ks.extend(state.declines[seat])
    return ks


def price(state: SmallWorldState) -> int:
    """NEC-19: active powers + Ghosts on regions + Ghosts on the Island (+1 with necro_price_plus_one)."""
    return (len(state.necromancer_powers) + on_map(state, GHOSTS) + state.island
            + (1 if option(state, "necro_price_plus_one") else 0))


def is_wiped(state: SmallWorldState, seat: int) -> bool:
    a = state.active_race[seat]
    return a >= 0 and tokens_of(state, a) == 0


def bivouac_force(state: SmallWorldState, seat: int) -> int:
    f = active_force(state, seat)
    return f if f >= 0 and D.BIVOUACKING in powers(state, f) else NONE
