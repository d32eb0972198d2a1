"""What each move does once its check passed: EFFECTS = {move kind: effect(state, seat, move, events)}."""
from __future__ import annotations

from typing import Any, Final

from engines.core import Event

from . import data as D
from .conquest import conquest_cost, needed
from .flow import (
    advance_redeploy,
    after_ghouls,
    begin_redeploy,
    end_purchases,
    ghouls_then,
    maybe_end_conquest,
    resume_defend,
    resume_eot,
    start_turn,
)
from .forces import option, price
from .legality import purchase_possible
from .moves import (
    Abandon,
    BerserkRoll,
    BuyGhost,
    BuyPower,
    ChoosePower,
    Conquer,
    Convert,
    Decline,
    Deploy,
    DragonAttack,
    EndConquest,
    EndPurchases,
    Expand,
    FinalAttempt,
    NameAlly,
    Pass,
    PickCombo,
    PlaceEncampment,
    PlaceFortress,
    PlaceHeroes,
    SetAside,
    Summon,
)
from .resolution import (
    abandon,
    activate_necro_power,
    conquer,
    convert,
    deploy,
    go_into_decline,
    leave_play,
    pick_combo,
    place_heroes,
    set_aside,
    summon,
)
from .scoring import win_check
from .state import REDEPLOY, START, STOUT, SmallWorldState

GHOSTS: Final = D.GHOSTS


