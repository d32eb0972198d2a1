"""A greedy rule-based Eruption policy and a cheap position evaluation.

Reads only what `seat` may know: the public board and the seat's own hand
(it is called on determinized states, whose hidden parts are guesses anyway).
Idea: steer lava toward rival villages and away from one's own (ERU-77),
wall one's own flows (ERU-50), cool down with Rain (ERU-120).
`choose` is the greedy bot; `prior`/`rollout`, `rank` and `evaluate` (evaluation.py) guide the search.
"""
from __future__ import annotations

import random
from functools import cache
from typing import Any, Final

from . import board as B
from . import derived
from .board import Cell, Position
from .evaluation import evaluate, evaluate_all
from .generator import legal_moves
from .geometry import flow_mask
from .moves import (
    BuildWall,
    DiscardForTile,
    DiscardForWall,
    DiscardSurplus,
    DrawExtraTile,
    EndCards,
    EndTurn,
    PlayAftershock,
    PlayRain,
    PlayReinforce,
    PlaySinkhole,
    PlayVolcanicBomb,
)
from .state import CARDS, ERUPTION, EXTRA_PLACEMENT, PLACEMENT, QUAKE, WALLS

# moves are values
_RAIN: Final = PlayRain()
_END_TURN: Final = EndTurn()
_END_CARDS: Final = EndCards()
_DRAW_EXTRA: Final = DrawExtraTile()

CENTRE: Final = {v: (sum(c[0] for c in cells) / 3, sum(c[1] for c in cells) / 3)
          for v, cells in B.VILLAGE_CELLS.items()}


def _dist(cell, v):
    cx, cy = CENTRE[v]
    dx, dy = cell[0] - cx, cell[1] - cy
    return (abs(dx) + abs(dy) + abs(dx + dy)) / 2


@cache
def _pull_table(villages, seat):
    """Per playable space: positive when lava there is nearer rival villages than our own. It depends
    only on the seating, and is hot."""
    own_v = villages[seat]
    rival_vs = [v for s, v in enumerate(villages) if s != seat]
    return {c: _dist(c, own_v) - min(_dist(c, v) for v in rival_vs) for c in B.PLAYABLE}


def _lava_score(state: Any, seat: int, space: Cell, mask: int) -> float:
    """Value for `seat` of lava mask `mask` standing on `space`: what it flows into (a table per
    seating, since that part never depends on the board), then where it can spread."""
    static = _static_scores(state.villages, seat, state.options["cards_for_unoccupied_villages"])
    i = B.CELL_ID[space]
    known = static[i * 64 + mask]
    if known is None:
        known = static[i * 64 + mask] = _static_score(state, seat, space, mask)
    score: float = known
    pull = _pull_by_id(state.villages, seat)
    filled = derived.of(state).filled
    for n, _ in B.REACH_BY_ID[i][mask]:
        if not filled[n]:
            score += 0.4 * pull[n]
    return score


@cache
def _static_scores(villages: tuple[int, ...], seat: int, count_unoccupied: bool) -> list[float | None]:
    """Cell id * 64 + lava mask -> `_static_score` of that mask on that space, filled as asked."""
    return [None] * (B.CELL_COUNT * 64)


@cache
def _pull_by_id(villages: tuple[int, ...], seat: int) -> list[float]:
    """`_pull_table` by cell id."""
    table = _pull_table(villages, seat)
    return [table[c] for c in B.PLAYABLE]


def _static_score(state, seat, space, mask):
    score = 0.0
    own_v = state.villages[seat]
    occupied = set(state.villages)
    for v, vm in B.ENTRY_MASK_BY_VILLAGE[space].items():
        k = B.POPCOUNT[mask & vm]
        if v == own_v:
            score -= 8 * k
        elif v in occupied:
            score += 4 * k
    return score + B.POPCOUNT[mask & flow_mask(state, space)] * 0.5  # cards drawn


def _own_flow_positions(state: Any, seat: int) -> list[Position]:
    """`flows_into` the seat's village (ERU-22): its entry positions that carry a flow."""
    lava: dict[Cell, int] = state.lava
    out: list[Position] = []
    for position in B.ENTRIES[state.villages[seat]]:
        mask = lava.get(position[0])
        if mask is not None and mask >> position[1] & 1:
            out.append(position)
    return out


