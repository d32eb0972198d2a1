"""Citadels as an `engines.core.Engine`: the spec, the checks and effects tables, and the few
functions of state the base asks for, each from the module of its concern (rules in
docs/rules/citadels.md)."""
from __future__ import annotations

from engines.core import Engine

from . import generator, legality, scoring, setup
from . import view as seat_view
from .effects import EFFECTS
from .legality import CHECKS
from .spec import SPEC
from .state import OVER, SELECTION, CitadelsState


class CitadelsEngine(Engine[CitadelsState]):
    spec = SPEC
    checks = CHECKS
    effects = EFFECTS

    new_state = staticmethod(setup.new_state)
    check_seat = staticmethod(legality.check_seat)
    legal_moves = staticmethod(generator.legal_moves)
    to_move = staticmethod(legality.to_move)
    view = staticmethod(seat_view.view)  # CIT-9..14
    determinize = staticmethod(seat_view.determinize)  # from a seat's (or a spectator's) view
    outcome = staticmethod(scoring.outcome)  # CIT-72..76
    seats_to_act = staticmethod(legality.seats_to_act)
    is_over = staticmethod(legality.is_over)

    def current_player(self, state: CitadelsState) -> int | None:
        if state.phase == OVER:
            return None
        return state.picker if state.phase == SELECTION else state.active  # the Graveyard owner answers out of turn
