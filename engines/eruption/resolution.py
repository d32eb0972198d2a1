"""The small state changes that effects and turn-flow steps are made of: dice checks, walls,
cards, heat, tiles. Each appends the events it causes; chance comes from `state.rng` only."""
from __future__ import annotations

from engines.core import Event

from . import board as B
from . import draws
from .geometry import flow_mask
from .scoring import thresholds
from .state import HELD, REMOVED, UNCLAIMED


def dice_check(state, position, material, purpose, events):
    """ERU-95/96: roll white then orange; True when the wall holds."""
    white = draws.die(state.rng)
    orange = draws.die(state.rng)
    total = white + B.DICE_BONUS[material]
    held = total >= orange if state.options["dice_tie_goes_to"] == "wall" else total > orange
    events.append(Event("dice_rolled", {
        "x": position[0][0], "y": position[0][1], "edge": position[1], "material": material,
        "white": white, "orange": orange, "held": held, "purpose": purpose}))
    return held


def remove_wall(state, position, cause, events):
    """ERU-94: a wall leaving the board is removed from the game."""
    material = state.walls.pop(position)
    state.removed_walls[B.MATERIAL_INDEX[material]] += 1
    events.append(Event("wall_removed", {"x": position[0][0], "y": position[0][1], "edge": position[1],
                                         "material": material, "cause": cause}))


def build_wall(state, seat, material, cell, edge, cause, events):
    """ERU-92, ERU-117: a wall from the stockpile onto (cell, edge)."""
    state.stockpiles[seat][B.MATERIAL_INDEX[material]] -= 1
    state.walls[(cell, edge)] = material
    events.append(Event("wall_built", {"seat": seat, "x": cell[0], "y": cell[1],
                                       "edge": edge, "material": material, "cause": cause}))


def gain_wall(state, seat, material, cause, events):
    """ERU-97: take a wall from the supply into the stockpile (nothing if the supply is out)."""
    i = B.MATERIAL_INDEX[material]
    if not state.options["unlimited_walls"]:
        if state.supply[i] == 0:
            return
        state.supply[i] -= 1
    state.stockpiles[seat][i] += 1
    events.append(Event("wall_gained", {"seat": seat, "material": material, "cause": cause}))


def draw_cards(state, seat, count, cause, events):
    """ERU-111: draw, reshuffling the discard pile when the draw pile is empty."""
    got = []
    for _ in range(count):
        if not state.draw_pile:
            if not state.discard:
                break
            state.draw_pile, state.discard = state.discard, []
            draws.shuffle(state.rng, state.draw_pile)
            events.append(Event("discard_reshuffled", {"count": len(state.draw_pile)}))
        got.append(state.draw_pile.pop())
    if got:
        state.hands[seat] += got
        state.hands[seat].sort()
        for card in got:
            events.append(Event("card_drawn", {"seat": seat, "card": card}, to=seat))
        events.append(Event("cards_drawn", {"seat": seat, "count": len(got), "cause": cause}))


def use_card(state, seat, card, use, events):
    """ERU-113: a used card goes to the discard pile, face up."""
    state.hands[seat].remove(card)
    state.discard.append(card)
    events.append(Event("card_used", {"seat": seat, "card": card, "use": use}))


def add_heat(state, seat, amount, cause, events):
    """ERU-7: change a temperature, clamped to 0..290; True when it rose."""
    old = state.temperatures[seat]
    new = min(B.MAX_TEMP, max(0, old + amount))
    state.temperatures[seat] = new
    if new != old:
        events.append(Event("temperature_changed", {"seat": seat, "temperature": new,
                                                    "delta": new - old, "cause": cause}))
    return new > old


def award_eruptions(state, seats_in_order, events):
    """ERU-60: each unclaimed eruption tile k goes to the first of `seats_in_order` at threshold k."""
    reached = thresholds(state)
    for seat in seats_in_order:
        for k in range(3):
            if state.eruption_status[k] == UNCLAIMED and state.temperatures[seat] >= reached[k]:
                state.eruption_status[k] = HELD
                state.eruption_holder[k] = seat
                events.append(Event("eruption_awarded", {"seat": seat, "number": k + 1}))


def put_tile(state, seat, cell, tile, rotation, events):
    """A lava tile onto the board in `rotation` (ERU-12)."""
    state.board[cell] = (tile, rotation)
    state.lava[cell] = B.MASK_OF_TILE[tile][rotation]
    events.append(Event("tile_placed", {"seat": seat, "tile": tile, "tile_type": B.TILE_TYPE_OF[tile],
                                        "x": cell[0], "y": cell[1], "rotation": rotation}))


def remove_tile(state, cell, cause, events):
    """ERU-121, ERU-123: a tile leaves the board and the game."""
    tile, _ = state.board.pop(cell)
    del state.lava[cell]
    if tile >= B.ERUPTION_IDS[0]:
        state.eruption_status[tile - B.ERUPTION_IDS[0]] = REMOVED
    state.removed_tiles.append(tile)
    events.append(Event("tile_removed", {"x": cell[0], "y": cell[1], "tile": tile,
                                         "tile_type": B.TILE_TYPE_OF[tile], "cause": cause}))


def draw_until(state, placeable, events):
    """ERU-71: draw until `placeable(tile)`; tiles that fail are set aside and shuffled
    back once one fits. Returns (tile, []), or (None, set_aside) when the stack ran out."""
    set_aside = []
    while state.stack:
        tile = state.stack.pop()
        ok = placeable(tile)
        events.append(Event("tile_drawn", {"tile": tile, "tile_type": B.TILE_TYPE_OF[tile],
                                           "set_aside": not ok}))
        if ok:
            if set_aside:
                state.stack += set_aside
                draws.shuffle(state.rng, state.stack)
                events.append(Event("stack_shuffled", {"count": len(state.stack)}))
            return tile, []
        set_aside.append(tile)
    return None, set_aside


def flow_cards(state, seat, space, mask, events):
    """ERU-76: a card per flow the lava on `space` makes into a village that earns cards."""
    cards = B.POPCOUNT[mask & flow_mask(state, space)]
    if cards:
        draw_cards(state, seat, cards, "flow", events)


def new_flow_cards(state, seat, space, old_mask, new_mask, events):
    """ERU-124: by default the flows added (seed 002: 「因為只有新增一條」), or each new lava edge."""
    flows = flow_mask(state, space)
    if state.options["new_flows_per_edge"]:
        cards = B.POPCOUNT[new_mask & ~old_mask & flows]
    else:
        cards = max(0, B.POPCOUNT[new_mask & flows] - B.POPCOUNT[old_mask & flows])
    if cards:
        draw_cards(state, seat, cards, "new_flow", events)
