import random

import pytest

from engines.core import InvalidOptions
from engines.pompeii import GAME, PlayCard

from .support import new, play_random, refused


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_end(players):
    for seed in range(5):
        s = new(players, seed)
        play_random(s, random.Random(seed))
        assert GAME.is_over(s)
        assert GAME.seats_to_act(s) == []


@pytest.mark.parametrize("seats", [1, 5, 0])
def test_POM_10_refuses_seat_count(seats):
    with pytest.raises(InvalidOptions) as err:
        GAME.new_state(seats, {}, 0)
    assert err.value.rule == "POM-10"


@pytest.mark.parametrize("options", [{"colour": "red"}, {"edition": "2020"}, {"omen_targets": "mine"},
                                     {"dual_vent_tiles": True}, {"vents_block_movement": 1}])
def test_POM_10_refuses_options(options):
    with pytest.raises(InvalidOptions) as err:
        GAME.new_state(2, options, 0)
    assert err.value.rule == "POM-10"


def test_POM_21_card_not_in_hand():
    s = new(2)
    missing = next(n for n in range(1, 12) if n not in s.hands[0])
    refused(s, 0, PlayCard(missing, (1, 0)), "POM-21")
