"""The Small World engine: the one engine shape (engines.core.Engine) over the modules of this package."""
from __future__ import annotations

import random

from engines.core import Engine, Outcome, rank_by

from . import view as V
from .effects import EFFECTS
from .legality import CHECKS, check_seat, legal_moves, seats_to_act
from .scoring import outcome_keys
from .setup import new_state
from .spec import SPEC
from .state import SmallWorldState


class SmallWorldEngine(Engine[SmallWorldState]):
    spec = SPEC
    checks = CHECKS
    effects = EFFECTS

    def new_state(self, seats, options, seed):
        return new_state(seats, options or {}, seed)

    # the module functions themselves: no wrapper call on the hot path
    check_seat = staticmethod(check_seat)
    legal_moves = staticmethod(legal_moves)
    seats_to_act = staticmethod(seats_to_act)

    def to_move(self, state):
        acting = seats_to_act(state)  # a defender redeploying (SW-82) before the current player
        return acting[0] if acting else None

    def current_player(self, state):
        return None if state.over else state.current_seat

    def view(self, state, seat):
        return V.view(state, seat)

    def determinize(self, state, seat, rng: random.Random):
        return V.determinize(state, seat, rng)

    def is_over(self, state):
        return bool(state.over)

    def outcome(self, state):
        keys = outcome_keys(state)
        ranks, winners = rank_by(keys)
        return Outcome(scores=tuple(float(c) for c in state.coins), ranks=ranks, winners=winners,
                       detail={"tiebreak_tokens": [k[2] for k in keys],
                               "necromancer_victory": bool(state.necromancer_won)})
