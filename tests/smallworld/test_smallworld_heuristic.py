"""The greedy policy plays only legal moves, beats random play, and evaluate() stays in [0, 1]."""
from __future__ import annotations

import random

import pytest

from engines.smallworld import GAME
from engines.smallworld import heuristic as H


@pytest.mark.parametrize("nec,seats", [(False, 2), (False, 4), (True, 3), (True, 5)])
def test_heuristic_plays_legal_moves_and_beats_random(nec, seats):
    wins = 0
    for seed in range(8):
        st = GAME.new_state(seats, {"necromancer": nec}, seed)
        rng = random.Random(seed)
        hero = 0 if not nec or st.necromancer != 0 else 1
        while not GAME.is_over(st):
            seat = GAME.seats_to_act(st)[0]
            if seat == hero:
                det = GAME.determinize(GAME.view(st, seat), seat, random.Random(seed))
                move = H.choose(det, seat, rng)
                assert move in GAME.legal_moves(st, seat)
                assert 0.0 <= H.evaluate(det, seat) <= 1.0
            else:
                move = rng.choice(GAME.legal_moves(st, seat))
            GAME.apply(st, seat, move)
        if nec:  # random players feed the Soul Well fast: compare with the other ordinary players
            others = [st.coins[s] for s in range(seats) if s not in (hero, st.necromancer)]
            wins += st.coins[hero] >= max(others)
        else:
            wins += hero in GAME.outcome(st).winners
    assert wins >= 5
