"""Turn flow of The Downfall of Pompeii as a table of named steps (`engines.core.advance` runs them).

Each step does what the rules do by themselves and names the next step, or returns None where
the game waits for a seat's decision (POM-91). Only the non-decisions of POM-91 run here: draws,
Omens without any eligible target, discarding a tile that has no legal square (POM-63), ending
the turn of a seat with nobody on the board (POM-76), relatives that cannot be placed (POM-35),
deaths and the end of the game.
"""
from __future__ import annotations

from engines.core import Event

from . import board as B
from .geometry import cut_off_cells, tile_fits
from .legality import omen_has_target, relative_cells
from .scoring import outcome
from .state import (
    ESCAPE,
    FIRST_MOVE,
    OMEN,
    OPENING,
    OVER,
    PLACE_LAVA,
    PLAY_CARD,
    RELATIVES,
    SECOND_MOVE,
    People,
    PompeiiState,
)

OPENING_TILES = 6  # POM-61

# The events of every draw, made once: frozen, and their data is only ever read (the codecs copy it).
_SEATS = range(4)  # POM-1
_CARD_DRAWN = tuple(Event("card_drawn", {"seat": s}) for s in _SEATS)
_CARD_RECEIVED = tuple(tuple(Event("card_received", {"seat": s, "number": n}, to=s) for n in range(B.AD79 + 1))
                       for s in _SEATS)
_TILE_DRAWN = {(s, kind): Event("tile_drawn", {"seat": s, "tile": kind}) for s in _SEATS for kind in B.TILE_KINDS}


def clear_relatives(state: PompeiiState) -> None:
    state.relatives_left = 0
    state.relatives_building = -1
    state.relatives_used = []


def relatives(state: PompeiiState, events: list[Event]) -> str | None:
    """POM-35: wait for the next relative, or give up the rest by itself and draw."""
    if state.relatives_left > 0 and state.supply[state.turn] > 0 and relative_cells(state):
        state.step = RELATIVES
        return None
    if state.relatives_left or state.relatives_building >= 0 or state.relatives_used:
        clear_relatives(state)
    return "draw"


def draw(state: PompeiiState, events: list[Event]) -> str | None:
    """POM-23/24/25/31/50: draw until a Pompeii card, an Omen decision or the second AD79."""
    seat = state.turn
    if not state.deck:
        raise RuntimeError("POM-23: the deck ran out before the second AD79")
    card = state.deck.pop()
    if card <= 11:
        state.hands[seat].append(card)
        events.append(_CARD_DRAWN[seat])
        events.append(_CARD_RECEIVED[seat][card])
        state.turn = (seat + 1) % state.seats  # POM-20: the seat to the left plays
        state.step = PLAY_CARD
        return None
    state.discard.append(card)
    if card == B.AD79:
        first = not state.first_ad79
        events.append(Event("ad79_drawn", {"seat": seat, "first": first}))
        if first:
            state.first_ad79 = True  # POM-24: draw a replacement at once
            return "draw"
        state.eruption_seat = seat
        return "eruption"  # POM-50
    effective = state.first_ad79 and omen_has_target(state, seat)  # POM-25 / POM-31: an Omen
    events.append(Event("omen_drawn", {"seat": seat, "effective": effective}))
    if effective:
        state.step = OMEN
        return None
    return "draw"


def _erupt(state: PompeiiState, events: list[Event], declared: bool) -> str | None:
    """POM-52: end phase 1, discard hands, box supplies, then the opening tiles."""
    seat = state.eruption_seat
    hands = [{"seat": s, "cards": sorted(h)} for s, h in enumerate(state.hands)]
    for hand in state.hands:
        state.discard.extend(sorted(hand))
    state.hands = [[] for _ in range(state.seats)]
    boxed = list(state.supply)
    state.box = [b + s for b, s in zip(state.box, state.supply)]
    state.supply = [0] * state.seats
    clear_relatives(state)
    state.phase = OPENING
    state.step = ""
    events.append(Event("eruption", {"seat": seat, "declared": declared, "hands": hands, "boxed": boxed}))
    if not state.board_total():  # POM-81
        return "game_over"
    state.turn = (seat + 1) % state.seats  # POM-52 step 5
    return "next_tile"


def eruption(state: PompeiiState, events: list[Event]) -> str | None:
    """POM-50: the second AD79 drawn."""
    return _erupt(state, events, False)


def declared_eruption(state: PompeiiState, events: list[Event]) -> str | None:
    """POM-51: declared by a seat whose whole hand is wild."""
    return _erupt(state, events, True)


