"""What may be done (docs/rules/pompeii.md): each rule one small predicate, used by the move
generator `legal_moves` and by the check of its move kind (`CHECKS`), which cites the rule.

Decisions (POM-91): the engine waits for an explicit action at every decision point in every
phase, even a forced one (a single legal tile square, a single target).
"""
from __future__ import annotations

from typing import NamedTuple

from engines.core import Check, IllegalMove

from . import board as B
from .geometry import lava_targets, open_cells, tile_options, walk
from .moves import DeclareEruption, MovePerson, OmenTarget, Pass, PlaceLava, PlaceRelative, PlayCard, StopRelatives
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
    SETTLE,
    PompeiiState,
    layout,
)

# ---------------------------------------------------------------- the move values, made once

_SQ = B.SQUARES
_CARD_AT = {n: tuple(PlayCard(n, _SQ[c]) for c in range(B.CELLS)) for n in range(1, 12)}  # POM-22/37
_CARD_ALONE = {n: PlayCard(n) for n in range(1, 12)}
_RELATIVE_AT = tuple(PlaceRelative(_SQ[c]) for c in range(B.CELLS))
_OMEN_AT = tuple(tuple(OmenTarget(_SQ[c], victim) for victim in range(4)) for c in range(B.CELLS))  # POM-1: 4 seats
_LAVA_AT = {sym: tuple(PlaceLava(_SQ[c], sym) for c in range(B.CELLS)) for sym in ("", *B.SYMBOLS)}
_STEP_TO = tuple(tuple(MovePerson(_SQ[o], _SQ[t]) for t in range(B.CELLS)) for o in range(B.CELLS))
_LEAVE_FROM = tuple(MovePerson(_SQ[o], None) for o in range(B.CELLS))
_STOP, _PASS, _DECLARE = StopRelatives(), Pass(), DeclareEruption()

# ---------------------------------------------------------------- phase 1: buildings and cards


def free_slots(state: PompeiiState, cell: int) -> int:
    return layout(state).slots_at[cell] - state.on_cell(cell)


def building_people(state: PompeiiState, building: int) -> int:
    crowd = state.people.crowd
    n = 0
    for c in layout(state).buildings[building].squares:
        n += crowd[c]
    return n


def is_wild(state: PompeiiState, number: int) -> bool:
    """POM-36: every slot of every building bearing the number is occupied."""
    crowd = state.people.crowd
    for c, slots in layout(state).number_rooms[number]:
        if crowd[c] < slots:
            return False
    return True


def _free(state: PompeiiState, rooms: B.Rooms) -> list[int]:
    crowd = state.people.crowd
    return [c for c, slots in rooms if crowd[c] < slots]


def all_free_cells(state: PompeiiState) -> list[int]:
    return _free(state, layout(state).wild_rooms[True])


def wild_cells(state: PompeiiState) -> list[int]:
    """POM-37: free slots a wild card may fill; POM-33: not a neutral building (seeds 000, 001)."""
    return _free(state, layout(state).wild_rooms[state.options["wild_card_neutral_buildings"]])


def placement_cells(state: PompeiiState, seat: int, number: int, wild: bool) -> list[int]:
    """POM-22/37: the free slots a card places a person on; none once the seat's supply is empty."""
    if not state.supply[seat]:
        return []
    return wild_cells(state) if wild else _free(state, layout(state).number_rooms[number])


def may_play_without_square(state: PompeiiState, wild: bool, cells: list[int]) -> bool:
    """POM-22/37: a card goes with no square when nothing can be placed, a wild one also by choice."""
    return not cells or (wild and not state.options["wild_placement_compulsory"])


def moves_existing(state: PompeiiState, wild: bool) -> bool:
    """POM-37 flag wild_card_moves_existing: a wild card moves one's own person, or declines."""
    return wild and state.options["wild_card_moves_existing"]


def into_another_building(state: PompeiiState, origin: int, target: int) -> bool:
    """POM-37 flag: a wild move ends in another building than it starts."""
    lay = layout(state)
    return lay.building_at[target] != lay.building_at[origin]


def can_declare(state: PompeiiState, seat: int) -> bool:
    """POM-51: phase 1 and the whole hand is wild."""
    hand = state.hands[seat]
    if state.phase != SETTLE or not hand:
        return False
    for number in set(hand):
        if not is_wild(state, number):
            return False
    return True


