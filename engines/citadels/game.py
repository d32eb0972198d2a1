"""Citadels as an `engines.core.Engine`: the spec, the checks and effects tables, and the few
functions of state the base asks for (rules in docs/rules/citadels.md)."""
from __future__ import annotations

import random

from engines.core import Engine, Outcome

from . import legality, setup, view
from .effects import EFFECTS
from .legality import CHECKS
from .scoring import outcome
from .spec import SPEC
from .state import OVER, SELECTION, CitadelsState


class CitadelsEngine(Engine[CitadelsState]):
    spec = SPEC
    checks = CHECKS
    effects = EFFECTS

    def new_state(self, seats: int, options, seed: int) -> CitadelsState:
        return setup.new_state(seats, options, seed)

    def check_seat(self, state: CitadelsState, seat: int, move) -> None:
        legality.check_seat(state, seat, move)

    def legal_moves(self, state: CitadelsState, seat: int) -> list:
        return legality.legal_moves(state, seat)

    def seats_to_act(self, state: CitadelsState) -> list[int]:
        seat = legality.to_move(state)
        return [] if seat is None else [seat]

    def to_move(self, state: CitadelsState) -> int | None:
        return legality.to_move(state)

    def current_player(self, state: CitadelsState) -> int | None:
        if state.phase == OVER:
            return None
        return state.picker if state.phase == SELECTION else state.active  # the Graveyard owner answers out of turn

    def view(self, state: CitadelsState, seat: int | None) -> dict:
        return view.view(state, seat)

    def determinize(self, state, seat, rng: random.Random) -> CitadelsState:
        return view.determinize(state, seat, rng)  # `state` is a seat's view (CIT-9..14)

    def is_over(self, state: CitadelsState) -> bool:
        return state.phase == OVER

    def outcome(self, state: CitadelsState) -> Outcome:
        return outcome(state)