def _placement_values(state: Any, seat: int, moves: list[Any]) -> list[float]:
    """Greedy's value of each PlaceTile move: its lava's `_lava_score` (the tables looked up once), 0.5 more
    on a wall-award space (ERU-76)."""
    static = _static_scores(state.villages, seat, state.options["cards_for_unoccupied_villages"])
    pull = _pull_by_id(state.villages, seat)
    filled = derived.of(state).filled
    ids, reach, masks, award = B.CELL_ID, B.REACH_BY_ID, B.MASK_OF_TILE, B.AWARD_BY_ID
    out: list[float] = []
    for move in moves:
        m: tuple[Any, ...] = move  # (tile, space, rotation), read by index
        space: Cell = m[1]
        i = ids[space]
        tile: int = m[0]
        rotation: int = m[2]
        mask = masks[tile][rotation]
        known = static[i * 64 + mask]
        if known is None:
            known = static[i * 64 + mask] = _static_score(state, seat, space, mask)
        score: float = known
        for n, _ in reach[i][mask]:
            if not filled[n]:
                score += 0.4 * pull[n]
        out.append(score + (0.5 if award[i] else 0.0))
    return out


def _quake_value(state, seat, m):
    return (_lava_score(state, seat, m.cell, B.MASK_OF_TILE[m.tile][m.rotation])
            - _lava_score(state, seat, m.cell, state.lava[m.cell]))


def _eruption_value(state, seat, m):
    return _lava_score(state, seat, m.cell, 63)


def _each(value):
    return lambda state, seat, moves: [value(state, seat, m) for m in moves]


# Greedy's value of each of a step's tile moves, by phase (shared by `choose` and `rank`)
_TILE_VALUES: Final = {PLACEMENT: _placement_values, QUAKE: _each(_quake_value), ERUPTION: _each(_eruption_value)}


def choose(state: Any, seat: int, rng: random.Random) -> Any:
    moves = legal_moves(state, seat)
    if len(moves) == 1:
        return moves[0]
    phase: str = state.phase
    if phase == PLACEMENT:  # the first best, as max() picks it
        values = _placement_values(state, seat, moves)
    elif phase in _TILE_VALUES:
        values = _TILE_VALUES[phase](state, seat, moves)
    else:
        return _CHOOSE_IN[phase](state, seat, moves, rng)
    draw = rng.random
    keys = [value + draw() * 0.01 for value in values]
    return moves[keys.index(max(keys))]


def prior(state, seat, rng):
    """Greedy, but Rain is kept for one's last turn (ERU-151/152), when only the final ranking
    counts: then cool down with it, turn every other card into a wall for the tie-break
    (ERU-155) and keep the stockpile rather than spend it on open ends.
    As a bot alone it beats greedy 0.79 (1000 games, 2 seats)."""
    if _last_turn(state, seat):
        if state.phase == CARDS:
            moves = legal_moves(state, seat)
            if state.temperatures[seat] and _RAIN in moves:
                return _RAIN
            walls = _by_kind(moves).get(DiscardForWall)
            if walls:
                return _best_material_card(walls)
        elif state.phase == WALLS:
            return _END_TURN
    elif state.phase == CARDS and "rain" in state.hands[seat]:
        return _choose_card(state, seat, _keeping_rain(legal_moves(state, seat)), rng)
    return choose(state, seat, rng)


def _keeping_rain(moves: list[Any]) -> list[Any]:
    """Card moves that keep Rain for the last turn: its 30 degrees then decide ties at 290,
    while earlier they are often lost to the clamp at 290 (ERU-7). What each kind does with Rain
    is `_RAIN_USE`'s (moves read by index: the card, or the two cards)."""
    kept: list[Any] = []
    ends_or_discards = False
    for m in moves:
        use = _RAIN_USE.get(type(m), _KEEPS)
        if use == _IS_RAIN or (use == _ONE_CARD and m[0] == "rain") or (use == _TWO_CARDS and "rain" in m[0]):
            continue
        if use == _ONE_CARD or use == _ENDS:
            ends_or_discards = True
        kept.append(m)
    return kept if ends_or_discards else moves


