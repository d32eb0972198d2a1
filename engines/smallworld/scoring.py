"""Scoring (SW-110 - SW-114, NEC-26, NEC-29), the Necromancer's instant win (NEC-28) and the end."""
from __future__ import annotations

from engines.core import Event, rank_by

from . import data as D
from .forces import kinds_of, on_map, opt, powers, regions_of

GHOSTS, LOST, NONE = D.GHOSTS, D.LOST_TRIBE, D.NO_RACE


def score_turn(st, seat, ev):
    """SW-110 / SW-111 (NEC-26 for the Necromancer)."""
    b = st.board
    gained = 0
    if seat == st.necro:
        regs = regions_of(st, GHOSTS)
        gained += len(regs)
        gained += power_bonus(st, GHOSTS, regs)
        if D.WEALTHY in powers(st, GHOSTS) and not st.necro_wealthy_paid:  # ED-45
            gained += 7
            st.necro_wealthy_paid = 1
    else:
        for k in kinds_of(st, seat):
            regs = regions_of(st, k)
            gained += len(regs)
            if k == D.DWARVES:  # SW-131, also in decline
                gained += sum(1 for r in regs if "mine" in b.symbols[r])
        a = st.active[seat]
        if a >= 0:
            regs = regions_of(st, a)
            if a == D.HUMANS:
                gained += sum(1 for r in regs if b.terrain[r] == "farmland")
            elif a == D.WIZARDS:
                gained += sum(1 for r in regs if "magic_source" in b.symbols[r])
            elif a == D.ORCS:
                gained += st.t_nonempty[a]
            gained += power_bonus(st, a, regs)
        if st.wealthy_due[seat]:  # SW-169
            gained += 7
            st.wealthy_due[seat] = 0
    st.coins[seat] += gained
    to = None if opt(st, "public_coins") else seat
    ev.append(Event("scored", {"seat": seat, "coins": gained, "total": st.coins[seat]}, to))


def power_bonus(st, k, regs):
    b = st.board
    g = 0
    for p in powers(st, k):
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
            g += st.t_nonempty[k]
        elif p == D.FORTIFIED:
            g += sum(st.fort[r] for r in regs)
    return g


def tiebreak_tokens(st, seat):
    """SW-114: race tokens on the map (NEC-29: Ghosts on regions; Island per ED-43)."""
    if seat == st.necro:
        return on_map(st, GHOSTS) + (st.island if opt(st, "necro_tiebreak_island") else 0)
    return sum(on_map(st, k) for k in kinds_of(st, seat))


def outcome_keys(st):
    return [(1 if (st.necro_won and s == st.necro) else 0, st.coins[s], tiebreak_tokens(st, s))
            for s in range(st.nseats)]


def necro_complete(st):
    """NEC-28: every Ghost on a region or on the Island."""
    return st.ghost_reserve == 0 and st.well_ghosts == 0 and st.hand[GHOSTS] == 0 and st.kept[GHOSTS] == 0


def win_check(st, ev, immediate_only):
    if st.necro < 0 or st.over:
        return
    if immediate_only and opt(st, "necro_win_check") != "immediate":
        return
    if necro_complete(st):
        st.necro_won = 1
        ev.append(Event("necromancer_victory", {"seat": st.necro}))
        end_game(st, ev)


def end_game(st, ev):
    st.over = 1
    st.phase = "over"
    ranks, winners = rank_by(outcome_keys(st))
    ev.append(Event("game_over", {"coins": list(st.coins), "ranks": list(ranks), "winners": list(winners),
                                  "necromancer_victory": bool(st.necro_won)}))
