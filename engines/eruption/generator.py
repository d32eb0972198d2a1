"""The move generator: every legal move of a seat, in a stable order, built from the predicates
of legality.py (the same ones the checks use)."""
from __future__ import annotations

from functools import lru_cache

from . import board as B
from . import derived
from .legality import (
    aftershock_turns,
    board_placements,
    eruption_spaces,
    lava_flow_has_effect,
    may_build_more,
    may_buy_tile,
    over_hand_limit,
    pending_eruption,
    quake_has_effect,
    quake_replacements,
    sinkhole_targets,
    stockpile_materials,
    supply_has,
    tile_pairs,
    tile_placements,
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
    PlaceTile,
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
from .relocation import relocation_key, relocations_of
from .state import CARDS, ERUPTION, EXTRA_PLACEMENT, OVER, PLACEMENT, QUAKE, WALLS

_new = tuple.__new__  # a move built without its NamedTuple's Python-level __new__: the same value, sooner


def _wall_moves(state, seat, kind):
    """A wall of each stockpile material on each free position, in `wall_positions`' order."""
    materials = tuple(stockpile_materials(state, seat))
    if not materials:
        return []
    walls = state.walls
    out = [_new(kind, (m, cell, e)) for cell, e in derived.of(state).end_positions if (cell, e) not in walls
           for m in materials]
    out += [_new(kind, (m, cell, e)) for cell, e in B.ENTRIES[state.villages[seat]] if (cell, e) not in walls
            for m in materials]
    return out


def _relocate_moves(state, seat):
    key = relocation_key(state, seat)
    return [] if key is None else list(_relocate_plays(*key))


@lru_cache(maxsize=4096)
def _relocate_plays(entries, start):
    return tuple(_new(PlayRelocate, (steps,)) for steps in relocations_of(entries, start))


def placement_moves(state, seat):
    tile = state.drawn_tile
    if state.excluded:
        return [_new(PlaceTile, (tile, space, r)) for space, r in tile_placements(state, tile, state.excluded)]
    by_tile = derived.of(state).place_moves
    moves = by_tile.get(tile)
    if moves is None:
        moves = by_tile[tile] = [_new(PlaceTile, (tile, space, r)) for space, r in board_placements(state, tile)]
    return list(moves)


def eruption_moves(state, seat):
    return [PlaceEruption(pending_eruption(state) + 1, space) for space in eruption_spaces(state)]


def extra_placement_moves(state, seat):
    return [DrawExtraTile(), EndPlacement()]


def quake_moves(state, seat):
    return [QuakeReplace(state.quake_tile, cell, r) for cell, r in quake_replacements(state, state.quake_tile)]


def walls_moves(state, seat):
    return [EndTurn()] + (_wall_moves(state, seat, BuildWall) if may_build_more(state, seat) else [])


# Plays of each card kind (ERU-115: only those with an effect), in the order the hand's kinds sort.
CARD_PLAYS = {
    "lava_flow": lambda state, seat: [PlayLavaFlow()] if lava_flow_has_effect(state) else [],
    "reinforce": lambda state, seat: _wall_moves(state, seat, PlayReinforce),
    "relocate": lambda state, seat: _relocate_moves(state, seat),
    "aftershock": lambda state, seat: [PlayAftershock(cell, r) for cell, r in aftershock_turns(state)],
    "rain": lambda state, seat: [PlayRain()],
    "sinkhole": lambda state, seat: [PlaySinkhole(cell) for cell in sinkhole_targets(state)],
    "volcanic_bomb": lambda state, seat: [PlayVolcanicBomb(cell, e) for cell, e in sorted(state.walls)],
    "quake": lambda state, seat: [PlayQuake()] if quake_has_effect(state) else [],
}


def cards_moves(state, seat):
    """ERU-113/114: end the step or discard surplus, discards for a wall or a tile, then plays."""
    hand = state.hands[seat]
    kinds = sorted(set(hand))
    out = [DiscardSurplus(k) for k in kinds] if over_hand_limit(state, seat) else [EndCards()]
    out += [DiscardForWall(k) for k in kinds if supply_has(state, k)]
    if may_buy_tile(state):
        out += [DiscardForTile(pair) for pair in tile_pairs(hand)]
    for k in kinds:
        out += CARD_PLAYS[k](state, seat)
    return out


MOVES_IN = {PLACEMENT: placement_moves, ERUPTION: eruption_moves, EXTRA_PLACEMENT: extra_placement_moves,
            QUAKE: quake_moves, WALLS: walls_moves, CARDS: cards_moves}


def legal_moves(state, seat):
    """Every legal move of `seat` now, in a stable order (clients and the golden games rely on it)."""
    if state.phase == OVER or seat != state.active:
        return []
    return MOVES_IN[state.phase](state, seat)
