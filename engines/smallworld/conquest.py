"""Conquest geometry and cost (SW-60 - SW-68, SW-140, SW-154, SW-172)."""
from __future__ import annotations

from . import data as D
from .forces import active_force, is_active_race, option, powers, race_ability, seat_of

GHOSTS, LOST, NONE = D.GHOSTS, D.LOST_TRIBE, D.NO_RACE


def conquest_cost(state, k, region):
    """SW-64 cost with SW-65 discounts (floor 1); SW-68 water counts as empty."""
    b = state.board
    d = state.occupant[region]
    tokens = state.tokens[region] if d != NONE else 0
    if (0 <= d < D.N_RACES and not option(state, "own_decline_token_adds_cost") and state.in_decline[d]
            and state.owner[d] == seat_of(state, k)):
        tokens = 0  # ED-9
    if b.water[region]:
        cost = 2 + tokens
    else:
        cost = (2 + b.mountain[region] + state.troll_lair[region] + state.fortress[region]
                + state.encampments[region] + tokens)
    disc = 0
    ps = powers(state, k)
    if ps:
        if D.COMMANDO in ps:  # SW-153
            disc += 1
        if D.MOUNTED in ps and b.terrain[region] in ("hill", "farmland"):  # SW-162
            disc += 1
        if D.UNDERWORLD in ps and region in b.caverns:  # SW-168
            disc += 1
    if race_ability(state, k, D.GIANTS):  # SW-134
        occ = state.occupant
        if any(occ[m] == k and b.mountain[m] for m in b.adj[region]):
            disc += 1
    if race_ability(state, k, D.TRITONS) and (region in b.coastal
                                              or (b.water[region] and option(state, "tritons_water_discount"))):
        disc += 1  # SW-141
    return max(1, cost - disc)


def immune(state, k, region):
    """SW-172: Hero, Dragon or Hole protects against every other race (ED-22)."""
    if not (state.hero[region] or state.dragon[region] or state.hole[region]):
        return False
    d = state.occupant[region]
    if d == k:
        return False
    if not option(state, "immunity_vs_own_races") and seat_of(state, d) == seat_of(state, k):
        return False
    return True


def peace_forbids(state, k, region):
    """SW-154: the Diplomat's ally's active race may not touch the Diplomat's active force."""
    d = state.occupant[region]
    if d == NONE or d == LOST:
        return False
    dseat = seat_of(state, d)
    if dseat < 0:
        return False
    ally = state.ally[dseat]
    return ally >= 0 and d == active_force(state, dseat) and k == active_force(state, ally)


def reach_error(state, k, region, regs):
    b = state.board
    ps = powers(state, k)
    flying = D.FLYING in ps
    if not regs:
        if k == GHOSTS:  # NEC-22
            if region in b.lake_adjacent or (flying and option(state, "flying_ignores_entry") and not b.water[region]):
                return None
            return ("NEC-22", f"the Ghosts hold no region, so region {region} must border the Lake")
        if race_ability(state, k, D.HALFLINGS):  # SW-135
            return None
        if flying and option(state, "flying_ignores_entry") and not b.water[region]:  # SW-156
            return None
        if D.SEAFARING in ps and option(state, "seafaring_enters_by_sea") and region in b.seas:  # SW-164
            return None
        if D.UNDERWORLD in ps and option(state, "underworld_cavern_entry") and region in b.caverns:  # ED-8
            return None
        if region in b.entry:
            return None
        return ("SW-61", f"a first conquest must target an edge or seaside region; {region} is neither")
    adj = b.adj[region]
    occ = state.occupant
    if any(occ[m] == k for m in adj):
        return None
    if flying and not b.water[region]:  # SW-156
        return None
    if D.UNDERWORLD in ps and region in b.caverns and any(occ[c] == k for c in b.caverns):  # SW-168
        return None
    return ("SW-63", f"region {region} is not adjacent to a region of the conquering race")


