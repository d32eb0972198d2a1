"""Options and the initial state (SW-20 - SW-26, NEC-2 - NEC-7)."""
from __future__ import annotations

import random

from engines.core import InvalidOptions

from . import data as D
from .flow import start_turn
from .resolution import refill_row
from .spec import SPEC
from .state import NECRO_SETUP, blank

LOST = D.LOST_TRIBE

DEFAULTS = SPEC.defaults()  # ED-n: the edition decisions and the Necromancer switch (spec.py)

CHOICES = SPEC.choices(str)

SUPPORTED_ONLY = {o.name: o.allowed[0] for o in SPEC.options if o.type is bool and len(o.allowed) == 1}

SEATS = {bool(r.options.get("necromancer")): (r.min_seats, r.max_seats) for r in SPEC.seat_ranges}  # SW-20, NEC-2


def normalize_options(seats, options):
    """The defaults with the caller's options, each checked (ED-0) and checked together."""
    chosen = dict(DEFAULTS)
    for name, value in (options or {}).items():
        chosen[name] = typed_option(name, value)
    for name, allowed in CHOICES.items():
        if chosen[name] not in allowed:
            raise InvalidOptions("ED-0", f"option {name} must be one of {', '.join(allowed)}")
    for name, value in SUPPORTED_ONLY.items():
        if chosen[name] != value:
            raise InvalidOptions("ED-36", f"option {name}={chosen[name]} is not supported by this engine")
    if not 1 <= chosen["combo_row_size"] <= 6:
        raise InvalidOptions("ED-2", "combo_row_size must be 1..6")
    if not 0 <= chosen["necro_ghosts_removed"] <= 2:
        raise InvalidOptions("NEC-6", "necro_ghosts_removed must be 0, 1 or 2")
    check_seats(seats, chosen)
    return chosen


def typed_option(name, value):
    """ED-0: a known option of its declared type (a seat number may come as an int)."""
    if name not in DEFAULTS:
        raise InvalidOptions("ED-0", f"unknown option {name!r}")
    default = DEFAULTS[name]
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise InvalidOptions("ED-0", f"option {name} must be a boolean")
    elif isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidOptions("ED-0", f"option {name} must be an integer")
    else:
        if isinstance(value, int) and not isinstance(value, bool) and name in ("first_player", "necromancer_seat"):
            value = str(value)
        if not isinstance(value, str):
            raise InvalidOptions("ED-0", f"option {name} must be a string")
    return value


def check_seats(seats, options):
    """SW-20 / NEC-2 seat counts; ED-5 / ED-28 named seats."""
    necromancer = options["necromancer"]
    lo, hi = SEATS[bool(necromancer)]
    if not isinstance(seats, int) or not lo <= seats <= hi:
        raise InvalidOptions("NEC-2" if necromancer else "SW-20",
                             f"{'Necromancer Island' if necromancer else 'Small World'} takes {lo}-{hi} seats, "
                             f"not {seats}")
    for name in ("first_player", "necromancer_seat"):
        value = options[name]
        if value not in ("random", "before_first") and value not in [str(seat) for seat in range(seats)]:
            raise InvalidOptions("ED-28" if name == "necromancer_seat" else "ED-5",
                                 f"option {name} must name a seat 0..{seats - 1}")
    if options["first_player"] == "before_first":
        raise InvalidOptions("ED-5", "first_player must be 'random' or a seat number")
    if options["necromancer_seat"] == "random":
        raise InvalidOptions("ED-28", "necromancer_seat must be 'before_first' or a seat number")


def new_state(seats, options, seed):
    options = normalize_options(seats, options)
    necromancer = options["necromancer"]
    players = seats - 1 if necromancer else seats
    map_key = (f"{players}p", options["map5p_border_13_19"], options["map5p_region28_terrain"])
    board = D.board(*map_key)
    state = blank(seats, options, map_key, board.n)
    state.rng = random.Random(seed)
    state.rounds = board.rounds  # SW-20
    seat_players(state)
    # SW-22 decks; NEC-4 draw before the row is dealt
    state.race_deck = list(range(D.N_RACES))
    state.rng.shuffle(state.race_deck)
    state.power_deck = list(range(D.N_POWERS))
    state.rng.shuffle(state.power_deck)
    if necromancer:
        draw_necromancer_powers(state)
    for k in range(D.N_RACES):
        state.supply[k] = D.BOX[k]
    state.supply[LOST] = D.BOX[LOST]
    for r in range(board.n):  # SW-23 Lost Tribes
        if board.lost_tribe[r]:
            state.occupant[r] = LOST
            state.tokens[r] = 1
            state.supply[LOST] -= 1
    refill_row(state, [])
    if necromancer:
        state.current_seat = state.necromancer
        state.phase = NECRO_SETUP
    else:
        start_turn(state, [])
    return state


def seat_players(state):
    """SW-26 first player; NEC-3 the Necromancer sits right of him (ED-28: or a named volunteer)."""
    options, seats = state.options, state.seats
    if options["necromancer"] and options["necromancer_seat"] != "before_first":
        necromancer = int(options["necromancer_seat"])
        first = (necromancer + 1) % seats
        if options["first_player"] != "random" and int(options["first_player"]) != first:
            raise InvalidOptions("NEC-3", "the first player must sit directly left of the Necromancer")
    else:
        first = state.rng.randrange(seats) if options["first_player"] == "random" else int(options["first_player"])
        necromancer = (first - 1) % seats if options["necromancer"] else -1
    state.first_player = first
    state.necromancer = necromancer
    state.turn_order = [(first + i) % seats for i in range(seats)]
    if options["necromancer"]:
        state.coins[necromancer] = D.START_COINS  # NEC-7


def draw_necromancer_powers(state):
    """NEC-4: six drawable powers for his reserve (ED-29: the rejected ones back into the deck); NEC-5 / NEC-6
    the Ghosts: one on the Island, the rest in reserve."""
    drawn, rejected = [], []
    while len(drawn) < D.NECRO_POWERS_DRAWN:
        p = state.power_deck.pop(0)
        (drawn if D.NECRO_DRAWABLE[p] else rejected).append(p)
    if state.options["necro_rejected_return"]:
        state.power_deck += rejected
        state.rng.shuffle(state.power_deck)
    else:
        state.rejected_powers = rejected
    state.power_reserve = drawn
    state.ghost_reserve = D.GHOST_TOTAL - 1 - state.options["necro_ghosts_removed"]
    state.island = 1
