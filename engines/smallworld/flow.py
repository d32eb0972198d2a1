"""Turn flow (SW-30 - SW-32, SW-50 - SW-52, SW-82, SW-95, NEC-9 - NEC-30)."""
from __future__ import annotations

from engines.core import Event

from . import data as D
from .forces import active_force, bivouac_force, kinds_of, opt, powers, race_ability, regions_of, tokens_of
from .legality import ally_candidates, aside_regions, conquest_moves, fortress_regions, purchase_moves, redeploy_step
from .resolution import deploy, go_into_decline, place_heroes, ready_troops, set_aside, summon, well_conversion
from .scoring import end_game, score_turn, win_check

GHOSTS, LOST, NONE = D.GHOSTS, D.LOST_TRIBE, D.NO_RACE

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
        st.phase = "purchase"
        if not purchase_moves(st):
            end_purchases(st, ev)
    elif st.active[seat] >= 0:
        st.phase = "start"
    else:
        if opt(st, "decline_ghouls_full_phase"):
            ghouls_then(st, "pick", ev)  # SW-133 / ED-14
        else:
            st.phase = "pick"


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
    st.after_ghouls = ""
    if then == "pick":
        st.phase = "pick"
    elif then == "active":
        a = st.active[st.cur]
        ready_troops(st, a, ev)
        enter_conquest(st, a, ev)
    elif then == "decline":
        go_into_decline(st, st.cur, ev)
        continue_eot(st, ev, start="score")


def enter_conquest(st, k, ev):
    st.phase = "conquest"
    st.force = k
    st.roll = -1
    maybe_end_conquest(st, ev)


def maybe_end_conquest(st, ev):
    """Skip a decision that has only one answer: no token in hand, nothing to abandon or convert."""
    k = st.force
    if st.hand[k] > 0 and st.roll < 0:
        return
    if st.roll >= 0:
        if len(conquest_moves(st)) > 1:
            return
        ev.append(Event("conquest_ended", {"seat": st.cur, "race": D.kind_key(k), "reason": "no_affordable_target"}))
        begin_redeploy(st, ev)
        return
    if len(conquest_moves(st)) > 1:
        return
    begin_redeploy(st, ev)


def begin_redeploy(st, ev):
    """SW-95: Skeletons first, then free redistribution, pieces, Amazons."""
    k = st.force
    st.phase = "redeploy"
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
    k = st.force
    while True:
        step, regs = redeploy_step(st)
        if step == "tokens":
            if len(regs) == 1 and not (k == GHOSTS and opt(st, "necro_island_redeploy")):
                deploy(st, k, regs[0], st.hand[k], ev, st.cur)
                continue
            return
        if step == "camps":
            if len(regs) == 1:
                n = st.camp_hand[st.cur]
                st.camps[regs[0]] += n
                st.camp_hand[st.cur] = 0
                ev.append(Event("encampment_placed", {"seat": st.cur, "region": regs[0], "count": n}))
                continue
            return
        if step == "fortress":
            if not fortress_regions(st, regs):
                st.fort_done = 1
                continue
            return
        if step == "amazons":
            if st.aside_due < 0:
                total = sum(st.cnt[r] for r in regs)
                if not opt(st, "amazons_removal_may_abandon"):
                    total -= len(regs)
                st.aside_due = min(4, total)  # SW-130
                continue
            cands = aside_regions(st, regs)
            if not cands:
                st.aside_due = 0
                continue
            if len(cands) == 1:
                set_aside(st, cands[0], ev)
                continue
            return
        finish_redeploy(st, ev)
        return


def finish_redeploy(st, ev):
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
            return
    st.force = NONE
    if st.after_ghouls:
        after_ghouls(st, st.after_ghouls, ev)
    else:
        continue_eot(st, ev, start="heroes")


def eot_steps(st):
    return NECRO_EOT if st.cur == st.necro else NORMAL_EOT


def continue_eot(st, ev, start=None):
    """SW-52 end of turn, step by step; stops at each decision."""
    steps = eot_steps(st)
    if start is not None:
        st.eot = steps.index(start)
    st.phase = "end_turn"
    while not st.over:
        step = steps[st.eot]
        f = active_force(st, st.cur)
        if step == "heroes":
            if f >= 0 and D.HEROIC in powers(st, f) and not st.heroes_placed_turn:
                regs = regions_of(st, f)
                for r in regs:
                    st.hero[r] = 0
                if 1 <= len(regs) <= 2:
                    place_heroes(st, tuple(regs), ev)
                elif regs:
                    st.phase = "heroes"
                    return
        elif step == "ally":
            if f >= 0 and D.DIPLOMAT in powers(st, f) and ally_candidates(st):
                st.phase = "ally"
                return
        elif step == "score":
            score_turn(st, st.cur, ev)
            if st.cur == st.necro and not opt(st, "necro_summon_optional"):
                summon(st, ev)
        elif step == "stout":
            a = st.active[st.cur]
            if a >= 0 and not st.decline_turn and D.STOUT in powers(st, a):
                st.phase = "stout"
                return
        elif step == "summon":
            if opt(st, "necro_summon_optional") and regions_of(st, GHOSTS):
                st.phase = "summon"
                return
        elif step == "convert":
            if st.necro >= 0:
                well_conversion(st, ev)
        elif step == "defend":
            if not st.def_queue:
                st.def_queue = defender_queue(st)
            if advance_defend(st, ev):
                st.phase = "defend"
                return
        elif step == "check":
            win_check(st, ev, immediate_only=False)
        elif step == "next":
            next_turn(st, ev)
            return
        st.eot += 1


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
    st.eot += 1
    continue_eot(st, ev)
