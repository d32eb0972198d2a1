"""Who may act and which moves are legal.

Each legality rule is one predicate below, cited by its rule id; the move generator `legal_moves`
and the kind's check in CHECKS use the same predicates, so a rule is written once. A check raises
IllegalMove with the most specific rule the move breaks; it never builds the legal list.
"""
from __future__ import annotations

from engines.core import IllegalMove

from . import data as D
from .conquest import can_abandon, conquest_cost, conversion_error, dragon_markers_ok, has_final_attempt, target_error
from .forces import active_force, bivouac_force, is_wiped, kinds_of, opt, powers, price, race_ability, regions_of
from .moves import (Abandon, BerserkRoll, BuyGhost, BuyPower, ChoosePower, Conquer, Convert, Decline, Deploy,
                    DragonAttack, EndConquest, EndPurchases, Expand, FinalAttempt, NameAlly, Pass, PickCombo,
                    PlaceEncampment, PlaceFortress, PlaceHeroes, SetAside, Summon)
from .state import (ALLY, CONQUEST, DEFEND, HEROES, NECRO_SETUP, PICK, PURCHASE, REDEPLOY, START, STOUT, SUMMON,
                    PHASE_RULE)

GHOSTS = D.GHOSTS
NO_ACTIVE_RACE = "a combo may be picked only without an active race"


def refuse(rule, sentence):
    raise IllegalMove(rule, sentence)


def not_now(st, kind):
    """The phase offers no move of this kind."""
    refuse(PHASE_RULE.get(st.phase, "SW-50"), f"{kind.__name__} is not a legal move in phase {st.phase}")


# ---------------------------------------------------------------- who acts

def seats_to_act(st):
    """SW-30: the current player; SW-82: the defender redeploying now; SW-32: nobody after the end."""
    if st.over:
        return []
    if st.phase == DEFEND:
        return [st.def_queue[0]]
    return [st.cur]


def check_seat(st, seat, move):
    if st.over:
        refuse("SW-32", "the game is over")
    if seat not in seats_to_act(st):
        if st.phase == DEFEND:
            refuse("SW-82", f"seat {st.def_queue[0]} is redeploying its defenders now")
        refuse("SW-30", f"it is seat {st.cur}'s turn")
    if type(move) not in CHECKS:
        not_now(st, type(move))


# ---------------------------------------------------------------- the predicates

def can_pay_for(st, seat, position):
    """SW-40: the combo at `position` costs one coin per combo above it."""
    return st.coins[seat] >= position


def may_pick_when_wiped(st, seat):
    """SW-54 / ED-25: a wiped-out active race picks a new combo only with wiped_race_may_pick."""
    return is_wiped(st, seat) and opt(st, "wiped_race_may_pick")


def holds(st, k, r):
    """Region r is held by force k."""
    return 0 <= r < len(st.occ) and st.occ[r] == k


def needed(st, cost):
    """SW-64 tokens a conquest takes from hand; SW-151 the pending Berserk roll lowers it (at least 1)."""
    return max(1, cost - st.roll) if st.roll >= 0 else cost


def final_attempt_in_reach(st, cost, hand):
    """SW-90 / ED-11: the reinforcement die covers a shortfall of 1 to 3 (0 allowed without ED-11)."""
    return (1 if opt(st, "final_die_requires_shortfall") else -99) <= cost - hand <= 3


def dragon_ready(st, k):
    """SW-155: Dragon Master attacks once per turn."""
    return D.DRAGON_MASTER in powers(st, k) and not st.dragon_used


def berserk(st, k):
    """SW-151: a Berserk force rolls before choosing each target."""
    return D.BERSERK in powers(st, k)


def island_open(st, k):
    """NEC-15 / ED-33: the Ghosts may redeploy onto the Island."""
    return k == GHOSTS and opt(st, "necro_island_redeploy")