# What a move of each kind does with a Rain card (`_keeping_rain`): plays it, may discard it (one card, or
# two), or ends the step; other kinds keep it. A discard of one card or the end keeps the step open to end.
_KEEPS: Final = 0
_IS_RAIN: Final = 1
_ONE_CARD: Final = 2
_TWO_CARDS: Final = 3
_ENDS: Final = 4
_RAIN_USE: Final[dict[type, int]] = {PlayRain: _IS_RAIN, DiscardForWall: _ONE_CARD, DiscardSurplus: _ONE_CARD,
                                     DiscardForTile: _TWO_CARDS, EndCards: _ENDS}


rollout = prior


def _last_turn(state, seat):
    """True during the seat's final turn: the end is triggered, or the seat sits at 290
    (it triggers burnout at the end of this turn unless Rain cools it first)."""
    return state.active == seat and (bool(state.end_trigger) or state.temperatures[seat] >= B.MAX_TEMP)


_MATERIAL_RANK: Final = {"stone": 0, "wood": 1, "straw": 2}  # best wall first (ERU-95)


def _best_material(moves):
    return sorted(moves, key=lambda m: _MATERIAL_RANK[m.material])


def _choose_wall(state: Any, seat: int, moves: list[Any], rng: random.Random) -> Any:
    builds: list[tuple[Any, ...]] = _by_kind(moves).get(BuildWall, [])  # (material, cell, edge)
    flows = _own_flow_positions(state, seat)
    if flows:
        guard: list[tuple[Any, ...]] = []
        for m in builds:
            for position in flows:
                if m[2] == position[1] and m[1] == position[0]:
                    guard.append(m)
                    break
        if guard:
            return _best_material(guard)[0]
    pull: dict[Cell, float] = _pull_table(state.villages, seat)
    entries = B.ENTRY_VILLAGE
    # The walls on spaces pulling lava towards us (not on entry positions); a position's moves (one per
    # material) and a space's positions come together, so each space and position is looked up once.
    near: list[tuple[Any, ...]] = []
    near_pull: list[float] = []
    cell: Any = None
    edge = -1
    here = 0.0
    entry = False
    for m in builds:
        if m[1] is not cell:
            cell, edge = m[1], -1
            here = pull[cell]
        if here < -1:
            if m[2] != edge:
                edge = m[2]
                entry = (cell, edge) in entries
            if not entry:
                near.append(m)
                near_pull.append(here)
    if near:
        # min(near, key=(pull, not straw, rng.random())): a draw for each, in order; the first least wins
        draw = rng.random
        best = near[0]
        best_pull, best_straw, best_draw = near_pull[0], best[0] != "straw", draw()
        for i in range(1, len(near)):
            m = near[i]
            p, not_straw, r = near_pull[i], m[0] != "straw", draw()
            if p < best_pull or (p == best_pull and (not_straw < best_straw or (
                    not_straw == best_straw and r < best_draw))):
                best, best_pull, best_straw, best_draw = m, p, not_straw, r
        return best
    return _END_TURN


def _by_kind(moves: list[Any]) -> dict[type, list[Any]]:
    """Move kind -> its moves, in order (the policy looks moves up by kind, never dispatches)."""
    by_kind: dict[type, list[Any]] = {}
    last: type | None = None
    run: list[Any] = []
    for m in moves:  # the generator lists each kind's moves together
        kind = type(m)
        if kind is not last:
            found = by_kind.get(kind)
            if found is None:
                found = by_kind[kind] = []
            run, last = found, kind
        run.append(m)
    return by_kind


