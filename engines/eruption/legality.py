"""Legality: each rule one small predicate (rule id in its docstring), used both by the move
generator (`legal_moves`, generator.py) and by the check of that move kind (`CHECKS`).

A check raises IllegalMove(rule id, sentence) and never changes the state. The step a kind
belongs to (`STEP_OF`), the turn and the end of the game are checked first, by `check_seat`.
"""
from __future__ import annotations

from functools import cache
from typing import Any, Final

from engines.core import IllegalMove

from . import board as B
from . import derived
from .board import Cell
from .geometry import all_linked, board_card_tiles, card_tiles, constraints, cut_tiles, eruption_cells
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
from .relocation import check_steps
from .scoring import wall_allowance
from .state import CARDS, ERUPTION, EXTRA_PLACEMENT, HELD, OVER, PLACEMENT, QUAKE, WALLS

# ---------------------------------------------------------------- tiles


@cache
def fitting_rotations(masks: tuple[int, ...], lava_in: int, constrained: int) -> tuple[int, ...]:
    """ERU-72 rule 2 (ERU-19): the orientations whose edges match every constrained edge. Cached:
    a tile type meets few edge patterns, and every drawn tile and listed placement asks."""
    return tuple([r for r in range(6) if masks[r] & constrained == lava_in])


# tile id -> {lava_in << 6 | constrained: fitting rotations}, one table per tile type (filled as asked)
_FITS_BY_TYPE: Final[dict[str, dict[int, tuple[int, ...]]]] = {t: {} for t in B.TILE_TYPES}
FITS_OF_TILE: Final[list[dict[int, tuple[int, ...]]]] = [_FITS_BY_TYPE[t] for t in B.TILE_TYPE_OF]


def _fits(tile: int, fits: dict[int, tuple[int, ...]], lava_in: int, constrained: int, key: int) -> tuple[int, ...]:
    rotations = fits.get(key)
    if rotations is None:
        rotations = fits[key] = fitting_rotations(B.MASK_OF_TILE[tile], lava_in, constrained)
    return rotations


def tile_placements(state, tile, excluded=()):
    """ERU-72: every legal (space, rotation) for lava tile `tile`, skipping excluded spaces; an open
    end has a lava edge, so a tile matching it also forms a link (rule 3)."""
    return [(space, r) for _, space, r in board_placements(state, tile) if space not in excluded]


def board_placements(state: Any, tile: int) -> list[Any]:
    """`tile_placements` with no space excluded, as PlaceTile moves: the board's cached list (not to be changed)."""
    d = derived.of(state)
    out = d.placements.get(tile)
    if out is None:
        fits = FITS_OF_TILE[tile]
        out = d.placements[tile] = []
        row = _PLACE_TILE[tile]
        for spot in derived.spots(d):  # (space, lava_in, constrained, key, _, id, _)
            key: int = spot[3]
            rotations = fits.get(key)
            if rotations is None:
                rotations = _fits(tile, fits, spot[1], spot[2], key)
            base: int = spot[5] * 6
            for r in rotations:
                move = row[base + r]
                if move is None:
                    move = row[base + r] = _new(PlaceTile, (tile, spot[0], r))
                out.append(move)
    return out


# tile -> cell id * 6 + rotation -> its PlaceTile move, made when first listed: moves are values, so every
# board's list holds the one move object (no tuples made and freed per board)
_PLACE_TILE: Final[list[list[Any]]] = [[None] * (B.CELL_COUNT * 6) for _ in B.TILE_TYPE_OF]


_new: Final = tuple.__new__  # a move built without its NamedTuple's Python-level __new__: the same value, sooner


def is_placeable(state, tile):
    """ERU-71: at least one legal placement on a space not excluded (ERU-75)."""
    excluded = state.excluded
    if not excluded:
        return bool(board_placements(state, tile))
    return any(m[1] not in excluded for m in board_placements(state, tile))


def erupts_on(state: Any, space: Cell) -> bool:
    """ERU-63: every constrained edge of the (empty) space shows lava."""
    lava_in, constrained = constraints(state, space)
    return lava_in == constrained