def draw_tile(state: PompeiiState) -> str:
    """POM-14/60: a uniformly random tile from those left."""
    r = state.rng.randrange(sum(state.bag))
    for i, k in enumerate(state.bag):
        if r < k:
            state.bag[i] -= 1
            return B.TILE_KINDS[i]
        r -= k
    raise AssertionError("empty bag")


def next_tile(state: PompeiiState, events: list[Event]) -> str | None:
    """POM-60: the seat due draws a tile; it waits for PLACE_LAVA unless it must be discarded (POM-63)."""
    seat = state.turn
    state.pending_tile = draw_tile(state)
    events.append(_TILE_DRAWN[seat, state.pending_tile])
    if tile_fits(state):
        state.step = PLACE_LAVA
        return None
    state.tiles_discarded.append(state.pending_tile)
    events.append(Event("tile_discarded", {"seat": seat, "tile": state.pending_tile}))
    return "after_tile"


def cut_off(state: PompeiiState, events: list[Event]) -> None:
    """POM-65 step 3: everyone on a square no open gate reaches goes to the volcano."""
    people = state.people
    anyone = 0
    for cells in people.where:
        anyone |= cells
    lost = cut_off_cells(state, anyone)
    if not lost:
        return
    p = state.seats
    killed = [0] * p
    squares = []
    for c in B.cells_of(lost):
        squares.append(B.sq(c))
        for s in range(p):
            here = people[c * p + s]
            if here:
                killed[s] += here
                state.volcano[s] += here
                people[c * p + s] = 0
    events.append(Event("cut_off", {"squares": squares, "killed": killed}))


def after_tile(state: PompeiiState, events: list[Event]) -> str | None:
    """POM-61: the opening rotation continues; POM-70/76: then the seat due moves, if it has people."""
    state.pending_tile = ""
    state.step = ""
    if not state.board_total():  # POM-81
        return "game_over"
    if state.phase == OPENING:
        state.opening_drawn += 1
        state.turn = (state.turn + 1) % state.seats  # POM-61: the rotation simply continues
        if state.opening_drawn < OPENING_TILES:
            return "next_tile"
        state.phase = ESCAPE
        return "start_turn"
    if not state.on_board(state.turn):  # POM-76
        return "end_turn"
    state.step = FIRST_MOVE
    return None


def start_turn(state: PompeiiState, events: list[Event]) -> str | None:
    """POM-70: record the seat's lone people (POM-94), then draw the tile."""
    seat = state.turn
    p = state.seats
    people = state.people
    state.lone = tuple(c for c in B.cells_of(people.where[seat]) if people[c * p + seat] == 1 and people.crowd[c] == 1)
    state.moves_made = 0
    state.first_end = -1
    state.first_lone = False
    events.append(Event("turn_started", {"seat": seat, "lone_squares": [B.sq(c) for c in state.lone]}))
    return "next_tile"


def after_move(state: PompeiiState, events: list[Event]) -> str | None:
    """POM-70/76: the second move, unless the seat has nobody left on the board."""
    state.moves_made += 1
    if not state.board_total():  # POM-81
        return "game_over"
    if state.moves_made == 1 and state.on_board(state.turn):  # POM-76: otherwise skipped
        state.step = SECOND_MOVE
        return None
    return "end_turn"


def end_turn(state: PompeiiState, events: list[Event]) -> str | None:
    """POM-80: the game ends with the turn of the last tile; else the seat to the left starts."""
    state.step = ""
    if not sum(state.bag):
        return "last_tile_played"
    state.turn = (state.turn + 1) % state.seats
    return "start_turn"


def _finish(state: PompeiiState, events: list[Event], final: list[int]) -> None:
    state.phase = OVER
    state.step = ""
    state.pending_tile = ""
    out = outcome(state)
    events.append(Event("game_over", {"saved": list(state.saved), "volcano": list(state.volcano),
                                      "winners": list(out.winners), "final_casualties": final}))


def last_tile_played(state: PompeiiState, events: list[Event]) -> None:
    """POM-80: whoever is still in the city perishes."""
    p = state.seats
    final = list(state.people.placed)
    for s in range(p):
        state.volcano[s] += final[s]
    state.people = People([0] * len(state.people), p)
    _finish(state, events, final)


def game_over(state: PompeiiState, events: list[Event]) -> None:
    """POM-81: nobody is left on the board."""
    _finish(state, events, [0] * state.seats)


FLOW = {
    "relatives": relatives,
    "draw": draw,
    "eruption": eruption,
    "declared_eruption": declared_eruption,
    "next_tile": next_tile,
    "after_tile": after_tile,
    "start_turn": start_turn,
    "after_move": after_move,
    "end_turn": end_turn,
    "last_tile_played": last_tile_played,
    "game_over": game_over,
}
