"""Citadels (classic base game, 2-7 players) rules engine. See docs/rules/citadels.md."""
from __future__ import annotations

import random
from typing import Any

from . import rules, views
from .moves import MOVE_KINDS, PRIVATE_MOVES  # noqa: F401  (MOVE_KINDS: the name every engine exports)
from .spec import SPEC
from .state import CitadelsState


class CitadelsGame:
    spec = SPEC
    game_id, min_seats, max_seats, seats_rule = SPEC.game_id, SPEC.min_seats, SPEC.max_seats, SPEC.seats_rule

    def default_options(self) -> dict[str, Any]:
        return dict(rules.DEFAULT_OPTIONS)

    def new_state(self, seats, options, seed) -> CitadelsState:
        return rules.new_state(seats, options, seed)

    def seats_to_act(self, state) -> list[int]:
        seat = rules.to_move(state)
        return [] if seat is None else [seat]

    def legal_moves(self, state, seat):
        return rules.legal_moves(state, seat)

    def apply(self, state, seat, move):
        return rules.apply(state, seat, move)

    def view(self, state, seat):
        return views.view(state, seat)

    def is_over(self, state) -> bool:
        return state.phase == "over"

    def outcome(self, state):
        return rules.outcome(state)

    def clone(self, state):
        return state.clone()

    def determinize(self, view, seat, rng: random.Random):
        return views.determinize(view, seat, rng)

    def move_is_private(self, move) -> bool:
        return isinstance(move, PRIVATE_MOVES)  # CIT-10/11: secret picks, kept and discarded cards

    def log_revealed_after_end(self, state) -> bool:
        return bool(state.opts["reveal_log_after_end"])  # CIT-11: withheld moves and the seed stay withheld after the end by default

    def to_move(self, state):
        return rules.to_move(state)

    def current_player(self, state):
        if state.phase == "over":
            return None
        return state.picker if state.phase == "selection" else state.active  # the Graveyard owner answers out of turn


GAME = CitadelsGame()
