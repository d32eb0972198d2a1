"""Scoring (SW-110 - SW-114, NEC-26, NEC-29), the Necromancer's instant win (NEC-28) and the end."""
from __future__ import annotations

from typing import Final

from engines.core import Event, rank_by

from . import data as D
from .forces import board_of, kinds_of, on_map, option, powers, regions_of
from .state import SmallWorldState

GHOSTS: Final = D.GHOSTS


def score_turn(state: SmallWorldState, seat: int, events: list[Event]) -> None:
    """SW-110 / SW-111 (NEC-26 for the Necromancer)."""
    b = board_of(state)
    gained = 0
    if seat == state.necromancer:
        regs = regions_of(state, GHOSTS)
        gained += len(regs)
        gained += power_bonus(state, GHOSTS, regs)
        if D.WEALTHY in powers(state, GHOSTS) and not state.wealthy_paid:  # ED-45
            gained += 7
            state.wealthy_paid = 1
    else:
        a = state.active_race[seat]
        active_regions = []
        for k in kinds_of(state, seat):
            regs = regions_of(state, k)
            gained += len(regs)
            if k == D.DWARVES:  # SW-131, also in decline
                gained += sum(1 for r in regs if "mine" in b.symbols[r])
            if k == a:
                active_regions = regs
        if a >= 0:
            regs = active_regions
            if a == D.HUMANS:
                gained += sum(1 for r in regs if b.terrain[r] == "farmland")
            elif a == D.WIZARDS:
                gained += sum(1 for r in regs if "magic_source" in b.symbols[r])
            elif a == D.ORCS:
                gained += state.nonempty_conquests[a]
            gained += power_bonus(state, a, regs)
        if state.wealthy_due[seat]:  # SW-169
            gained += 7
            state.wealthy_due[seat] = 0
    state.coins[seat] += gained
    to = None if option(state, "public_coins") else seat
    events.append(Event("scored", {"seat": seat, "coins": gained, "total": state.coins[seat]}, to))


def power_bonus(state: SmallWorldState, k: int, regs: list[int]) -> int:
    b = board_of(state)
    g = 0
    for p in powers(state, k):
        if p == D.ALCHEMIST:
            g += 2
        elif p == D.FOREST:
            g += sum(1 for r in regs if b.terrain[r] == "forest")
        elif p == D.HILL:
            g += sum(1 for r in regs if b.terrain[r] == "hill")
        elif p == D.SWAMP:
            g += sum(1 for r in regs if b.terrain[r] == "swamp")
        elif p == D.MERCHANT:
            g += len(regs)
        elif p == D.PILLAGING:
            g += state.nonempty_conquests[k]
        elif p == D.FORTIFIED:
            g += sum(state.fortress[r] for r in regs)
    return g


def tiebreak_tokens(state: SmallWorldState, seat: int) -> int:
    """SW-114: race tokens on the map (NEC-29: Ghosts on regions; Island per ED-43)."""
    if seat == state.necromancer:
        return on_map(state, GHOSTS) + (state.island if option(state, "necro_tiebreak_island") else 0)
    return sum(on_map(state, k) for k in kinds_of(state, seat))


def outcome_keys(state):
    return [(1 if (state.necromancer_won and s == state.necromancer) else 0, state.coins[s], tiebreak_tokens(state, s))
            for s in range(state.seats)]


def necro_complete(state: SmallWorldState) -> bool:
    """NEC-28: every Ghost on a region or on the Island."""
    return state.ghost_reserve == 0 and state.well_ghosts == 0 and state.hand[GHOSTS] == 0 and state.kept[GHOSTS] == 0


def win_check(state: SmallWorldState, events: list[Event], immediate_only: bool) -> None:
    if state.necromancer < 0 or state.over:
        return
    if immediate_only and option(state, "necro_win_check") != "immediate":
        return
    if necro_complete(state):
        state.necromancer_won = 1
        events.append(Event("necromancer_victory", {"seat": state.necromancer}))
        end_game(state, events)


def end_game(state, events):
    state.over = 1
    state.phase = "over"
    ranks, winners = rank_by(outcome_keys(state))
    events.append(Event("game_over", {"coins": list(state.coins), "ranks": list(ranks), "winners": list(winners),
                                  "necromancer_victory": bool(state.necromancer_won)}))
