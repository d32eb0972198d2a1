"""Conquest geometry and cost (SW-60 - SW-68, SW-140, SW-154, SW-172)."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from . import data as D
from .forces import active_force, board_of, is_active_race, option, powers, race_ability, regions_of, seat_of
from .moves import ABANDON, BERSERK_ROLL, CONQUER, DRAGON_ATTACK, END_CONQUEST, FINAL_ATTEMPT, Convert
from .state import SmallWorldState

GHOSTS: Final = D.GHOSTS
SORCERERS: Final = D.SORCERERS
LOST: Final = D.LOST_TRIBE
NONE: Final = D.NO_RACE
N_RACES: Final = D.N_RACES
Error = tuple[str, str] | None  # (rule id, sentence) of a refusal, or None


def conquest_cost(state: SmallWorldState, force: int, region: int) -> int:
    """SW-64 cost of conquering `region` with `force` (the token kind conquering)."""
    return costs(state, force, board_of(state), powers(state, force), (region,))[0]


def costs(state: SmallWorldState, force: int, board: D.Board, ps: Sequence[int], regions: Iterable[int]) -> list[int]:
    """SW-64 cost with SW-65 discounts (floor 1) of each of `regions` for `force` with powers `ps`:
    the board's fixed part with the force's discounts (SW-153, SW-162, SW-168, SW-141 / ED-27), plus the
    defending tokens (ED-9: optionally not an own in-decline race's) and, on land, the markers
    (SW-68: water counts as empty), minus one for Giants next to their mountain (SW-134)."""
    tritons: int = 0
    if force == D.TRITONS and race_ability(state, force, D.TRITONS):
        tritons = 2 if state.options["tritons_water_discount"] else 1
    fixed = board.fixed_costs(ps, tritons)
    giants = force == D.GIANTS and race_ability(state, force, D.GIANTS)
    free_seat = None if state.options["own_decline_token_adds_cost"] else seat_of(state, force)  # ED-9
    occ: list[int] = state.occupant
    tokens: list[int] = state.tokens
    in_decline: list[int] = state.in_decline
    owner: list[int] = state.owner
    water = board.water
    lair: list[int] = state.troll_lair
    fortress: list[int] = state.fortress
    camps: list[int] = state.encampments
    out: list[int] = []
    for region in regions:
        race = occ[region]
        cost = fixed[region]
        if race >= 0 and (race >= N_RACES or not in_decline[race] or owner[race] != free_seat):
            cost += tokens[region]
        if not water[region]:
            cost += lair[region] + fortress[region] + camps[region]
        if giants and any(occ[m] == force and board.mountain[m] for m in board.neighbours[region]):
            cost -= 1
        out.append(cost if cost > 1 else 1)
    return out


def immune(state: SmallWorldState, force: int, region: int) -> bool:
    """SW-172: Hero, Dragon or Hole protects against every other race (ED-22)."""
    if not (state.hero[region] or state.dragon[region] or state.hole[region]):
        return False
    defender = state.occupant[region]
    if defender == force:
        return False
    if not option(state, "immunity_vs_own_races") and seat_of(state, defender) == seat_of(state, force):
        return False
    return True


def peace_forbids(state: SmallWorldState, force: int, region: int) -> bool:
    """SW-154: the Diplomat's ally's active race may not touch the Diplomat's active force."""
    defender = state.occupant[region]
    if defender == NONE or defender == LOST:
        return False
    defender_seat = seat_of(state, defender)
    if defender_seat < 0:
        return False
    ally = state.ally[defender_seat]
    return ally >= 0 and defender == active_force(state, defender_seat) and force == active_force(state, ally)


def reachable(state: SmallWorldState, force: int, held: list[int], ps: Sequence[int],
              board: D.Board | None = None) -> set[int]:
    """A new set of the regions `force` (holding `held`, with powers `ps`) may reach: SW-61 first conquest
    (SW-135, SW-156, SW-164, ED-8; NEC-22 for the Ghosts), else SW-63 adjacency (SW-156, SW-168)."""
    if board is None:
        board = board_of(state)
    flying = D.FLYING in ps
    if not held:
        if force == GHOSTS:  # NEC-22
            if flying and option(state, "flying_ignores_entry"):
                return set(board.lake_adjacent | board.land_set)
            return set(board.lake_adjacent)
        if force == D.HALFLINGS and race_ability(state, force, D.HALFLINGS):  # SW-135
            return set(board.every)
        out: set[int] = set(board.entry)
        if flying and option(state, "flying_ignores_entry"):  # SW-156
            out |= board.land_set
        if D.SEAFARING in ps and option(state, "seafaring_enters_by_sea"):  # SW-164
            out |= board.seas
        if D.UNDERWORLD in ps and option(state, "underworld_cavern_entry"):  # ED-8
            out |= board.caverns
        return out
    out = set(board.land_set) if flying else set()  # SW-156
    neighbours = board.neighbours
    for r in held:
        out.update(neighbours[r])
    if D.UNDERWORLD in ps:  # SW-168
        occ = state.occupant
        if any(occ[c] == force for c in board.caverns):
            out |= board.caverns
    return out


def reach_error(state: SmallWorldState, force: int, region: int, held: list[int],
                ps: Sequence[int] | None = None) -> Error:
    if region in reachable(state, force, held, powers(state, force) if ps is None else ps):
        return None
    if held:
        return ("SW-63", f"region {region} is not adjacent to a region of the conquering race")
    if force == GHOSTS:
        return ("NEC-22", f"the Ghosts hold no region, so region {region} must border the Lake")
    return ("SW-61", f"a first conquest must target an edge or seaside region; {region} is neither")


def target_error(state: SmallWorldState, force: int, region: int, held: list[int],
                 ps: Sequence[int] | None = None) -> Error:
    """SW-60 (b)-(f), (h): everything about a target of `force` (holding `held`, with powers `ps`)
    except its cost."""
    board = board_of(state)
    if ps is None:
        ps = powers(state, force)
    if not 0 <= region < board.n:
        return ("SW-60", f"there is no region {region}")
    if state.occupant[region] == force:
        return ("SW-70", f"region {region} is already held by the conquering race")
    if board.water[region]:
        if region == closed_lake(state):
            return ("NEC-24", "the Lake under Necromancer Island cannot be conquered")
        if D.SEAFARING not in ps:
            return ("SW-68", f"only an active Seafaring race may conquer water region {region}")
    e = reach_error(state, force, region, held, ps)
    if e:
        return e
    if immune(state, force, region):
        return ("SW-172", f"region {region} is immune (Hero, Dragon or Hole-in-the-Ground)")
    if peace_forbids(state, force, region):
        return ("SW-154", f"a Diplomat's peace protects region {region}")
    return None


def closed_lake(state: SmallWorldState) -> int:
    """NEC-24: the Lake under the Island, unless necro_lake_conquerable (ED-34); -1 without one."""
    if state.necromancer >= 0 and not option(state, "necro_lake_conquerable"):
        return board_of(state).lake
    return -1


def targets(state: SmallWorldState, force: int, held: list[int], ps: Sequence[int]) -> tuple[list[int], list[int]]:
    """The regions `force` (holding `held`, with powers `ps`) may conquer now, in region order, and
    their costs: the regions for which target_error is None, found with set operations."""
    board = board_of(state)
    found = reachable(state, force, held, ps, board)
    found.difference_update(held)  # SW-70
    if D.SEAFARING in ps:
        found.discard(closed_lake(state))  # NEC-24
    else:
        found -= board.water_set  # SW-68
    hero: list[int] = state.hero
    dragon: list[int] = state.dragon
    hole: list[int] = state.hole
    if any(hero) or any(dragon) or any(hole):  # SW-172
        found = {r for r in found if not ((hero[r] or dragon[r] or hole[r]) and immune(state, force, r))}
    if max(state.ally) >= 0:  # SW-154 binds only while some Diplomat has an ally
        found = {r for r in found if not peace_forbids(state, force, r)}
    valid = sorted(found)
    return valid, costs(state, force, board, ps, valid)


def conversion_candidates(state: SmallWorldState, held: list[int]) -> list[int]:
    """The regions a Sorcerer conversion may reach (conversion_error's range test), in region order."""
    board = board_of(state)
    out: set[int] = set()
    for r in held:
        out.update(board.neighbours[r])
    out.update(board.caverns)  # SW-168 with Underworld; conversion_error decides
    return sorted(out)


def conversion_error(state: SmallWorldState, region: int, held: list[int]) -> Error:
    """SW-140 conditions for a Sorcerer conversion of the region."""
    board = board_of(state)
    S = D.SORCERERS
    if not 0 <= region < board.n:
        return ("SW-140", f"there is no region {region}")
    defender = state.occupant[region]
    if (not is_active_race(state, defender) or state.owner[defender] == state.current_seat or state.tokens[region] != 1
            or state.encampments[region]):
        return ("SW-140", "a conversion needs a lone token of an opponent's active race with no Encampment")
    if state.owner[defender] in state.converted_seats:
        return ("SW-140", "only one conversion per opponent per turn")
    if board.water[region] and D.SEAFARING not in powers(state, S):
        return ("SW-140", "Sorcerers may convert on water only when Seafaring")
    occ = state.occupant
    near = any(occ[m] == S for m in board.adj[region])
    if (not near and option(state, "sorcerer_range") == "borders_and_underworld" and D.UNDERWORLD in powers(state, S)
            and region in board.caverns and any(occ[c] == S for c in board.caverns)):
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


def can_abandon(state: SmallWorldState, force: int) -> bool:
    return state.berserk_roll < 0 and (not option(state, "abandon_before_conquest_only") or state.conquests[force] == 0)


def has_final_attempt(state: SmallWorldState, ps: Sequence[int]) -> bool:
    """SW-90: the final attempt; ED-16 a Berserk force (powers `ps`) rolls before choosing instead."""
    return not (D.BERSERK in ps and state.options["berserk_roll_first"])


def dragon_markers_ok(state: SmallWorldState, region: int) -> bool:
    if option(state, "dragon_ignores_markers"):
        return True
    return not (board_of(state).mountain[region] or state.troll_lair[region]  # ED-17 alternative
                or state.fortress[region] or state.encampments[region])


def needed(state: SmallWorldState, cost: int) -> int:
    """SW-64 tokens a conquest takes from hand; SW-151 the pending Berserk roll lowers it (at least 1)."""
    return max(1, cost - state.berserk_roll) if state.berserk_roll >= 0 else cost


def final_attempt_in_reach(state: SmallWorldState, cost: int, hand: int) -> bool:
    """SW-90 / ED-11: the reinforcement die covers a shortfall of 1 to 3 (0 allowed without ED-11)."""
    return least_shortfall(state) <= cost - hand <= 3


def least_shortfall(state: SmallWorldState) -> int:
    return 1 if option(state, "final_die_requires_shortfall") else -99


def dragon_ready(state: SmallWorldState, ps: Sequence[int]) -> bool:
    """SW-155: Dragon Master (in the force's powers `ps`) attacks once per turn."""
    return D.DRAGON_MASTER in ps and not state.dragon_used


def berserk(ps: Sequence[int]) -> bool:
    """SW-151: a Berserk force (powers `ps`) rolls before choosing each target."""
    return D.BERSERK in ps


# ---------------------------------------------------------------- the conquest phase's moves

def priced_conquest_choices(state: SmallWorldState) -> tuple[list[Any], list[int], list[int]]:
    """conquest_choices, and the targets with their costs (SW-64) that it priced."""
    force = state.force
    held = regions_of(state, force)
    hand = state.hand[force]
    ps = powers(state, force)
    valid: list[int] = []
    cost: list[int] = []
    if state.berserk_roll >= 0:  # SW-151 Berserk: choose a target with the roll known
        if hand < 1:
            return [], valid, cost
        roll = state.berserk_roll
        valid, cost = targets(state, force, held, ps)
        return [CONQUER[r] for r, c in zip(valid, cost) if max(1, c - roll) <= hand], valid, cost  # needed()
    moves: list[Any] = [ABANDON[r] for r in held] if can_abandon(state, force) else []
    if hand >= 1:
        final = has_final_attempt(state, ps)
        dragon = dragon_ready(state, ps)
        least = least_shortfall(state) + hand  # final_attempt_in_reach, the option read once
        valid, cost = targets(state, force, held, ps)
        for region, c in zip(valid, cost):
            if c <= hand:
                moves.append(CONQUER[region])
            if final and least <= c <= hand + 3:
                moves.append(FINAL_ATTEMPT[region])
            if dragon and dragon_markers_ok(state, region):
                moves.append(DRAGON_ATTACK[region])
        if berserk(ps):
            moves.append(BERSERK_ROLL)
    if force == SORCERERS and held and race_ability(state, force, SORCERERS):
        moves += [Convert(region) for region in conversion_candidates(state, held)
                  if conversion_error(state, region, held) is None]
    return moves, valid, cost


def priced_conquest_moves(state: SmallWorldState, seat: int) -> tuple[list[Any], dict[int, int]]:
    """legal_moves in the conquest phase, with the cost of each target (for the rollout policy)."""
    if state.over or seat != state.current_seat:  # acting_seat outside DEFEND
        return [], {}
    moves, valid, cost = priced_conquest_choices(state)
    moves.append(END_CONQUEST)
    return moves, dict(zip(valid, cost))
