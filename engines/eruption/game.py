"""The Eruption engine: the tables and the few state functions `engines.core.Engine` asks for."""
from __future__ import annotations

from engines.core import Engine

from . import flow, generator, legality, scoring, setup, view
from .effects import EFFECTS
from .legality import CHECKS
from .spec import SPEC
from .state import EruptionState


class EruptionEngine(Engine[EruptionState]):
    spec = SPEC
    checks = CHECKS
    effects = EFFECTS

    # the compiled functions themselves (no interpreted frame per call), as in Citadels
    check_seat = staticmethod(legality.check_seat)
    legal_moves = staticmethod(generator.legal_moves)
    seats_to_act = staticmethod(flow.seats_to_act)
    to_move = staticmethod(flow.to_move)
    is_over = staticmethod(flow.is_over)

    def new_state(self, seats, options, seed):
        return setup.new_state(seats, options, seed)

    def view(self, state, seat):
        return view.view(state, seat)

    def determinize(self, state, seat, rng):
        """`state` here is a seat's view as the wire returns it (engines/BRIEF.md)."""
        return view.determinize(state, seat, rng)

    def outcome(self, state):
        return scoring.outcome(state)


GAME = EruptionEngine()
