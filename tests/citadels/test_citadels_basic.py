"""Smoke tests: every player count plays to the end; options are validated."""
import pytest

from engines.citadels import GAME
from engines.core import InvalidOptions

from .citadels_helpers import random_game


@pytest.mark.parametrize("n", range(2, 8))
def test_CIT_15_random_games_end(n):
    for seed in range(3):
        s, log = random_game(n, seed)
        assert GAME.is_over(s)
        out = GAME.outcome(s)
        assert len(out.scores) == n and out.winners


@pytest.mark.parametrize("n", [0, 1, 8])
def test_CIT_15_bad_seat_counts(n):
    with pytest.raises(InvalidOptions) as e:
        GAME.new_state(n, {}, 0)
    assert e.value.rule == "CIT-15"


@pytest.mark.parametrize("options,rule", [
    ({"nope": 1}, "CIT-0"),
    ({"city_complete_size": 0}, "CIT-8"),
    ({"warlord_timing": "sometimes"}, "CIT-53"),
    ({"gold_supply": "lots"}, "CIT-5"),
    ({"gold_supply": 3}, "CIT-5"),
    ({"tiebreak": "coin"}, "CIT-76"),
    ({"destroyed_district_to": "moon"}, "CIT-56"),
    ({"action_order": "never"}, "CIT-37"),
    ({"king_may_be_face_up": "yes"}, "CIT-21"),
    ({"initial_crown": 9}, "CIT-17"),
    ({"allow_void_targets": 1}, "CIT-46"),
    ({"murdered_king_gets_crown": None}, "CIT-33"),
])
def test_CIT_15_bad_flags(options, rule):
    with pytest.raises(InvalidOptions) as e:
        GAME.new_state(4, options, 0)
    assert e.value.rule == rule


def test_flag_defaults_match_section_15():
    assert GAME.default_options() == {
        "city_complete_size": 8, "murdered_king_gets_crown": False, "warlord_timing": "end_of_turn",
        "gold_supply": "unlimited", "tiebreak": "district_points_then_gold",
        "destroyed_district_to": "deck_bottom", "action_order": "any", "king_may_be_face_up": False,
        "initial_crown": "random", "allow_void_targets": False,
        "reveal_log_after_end": False,  # CIT-11: secrets stay withheld after the end (issue 24 item 8)
    }
