"""The move generator: every legal move of a seat, in a stable order, built from the predicates
of legality.py (the same ones the checks use)."""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Final

from . import board as B
from . import derived
from .board import Position
from .geometry import board_card_tiles
from .legality import (
    aftershock_rotations,
    board_placements,
    eruption_spaces,
    lava_flow_has_effect,
    may_build_more,
    pending_eruption,
    quake_has_effect,
    quake_replacements,
    sinkhole_targets,
    tile_pairs,
)
from .moves import (
    BuildWall,
    DiscardForTile,
    DiscardForWall,
    DiscardSurplus,
    DrawExtraTile,
    EndCards,
    EndPlacement,
    EndTurn,
    PlaceEruption,
    PlayAftershock,
    PlayLavaFlow,
    PlayQuake,
    PlayRain,
    PlayReinforce,
    PlayRelocate,
    PlaySinkhole,
    PlayVolcanicBomb,
    QuakeReplace,
)
from .relocation import SORTED_ENTRIES, relocation_key, relocations_of
from .state import CARDS, ERUPTION, EXTRA_PLACEMENT, OVER, PLACEMENT, QUAKE, WALLS

_new: Final = tuple.__new__  # a move built without its NamedTuple's Python-level __new__: the same value, sooner


def _wall_moves(state: Any, seat: int, kind: type) -> list[Any]:
    """A wall of each stockpile material on each free position, in `wall_positions`' order."""
    stock: list[int] = state.stockpiles[seat]
    has = (stock[0] > 0) | (stock[1] > 0) << 1 | (stock[2] > 0) << 2
    if not has:
        return []
    at = _WALLS_AT[kind][has]
    by_spot = _walls_by_spot(kind, has)
    walls: dict[Position, str] = state.walls
    spots = derived.spots(derived.of(state))
    entries = B.ENTRY_POSITION_IDS[state.villages[seat]]
    out: list[Any] = []
    if not walls:
        for spot in spots:
            out.extend(_spot_walls(by_spot, at, spot))
        for p in entries:
            out.extend(at[p])
        return out
    ids = B.POSITION_ID
    taken: set[int] = set()
    taken_spaces: set[int] = set()
    for position in walls:
        wall = ids.get(position)
        if wall is not None:
            taken.add(wall)
            taken_spaces.add(wall // 6)
    for spot in spots:
        if spot[5] in taken_spaces:
            for p in spot[6]:
                if p not in taken:
                    out.extend(at[p])
        else:
            out.extend(_spot_walls(by_spot, at, spot))
    for p in entries:
        if p not in taken:
            out.extend(at[p])
    return out


def _spot_walls(by_spot: list[tuple[Any, ...] | None], at: list[tuple[Any, ...]],
                spot: derived.Spot) -> tuple[Any, ...]:
    """The moves of `at` on every wall position of an open end, in order (kept by space and lava mask)."""
    key = spot[5] * 64 + spot[1]
    moves = by_spot[key]
    if moves is None:
        moves = by_spot[key] = tuple([move for p in spot[6] for move in at[p]])
    return moves


def _walls_by_spot(kind: type, has: int) -> list[tuple[Any, ...] | None]:
    """Space id * 64 + lava mask -> `_spot_walls` of that open end, for `kind` and the materials `has`."""
    tables = _WALLS_BY_SPOT[kind]
    table = tables[has]
    if table is None:
        table = tables[has] = [None] * (B.CELL_COUNT * 64)
    return table


def _walls_at(kind: type) -> list[list[tuple[Any, ...]]]:
    """By the materials (bit i: a wall of MATERIALS[i]): position id (board.POSITION_ID) -> the `kind`
    moves building a wall of each of them there, in their order."""
    one: list[list[Any]] = [[_new(kind, (m, *p)) for p in B.POSITION_ID] for m in B.MATERIALS]
    return [[tuple(one[i][p] for i in range(3) if has >> i & 1) for p in range(len(B.POSITION_ID))]
            for has in range(8)]


_WALLS_AT: Final[dict[type, list[list[tuple[Any, ...]]]]] = {
    kind: _walls_at(kind) for kind in (BuildWall, PlayReinforce)}  # wall move kind -> `_walls_at`
# wall move kind -> by the materials: `_walls_by_spot`, made when first asked
_WALLS_BY_SPOT: Final[dict[type, list[list[tuple[Any, ...] | None] | None]]] = {
    kind: [None] * 8 for kind in (BuildWall, PlayReinforce)}


def _relocate_moves(state, seat):
    """The seat's Relocate plays: the cached tuple (`cards_moves` copies it into its list)."""
    key = relocation_key(state, seat)
    return () if key is None else _relocate_plays(state.villages[seat], key[1])


@lru_cache(maxsize=4096)
def _relocate_plays(village, start):
    return tuple([_new(PlayRelocate, (steps,)) for steps in relocations_of(SORTED_ENTRIES[village], start)])


# moves are values: one each
_DRAW_EXTRA: Final = DrawExtraTile()
_END_PLACEMENT: Final = EndPlacement()
_END_TURN: Final = EndTurn()


def placement_moves(state, seat):
    tile = state.drawn_tile
    if state.excluded:
        excluded = state.excluded
        return [m for m in board_placements(state, tile) if m[1] not in excluded]
    return list(board_placements(state, tile))


def eruption_moves(state: Any, seat: int) -> list[Any]:
    number = pending_eruption(state) + 1
    made = _PLACE_ERUPTION.get(number)
    if made is None:
        made = _PLACE_ERUPTION[number] = {}
    out: list[Any] = []
    for space in eruption_spaces(state):
        move = made.get(space)
        if move is None:
            move = made[space] = _new(PlaceEruption, (number, space))
        out.append(move)
    return out


# eruption tile number -> space -> its PlaceEruption move, made when first listed (moves are values)
_PLACE_ERUPTION: Final[dict[int, dict[Any, Any]]] = {}


def extra_placement_moves(state, seat):
    return [_DRAW_EXTRA, _END_PLACEMENT]


def quake_moves(state: Any, seat: int) -> list[Any]:
    tile: int = state.quake_tile
    return [_new(QuakeReplace, (tile, cell, r)) for cell, r in quake_replacements(state, tile)]


def walls_moves(state, seat):
    if may_build_more(state, seat):
        out = _wall_moves(state, seat, BuildWall)
        out.insert(0, _END_TURN)
        return out
    return [_END_TURN]


def _board_moves(state, key, make):
    """A move list of this board made once by `make(state)` (cached per board under `key`)."""
    moves = derived.of(state).moves
    out = moves.get(key)
    if out is None:
        out = moves[key] = make(state)
    return out


def _aftershocks(state):
    """ERU-119 `aftershock_turns` as PlayAftershock moves, the board's cached list (not to be changed); each
    tile's moves are kept while its neighbourhood is unchanged (`derived.Derived.turns`)."""
    d = derived.of(state)
    flag = state.options["cards_act_on_eruption_tiles"]
    moves = d.aftershock.get(flag)
    if moves is None:
        by_cell = d.turns
        moves = d.aftershock[flag] = []
        for cell in board_card_tiles(state):
            turns = by_cell.get(cell)
            if turns is None:
                turns = by_cell[cell] = [_new(PlayAftershock, (cell, r)) for r in aftershock_rotations(state, cell)]
            moves += turns
    return moves


def _sinkholes(state):
    return [_new(PlaySinkhole, (cell,)) for cell in sinkhole_targets(state)]


_LAVA_FLOW: Final = [PlayLavaFlow()]
_RAIN: Final = [PlayRain()]
_QUAKE: Final = [PlayQuake()]

# Plays of each card kind (ERU-115: only those with an effect), in the order the hand's kinds sort.
CARD_PLAYS: Final = {
    "lava_flow": lambda state, seat: _LAVA_FLOW if lava_flow_has_effect(state) else [],
    "reinforce": lambda state, seat: _wall_moves(state, seat, PlayReinforce),
    "relocate": lambda state, seat: _relocate_moves(state, seat),
    "aftershock": lambda state, seat: _aftershocks(state),
    "rain": lambda state, seat: _RAIN,
    "sinkhole": lambda state, seat: _board_moves(
        state, (PlaySinkhole, state.options["cards_act_on_eruption_tiles"]), _sinkholes),
    "volcanic_bomb": lambda state, seat: [_new(PlayVolcanicBomb, position) for position in sorted(state.walls)],
    "quake": lambda state, seat: _QUAKE if quake_has_effect(state) else [],
}


def cards_moves(state, seat):
    """ERU-113/114: end the step or discard surplus, discards for a wall or a tile, then plays."""
    hand = state.hands[seat]
    supply = state.supply
    walls = (True, True, True) if state.options["unlimited_walls"] else (supply[0] > 0, supply[1] > 0, supply[2] > 0)
    out = list(_hand_moves(tuple(hand), walls, bool(state.stack)))
    for k in _kinds(tuple(hand)):
        out += CARD_PLAYS[k](state, seat)
    return out


@lru_cache(maxsize=4096)
def _kinds(hand):
    return tuple(sorted(set(hand)))


@lru_cache(maxsize=4096)
def _hand_moves(hand, walls, stack):
    """The moves of `cards_moves` that depend only on the hand, which supplies have walls and
    whether the stack has a tile: EndCards or the surplus discards, then the discards for walls and a tile."""
    kinds = _kinds(hand)
    out = [DiscardSurplus(k) for k in kinds] if len(hand) > B.HAND_LIMIT else [EndCards()]
    out += [DiscardForWall(k) for k in kinds if walls[B.MATERIAL_INDEX[B.CARD_MATERIAL[k]]]]
    if stack:
        out += [DiscardForTile(pair) for pair in tile_pairs(list(hand))]
    return tuple(out)


MOVES_IN: Final = {PLACEMENT: placement_moves, ERUPTION: eruption_moves, EXTRA_PLACEMENT: extra_placement_moves,
            QUAKE: quake_moves, WALLS: walls_moves, CARDS: cards_moves}


def legal_moves(state, seat):
    """Every legal move of `seat` now, in a stable order (clients and the golden games rely on it)."""
    if state.phase == OVER or seat != state.active:
        return []
    return MOVES_IN[state.phase](state, seat)