def redeploy_step(st):
    """SW-95: which redeployment step is due (the flow step of that name), with the force's regions."""
    k = st.force
    regs = regions_of(st, k)
    if st.hand[k] > 0 and regs:
        return "deploy_tokens", regs
    if st.camp_hand[st.cur] > 0 and D.BIVOUACKING in powers(st, k) and regs:  # SW-152
        return "place_encampments", regs
    if not st.fort_done:  # SW-158
        return "place_fortress", regs
    if st.aside_due != 0 and race_ability(st, k, D.AMAZONS):  # SW-130
        return "set_aside", regs
    return "redeployed", regs


def fortress_regions(st, regs):
    """SW-158: one Fortress per region, six in the box."""
    if sum(st.fort) >= D.MARKERS["fortress"]:
        return []
    return [r for r in regs if not st.fort[r]]


def aside_regions(st, regs):
    """SW-130: Amazons set aside from regions of 2+ tokens; ED-19 from lone tokens when unavoidable."""
    many = [r for r in regs if st.cnt[r] >= 2]
    if many:
        return many
    return regs if opt(st, "amazons_removal_may_abandon") else []


def may_name_ally(st, s):
    """SW-154: any opponent not attacked this turn; ED-44 the Necromancer only with the option."""
    if not 0 <= s < st.nseats or s == st.cur or s in st.attacked:
        return False
    return s != st.necro or opt(st, "diplomat_may_name_necromancer")


def ally_choice(st):
    return any(may_name_ally(st, s) for s in range(st.nseats))


def hero_pair(st, seat, regions):
    """SW-159: the two Heroes go on two different regions of the race (listed in region order)."""
    return (isinstance(regions, tuple) and len(regions) == 2 and regions[0] < regions[1]
            and all(holds(st, active_force(st, seat), r) for r in regions))


def kept_tokens_fit(st, seat, k, count):
    """SW-82: a defender's kept tokens go on regions its race still holds."""
    return k in kinds_of(st, seat) and 1 <= count <= st.kept[k]


def purchase_open(st):
    """ED-30: several purchases per turn only with necro_multi_purchase; NEC-19: he can pay the price."""
    if st.necro_bought and not opt(st, "necro_multi_purchase"):
        return False
    return st.coins[st.necro] >= price(st)


def in_reserve(st, power):
    """NEC-4 / NEC-20: a power among the Necromancer's drawn ones."""
    return any(D.power_key(p) == power for p in st.necro_reserve)


def purchase_possible(st):
    return purchase_open(st) and (st.ghost_reserve > 0 or bool(st.necro_reserve))


# ---------------------------------------------------------------- the move generator

def legal_moves(st, seat):
    if st.over or seat not in seats_to_act(st):
        return []
    generate = GENERATORS.get(st.phase)
    return generate(st, seat) if generate else []


def start_moves(st, seat):
    """SW-50: expand or decline; ED-25: a wiped-out race may pick instead."""
    return [Expand(), Decline()] + (pick_moves(st, seat) if may_pick_when_wiped(st, seat) else [])


def pick_moves(st, seat):
    return [PickCombo(k) for k in range(len(st.row)) if can_pay_for(st, seat, k)]


def conquest_choices(st):
    """Every conquest move but EndConquest, lazily (a caller may want only the first)."""
    k = st.force
    b = st.board
    regs = regions_of(st, k)
    hand = st.hand[k]
    if st.roll >= 0:  # SW-151 Berserk: choose a target with the roll known
        if hand >= 1:
            for t in range(b.n):
                if target_error(st, k, t, regs) is None and needed(st, conquest_cost(st, k, t)) <= hand:
                    yield Conquer(t)
        return
    if can_abandon(st, k):
        yield from (Abandon(r) for r in regs)
    if hand >= 1:
        final, dragon = has_final_attempt(st, k), dragon_ready(st, k)
        for t in range(b.n):
            if target_error(st, k, t, regs) is not None:
                continue
            c = conquest_cost(st, k, t)
            if c <= hand:
                yield Conquer(t)
            if final and final_attempt_in_reach(st, c, hand):
                yield FinalAttempt(t)
            if dragon and dragon_markers_ok(st, t):
                yield DragonAttack(t)
        if berserk(st, k):
            yield BerserkRoll()
    if race_ability(st, k, D.SORCERERS) and regs:
        yield from (Convert(t) for t in range(b.n) if conversion_error(st, t, regs) is None)


