"""The Downfall of Pompeii as an `engines.core.Engine`: the spec, the checks and effects tables,
and the few functions of state the base asks for, each from the module of its concern (rules in
docs/rules/pompeii.md)."""
from __future__ import annotations

from engines.core import Engine

from . import legality, scoring, setup
from . import view as seat_view
from .effects import EFFECTS
from .legality import CHECKS
from .spec import SPEC
from .state import OVER, PompeiiState


class PompeiiEngine(Engine[PompeiiState]):
    spec = SPEC
    checks = CHECKS
    effects = EFFECTS

    new_state = staticmethod(setup.new_state)
    check_seat = staticmethod(legality.check_seat)  # POM-1/91/92
    legal_moves = staticmethod(legality.legal_moves)
    seats_to_act = staticmethod(legality.seats_to_act)  # POM-92: declarations out of turn
    view = staticmethod(seat_view.view)  # POM-90
    determinize = staticmethod(seat_view.determinize)  # from a seat's view
    outcome = staticmethod(scoring.outcome)  # POM-83

    def to_move(self, state: PompeiiState) -> int | None:
        # out-of-turn declarations (POM-92) never keep the game waiting, so current_player is the same
        return None if state.phase == OVER else state.turn

    def is_over(self, state: PompeiiState) -> bool:
        return state.phase == OVER
