"""Who may act and which moves are legal.

Each legality rule is one predicate below, cited by its rule id; the move generator `legal_moves`
and the kind's check in CHECKS use the same predicates, so a rule is written once. A check raises
IllegalMove with the most specific rule the move breaks; it never builds the legal list.
"""
from __future__ import annotations

from typing import Any, Final, NoReturn

from engines.core import IllegalMove

from . import data as D
from .conquest import (berserk, can_abandon, costs, conversion_error, dragon_markers_ok, dragon_ready,
                       final_attempt_in_reach, has_final_attempt, needed, priced_conquest_choices, target_error)
from .forces import (active_force, bivouac_force, board_of, is_wiped, kinds_of, option, powers, price, race_ability,
                     regions_of)
from .moves import (DEPLOYS, END_CONQUEST, Abandon, BerserkRoll, BuyGhost, BuyPower, ChoosePower, Conquer, Convert,
                    Decline, Deploy, DragonAttack, EndConquest, EndPurchases, Expand, FinalAttempt, NameAlly, Pass,
                    PickCombo, PlaceEncampment, PlaceFortress, PlaceHeroes, SetAside, Summon)
from .state import (ALLY, CONQUEST, DEFEND, HEROES, NECRO_SETUP, PICK, PURCHASE, REDEPLOY, START, STOUT, SUMMON,
                    PHASE_RULE, SmallWorldState)

GHOSTS: Final = D.GHOSTS
SORCERERS: Final = D.SORCERERS
NO_ACTIVE_RACE = "a combo may be picked only without an active race"


def refuse(rule: str, sentence: str) -> NoReturn:
    raise IllegalMove(rule, sentence)


def not_now(state: SmallWorldState, kind: type) -> NoReturn:
    """The phase offers no move of this kind."""
    refuse(PHASE_RULE.get(state.phase, "SW-50"), f"{kind.__name__} is not a legal move in phase {state.phase}")


# ---------------------------------------------------------------- who acts

def seats_to_act(state: SmallWorldState) -> list[int]:
    """SW-30: the current player; SW-82: the defender redeploying now; SW-32: nobody after the end."""
    if state.over:
        return []
    return [acting_seat(state)]


def acting_seat(state: SmallWorldState) -> int:
    """The one seat that acts while the game is not over (seats_to_act)."""
    return state.defender_queue[0] if state.phase == DEFEND else state.current_seat


def check_seat(state: SmallWorldState, seat: int, move: Any) -> None:
    if state.over:
        refuse("SW-32", "the game is over")
    if seat != (state.defender_queue[0] if state.phase == DEFEND else state.current_seat):  # acting_seat
        if state.phase == DEFEND:
            refuse("SW-82", f"seat {state.defender_queue[0]} is redeploying its defenders now")
        refuse("SW-30", f"it is seat {state.current_seat}'s turn")
    if type(move) not in CHECKS:
        not_now(state, type(move))


# ---------------------------------------------------------------- the predicates

def can_pay_for(state, seat, position):
    """SW-40: the combo at `position` costs one coin per combo above it."""
    return state.coins[seat] >= position


def may_pick_when_wiped(state, seat):
    """SW-54 / ED-25: a wiped-out active race picks a new combo only with wiped_race_may_pick."""
    return option(state, "wiped_race_may_pick") and is_wiped(state, seat)


def holds(state: SmallWorldState, k: int, r: int) -> bool:
    """Region r is held by force k."""
    return 0 <= r < len(state.occupant) and state.occupant[r] == k


def island_open(state: SmallWorldState, k: int) -> bool:
    """NEC-15 / ED-33: at the end of another player's turn the Ghosts in hand may go onto the Island
    (seed 004, 二.1 c 「可將」). On his own turn he redeploys as every player does (二.2 b, NEC-23)."""
    return k == GHOSTS and option(state, "necro_island_redeploy")


def redeploy_step(state: SmallWorldState) -> tuple[str, list[int]]:
    """SW-95: which redeployment step is due (the flow step of that name), with the force's regions."""
    force = state.force
    held = regions_of(state, force)
    if state.hand[force] > 0 and held:
        return "deploy_tokens", held
    if state.encampments_in_hand[state.current_seat] > 0 and D.BIVOUACKING in powers(state, force) and held:  # SW-152
        return "place_encampments", held
    if not state.fortress_done:  # SW-158
        return "place_fortress", held
    if state.set_aside_due != 0 and force == D.AMAZONS and race_ability(state, force, D.AMAZONS):  # SW-130
        return "set_aside", held
    return "redeployed", held


def fortress_regions(state: SmallWorldState, regs: list[int]) -> list[int]:
    """SW-158: one Fortress per region, six in the box."""
    if sum(state.fortress) >= D.MARKERS["fortress"]:
        return []
    return [r for r in regs if not state.fortress[r]]


