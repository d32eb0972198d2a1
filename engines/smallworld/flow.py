"""Turn flow (SW-30 - SW-32, SW-50 - SW-52, SW-82, SW-95, NEC-9 - NEC-30)."""
from __future__ import annotations

from engines.core import Event, advance

from . import data as D
from .forces import active_force, bivouac_force, kinds_of, opt, powers, race_ability, regions_of, tokens_of
from .legality import (ally_choice, aside_regions, fortress_regions, has_conquest_choice, island_open, purchase_possible,
                       redeploy_step)
from .resolution import deploy, go_into_decline, place_heroes, ready_troops, set_aside, summon, well_conversion
from .scoring import end_game, score_turn, win_check
from .state import ALLY, CONQUEST, DEFEND, END_TURN, HEROES, PICK, PURCHASE, REDEPLOY, START, STOUT, SUMMON

GHOSTS, LOST, NONE = D.GHOSTS, D.LOST_TRIBE, D.NO_RACE

# SW-52 / NEC-26 - NEC-30: the end-of-turn steps (names of FLOW steps); the view's end_step indexes them
NORMAL_EOT = ("heroes", "ally", "score", "stout", "defend", "convert", "next")
NECRO_EOT = ("heroes", "ally", "score", "summon", "convert", "defend", "check", "next")


def reset_turn(st):
    for i in range(D.N_KINDS):
        st.t_conquests[i] = 0
        st.t_nonempty[i] = 0
    st.attacked = []
    st.converted = []
    st.def_queue = []
    st.dragon_used = 0
    st.fort_done = 0
    st.aside_due = -1
    st.roll = -1
    st.decline_turn = 0
    st.after_ghouls = ""
    st.eot = 0
    st.necro_bought = 0
    st.force = NONE
    st.heroes_placed_turn = 0


def start_turn(st, ev):
    seat = st.order[st.turn_idx]
    st.cur = seat
    reset_turn(st)
    st.peace[seat] = -1  # SW-154: the peace lasts until the Diplomat's next turn
    ev.append(Event("turn_started", {"seat": seat, "round": st.round}))
    if seat == st.necro:
        st.phase = PURCHASE
        if not purchase_possible(st):
            end_purchases(st, ev)
    elif st.active[seat] >= 0:
        st.phase = START
    else:
        if opt(st, "decline_ghouls_full_phase"):
            ghouls_then(st, "pick", ev)  # SW-133 / ED-14
        else:
            st.phase = PICK


def ghoul_phase_due(st, seat):
    g = D.GHOULS
    return st.owner[g] == seat and st.in_decline[g] and tokens_of(st, g) > 0


def ghouls_then(st, then, ev):
    if ghoul_phase_due(st, st.cur):
        st.after_ghouls = then
        ready_troops(st, D.GHOULS, ev)
        enter_conquest(st, D.GHOULS, ev)
    else:
        after_ghouls(st, then, ev)


def after_ghouls(st, then, ev):
    """SW-133 / ED-14: what the turn does once the in-decline Ghouls are done."""
    st.after_ghouls = ""
    AFTER_GHOULS[then](st, ev)


def pick_next(st, ev):
    st.phase = PICK


def active_race_next(st, ev):
    a = st.active[st.cur]
    ready_troops(st, a, ev)
    enter_conquest(st, a, ev)


def decline_next(st, ev):
    go_into_decline(st, st.cur, ev)
    end_of_turn_from(st, "score")
    continue_eot(st, ev)


AFTER_GHOULS = {"pick": pick_next, "active": active_race_next, "decline": decline_next}


def enter_conquest(st, k, ev):
    st.phase = CONQUEST
    st.force = k
    st.roll = -1
    maybe_end_conquest(st, ev)


def maybe_end_conquest(st, ev):
    """Skip a decision that has only one answer: no token in hand, nothing to abandon or convert."""
    k = st.force
    if st.hand[k] > 0 and st.roll < 0:
        return
    if has_conquest_choice(st):
        return
    if st.roll >= 0:
        ev.append(Event("conquest_ended", {"seat": st.cur, "race": D.kind_key(k), "reason": "no_affordable_target"}))
    begin_redeploy(st, ev)