def target_error(state, k, region, regs):
    """SW-60 (b)-(f), (h): everything about a target except its cost."""
    b = state.board
    if not 0 <= region < b.n:
        return ("SW-60", f"there is no region {region}")
    if state.occupant[region] == k:
        return ("SW-70", f"region {region} is already held by the conquering race")
    if b.water[region]:
        if state.necromancer >= 0 and region == b.lake and not option(state, "necro_lake_conquerable"):
            return ("NEC-24", "the Lake under Necromancer Island cannot be conquered")
        if D.SEAFARING not in powers(state, k):
            return ("SW-68", f"only an active Seafaring race may conquer water region {region}")
    e = reach_error(state, k, region, regs)
    if e:
        return e
    if immune(state, k, region):
        return ("SW-172", f"region {region} is immune (Hero, Dragon or Hole-in-the-Ground)")
    if peace_forbids(state, k, region):
        return ("SW-154", f"a Diplomat's peace protects region {region}")
    return None


def conversion_error(state, region, regs):
    """SW-140 conditions for a Sorcerer conversion of the region."""
    b = state.board
    S = D.SORCERERS
    if not 0 <= region < b.n:
        return ("SW-140", f"there is no region {region}")
    d = state.occupant[region]
    if (not is_active_race(state, d) or state.owner[d] == state.current_seat or state.tokens[region] != 1
            or state.encampments[region]):
        return ("SW-140", "a conversion needs a lone token of an opponent's active race with no Encampment")
    if state.owner[d] in state.converted_seats:
        return ("SW-140", "only one conversion per opponent per turn")
    if b.water[region] and D.SEAFARING not in powers(state, S):
        return ("SW-140", "Sorcerers may convert on water only when Seafaring")
    occ = state.occupant
    near = any(occ[m] == S for m in b.adj[region])
    if (not near and option(state, "sorcerer_range") == "borders_and_underworld" and D.UNDERWORLD in powers(state, S)
            and region in b.caverns and any(occ[c] == S for c in b.caverns)):
        near = True
    if not near:
        return ("SW-140", f"region {region} does not border a Sorcerer region")
    if immune(state, S, region):
        return ("SW-172", f"region {region} is immune")
    if peace_forbids(state, S, region):
        return ("SW-154", f"a Diplomat's peace protects region {region}")
    if state.supply[S] < 1:
        return ("SW-140", "no Sorcerer token left in the supply")
    if option(state, "sorcerer_needs_hand_token") and state.hand[S] < 1:
        return ("ED-20", "a conversion needs a Sorcerer token in hand")
    return None


def can_abandon(state, k):
    return state.berserk_roll < 0 and (not option(state, "abandon_before_conquest_only") or state.conquests[k] == 0)


def has_final_attempt(state, k):
    return not (D.BERSERK in powers(state, k) and option(state, "berserk_roll_first"))


def dragon_markers_ok(state, region):
    if option(state, "dragon_ignores_markers"):
        return True
    return not (state.board.mountain[region] or state.troll_lair[region] or state.fortress[region]  # ED-17 alternative
                or state.encampments[region])


def needed(state, cost):
    """SW-64 tokens a conquest takes from hand; SW-151 the pending Berserk roll lowers it (at least 1)."""
    return max(1, cost - state.berserk_roll) if state.berserk_roll >= 0 else cost


def final_attempt_in_reach(state, cost, hand):
    """SW-90 / ED-11: the reinforcement die covers a shortfall of 1 to 3 (0 allowed without ED-11)."""
    return (1 if option(state, "final_die_requires_shortfall") else -99) <= cost - hand <= 3


def dragon_ready(state, k):
    """SW-155: Dragon Master attacks once per turn."""
    return D.DRAGON_MASTER in powers(state, k) and not state.dragon_used


def berserk(state, k):
    """SW-151: a Berserk force rolls before choosing each target."""
    return D.BERSERK in powers(state, k)
