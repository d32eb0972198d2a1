"""A greedy rule-based Eruption policy and a cheap position evaluation.

Reads only what `seat` may know: the public board and the seat's own hand
(it is called on determinized states, whose hidden parts are guesses anyway).
Idea: steer lava toward rival villages and away from one's own (ERU-77),
wall one's own flows (ERU-50), cool down with Rain (ERU-120).
`choose` is the greedy bot; `prior`/`rollout`, `rank` and `evaluate` guide the search.
"""
from __future__ import annotations

import math
import random
from functools import cache
from typing import Any, Final

from . import board as B
from . import derived
from .board import Cell, Position
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
from .scoring import outcome_keys
from .setup import deck_for
from .state import CARDS, ERUPTION, EXTRA_PLACEMENT, OVER, PLACEMENT, QUAKE, WALLS

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


def _pull(state, seat, cell):
    """Positive when lava at `cell` is nearer rival villages than our own."""
    return _pull_table(state.villages, seat)[cell]


@cache
def _pull_table(villages, seat):
    """`_pull` of every playable space: it depends only on the seating, and is hot."""
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
    for m in moves:
        space: Cell = m[1]
        i = ids[space]
        mask: int = masks[m[0]][m[2]]
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
    while earlier they are often lost to the clamp at 290 (ERU-7). Moves are told apart by kind
    (a move equals Rain when it is a PlayRain) and read by index (the card, or the two cards)."""
    kept: list[Any] = []
    ends_or_discards = False
    for m in moves:
        kind = type(m)
        if kind is PlayRain:
            continue
        if kind is DiscardForWall or kind is DiscardSurplus:
            if m[0] == "rain":
                continue
            ends_or_discards = True
        elif kind is DiscardForTile:
            if "rain" in m[0]:
                continue
        elif kind is EndCards:
            ends_or_discards = True
        kept.append(m)
    return kept if ends_or_discards else moves


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
    near = [m for m in builds if pull[m[1]] < -1 and (m[1], m[2]) not in entries]
    if near:
        return min(near, key=lambda m: (pull[m[1]], m[0] != "straw", rng.random()))
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
    own_flows = set(_own_flow_positions(state, seat))
    keyed = [(_step_priority(state, seat, m, own_flows), rng.random(), i) for i, m in enumerate(legal)]
    return [legal[i] for _, _, i in sorted(keyed)]


def _wall_priority(state, seat, m, own_flows):
    if (m.cell, m.edge) in own_flows:
        return _MATERIAL_RANK[m.material]
    if (m.cell, m.edge) in B.ENTRY_VILLAGE:
        return 10 + _MATERIAL_RANK[m.material]
    return 20 + _pull(state, seat, m.cell)


def _sinkhole_priority(state, seat, m, own_flows):
    return 7 if any(pos[0] == m.cell for pos in own_flows) else 30


# Lower first: guarding one's own flows, cooling, and walls (which also win tie-breaks, ERU-155)
# before riskier card plays; walls far from home last. Kinds not listed: 15.
_PRIORITY: Final = {
    BuildWall: _wall_priority,
    PlayReinforce: _wall_priority,
    PlayRain: lambda state, seat, m, own_flows: 0,
    DiscardForWall: lambda state, seat, m, own_flows: 3 + _MATERIAL_RANK[B.CARD_MATERIAL[m.card]],
    EndTurn: lambda state, seat, m, own_flows: 6,
    EndCards: lambda state, seat, m, own_flows: 6,
    PlaySinkhole: _sinkhole_priority,
}


def _step_priority(state, seat, m, own_flows):
    priority = _PRIORITY.get(type(m))
    return 15 if priority is None else priority(state, seat, m, own_flows)


# ERU-95: chance out of 36 that a wall holds a dice check, by `dice_tie_goes_to`
_HOLD: Final = {"wall": {"straw": 21, "wood": 26, "stone": 30}, "lava": {"straw": 15, "wood": 21, "stone": 26}}
_STRAW, _WOOD, _STONE = (B.TIEBREAK[m] for m in B.MATERIALS)
_MEAN_CARD_TIEBREAK: Final = 1.85  # mean tie-break value of a non-Rain card discarded for a wall (ERU-155)


def _threats(state: Any) -> dict[int, int]:
    """Village -> the empty spaces next to it that lava already reaches: flows one placement away (per board;
    a village with none is not a key)."""
    d = derived.of(state)
    threats = d.threats
    if threats is None:
        threats = {}
        villages_at = B.ENTRY_VILLAGES_BY_ID
        for spot in derived.spots(d):
            for v in villages_at[spot[5]]:
                threats[v] = threats.get(v, 0) + 1
        d.threats = threats
    return threats


Outlook = tuple[float, int, int]  # (expected heat, tie-break value, threats) of a seat's village


def _outlooks(state: Any) -> list[Outlook]:
    """Every seat's `_village_outlook` with its village's threats."""
    threats = _threats(state)
    villages: tuple[int, ...] = state.villages
    out: list[Outlook] = []
    for s in range(state.seats):
        heat, tiebreak = _village_outlook(state, s)
        out.append((heat, tiebreak, threats.get(villages[s], 0)))
    return out


Standing = tuple[float, float, int, float]


def _standing(state: Any, seat: int, outlook: Outlook, rain: float, cards: float) -> Standing:
    """A seat's temperature once its `rain` cards are played, expected damage, threats, and
    tie-break potential: the tie-break value plus what `cards` more walls would add
    (`outlook`: its `_outlooks` entry). Floats throughout: the same values as from the ints."""
    heat, tiebreak, threats = outlook
    temperature: int = state.temperatures[seat]
    return (max(temperature - 30 * rain, 0.0), heat, threats, tiebreak + cards)


def _village_outlook(state: Any, seat: int) -> tuple[float, int]:
    """(heat the seat's village expects at its next damage step from the current flows (ERU-50),
    its `scoring.tiebreak_value`), in one pass over its entry positions."""
    hold = _HOLD[state.options["dice_tie_goes_to"]]
    stock: list[int] = state.stockpiles[seat]
    tiebreak = _STRAW * stock[0] + _WOOD * stock[1] + _STONE * stock[2]
    heat = 0.0
    lava: dict[Cell, int] = state.lava
    walls: dict[Position, str] = state.walls
    for pos in B.ENTRIES[state.villages[seat]]:
        mat = walls.get(pos)
        if mat is not None:
            tiebreak += B.TIEBREAK[mat]
        mask = lava.get(pos[0])
        if mask is not None and mask >> pos[1] & 1:  # a flow (ERU-22)
            tiebreak -= 1
            heat += 20 if mat is None else 10 * (36 - hold[mat]) / 36
    return heat, tiebreak


def _hand_estimates(state: Any, seat: int) -> list[tuple[float, float]]:
    """(Rain cards, tie-break value of the others as walls) for every seat, as `seat` sees them:
    its own hand exactly, the others' hand sizes times the unseen cards' averages."""
    hands: list[list[str]] = state.hands
    own = hands[seat]
    discard: list[str] = state.discard
    unseen = _deck_size(state.options["exclude_rain_cards"]) - len(own) - len(discard)
    unseen_rain = (0 if state.options["exclude_rain_cards"] else B.CARD_COUNT["rain"]) \
        - own.count("rain") - discard.count("rain")
    p_rain = unseen_rain / unseen if unseen > 0 else 0.0
    out: list[tuple[float, float]] = []
    rain: float
    walls: float
    for s in range(state.seats):
        if s == seat:
            rain = float(own.count("rain"))
            walls = float(sum([B.TIEBREAK[B.CARD_MATERIAL[c]] for c in own if c != "rain"]))
        else:
            rain = p_rain * len(hands[s])
            walls = _MEAN_CARD_TIEBREAK * (len(hands[s]) - rain)
        out.append((rain, walls))
    return out


@cache
def _deck_size(exclude_rain_cards):
    return len(deck_for({"exclude_rain_cards": exclude_rain_cards}))


def _edge_logit(mine: Standing, other: Standing) -> float:
    """Log-odds that `mine` beats `other` (`_standing` tuples); weights fitted by logistic
    regression on 28k positions of greedy self-play (1500 games, 2 seats).
    Temperature gaps count more as the game heats up; when both villages near 290 the game
    ends in ties at 290 broken by walls (ERU-151, ERU-155), so tie-break potential takes over."""
    t, d, th, tb = mine
    to, do, tho, tbo = other
    hot = min(max((min(t, to) - 230) / 60, 0.0), 1.0)
    return (1.3 * (to - t) / 100 * max(t, to) / B.MAX_TEMP + 0.95 * (tb - tbo) / 5 * hot
            + 0.09 * (do - d) / 20 + 0.057 * (tho - th))


def evaluate(state, seat):
    """Estimated chance that `seat` wins (see `_edge_logit`); the outcome once the game is over."""
    if state.phase == OVER:
        ranks, winners = outcome_keys(state)
        return 1.0 / len(winners) if seat in winners else 0.0
    return _win_chance(state, seat, _outlooks(state))


def evaluate_all(state, seats):
    """`evaluate` of every seat, each village's outlook computed once."""
    if state.phase == OVER:
        return [evaluate(state, seat) for seat in range(seats)]
    outlooks = _outlooks(state)
    return [_win_chance(state, seat, outlooks) for seat in range(seats)]


def _win_chance(state: Any, seat: int, outlooks: list[Outlook]) -> float:
    hands = _hand_estimates(state, seat)
    rain, cards = hands[seat]
    mine = _standing(state, seat, outlooks[seat], rain, cards)
    p = 1.0
    others = 0
    for s in range(state.seats):
        if s != seat:
            rain, cards = hands[s]
            p *= 1.0 / (1.0 + math.exp(-_edge_logit(mine, _standing(state, s, outlooks[s], rain, cards))))
            others += 1
    return p ** (1.0 / others) if others > 1 else p
