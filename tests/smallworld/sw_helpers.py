"""Shared checks for the Small World tests: invariants and scripted states."""
from __future__ import annotations

import os
import random

from engines.smallworld import GAME, flow
from engines.smallworld import data as D
from engines.smallworld.forces import on_map

PROPERTY_GAMES = int(os.environ.get("GE_PROPERTY_GAMES", "0"))


def invariants(st):
    """Conservation laws and structural invariants; returns a list of broken ones."""
    bad = []
    b = st.board
    for k in range(D.N_RACES):
        total = st.supply[k] + on_map(st, k) + st.hand[k] + st.kept[k] + st.set_aside[k] + st.well_tokens.count(k)
        if total != D.BOX[k]:
            bad.append(f"race {D.kind_key(k)} tokens {total} != box {D.BOX[k]}")
        if min(st.supply[k], st.hand[k], st.kept[k], st.set_aside[k]) < 0:
            bad.append(f"negative count for {D.kind_key(k)}")
    lt = st.supply[D.LOST_TRIBE] + on_map(st, D.LOST_TRIBE) + st.well_tokens.count(D.LOST_TRIBE)
    if lt != D.BOX[D.LOST_TRIBE]:
        bad.append(f"lost tribes {lt}")
    if st.necromancer >= 0:
        g = (on_map(st, D.GHOSTS) + st.island + st.hand[D.GHOSTS] + st.kept[D.GHOSTS] + st.well_ghosts
             + st.ghost_reserve)
        if g != D.GHOST_TOTAL - st.options["necro_ghosts_removed"]:
            bad.append(f"ghosts {g}")
        if not st.over and st.well_ghosts + len(st.well_tokens) >= 4 and st.phase == "start":
            bad.append("well not converted at turn start")
    if any(c < 0 for c in st.coins):
        bad.append("negative coins")
    for r in range(b.n):
        if (st.occupant[r] == D.NO_RACE) != (st.tokens[r] == 0):
            bad.append(f"region {r} occ/cnt mismatch")
        if b.water[r] and st.occupant[r] != D.NO_RACE:
            k = st.occupant[r]
            ok = ((k == D.GHOSTS and D.SEAFARING in st.necromancer_powers)
                  or (0 <= k < D.N_RACES and st.power_of[k] == D.SEAFARING))
            if not ok:
                bad.append(f"non-Seafaring {D.kind_key(k)} on water {r}")
        pieces = (st.hero[r] or st.dragon[r] or st.hole[r] or st.encampments[r] or st.fortress[r]
                  or st.troll_lair[r])
        if pieces and st.occupant[r] == D.NO_RACE:
            bad.append(f"pieces on empty region {r}")
    m = D.MARKERS
    if sum(st.troll_lair) > m["troll_lair"] or sum(st.fortress) > m["fortress"] or sum(st.hero) > m["hero"] \
            or sum(st.dragon) > m["dragon"] or sum(st.hole) > m["hole_in_the_ground"] \
            or sum(st.encampments) + sum(st.encampments_in_hand) > m["encampment"]:
        bad.append("marker cap exceeded")
    owned = [k for k in range(D.N_RACES) if st.owner[k] >= 0]
    races = sorted(st.race_deck + [r for r, _, _ in st.combo_row] + owned)
    if races != list(range(D.N_RACES)):
        bad.append(f"race banners {races}")
    pw = sorted(st.power_deck + [p for _, p, _ in st.combo_row] + st.power_discard + st.necromancer_powers
                + st.power_reserve + st.rejected_powers + [st.power_of[k] for k in owned if st.power_of[k] >= 0])
    if pw != list(range(D.N_POWERS)):
        bad.append(f"power badges {pw}")
    for s in range(st.seats):
        if st.active_race[s] >= 0 and (st.owner[st.active_race[s]] != s or st.in_decline[st.active_race[s]]):
            bad.append("active race bookkeeping")
        for k in st.declines[s]:
            if st.owner[k] != s or not st.in_decline[k]:
                bad.append("decline bookkeeping")
        if sum(1 for k in st.declines[s] if st.power_of[k] != D.SPIRIT) > 1:
            bad.append("SW-104 decline limit")
    if not 1 <= st.round <= st.rounds:
        bad.append("round counter")
    return bad


def random_game(seats, options, seed, check=None, max_moves=5000):
    rng = random.Random(seed)
    st = GAME.new_state(seats, options, seed)
    log = []
    while not GAME.is_over(st):
        seat = rng.choice(GAME.seats_to_act(st))
        moves = GAME.legal_moves(st, seat)
        assert moves, (st.phase, seat)
        move = rng.choice(moves)
        events = GAME.apply(st, seat, move)
        log.append((seat, move))
        if check:
            check(st, seat, move, events)
        assert len(log) < max_moves
    return st, log


