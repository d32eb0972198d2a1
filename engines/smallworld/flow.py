"""Turn flow (SW-30 - SW-32, SW-50 - SW-52, SW-82, SW-95, NEC-9 - NEC-30)."""
from __future__ import annotations

from typing import Final

from engines.core import Event, advance

from . import data as D
from .forces import active_force, bivouac_force, kinds_of, option, powers, race_ability, regions_of, tokens_of
from .legality import (
    ally_choice,
    aside_regions,
    fortress_regions,
    has_conquest_choice,
    purchase_possible,
    redeploy_step,
)
from .resolution import deploy, go_into_decline, place_heroes, ready_troops, set_aside, summon, well_conversion
from .scoring import end_game, score_turn, win_check
from .state import (
    ALLY,
    CONQUEST,
    DEFEND,
    END_TURN,
    HEROES,
    PICK,
    PURCHASE,
    REDEPLOY,
    START,
    STOUT,
    SUMMON,
    SmallWorldState,
)

GHOSTS: Final = D.GHOSTS
NONE: Final = D.NO_RACE
NO_CONQUESTS: Final = (0,) * D.N_KINDS
Events = list[Event]

# SW-52 / NEC-26 - NEC-30: the end-of-turn steps (names of FLOW steps); the view's end_step indexes them
NORMAL_EOT: Final = ("heroes", "ally", "score", "stout", "defend", "convert", "next")
NECRO_EOT: Final = ("heroes", "ally", "score", "summon", "convert", "defend", "check", "next")


def reset_turn(state: SmallWorldState) -> None:
    state.conquests[:] = NO_CONQUESTS
    state.nonempty_conquests[:] = NO_CONQUESTS
    state.attacked_seats = []
    state.converted_seats = []
    state.defender_queue = []
    state.dragon_used = 0
    state.fortress_done = 0
    state.set_aside_due = -1
    state.berserk_roll = -1
    state.decline_turn = 0
    state.after_ghouls = ""
    state.end_step = 0
    state.purchases = 0
    state.force = NONE
    state.heroes_placed = 0


def start_turn(state: SmallWorldState, events: Events) -> None:
    seat = state.turn_order[state.turn_index]
    state.current_seat = seat
    reset_turn(state)
    state.ally[seat] = -1  # SW-154: the peace lasts until the Diplomat's next turn
    events.append(Event("turn_started", {"seat": seat, "round": state.round}))
    if seat == state.necromancer:
        state.phase = PURCHASE
        if not purchase_possible(state):
            end_purchases(state, events)
    elif state.active_race[seat] >= 0:
        state.phase = START
    else:
        if option(state, "decline_ghouls_full_phase"):
            ghouls_then(state, "pick", events)  # SW-133 / ED-14
        else:
            state.phase = PICK


def ghoul_phase_due(state: SmallWorldState, seat: int) -> bool:
    g = D.GHOULS
    return state.owner[g] == seat and state.in_decline[g] != 0 and tokens_of(state, g) > 0


def ghouls_then(state: SmallWorldState, then: str, events: Events) -> None:
    if ghoul_phase_due(state, state.current_seat):
        state.after_ghouls = then
        ready_troops(state, D.GHOULS, events)
        enter_conquest(state, D.GHOULS, events)
    else:
        after_ghouls(state, then, events)


def after_ghouls(state: SmallWorldState, then: str, events: Events) -> None:
    """SW-133 / ED-14: what the turn does once the in-decline Ghouls are done."""
    state.after_ghouls = ""
    AFTER_GHOULS[then](state, events)


def pick_next(state: SmallWorldState, events: Events) -> None:
    state.phase = PICK


def active_race_next(state: SmallWorldState, events: Events) -> None:
    a = state.active_race[state.current_seat]
    ready_troops(state, a, events)
    enter_conquest(state, a, events)


def decline_next(state: SmallWorldState, events: Events) -> None:
    go_into_decline(state, state.current_seat, events)
    end_of_turn_from(state, "score")
    continue_eot(state, events)