def aside_regions(state: SmallWorldState, regs: list[int]) -> list[int]:
    """SW-130: Amazons set aside from regions of 2+ tokens; ED-19 from lone tokens when unavoidable."""
    many = [r for r in regs if state.tokens[r] >= 2]
    if many:
        return many
    return regs if option(state, "amazons_removal_may_abandon") else []


def may_name_ally(state, seat):
    """SW-154: any opponent not attacked this turn; ED-44 the Necromancer only with the option."""
    if not 0 <= seat < state.seats or seat == state.current_seat or seat in state.attacked_seats:
        return False
    return seat != state.necromancer or option(state, "diplomat_may_name_necromancer")


def ally_choice(state):
    return any(may_name_ally(state, s) for s in range(state.seats))


def hero_pair(state, seat, regions):
    """SW-159: the two Heroes go on two different regions of the race (listed in region order)."""
    return (isinstance(regions, tuple) and len(regions) == 2 and regions[0] < regions[1]
            and all(holds(state, active_force(state, seat), r) for r in regions))


def kept_tokens_fit(state, seat, k, count):
    """SW-82: a defender's kept tokens go on regions its race still holds."""
    return k in kinds_of(state, seat) and 1 <= count <= state.kept[k]


def purchase_open(state):
    """ED-30: several purchases per turn only with necro_multi_purchase; NEC-19: he can pay the price."""
    if state.purchases and not option(state, "necro_multi_purchase"):
        return False
    return state.coins[state.necromancer] >= price(state)


def in_reserve(state, power):
    """NEC-4 / NEC-20: a power among the Necromancer's drawn ones."""
    return any(D.power_key(p) == power for p in state.power_reserve)


def purchase_possible(state):
    return purchase_open(state) and (state.ghost_reserve > 0 or bool(state.power_reserve))


# ---------------------------------------------------------------- the move generator

def legal_moves(state: SmallWorldState, seat: int) -> list[Any]:
    if state.over or seat != (state.defender_queue[0] if state.phase == DEFEND else state.current_seat):  # acting_seat
        return []
    generate = GENERATORS.get(state.phase)
    return generate(state, seat) if generate else []


def start_moves(state, seat):
    """SW-50: expand or decline; ED-25: a wiped-out race may pick instead."""
    return [Expand(), Decline()] + (pick_moves(state, seat) if may_pick_when_wiped(state, seat) else [])


def pick_moves(state, seat):
    return [PickCombo(k) for k in range(len(state.combo_row)) if can_pay_for(state, seat, k)]


def conquest_choices(state: SmallWorldState) -> list[Any]:
    """Every conquest move but EndConquest, in the order the clients see."""
    return priced_conquest_choices(state)[0]


def conquest_moves(state: SmallWorldState, seat: int | None = None) -> list[Any]:
    moves = conquest_choices(state)
    moves.append(END_CONQUEST)
    return moves


def has_conquest_choice(state: SmallWorldState) -> bool:
    """More than EndConquest is open (the flow skips a decision with one answer)."""
    return bool(conquest_choices(state))


def deploy_moves(held: list[int], count: int, island: bool) -> list[Any]:
    """Deploy(region, 1..count) per region, then onto the Island (NEC-15)."""
    ms: list[Any] = []
    for r in (*held, -1) if island else held:
        row = DEPLOYS[r]
        ms += row[:count] if count <= len(row) else [Deploy(r, c) for c in range(1, count + 1)]
    return ms


def redeploy_moves(state: SmallWorldState, seat: int | None = None) -> list[Any]:
    k = state.force
    step, regs = redeploy_step(state)
    if step == "deploy_tokens":  # his own turn: onto his regions only (NEC-23), as every player's
        return deploy_moves(regs, state.hand[k], False)
    if step == "place_encampments":
        return [PlaceEncampment(r) for r in regs]
    if step == "place_fortress":
        return [PlaceFortress(r) for r in fortress_regions(state, regs)] + [Pass()]
    if step == "set_aside":
        return [SetAside(r) for r in aside_regions(state, regs)]
    return []


def defend_moves(state, seat):
    ms = []
    for k in kinds_of(state, seat):
        if state.kept[k]:
            regs = regions_of(state, k)
            if regs:
                ms.extend(deploy_moves(regs, state.kept[k], island_open(state, k)))
    if state.encampments_in_hand[seat]:
        f = bivouac_force(state, seat)
        if f >= 0:
            ms.extend(PlaceEncampment(r) for r in regions_of(state, f))
    return ms


