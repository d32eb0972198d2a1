"""Kuhn poker as an `engines.core.Engine`: the spec, the checks and effects tables, and the few
functions of state the base asks for, each from the module of its concern (docs/rules/kuhn.md)."""
from __future__ import annotations

from engines.core import Engine

from . import legality, scoring, setup
from . import view as seat_view
from .effects import EFFECTS
from .legality import CHECKS
from .spec import SPEC
from .state import OVER, KuhnState


class KuhnEngine(Engine[KuhnState]):
    spec = SPEC
    checks = CHECKS
    effects = EFFECTS

    new_state = staticmethod(setup.new_state)
    check_seat = staticmethod(legality.check_seat)  # KP-5, KP-7
    legal_moves = staticmethod(legality.legal_moves)
    seats_to_act = staticmethod(legality.seats_to_act)
    view = staticmethod(seat_view.view)  # KP-8
    determinize = staticmethod(seat_view.determinize)  # from a seat's view
    outcome = staticmethod(scoring.outcome)  # KP-7

    def to_move(self, state: KuhnState) -> int | None:
        # one seat acts at a time, on its turn, so current_player is the same
        return None if state.phase == OVER else state.turn

    def is_over(self, state: KuhnState) -> bool:
        return state.phase == OVER
