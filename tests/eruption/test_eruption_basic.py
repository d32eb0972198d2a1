"""Smoke tests: the engine plays complete random games for every player count."""
import random

import pytest

from engines.core import InvalidOptions, play_random
from engines.eruption import GAME


@pytest.mark.parametrize("seats", range(2, 7))
def test_ERU_1_random_games_end(seats):
    for seed in range(5):
        st = GAME.new_state(seats, {}, seed)
        play_random(GAME, st, random.Random(seed), max_moves=5000)
        assert GAME.is_over(st)
        assert 1 in GAME.outcome(st).ranks


@pytest.mark.parametrize("seats", [1, 7])
def test_ERU_1_bad_seat_count(seats):
    with pytest.raises(InvalidOptions) as e:
        GAME.new_state(seats, {}, 0)
    assert e.value.rule == "ERU-1"


def test_ERU_1_bad_flags():
    with pytest.raises(InvalidOptions):
        GAME.new_state(3, {"nope": 1}, 0)
    with pytest.raises(InvalidOptions):
        GAME.new_state(3, {"dice_tie_goes_to": "orange"}, 0)
    with pytest.raises(InvalidOptions):
        GAME.new_state(3, {"unlimited_walls": "yes"}, 0)