# ---------------------------------------------------------------- scripted positions

def fresh(seats=2, seed=1, **opts):
    """A new game with seat 0 first and an empty board (Lost Tribes back in their box)."""
    opts.setdefault("first_player", "0")
    st = GAME.new_state(seats, opts, seed)
    clear_board(st)
    return st


def clear_board(st):
    for r in range(st.board.n):
        if st.occupant[r] == D.LOST_TRIBE:
            st.supply[D.LOST_TRIBE] += st.tokens[r]
            st.occupant[r] = D.NO_RACE
            st.tokens[r] = 0


def _take_race(st, k):
    if k in st.race_deck:
        st.race_deck.remove(k)
        return
    for combo in st.combo_row:
        if combo[0] == k:
            combo[0] = st.race_deck.pop(0)
            return
    raise AssertionError(f"race {k} not available")


def _take_power(st, p):
    if p in st.power_deck:
        st.power_deck.remove(p)
        return
    for combo in st.combo_row:
        if combo[1] == p:
            combo[1] = st.power_deck.pop(0)
            return
    if p in st.power_discard:
        st.power_discard.remove(p)
        return
    if p in st.power_reserve:
        st.power_reserve.remove(p)
        st.power_reserve.append(st.power_deck.pop(0) if D.NECRO_DRAWABLE[st.power_deck[0]] else st.power_deck.pop(1))
        return
    raise AssertionError(f"power {p} not available")


def give(st, seat, race, power=None, hand=0, regions=None, decline=False):
    """Seat `seat` takes `race` (with `power`), `hand` tokens in hand and {region: tokens} on the map."""
    k = D.RACE[race] if isinstance(race, str) else race
    _take_race(st, k)
    st.owner[k] = seat
    if power is not None:
        p = D.POWER[power]
        _take_power(st, p)
        st.power_of[k] = p
    if decline:
        st.in_decline[k] = 1
        st.declines[seat].append(k)
    else:
        st.active_race[seat] = k
    place(st, k, regions or {})
    st.hand[k] += hand
    st.supply[k] -= hand
    return k


def place(st, k, regions):
    for r, n in regions.items():
        st.occupant[r] = k
        st.tokens[r] = n
        if k < D.N_RACES or k == D.LOST_TRIBE:
            st.supply[k] -= n


def lost_tribe(st, r):
    place(st, D.LOST_TRIBE, {r: 1})


def ghosts(st, regions, island=None, well=0):
    """Put Ghosts on regions (and the Island / the Well), taking them from the reserve."""
    place(st, D.GHOSTS, regions)
    n = sum(regions.values()) + well
    if island is not None:
        n += island - st.island
        st.island = island
    st.well_ghosts += well
    st.ghost_reserve -= n
    assert st.ghost_reserve >= 0


def well_tokens(st, race, n):
    """Put `n` tokens of `race` in the Soul Well, from the supply."""
    k = D.RACE[race]
    st.well_tokens.extend([k] * n)
    st.supply[k] -= n


def conquest_turn(st, seat, k):
    """Seat `seat` is in its conquest step with force k (hand already set)."""
    flow.reset_turn(st)
    st.current_seat = seat
    st.turn_index = st.turn_order.index(seat)
    st.phase = "conquest"
    st.force = k
    st.berserk_roll = -1


def start_turn(st, seat):
    """Start `seat`'s turn through the engine's own turn start."""
    st.turn_index = st.turn_order.index(seat)
    ev = []
    flow.start_turn(st, ev)
    return ev


def play(st, seat, *moves):
    ev = []
    for m in moves:
        ev += GAME.apply(st, seat, m)
    return ev


def kinds(events, kind):
    return [e for e in events if e.kind == kind]


def put_in_row(st, race, power, position=0):
    """Put the combo `race`+`power` at `position` of the row, swapping out what was there."""
    k, p = D.RACE[race], D.POWER[power]
    for combo in st.combo_row:  # free them where they are
        if combo[0] == k:
            combo[0] = st.combo_row[position][0]
        if combo[1] == p:
            combo[1] = st.combo_row[position][1]
    if k in st.race_deck:
        st.race_deck[st.race_deck.index(k)] = st.combo_row[position][0]
    if p in st.power_deck:
        st.power_deck[st.power_deck.index(p)] = st.combo_row[position][1]
    st.combo_row[position][0], st.combo_row[position][1] = k, p
