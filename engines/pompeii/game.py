"""The Downfall of Pompeii as an `engines.core.Engine`: the spec, the checks and effects tables,
and the few functions of state the base asks for (rules in docs/rules/pompeii.md)."""
from __future__ import annotations

import random

from engines.core import Engine, Outcome

from . import legality, setup, view
from .effects import EFFECTS
from .legality import CHECKS
from .scoring import outcome
from .spec import SPEC
from .state import OVER, PompeiiState


class PompeiiEngine(Engine[PompeiiState]):
    spec = SPEC
    checks = CHECKS
    effects = EFFECTS

    def new_state(self, seats: int, options, seed: int) -> PompeiiState:
        return setup.new_state(seats, options, seed)

    def check_seat(self, state: PompeiiState, seat: int, move) -> None:
        legality.check_seat(state, seat, move)

    def legal_moves(self, state: PompeiiState, seat: int) -> list:
        return legality.legal_moves(state, seat)

    def seats_to_act(self, state: PompeiiState) -> list[int]:
        return legality.seats_to_act(state)

    def to_move(self, state: PompeiiState) -> int | None:
        # out-of-turn declarations (POM-92) never keep the game waiting, so current_player is the same
        return None if state.phase == OVER else state.turn

    def view(self, state: PompeiiState, seat: int | None) -> dict:
        return view.view(state, seat)

    def determinize(self, state, seat, rng: random.Random) -> PompeiiState:
        return view.determinize(state, seat, rng)  # `state` is a seat's view (POM-90)

    def is_over(self, state: PompeiiState) -> bool:
        return state.phase == OVER

    def outcome(self, state: PompeiiState) -> Outcome:
        return outcome(state)