def hero_moves(state, seat):
    regs = regions_of(state, active_force(state, seat))
    return [PlaceHeroes((a, b)) for i, a in enumerate(regs) for b in regs[i + 1:]]


def purchase_moves(state, seat=None):
    moves = []
    if purchase_open(state):
        if state.ghost_reserve > 0:
            moves.append(BuyGhost())
        moves.extend(BuyPower(D.power_key(q)) for q in state.power_reserve)
    return moves + [EndPurchases()]


GENERATORS = {
    START: start_moves,
    PICK: pick_moves,
    CONQUEST: conquest_moves,
    REDEPLOY: redeploy_moves,
    HEROES: hero_moves,
    ALLY: lambda state, seat: [NameAlly(s) for s in range(state.seats) if may_name_ally(state, s)] + [Pass()],
    STOUT: lambda state, seat: [Decline(), Pass()],
    SUMMON: lambda state, seat: [Summon(), Pass()],
    DEFEND: defend_moves,
    PURCHASE: purchase_moves,
    NECRO_SETUP: lambda state, seat: [ChoosePower(D.power_key(p)) for p in state.power_reserve],
}


# ---------------------------------------------------------------- the checks, one per move kind

def check_pick_combo(state, seat, move):
    position = move.position
    if state.phase == NECRO_SETUP:
        refuse("NEC-4", "the Necromancer first chooses one of his six drawn powers")
    if seat == state.necromancer:
        refuse("NEC-8", "the Necromancer never picks combos")
    if state.phase not in (PICK, START):
        refuse("SW-47", NO_ACTIVE_RACE)
    if not 0 <= position < len(state.combo_row):
        refuse("SW-40", f"there is no combo at position {position}")
    if not can_pay_for(state, seat, position):
        refuse("SW-40", f"position {position} costs {position} coins")
    if state.phase == START and not may_pick_when_wiped(state, seat):
        refuse("SW-47", NO_ACTIVE_RACE)


def only_in(*phases):
    """The check of a kind that is legal whenever the phase is one of `phases`."""
    def check(state, seat, move):
        if state.phase not in phases:
            not_now(state, type(move))
    return check


def in_conquest(state: SmallWorldState, move: Any) -> int:
    if state.phase != CONQUEST:
        not_now(state, type(move))
    return state.force


def target_cost(state: SmallWorldState, force: int, region: int) -> int:
    """SW-60: a token in hand and a valid target; returns the target's cost."""
    if state.hand[force] < 1:
        refuse("SW-60", "the conquering race has no token in hand")
    ps = powers(state, force)
    e = target_error(state, force, region, regions_of(state, force), ps)
    if e:
        refuse(*e)
    return costs(state, force, board_of(state), ps, (region,))[0]


def check_abandon(state, seat, move):
    k = in_conquest(state, move)
    if not can_abandon(state, k):
        refuse("SW-93", "regions may be abandoned only before the first conquest")
    if not holds(state, k, move.region):
        refuse("SW-93", f"region {move.region} is not a region of the conquering race")


def check_conquer(state: SmallWorldState, seat: int, move: Any) -> None:
    k = in_conquest(state, move)
    c = target_cost(state, k, move.region)
    if needed(state, c) > state.hand[k]:
        if state.berserk_roll >= 0:
            refuse("SW-151", f"the region costs {needed(state, c)} after the roll; hand holds {state.hand[k]}")
        refuse("SW-64", f"region {move.region} costs {c}; hand holds {state.hand[k]}")


def check_final_attempt(state, seat, move):
    k = in_conquest(state, move)
    c = target_cost(state, k, move.region)
    if not has_final_attempt(state, powers(state, k)):
        refuse("SW-151", "a Berserk race has no separate final attempt")
    if state.berserk_roll >= 0:
        refuse("SW-151", "use the pending Berserk roll first")
    if not final_attempt_in_reach(state, c, state.hand[k]):
        refuse("SW-90", f"the final attempt needs a shortfall of 1 to 3, not {c - state.hand[k]}")


def check_dragon_attack(state, seat, move):
    k = in_conquest(state, move)
    target_cost(state, k, move.region)
    ps = powers(state, k)
    if D.DRAGON_MASTER not in ps:
        refuse("SW-155", "only Dragon Master attacks with the Dragon")
    if state.berserk_roll >= 0 or not dragon_ready(state, ps) or not dragon_markers_ok(state, move.region):
        refuse("SW-155", "the Dragon attacks once per turn")


def check_berserk_roll(state, seat, move):
    k = in_conquest(state, move)
    if not berserk(powers(state, k)):
        refuse("SW-151", "only a Berserk race rolls first")
    if state.berserk_roll >= 0 or state.hand[k] < 1:
        refuse("SW-151", "the Berserk roll needs a token in hand and no pending roll")


