"""The Eruption engine: the tables and the few state functions `engines.core.Engine` asks for."""
from __future__ import annotations

from engines.core import Engine

from . import generator, legality, scoring, setup, view
from .effects import EFFECTS
from .legality import CHECKS
from .spec import SPEC
from .state import OVER, EruptionState


class EruptionEngine(Engine[EruptionState]):
    spec = SPEC
    checks = CHECKS
    effects = EFFECTS

    def new_state(self, seats, options, seed):
        return setup.new_state(seats, options, seed)

    def check_seat(self, state, seat, move):
        legality.check_seat(state, seat, move)

    def legal_moves(self, state, seat):
        return generator.legal_moves(state, seat)

    def seats_to_act(self, state):
        return [] if state.phase == OVER else [state.active]

    def to_move(self, state):
        return None if state.phase == OVER else state.active

    def view(self, state, seat):
        return view.view(state, seat)

    def determinize(self, state, seat, rng):
        """`state` here is a seat's view as the wire returns it (engines/BRIEF.md)."""
        return view.determinize(state, seat, rng)

    def is_over(self, state):
        return state.phase == OVER

    def outcome(self, state):
        return scoring.outcome(state)


GAME = EruptionEngine()