def expand(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    """SW-50b: the active race readies its troops and conquers (after the in-decline Ghouls, SW-133)."""
    events.append(Event("expanded", {"seat": seat}))
    ghouls_then(state, "active", events)


def decline(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    """SW-100 at the start of a turn; SW-166 Stout after scoring; ED-15 no Ghoul conquests on a decline turn."""
    if state.phase == STOUT:
        go_into_decline(state, seat, events, stout=True)
        resume_eot(state, events)
        return
    state.decline_turn = 1
    if option(state, "decline_turn_blocks_ghouls"):
        after_ghouls(state, "decline", events)
    else:
        ghouls_then(state, "decline", events)


def pick(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    """SW-40 - SW-44; ED-25 alternative: a wiped-out race leaves play first."""
    at_start = state.phase == START
    if at_start:
        leave_play(state, state.active_race[seat], events)
    pick_combo(state, seat, move.position, events)
    if at_start or not option(state, "decline_ghouls_full_phase"):
        ghouls_then(state, "active", events)
    else:
        after_ghouls(state, "active", events)


def abandon_region(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    abandon(state, state.force, move.region, events)  # SW-93
    maybe_end_conquest(state, events)


def conquer_region(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    """SW-67; SW-151 with the pending Berserk roll."""
    k, roll = state.force, state.berserk_roll
    c = conquest_cost(state, k, move.region)
    n = needed(state, c)
    state.berserk_roll = -1
    conquer(state, k, move.region, n, events, "berserk" if roll >= 0 else "normal", c, roll)
    maybe_end_conquest(state, events)


def final_attempt(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    """SW-90: the reinforcement die for the shortfall; the conquest ends either way."""
    k = state.force
    c = conquest_cost(state, k, move.region)
    roll = state.rng.choice(D.DIE)
    ok = state.hand[k] + roll >= c
    events.append(Event("die_rolled", {"seat": seat, "race": D.kind_key(k), "roll": roll, "purpose": "final_attempt",
                                   "region": move.region, "success": ok}))
    if ok:
        conquer(state, k, move.region, state.hand[k], events, "final_attempt", c, roll)
    events.append(Event("conquest_ended", {"seat": seat, "race": D.kind_key(k), "reason": "final_attempt"}))
    begin_redeploy(state, events)


def berserk_roll(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    """SW-151: roll first, choose the target with the roll known."""
    state.berserk_roll = state.rng.choice(D.DIE)
    events.append(Event("die_rolled", {"seat": seat, "race": D.kind_key(state.force), "roll": state.berserk_roll,
                                       "purpose": "berserk",
                                   "region": -1, "success": True}))
    maybe_end_conquest(state, events)


def dragon_attack(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    conquer(state, state.force, move.region, 1, events, "dragon", 1)  # SW-155
    maybe_end_conquest(state, events)


def convert_region(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    convert(state, move.region, events)  # SW-140
    maybe_end_conquest(state, events)


def end_conquest(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    events.append(Event("conquest_ended", {"seat": seat, "race": D.kind_key(state.force), "reason": "stopped"}))
    begin_redeploy(state, events)


def deploy_tokens(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    """SW-95 from hand in redeployment; SW-82 a defender's kept tokens (NEC-15: onto the Island)."""
    if state.phase == REDEPLOY:
        deploy(state, state.force, move.region, move.count, events, seat)
        advance_redeploy(state, events)
        return
    k = state.occupant[move.region] if move.region >= 0 else GHOSTS
    deploy(state, k, move.region, move.count, events, seat, from_kept=True)
    if k == GHOSTS:
        win_check(state, events, immediate_only=True)
    resume_defend(state, events)


def place_encampment(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    """SW-152."""
    state.encampments[move.region] += 1
    state.encampments_in_hand[seat] -= 1
    events.append(Event("encampment_placed", {"seat": seat, "region": move.region, "count": 1}))
    if state.phase == REDEPLOY:
        advance_redeploy(state, events)
    else:
        resume_defend(state, events)


def place_fortress(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    """SW-158."""
    state.fortress[move.region] = 1
    state.fortress_done = 1
    events.append(Event("fortress_placed", {"seat": seat, "region": move.region}))
    advance_redeploy(state, events)


def set_aside_token(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    set_aside(state, move.region, events)  # SW-130
    advance_redeploy(state, events)


def place_hero_pair(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    place_heroes(state, move.regions, events)  # SW-159
    resume_eot(state, events)


def name_ally(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    """SW-154: the peace lasts until the Diplomat's next turn."""
    state.ally[seat] = move.seat
    events.append(Event("ally_named", {"seat": seat, "ally": move.seat}))
    resume_eot(state, events)


def skip(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    """Pass: no Fortress this turn (SW-158), or on past an optional end-of-turn step."""
    if state.phase == REDEPLOY:
        state.fortress_done = 1
        advance_redeploy(state, events)
    else:
        resume_eot(state, events)


def summon_souls(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    summon(state, events)  # NEC-27
    resume_eot(state, events)


def choose_power(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    """NEC-4: the first active power, free; then the first player's turn."""
    p = D.power_from_key(move.power)
    state.power_reserve.remove(p)
    activate_necro_power(state, p)
    events.append(Event("power_activated", {"seat": seat, "power": move.power, "price": 0}))
    state.turn_index = 0
    start_turn(state, events)


def buy_ghost(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    """NEC-19, NEC-20: a Ghost from the reserve onto the Island."""
    p = price(state)
    state.coins[seat] -= p
    state.ghost_reserve -= 1
    state.island += 1
    state.purchases += 1
    events.append(Event("ghost_bought", {"seat": seat, "price": p}))
    win_check(state, events, immediate_only=True)
    if not state.over and not purchase_possible(state):
        end_purchases(state, events)


def buy_power(state: SmallWorldState, seat: int, move: Any, events: list[Event]) -> None:
    """NEC-19, NEC-20: activate a power from the reserve."""
    p = price(state)
    q = D.power_from_key(move.power)
    state.coins[seat] -= p
    state.power_reserve.remove(q)
    activate_necro_power(state, q)
    state.purchases += 1
    events.append(Event("power_activated", {"seat": seat, "power": move.power, "price": p}))
    if not purchase_possible(state):
        end_purchases(state, events)


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
    EndPurchases: lambda state, seat, move, events: end_purchases(state, events),  # NEC-21
    Summon: summon_souls,
}