def _choose_card(state, seat, moves, rng):
    by_kind = _by_kind(moves)
    if PlayRain in by_kind and state.temperatures[seat] >= 30:
        return by_kind[PlayRain][0]
    own_flows = set(_own_flow_positions(state, seat))
    if own_flows and PlayReinforce in by_kind:
        guard = [m for m in by_kind[PlayReinforce] if (m.cell, m.edge) in own_flows]
        if guard:
            return _best_material(guard)[0]
    if own_flows and PlaySinkhole in by_kind:
        bad = [m for m in by_kind[PlaySinkhole]
               if any(pos[0] == m.cell for pos in own_flows)]
        if bad:
            return bad[0]
    if PlayAftershock in by_kind:
        cur = {c: _lava_score(state, seat, c, state.lava[c]) for c in {m.cell: None for m in by_kind[PlayAftershock]}}
        best = max(by_kind[PlayAftershock],
                   key=lambda m: _lava_score(state, seat, m.cell, B.MASK_OF_TILE[state.board[m.cell][0]][m.rotation])
                   - cur[m.cell])
        gain = (_lava_score(state, seat, best.cell, B.MASK_OF_TILE[state.board[best.cell][0]][best.rotation])
                - cur[best.cell])
        if gain > 3:
            return best
    if PlayVolcanicBomb in by_kind:
        rivals = {state.villages[s] for s in range(state.seats) if s != seat}
        hits = [m for m in by_kind[PlayVolcanicBomb]
                if B.ENTRY_VILLAGE.get((m.cell, m.edge)) in rivals
                and state.lava.get(m.cell, 0) >> m.edge & 1]
        if hits:
            return hits[0]
    if len(state.hands[seat]) > B.HAND_LIMIT:
        walls = by_kind.get(DiscardForWall)
        if walls:
            return _best_material_card(walls)
        return by_kind[DiscardSurplus][0]
    return _END_CARDS


# Greedy's choice in the other steps, by phase
_CHOOSE_IN: Final = {
    EXTRA_PLACEMENT: lambda state, seat, moves, rng: _DRAW_EXTRA,
    WALLS: _choose_wall,
    CARDS: _choose_card,
}


def _best_material_card(moves):
    return min(moves, key=lambda m: _MATERIAL_RANK[B.CARD_MATERIAL[m.card]])


def rank(state, seat, legal, rng):
    """Search order for progressive widening, best first: tile moves by greedy's value,
    other moves by `_step_priority` (ties at random)."""
    values = _TILE_VALUES.get(state.phase)
    if values is not None:
        keys = [-value for value in values(state, seat, legal)]
        return [legal[i] for i in sorted(range(len(legal)), key=keys.__getitem__)]
    own_flows = _own_flow_positions(state, seat)
    pull: dict[Cell, float] = _pull_table(state.villages, seat)
    draw = rng.random
    keyed: list[tuple[float, float, int]] = []
    for i in range(len(legal)):  # each move's priority, then its random tie-break, in the order of the moves
        priority = _step_priority(legal[i], own_flows, pull)
        keyed.append((priority, draw(), i))
    keyed.sort()
    return [legal[i] for _, _, i in keyed]


def _step_priority(m: Any, own_flows: list[Position], pull: dict[Cell, float]) -> float:
    """Lower first: guarding one's own flows, cooling, and walls (which also win tie-breaks, ERU-155)
    before riskier card plays; walls far from home last. By `_PRIORITY` of the move's kind (15 if not
    listed); moves read by index (walls: material, cell, edge; the others: the card, or the cell)."""
    priority = _PRIORITY.get(type(m), 15)
    if priority == _WALL:
        cell, edge = m[1], m[2]
        for position in own_flows:
            if position[1] == edge and position[0] == cell:
                return _MATERIAL_RANK[m[0]]
        if (cell, edge) in B.ENTRY_VILLAGE:
            return 10 + _MATERIAL_RANK[m[0]]
        return 20 + pull[cell]
    if priority == _CARD_FOR_WALL:
        return 3 + _MATERIAL_RANK[B.CARD_MATERIAL[m[0]]]
    if priority == _SINKHOLE:
        for position in own_flows:
            if position[0] == m[0]:
                return 7
        return 30
    return priority


# The priority of each kind (`_step_priority`), or how to work it out: a wall by its position and
# material, a card for a wall by its material, a Sinkhole by the flows into the seat's village.
_WALL: Final = -1
_CARD_FOR_WALL: Final = -2
_SINKHOLE: Final = -3
_PRIORITY: Final[dict[type, int]] = {BuildWall: _WALL, PlayReinforce: _WALL, PlayRain: 0,
                                     DiscardForWall: _CARD_FOR_WALL, EndTurn: 6, EndCards: 6, PlaySinkhole: _SINKHOLE}


__all__ = ["choose", "evaluate", "evaluate_all", "prior", "rank", "rollout"]  # evaluate*: evaluation.py