def conquest_moves(st, seat=None):
    return [*conquest_choices(st), EndConquest()]


def has_conquest_choice(st):
    """More than EndConquest is open (the flow skips a decision with one answer)."""
    return next(conquest_choices(st), None) is not None


def deploy_moves(regs, count, island):
    ms = [Deploy(r, c) for r in regs for c in range(1, count + 1)]
    if island:
        ms.extend(Deploy(-1, c) for c in range(1, count + 1))
    return ms


def redeploy_moves(st, seat=None):
    k = st.force
    step, regs = redeploy_step(st)
    if step == "deploy_tokens":
        return deploy_moves(regs, st.hand[k], island_open(st, k))
    if step == "place_encampments":
        return [PlaceEncampment(r) for r in regs]
    if step == "place_fortress":
        return [PlaceFortress(r) for r in fortress_regions(st, regs)] + [Pass()]
    if step == "set_aside":
        return [SetAside(r) for r in aside_regions(st, regs)]
    return []


def defend_moves(st, seat):
    ms = []
    for k in kinds_of(st, seat):
        if st.kept[k]:
            regs = regions_of(st, k)
            if regs:
                ms.extend(deploy_moves(regs, st.kept[k], island_open(st, k)))
    if st.camp_hand[seat]:
        f = bivouac_force(st, seat)
        if f >= 0:
            ms.extend(PlaceEncampment(r) for r in regions_of(st, f))
    return ms


def hero_moves(st, seat):
    regs = regions_of(st, active_force(st, seat))
    return [PlaceHeroes((a, b)) for i, a in enumerate(regs) for b in regs[i + 1:]]


def purchase_moves(st, seat=None):
    moves = []
    if purchase_open(st):
        if st.ghost_reserve > 0:
            moves.append(BuyGhost())
        moves.extend(BuyPower(D.power_key(q)) for q in st.necro_reserve)
    return moves + [EndPurchases()]


GENERATORS = {
    START: start_moves,
    PICK: pick_moves,
    CONQUEST: conquest_moves,
    REDEPLOY: redeploy_moves,
    HEROES: hero_moves,
    ALLY: lambda st, seat: [NameAlly(s) for s in range(st.nseats) if may_name_ally(st, s)] + [Pass()],
    STOUT: lambda st, seat: [Decline(), Pass()],
    SUMMON: lambda st, seat: [Summon(), Pass()],
    DEFEND: defend_moves,
    PURCHASE: purchase_moves,
    NECRO_SETUP: lambda st, seat: [ChoosePower(D.power_key(p)) for p in st.necro_reserve],
}


# ---------------------------------------------------------------- the checks, one per move kind

def check_pick_combo(st, seat, move):
    position = move.position
    if st.phase == NECRO_SETUP:
        refuse("NEC-4", "the Necromancer first chooses one of his six drawn powers")
    if seat == st.necro:
        refuse("NEC-8", "the Necromancer never picks combos")
    if st.phase not in (PICK, START):
        refuse("SW-47", NO_ACTIVE_RACE)
    if not 0 <= position < len(st.row):
        refuse("SW-40", f"there is no combo at position {position}")
    if not can_pay_for(st, seat, position):
        refuse("SW-40", f"position {position} costs {position} coins")
    if st.phase == START and not may_pick_when_wiped(st, seat):
        refuse("SW-47", NO_ACTIVE_RACE)


