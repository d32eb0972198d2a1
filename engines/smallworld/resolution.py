"""What moves pieces: conquest and its losses, abandonment, the combo row, decline, the Soul Well."""
from __future__ import annotations

from engines.core import Event

from . import data as D
from .forces import active_force, on_map, opt, race_ability, regions_of, seat_of, tokens_of
from .scoring import win_check

GHOSTS, LOST, NONE = D.GHOSTS, D.LOST_TRIBE, D.NO_RACE


def well_push(st, k):
    if k == GHOSTS:
        st.well_ghosts += 1
    else:
        st.well.append(k)


def discard_token(st, k, to_well):
    """One token lost to conquest: the Soul Well in Necromancer Island (NEC-10), else the supply."""
    if st.necro >= 0 and to_well:
        well_push(st, k)
    else:
        st.supply[k] += 1


def clear_region(st, r, owner_seat):
    """Pieces leaving a region whose tokens left it (SW-69, SW-93)."""
    st.lair[r] = 0
    st.fort[r] = 0
    if st.camps[r]:
        if owner_seat >= 0:
            st.camp_hand[owner_seat] += st.camps[r]
        st.camps[r] = 0
    st.hero[r] = 0
    st.dragon[r] = 0
    st.hole[r] = 0


def take_defenders(st, t, ev):
    """SW-80 losses of the region being conquered; returns (kind, seat) of the defender."""
    d = st.occ[t]
    n = st.cnt[t]
    if d == NONE:
        clear_region(st, t, -1)
        return NONE, -1
    dseat = seat_of(st, d)
    if d == LOST:
        discard_token(st, LOST, True)  # SW-80(a), NEC-10
    elif d == GHOSTS:  # NEC-14
        st.well_ghosts += 1
        st.kept[GHOSTS] += n - 1
    elif race_ability(st, d, D.ELVES):  # SW-132
        st.kept[d] += n
    else:
        st.kept[d] += n - 1
        discard_token(st, d, True)
    st.occ[t] = NONE
    st.cnt[t] = 0
    clear_region(st, t, dseat)
    if 0 <= d < D.N_RACES and st.in_decline[d] and tokens_of(st, d) == 0:
        leave_play(st, d, ev)  # SW-103
    return d, dseat


def record_conquest(st, k, d, dseat, nonempty):
    st.t_conquests[k] += 1
    st.t_nonempty[k] += 1 if nonempty else 0
    if dseat >= 0 and dseat != st.cur and d == active_force(st, dseat) and dseat not in st.attacked:
        st.attacked.append(dseat)


def conquer(st, k, t, tokens, ev, how, cost, roll=-1):
    """SW-67: defenders leave, markers are handled, the attacker's tokens are placed."""
    nonempty = st.occ[t] != NONE  # SW-6
    d, dseat = take_defenders(st, t, ev)
    st.occ[t] = k
    st.cnt[t] = tokens
    st.hand[k] -= tokens
    if race_ability(st, k, D.TROLLS) and opt(st, "lair_on_conquest") and sum(st.lair) < D.MARKERS["troll_lair"]:
        st.lair[t] = 1  # SW-142
    if race_ability(st, k, D.HALFLINGS):  # SW-135
        if opt(st, "halfling_holes_reusable"):
            if sum(st.hole) < D.MARKERS["hole_in_the_ground"]:
                st.hole[t] = 1
        elif st.holes_placed < D.MARKERS["hole_in_the_ground"]:
            st.hole[t] = 1
            st.holes_placed += 1
    if how == "dragon":  # SW-155
        for r in range(len(st.dragon)):
            st.dragon[r] = 0
        st.dragon[t] = 1
        st.dragon_used = 1
    record_conquest(st, k, d, dseat, nonempty)
    ev.append(Event("conquered", {
        "seat": st.cur, "race": D.kind_key(k), "region": t, "cost": cost, "tokens": tokens,
        "defender_race": D.kind_key(d), "defender_seat": dseat, "nonempty": nonempty, "how": how, "roll": roll}))


