"""What each move does once its check passed: EFFECTS = {move kind: effect(state, seat, move, events)}."""
from __future__ import annotations

from engines.core import Event

from . import data as D
from .conquest import conquest_cost
from .flow import (advance_redeploy, after_ghouls, begin_redeploy, end_purchases, ghouls_then, maybe_end_conquest,
                   resume_defend, resume_eot, start_turn)
from .forces import opt, price
from .legality import needed, purchase_possible
from .moves import (Abandon, BerserkRoll, BuyGhost, BuyPower, ChoosePower, Conquer, Convert, Decline, Deploy,
                    DragonAttack, EndConquest, EndPurchases, Expand, FinalAttempt, NameAlly, Pass, PickCombo,
                    PlaceEncampment, PlaceFortress, PlaceHeroes, SetAside, Summon)
from .resolution import (abandon, activate_necro_power, conquer, convert, deploy, go_into_decline, leave_play,
                         pick_combo, place_heroes, set_aside, summon)
from .scoring import win_check
from .state import REDEPLOY, START, STOUT

GHOSTS = D.GHOSTS


def expand(st, seat, move, ev):
    """SW-50b: the active race readies its troops and conquers (after the in-decline Ghouls, SW-133)."""
    ev.append(Event("expanded", {"seat": seat}))
    ghouls_then(st, "active", ev)


def decline(st, seat, move, ev):
    """SW-100 at the start of a turn; SW-166 Stout after scoring; ED-15 no Ghoul conquests on a decline turn."""
    if st.phase == STOUT:
        go_into_decline(st, seat, ev, stout=True)
        resume_eot(st, ev)
        return
    st.decline_turn = 1
    if opt(st, "decline_turn_blocks_ghouls"):
        after_ghouls(st, "decline", ev)
    else:
        ghouls_then(st, "decline", ev)


def pick(st, seat, move, ev):
    """SW-40 - SW-44; ED-25 alternative: a wiped-out race leaves play first."""
    at_start = st.phase == START
    if at_start:
        leave_play(st, st.active[seat], ev)
    pick_combo(st, seat, move.position, ev)
    if at_start or not opt(st, "decline_ghouls_full_phase"):
        ghouls_then(st, "active", ev)
    else:
        after_ghouls(st, "active", ev)


def abandon_region(st, seat, move, ev):
    abandon(st, st.force, move.region, ev)  # SW-93
    maybe_end_conquest(st, ev)


def conquer_region(st, seat, move, ev):
    """SW-67; SW-151 with the pending Berserk roll."""
    k, roll = st.force, st.roll
    c = conquest_cost(st, k, move.region)
    n = needed(st, c)
    st.roll = -1
    conquer(st, k, move.region, n, ev, "berserk" if roll >= 0 else "normal", c, roll)
    maybe_end_conquest(st, ev)


def final_attempt(st, seat, move, ev):
    """SW-90: the reinforcement die for the shortfall; the conquest ends either way."""
    k = st.force
    c = conquest_cost(st, k, move.region)
    roll = st.rng.choice(D.DIE)
    ok = st.hand[k] + roll >= c
    ev.append(Event("die_rolled", {"seat": seat, "race": D.kind_key(k), "roll": roll, "purpose": "final_attempt",
                                   "region": move.region, "success": ok}))
    if ok:
        conquer(st, k, move.region, st.hand[k], ev, "final_attempt", c, roll)
    ev.append(Event("conquest_ended", {"seat": seat, "race": D.kind_key(k), "reason": "final_attempt"}))
    begin_redeploy(st, ev)


def berserk_roll(st, seat, move, ev):
    """SW-151: roll first, choose the target with the roll known."""
    st.roll = st.rng.choice(D.DIE)
    ev.append(Event("die_rolled", {"seat": seat, "race": D.kind_key(st.force), "roll": st.roll, "purpose": "berserk",
                                   "region": -1, "success": True}))
    maybe_end_conquest(st, ev)


def dragon_attack(st, seat, move, ev):
    conquer(st, st.force, move.region, 1, ev, "dragon", 1)  # SW-155
    maybe_end_conquest(st, ev)


def convert_region(st, seat, move, ev):
    convert(st, move.region, ev)  # SW-140
    maybe_end_conquest(st, ev)


def end_conquest(st, seat, move, ev):
    ev.append(Event("conquest_ended", {"seat": seat, "race": D.kind_key(st.force), "reason": "stopped"}))
    begin_redeploy(st, ev)


