"""A greedy rule-based Small World policy; reads only what `seat` may know (coins of others are not used)."""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from engines.core import rank_by

from . import data as D
from .conquest import costs, priced_conquest_moves
from .forces import board_of, is_wiped, kinds_of, powers, regions_of, tokens_of
from .legality import legal_moves
from .moves import (
    Abandon,
    BerserkRoll,
    BuyGhost,
    BuyPower,
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
    PlaceEncampment,
    PlaceFortress,
    SetAside,
)
from .scoring import outcome_keys
from .state import ALLY, CONQUEST, DEFEND, HEROES, PICK, PURCHASE, REDEPLOY, START, STOUT, SUMMON, SmallWorldState


def _region_value(state: SmallWorldState, k: int, r: int, ps: Sequence[int]) -> float:
    """Coins a region is worth to force k (with powers `ps`) per turn (1 + its terrain/symbol bonuses)."""
    b = board_of(state)
    v = 1.0
    terrain = b.terrain[r]
    if ((D.FOREST in ps and terrain == "forest") or (D.HILL in ps and terrain == "hill")
            or (D.SWAMP in ps and terrain == "swamp")):
        v += 1
    if D.MERCHANT in ps:
        v += 1
    if (k == D.HUMANS and terrain == "farmland") or (k == D.WIZARDS and "magic_source" in b.symbols[r]):
        v += 1
    if k == D.DWARVES and "mine" in b.symbols[r]:
        v += 1.5
    if state.occupant[r] != D.NO_RACE and (k == D.ORCS or D.PILLAGING in ps):
        v += 1
    return v


def _exposure(state: SmallWorldState, k: int, r: int) -> float:
    b = board_of(state)
    occupant: list[int] = state.occupant
    water = b.water
    return sum([1 for m in b.neighbours[r] if occupant[m] != k and not water[m]]) + (1 if b.edge[r] else 0) * 0.5


def by_kind(moves):
    """The moves grouped by kind, each group in the engine's order."""
    groups = {}
    for m in moves:
        groups.setdefault(type(m), []).append(m)
    return groups


def choose(state: SmallWorldState, seat: int, rng: random.Random) -> Any:
    if state.phase == CONQUEST:  # the targets priced once, for the moves and their scores
        moves, cost = priced_conquest_moves(state, seat)
        return moves[0] if len(moves) == 1 else choose_conquest(state, seat, moves, rng, cost.__getitem__)
    moves = legal_moves(state, seat)
    if len(moves) == 1:
        return moves[0]
    policy = POLICY.get(state.phase)
    return policy(state, seat, moves, rng) if policy else rng.choice(moves)


def choose_start(state, seat, moves, rng):
    """Decline a spread-out race with few spare tokens (not in the last round)."""
    a = state.active_race[seat]
    regs = len(regions_of(state, a))
    spare = tokens_of(state, a) - regs
    if state.round < state.rounds and (spare <= 2 or is_wiped(state, seat)) and regs >= 3:
        return Decline()
    return Expand()


def choose_pick(state, seat, moves, rng):
    def worth(m):
        race, power, coins = state.combo_row[m.position]
        tokens = D.BANNER[race] + D.EXTRA[race] * 0.5 + D.BADGE[power]
        return tokens * 1.2 + coins - m.position + rng.random() * 0.5
    return max(moves, key=worth)


CONQUEST_SCORE = {  # (state, force, move, cost of a region, the force's powers) -> what the move is worth now
    Conquer: lambda state, k, m, cost, ps: (_region_value(state, k, m.region, ps) * 3 - cost(m.region)
                                     + (2 if state.occupant[m.region] not in (D.NO_RACE, D.LOST_TRIBE) else 0)),
    Convert: lambda state, k, m, cost, ps: 10,
    DragonAttack: lambda state, k, m, cost, ps: cost(m.region) - 2,
    BerserkRoll: lambda state, k, m, cost, ps: 1.5,
    FinalAttempt: lambda state, k, m, cost, ps: 0.5 - (cost(m.region) - state.hand[k]),
    EndConquest: lambda state, k, m, cost, ps: 0,
    Abandon: lambda state, k, m, cost, ps: -5,
}


