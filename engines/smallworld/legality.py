"""Who may act and which moves are legal (move generators and refusals)."""
from __future__ import annotations

from engines.core import IllegalMove

from . import data as D
from .conquest import can_abandon, conquest_cost, conversion_error, dragon_markers_ok, has_final_attempt, target_error
from .forces import active_force, bivouac_force, is_wiped, kinds_of, opt, powers, price, race_ability, regions_of
from .moves import MOVES, Abandon, BerserkRoll, BuyGhost, BuyPower, ChoosePower, Conquer, Convert, Decline, Deploy, DragonAttack, EndConquest, EndPurchases, Expand, FinalAttempt, NameAlly, Pass, PickCombo, PlaceEncampment, PlaceFortress, PlaceHeroes, SetAside, Summon

GHOSTS, LOST, NONE = D.GHOSTS, D.LOST_TRIBE, D.NO_RACE

PHASE_RULE = {"start": "SW-50", "pick": "SW-47", "conquest": "SW-60", "redeploy": "SW-95", "heroes": "SW-159",
              "ally": "SW-154", "stout": "SW-166", "defend": "SW-82", "purchase": "NEC-19",
              "necro_setup": "NEC-4", "summon": "NEC-27", "over": "SW-32"}


def seats_to_act(st):
    if st.over:
        return []
    if st.phase == "defend":
        return [st.def_queue[0]]
    return [st.cur]


def legal_moves(st, seat):
    if st.over or seat not in seats_to_act(st):
        return []
    ph = st.phase
    if ph == "start":
        ms = [Expand(), Decline()]
        if is_wiped(st, seat) and opt(st, "wiped_race_may_pick"):
            ms.extend(pick_moves(st, seat))
        return ms
    if ph == "pick":
        return pick_moves(st, seat)
    if ph == "conquest":
        return conquest_moves(st)
    if ph == "redeploy":
        return redeploy_moves(st)
    if ph == "heroes":
        regs = regions_of(st, active_force(st, seat))
        return [PlaceHeroes((a, b)) for i, a in enumerate(regs) for b in regs[i + 1:]]
    if ph == "ally":
        return [NameAlly(s) for s in ally_candidates(st)] + [Pass()]
    if ph == "stout":
        return [Decline(), Pass()]
    if ph == "summon":
        return [Summon(), Pass()]
    if ph == "defend":
        return defend_moves(st, seat)
    if ph == "purchase":
        return purchase_moves(st) + [EndPurchases()]
    if ph == "necro_setup":
        return [ChoosePower(D.power_key(p)) for p in st.necro_reserve]
    return []


def pick_moves(st, seat):
    return [PickCombo(k) for k in range(len(st.row)) if st.coins[seat] >= k]


def conquest_moves(st):
    k = st.force
    b = st.board
    regs = regions_of(st, k)
    hand = st.hand[k]
    moves = []
    if st.roll >= 0:  # SW-151 Berserk: choose a target with the roll known
        for t in range(b.n):
            if hand >= 1 and target_error(st, k, t, regs) is None and max(1, conquest_cost(st, k, t) - st.roll) <= hand:
                moves.append(Conquer(t))
        moves.append(EndConquest())
        return moves
    if can_abandon(st, k):
        moves.extend(Abandon(r) for r in regs)
    ps = powers(st, k)
    final = hand >= 1 and has_final_attempt(st, k)
    short = opt(st, "final_die_requires_shortfall")
    dragon = hand >= 1 and D.DRAGON_MASTER in ps and not st.dragon_used
    if hand >= 1:
        for t in range(b.n):
            if target_error(st, k, t, regs) is not None:
                continue
            c = conquest_cost(st, k, t)
            if c <= hand:
                moves.append(Conquer(t))
            if final and (1 if short else -99) <= c - hand <= 3:
                moves.append(FinalAttempt(t))
            if dragon and dragon_markers_ok(st, t):
                moves.append(DragonAttack(t))
        if D.BERSERK in ps:
            moves.append(BerserkRoll())
    if race_ability(st, k, D.SORCERERS) and regs:
        moves.extend(Convert(t) for t in range(b.n) if conversion_error(st, t, regs) is None)
    moves.append(EndConquest())
    return moves