AFTER_GHOULS = {"pick": pick_next, "active": active_race_next, "decline": decline_next}


def enter_conquest(state: SmallWorldState, k: int, events: Events) -> None:
    state.phase = CONQUEST
    state.force = k
    state.berserk_roll = -1
    maybe_end_conquest(state, events)


def maybe_end_conquest(state: SmallWorldState, events: Events) -> None:
    """Skip a decision that has only one answer: no token in hand, nothing to abandon or convert."""
    k = state.force
    if state.hand[k] > 0 and state.berserk_roll < 0:
        return
    if has_conquest_choice(state):
        return
    if state.berserk_roll >= 0:
        events.append(Event("conquest_ended", {"seat": state.current_seat, "race": D.kind_key(k),
                                               "reason": "no_affordable_target"}))
    begin_redeploy(state, events)


def begin_redeploy(state: SmallWorldState, events: Events) -> None:
    """SW-95: Skeletons first, then free redistribution, pieces, Amazons."""
    force = state.force
    state.phase = REDEPLOY
    state.berserk_roll = -1
    if force == D.SKELETONS and race_ability(state, force, D.SKELETONS):  # SW-139
        n = min(state.nonempty_conquests[force] // 2, state.supply[force])
        if n:
            state.supply[force] -= n
            state.hand[force] += n
            events.append(Event("skeletons_raised", {"seat": state.current_seat, "tokens": n}))
    held = regions_of(state, force)
    tokens = state.tokens
    for r in held:
        if tokens[r] > 1:
            state.hand[force] += tokens[r] - 1
            tokens[r] = 1
    ps = powers(state, force)
    if D.BIVOUACKING in ps:  # SW-152: place or move the Encampments
        for r in held:
            if state.encampments[r]:
                state.encampments_in_hand[state.current_seat] += state.encampments[r]
                state.encampments[r] = 0
    state.fortress_done = 0 if D.FORTIFIED in ps else 1
    state.set_aside_due = -1
    advance_redeploy(state, events)


def advance_redeploy(state: SmallWorldState, events: Events) -> None:
    advance(FLOW, state, events, "redeploy")


def redeploy(state: SmallWorldState, events: Events) -> str | None:
    """SW-95: run the redeployment step that is due on the force's regions; "redeploy" again after
    a step that decided alone, None while a seat decides."""
    step, held = redeploy_step(state)
    return REDEPLOY_STEPS[step](state, events, held)


def deploy_tokens(state: SmallWorldState, events: Events, held: list[int]) -> str | None:
    """Tokens in hand go on the force's regions; with one region there is nothing to choose."""
    force = state.force
    if len(held) == 1:  # the Island is no target on his own turn (NEC-23)
        deploy(state, force, held[0], state.hand[force], events, state.current_seat)
        return "redeploy"
    return None


def place_encampments(state: SmallWorldState, events: Events, held: list[int]) -> str | None:
    """SW-152: with one region every Encampment goes there."""
    if len(held) == 1:
        n = state.encampments_in_hand[state.current_seat]
        state.encampments[held[0]] += n
        state.encampments_in_hand[state.current_seat] = 0
        events.append(Event("encampment_placed", {"seat": state.current_seat, "region": held[0], "count": n}))
        return "redeploy"
    return None


def place_fortress(state: SmallWorldState, events: Events, held: list[int]) -> str | None:
    """SW-158: the Fortress step is skipped when no region can take one."""
    if not fortress_regions(state, held):
        state.fortress_done = 1
        return "redeploy"
    return None


def set_aside_amazons(state: SmallWorldState, events: Events, held: list[int]) -> str | None:
    """SW-130: the Amazons set aside up to 4 tokens (ED-19: a lone token too when unavoidable)."""
    if state.set_aside_due < 0:
        total = sum(state.tokens[r] for r in held)
        if not option(state, "amazons_removal_may_abandon"):
            total -= len(held)
        state.set_aside_due = min(4, total)
        return "redeploy"
    cands = aside_regions(state, held)
    if not cands:
        state.set_aside_due = 0
        return "redeploy"
    if len(cands) == 1:
        set_aside(state, cands[0], events)
        return "redeploy"
    return None


def redeployed(state: SmallWorldState, events: Events, held: list[int]) -> str | None:
    force = state.force
    if force == D.TROLLS and race_ability(state, force, D.TROLLS) and not option(state, "lair_on_conquest"):  # ED-26
        for r in held:
            if not state.troll_lair[r] and sum(state.troll_lair) < D.MARKERS["troll_lair"]:
                state.troll_lair[r] = 1
    if force == GHOSTS and state.hand[force] > 0:  # NEC-23: no region, back to the Island
        deploy(state, force, -1, state.hand[force], events, state.current_seat)
    events.append(Event("redeployed", {"seat": state.current_seat, "race": D.kind_key(force)}))
    if force == GHOSTS:
        win_check(state, events, immediate_only=True)
        if state.over:
            return None
    state.force = NONE
    if state.after_ghouls:
        after_ghouls(state, state.after_ghouls, events)
        return None
    return end_of_turn_from(state, "heroes")


# ---------------------------------------------------------------- SW-52 end of turn, step by step

def end_steps(state: SmallWorldState) -> tuple[str, ...]:
    return NECRO_EOT if state.current_seat == state.necromancer else NORMAL_EOT


def end_of_turn_from(state: SmallWorldState, step: str) -> str:
    state.end_step = end_steps(state).index(step)
    state.phase = END_TURN
    return step


def continue_eot(state: SmallWorldState, events: Events) -> None:
    """Run the end of turn from step `state.end_step` until a seat has a decision."""
    state.phase = END_TURN
    advance(FLOW, state, events, None if state.over else end_steps(state)[state.end_step])


def resume_eot(state: SmallWorldState, events: Events) -> None:
    """The decision of end step `state.end_step` is made: on to the next step."""
    state.end_step += 1
    continue_eot(state, events)


def next_step(state: SmallWorldState) -> str | None:
    state.end_step += 1
    return None if state.over else end_steps(state)[state.end_step]


def wait(state: SmallWorldState, phase: str) -> str | None:
    state.phase = phase
    return None


def heroes(state: SmallWorldState, events: Events) -> str | None:
    """SW-159: the Heroes move to one or two regions of the active race."""
    f = active_force(state, state.current_seat)
    if f >= 0 and D.HEROIC in powers(state, f) and not state.heroes_placed:
        regs = regions_of(state, f)
        for r in regs:
            state.hero[r] = 0
        if 1 <= len(regs) <= 2:
            place_heroes(state, tuple(regs), events)
        elif regs:
            return wait(state, HEROES)
    return next_step(state)


def ally(state: SmallWorldState, events: Events) -> str | None:
    """SW-154: the Diplomat may name an ally."""
    f = active_force(state, state.current_seat)
    if f >= 0 and D.DIPLOMAT in powers(state, f) and ally_choice(state):
        return wait(state, ALLY)
    return next_step(state)


def score(state: SmallWorldState, events: Events) -> str | None:
    """SW-110; NEC-27: the Necromancer's souls are summoned right after, unless optional (ED-37)."""
    score_turn(state, state.current_seat, events)
    if state.current_seat == state.necromancer and not option(state, "necro_summon_optional"):
        summon(state, events)
    return next_step(state)


def stout(state: SmallWorldState, events: Events) -> str | None:
    """SW-166: a Stout race may go into decline right after scoring."""
    a = state.active_race[state.current_seat]
    if a >= 0 and not state.decline_turn and D.STOUT in powers(state, a):
        return wait(state, STOUT)
    return next_step(state)


def summon_souls(state: SmallWorldState, events: Events) -> str | None:
    """NEC-27 with necro_summon_optional (ED-37): the Necromancer chooses."""
    if option(state, "necro_summon_optional") and regions_of(state, GHOSTS):
        return wait(state, SUMMON)
    return next_step(state)


def convert_well(state: SmallWorldState, events: Events) -> str | None:
    """NEC-16: the Soul Well turns into Ghosts."""
    if state.necromancer >= 0:
        well_conversion(state, events)
    return next_step(state)


def defend(state: SmallWorldState, events: Events) -> str | None:
    """SW-82: the defenders redeploy their kept tokens, in order (ED-13)."""
    if not state.defender_queue:
        state.defender_queue = defenders_in_order(state)
    if advance_defend(state, events):
        return wait(state, DEFEND)
    return next_step(state)


def check_victory(state: SmallWorldState, events: Events) -> str | None:
    """NEC-28 / ED-32: the Necromancer's instant win, at step D of his own turn."""
    win_check(state, events, immediate_only=False)
    return next_step(state)


def next_turn_step(state: SmallWorldState, events: Events) -> str | None:
    next_turn(state, events)
    return None


# SW-95 the redeployment steps, by the names legality.redeploy_step gives: (state, events, regions of the force)
REDEPLOY_STEPS = {
    "deploy_tokens": deploy_tokens,
    "place_encampments": place_encampments,
    "place_fortress": place_fortress,
    "set_aside": set_aside_amazons,
    "redeployed": redeployed,
}

FLOW = {
    "redeploy": redeploy,
    "heroes": heroes,
    "ally": ally,
    "score": score,
    "stout": stout,
    "summon": summon_souls,
    "convert": convert_well,
    "defend": defend,
    "check": check_victory,
    "next": next_turn_step,
}


def defenders_in_order(state: SmallWorldState) -> list[int]:
    start = state.current_seat if option(state, "defender_redeploy_order") == "from_current" else state.turn_order[0]
    q = []
    for i in range(state.seats):
        s = (start + i) % state.seats if start == state.current_seat else state.turn_order[i]
        if any(state.kept[k] for k in kinds_of(state, s)) or state.encampments_in_hand[s]:
            q.append(s)
    return q


def defend_pending(state: SmallWorldState, seat: int, events: Events) -> bool:
    """Auto-place what has one answer; True when the seat still has a choice (SW-82, NEC-15)."""
    choice = False
    for k in kinds_of(state, seat):
        if not state.kept[k]:
            continue
        regs = regions_of(state, k)
        if not regs:
            if k == GHOSTS:
                deploy(state, k, -1, state.kept[k], events, seat, from_kept=True)
                win_check(state, events, immediate_only=True)
            continue
        if len(regs) == 1 and not (k == GHOSTS and option(state, "necro_island_redeploy")):
            deploy(state, k, regs[0], state.kept[k], events, seat, from_kept=True)
            if k == GHOSTS:
                win_check(state, events, immediate_only=True)
            continue
        choice = True
    if state.encampments_in_hand[seat]:
        f = bivouac_force(state, seat)
        regs = regions_of(state, f) if f >= 0 else []
        if len(regs) == 1:
            n = state.encampments_in_hand[seat]
            state.encampments[regs[0]] += n
            state.encampments_in_hand[seat] = 0
            events.append(Event("encampment_placed", {"seat": seat, "region": regs[0], "count": n}))
        elif regs:
            choice = True
    return choice


def advance_defend(state: SmallWorldState, events: Events) -> bool:
    while state.defender_queue and not state.over:
        if defend_pending(state, state.defender_queue[0], events):
            return True
        state.defender_queue.pop(0)
    return False


def next_turn(state: SmallWorldState, events: Events) -> None:
    state.turn_index += 1
    if state.turn_index == len(state.turn_order):
        state.turn_index = 0
        if state.round >= state.rounds:  # SW-32
            end_game(state, events)
            return
        state.round += 1  # SW-31
        events.append(Event("round_started", {"round": state.round}))
    start_turn(state, events)


def end_purchases(state: SmallWorldState, events: Events) -> None:
    ready_troops(state, GHOSTS, events)  # NEC-21
    enter_conquest(state, GHOSTS, events)


def resume_defend(state: SmallWorldState, events: Events) -> None:
    if state.over:
        return
    if advance_defend(state, events):
        return
    resume_eot(state, events)
