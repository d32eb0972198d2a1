"""Small World (2-5 players) with the Necromancer Island scenario (3-6 seats): game id `smallworld`.

Rules: docs/rules/smallworld.md (ids SW-n, NEC-n, ED-n). Data: engines/smallworld/data/.
"""
from __future__ import annotations

import random

from engines.core import Outcome, rank_by

from . import rules as R
from . import view as V
from .moves import ALL as MOVE_KINDS  # noqa: F401  (re-exported for codecs and tests)
from .spec import SPEC


class SmallWorld:
    spec = SPEC
    game_id, min_seats, max_seats, seats_rule = SPEC.game_id, SPEC.min_seats, SPEC.max_seats, SPEC.seats_rule

    def default_options(self):
        return dict(R.DEFAULTS)

    def new_state(self, seats, options, seed):
        return R.new_state(seats, options or {}, seed)

    def seats_to_act(self, state):
        return R.seats_to_act(state)

    def legal_moves(self, state, seat):
        return R.legal_moves(state, seat)

    def apply(self, state, seat, move):
        return R.apply(state, seat, move)

    def view(self, state, seat):
        return V.view(state, seat)

    def is_over(self, state):
        return bool(state.over)

    def outcome(self, state):
        keys = R.outcome_keys(state)
        ranks, winners = rank_by(keys)
        return Outcome(scores=tuple(float(c) for c in state.coins), ranks=ranks, winners=winners,
                       detail={"tiebreak_tokens": [k[2] for k in keys],
                               "necromancer_victory": bool(state.necro_won)})

    def clone(self, state):
        return state.clone()

    def determinize(self, view, seat, rng: random.Random):
        return V.determinize(view, seat, rng)

    def move_is_private(self, move):
        return False  # every Small World move is public (SW-120)

    def log_revealed_after_end(self, state) -> bool:
        return bool(state.options["reveal_log_after_end"])  # ED-47: the seed would show the order of the undrawn decks

    def to_move(self, state):
        acting = R.seats_to_act(state)  # a defender redeploying (SW-82) before the current player
        return acting[0] if acting else None

    def current_player(self, state):
        return None if state.over else state.cur


GAME = SmallWorld()