def eruption_spaces(state: Any) -> list[Cell]:
    """ERU-63: empty playable spaces where an eruption tile may go (cached per board)."""
    d = derived.of(state)
    if d.eruption_spaces is None:
        filled, ends, constrained = d.filled, d.ends_at, d.constrained_at
        playable = B.PLAYABLE
        d.eruption_spaces = [playable[i] for i in range(B.CELL_COUNT) if not filled[i] and (
            ends[i] == constrained[i] if ends[i] else derived.constraints_at(d, i)[1] == 0)]
    return list(d.eruption_spaces)


def pending_eruption(state):
    """ERU-62: the lowest-numbered eruption tile the active player holds, or -1."""
    for k in range(3):
        if state.eruption_status[k] == HELD and state.eruption_holder[k] == state.active:
            return k
    return -1


def aftershock_rotations(state: Any, cell: Cell) -> list[int]:
    """ERU-119: the new orientations of the tile on `cell` that keep rule 2 on every constrained edge."""
    tile, current = state.board[cell]
    i = B.CELL_ID.get(cell)
    lava_in, constrained = constraints(state, cell) if i is None else derived.constraints_at(derived.of(state), i)
    rotations = _fits(tile, FITS_OF_TILE[tile], lava_in, constrained, lava_in << 6 | constrained)
    return [r for r in rotations if r != current]


def aftershock_turns(state):
    """ERU-119: every (cell, new orientation) of the card tiles (generator.py keeps them as moves per board)."""
    return [(cell, r) for cell in board_card_tiles(state) for r in aftershock_rotations(state, cell)]


def sinkhole_targets(state):
    """ERU-121: tiles whose removal keeps every other tile linked to a source."""
    cut = cut_tiles(state)
    return [cell for cell in board_card_tiles(state) if cell not in cut]


def sinkhole_targets_slow(state):
    """ERU-121 by definition (one search per tile); the reference for tests."""
    sources = eruption_cells(state)
    out = []
    for cell in card_tiles(state):
        lava = dict(state.lava)
        del lava[cell]
        if all_linked(lava, sources - {cell}):
            out.append(cell)
    return out


def quake_rotations(state, cell, tile, sources):
    """ERU-123: orientations in which `tile` may replace the tile on `cell`: rule 2 on every
    constrained edge, a link to lava, and every tile still linked to a source."""
    lava_in, constrained = constraints(state, cell)
    if not lava_in:
        return []
    masks = B.MASK_OF_TILE[tile]
    out = []
    for r in fitting_rotations(masks, lava_in, constrained):
        if cell in sources:
            lava = dict(state.lava)
            lava[cell] = masks[r]
            if not all_linked(lava, sources - {cell}):
                continue
        out.append(r)
    return out


def quake_replacements(state, tile):
    """ERU-123: (cell, rotation) where `tile` may replace the board tile."""
    sources = eruption_cells(state)
    return [(cell, r) for cell in card_tiles(state) for r in quake_rotations(state, cell, tile, sources)]


def quake_replaces_some_tile(state, tile):
    """ERU-123 step 1: `tile` is placeable for a Quake (ERU-71) when it may replace a board tile."""
    sources = eruption_cells(state)
    return any(quake_rotations(state, cell, tile, sources) for cell in card_tiles(state))


# ---------------------------------------------------------------- walls and cards


def is_free(state, position):
    """ERU-91: at most one wall per position."""
    return position not in state.walls


def open_end_edges(state, space):
    """ERU-23: the edges of empty `space` that face lava (a wall may stand there, ERU-90)."""
    i = B.CELL_ID.get(space)
    return 0 if i is None else derived.of(state).ends_at[i]


def wall_positions(state, seat):
    """ERU-90/91: free legal wall positions for `seat`: open ends (all of them at once, as
    `open_end_edges` finds them one space at a time), then its own entry positions."""
    walls = state.walls
    out = [position for position in derived.end_positions(derived.of(state)) if position not in walls]
    return out + [position for position in B.ENTRIES[state.villages[seat]] if position not in walls]