def relative_cells(state: PompeiiState) -> list[int]:
    """POM-33/34: free slots of eligible buildings for the next relative."""
    lay = layout(state)
    used = state.relatives_used if state.options["relatives_one_per_building"] else ()
    crowd = state.people.crowd
    rooms = lay.rooms
    return [c for b in lay.relative_targets(state.relatives_building) if b not in used
            for c, slots in rooms[b] if crowd[c] < slots]


def omen_may_take(state: PompeiiState, seat: int, cell: int, victim: int) -> bool:
    """POM-31: an Omen drawn by `seat` may take a person of `victim` (a seat) on `cell`."""
    return bool(state.people[cell * state.seats + victim]) and victim in omen_victims(state, seat)


def omen_victims(state: PompeiiState, seat: int) -> list[int]:
    """POM-31: the seats whose people an Omen drawn by `seat` may take (its own only with omen_targets "any")."""
    mine = state.options["omen_targets"] == "any"
    return [victim for victim in range(state.seats) if victim != seat or mine]


def omen_targets(state: PompeiiState, seat: int) -> list[tuple[int, int]]:
    """POM-31: (cell, owner) of people an Omen may take, in cell order."""
    p = state.seats
    people = state.people
    victims = omen_victims(state, seat)
    cells = 0
    for victim in victims:
        cells |= people.where[victim]
    return [(c, victim) for c in B.cells_of(cells) for victim in victims if people[c * p + victim]]


def omen_has_target(state: PompeiiState, seat: int) -> bool:
    """POM-25/31: whether an Omen drawn by `seat` has anybody to take."""
    where = state.people.where
    return any(where[victim] for victim in omen_victims(state, seat))


# ---------------------------------------------------------------- phase 2: people


def may_move_from(state: PompeiiState, seat: int, cell: int) -> bool:
    """POM-74/94: whether the seat has a person on cell that may make this move."""
    here = state.count(cell, seat)
    if not here:
        return False
    if state.moves_made == 0 or state.first_end != cell:
        return True
    if here > 1:  # an unmoved person shares the square
        return True
    return state.first_lone or state.on_board(seat) == 1  # POM-74 (a) / (b)


# Walks remembered: a pure function of the open cells near the origin, so turns, games and every
# determinization share them; emptied when full.
_WALKS: dict[tuple[int, int, int], tuple[tuple[MovePerson, ...], int, bool]] = {}
_WALKS_KEPT = 20_000


def person_steps(open_: int, origin: int, allowance: int) -> tuple[tuple[MovePerson, ...], int, bool]:
    """POM-71..73: one person's moves from origin (each reachable square in increasing order, then
    leaving when an open gate is within allowance - 1 steps), the reachable cells as a mask, and
    whether it may leave. Gate squares are never vents (board.json), so open gates are open cells."""
    bounds = B.NEAR[origin]
    open_ &= bounds[allowance] if allowance <= B.FARTHEST else bounds[-1]
    key = (open_, origin, allowance)
    found = _WALKS.get(key)
    if found is None:
        reach, near = walk(open_, origin, allowance)
        leave = bool(near & open_ & B.GATE_MASK)
        row = _STEP_TO[origin]
        moves = tuple([row[t] for t in B.cells_of(reach & ~(1 << origin))])
        if leave:
            moves += (_LEAVE_FROM[origin],)
        if len(_WALKS) >= _WALKS_KEPT:
            _WALKS.clear()
        found = _WALKS[key] = (moves, reach, leave)
    return found


def movable_people(state: PompeiiState, seat: int) -> list[tuple[MovePerson, ...]]:
    """POM-71..74: the moves of each person of `seat` that may move, square by square. Only the
    square where this turn's first move ended may hold a person who may not (POM-74)."""
    open_ = open_cells(state)
    crowd = state.people.crowd
    barred = state.first_end if state.moves_made and not may_move_from(state, seat, state.first_end) else -1
    return [person_steps(open_, origin, crowd[origin])[0]  # POM-71: the allowance
            for origin in B.cells_of(state.people.where[seat]) if origin != barred]