def only_in(*phases):
    """The check of a kind that is legal whenever the phase is one of `phases`."""
    def check(st, seat, move):
        if st.phase not in phases:
            not_now(st, type(move))
    return check


def in_conquest(st, move):
    if st.phase != CONQUEST:
        not_now(st, type(move))
    return st.force


def target_cost(st, k, region):
    """SW-60: a token in hand and a valid target; returns the target's cost."""
    if st.hand[k] < 1:
        refuse("SW-60", "the conquering race has no token in hand")
    e = target_error(st, k, region, regions_of(st, k))
    if e:
        refuse(*e)
    return conquest_cost(st, k, region)


def check_abandon(st, seat, move):
    k = in_conquest(st, move)
    if not can_abandon(st, k):
        refuse("SW-93", "regions may be abandoned only before the first conquest")
    if not holds(st, k, move.region):
        refuse("SW-93", f"region {move.region} is not a region of the conquering race")


def check_conquer(st, seat, move):
    k = in_conquest(st, move)
    c = target_cost(st, k, move.region)
    if needed(st, c) > st.hand[k]:
        if st.roll >= 0:
            refuse("SW-151", f"the region costs {needed(st, c)} after the roll; hand holds {st.hand[k]}")
        refuse("SW-64", f"region {move.region} costs {c}; hand holds {st.hand[k]}")


def check_final_attempt(st, seat, move):
    k = in_conquest(st, move)
    c = target_cost(st, k, move.region)
    if not has_final_attempt(st, k):
        refuse("SW-151", "a Berserk race has no separate final attempt")
    if st.roll >= 0:
        refuse("SW-151", "use the pending Berserk roll first")
    if not final_attempt_in_reach(st, c, st.hand[k]):
        refuse("SW-90", f"the final attempt needs a shortfall of 1 to 3, not {c - st.hand[k]}")


def check_dragon_attack(st, seat, move):
    k = in_conquest(st, move)
    target_cost(st, k, move.region)
    if D.DRAGON_MASTER not in powers(st, k):
        refuse("SW-155", "only Dragon Master attacks with the Dragon")
    if st.roll >= 0 or not dragon_ready(st, k) or not dragon_markers_ok(st, move.region):
        refuse("SW-155", "the Dragon attacks once per turn")


def check_berserk_roll(st, seat, move):
    k = in_conquest(st, move)
    if not berserk(st, k):
        refuse("SW-151", "only a Berserk race rolls first")
    if st.roll >= 0 or st.hand[k] < 1:
        refuse("SW-151", "the Berserk roll needs a token in hand and no pending roll")


def check_convert(st, seat, move):
    k = in_conquest(st, move)
    if not race_ability(st, k, D.SORCERERS):
        refuse("SW-140", "only active Sorcerers convert")
    e = conversion_error(st, move.region, regions_of(st, k))
    if e:
        refuse(*e)
    if st.roll >= 0:
        not_now(st, Convert)


def check_deploy(st, seat, move):
    if st.phase == REDEPLOY:
        check_redeploy_tokens(st, move.region, move.count)
    elif st.phase == DEFEND:
        check_defender_tokens(st, seat, move.region, move.count)
    else:
        not_now(st, Deploy)


def check_redeploy_tokens(st, region, count):
    """SW-95: tokens from hand onto the force's regions (NEC-15: the Island)."""
    k = st.force
    if count < 1 or count > st.hand[k]:
        refuse("SW-95", f"hand holds {st.hand[k]} tokens")
    if region < 0:
        if not (region == -1 and island_open(st, k) and regions_of(st, k)):
            refuse("NEC-23", "Ghosts return to the Island only when they hold no region")
    elif not holds(st, k, region):
        refuse("SW-95", f"region {region} is not a region of the redeploying race")