def wall_position_error(state, seat, cell, edge):
    """ERU-17, ERU-24, ERU-90, ERU-91: the (rule, sentence) a wall on (cell, edge) would break, or None."""
    if not isinstance(edge, int) or not 0 <= edge <= 5 or cell not in B.PLAYABLE_SET:
        return ("ERU-24", "a wall position is a playable space and an edge 0..5")
    if (cell, edge) in B.SEA_EDGES:
        return ("ERU-17", "walls cannot be built on sea edges")
    if not is_free(state, (cell, edge)):
        return ("ERU-91", f"position {cell}:{B.EDGE_NAMES[edge]} already holds a wall")
    village = B.ENTRY_VILLAGE.get((cell, edge))
    if village is not None:
        if village != state.villages[seat]:
            return ("ERU-90", "walls may not go on another village's entry positions")
        return None
    if cell in state.board:
        return ("ERU-90", "walls may not go between two tiles or a tile and the volcano")
    if not open_end_edges(state, cell) >> edge & 1:
        return ("ERU-90", "a wall needs an open lava end or an entry position of your own village")
    return None


def stockpile_materials(state, seat):
    """ERU-92, ERU-117: the materials `seat` has a wall of in its stockpile."""
    return [m for i, m in enumerate(B.MATERIALS) if state.stockpiles[seat][i]]


def may_build_more(state, seat):
    """ERU-92: walls built this walls step are below the allowance."""
    return state.walls_built < wall_allowance(state, seat)


def over_hand_limit(state, seat):
    """ERU-114: the hand holds more than 3 cards."""
    return len(state.hands[seat]) > B.HAND_LIMIT


def supply_has(state, card):
    """ERU-97: a wall of the card's material is left to gain (always, with `unlimited_walls`)."""
    return state.options["unlimited_walls"] or state.supply[B.MATERIAL_INDEX[B.CARD_MATERIAL[card]]] > 0


def may_buy_tile(state):
    """ERU-113: a placement action needs a tile in the stack."""
    return bool(state.stack)


def lava_flow_has_effect(state):
    """ERU-115: Lava Flow needs a tile in the stack."""
    return bool(state.stack)


def quake_has_effect(state):
    """ERU-115: Quake needs a tile in the stack and a lava tile on the board (`card_tiles` not empty)."""
    if not state.stack:
        return False
    if state.options["cards_act_on_eruption_tiles"]:
        return bool(state.board)
    first_eruption = B.ERUPTION_IDS[0]
    return any(tile < first_eruption for tile, _ in state.board.values())


def tile_pairs(hand):
    """ERU-113: the pairs of cards (sorted kinds) a hand can discard for a tile."""
    kinds = sorted(set(hand))
    return [(kinds[a], kinds[b]) for a in range(len(kinds)) for b in range(a, len(kinds))
            if a != b or hand.count(kinds[a]) >= 2]


# ---------------------------------------------------------------- checks


def _is_cell(cell):
    return isinstance(cell, tuple) and len(cell) == 2 and isinstance(cell[0], int) and isinstance(cell[1], int)


def _need_card(state, seat, card, count=1):
    if state.hands[seat].count(card) < count:
        raise IllegalMove("ERU-113", f"card {card!r} is not in your hand")


def _need_card_tile(state, cell, card):
    if cell not in board_card_tiles(state):
        raise IllegalMove("ERU-66", f"{card} acts on lava tiles, not on an eruption tile")


def _need_rotation(rotation):
    if not isinstance(rotation, int) or not 0 <= rotation <= 5:
        raise IllegalMove("ERU-12", "orientation must be 0..5")


# The step each kind belongs to: (phase, rule, what the move does), checked by `check_seat`.
_PLACE_ERUPTION = (ERUPTION, "ERU-62", "placing an eruption tile")
_EXTRA = (EXTRA_PLACEMENT, "ERU-42", "the zone-3 extra placement")
_CARDS = (CARDS, "ERU-112", "using cards")
STEP_OF: Final[dict[type, tuple[str, str, str]]] = {
    PlaceEruption: _PLACE_ERUPTION, PlaceTile: (PLACEMENT, "ERU-73", "placing a lava tile"),
    DrawExtraTile: _EXTRA, EndPlacement: _EXTRA, QuakeReplace: (QUAKE, "ERU-123", "a quake replacement"),
    BuildWall: (WALLS, "ERU-44", "building walls"), EndTurn: (WALLS, "ERU-44", "ending the turn"),
    **{kind: _CARDS for kind in (EndCards, DiscardSurplus, DiscardForWall, DiscardForTile, PlayLavaFlow,
                                 PlayReinforce, PlayRelocate, PlayAftershock, PlayRain, PlaySinkhole,
                                 PlayVolcanicBomb, PlayQuake)},
}


