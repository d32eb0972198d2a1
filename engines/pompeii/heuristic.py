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
from .effects import EFFECTS
from .geometry import lava_masks, passable
from .legality import legal_moves
from .moves import DeclareEruption, MovePerson, OmenTarget, Pass, PlaceLava, PlaceRelative, PlayCard
from .scoring import outcome
from .state import OVER, PLACE_LAVA, SETTLE, PompeiiState, layout

PASS, DECLARE = Pass(), DeclareEruption()

_DIST_CACHE: dict[tuple, list[int]] = {}


def gate_distance(state: PompeiiState) -> list[int]:
    """Steps to leave the city from each cell (gate square = 1); a large number when cut off.
    Depends on lava alone, so cached: rollouts ask for it at nearly every move (read only)."""
    key = (lava_masks(state)[0], state.options["vents_block_movement"])
    dist = _DIST_CACHE.get(key)
    if dist is None:
        if len(_DIST_CACHE) > 4096:
            _DIST_CACHE.clear()
        dist = _DIST_CACHE[key] = _gate_distance(state)
    return dist


def _gate_distance(state: PompeiiState) -> list[int]:
    far = 99
    dist = [far] * B.CELLS
    queue: deque[int] = deque()
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
    others = [s for s in range(state.seats) if s != seat]
    return max(others, key=lambda s: (state.saved[s] + state.on_board(s), -s))


def choose(state: PompeiiState, seat: int, rng: random.Random):
    return _policy(state, seat, rng, _lava)


def rollout(state: PompeiiState, seat: int, rng: random.Random):
    """`choose` for MCTS rollouts: the same, except that lava is scored by the people on its
    square alone (no trial placement, no cut-off search), which was a quarter of search time."""
    return _policy(state, seat, rng, _lava_cheap)


def _policy(state: PompeiiState, seat: int, rng: random.Random, lava):
    moves = legal_moves(state, seat)
    if not moves:
        raise ValueError(f"seat {seat} has no legal action now")
    if len(moves) == 1:
        return moves[0]
    if state.phase == SETTLE:
        return _settle(state, seat, moves, rng)
    if state.step == PLACE_LAVA:
        return lava(state, seat, moves, rng)
    return _escape(state, seat, moves, rng)


def _best(moves: list, scores: list[float], rng: random.Random):
    """The first move of highest (score, rng.random()), one draw per move in order: what
    max(moves, key=lambda m: (score(m), rng.random())) picks, without a call per move."""
    draw = rng.random
    keys = [(s, draw()) for s in scores]
    return moves[keys.index(max(keys))]


def _lava_cheap(state, seat, moves, rng):
    p = state.seats
    people = state.people
    crowd = people.crowd
    scores = []
    for m in moves:
        c = _cell(m.square)
        own = people[c * p + seat]
        scores.append(crowd[c] - own - 2.0 * own * (p - 1))
    return _best(moves, scores, rng)


def _settle(state, seat, moves, rng):
    if moves[-1] == DECLARE:  # legal_moves lists it last, if at all
        if _wants_eruption(state, seat):
            return DECLARE
        moves = moves[:-1]
    return _best(moves, _settle_scores(state, seat, moves), rng)


def _wants_eruption(state, seat) -> bool:
    """Declare while not behind on the board: the people placed so far are what can be saved."""
    return state.on_board(seat) >= max(state.on_board(s) for s in range(state.seats) if s != seat)


def _settle_scores(state, seat, moves: list, declare: float = -1.0) -> list[float]:
    """Phase-1 score of each move (higher is better): near the gates, with many relatives; declaring
    the eruption scores `declare`, giving up relatives -1. Moves of one kind come in runs (as
    legal_moves lists them), each scored by its kind's scorer in one pass."""
    dist = gate_distance(state)
    out: list[float] = []
    start, n = 0, len(moves)
    while start < n:
        kind = type(moves[start])
        end = start + 1
        while end < n and type(moves[end]) is kind:
            end += 1
        out += _SETTLE_SCORES.get(kind, _declining)(state, seat, dist, moves[start:end], declare)
        start = end
    return out