def check_defender_tokens(st, seat, region, count):
    if region == -1:
        ok = (island_open(st, GHOSTS) and kept_tokens_fit(st, seat, GHOSTS, count)
              and bool(regions_of(st, GHOSTS)))
    else:
        ok = 0 <= region < len(st.occ) and kept_tokens_fit(st, seat, st.occ[region], count)
    if not ok:
        refuse("SW-82", "kept tokens go on regions still held by the same race")


def check_place_encampment(st, seat, move):
    """SW-152: in redeployment, or when a defender gets Encampments back (SW-82)."""
    if st.phase == REDEPLOY:
        step, regs = redeploy_step(st)
        ok = step == "place_encampments" and move.region in regs
    else:
        f = bivouac_force(st, seat) if st.phase == DEFEND and st.camp_hand[seat] else -1
        ok = f >= 0 and holds(st, f, move.region)
    if not ok:
        refuse("SW-152", f"PlaceEncampment({move.region}) is not allowed now")


def check_place_fortress(st, seat, move):
    step, regs = redeploy_step(st) if st.phase == REDEPLOY else ("", [])
    if step != "place_fortress" or move.region not in fortress_regions(st, regs):
        refuse("SW-158", f"PlaceFortress({move.region}) is not allowed now")


def check_set_aside(st, seat, move):
    step, regs = redeploy_step(st) if st.phase == REDEPLOY else ("", [])
    if step != "set_aside" or move.region not in aside_regions(st, regs):
        refuse("SW-130", f"SetAside({move.region}) is not allowed now")


def check_place_heroes(st, seat, move):
    if st.phase != HEROES or not hero_pair(st, seat, move.regions):
        refuse("SW-159", "the Heroes go on two different regions of the race")


def check_name_ally(st, seat, move):
    if st.phase != ALLY or not may_name_ally(st, move.seat):
        refuse("SW-154", f"seat {move.seat} may not be named ally")


def check_pass(st, seat, move):
    """Pass skips an optional step: ally, Stout decline, summoning, or the Fortress (SW-158)."""
    if st.phase == REDEPLOY and redeploy_step(st)[0] == "place_fortress":
        return
    if st.phase not in (ALLY, STOUT, SUMMON):
        not_now(st, Pass)


def check_choose_power(st, seat, move):
    if st.phase != NECRO_SETUP or not in_reserve(st, move.power):
        refuse("NEC-4", f"{move.power!r} is not one of the drawn powers")


def check_purchase(st, seat, move, available):
    """NEC-19 price, ED-30 one purchase per turn, NEC-20 what is left in the reserve."""
    if st.phase != PURCHASE:
        not_now(st, type(move))
    if st.coins[seat] < price(st):
        refuse("NEC-19", f"a purchase costs {price(st)} coins")
    if st.necro_bought and not opt(st, "necro_multi_purchase"):
        refuse("ED-30", "one purchase per turn")
    if not available:
        refuse("NEC-20", "nothing of that kind left in the reserve")


CHECKS = {
    PickCombo: check_pick_combo,
    Expand: only_in(START),
    Decline: only_in(START, STOUT),
    Abandon: check_abandon,
    Conquer: check_conquer,
    FinalAttempt: check_final_attempt,
    BerserkRoll: check_berserk_roll,
    DragonAttack: check_dragon_attack,
    Convert: check_convert,
    EndConquest: only_in(CONQUEST),
    Deploy: check_deploy,
    PlaceEncampment: check_place_encampment,
    PlaceFortress: check_place_fortress,
    SetAside: check_set_aside,
    PlaceHeroes: check_place_heroes,
    NameAlly: check_name_ally,
    Pass: check_pass,
    ChoosePower: check_choose_power,
    BuyGhost: lambda st, seat, move: check_purchase(st, seat, move, st.ghost_reserve > 0),
    BuyPower: lambda st, seat, move: check_purchase(st, seat, move, in_reserve(st, move.power)),
    EndPurchases: only_in(PURCHASE),
    Summon: only_in(SUMMON),
}