def deploy_moves(st, k, regs, n, island):
    ms = [Deploy(r, c) for r in regs for c in range(1, n + 1)]
    if island:
        ms.extend(Deploy(-1, c) for c in range(1, n + 1))
    return ms


def redeploy_moves(st):
    k = st.force
    step, regs = redeploy_step(st)
    if step == "tokens":
        return deploy_moves(st, k, regs, st.hand[k], k == GHOSTS and opt(st, "necro_island_redeploy"))
    if step == "camps":
        return [PlaceEncampment(r) for r in regs]
    if step == "fortress":
        return [PlaceFortress(r) for r in fortress_regions(st, regs)] + [Pass()]
    if step == "amazons":
        return [SetAside(r) for r in aside_regions(st, regs)]
    return []


def redeploy_step(st):
    k = st.force
    regs = regions_of(st, k)
    if st.hand[k] > 0 and regs:
        return "tokens", regs
    if st.camp_hand[st.cur] > 0 and D.BIVOUACKING in powers(st, k) and regs:
        return "camps", regs
    if not st.fort_done:
        return "fortress", regs
    if st.aside_due != 0 and race_ability(st, k, D.AMAZONS):
        return "amazons", regs
    return "", regs


def fortress_regions(st, regs):
    if sum(st.fort) >= D.MARKERS["fortress"]:
        return []
    return [r for r in regs if not st.fort[r]]


def aside_regions(st, regs):
    many = [r for r in regs if st.cnt[r] >= 2]
    if many:
        return many
    return regs if opt(st, "amazons_removal_may_abandon") else []


def defend_moves(st, seat):
    ms = []
    for k in kinds_of(st, seat):
        if st.kept[k]:
            regs = regions_of(st, k)
            if regs:
                ms.extend(deploy_moves(st, k, regs, st.kept[k], k == GHOSTS and opt(st, "necro_island_redeploy")))
    if st.camp_hand[seat]:
        f = bivouac_force(st, seat)
        if f >= 0:
            ms.extend(PlaceEncampment(r) for r in regions_of(st, f))
    return ms


def purchase_moves(st):
    if st.necro_bought and not opt(st, "necro_multi_purchase"):  # ED-30
        return []
    p = price(st)
    if st.coins[st.necro] < p:
        return []
    moves = []
    if st.ghost_reserve > 0:
        moves.append(BuyGhost())
    moves.extend(BuyPower(D.power_key(q)) for q in st.necro_reserve)
    return moves


def ally_candidates(st):
    out = []
    for s in range(st.nseats):
        if s == st.cur or s in st.attacked:
            continue
        if s == st.necro and not opt(st, "diplomat_may_name_necromancer"):  # ED-44
            continue
        out.append(s)
    return out


def check(st, seat, move):
    """None if legal, else (rule id, sentence). Never mutates."""
    if st.over:
        return ("SW-32", "the game is over")
    if seat not in seats_to_act(st):
        if st.phase == "defend":
            return ("SW-82", f"seat {st.def_queue[0]} is redeploying its defenders now")
        return ("SW-30", f"it is seat {st.cur}'s turn")
    if move in legal_moves(st, seat):
        return None
    return diagnose(st, seat, move)


