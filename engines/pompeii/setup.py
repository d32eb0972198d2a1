"""Setting up a game of The Downfall of Pompeii (POM-10..15): options, the deck, hands, pieces, the bag."""
from __future__ import annotations

import random

from engines.core import InvalidOptions

from . import board as B
from .spec import SPEC
from .state import PompeiiState

DEFAULT_OPTIONS = SPEC.defaults()  # POM-10 / section 10: every flag (spec.py)
_CHOICES = SPEC.choices(str)

# POM-12: the deck's draw positions, 1 the top card: two piles of Pompeii cards, the first AD79,
# then pile A's Pompeii cards and Omens, the last `bottom_block_size` of them shuffled with the
# second AD79. `build_deck` deals this structure and `view.determinize` resamples it.
PILE_DRAWS = 2 * B.PILE_SIZE
FIRST_AD79_DRAW = PILE_DRAWS + 1


def bottom_block_start(seats: int) -> int:
    """POM-12 step 3: the first draw position of the bottom block (the second AD79's range)."""
    return B.DECK_SIZE - B.bottom_block_size(seats) + 1


def validate_options(seats, options) -> dict:
    """POM-10: refuse bad seat counts, unknown flags and bad values."""
    if not isinstance(seats, int) or isinstance(seats, bool) or not 2 <= seats <= 4:
        raise InvalidOptions("POM-10", f"The Downfall of Pompeii needs 2 to 4 players, not {seats!r}.")
    chosen = dict(DEFAULT_OPTIONS)
    for name, value in dict(options or {}).items():
        if name not in DEFAULT_OPTIONS:
            raise InvalidOptions("POM-10", f"Unknown flag {name!r}.")
        if name in _CHOICES:
            if value not in _CHOICES[name]:
                raise InvalidOptions("POM-10", f"Flag {name} must be one of {_CHOICES[name]}, not {value!r}.")
        elif not isinstance(value, bool):
            raise InvalidOptions("POM-10", f"Flag {name} must be true or false, not {value!r}.")
        chosen[name] = value
    if chosen["dual_vent_tiles"] and chosen["edition"] != "2013":
        raise InvalidOptions("POM-10", "dual_vent_tiles needs edition \"2013\" (POM-66).")
    return chosen


def build_deck(seats: int, rng: random.Random) -> tuple[list[int], list[list[int]]]:
    """POM-12: the 42-card deck (top card last) and the 5 remaining piles."""
    pompeii = [number for number, k in sorted(B.CARD_COUNTS.items()) for _ in range(k)]
    rng.shuffle(pompeii)
    size = B.PILE_SIZE
    piles = [pompeii[i * size:(i + 1) * size] for i in range(B.PILES)]
    pile_a = pompeii[B.PILES * size:] + [B.OMEN] * B.OMEN_COUNT
    rng.shuffle(pile_a)
    from_a = B.DECK_SIZE - bottom_block_start(seats)  # pile A's cards in the bottom block
    bottom = pile_a[:from_a] + [B.AD79]
    rng.shuffle(bottom)
    middle = pile_a[from_a:]
    top_down = piles[0] + piles[1] + [B.AD79] + middle + bottom
    return top_down[::-1], piles[2:]


def new_state(seats: int, options, seed: int) -> PompeiiState:
    """POM-11..15: deal the hands (POM-13), give the pieces (POM-11) and fill the bag (POM-14)."""
    chosen = validate_options(seats, options)
    state = PompeiiState(seats, chosen, random.Random(seed))
    deck, piles = build_deck(seats, state.rng)
    state.rng.shuffle(piles)  # POM-13: each seat gets a pile at random
    state.deck = deck
    state.hands = [list(piles[seat]) for seat in range(seats)]
    state.unused = [card for pile in piles[seats:] for card in pile]
    state.supply = [B.PIECES[chosen["edition"]][seats]] * seats  # POM-11
    bag = list(B.TILE_COUNTS) + [0] * len(B.DUAL_KINDS)  # POM-14
    if chosen["dual_vent_tiles"]:
        bag[len(B.SYMBOLS):] = [B.DUAL_COUNT_EACH] * len(B.DUAL_KINDS)
    state.bag = bag
    return state
