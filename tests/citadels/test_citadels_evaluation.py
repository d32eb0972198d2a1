"""The search's evaluation of Citadels positions (heuristic.evaluate_all and its pending characters)."""
from __future__ import annotations

import random

import pytest

from engines.citadels import GAME, heuristic
from engines.citadels.cards import MERCHANT, THIEF
from engines.citadels.state import SELECTION


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_evaluate_all_matches_evaluate_over_random_positions(seats):
    rng = random.Random(seats)
    for seed in range(3):
        s = GAME.new_state(seats, {}, seed)
        while not GAME.is_over(s):
            seat = GAME.to_move(s)
            d = GAME.determinize(GAME.view(s, seat), seat, rng)
            values = heuristic.evaluate_all(d, seats)
            assert len(values) == seats and all(0.0 <= v <= 1.0 for v in values)
            assert [heuristic.evaluate(d, p) for p in range(seats)] == values
            if seats == 2:
                assert sum(values) == pytest.approx(1.0)
            GAME.apply(s, seat, rng.choice(GAME.legal_moves(s, seat)))
        assert heuristic.evaluate_all(s, seats) == [heuristic.evaluate(s, p) for p in range(seats)]


def _after_draft(seed: int):
    s = GAME.new_state(2, {}, seed)
    rng = random.Random(seed)
    while s.phase == SELECTION:
        seat = GAME.to_move(s)
        GAME.apply(s, seat, rng.choice(GAME.legal_moves(s, seat)))
    return s


def test_pending_characters_count_as_gold():
    for seed in range(20):
        s = _after_draft(seed)
        gold, _cards = heuristic._pending(s)
        for p in range(2):
            # each of the two characters brings at least its resource action (2 gold) before any call
            assert gold[p] >= s.gold[p] + 2 * len(s.held[p]) * heuristic.PEND
        merchant = next(p for p in range(2) if MERCHANT in s.held[p]) if any(MERCHANT in h for h in s.held) else -1
        if merchant >= 0 and THIEF not in s.held[1 - merchant]:
            s.murdered = MERCHANT  # a murdered Merchant brings nothing
            assert heuristic._pending(s)[0][merchant] == pytest.approx(gold[merchant] - heuristic.PEND * (
                2 + 1 + heuristic._income(s, merchant, MERCHANT)))