def convert(st, t, ev):
    """SW-140 conversion by the active Sorcerers."""
    S = D.SORCERERS
    d = st.occ[t]
    dseat = st.owner[d]
    discard_token(st, d, opt(st, "sorcerer_victim_to_well"))  # ED-39
    st.occ[t] = S
    st.cnt[t] = 1
    clear_region(st, t, dseat)
    st.supply[S] -= 1
    st.converted.append(dseat)
    st.t_conquests[S] += 1
    if opt(st, "conversion_counts_as_conquest"):  # ED-21
        st.t_nonempty[S] += 1
        if dseat not in st.attacked:
            st.attacked.append(dseat)
    ev.append(Event("converted", {"seat": st.cur, "region": t, "victim_race": D.kind_key(d), "victim_seat": dseat}))


def abandon(st, k, r, ev, to_aside=False):
    """SW-93: the last token goes to hand; Holes, Lairs and Fortresses go; other pieces return."""
    n = st.cnt[r]
    st.occ[r] = NONE
    st.cnt[r] = 0
    if to_aside:
        st.aside[k] += n
    else:
        st.hand[k] += n
    clear_region(st, r, seat_of(st, k))
    ev.append(Event("abandoned", {"seat": seat_of(st, k), "race": D.kind_key(k), "region": r}))


def ready_troops(st, k, ev):
    """SW-92 (and NEC-21 for Ghosts): one token stays per region, the rest comes to hand."""
    occ, cnt = st.occ, st.cnt
    for r in range(len(occ)):
        if occ[r] == k and cnt[r] > 1:
            st.hand[k] += cnt[r] - 1
            cnt[r] = 1
    st.hand[k] += st.kept[k] + st.aside[k]
    st.kept[k] = 0
    st.aside[k] = 0
    if k == GHOSTS:
        st.hand[k] += st.island
        st.island = 0
    ev.append(Event("troops_readied", {"seat": seat_of(st, k), "race": D.kind_key(k), "hand": st.hand[k]}))


def refill_row(st, ev):
    """SW-44 / SW-46: fill the combo row from the decks; rebuild the power deck from the discards."""
    size = opt(st, "combo_row_size")
    while len(st.row) < size and st.race_deck:
        if not st.power_deck:
            if not st.discard:
                break
            st.power_deck = st.discard[:]
            st.rng.shuffle(st.power_deck)
            st.discard = []
            ev.append(Event("power_deck_rebuilt", {"size": len(st.power_deck)}))
        st.row.append([st.race_deck.pop(0), st.power_deck.pop(0), 0])
        ev.append(Event("combo_revealed", {"position": len(st.row) - 1, "race": D.kind_key(st.row[-1][0]),
                                           "power": D.power_key(st.row[-1][1])}))


def leave_play(st, k, ev):
    """SW-45: the banner goes under the race deck; a kept badge is discarded."""
    seat = st.owner[k]
    for r in regions_of(st, k):
        st.supply[k] += st.cnt[r]
        st.occ[r] = NONE
        st.cnt[r] = 0
        clear_region(st, r, -1)
    st.supply[k] += st.hand[k] + st.kept[k] + st.aside[k]
    st.hand[k] = st.kept[k] = st.aside[k] = 0
    if seat >= 0:
        if k in st.declines[seat]:
            st.declines[seat].remove(k)
        if st.active[seat] == k:
            st.active[seat] = NONE
    if st.power_of[k] >= 0:
        st.discard.append(st.power_of[k])
        st.power_of[k] = -1
    st.owner[k] = -1
    st.in_decline[k] = 0
    st.race_deck.append(k)
    ev.append(Event("race_left_play", {"race": D.kind_key(k), "seat": seat}))
    refill_row(st, ev)


def go_into_decline(st, seat, ev, stout=False):
    """SW-100 (a)-(e)."""
    x = st.active[seat]
    px = st.power_of[x]
    if px != D.SPIRIT:  # SW-104, SW-165
        for y in list(st.declines[seat]):
            if st.power_of[y] != D.SPIRIT:
                leave_play(st, y, ev)  # (a) tokens, Lairs and Fortresses to the supply
    out = 0
    for r in regions_of(st, x):  # (b), (c)
        if x != D.GHOULS and st.cnt[r] > 1:
            out += st.cnt[r] - 1
            st.cnt[r] = 1
        st.camps[r] = 0  # (e)
        st.hero[r] = 0
        st.dragon[r] = 0
        st.hole[r] = 0
    out += st.hand[x] + st.kept[x]
    st.hand[x] = st.kept[x] = 0
    st.supply[x] += st.aside[x]  # NEC-11: Amazon set-aside tokens to the supply
    st.aside[x] = 0
    if x == D.ELVES and st.necro >= 0 and opt(st, "elves_decline_to_well"):  # NEC-12
        if opt(st, "elves_decline_all_to_well"):  # ED-46: none stays on the map
            for r in regions_of(st, x):
                out += st.cnt[r]
                st.occ[r] = NONE
                st.cnt[r] = 0
                clear_region(st, r, -1)
        st.well.extend([x] * out)
    else:
        st.supply[x] += out
    if D.BIVOUACKING == px:
        st.camp_hand[seat] = 0
    if px >= 0 and px not in (D.SPIRIT, D.SEAFARING):  # (d), SW-46
        st.discard.append(px)
        st.power_of[x] = -1
    st.in_decline[x] = 1
    st.active[seat] = NONE
    st.declines[seat].append(x)
    ev.append(Event("declined", {"seat": seat, "race": D.kind_key(x), "stout": stout}))
    if on_map(st, x) == 0:
        leave_play(st, x, ev)  # SW-54


