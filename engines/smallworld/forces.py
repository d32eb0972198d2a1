"""Small queries about who holds what: a *force* is the token kind that conquers now (the current
player's active race, his in-decline Ghouls during their phase, SW-133, or the Necromancer's Ghosts, NEC-9)."""
from __future__ import annotations

from . import data as D

GHOSTS, LOST, NONE = D.GHOSTS, D.LOST_TRIBE, D.NO_RACE


def opt(st, k):
    return st.options[k]


def regions_of(st, k):
    occ = st.occ
    return [r for r in range(len(occ)) if occ[r] == k]


def on_map(st, k):
    occ, cnt = st.occ, st.cnt
    return sum(cnt[r] for r in range(len(occ)) if occ[r] == k)


def seat_of(st, k):
    if k == GHOSTS:
        return st.necro
    if 0 <= k < D.N_RACES:
        return st.owner[k]
    return -1


def active_force(st, seat):
    if seat < 0:
        return NONE
    return GHOSTS if seat == st.necro else st.active[seat]


def is_active_race(st, k):
    return 0 <= k < D.N_RACES and st.owner[k] >= 0 and not st.in_decline[k]


def powers(st, k):
    """Powers that act for force k: an active race's badge, or the Necromancer's active powers (NEC-25)."""
    if k == GHOSTS:
        return st.necro_active if opt(st, "necro_powers_active") else ()
    if is_active_race(st, k) and st.power_of[k] >= 0:
        return (st.power_of[k],)
    return ()


def race_ability(st, k, race):
    return k == race and not st.in_decline[k] and st.owner[k] >= 0


def tokens_of(st, k):
    return on_map(st, k) + st.hand[k] + st.kept[k] + st.aside[k]


def kinds_of(st, seat):
    ks = []
    if seat == st.necro:
        ks.append(GHOSTS)
    elif st.active[seat] >= 0:
        ks.append(st.active[seat])
    ks.extend(st.declines[seat])
    return ks


def price(st):
    """NEC-19: active powers + Ghosts on regions + Ghosts on the Island (+1 with necro_price_plus_one)."""
    return (len(st.necro_active) + on_map(st, GHOSTS) + st.island + (1 if opt(st, "necro_price_plus_one") else 0))


def is_wiped(st, seat):
    a = st.active[seat]
    return a >= 0 and tokens_of(st, a) == 0


def bivouac_force(st, s):
    f = active_force(st, s)
    return f if f >= 0 and D.BIVOUACKING in powers(st, f) else NONE