def _card_scores(state, seat, dist, cards: list, declare: float) -> list[float]:
    """Near an open gate, plus the relatives the building earns (POM-32); no square: -5."""
    lay = layout(state)
    building_at, buildings, crowd = lay.building_at, lay.buildings, state.people.crowd
    first_ad79 = state.first_ad79
    cols = B.COLS
    out = []
    for m in cards:
        square, origin = m.square, m.origin
        if square is None:
            out.append(-5.0)
            continue
        c = square[0] * cols + square[1]
        relatives = 0  # building_people(state, building_at[c])
        if first_ad79 and origin is None:
            for x in buildings[building_at[c]].squares:
                relatives += crowd[x]
        gain = 0.5 if origin is None else 0.5 * dist[_cell(origin)]  # moving a far person forward
        out.append(2.0 * relatives - dist[c] + gain)
    return out


def _relative_scores(state, seat, dist, relatives: list, declare: float) -> list[float]:
    return [10.0 - dist[_cell(m.square)] for m in relatives]


def _omen_scores(state, seat, dist, omens: list, declare: float) -> list[float]:
    """The leader's people first, then those nearest a gate."""
    leader = _leader(state, seat)
    return [(5.0 if m.seat == leader else 0.0) - dist[_cell(m.square)] for m in omens]


def _declaring(state, seat, dist, moves: list, declare: float) -> list[float]:
    return [declare] * len(moves)


def _declining(state, seat, dist, moves: list, declare: float) -> list[float]:
    return [-1.0] * len(moves)  # StopRelatives


_SETTLE_SCORES = {PlayCard: _card_scores, PlaceRelative: _relative_scores, OmenTarget: _omen_scores,
                  DeclareEruption: _declaring}


def _lava(state, seat, moves, rng):
    return _best(moves, _lava_scores(state, seat, moves), rng)


def _lava_scores(state, seat, moves: list) -> list[float]:
    """Score of each tile square by trial placement: the opponents it kills (cut-offs included),
    less its owner's own dead, counted heavily."""
    def score(m) -> float:
        trial = state.clone()
        before = list(trial.volcano)
        EFFECTS[PlaceLava](trial, seat, m, [])  # a legal move: no check needed
        deaths = [a - b for a, b in zip(trial.volcano, before)]
        own = deaths[seat]
        return sum(deaths) - own - 2.0 * own * (state.seats - 1)

    return [score(m) for m in moves]


def _escape(state, seat, moves, rng):
    dist = gate_distance(state)
    passing = moves[-1] == PASS  # legal_moves lists a pass last, if at all (POM-75)
    best, best_score = (PASS, 0.0) if passing else (None, float("-inf"))
    for m in moves[:-1] if passing else moves:
        s = _step_gain(m, dist)
        if m.target is not None:
            s += 0.1 * rng.random()
        if s > best_score:
            best, best_score = m, s
    return best


def _escape_gain(m, dist) -> float:
    """Phase-2 score of a move: leaving first (POM-73: a saved person is safe for good), then
    the steps it gains toward an open gate; 0 for a pass."""
    return 0.0 if m == PASS else _step_gain(m, dist)


def _step_gain(m: MovePerson, dist) -> float:
    origin, target = m
    o = origin[0] * B.COLS + origin[1]
    if target is None:
        return 100.0 - dist[o]
    return dist[o] - dist[target[0] * B.COLS + target[1]]


def rank(state: PompeiiState, seat: int, legal: list, rng: random.Random) -> list:
    """MCTS widening order, best first, by greedy's own scores: without it the search widens to
    random moves, and most of up to ~200 escape moves are pointless."""
    if state.phase == SETTLE:
        scores = _settle_scores(state, seat, legal, 50.0 if _wants_eruption(state, seat) else -50.0)
    elif state.step == PLACE_LAVA:
        scores = _lava_scores(state, seat, legal)
    else:
        dist = gate_distance(state)
        scores = [_escape_gain(m, dist) for m in legal]
    draw = rng.random
    keys = [(-s, draw()) for s in scores]  # as sorted(legal, key=lambda m: (-score(m), rng.random()))
    return [legal[i] for i in sorted(range(len(legal)), key=keys.__getitem__)]


