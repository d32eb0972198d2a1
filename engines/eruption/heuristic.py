"""A greedy rule-based Eruption policy and a cheap position evaluation.

Reads only what `seat` may know: the public board and the seat's own hand
(it is called on determinized states, whose hidden parts are guesses anyway).
Idea: steer lava toward rival villages and away from one's own (ERU-77),
wall one's own flows (ERU-50), cool down with Rain (ERU-120).
"""
from __future__ import annotations

import math

from . import board as B
from . import rules as R
from .moves import (
    BuildWall, DiscardForWall, DiscardSurplus, DrawExtraTile, EndCards, EndTurn, PlaceEruption,
    PlaceTile, PlayAftershock, PlayRain, PlayReinforce, PlaySinkhole, PlayVolcanicBomb, QuakeReplace,
)

CENTRE = {v: (sum(c[0] for c in cells) / 3, sum(c[1] for c in cells) / 3)
          for v, cells in B.VILLAGE_CELLS.items()}


def _dist(cell, v):
    cx, cy = CENTRE[v]
    dx, dy = cell[0] - cx, cell[1] - cy
    return (abs(dx) + abs(dy) + abs(dx + dy)) / 2


def _pull(st, seat, cell):
    """Positive when lava at `cell` is nearer rival villages than our own."""
    own = _dist(cell, st.villages[seat])
    rivals = min(_dist(cell, st.villages[s]) for s in range(st.n) if s != seat)
    return own - rivals


def _lava_score(st, seat, s, mask):
    """Value for `seat` of lava mask `mask` standing on space s."""
    score = 0.0
    own_v = st.villages[seat]
    occupied = set(st.villages)
    for v, vm in B.ENTRY_MASK_BY_VILLAGE[s].items():
        k = B.POPCOUNT[mask & vm]
        if v == own_v:
            score -= 8 * k
        elif v in occupied:
            score += 4 * k
    score += B.POPCOUNT[mask & R.flow_mask(st, s)] * 0.5  # cards drawn
    nb = B.NEIGHBOUR_SPACE[s]
    for e in B.EDGES_OF_MASK[mask]:
        n = nb[e]
        if n is not None and n not in st.board:
            score += 0.4 * _pull(st, seat, n)
    return score


def _own_flow_positions(st, seat):
    return R.flows_into(st, st.villages[seat])


def choose(st, seat, rng):
    moves = R.legal_moves(st, seat)
    if len(moves) == 1:
        return moves[0]
    ph = st.phase
    if ph == "placement":
        return max(moves, key=lambda m: (_lava_score(st, seat, m.cell, B.MASK_OF_TILE[m.tile][m.rotation])
                                         + (0.5 if m.cell in B.AWARD else 0) + rng.random() * 0.01))
    if ph == "quake":
        return max(moves, key=lambda m: (_lava_score(st, seat, m.cell, B.MASK_OF_TILE[m.tile][m.rotation])
                                         - _lava_score(st, seat, m.cell, st.lava[m.cell]) + rng.random() * 0.01))
    if ph == "eruption":
        return max(moves, key=lambda m: _lava_score(st, seat, m.cell, 63) + rng.random() * 0.01)
    if ph == "extra_placement":
        return DrawExtraTile()
    if ph == "walls":
        return _choose_wall(st, seat, moves, rng)
    return _choose_card(st, seat, moves, rng)


def _best_material(moves):
    order = {"stone": 0, "wood": 1, "straw": 2}
    return sorted(moves, key=lambda m: order[m.material])


def _choose_wall(st, seat, moves, rng):
    builds = [m for m in moves if type(m) is BuildWall]
    flows = set(_own_flow_positions(st, seat))
    guard = [m for m in builds if (m.cell, m.edge) in flows]
    if guard:
        return _best_material(guard)[0]
    near = [m for m in builds if (m.cell, m.edge) not in B.ENTRY_VILLAGE and _pull(st, seat, m.cell) < -1]
    if near:
        return min(near, key=lambda m: (_pull(st, seat, m.cell), m.material != "straw", rng.random()))
    return EndTurn()


def _choose_card(st, seat, moves, rng):
    by_kind = {}
    for m in moves:
        by_kind.setdefault(type(m), []).append(m)
    if PlayRain in by_kind and st.temps[seat] >= 30:
        return by_kind[PlayRain][0]
    own_flows = set(_own_flow_positions(st, seat))
    if PlayReinforce in by_kind:
        guard = [m for m in by_kind[PlayReinforce] if (m.cell, m.edge) in own_flows]
        if guard:
            return _best_material(guard)[0]
    if PlaySinkhole in by_kind:
        bad = [m for m in by_kind[PlaySinkhole]
               if any(pos[0] == m.cell for pos in own_flows)]
        if bad:
            return bad[0]
    if PlayAftershock in by_kind:
        cur = {c: _lava_score(st, seat, c, st.lava[c]) for c in st.board}
        best = max(by_kind[PlayAftershock],
                   key=lambda m: _lava_score(st, seat, m.cell, B.MASK_OF_TILE[st.board[m.cell][0]][m.rotation])
                   - cur[m.cell])
        gain = (_lava_score(st, seat, best.cell, B.MASK_OF_TILE[st.board[best.cell][0]][best.rotation])
                - cur[best.cell])
        if gain > 3:
            return best
    if PlayVolcanicBomb in by_kind:
        rivals = {st.villages[s] for s in range(st.n) if s != seat}
        hits = [m for m in by_kind[PlayVolcanicBomb]
                if B.ENTRY_VILLAGE.get((m.cell, m.edge)) in rivals
                and st.lava.get(m.cell, 0) >> m.edge & 1]
        if hits:
            return hits[0]
    if len(st.hands[seat]) > B.HAND_LIMIT:
        walls = by_kind.get(DiscardForWall)
        if walls:
            return _best_material_card(walls)
        return by_kind[DiscardSurplus][0]
    return EndCards()


def _best_material_card(moves):
    order = {"stone": 0, "wood": 1, "straw": 2}
    return min(moves, key=lambda m: order[B.CARD_MATERIAL[m.card]])


def evaluate(st, seat):
    """Estimated chance that `seat` wins, from temperatures and flows into villages."""
    if st.phase == "over":
        ranks, winners = R.outcome_keys(st)
        return 1.0 / len(winners) if seat in winners else 0.0
    def pressure(s):
        return st.temps[s] + 15 * len(R.flows_into(st, st.villages[s]))
    mine = pressure(seat)
    others = [pressure(s) for s in range(st.n) if s != seat]
    p = 1.0
    for o in others:
        p *= 1.0 / (1.0 + math.exp((mine - o) / 40.0))
    return p ** (1.0 / len(others)) if len(others) > 1 else p
