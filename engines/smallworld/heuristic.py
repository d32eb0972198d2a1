"""A greedy rule-based Small World policy; reads only what `seat` may know (coins of others are not used)."""
from __future__ import annotations

import math

from . import data as D
from engines.core import rank_by

from .conquest import conquest_cost
from .forces import is_wiped, kinds_of, powers, regions_of, tokens_of
from .legality import legal_moves
from .scoring import outcome_keys
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


def choose(state, seat, rng):
    st = state
    moves = legal_moves(st, seat)
    if len(moves) == 1:
        return moves[0]
    ph = st.phase
    if ph == "start":
        a = st.active[seat]
        regs = len(regions_of(st, a))
        spare = tokens_of(st, a) - regs
        if st.round < st.rounds and (spare <= 2 or is_wiped(st, seat)) and regs >= 3:
            return Decline()
        return Expand()
    if ph == "pick":
        def worth(m):
            race, power, coins = st.row[m.position]
            tokens = D.BANNER[race] + D.EXTRA[race] * 0.5 + D.BADGE[power]
            return tokens * 1.2 + coins - m.position + rng.random() * 0.5
        return max(moves, key=worth)
    if ph == "conquest":
        k = st.force
        best, score = None, -1e9
        for m in moves:
            t = type(m)
            if t is Conquer:
                c = conquest_cost(st, k, m.region)
                s = _region_value(st, k, m.region) * 3 - c + (2 if st.occ[m.region] not in (D.NO_RACE, D.LOST_TRIBE) else 0)
            elif t is Convert:
                s = 10
            elif t is DragonAttack:
                s = conquest_cost(st, k, m.region) - 2
            elif t is BerserkRoll:
                s = 1.5
            elif t is FinalAttempt:
                s = 0.5 - (conquest_cost(st, k, m.region) - st.hand[k])
            elif t is EndConquest:
                s = 0
            else:  # Abandon
                s = -5
            s += rng.random() * 0.1
            if s > score:
                best, score = m, s
        return best
    if ph in ("redeploy", "defend"):
        deploys = [m for m in moves if type(m) is Deploy]
        if deploys:
            n = max(m.count for m in deploys)
            k = st.force if ph == "redeploy" else None
            cands = [m for m in deploys if m.count == n]
            return max(cands, key=lambda m: (_exposure(st, k if k is not None else st.occ[m.region], m.region)
                                              if m.region >= 0 else -1) + rng.random() * 0.1)
        for t in (PlaceFortress, PlaceEncampment, SetAside):
            opts = [m for m in moves if type(m) is t]
            if opts:
                if t is SetAside:
                    return max(opts, key=lambda m: st.cnt[m.region])
                return max(opts, key=lambda m: _exposure(st, st.occ[m.region], m.region) + rng.random() * 0.1)
        return moves[0]
    if ph == "heroes":
        return max(moves, key=lambda m: sum(_exposure(st, st.occ[r], r) for r in m.regions) + rng.random() * 0.1)
    if ph == "ally":
        allies = [m for m in moves if type(m) is NameAlly]
        return rng.choice(allies) if allies else Pass()
    if ph == "stout":
        a = st.active[seat]
        return Decline() if tokens_of(st, a) - len(regions_of(st, a)) <= 2 and st.round < st.rounds else Pass()
    if ph == "purchase":
        if BuyGhost() in moves:
            return BuyGhost()
        buys = [m for m in moves if type(m) is BuyPower]
        return buys[0] if buys and st.round <= 2 else EndPurchases()
    if ph == "summon":
        return moves[0]
    return rng.choice(moves)


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
