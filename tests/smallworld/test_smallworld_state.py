"""The state's declared fields and its clone (issue 20 item 2)."""
from __future__ import annotations

import copy
import pickle
import random

from engines.smallworld import GAME


def test_clone_pickles_like_the_original():
    """A clone is the same state: byte-identical pickles at every step of random games (the
    store's and conformance's equality), Necromancer Island included."""
    for seats, options in ((2, {}), (4, {"necromancer": True})):
        state, rng, steps = GAME.new_state(seats, options, 3), random.Random(3), 0
        while not GAME.is_over(state):
            assert pickle.dumps(GAME.clone(state)) == pickle.dumps(state), (seats, steps)
            seat = rng.choice(GAME.seats_to_act(state))
            GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
            steps += 1
        assert pickle.dumps(GAME.clone(state)) == pickle.dumps(state)
        assert steps > 50


def test_state_declares_its_fields():
    state = GAME.new_state(3, {}, 1)
    assert not hasattr(state, "__dict__")
    assert all(hasattr(state, name) for name in type(state).__slots__)


def test_determinize_reads_a_view_once_and_copies_it():
    """A search determinizes one view per iteration: the state read from it is copied, so a
    determinized state played to the end leaves the next determinization of that view equal to
    one from a fresh copy of the view (same draws, nothing shared)."""
    for seats, options in ((2, {}), (4, {"necromancer": True})):
        state, rng = GAME.new_state(seats, options, 5), random.Random(5)
        for step in range(60):
            seat = GAME.seats_to_act(state)[0]
            if step % 6 == 0:
                view = GAME.view(state, seat)
                played = GAME.determinize(view, seat, random.Random(step))
                assert GAME.view(played, seat) == view
                while not GAME.is_over(played):
                    who = GAME.seats_to_act(played)[0]
                    GAME.apply(played, who, rng.choice(GAME.legal_moves(played, who)))
                again = GAME.determinize(view, seat, random.Random(step))
                fresh = GAME.determinize(copy.deepcopy(view), seat, random.Random(step))
                assert pickle.dumps(again) == pickle.dumps(fresh), (seats, step)
            GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