def check_convert(state, seat, move):
    k = in_conquest(state, move)
    if not race_ability(state, k, D.SORCERERS):
        refuse("SW-140", "only active Sorcerers convert")
    e = conversion_error(state, move.region, regions_of(state, k))
    if e:
        refuse(*e)
    if state.berserk_roll >= 0:
        not_now(state, Convert)


def check_deploy(state: SmallWorldState, seat: int, move: Any) -> None:
    if state.phase == REDEPLOY:
        check_redeploy_tokens(state, move.region, move.count)
    elif state.phase == DEFEND:
        check_defender_tokens(state, seat, move.region, move.count)
    else:
        not_now(state, Deploy)


def check_redeploy_tokens(state: SmallWorldState, region: int, count: int) -> None:
    """SW-95: tokens from hand onto the force's regions; on the Necromancer's own turn too (NEC-23: the
    Island only when his Ghosts hold no region, and then nothing is redeployed)."""
    k = state.force
    if count < 1 or count > state.hand[k]:
        refuse("SW-95", f"hand holds {state.hand[k]} tokens")
    if region < 0:
        if k == GHOSTS:
            refuse("NEC-23", "on his own turn the Ghosts in hand go onto his regions, the Island only if he holds none")
        refuse("SW-95", f"region {region} is not a region of the redeploying race")
    elif not holds(state, k, region):
        refuse("SW-95", f"region {region} is not a region of the redeploying race")


def check_defender_tokens(state, seat, region, count):
    if region == -1:
        ok = (island_open(state, GHOSTS) and kept_tokens_fit(state, seat, GHOSTS, count)
              and bool(regions_of(state, GHOSTS)))
    else:
        ok = 0 <= region < len(state.occupant) and kept_tokens_fit(state, seat, state.occupant[region], count)
    if not ok:
        refuse("SW-82", "kept tokens go on regions still held by the same race")


def check_place_encampment(state, seat, move):
    """SW-152: in redeployment, or when a defender gets Encampments back (SW-82)."""
    if state.phase == REDEPLOY:
        step, regs = redeploy_step(state)
        ok = step == "place_encampments" and move.region in regs
    else:
        f = bivouac_force(state, seat) if state.phase == DEFEND and state.encampments_in_hand[seat] else -1
        ok = f >= 0 and holds(state, f, move.region)
    if not ok:
        refuse("SW-152", f"PlaceEncampment({move.region}) is not allowed now")


def check_place_fortress(state, seat, move):
    step, regs = redeploy_step(state) if state.phase == REDEPLOY else ("", [])
    if step != "place_fortress" or move.region not in fortress_regions(state, regs):
        refuse("SW-158", f"PlaceFortress({move.region}) is not allowed now")


def check_set_aside(state, seat, move):
    step, regs = redeploy_step(state) if state.phase == REDEPLOY else ("", [])
    if step != "set_aside" or move.region not in aside_regions(state, regs):
        refuse("SW-130", f"SetAside({move.region}) is not allowed now")


def check_place_heroes(state, seat, move):
    if state.phase != HEROES or not hero_pair(state, seat, move.regions):
        refuse("SW-159", "the Heroes go on two different regions of the race")


def check_name_ally(state, seat, move):
    if state.phase != ALLY or not may_name_ally(state, move.seat):
        refuse("SW-154", f"seat {move.seat} may not be named ally")


def check_pass(state, seat, move):
    """Pass skips an optional step: ally, Stout decline, summoning, or the Fortress (SW-158)."""
    if state.phase == REDEPLOY and redeploy_step(state)[0] == "place_fortress":
        return
    if state.phase not in (ALLY, STOUT, SUMMON):
        not_now(state, Pass)


def check_choose_power(state, seat, move):
    if state.phase != NECRO_SETUP:  # also every turn of a game without the Necromancer
        not_now(state, ChoosePower)
    if not in_reserve(state, move.power):
        refuse("NEC-4", f"{move.power!r} is not one of the drawn powers")


def check_purchase(state, seat, move, available):
    """NEC-19 price, ED-30 one purchase per turn, NEC-20 what is left in the reserve."""
    if state.phase != PURCHASE:
        not_now(state, type(move))
    if state.coins[seat] < price(state):
        refuse("NEC-19", f"a purchase costs {price(state)} coins")
    if state.purchases and not option(state, "necro_multi_purchase"):
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
    BuyGhost: lambda state, seat, move: check_purchase(state, seat, move, state.ghost_reserve > 0),
    BuyPower: lambda state, seat, move: check_purchase(state, seat, move, in_reserve(state, move.power)),
    EndPurchases: only_in(PURCHASE),
    Summon: only_in(SUMMON),
}
