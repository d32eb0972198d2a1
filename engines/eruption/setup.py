"""Options and setup (ERU-1, ERU-5, ERU-16, ERU-31, ERU-32): the state a new game starts from."""
from __future__ import annotations

import random

from engines.core import InvalidOptions, advance

from . import board as B
from . import draws
from .flow import FLOW
from .spec import SPEC
from .state import PLACEMENT, UNCLAIMED, Cells, EruptionState

# Configuration flags (spec.py): name -> (default, allowed values)
FLAGS = {o.name: (o.default, o.allowed) for o in SPEC.options}


def default_options():
    return SPEC.defaults()


def check_options(seats, options):
    """ERU-1: 2 to 6 players; every option known and of an allowed value. Returns every flag."""
    if not isinstance(seats, int) or not 2 <= seats <= 6:
        raise InvalidOptions("ERU-1", f"Eruption is for 2 to 6 players, not {seats}.")
    full = default_options()
    for name, value in dict(options or {}).items():
        if name not in FLAGS:
            raise InvalidOptions("ERU-1", f"unknown option {name!r}"[:200])
        default, allowed = FLAGS[name]
        if type(value) is not type(default) or value not in allowed:
            raise InvalidOptions("ERU-1", f"option {name!r} must be one of {list(allowed)}, not {value!r}"[:200])
        full[name] = value
    return full


def deck_for(options):
    """ERU-5: the action deck, Rain left out with exclude_rain_cards."""
    deck = []
    for kind in B.CARD_KINDS:
        if kind == "rain" and options["exclude_rain_cards"]:
            continue
        deck += [kind] * B.CARD_COUNT[kind]
    return deck


def new_state(seats, options, seed):
    """ERU-31: shuffle the stack and the deck, deal 3 cards each, draw the first player (ERU-32),
    then run the first turn up to its first decision."""
    options = check_options(seats, options)
    state = EruptionState.__new__(EruptionState)
    state.seats = seats
    state.options = options
    state.rng = random.Random(seed)
    state.villages = B.VILLAGES_BY_COUNT[seats]  # ERU-16
    state.temperatures = [0] * seats
    state.stockpiles = [[1, 1, 1] for _ in range(seats)]  # ERU-31.4
    state.supply = [B.SUPPLY[i] - seats for i in range(3)]
    state.stack = list(B.LAVA_TILE_IDS)  # ERU-31.1
    draws.shuffle(state.rng, state.stack)
    state.draw_pile = deck_for(options)  # ERU-31.3
    draws.shuffle(state.rng, state.draw_pile)
    state.hands = [sorted(state.draw_pile.pop() for _ in range(B.STARTING_CARDS)) for _ in range(seats)]
    state.discard = []
    state.board, state.lava, state.walls = Cells(), Cells(), {}
    state.eruption_holder = [-1, -1, -1]
    state.eruption_status = [UNCLAIMED] * 3
    state.first_player = draws.below(state.rng, seats)  # ERU-32: as rng.randrange(seats) draws
    state.active = state.first_player
    state.turn = 0
    state.phase = PLACEMENT
    state.drawn_tile = state.quake_tile = -1
    state.placement_origin = ""
    state.excluded = set()
    state.eruptions_placed = state.walls_built = 0
    state.end_trigger = ""
    state.trigger_seat = state.turns_left = -1
    state.removed_tiles, state.burnout_removed = [], []
    state.removed_walls = [0, 0, 0]
    state.derived = None
    advance(FLOW, state, [], "turn_start")
    return state
