"""Turn flow (ERU-40..45) as a table of named steps; `engines.core.advance(FLOW, ...)` runs them.

A step does its part of the turn and names the next step, or returns None where the game
waits for the active seat (its `state.phase` says for what). Effects enter the table where
their move leaves the turn: a placed tile at `PLACED[origin]`, the end of the walls step at
"turn_end", and so on.
"""
from __future__ import annotations

from typing import Any, Final

from engines.core import Event

from . import board as B
from .board import Cell
from .legality import eruption_spaces, is_placeable, pending_eruption
from .resolution import add_heat, award_eruptions, dice_check, draw_cards, draw_until, remove_wall
from .scoring import outcome_keys, tiebreaks, wall_allowance, zone
from .state import CARD, CARDS, ERUPTION, EXTRA, EXTRA_PLACEMENT, OVER, PLACEMENT, REGULAR, REMOVED, WALLS


def turn_start(state, events):
    """ERU-40: the active seat's turn begins with its damage step."""
    state.turn += 1
    state.eruptions_placed = state.walls_built = 0
    events.append(Event("turn_started", {"seat": state.active, "turn": state.turn}))
    return "damage"


def damage(state: Any, events: list[Event]) -> str:
    """ERU-41, ERU-50..52: assess the active player's own village."""
    seat: int = state.active
    total = 0
    lava: dict[Cell, int] = state.lava
    for position in B.ENTRIES[state.villages[seat]]:
        mask = lava.get(position[0])
        if mask is None or not mask >> position[1] & 1:
            continue
        material = state.walls.get(position)
        if material is None:
            total += B.DAMAGE["unwalled_flow"]
        elif not dice_check(state, position, material, "damage", events):
            remove_wall(state, position, "dice", events)
            total += B.DAMAGE["walled_flow_wall_fails"]
    rose = add_heat(state, seat, total, "damage", events) if total else False
    if rose or state.options["eruption_award_timing"] == "own_damage_step":  # ERU-61
        award_eruptions(state, [seat], events)
    return "eruption_tiles"


def eruption_tiles(state, events):
    """ERU-42(a), ERU-62, ERU-65: place held eruption tiles (waits in ERUPTION), else lose them."""
    while state.options["eruption_tiles_per_turn"] == "all" or state.eruptions_placed == 0:
        k = pending_eruption(state)
        if k < 0:
            break
        if eruption_spaces(state):
            state.phase = ERUPTION
            return None
        state.eruption_status[k] = REMOVED  # ERU-65
        events.append(Event("eruption_tile_lost", {"seat": state.active, "number": k + 1}))
    return "regular_placement"


def start_placement(state, origin, events):
    """ERU-70/71: draw until a placeable tile appears. False when the stack ran out."""
    tile, set_aside = draw_until(state, lambda t: is_placeable(state, t), events)
    if tile is not None:
        state.drawn_tile = tile
        state.placement_origin = origin
        state.phase = PLACEMENT
        return True
    if set_aside:
        state.removed_tiles += set_aside
        events.append(Event("tiles_removed", {"tiles": set_aside, "cause": "unplaceable"}))
    return False


def regular_placement(state, events):
    """ERU-42(b): one placement action (waits in PLACEMENT), unless the stack is out."""
    return None if start_placement(state, REGULAR, events) else "regular_placed"


def extra_placement(state, events):
    """ERU-42(c): the zone-3 extra placement action."""
    return None if start_placement(state, EXTRA, events) else "extra_placed"


def card_placement(state, events):
    """ERU-113, ERU-116: a placement action bought with cards, within the cards step."""
    return None if start_placement(state, CARD, events) else "card_placed"


def _placement_over(state):
    state.drawn_tile = -1
    state.placement_origin = ""


def regular_placed(state, events):
    """ERU-42(c): in zone 3 the player may take one more placement action (waits in EXTRA_PLACEMENT)."""
    _placement_over(state)
    if state.stack and zone(state, state.active) == 3:
        state.phase = EXTRA_PLACEMENT
        return None
    return "cards_step"


def extra_placed(state, events):
    _placement_over(state)
    return "cards_step"


def card_placed(state, events):
    """Back to the cards step the action was bought in (ERU-112)."""
    _placement_over(state)
    state.phase = CARDS
    return None


def cards_step(state, events):
    """ERU-43: zone 2 or 3 draws one card first; then the seat uses cards (waits in CARDS)."""
    state.phase = CARDS
    if zone(state, state.active) >= 2:
        draw_cards(state, state.active, 1, "zone", events)
    return None


def walls_step(state, events):
    """ERU-44: the seat builds up to its wall allowance (waits in WALLS)."""
    state.phase = WALLS
    events.append(Event("walls_step", {"seat": state.active, "allowance": wall_allowance(state, state.active)}))
    return None


def turn_end(state, events):
    """ERU-45, ERU-150..152: count down a triggered end, or check the triggers."""
    seat = state.active
    if state.end_trigger:
        state.turns_left -= 1
    elif state.temperatures[seat] >= B.MAX_TEMP:  # ERU-151 burnout
        state.end_trigger, state.trigger_seat, state.turns_left = "burnout", seat, state.seats - 1
        state.burnout_removed, state.stack = state.stack, []
        events.append(Event("end_triggered", {"seat": seat, "trigger": "burnout", "turns_left": state.turns_left,
                                              "tiles_removed": len(state.burnout_removed)}))
    elif not state.stack:  # ERU-152 exhaustion
        state.end_trigger, state.trigger_seat, state.turns_left = "exhaustion", seat, state.seats
        events.append(Event("end_triggered", {"seat": seat, "trigger": "exhaustion",
                                              "turns_left": state.turns_left, "tiles_removed": 0}))
    return "game_over" if state.end_trigger and state.turns_left == 0 else "next_seat"


def next_seat(state, events):
    """ERU-45: the next player in turn order becomes active."""
    state.active = (state.active + 1) % state.seats
    return "turn_start"


def game_over(state, events):
    """ERU-153..156: the game ends; the coolest village wins."""
    state.phase = OVER
    events.append(Event("game_over", {"temperatures": list(state.temperatures), "tiebreaks": tiebreaks(state),
                                      "winners": list(outcome_keys(state)[1])}))
    return None


FLOW: Final = {
    "turn_start": turn_start,
    "damage": damage,
    "eruption_tiles": eruption_tiles,
    "regular_placement": regular_placement,
    "regular_placed": regular_placed,
    "extra_placement": extra_placement,
    "extra_placed": extra_placed,
    "card_placement": card_placement,
    "card_placed": card_placed,
    "cards_step": cards_step,
    "walls_step": walls_step,
    "turn_end": turn_end,
    "next_seat": next_seat,
    "game_over": game_over,
}

# Where a placement action of each origin starts and where the turn goes on once it is done.
PLACEMENT_STEP: Final = {REGULAR: "regular_placement", EXTRA: "extra_placement", CARD: "card_placement"}
PLACED_STEP: Final = {REGULAR: "regular_placed", EXTRA: "extra_placed", CARD: "card_placed"}


def is_over(state: Any) -> bool:
    """ERU-150: the game has ended."""
    return state.phase == OVER


def seats_to_act(state: Any) -> list[int]:
    """ERU-40: only the active player acts."""
    return [] if state.phase == OVER else [state.active]


def to_move(state: Any) -> int | None:
    return None if state.phase == OVER else state.active

