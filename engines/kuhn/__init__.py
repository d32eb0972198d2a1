"""Kuhn poker (game id "kuhn"), the template game: the whole engine contract in one small package.

Copy this package to add a game: spec.py (the game as data), moves.py (move kinds), rules.py
(check table, effect table, setup, outcome), views.py (view and determinize), heuristic.py
(the greedy bot and MCTS prior), data/ (game facts). Rules: docs/rules/kuhn.md (KP-n).
"""
from __future__ import annotations

import random

from . import rules, views
from .moves import MOVE_KINDS, Bet, Call, Check, Fold  # noqa: F401
from .spec import SPEC


class KuhnGame:
    spec = SPEC
    game_id, min_seats, max_seats, seats_rule = SPEC.game_id, SPEC.min_seats, SPEC.max_seats, SPEC.seats_rule

    def default_options(self):
        return SPEC.defaults()

    def new_state(self, seats, options, seed):
        return rules.new_state(seats, options, seed)

    def seats_to_act(self, state):
        return [] if state.phase == rules.OVER else [state.turn]

    def legal_moves(self, state, seat):
        return rules.legal_moves(state, seat)

    def apply(self, state, seat, move):
        return rules.apply(state, seat, move)

    def view(self, state, seat):
        return views.view(state, seat)

    def is_over(self, state):
        return state.phase == rules.OVER

    def outcome(self, state):
        return rules.outcome(state)

    def clone(self, state):
        return state.clone()

    def determinize(self, view, seat, rng: random.Random):
        return views.determinize(view, seat, rng)

    def move_is_private(self, move):
        return type(move).__name__ in SPEC.private_moves  # KP-8: none

    def log_revealed_after_end(self, state):
        return bool(state.options["reveal_log_after_end"])  # KP-9

    def to_move(self, state):
        return None if state.phase == rules.OVER else state.turn

    def current_player(self, state):
        return self.to_move(state)  # one seat acts at a time, on its turn


GAME = KuhnGame()
