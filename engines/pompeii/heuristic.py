"""A greedy Pompeii policy that reads only what `seat` may know (safe on determinized states).

Phase 1: settle near the gates and where relatives follow; Omens hit the leader.
Lava: the square that kills most opponents and fewest of one's own.
Phase 2: leave when possible, otherwise step closest to an open gate.
"""
from __future__ import annotations

import math
import random
from collections import deque

from . import board as B
from .moves import DeclareEruption, MovePerson, OmenTarget, Pass, PlaceLava, PlaceRelative, PlayCard
from .rules import apply, building_people, layout, legal_moves, passable
from .state import OVER, SETTLE, PompeiiState


_DIST_CACHE: dict[tuple, list[int]] = {}


def gate_distance(state: PompeiiState) -> list[int]:
    """Steps to leave the city from each cell (gate square = 1); a large number when cut off.
    Depends on lava alone, so cached: rollouts ask for it at nearly every move (read only)."""
    key = (tuple(state.lava), state.options["vents_block_movement"])
    dist = _DIST_CACHE.get(key)
    if dist is None:
        if len(_DIST_CACHE) > 4096:
            _DIST_CACHE.clear()
        dist = _DIST_CACHE[key] = _gate_distance(state)
    return dist


def _gate_distance(state: PompeiiState) -> list[int]:
    far = 99
    dist = [far] * B.CELLS
    queue = deque()
    for g in B.GATES:
        if passable(state, g):
            dist[g] = 1
            queue.append(g)
    while queue:
        c = queue.popleft()
        for n in B.NEIGHBOURS[c]:
            if dist[n] == far and passable(state, n):
                dist[n] = dist[c] + 1
                queue.append(n)
    return dist


def _cell(square) -> int:
    return square[0] * B.COLS + square[1]


def _leader(state: PompeiiState, seat: int) -> int:
    others = [s for s in range(state.players) if s != seat]
    return max(others, key=lambda s: (state.saved[s] + state.on_board(s), -s))


def choose(state: PompeiiState, seat: int, rng: random.Random):
    moves = legal_moves(state, seat)
    if not moves:
        raise ValueError(f"seat {seat} has no legal action now")
    if len(moves) == 1:
        return moves[0]
    if state.phase == SETTLE:
        return _settle(state, seat, moves, rng)
    if isinstance(moves[0], PlaceLava):
        return _lava(state, seat, moves, rng)
    return _escape(state, seat, moves, rng)


def rollout(state: PompeiiState, seat: int, rng: random.Random):
    """`choose` for MCTS rollouts: the same, except that lava is scored by the people on its
    square alone (no trial placement, no cut-off search), which was a quarter of search time."""
    moves = legal_moves(state, seat)
    if len(moves) == 1:
        return moves[0]
    if state.phase == SETTLE:
        return _settle(state, seat, moves, rng)
    if isinstance(moves[0], PlaceLava):
        return _lava_cheap(state, seat, moves, rng)
    return _escape(state, seat, moves, rng)


def _lava_cheap(state, seat, moves, rng):
    p = state.players
    people = state.people

    def score(m) -> float:
        c = _cell(m.square)
        row = people[c * p:(c + 1) * p]
        own = row[seat]
        return sum(row) - own - 2.0 * own * (p - 1)

    return max(moves, key=lambda m: (score(m), rng.random()))


def _settle(state, seat, moves, rng):
    if DeclareEruption() in moves:
        mine = state.on_board(seat)
        if mine >= max(state.on_board(s) for s in range(state.players) if s != seat):
            return DeclareEruption()
        moves = [m for m in moves if m != DeclareEruption()] or moves
    dist = gate_distance(state)
    lay = layout(state)

    def score(m) -> float:
        if isinstance(m, PlayCard):
            if m.square is None:
                return -5.0
            c = _cell(m.square)
            relatives = building_people(state, lay.building_at[c]) if state.first_ad79 and m.origin is None else 0
            gain = 0.5 if m.origin is None else 0.5 * dist[_cell(m.origin)]  # moving a far person forward
            return 2.0 * relatives - dist[c] + gain
        if isinstance(m, PlaceRelative):
            return 10.0 - dist[_cell(m.square)]
        if isinstance(m, OmenTarget):
            lead = _leader(state, seat)
            return (5.0 if m.seat == lead else 0.0) - dist[_cell(m.square)]
        return -1.0  # StopRelatives, declining

    return max(moves, key=lambda m: (score(m), rng.random()))


def _lava(state, seat, moves, rng):
    def score(m) -> float:
        trial = state.clone()
        before = list(trial.volcano)
        apply(trial, seat, m)
        deaths = [a - b for a, b in zip(trial.volcano, before)]
        own = deaths[seat]
        return sum(deaths) - own - 2.0 * own * (state.players - 1)

    return max(moves, key=lambda m: (score(m), rng.random()))


def _escape(state, seat, moves, rng):
    dist = gate_distance(state)
    best, best_score = Pass(), 0.0
    for m in moves:
        if not isinstance(m, MovePerson):
            continue
        o = _cell(m.origin)
        if m.target is None:
            s = 100.0 - dist[o]  # POM-73: a saved person is safe for good
        else:
            s = dist[o] - dist[_cell(m.target)] + 0.1 * rng.random()
        if s > best_score:
            best, best_score = m, s
    return best


def evaluate(state: PompeiiState, seat: int) -> float:
    """Cheap winning chance from public information: saved people count fully, people on the
    board by how near they stand to an open gate (cut-off people are as good as dead), and
    people in the volcano break ties (POM-83)."""
    if state.phase == OVER:
        from .rules import outcome
        won = outcome(state).winners
        return 1.0 / len(won) if seat in won else 0.0
    dist = gate_distance(state)
    settle = state.phase == SETTLE
    p = state.players
    worth = [state.saved[s] - 0.05 * state.volcano[s] for s in range(p)]
    people = state.people
    for c in B.CITY:
        d = dist[c]
        w = (0.75 - 0.03 * d) if settle else (0.0 if d >= 99 else max(0.1, 0.95 - 0.08 * (d - 1)))
        for s in range(p):
            if people[c * p + s]:
                worth[s] += w * people[c * p + s]
    mine = worth[seat]
    best = max(worth[s] for s in range(p) if s != seat)
    return 1.0 / (1.0 + math.exp(-(mine - best) / 2.0))
