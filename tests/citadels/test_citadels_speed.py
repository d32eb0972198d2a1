"""Issue 22: the speed work on the Citadels engine changes nothing a player sees (tests/golden pins
the games); these pin the pieces it is built from."""
from __future__ import annotations

from engines.citadels import GAME, generator
from engines.citadels.moves import MagicRedraw


def test_redraw_listing_is_built_once_per_hand_and_matches_a_fresh_one():
    hand = (3, 17, 40)
    listed = generator.redraw_moves(hand)
    assert listed is generator.redraw_moves(hand)
    assert list(listed) == [MagicRedraw(c) for c in generator.redraw_listing(list(hand))] + [MagicRedraw(hand, True)]


def test_shared_move_instances_are_equal_to_new_ones():
    state = GAME.new_state(4, {}, 3)
    moves = GAME.legal_moves(state, GAME.to_move(state))
    assert moves == [type(m)(*m) for m in moves]


def test_issue22_completable_is_names_in_play_against_the_size():
    """scoring.completable counts district names as bit masks: the same answer as counting the
    names in play, along random games and for sizes around the 28 names."""
    import random

    from engines.citadels import scoring

    rng = random.Random(5)
    for size in (8, 20, 27, 28):  # 29 is refused (CIT-8): a city holds each of the 28 names once
        state = GAME.new_state(4, {"city_complete_size": size, "destroyed_district_to": "discard"}, size)
        while not GAME.is_over(state):
            assert scoring.completable(state) == (len(scoring.names_in_play(state)) >= size)
            seat = GAME.to_move(state)
            GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