def deploy_tokens(st, seat, move, ev):
    """SW-95 from hand in redeployment; SW-82 a defender's kept tokens (NEC-15: onto the Island)."""
    if st.phase == REDEPLOY:
        deploy(st, st.force, move.region, move.count, ev, seat)
        advance_redeploy(st, ev)
        return
    k = st.occ[move.region] if move.region >= 0 else GHOSTS
    deploy(st, k, move.region, move.count, ev, seat, from_kept=True)
    if k == GHOSTS:
        win_check(st, ev, immediate_only=True)
    resume_defend(st, ev)


def place_encampment(st, seat, move, ev):
    """SW-152."""
    st.camps[move.region] += 1
    st.camp_hand[seat] -= 1
    ev.append(Event("encampment_placed", {"seat": seat, "region": move.region, "count": 1}))
    if st.phase == REDEPLOY:
        advance_redeploy(st, ev)
    else:
        resume_defend(st, ev)


def place_fortress(st, seat, move, ev):
    """SW-158."""
    st.fort[move.region] = 1
    st.fort_done = 1
    ev.append(Event("fortress_placed", {"seat": seat, "region": move.region}))
    advance_redeploy(st, ev)


def set_aside_token(st, seat, move, ev):
    set_aside(st, move.region, ev)  # SW-130
    advance_redeploy(st, ev)


def place_hero_pair(st, seat, move, ev):
    place_heroes(st, move.regions, ev)  # SW-159
    resume_eot(st, ev)


def name_ally(st, seat, move, ev):
    """SW-154: the peace lasts until the Diplomat's next turn."""
    st.peace[seat] = move.seat
    ev.append(Event("ally_named", {"seat": seat, "ally": move.seat}))
    resume_eot(st, ev)


def skip(st, seat, move, ev):
    """Pass: no Fortress this turn (SW-158), or on past an optional end-of-turn step."""
    if st.phase == REDEPLOY:
        st.fort_done = 1
        advance_redeploy(st, ev)
    else:
        resume_eot(st, ev)


def summon_souls(st, seat, move, ev):
    summon(st, ev)  # NEC-27
    resume_eot(st, ev)


def choose_power(st, seat, move, ev):
    """NEC-4: the first active power, free; then the first player's turn."""
    p = D.power_from_key(move.power)
    st.necro_reserve.remove(p)
    activate_necro_power(st, p)
    ev.append(Event("power_activated", {"seat": seat, "power": move.power, "price": 0}))
    st.turn_idx = 0
    start_turn(st, ev)


def buy_ghost(st, seat, move, ev):
    """NEC-19, NEC-20: a Ghost from the reserve onto the Island."""
    p = price(st)
    st.coins[seat] -= p
    st.ghost_reserve -= 1
    st.island += 1
    st.necro_bought += 1
    ev.append(Event("ghost_bought", {"seat": seat, "price": p}))
    win_check(st, ev, immediate_only=True)
    if not st.over and not purchase_possible(st):
        end_purchases(st, ev)


def buy_power(st, seat, move, ev):
    """NEC-19, NEC-20: activate a power from the reserve."""
    p = price(st)
    q = D.power_from_key(move.power)
    st.coins[seat] -= p
    st.necro_reserve.remove(q)
    activate_necro_power(st, q)
    st.necro_bought += 1
    ev.append(Event("power_activated", {"seat": seat, "power": move.power, "price": p}))
    if not purchase_possible(st):
        end_purchases(st, ev)


EFFECTS = {
    PickCombo: pick,
    Expand: expand,
    Decline: decline,
    Abandon: abandon_region,
    Conquer: conquer_region,
    FinalAttempt: final_attempt,
    BerserkRoll: berserk_roll,
    DragonAttack: dragon_attack,
    Convert: convert_region,
    EndConquest: end_conquest,
    Deploy: deploy_tokens,
    PlaceEncampment: place_encampment,
    PlaceFortress: place_fortress,
    SetAside: set_aside_token,
    PlaceHeroes: place_hero_pair,
    NameAlly: name_ally,
    Pass: skip,
    ChoosePower: choose_power,
    BuyGhost: buy_ghost,
    BuyPower: buy_power,
    EndPurchases: lambda st, seat, move, ev: end_purchases(st, ev),  # NEC-21
    Summon: summon_souls,
}
