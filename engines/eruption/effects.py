"""What each move does: `EFFECTS = {kind: effect}`, each `(state, seat, move, events) -> None`.

An effect runs after the kind's check (legality.py) and may assume the move is legal. A move
that ends a step hands the turn to the flow table (flow.py) at the step that follows.
"""
from __future__ import annotations

from typing import Final

from engines.core import Event
from engines.playout import advance

from . import board as B
from . import draws
from .flow import FLOW, PLACED_STEP, PLACEMENT_STEP
from .geometry import constraints, walls_of_tile
from .legality import is_placeable, quake_replaces_some_tile
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
from .resolution import (
    add_heat,
    award_eruptions,
    build_wall,
    dice_check,
    draw_until,
    flow_cards,
    gain_wall,
    new_flow_cards,
    put_tile,
    remove_tile,
    remove_wall,
    use_card,
)
from .state import CARDS, ON_BOARD, QUAKE


def place_eruption(state, seat, move, events):
    """ERU-64: the tile erupts on its space; every other player heats up (ERU-60/61 awards)."""
    k, space = move.number - 1, move.cell
    lava_in, _ = constraints(state, space)
    for e in B.EDGES_OF_MASK[lava_in]:
        if (space, e) in state.walls:
            remove_wall(state, (space, e), "eruption", events)
    state.board[space] = (B.ERUPTION_IDS[k], 0)
    state.lava[space] = 63
    state.eruption_status[k] = ON_BOARD
    state.eruptions_placed += 1
    events.append(Event("eruption_placed", {"seat": seat, "number": k + 1, "x": space[0], "y": space[1]}))
    if space in B.AWARD:
        gain_wall(state, seat, B.AWARD[space], "award_space", events)
    if state.options["eruption_tile_draws_cards"]:  # ERU-64(3)
        flow_cards(state, seat, space, 63, events)
    order = [(seat + i) % state.seats for i in range(1, state.seats)]
    rose = [other for other in order if add_heat(state, other, B.ERUPTION_HEAT, "eruption", events)]
    if state.options["eruption_award_timing"] == "immediate":
        award_eruptions(state, rose, events)
    advance(FLOW, state, events, "eruption_tiles")


def _attempt_holds(state, space, rotation, events):
    """ERU-74/75: True when the walls on every connection of the drawn tile hold (a failed
    attempt); otherwise the walls in the way are destroyed or swept away."""
    links = B.MASK_OF_TILE[state.drawn_tile][rotation] & constraints(state, space)[0]
    walled = [e for e in B.EDGES_OF_MASK[links] if (space, e) in state.walls]
    if walled and len(walled) == B.POPCOUNT[links]:
        held = [dice_check(state, (space, e), state.walls[(space, e)], "placement", events) for e in walled]
        if all(held):
            return True
        cause = "dice"
    else:
        cause = "swept"  # ERU-74: the lava has another path
    for e in walled:
        remove_wall(state, (space, e), cause, events)
    return False


def place_tile(state, seat, move, events):
    """ERU-74..76: resolve walls on the connections, then place the tile or fail the attempt."""
    tile, space, rotation, origin = state.drawn_tile, move.cell, move.rotation, state.placement_origin
    if _attempt_holds(state, space, rotation, events):
        state.excluded.add(space)  # ERU-75
        events.append(Event("placement_failed", {"tile": tile, "x": space[0], "y": space[1], "rotation": rotation}))
        if is_placeable(state, tile):
            return
        state.removed_tiles.append(tile)
        events.append(Event("tiles_removed", {"tiles": [tile], "cause": "no_space"}))
        state.drawn_tile = -1
        advance(FLOW, state, events, PLACEMENT_STEP[origin])
        return
    put_tile(state, seat, space, tile, rotation, events)
    if space in B.AWARD:  # ERU-76
        gain_wall(state, seat, B.AWARD[space], "award_space", events)
    flow_cards(state, seat, space, state.lava[space], events)
    state.excluded.clear()
    advance(FLOW, state, events, PLACED_STEP[origin])


def draw_extra_tile(state, seat, move, events):
    """ERU-42(c): take the zone-3 extra placement."""
    advance(FLOW, state, events, "extra_placement")


def end_placement(state, seat, move, events):
    """ERU-42(c): decline the extra placement."""
    advance(FLOW, state, events, "extra_placed")


def quake_replace(state, seat, move, events):
    """ERU-123 step 2: the quake tile replaces the board tile; its walls go (ERU-94), new flows draw (ERU-124)."""
    cell = move.cell
    old = state.lava[cell]
    for position in walls_of_tile(state, cell):
        remove_wall(state, position, "quake", events)
    remove_tile(state, cell, "quake", events)
    state.quake_tile = -1
    state.phase = CARDS
    put_tile(state, seat, cell, move.tile, move.rotation, events)
    new_flow_cards(state, seat, cell, old, state.lava[cell], events)