def check_seat(state: Any, seat: Any, move: Any) -> None:
    """ERU-150 game over, ERU-40 only the active player acts, and the move's step (ERU-40..44)."""
    phase: str = state.phase
    if phase == OVER:
        raise IllegalMove("ERU-150", "the game is over")
    if seat != state.active:
        raise IllegalMove("ERU-40", "only the active player acts; it is not your turn")
    step = STEP_OF.get(type(move))
    if step is None:
        raise IllegalMove("ERU-40", f"unknown move {move!r}"[:200])
    if phase != step[0]:
        raise IllegalMove(step[1], f"{step[2]} is not possible now (current step: {phase})")


def check_place_eruption(state, seat, move):
    k = pending_eruption(state)
    if move.number != k + 1:
        raise IllegalMove("ERU-62", f"place eruption tile {k + 1} next")
    if not _is_cell(move.cell) or move.cell not in B.PLAYABLE_SET or move.cell in state.board:
        raise IllegalMove("ERU-63", "an eruption tile goes on an empty playable space")
    if not erupts_on(state, move.cell):
        raise IllegalMove("ERU-63", "every neighbouring tile or volcano cell must show lava")


def check_place_tile(state, seat, move):
    tile, cell, rotation = state.drawn_tile, move.cell, move.rotation
    if move.tile != tile:
        raise IllegalMove("ERU-73", f"you must place the drawn tile {tile}")
    if not _is_cell(cell) or cell not in B.PLAYABLE_SET:
        raise IllegalMove("ERU-72", "lava tiles go only on playable spaces")
    if cell in state.board:
        raise IllegalMove("ERU-72", f"space {cell} is not empty")
    _need_rotation(rotation)
    lava_in, constrained = constraints(state, cell)
    mask = B.MASK_OF_TILE[tile][rotation]
    if rotation not in _fits(tile, FITS_OF_TILE[tile], lava_in, constrained, lava_in << 6 | constrained):
        bad = [B.EDGE_NAMES[e] for e in range(6) if constrained >> e & 1 and (mask ^ lava_in) >> e & 1]
        raise IllegalMove("ERU-72", f"edges {', '.join(bad)} do not match their neighbours")
    if not mask & lava_in:
        raise IllegalMove("ERU-72", "the tile must form a lava link to a tile or volcano exit")
    if cell in state.excluded:
        raise IllegalMove("ERU-75", f"space {cell} is excluded after a failed attempt")


def check_in_step(state, seat, move):
    """The move is open whenever its step is (checked by `check_seat`)."""


def check_quake_replace(state, seat, move):
    if move.tile != state.quake_tile:
        raise IllegalMove("ERU-123", f"the quake tile is {state.quake_tile}")
    if not _is_cell(move.cell) or move.cell not in state.board:
        raise IllegalMove("ERU-123", "a quake replaces a tile on the board")
    _need_card_tile(state, move.cell, "Quake")
    _need_rotation(move.rotation)
    if move.rotation not in quake_rotations(state, move.cell, move.tile, eruption_cells(state)):
        raise IllegalMove("ERU-123", "the tile must match every neighbour, link to lava, "
                                     "and keep every tile linked to a source")


def _check_wall(state, seat, material, cell, edge, rule):
    if material not in B.MATERIAL_INDEX:
        raise IllegalMove("ERU-4", f"unknown wall material {material!r}")
    if material not in stockpile_materials(state, seat):
        raise IllegalMove(rule, f"no {material} wall in your stockpile")
    if not _is_cell(cell):
        raise IllegalMove("ERU-24", "bad wall position")
    error = wall_position_error(state, seat, cell, edge)
    if error:
        raise IllegalMove(*error)


def check_build_wall(state, seat, move):
    if not may_build_more(state, seat):
        raise IllegalMove("ERU-92", f"your wall allowance this turn is {wall_allowance(state, seat)}")
    _check_wall(state, seat, move.material, move.cell, move.edge, "ERU-92")