def may_pass(state: PompeiiState, can_move: bool) -> bool:
    """POM-75: a pass only when no move is possible, unless pass_anytime."""
    return not can_move or state.options["pass_anytime"]


# ---------------------------------------------------------------- the move generator


def wild_moves(state: PompeiiState, seat: int, number: int) -> list:
    """POM-37 flag wild_card_moves_existing: decline, or one's own person to another building."""
    out: list = [_CARD_ALONE[number]]
    free = wild_cells(state)
    for origin in B.cells_of(state.people.where[seat]):
        out.extend(PlayCard(number, _SQ[t], _SQ[origin]) for t in free if into_another_building(state, origin, t))
    return out


def card_moves(state: PompeiiState, seat: int) -> list:
    out: list = []
    rooms = layout(state).number_rooms
    crowd = state.people.crowd
    for number in sorted(set(state.hands[seat])):
        free = [c for c, slots in rooms[number] if crowd[c] < slots]
        wild = not free  # POM-36
        if moves_existing(state, wild):
            out += wild_moves(state, seat, number)
            continue
        cells = free if free and state.supply[seat] else placement_cells(state, seat, number, wild)
        row = _CARD_AT[number]
        out += [row[c] for c in cells]
        if may_play_without_square(state, wild, cells):
            out.append(_CARD_ALONE[number])
    return out


def relative_moves(state: PompeiiState, seat: int) -> list:
    return [_RELATIVE_AT[c] for c in relative_cells(state)] + [_STOP]


def omen_moves(state: PompeiiState, seat: int) -> list:
    return [_OMEN_AT[c][victim] for c, victim in omen_targets(state, seat)]


def lava_moves(state: PompeiiState, seat: int) -> list:
    return [_LAVA_AT[symbol][c] for symbol, c in tile_options(state)]


def person_moves(state: PompeiiState, seat: int) -> list:
    out: list = []
    for moves in movable_people(state, seat):
        out += moves
    if may_pass(state, bool(out)):
        out.append(_PASS)
    return out


DECISIONS = {PLAY_CARD: card_moves, RELATIVES: relative_moves, OMEN: omen_moves, PLACE_LAVA: lava_moves,
             FIRST_MOVE: person_moves, SECOND_MOVE: person_moves}  # the due seat's moves per step


def legal_moves(state: PompeiiState, seat: int) -> list:
    if state.phase == OVER or not 0 <= seat < state.seats:
        return []
    decide = DECISIONS.get(state.step) if seat == state.turn else None
    out = decide(state, seat) if decide else []
    if can_declare(state, seat):  # POM-92: out of turn too
        out.append(_DECLARE)
    return out


def seats_to_act(state: PompeiiState) -> list[int]:
    if state.phase == OVER:
        return []
    if state.phase == SETTLE:  # POM-92: any seat that may declare
        return [seat for seat in range(state.seats) if seat == state.turn or can_declare(state, seat)]
    return [state.turn]


# ---------------------------------------------------------------- the checks (state untouched)


def to_cell(square, rule: str) -> int:
    """The cell of a move's (row, col), refused under `rule` when it is no city square (POM-3)."""
    try:
        cell = B.CELL_AT.get(square)
    except TypeError:  # unhashable: not a (row, col) tuple
        cell = None
    if cell is not None:
        return cell
    try:
        r, c = square
        r, c = int(r), int(c)
    except (TypeError, ValueError):
        raise IllegalMove(rule, f"{square!r} is not a square.") from None
    if not (0 <= r < B.ROWS and 0 <= c < B.COLS) or not B.IS_CITY[r * B.COLS + c]:
        raise IllegalMove("POM-3", f"[{r}, {c}] is not a city square.")
    return r * B.COLS + c


class When(NamedTuple):
    """When a move kind may be made: its phases, and the decisions of the seat due it answers."""

    phases: tuple[str, ...]
    rule: str  # the rule, and its sentence, that a move in another phase breaks
    sentence: str
    steps: tuple[str, ...] | None  # None: any seat, whatever is pending (POM-92)
    step_rule: str = ""
    what: str = ""


