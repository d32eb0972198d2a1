"""Kuhn poker setup: the options (KP-1), the ante (KP-3) and the deal (KP-4)."""
from __future__ import annotations

import json
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engines.core import InvalidOptions

from .spec import SPEC
from .state import BETTING, KuhnState

_DATA = json.loads((Path(__file__).parent / "data" / "cards.json").read_text())
RANKS: tuple[str, ...] = tuple(_DATA["ranks"])  # KP-2: J < Q < K
BET: int = _DATA["bet"]


def check_options(seats: int, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """KP-1: two seats; every option one of its allowed values (spec.py)."""
    if seats != 2 or isinstance(seats, bool):
        raise InvalidOptions("KP-1", f"Kuhn poker is for 2 players, not {seats!r}.")
    resolved = SPEC.defaults()
    for name, value in dict(options or {}).items():
        if name not in resolved:
            raise InvalidOptions("KP-1", f"Unknown option {name!r}.")
        option = SPEC.option(name)
        if type(value) is not option.type or value not in option.allowed:
            raise InvalidOptions(option.rule, f"Option {name} must be one of {list(option.allowed)}, not {value!r}.")
        resolved[name] = value
    return resolved


def new_state(seats: int, options: Mapping[str, Any], seed: int) -> KuhnState:
    state = KuhnState()
    state.seats, state.options = seats, check_options(seats, options)
    state.rng = random.Random(seed)
    deck = list(RANKS)
    state.rng.shuffle(deck)  # KP-4: one card to each seat, the third unseen
    state.cards = deck[:2]
    state.actions, state.stakes = [], [state.options["ante"]] * 2  # KP-3
    state.turn, state.phase, state.folded = 0, BETTING, -1
    return state
