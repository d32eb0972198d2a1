"""What each move does once it is legal."""
from __future__ import annotations

from engines.core import Event

from . import data as D
from .conquest import conquest_cost
from .flow import advance_redeploy, after_ghouls, begin_redeploy, continue_eot, end_purchases, ghouls_then, maybe_end_conquest, resume_defend, start_turn
from .forces import opt, price
from .legality import purchase_moves
from .resolution import abandon, activate_necro_power, conquer, convert, deploy, go_into_decline, leave_play, pick_combo, place_heroes, set_aside, summon
from .scoring import win_check
from .moves import MOVES, Abandon, BerserkRoll, BuyGhost, BuyPower, ChoosePower, Conquer, Convert, Decline, Deploy, DragonAttack, EndConquest, EndPurchases, Expand, FinalAttempt, NameAlly, Pass, PickCombo, PlaceEncampment, PlaceFortress, PlaceHeroes, SetAside, Summon

GHOSTS, LOST, NONE = D.GHOSTS, D.LOST_TRIBE, D.NO_RACE


def effect(st, seat, move, ev):
    t = type(move)
    ph = st.phase
    if t is Expand:
        ev.append(Event("expanded", {"seat": seat}))
        ghouls_then(st, "active", ev)
    elif t is Decline:
        if ph == "stout":  # SW-166
            go_into_decline(st, seat, ev, stout=True)
            st.eot += 1
            continue_eot(st, ev)
        else:
            st.decline_turn = 1
            if opt(st, "decline_turn_blocks_ghouls"):
                after_ghouls(st, "decline", ev)
            else:
                ghouls_then(st, "decline", ev)
    elif t is PickCombo:
        if ph == "start":  # ED-25 alternative: the wiped race leaves play first
            leave_play(st, st.active[seat], ev)
        pick_combo(st, seat, move.position, ev)
        if ph == "start" or not opt(st, "decline_ghouls_full_phase"):
            ghouls_then(st, "active", ev)
        else:
            after_ghouls(st, "active", ev)
    elif t is Abandon:
        abandon(st, st.force, move.region, ev)
        maybe_end_conquest(st, ev)
    elif t is Conquer:
        k = st.force
        c = conquest_cost(st, k, move.region)
        roll = st.roll
        n = max(1, c - roll) if roll >= 0 else c
        st.roll = -1
        conquer(st, k, move.region, n, ev, "berserk" if roll >= 0 else "normal", c, roll)
        maybe_end_conquest(st, ev)
    elif t is FinalAttempt:  # SW-90
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
    elif t is BerserkRoll:  # SW-151
        k = st.force
        st.roll = st.rng.choice(D.DIE)
        ev.append(Event("die_rolled", {"seat": seat, "race": D.kind_key(k), "roll": st.roll, "purpose": "berserk",
                                       "region": -1, "success": True}))
        maybe_end_conquest(st, ev)
    elif t is DragonAttack:
        k = st.force
        conquer(st, k, move.region, 1, ev, "dragon", 1)
        maybe_end_conquest(st, ev)
    elif t is Convert:
        convert(st, move.region, ev)
        maybe_end_conquest(st, ev)
    elif t is EndConquest:
        ev.append(Event("conquest_ended", {"seat": seat, "race": D.kind_key(st.force), "reason": "stopped"}))
        begin_redeploy(st, ev)
    elif t is Deploy:
        if ph == "redeploy":
            deploy(st, st.force, move.region, move.count, ev, seat)
            advance_redeploy(st, ev)
        else:
            k = st.occ[move.region] if move.region >= 0 else GHOSTS
            deploy(st, k, move.region, move.count, ev, seat, from_kept=True)
            if k == GHOSTS:
                win_check(st, ev, immediate_only=True)
            resume_defend(st, ev)
    elif t is PlaceEncampment:
        st.camps[move.region] += 1
        st.camp_hand[seat] -= 1
        ev.append(Event("encampment_placed", {"seat": seat, "region": move.region, "count": 1}))
        if ph == "redeploy":
            advance_redeploy(st, ev)
        else:
            resume_defend(st, ev)
    elif t is PlaceFortress:
        st.fort[move.region] = 1
        st.fort_done = 1
        ev.append(Event("fortress_placed", {"seat": seat, "region": move.region}))
        advance_redeploy(st, ev)
    elif t is SetAside:
        set_aside(st, move.region, ev)
        advance_redeploy(st, ev)
    elif t is PlaceHeroes:
        place_heroes(st, move.regions, ev)
        st.eot += 1
        continue_eot(st, ev)
    elif t is NameAlly:
        st.peace[seat] = move.seat
        ev.append(Event("ally_named", {"seat": seat, "ally": move.seat}))
        st.eot += 1
        continue_eot(st, ev)
    elif t is Pass:
        if ph == "redeploy":
            st.fort_done = 1
            advance_redeploy(st, ev)
        else:
            st.eot += 1
            continue_eot(st, ev)
    elif t is Summon:
        summon(st, ev)
        st.eot += 1
        continue_eot(st, ev)
    elif t is ChoosePower:
        p = D.power_from_key(move.power)
        st.necro_reserve.remove(p)
        activate_necro_power(st, p)
        ev.append(Event("power_activated", {"seat": seat, "power": move.power, "price": 0}))
        st.turn_idx = 0
        start_turn(st, ev)
    elif t is BuyGhost:  # NEC-20
        p = price(st)
        st.coins[seat] -= p
        st.ghost_reserve -= 1
        st.island += 1
        st.necro_bought += 1
        ev.append(Event("ghost_bought", {"seat": seat, "price": p}))
        win_check(st, ev, immediate_only=True)
        if not st.over and not purchase_moves(st):
            end_purchases(st, ev)
    elif t is BuyPower:
        p = price(st)
        q = D.power_from_key(move.power)
        st.coins[seat] -= p
        st.necro_reserve.remove(q)
        activate_necro_power(st, q)
        st.necro_bought += 1
        ev.append(Event("power_activated", {"seat": seat, "power": move.power, "price": p}))
        if not purchase_moves(st):
            end_purchases(st, ev)
    elif t is EndPurchases:
        end_purchases(st, ev)


EFFECTS = {kind: effect for kind in MOVES}