_RELATIVES_ONLY = "Relatives are placed only in phase 1."
WHEN = {
    PlayCard: When((SETTLE,), "POM-20", "Cards are played only in phase 1.", (PLAY_CARD,), "POM-20", "play a card"),
    PlaceRelative: When((SETTLE,), "POM-35", _RELATIVES_ONLY, (RELATIVES,), "POM-35", "place a relative"),
    StopRelatives: When((SETTLE,), "POM-35", _RELATIVES_ONLY, (RELATIVES,), "POM-35", "stop placing relatives"),
    OmenTarget: When((SETTLE,), "POM-31", "Omens act only in phase 1.", (OMEN,), "POM-31", "choose an Omen victim"),
    DeclareEruption: When((SETTLE,), "POM-51", "The eruption can be declared only in phase 1.", None),
    PlaceLava: When((OPENING, ESCAPE), "POM-60", "Lava tiles are placed only after the eruption.", (PLACE_LAVA,),
                    "POM-70", "place a lava tile"),
    MovePerson: When((ESCAPE,), "POM-70", "People move only in phase 2.", (FIRST_MOVE, SECOND_MOVE), "POM-70",
                     "move a person"),
    Pass: When((ESCAPE,), "POM-75", "Passing is a phase-2 move.", (FIRST_MOVE, SECOND_MOVE), "POM-75", "pass"),
}


def check_seat(state: PompeiiState, seat: int, move) -> None:
    """POM-1/91/92: a real seat, a Pompeii action of this phase, made by the seat due to act."""
    if not isinstance(seat, int) or not 0 <= seat < state.seats:
        raise IllegalMove("POM-1", f"There is no seat {seat!r}.")
    when = WHEN.get(type(move))
    if when is None:
        raise IllegalMove("POM-91", f"{move!r} is not a Pompeii action.")
    if state.phase not in when.phases:
        raise IllegalMove(when.rule, when.sentence)
    if when.steps is None:
        return
    if seat != state.turn:
        raise IllegalMove("POM-92", f"Seat {seat} is not due to act; only seat {state.turn} may {when.what}.")
    if state.step not in when.steps:
        raise IllegalMove(when.step_rule, f"Seat {seat} cannot {when.what} now (the pending decision is {state.step}).")


def check_play_card(state: PompeiiState, seat: int, move: PlayCard) -> None:
    if move.number not in state.hands[seat]:
        raise IllegalMove("POM-21", f"Seat {seat} holds no card {move.number!r}.")
    wild = is_wild(state, move.number)
    target = None if move.square is None else to_cell(move.square, "POM-22")
    origin = None if move.origin is None else to_cell(move.origin, "POM-37")
    if moves_existing(state, wild):
        _check_wild_move(state, seat, move, origin, target)
    else:
        _check_placement(state, seat, move, wild, origin, target)


def _check_wild_move(state: PompeiiState, seat: int, move: PlayCard, origin, target) -> None:
    """POM-37 flag: from one's own person to a free slot of another building, or decline."""
    if (origin is None) != (target is None):
        raise IllegalMove("POM-37", "A wild card moves a person from one square to another, or declines.")
    if origin is None:
        return
    if not state.count(origin, seat):
        raise IllegalMove("POM-37", f"Seat {seat} has nobody on {list(move.origin or ())}.")
    if target not in wild_cells(state) and target in all_free_cells(state):
        raise IllegalMove("POM-33", "Neutral buildings are filled only by relatives, never by a card.")
    if target not in wild_cells(state) or not into_another_building(state, origin, target):
        raise IllegalMove("POM-37", "The person must go to a free slot in another building.")


def _check_placement(state: PompeiiState, seat: int, move: PlayCard, wild: bool, origin, target) -> None:
    """POM-22/37: a new person on a free slot of the card's building(s), or none when allowed."""
    rule = "POM-37" if wild else "POM-22"
    if origin is not None:
        raise IllegalMove(rule, "Only a wild card with wild_card_moves_existing moves a person.")
    cells = placement_cells(state, seat, move.number, wild)
    if target is None and may_play_without_square(state, wild, cells):
        return
    if target is not None and not cells:
        raise IllegalMove(rule, "No placement is possible; the card is played with no square.")
    if target not in cells:
        if wild and target in all_free_cells(state):
            raise IllegalMove("POM-33", "Neutral buildings are filled only by relatives, never by a card.")
        where = "a free slot of a numbered building" if wild else f"a free slot of a building numbered {move.number}"
        raise IllegalMove(rule, f"The person must go on {where}.")