def build(state, seat, move, events):
    """ERU-92: a wall from the stockpile, within the walls-step allowance."""
    build_wall(state, seat, move.material, move.cell, move.edge, "walls_step", events)
    state.walls_built += 1


def end_turn(state, seat, move, events):
    """ERU-45: the walls step and the turn end."""
    advance(FLOW, state, events, "turn_end")


def end_cards(state, seat, move, events):
    """ERU-43/114: the cards step ends; the walls step begins."""
    advance(FLOW, state, events, "walls_step")


def discard_surplus(state, seat, move, events):
    """ERU-114: a card discarded with no effect."""
    use_card(state, seat, move.card, "surplus", events)


def discard_for_wall(state, seat, move, events):
    """ERU-113: a card for a wall of its material from the supply."""
    use_card(state, seat, move.card, "wall", events)
    gain_wall(state, seat, B.CARD_MATERIAL[move.card], "discard", events)


def discard_for_tile(state, seat, move, events):
    """ERU-113: two cards for a placement action."""
    for card in move.cards:
        use_card(state, seat, card, "tile", events)
    advance(FLOW, state, events, "card_placement")


def play_lava_flow(state, seat, move, events):
    """ERU-116: one placement action."""
    use_card(state, seat, "lava_flow", "play", events)
    advance(FLOW, state, events, "card_placement")


def play_reinforce(state, seat, move, events):
    """ERU-117: a wall now, outside the allowance."""
    use_card(state, seat, "reinforce", "play", events)
    build_wall(state, seat, move.material, move.cell, move.edge, "reinforce", events)


def play_relocate(state, seat, move, events):
    """ERU-118: the village's walls move, step by step."""
    use_card(state, seat, "relocate", "play", events)
    for (c1, e1, c2, e2) in move.steps:
        state.walls[(c2, e2)] = state.walls.pop((c1, e1))
        events.append(Event("wall_moved", {"x": c1[0], "y": c1[1], "edge": e1,
                                           "to_x": c2[0], "to_y": c2[1], "to_edge": e2}))


def play_aftershock(state, seat, move, events):
    """ERU-119: the tile turns in place; its open-end walls go, new flows draw (ERU-124)."""
    use_card(state, seat, "aftershock", "play", events)
    cell = move.cell
    tile, _ = state.board[cell]
    old = state.lava[cell]
    for position in walls_of_tile(state, cell):
        remove_wall(state, position, "aftershock", events)
    mask = B.MASK_OF_TILE[tile][move.rotation]
    state.board[cell] = (tile, move.rotation)
    state.lava[cell] = mask
    events.append(Event("tile_turned", {"x": cell[0], "y": cell[1], "rotation": move.rotation}))
    new_flow_cards(state, seat, cell, old, mask, events)


def play_rain(state, seat, move, events):
    """ERU-120: the player's own temperature drops by 30."""
    use_card(state, seat, "rain", "play", events)
    add_heat(state, seat, -B.DAMAGE["rain_cooling"], "rain", events)


def play_sinkhole(state, seat, move, events):
    """ERU-121: the tile and its open-end walls leave the game."""
    use_card(state, seat, "sinkhole", "play", events)
    for position in walls_of_tile(state, move.cell):
        remove_wall(state, position, "sinkhole", events)
    remove_tile(state, move.cell, "sinkhole", events)


def play_volcanic_bomb(state, seat, move, events):
    """ERU-122: one wall leaves the game."""
    use_card(state, seat, "volcanic_bomb", "play", events)
    remove_wall(state, (move.cell, move.edge), "volcanic_bomb", events)


def play_quake(state, seat, move, events):
    """ERU-123 step 1: draw (ERU-71) a tile that may replace a board tile; waits in QUAKE."""
    use_card(state, seat, "quake", "play", events)
    tile, set_aside = draw_until(state, lambda t: quake_replaces_some_tile(state, t), events)
    if tile is not None:
        state.quake_tile = tile
        state.phase = QUAKE
        return
    state.stack = set_aside
    draws.shuffle(state.rng, state.stack)
    events.append(Event("stack_shuffled", {"count": len(state.stack)}))
    events.append(Event("quake_no_effect", {"seat": state.active}))


EFFECTS: Final = {
    PlaceEruption: place_eruption,
    PlaceTile: place_tile,
    DrawExtraTile: draw_extra_tile,
    EndPlacement: end_placement,
    QuakeReplace: quake_replace,
    BuildWall: build,
    EndTurn: end_turn,
    EndCards: end_cards,
    DiscardSurplus: discard_surplus,
    DiscardForWall: discard_for_wall,
    DiscardForTile: discard_for_tile,
    PlayLavaFlow: play_lava_flow,
    PlayReinforce: play_reinforce,
    PlayRelocate: play_relocate,
    PlayAftershock: play_aftershock,
    PlayRain: play_rain,
    PlaySinkhole: play_sinkhole,
    PlayVolcanicBomb: play_volcanic_bomb,
    PlayQuake: play_quake,
}