def choose_conquest(state: SmallWorldState, seat: int, moves: list[Any], rng: random.Random,
                    cost: Callable[[int], int] | None = None) -> Any:
    """The best-scoring move; `cost` prices the moves' target regions (priced here when not given)."""
    force = state.force
    ps = powers(state, force)
    if cost is None:
        regions = [m.region for m in moves if hasattr(m, "region")]
        cost = dict(zip(regions, costs(state, force, board_of(state), ps, regions))).__getitem__  # priced once
    best, score = None, -1e9
    for m in moves:
        s = CONQUEST_SCORE[type(m)](state, force, m, cost, ps) + rng.random() * 0.1
        if s > score:
            best, score = m, s
    return best


def choose_placement(state: SmallWorldState, seat: int, moves: list[Any], rng: random.Random) -> Any:
    """Redeployment and defenders: the most tokens on the most exposed region, then the pieces."""
    groups = by_kind(moves)
    deploys = groups.get(Deploy)
    if deploys:
        n = max(m.count for m in deploys)
        k = state.force if state.phase == REDEPLOY else None
        cands = [m for m in deploys if m.count == n]
        return max(cands, key=lambda m: (_exposure(state, k if k is not None else state.occupant[m.region], m.region)
                                          if m.region >= 0 else -1) + rng.random() * 0.1)
    if groups.get(PlaceFortress) or groups.get(PlaceEncampment):
        pieces = groups.get(PlaceFortress) or groups[PlaceEncampment]
        return max(pieces, key=lambda m: _exposure(state, state.occupant[m.region], m.region) + rng.random() * 0.1)
    if groups.get(SetAside):
        return max(groups[SetAside], key=lambda m: state.tokens[m.region])
    return moves[0]


def choose_heroes(state, seat, moves, rng):
    return max(moves, key=lambda m: sum(_exposure(state, state.occupant[r], r) for r in m.regions) + rng.random() * 0.1)


def choose_ally(state, seat, moves, rng):
    allies = by_kind(moves).get(NameAlly)
    return rng.choice(allies) if allies else Pass()


def choose_stout(state, seat, moves, rng):
    a = state.active_race[seat]
    return Decline() if tokens_of(state, a) - len(regions_of(state, a)) <= 2 and state.round < state.rounds else Pass()


def choose_purchase(state, seat, moves, rng):
    if BuyGhost() in moves:
        return BuyGhost()
    buys = by_kind(moves).get(BuyPower)
    return buys[0] if buys and state.round <= 2 else EndPurchases()


POLICY = {START: choose_start, PICK: choose_pick, CONQUEST: choose_conquest, REDEPLOY: choose_placement,
          DEFEND: choose_placement, HEROES: choose_heroes, ALLY: choose_ally, STOUT: choose_stout,
          PURCHASE: choose_purchase, SUMMON: lambda state, seat, moves, rng: moves[0]}


def evaluate(state, seat):
    """Cheap win-chance estimate in [0, 1]: coins plus projected income of the seat's regions.

    Other seats' coins are hidden (SW-121) unless public or the game is over; they are then taken
    equal to the seat's own, so only the public board decides the estimate.
    """
    if state.over:
        ranks = rank_by(outcome_keys(state))[0]
        return 1.0 if ranks[seat] == 1 else 0.0
    return _lead_chance(state, seat, [_income(state, s) for s in range(state.seats)])


def evaluate_all(state: SmallWorldState, seats: int) -> list[float]:
    """`evaluate` of every seat, each seat's income counted once."""
    if state.over:
        return [evaluate(state, seat) for seat in range(seats)]
    incomes = [_income(state, s) for s in range(state.seats)]
    return [_lead_chance(state, seat, incomes) for seat in range(seats)]


def _income(state: SmallWorldState, seat: int) -> int:
    """Coins the seat's regions bring each turn (the Necromancer's: its ghosts' regions, plus one)."""
    if seat == state.necromancer:
        return len(regions_of(state, D.GHOSTS)) + 1
    return sum(len(regions_of(state, k)) for k in kinds_of(state, seat))


def _lead_chance(state: SmallWorldState, seat: int, incomes: list[int]) -> float:
    left = state.rounds - state.round + 1
    coins_known = state.options["public_coins"]

    def projected(other):
        coins = state.coins[other] if (coins_known or other == seat) else state.coins[seat]
        return coins + incomes[other] * left * 0.8

    mine = projected(seat)
    best_other = max((projected(s) for s in range(state.seats) if s != seat), default=0)
    return 1.0 / (1.0 + math.exp(-(mine - best_other) / 10.0))