def check_place_relative(state: PompeiiState, seat: int, move: PlaceRelative) -> None:
    cell = to_cell(move.square, "POM-33")
    if cell in relative_cells(state):
        return
    building = layout(state).building_at[cell]
    if building == state.relatives_building:
        raise IllegalMove("POM-33", "A relative may never go into the building just entered.")
    if building >= 0 and building in state.relatives_used and free_slots(state, cell) > 0:
        raise IllegalMove("POM-34", "Each building takes at most one relative per turn.")
    raise IllegalMove("POM-33", f"{list(move.square)} is not a free slot of the same colour or a neutral building.")


def check_stop_relatives(state: PompeiiState, seat: int, move: StopRelatives) -> None:
    """POM-35: the remaining relatives may always be given up (the seat check covers when)."""


def check_omen_target(state: PompeiiState, seat: int, move: OmenTarget) -> None:
    cell = to_cell(move.square, "POM-31")
    victim = move.seat
    if not (isinstance(victim, int) and 0 <= victim < state.seats and omen_may_take(state, seat, cell, victim)):
        raise IllegalMove("POM-31", f"The Omen cannot take a person of seat {move.seat!r} on {list(move.square)}.")


def check_declare(state: PompeiiState, seat: int, move: DeclareEruption) -> None:
    if not can_declare(state, seat):
        raise IllegalMove("POM-51", f"Seat {seat} may declare only when every card in its hand is wild.")


def lava_symbol(state: PompeiiState, move: PlaceLava) -> str:
    """POM-62/66: the symbol the tile counts as; refused when the move names another."""
    symbols = B.tile_symbols(state.pending_tile)
    if len(symbols) == 1:
        if move.symbol not in ("", symbols[0]):
            raise IllegalMove("POM-62", f"The tile is a {symbols[0]} tile, not {move.symbol!r}.")
        return symbols[0]
    if move.symbol not in symbols:
        raise IllegalMove("POM-66", f"Choose one symbol of the dual-vent tile: {' or '.join(symbols)}.")
    return move.symbol


def check_place_lava(state: PompeiiState, seat: int, move: PlaceLava) -> None:
    symbol = lava_symbol(state, move)
    cell = to_cell(move.square, "POM-62")
    if not lava_targets(state, symbol) >> cell & 1:
        if state.lava[cell]:
            raise IllegalMove("POM-64", f"{list(move.square)} is already covered.")
        raise IllegalMove("POM-62", f"A {symbol} tile cannot go on {list(move.square)}.")


def check_move_person(state: PompeiiState, seat: int, move: MovePerson) -> None:
    origin = to_cell(move.origin, "POM-71")
    if not state.count(origin, seat):
        raise IllegalMove("POM-71", f"Seat {seat} has nobody on {list(move.origin)}.")
    if not may_move_from(state, seat, origin):
        raise IllegalMove("POM-74", "The person who made the first move may move again only if it was alone "
                                    "at the start of the turn or is the seat's last person.")
    allowance = state.on_cell(origin)
    _moves, reach, leave = person_steps(open_cells(state), origin, allowance)
    if move.target is None:
        if not leave:
            raise IllegalMove("POM-73", f"No open gate is within {allowance - 1} steps of {list(move.origin)}.")
        return
    target = to_cell(move.target, "POM-72")
    if target == origin:
        raise IllegalMove("POM-75", "A move of zero steps is a pass.")
    if not reach >> target & 1:
        raise IllegalMove("POM-72", f"{list(move.target)} is not reachable from {list(move.origin)} "
                                    f"within {allowance} steps.")


def check_pass(state: PompeiiState, seat: int, move: Pass) -> None:
    can_move = any(movable_people(state, seat))
    if not may_pass(state, can_move):
        raise IllegalMove("POM-75", "Both moves must be made, by two different people, while a move is possible.")


CHECKS: dict[type, Check] = {
    PlayCard: check_play_card,
    PlaceRelative: check_place_relative,
    StopRelatives: check_stop_relatives,
    OmenTarget: check_omen_target,
    DeclareEruption: check_declare,
    PlaceLava: check_place_lava,
    MovePerson: check_move_person,
    Pass: check_pass,
}