def begin_redeploy(st, ev):
    """SW-95: Skeletons first, then free redistribution, pieces, Amazons."""
    k = st.force
    st.phase = REDEPLOY
    st.roll = -1
    if race_ability(st, k, D.SKELETONS):  # SW-139
        n = min(st.t_nonempty[k] // 2, st.supply[k])
        if n:
            st.supply[k] -= n
            st.hand[k] += n
            ev.append(Event("skeletons_raised", {"seat": st.cur, "tokens": n}))
    occ, cnt = st.occ, st.cnt
    for r in range(len(occ)):
        if occ[r] == k and cnt[r] > 1:
            st.hand[k] += cnt[r] - 1
            cnt[r] = 1
    ps = powers(st, k)
    if D.BIVOUACKING in ps:  # SW-152: place or move the Encampments
        for r in range(len(occ)):
            if occ[r] == k and st.camps[r]:
                st.camp_hand[st.cur] += st.camps[r]
                st.camps[r] = 0
    st.fort_done = 0 if D.FORTIFIED in ps else 1
    st.aside_due = -1
    advance_redeploy(st, ev)


def advance_redeploy(st, ev):
    advance(FLOW, st, ev, "redeploy")


def redeploy(st, ev):
    """SW-95: run the redeployment step that is due."""
    return redeploy_step(st)[0]


def deploy_tokens(st, ev):
    """Tokens in hand go on the force's regions; with one region there is nothing to choose."""
    k = st.force
    regs = regions_of(st, k)
    if len(regs) == 1 and not island_open(st, k):
        deploy(st, k, regs[0], st.hand[k], ev, st.cur)
        return "redeploy"
    return None


def place_encampments(st, ev):
    """SW-152: with one region every Encampment goes there."""
    regs = regions_of(st, st.force)
    if len(regs) == 1:
        n = st.camp_hand[st.cur]
        st.camps[regs[0]] += n
        st.camp_hand[st.cur] = 0
        ev.append(Event("encampment_placed", {"seat": st.cur, "region": regs[0], "count": n}))
        return "redeploy"
    return None


def place_fortress(st, ev):
    """SW-158: the Fortress step is skipped when no region can take one."""
    if not fortress_regions(st, regions_of(st, st.force)):
        st.fort_done = 1
        return "redeploy"
    return None


def set_aside_amazons(st, ev):
    """SW-130: the Amazons set aside up to 4 tokens (ED-19: a lone token too when unavoidable)."""
    regs = regions_of(st, st.force)
    if st.aside_due < 0:
        total = sum(st.cnt[r] for r in regs)
        if not opt(st, "amazons_removal_may_abandon"):
            total -= len(regs)
        st.aside_due = min(4, total)
        return "redeploy"
    cands = aside_regions(st, regs)
    if not cands:
        st.aside_due = 0
        return "redeploy"
    if len(cands) == 1:
        set_aside(st, cands[0], ev)
        return "redeploy"
    return None


def redeployed(st, ev):
    k = st.force
    if race_ability(st, k, D.TROLLS) and not opt(st, "lair_on_conquest"):  # ED-26 alternative
        for r in regions_of(st, k):
            if not st.lair[r] and sum(st.lair) < D.MARKERS["troll_lair"]:
                st.lair[r] = 1
    if k == GHOSTS and st.hand[k] > 0:  # NEC-23: no region, back to the Island
        deploy(st, k, -1, st.hand[k], ev, st.cur)
    ev.append(Event("redeployed", {"seat": st.cur, "race": D.kind_key(k)}))
    if k == GHOSTS:
        win_check(st, ev, immediate_only=True)
        if st.over:
            return None
    st.force = NONE
    if st.after_ghouls:
        after_ghouls(st, st.after_ghouls, ev)
        return None
    return end_of_turn_from(st, "heroes")


# ---------------------------------------------------------------- SW-52 end of turn, step by step

def end_steps(st):
    return NECRO_EOT if st.cur == st.necro else NORMAL_EOT


def end_of_turn_from(st, step):
    st.eot = end_steps(st).index(step)
    st.phase = END_TURN
    return step


def continue_eot(st, ev):
    """Run the end of turn from step `st.eot` until a seat has a decision."""
    st.phase = END_TURN
    advance(FLOW, st, ev, None if st.over else end_steps(st)[st.eot])


def resume_eot(st, ev):
    """The decision of end step `st.eot` is made: on to the next step."""
    st.eot += 1
    continue_eot(st, ev)


def next_step(st):
    st.eot += 1
    return None if st.over else end_steps(st)[st.eot]


def wait(st, phase):
    st.phase = phase
    return None


def heroes(st, ev):
    """SW-159: the Heroes move to one or two regions of the active race."""
    f = active_force(st, st.cur)
    if f >= 0 and D.HEROIC in powers(st, f) and not st.heroes_placed_turn:
        regs = regions_of(st, f)
        for r in regs:
            st.hero[r] = 0
        if 1 <= len(regs) <= 2:
            place_heroes(st, tuple(regs), ev)
        elif regs:
            return wait(st, HEROES)
    return next_step(st)


def ally(st, ev):
    """SW-154: the Diplomat may name an ally."""
    f = active_force(st, st.cur)
    if f >= 0 and D.DIPLOMAT in powers(st, f) and ally_choice(st):
        return wait(st, ALLY)
    return next_step(st)


def score(st, ev):
    """SW-110; NEC-27: the Necromancer's souls are summoned right after, unless optional (ED-37)."""
    score_turn(st, st.cur, ev)
    if st.cur == st.necro and not opt(st, "necro_summon_optional"):
        summon(st, ev)
    return next_step(st)


def stout(st, ev):
    """SW-166: a Stout race may go into decline right after scoring."""
    a = st.active[st.cur]
    if a >= 0 and not st.decline_turn and D.STOUT in powers(st, a):
        return wait(st, STOUT)
    return next_step(st)


def summon_souls(st, ev):
    """NEC-27 with necro_summon_optional (ED-37): the Necromancer chooses."""
    if opt(st, "necro_summon_optional") and regions_of(st, GHOSTS):
        return wait(st, SUMMON)
    return next_step(st)


def convert_well(st, ev):
    """NEC-16: the Soul Well turns into Ghosts."""
    if st.necro >= 0:
        well_conversion(st, ev)
    return next_step(st)


def defend(st, ev):
    """SW-82: the defenders redeploy their kept tokens, in order (ED-13)."""
    if not st.def_queue:
        st.def_queue = defender_queue(st)
    if advance_defend(st, ev):
        return wait(st, DEFEND)
    return next_step(st)


def check_victory(st, ev):
    """NEC-28 / ED-32: the Necromancer's instant win, at step D of his own turn."""
    win_check(st, ev, immediate_only=False)
    return next_step(st)


def next_turn_step(st, ev):
    next_turn(st, ev)
    return None


FLOW = {
    "redeploy": redeploy,
    "deploy_tokens": deploy_tokens,
    "place_encampments": place_encampments,
    "place_fortress": place_fortress,
    "set_aside": set_aside_amazons,
    "redeployed": redeployed,
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


def defender_queue(st):
    start = st.cur if opt(st, "defender_redeploy_order") == "from_current" else st.order[0]
    q = []
    for i in range(st.nseats):
        s = (start + i) % st.nseats if start == st.cur else st.order[i]
        if any(st.kept[k] for k in kinds_of(st, s)) or st.camp_hand[s]:
            q.append(s)
    return q


def defend_pending(st, s, ev):
    """Auto-place what has one answer; True when seat s still has a choice (SW-82, NEC-15)."""
    choice = False
    for k in kinds_of(st, s):
        if not st.kept[k]:
            continue
        regs = regions_of(st, k)
        if not regs:
            if k == GHOSTS:
                deploy(st, k, -1, st.kept[k], ev, s, from_kept=True)
                win_check(st, ev, immediate_only=True)
            continue
        if len(regs) == 1 and not (k == GHOSTS and opt(st, "necro_island_redeploy")):
            deploy(st, k, regs[0], st.kept[k], ev, s, from_kept=True)
            if k == GHOSTS:
                win_check(st, ev, immediate_only=True)
            continue
        choice = True
    if st.camp_hand[s]:
        f = bivouac_force(st, s)
        regs = regions_of(st, f) if f >= 0 else []
        if len(regs) == 1:
            n = st.camp_hand[s]
            st.camps[regs[0]] += n
            st.camp_hand[s] = 0
            ev.append(Event("encampment_placed", {"seat": s, "region": regs[0], "count": n}))
        elif regs:
            choice = True
    return choice


def advance_defend(st, ev):
    while st.def_queue and not st.over:
        if defend_pending(st, st.def_queue[0], ev):
            return True
        st.def_queue.pop(0)
    return False


def next_turn(st, ev):
    st.turn_idx += 1
    if st.turn_idx == len(st.order):
        st.turn_idx = 0
        if st.round >= st.rounds:  # SW-32
            end_game(st, ev)
            return
        st.round += 1  # SW-31
        ev.append(Event("round_started", {"round": st.round}))
    start_turn(st, ev)


def end_purchases(st, ev):
    ready_troops(st, GHOSTS, ev)  # NEC-21
    enter_conquest(st, GHOSTS, ev)


def resume_defend(st, ev):
    if st.over:
        return
    if advance_defend(st, ev):
        return
    resume_eot(st, ev)
