"""A greedy rule-based Small World policy; reads only what `seat` may know (coins of others are not used)."""
from __future__ import annotations

import math

from engines.core import rank_by

from . import data as D
from .conquest import conquest_cost
from .forces import is_wiped, kinds_of, powers, regions_of, tokens_of
from .legality import legal_moves
from .scoring import outcome_keys
from .state import ALLY, CONQUEST, DEFEND, HEROES, PICK, PURCHASE, REDEPLOY, START, STOUT, SUMMON
from .moves import (Abandon, BerserkRoll, BuyGhost, BuyPower, Conquer, Convert, Decline, Deploy, DragonAttack,
                    EndConquest, EndPurchases, Expand, FinalAttempt, NameAlly, Pass, PickCombo, PlaceEncampment,
                    PlaceFortress, PlaceHeroes, SetAside)


def _region_value(st, k, r):
    """Coins a region is worth to force k per turn (1 + its terrain/symbol bonuses)."""
    b = st.board
    v = 1.0
    ps = powers(st, k)
    t = b.terrain[r]
    if (D.FOREST in ps and t == "forest") or (D.HILL in ps and t == "hill") or (D.SWAMP in ps and t == "swamp"):
        v += 1
    if D.MERCHANT in ps:
        v += 1
    if (k == D.HUMANS and t == "farmland") or (k == D.WIZARDS and "magic_source" in b.symbols[r]):
        v += 1
    if k == D.DWARVES and "mine" in b.symbols[r]:
        v += 1.5
    if st.occ[r] != D.NO_RACE and (k == D.ORCS or D.PILLAGING in ps):
        v += 1
    return v


def _exposure(st, k, r):
    b = st.board
    return sum(1 for m in b.adj[r] if st.occ[m] != k and not b.water[m]) + (1 if b.edge[r] else 0) * 0.5


def by_kind(moves):
    """The moves grouped by kind, each group in the engine's order."""
    groups = {}
    for m in moves:
        groups.setdefault(type(m), []).append(m)
    return groups


def choose(state, seat, rng):
    moves = legal_moves(state, seat)
    if len(moves) == 1:
        return moves[0]
    policy = POLICY.get(state.phase)
    return policy(state, seat, moves, rng) if policy else rng.choice(moves)


def choose_start(st, seat, moves, rng):
    """Decline a spread-out race with few spare tokens (not in the last round)."""
    a = st.active[seat]
    regs = len(regions_of(st, a))
    spare = tokens_of(st, a) - regs
    if st.round < st.rounds and (spare <= 2 or is_wiped(st, seat)) and regs >= 3:
        return Decline()
    return Expand()


def choose_pick(st, seat, moves, rng):
    def worth(m):
        race, power, coins = st.row[m.position]
        tokens = D.BANNER[race] + D.EXTRA[race] * 0.5 + D.BADGE[power]
        return tokens * 1.2 + coins - m.position + rng.random() * 0.5
    return max(moves, key=worth)


CONQUEST_SCORE = {  # (state, force, move) -> how much the move is worth now
    Conquer: lambda st, k, m: (_region_value(st, k, m.region) * 3 - conquest_cost(st, k, m.region)
                               + (2 if st.occ[m.region] not in (D.NO_RACE, D.LOST_TRIBE) else 0)),
    Convert: lambda st, k, m: 10,
    DragonAttack: lambda st, k, m: conquest_cost(st, k, m.region) - 2,
    BerserkRoll: lambda st, k, m: 1.5,
    FinalAttempt: lambda st, k, m: 0.5 - (conquest_cost(st, k, m.region) - st.hand[k]),
    EndConquest: lambda st, k, m: 0,
    Abandon: lambda st, k, m: -5,
}


def choose_conquest(st, seat, moves, rng):
    k = st.force
    best, score = None, -1e9
    for m in moves:
        s = CONQUEST_SCORE[type(m)](st, k, m) + rng.random() * 0.1
        if s > score:
            best, score = m, s
    return best


def choose_placement(st, seat, moves, rng):
    """Redeployment and defenders: the most tokens on the most exposed region, then the pieces."""
    groups = by_kind(moves)
    deploys = groups.get(Deploy)
    if deploys:
        n = max(m.count for m in deploys)
        k = st.force if st.phase == REDEPLOY else None
        cands = [m for m in deploys if m.count == n]
        return max(cands, key=lambda m: (_exposure(st, k if k is not None else st.occ[m.region], m.region)
                                          if m.region >= 0 else -1) + rng.random() * 0.1)
    if groups.get(PlaceFortress) or groups.get(PlaceEncampment):
        pieces = groups.get(PlaceFortress) or groups[PlaceEncampment]
        return max(pieces, key=lambda m: _exposure(st, st.occ[m.region], m.region) + rng.random() * 0.1)
    if groups.get(SetAside):
        return max(groups[SetAside], key=lambda m: st.cnt[m.region])
    return moves[0]


def choose_heroes(st, seat, moves, rng):
    return max(moves, key=lambda m: sum(_exposure(st, st.occ[r], r) for r in m.regions) + rng.random() * 0.1)


def choose_ally(st, seat, moves, rng):
    allies = by_kind(moves).get(NameAlly)
    return rng.choice(allies) if allies else Pass()


def choose_stout(st, seat, moves, rng):
    a = st.active[seat]
    return Decline() if tokens_of(st, a) - len(regions_of(st, a)) <= 2 and st.round < st.rounds else Pass()


def choose_purchase(st, seat, moves, rng):
    if BuyGhost() in moves:
        return BuyGhost()
    buys = by_kind(moves).get(BuyPower)
    return buys[0] if buys and st.round <= 2 else EndPurchases()


POLICY = {START: choose_start, PICK: choose_pick, CONQUEST: choose_conquest, REDEPLOY: choose_placement,
          DEFEND: choose_placement, HEROES: choose_heroes, ALLY: choose_ally, STOUT: choose_stout,
          PURCHASE: choose_purchase, SUMMON: lambda st, seat, moves, rng: moves[0]}


def evaluate(state, seat):
    """Cheap win-chance estimate in [0, 1]: coins plus projected income of the seat's regions.

    Other seats' coins are hidden (SW-121) unless public or the game is over; they are then taken
    equal to the seat's own, so only the public board decides the estimate.
    """
    st = state
    if st.over:
        ranks = rank_by(outcome_keys(st))[0]
        return 1.0 if ranks[seat] == 1 else 0.0
    left = st.rounds - st.round + 1
    coins_known = st.options["public_coins"]

    def projected(s):
        if s == st.necro:
            income = len(regions_of(st, D.GHOSTS)) + 1
        else:
            income = sum(len(regions_of(st, k)) for k in kinds_of(st, s))
        coins = st.coins[s] if (coins_known or s == seat) else st.coins[seat]
        return coins + income * left * 0.8

    mine = projected(seat)
    best_other = max((projected(s) for s in range(st.nseats) if s != seat), default=0)
    return 1.0 / (1.0 + math.exp(-(mine - best_other) / 10.0))
