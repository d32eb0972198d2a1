"""Setting up Citadels (CIT-15..18): the options, the deck, the hands, the gold and the crown."""
from __future__ import annotations

import random

from engines.core import InvalidOptions
from engines.draws import shuffle
from engines.playout import advance

from .cards import CONSTANTS, DECK_SIZE, DISTRICT_NAMES
from .flow import FLOW
from .spec import SPEC
from .state import SELECTION, CitadelsState

# §15 configuration flags (spec.py)
DEFAULT_OPTIONS = SPEC.defaults()
_ENUMS = SPEC.choices(str)
_BOOLS = tuple(SPEC.choices(bool))
_FLAG_RULES = {o.name: o.rule for o in SPEC.options}
STARTING_GOLD = CONSTANTS["starting_gold"]
STARTING_HAND = CONSTANTS["starting_hand"]


GOLD_SUPPLY_MAX = 1_000_000  # a view's gold and bank are int32; a bank this big never runs out anyway


def _int_or_word(value, word, flag):
    """`word`, or a plain decimal integer of at most 9 digits ("30"; not " 30", "+30" or "3_0")."""
    if value == word:
        return word
    if isinstance(value, str) and 0 < len(value) <= 9 and all("0" <= c <= "9" for c in value):
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise InvalidOptions(_FLAG_RULES[flag], f"{flag} must be {word!r} or a decimal integer, not {value!r}")


def normalize_options(seats: int, options) -> dict:
    """Validate flags (§15) and return the full options dict."""
    if not isinstance(seats, int) or not CONSTANTS["players_min"] <= seats <= CONSTANTS["players_max"]:
        raise InvalidOptions("CIT-15", f"Citadels is played by 2 to 7 players, not {seats}")
    chosen = dict(DEFAULT_OPTIONS)
    for key, value in dict(options or {}).items():
        if key not in DEFAULT_OPTIONS:
            raise InvalidOptions("CIT-0", f"unknown flag {key!r}")
        chosen[key] = value
    for key in _BOOLS:
        if not isinstance(chosen[key], bool):
            raise InvalidOptions(_FLAG_RULES[key], f"{key} must be a boolean")
    for key, allowed in _ENUMS.items():
        if chosen[key] not in allowed:
            raise InvalidOptions(_FLAG_RULES[key], f"{key} must be one of {', '.join(allowed)}")
    size = chosen["city_complete_size"]
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= DISTRICT_NAMES:
        raise InvalidOptions("CIT-8", f"city_complete_size must be an integer from 1 to {DISTRICT_NAMES} "
                                      "(a city holds each district name once, CIT-40)")
    supply = _int_or_word(chosen["gold_supply"], "unlimited", "gold_supply")
    if supply != "unlimited" and supply < STARTING_GOLD * seats:
        raise InvalidOptions("CIT-5", f"gold_supply {supply} cannot pay the starting gold of {seats} players")
    if supply != "unlimited" and supply > GOLD_SUPPLY_MAX:
        raise InvalidOptions("CIT-5", f"gold_supply is at most {GOLD_SUPPLY_MAX} (or \"unlimited\")")
    chosen["gold_supply"] = supply
    crown = _int_or_word(chosen["initial_crown"], "random", "initial_crown")
    if crown != "random" and not 0 <= crown < seats:
        raise InvalidOptions("CIT-17", f"initial_crown must be 'random' or a seat 0..{seats - 1}")
    chosen["initial_crown"] = crown
    return chosen


def new_state(seats: int, options, seed: int) -> CitadelsState:
    """CIT-15..18: deal the cards and the gold, give the crown, start the first round."""
    chosen = normalize_options(seats, options)
    state = CitadelsState.__new__(CitadelsState)
    state.seats, state.options, state.rng = seats, chosen, random.Random(seed)
    state.round, state.phase = 0, SELECTION
    state.deck = list(range(DECK_SIZE))
    shuffle(state.rng, state.deck)  # CIT-16
    state.hands = [state.deck[i * STARTING_HAND:(i + 1) * STARTING_HAND] for i in range(seats)]
    del state.deck[:STARTING_HAND * seats]
    state.gold = [STARTING_GOLD] * seats
    state.bank = -1 if chosen["gold_supply"] == "unlimited" else chosen["gold_supply"] - STARTING_GOLD * seats
    crown = chosen["initial_crown"]
    state.crown = state.rng.randrange(seats) if crown == "random" else crown  # CIT-17
    state.cities = [[] for _ in range(seats)]
    state.built_in = [-1] * DECK_SIZE
    state.discard_pile = []
    state.known_hand = [[] for _ in range(seats)]
    state.deck_known = {}
    state.first_completer, state.complete_round, state.final_round = -1, 0, False
    state.last_murdered_seat, state.result = -1, None
    advance(FLOW, state, [], "start_round")  # CIT-18
    return state