def pick_combo(st, seat, k, ev):
    """SW-40 - SW-44."""
    race, power, coins_on = st.row[k]
    st.coins[seat] -= k
    for i in range(k):
        st.row[i][2] += 1
    st.coins[seat] += coins_on
    del st.row[k]
    refill_row(st, ev)
    want = D.BANNER[race] + D.EXTRA[race] + D.BADGE[power]
    take = min(want, st.supply[race])  # SW-43
    st.supply[race] -= take
    st.hand[race] += take
    st.owner[race] = seat
    st.active[seat] = race
    st.in_decline[race] = 0
    st.power_of[race] = power
    if power == D.WEALTHY:
        st.wealthy_due[seat] = 1
    if power == D.BIVOUACKING:  # SW-152: the 5 Encampments come with the badge
        st.camp_hand[seat] = D.MARKERS["encampment"]
    if race == D.HALFLINGS:
        st.holes_placed = 0
    ev.append(Event("combo_picked", {"seat": seat, "position": k, "race": D.kind_key(race),
                                     "power": D.power_key(power), "paid": k, "collected": coins_on,
                                     "tokens": take}))


def well_conversion(st, ev):
    """NEC-16: while 4+ tokens, remove 4 (Ghosts first), then one Ghost from the reserve to the Island."""
    lifo = opt(st, "well_removal_order") == "lifo"
    while st.well_ghosts + len(st.well) >= 4:
        g = min(4, st.well_ghosts)
        st.well_ghosts -= g
        st.ghost_reserve += g
        out = []
        for _ in range(4 - g):
            k = st.well.pop() if lifo else st.well.pop(0)
            out.append(D.kind_key(k))
            if k >= 0:
                st.supply[k] += 1
        moved = 0
        if st.ghost_reserve > 0:
            st.ghost_reserve -= 1
            st.island += 1
            moved = 1
        ev.append(Event("well_converted", {"ghosts": g, "tokens": out, "island": moved}))
    win_check(st, ev, immediate_only=True)


def deploy(st, k, r, n, ev, seat, from_kept=False):
    if from_kept:
        st.kept[k] -= n
    else:
        st.hand[k] -= n
    if r < 0:
        st.island += n
    else:
        st.cnt[r] += n
    ev.append(Event("deployed", {"seat": seat, "race": D.kind_key(k), "region": r, "count": n}))


def set_aside(st, r, ev):
    k = st.force
    if st.cnt[r] == 1:
        abandon(st, k, r, ev, to_aside=True)  # ED-19
    else:
        st.cnt[r] -= 1
        st.aside[k] += 1
    st.aside_due -= 1
    ev.append(Event("set_aside", {"seat": st.cur, "region": r}))


def place_heroes(st, regs, ev):
    for r in regs:
        st.hero[r] = 1
    st.heroes_placed_turn = 1
    ev.append(Event("heroes_placed", {"seat": st.cur, "regions": list(regs)}))


def summon(st, ev):
    n = len(regions_of(st, GHOSTS))  # NEC-27: one soul per Ghost region, not the Island
    if n:
        st.well.extend([D.SOUL] * n)
        ev.append(Event("souls_summoned", {"seat": st.necro, "count": n}))


def activate_necro_power(st, p):
    st.necro_active.append(p)
    if p == D.BIVOUACKING:  # SW-152 via NEC-25
        st.camp_hand[st.necro] = D.MARKERS["encampment"]
