"""What each accepted Pompeii action does (`EFFECTS`), once its check has passed; the turn then
runs on through the flow table (flow.py) to the next decision."""
from __future__ import annotations

from typing import Any

from engines.core import Effect, Event, advance

from . import board as B
from .flow import FLOW, clear_relatives, cut_off
from .geometry import note_lava
from .legality import building_people, is_wild
from .moves import DeclareEruption, MovePerson, OmenTarget, Pass, PlaceLava, PlaceRelative, PlayCard, StopRelatives
from .state import PompeiiState, layout


def cell_of(square) -> int:
    """The cell of a square the check has accepted."""
    return int(square[0]) * B.COLS + int(square[1])


def play_card(state: PompeiiState, seat: int, move: PlayCard, events: list[Event]) -> None:
    """POM-21/22/37: the card is discarded and a person placed (or moved); POM-32: relatives earned."""
    number = move.number
    wild = is_wild(state, number)
    lay = layout(state)
    target = None if move.square is None else cell_of(move.square)
    origin = None if move.origin is None else cell_of(move.origin)  # only a wild move names one (POM-37)
    relatives, building = 0, -1
    if target is not None and not wild and state.first_ad79:
        building = lay.building_at[target]
        relatives = building_people(state, building)  # POM-32: before the placement
    state.hands[seat].remove(number)
    state.discard.append(number)
    data: dict[str, Any] = {"seat": seat, "number": number, "wild": wild}
    if origin is not None:
        state.people[origin * state.seats + seat] -= 1
        data["origin"] = B.sq(origin)
    if target is not None:
        state.people[target * state.seats + seat] += 1
        if origin is None:
            state.supply[seat] -= 1
        data["square"] = B.sq(target)
    events.append(Event("card_played", data))
    if relatives:
        state.relatives_left = relatives
        state.relatives_building = building
        state.relatives_used = []
        events.append(Event("relatives_earned", {"seat": seat, "count": relatives,
                                                 "building": lay.buildings[building].id}))
    advance(FLOW, state, events, "relatives")


def place_relative(state: PompeiiState, seat: int, move: PlaceRelative, events: list[Event]) -> None:
    """POM-33/35: one relative from the supply."""
    cell = cell_of(move.square)
    state.people[cell * state.seats + seat] += 1
    state.supply[seat] -= 1
    state.relatives_left -= 1
    state.relatives_used.append(layout(state).building_at[cell])
    events.append(Event("relative_placed", {"seat": seat, "square": B.sq(cell)}))
    advance(FLOW, state, events, "relatives")


def stop_relatives(state: PompeiiState, seat: int, move: StopRelatives, events: list[Event]) -> None:
    """POM-35: the rest are given up; the seat draws."""
    events.append(Event("relatives_stopped", {"seat": seat, "unplaced": state.relatives_left}))
    clear_relatives(state)
    advance(FLOW, state, events, "draw")


def omen_target(state: PompeiiState, seat: int, move: OmenTarget, events: list[Event]) -> None:
    """POM-31: the victim goes to the volcano; the seat draws again."""
    cell = cell_of(move.square)
    victim = move.seat
    state.people[cell * state.seats + victim] -= 1
    state.volcano[victim] += 1
    events.append(Event("omen_victim", {"seat": seat, "square": B.sq(cell), "victim": victim}))
    advance(FLOW, state, events, "draw")


def declare_eruption(state: PompeiiState, seat: int, move: DeclareEruption, events: list[Event]) -> None:
    """POM-51: phase 1 ends at once."""
    events.append(Event("eruption_declared", {"seat": seat, "hand": sorted(state.hands[seat])}))
    state.eruption_seat = seat
    advance(FLOW, state, events, "declared_eruption")


def place_lava(state: PompeiiState, seat: int, move: PlaceLava, events: list[Event]) -> None:
    """POM-62/64/65: the tile kills everyone on its square, then whoever it cuts off."""
    symbol = move.symbol or B.tile_symbols(state.pending_tile)[0]  # the check accepted it (POM-66)
    cell = cell_of(move.square)
    p = state.seats
    killed = state.people[cell * p:(cell + 1) * p]
    for s in range(p):  # POM-64
        if killed[s]:
            state.volcano[s] += killed[s]
            state.people[cell * p + s] = 0
    note_lava(state, cell, symbol)
    events.append(Event("lava_placed", {"seat": seat, "square": B.sq(cell), "symbol": symbol,
                                        "tile": state.pending_tile, "killed": killed}))
    cut_off(state, events)
    advance(FLOW, state, events, "after_tile")


def move_person(state: PompeiiState, seat: int, move: MovePerson, events: list[Event]) -> None:
    """POM-71..73: one step walk within the allowance, or out through a gate (saved)."""
    origin = cell_of(move.origin)
    allowance = state.on_cell(origin)
    p = state.seats
    state.people[origin * p + seat] -= 1
    if move.target is None:
        state.saved[seat] += 1
        end = -1
        events.append(Event("person_saved", {"seat": seat, "origin": B.sq(origin), "allowance": allowance}))
    else:
        end = cell_of(move.target)
        state.people[end * p + seat] += 1
        events.append(Event("person_moved", {"seat": seat, "origin": B.sq(origin), "target": B.sq(end),
                                             "allowance": allowance}))
    if state.moves_made == 0:
        state.first_lone = origin in state.lone
        state.first_end = end
    advance(FLOW, state, events, "after_move")


def pass_move(state: PompeiiState, seat: int, move: Pass, events: list[Event]) -> None:
    """POM-75: a move of zero steps."""
    events.append(Event("passed", {"seat": seat}))
    if state.moves_made == 0:
        state.first_end = -1
        state.first_lone = False
    advance(FLOW, state, events, "after_move")


EFFECTS: dict[type, Effect] = {
    PlayCard: play_card,
    PlaceRelative: place_relative,
    StopRelatives: stop_relatives,
    OmenTarget: omen_target,
    DeclareEruption: declare_eruption,
    PlaceLava: place_lava,
    MovePerson: move_person,
    Pass: pass_move,
}