def evaluate(state: PompeiiState, seat: int) -> float:
    """Winning chance from public information: a sigmoid of the lead in people saved, counting
    people on the board by their chance to get out, and the volcano as POM-83's tiebreak.
    Fitted to greedy self-play outcomes (Brier 0.161 -> 0.134 in phase 2, 0.234 -> 0.222 after
    the first AD79)."""
    if state.phase == OVER:
        won = outcome(state).winners
        return 1.0 / len(won) if seat in won else 0.0
    return _lead_chance(state, seat, *_worth(state))


def evaluate_all(state: PompeiiState, seats: int) -> list[float]:
    """`evaluate` of every seat, the position's worths computed once."""
    if state.phase == OVER:
        return [evaluate(state, seat) for seat in range(seats)]
    worth, scale = _worth(state)
    return [_lead_chance(state, seat, worth, scale) for seat in range(seats)]


def _worth(state: PompeiiState) -> tuple[list[float], float]:
    if state.phase == SETTLE:
        return _settle_worth(state), 3.0
    return _escape_worth(state), 1.2


def _lead_chance(state: PompeiiState, seat: int, worth: list[float], scale: float) -> float:
    mine = worth[seat]
    best = max(worth[s] for s in range(state.seats) if s != seat)
    return 1.0 / (1.0 + math.exp(-(mine - best) / scale))


def _settle_worth(state: PompeiiState) -> list[float]:
    """Phase 1: each person counts by how near an open gate it stands."""
    dist = gate_distance(state)
    p = state.seats
    worth = [state.saved[s] - 0.05 * state.volcano[s] for s in range(p)]
    people = state.people
    for s in range(p):
        for c in B.cells_of(people.where[s]):
            worth[s] += (0.75 - 0.1 * dist[c]) * people[c * p + s]
    return worth


def _escape_worth(state: PompeiiState) -> list[float]:
    """Phase 2 is a race for moves: a seat has about as many moves left as tiles in the bag
    (half the turns, two moves each). People are counted cheapest first while that budget
    lasts, by the moves they need; those beside lava may be covered next."""
    dist = gate_distance(state)
    threat = _lava_front(state)
    p = state.seats
    people = state.people
    anyone = 0
    for cells in people.where:
        anyone |= cells
    needs: list[list[tuple[int, float]]] = [[] for _ in range(p)]
    for c in B.cells_of(anyone):
        row = people[c * p:(c + 1) * p]
        n = people.crowd[c]
        if dist[c] < 99:
            need = _moves_needed(dist[c], n)
            risk = 0.2 if threat[c] else 0.0
            for s in range(p):
                needs[s].extend([(need, risk)] * row[s])
    budget = sum(state.bag)
    worth = []
    for s in range(p):
        expected, used = 0.0, 0
        for need, risk in sorted(needs[s]):
            if used + need <= budget:
                used += need
                expected += max(0.3, 0.97 - 0.3 * (need - 1) - risk)
            else:
                expected += 0.1
        dead = state.volcano[s] + state.on_board(s) - expected
        worth.append(state.saved[s] + expected - 0.1 * dead)
    return worth


def _moves_needed(dist: int, crowd: int) -> int:
    """Moves to leave from a square `dist` steps from leaving (POM-73) holding `crowd` people:
    one if the allowance reaches, then about two steps a move."""
    return 1 if dist <= crowd else 1 + (dist - crowd + 1) // 2


def _lava_front(state: PompeiiState) -> list[bool]:
    """Uncovered squares beside a tile: where the next tiles may go."""
    front = [False] * B.CELLS
    lava = state.lava
    for c, _ in state.lava_order:
        for n in B.NEIGHBOURS[c]:
            if not lava[n]:
                front[n] = True
    return front