def check_end_cards(state, seat, move):
    if over_hand_limit(state, seat):
        raise IllegalMove("ERU-114", f"the hand holds {len(state.hands[seat])} cards; at most 3 may remain")


def check_discard_surplus(state, seat, move):
    _need_card(state, seat, move.card)
    if not over_hand_limit(state, seat):
        raise IllegalMove("ERU-114", "surplus discards are only for a hand over the limit")


def check_discard_for_wall(state, seat, move):
    _need_card(state, seat, move.card)
    if not supply_has(state, move.card):
        raise IllegalMove("ERU-97", f"the {B.CARD_MATERIAL[move.card]} supply is empty")


def check_discard_for_tile(state, seat, move):
    cards = move.cards
    if not isinstance(cards, tuple) or len(cards) != 2 or cards[0] > cards[1]:  # named as legal_moves lists it
        raise IllegalMove("ERU-113", "discard exactly two cards for a tile, named in sorted order")
    for card in dict.fromkeys(cards):
        _need_card(state, seat, card, cards.count(card))
    if not may_buy_tile(state):
        raise IllegalMove("ERU-113", "the lava stack is empty")


def check_play_lava_flow(state, seat, move):
    _need_card(state, seat, "lava_flow")
    if not lava_flow_has_effect(state):
        raise IllegalMove("ERU-115", "Lava Flow needs a non-empty stack")


def check_play_reinforce(state, seat, move):
    _need_card(state, seat, "reinforce")
    _check_wall(state, seat, move.material, move.cell, move.edge, "ERU-117")


def check_play_relocate(state, seat, move):
    _need_card(state, seat, "relocate")
    check_steps(state, seat, move.steps)


def check_play_aftershock(state, seat, move):
    _need_card(state, seat, "aftershock")
    if not _is_cell(move.cell) or move.cell not in state.board:
        raise IllegalMove("ERU-119", "Aftershock turns a tile on the board")
    _need_card_tile(state, move.cell, "Aftershock")
    rotation = move.rotation
    if not isinstance(rotation, int) or not 0 <= rotation <= 5 or rotation == state.board[move.cell][1]:
        raise IllegalMove("ERU-119", "turn the tile by 60 to 300 degrees (a new orientation 0..5)")
    if rotation not in aftershock_rotations(state, move.cell):
        raise IllegalMove("ERU-119", "the turned tile must still match every constrained edge")


def check_play_rain(state, seat, move):
    _need_card(state, seat, "rain")


def check_play_sinkhole(state, seat, move):
    _need_card(state, seat, "sinkhole")
    if not _is_cell(move.cell) or move.cell not in state.board:
        raise IllegalMove("ERU-121", "Sinkhole removes a tile on the board")
    _need_card_tile(state, move.cell, "Sinkhole")
    if move.cell in cut_tiles(state):
        raise IllegalMove("ERU-121", "removing this tile would cut a tile off from every source")


def check_play_volcanic_bomb(state, seat, move):
    _need_card(state, seat, "volcanic_bomb")
    if not _is_cell(move.cell) or (move.cell, move.edge) not in state.walls:
        raise IllegalMove("ERU-122", "there is no wall on that position")


def check_play_quake(state, seat, move):
    _need_card(state, seat, "quake")
    if not quake_has_effect(state):
        raise IllegalMove("ERU-115", "Quake needs a non-empty stack and a lava tile on the board")


CHECKS: Final = {
    PlaceEruption: check_place_eruption,
    PlaceTile: check_place_tile,
    DrawExtraTile: check_in_step,
    EndPlacement: check_in_step,
    QuakeReplace: check_quake_replace,
    BuildWall: check_build_wall,
    EndTurn: check_in_step,
    EndCards: check_end_cards,
    DiscardSurplus: check_discard_surplus,
    DiscardForWall: check_discard_for_wall,
    DiscardForTile: check_discard_for_tile,
    PlayLavaFlow: check_play_lava_flow,
    PlayReinforce: check_play_reinforce,
    PlayRelocate: check_play_relocate,
    PlayAftershock: check_play_aftershock,
    PlayRain: check_play_rain,
    PlaySinkhole: check_play_sinkhole,
    PlayVolcanicBomb: check_play_volcanic_bomb,
    PlayQuake: check_play_quake,
}
