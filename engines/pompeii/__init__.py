"""The Downfall of Pompeii (game id "pompeii"): rules in docs/rules/pompeii.md."""
from __future__ import annotations

import random

from engines.core import Outcome

from . import rules, views
from .moves import (MOVE_KINDS, DeclareEruption, MovePerson, OmenTarget, Pass, PlaceLava, PlaceRelative,
                    PlayCard, StopRelatives)
from .spec import SPEC
from .state import OVER, PompeiiState

__all__ = ["GAME", "PompeiiGame", "PompeiiState", "MOVE_KINDS", "PlayCard", "PlaceRelative", "StopRelatives",
           "OmenTarget", "DeclareEruption", "PlaceLava", "MovePerson", "Pass"]


class PompeiiGame:
    spec = SPEC
    game_id, min_seats, max_seats, seats_rule = SPEC.game_id, SPEC.min_seats, SPEC.max_seats, SPEC.seats_rule

    def default_options(self) -> dict:
        return dict(rules.DEFAULT_OPTIONS)

    def new_state(self, seats, options, seed) -> PompeiiState:
        return rules.new_state(seats, options, seed)

    def seats_to_act(self, state) -> list[int]:
        return rules.seats_to_act(state)

    def legal_moves(self, state, seat) -> list:
        return rules.legal_moves(state, seat)

    def apply(self, state, seat, move) -> list:
        return rules.apply(state, seat, move)

    def view(self, state, seat) -> dict:
        return views.view(state, seat)

    def is_over(self, state) -> bool:
        return state.phase == OVER

    def outcome(self, state) -> Outcome:
        return rules.outcome(state)

    def clone(self, state) -> PompeiiState:
        return state.clone()

    def determinize(self, view, seat, rng: random.Random) -> PompeiiState:
        return views.determinize(view, seat, rng)

    def move_is_private(self, move) -> bool:
        return False  # POM-91: every accepted action is public

    def log_revealed_after_end(self, state) -> bool:
        return bool(state.options["reveal_log_after_end"])  # POM-90 over POM-93: the seed reveals the unused piles, hidden for ever

    def to_move(self, state):
        return None if state.phase == OVER else state.turn

    def current_player(self, state):
        return self.to_move(state)  # out-of-turn declarations (POM-92) never keep the game waiting


GAME = PompeiiGame()