def diagnose(st, seat, move):
    """The most specific rule an illegal move breaks."""
    ph = st.phase
    t = type(move)
    base = (PHASE_RULE.get(ph, "SW-50"), f"{t.__name__} is not a legal move in phase {ph}")
    if t is PickCombo:
        if ph == "necro_setup":
            return ("NEC-4", "the Necromancer first chooses one of his six drawn powers")
        if seat == st.necro:
            return ("NEC-8", "the Necromancer never picks combos")
        if ph not in ("pick", "start"):
            return ("SW-47", "a combo may be picked only without an active race")
        if not 0 <= move.position < len(st.row):
            return ("SW-40", f"there is no combo at position {move.position}")
        if st.coins[seat] < move.position:
            return ("SW-40", f"position {move.position} costs {move.position} coins")
        return ("SW-47", "a combo may be picked only without an active race")
    if ph == "conquest" and t in (Conquer, FinalAttempt, DragonAttack, Abandon, Convert, BerserkRoll):
        k = st.force
        regs = regions_of(st, k)
        if t is Abandon:
            if not can_abandon(st, k):
                return ("SW-93", "regions may be abandoned only before the first conquest")
            return ("SW-93", f"region {move.region} is not a region of the conquering race")
        if t is BerserkRoll:
            if D.BERSERK not in powers(st, k):
                return ("SW-151", "only a Berserk race rolls first")
            return ("SW-151", "the Berserk roll needs a token in hand and no pending roll")
        if t is Convert:
            if not race_ability(st, k, D.SORCERERS):
                return ("SW-140", "only active Sorcerers convert")
            return conversion_error(st, move.region, regs) or base
        if st.hand[k] < 1:
            return ("SW-60", "the conquering race has no token in hand")
        e = target_error(st, k, move.region, regs)
        if e:
            return e
        c = conquest_cost(st, k, move.region)
        if t is Conquer:
            if st.roll >= 0:
                return ("SW-151", f"the region costs {max(1, c - st.roll)} after the roll; hand holds {st.hand[k]}")
            return ("SW-64", f"region {move.region} costs {c}; hand holds {st.hand[k]}")
        if t is FinalAttempt:
            if not has_final_attempt(st, k):
                return ("SW-151", "a Berserk race has no separate final attempt")
            if st.roll >= 0:
                return ("SW-151", "use the pending Berserk roll first")
            return ("SW-90", f"the final attempt needs a shortfall of 1 to 3, not {c - st.hand[k]}")
        if t is DragonAttack:
            if D.DRAGON_MASTER not in powers(st, k):
                return ("SW-155", "only Dragon Master attacks with the Dragon")
            return ("SW-155", "the Dragon attacks once per turn")
    if t is Deploy:
        if ph == "redeploy":
            k = st.force
            if move.count < 1 or move.count > st.hand[k]:
                return ("SW-95", f"hand holds {st.hand[k]} tokens")
            if move.region < 0:
                return ("NEC-23", "Ghosts return to the Island only when they hold no region")
            return ("SW-95", f"region {move.region} is not a region of the redeploying race")
        if ph == "defend":
            return ("SW-82", "kept tokens go on regions still held by the same race")
    if t in (PlaceEncampment, PlaceFortress, SetAside):
        rule = {PlaceEncampment: "SW-152", PlaceFortress: "SW-158", SetAside: "SW-130"}[t]
        return (rule, f"{t.__name__}({move.region}) is not allowed now")
    if t is PlaceHeroes:
        return ("SW-159", "the Heroes go on two different regions of the race")
    if t is NameAlly:
        return ("SW-154", f"seat {move.seat} may not be named ally")
    if t in (BuyGhost, BuyPower):
        if ph == "purchase":
            if st.coins[seat] < price(st):
                return ("NEC-19", f"a purchase costs {price(st)} coins")
            if st.necro_bought and not opt(st, "necro_multi_purchase"):
                return ("ED-30", "one purchase per turn")
            return ("NEC-20", "nothing of that kind left in the reserve")
    if t is ChoosePower:
        return ("NEC-4", f"{move.power!r} is not one of the drawn powers")
    return base


def check_move(st, seat, move):
    err = check(st, seat, move)
    if err:
        raise IllegalMove(*err)


CHECKS = {kind: check_move for kind in MOVES}
