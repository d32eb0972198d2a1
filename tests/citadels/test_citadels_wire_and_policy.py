"""Codec edge cases, heuristic policy, and a few remaining rule checks."""
import random

import pytest

from engines.citadels import GAME, heuristic, legality, scoring
from engines.citadels.cards import DISTRICT
from engines.citadels.moves import Assassinate, Build, EndTurn, MagicRedraw, Rob, TakeGold
from gameengine.codecs.base import MalformedMove
from gameengine.codecs.citadels import CODEC
from gameengine.v1 import citadels_pb2

from .citadels_helpers import clear_hand, deal_round, give, new, play


def test_codec_options_round_trip():
    opts = {"gold_supply": 30, "initial_crown": 2, "city_complete_size": 7, "tiebreak": "gold",
            "allow_void_targets": True}
    back = CODEC.options_from_proto(CODEC.options_to_proto(opts))
    s = GAME.new_state(4, back, 1)
    assert s.options["gold_supply"] == 30 and s.options["initial_crown"] == 2 and s.crown == 2
    assert CODEC.options_from_proto(citadels_pb2.CitadelsOptions()) == {}
    assert CODEC.options_from_proto(CODEC.options_to_proto(GAME.default_options())) == {
        k: v for k, v in GAME.default_options().items()}


def test_codec_malformed_moves():
    with pytest.raises(MalformedMove):
        CODEC.move_from_proto(citadels_pb2.CitadelsMove())
    msg = citadels_pb2.CitadelsMove()
    msg.magic_redraw.SetInParent()
    with pytest.raises(MalformedMove):
        CODEC.move_from_proto(msg)
    assert CODEC.move_from_proto(CODEC.move_to_proto(MagicRedraw((3, 1)))) == MagicRedraw((3, 1))
    assert CODEC.move_from_proto(CODEC.move_to_proto(TakeGold())) != EndTurn()


def test_moves_are_distinct_by_kind():
    assert TakeGold() != EndTurn() and Rob(3) != Assassinate(3)
    assert len({TakeGold(), EndTurn(), Rob(3), Assassinate(3), Rob(3)}) == 4


@pytest.mark.parametrize("n", range(2, 8))
def test_heuristic_plays_legal_moves_on_determinized_states(n):
    rng = random.Random(n)
    wins = 0
    for seed in range(6):
        s = GAME.new_state(n, {}, seed)
        while not GAME.is_over(s):
            seat = GAME.to_move(s)
            if seat == 0:
                d = GAME.determinize(GAME.view(s, 0), 0, rng)
                move = heuristic.choose(d, 0, rng)
                assert move in GAME.legal_moves(s, 0) or GAME.check(s, 0, move) is None
                assert 0.0 <= heuristic.evaluate(d, 0) <= 1.0
            else:
                move = rng.choice(GAME.legal_moves(s, seat))
            GAME.apply(s, seat, move)
        wins += 0 in GAME.outcome(s).winners
        assert heuristic.evaluate(s, 0) in (0.0, 1.0)
    assert wins >= 3  # far better than random seats


def test_CIT_29_robbery_before_crown():
    s = new(4, seed=1, initial_crown=0)
    s.gold[2] = 5
    deal_round(s, {1: [2], 2: [4]})
    ev = play(s, 1, Rob(4), TakeGold(), EndTurn())
    kinds = [e.kind for e in ev]
    assert kinds.index("robbery") < kinds.index("crown_taken")
    assert s.gold[2] == 0 and s.crown == 2


def test_CIT_67_68_university_and_dragon_gate():
    s = new(4, seed=1)
    u = give(s, 1, "university", to="city")
    d = give(s, 1, "dragon_gate", to="city")
    assert legality.destroy_price(s, 1, u) == 5 and legality.destroy_price(s, 1, d) == 5
    assert scoring.score_parts(s, 1)["district_points"] == 16


def test_CIT_83_rebuilt_haunted_city_takes_new_round():
    s = new(4, seed=1)
    s.round = 4
    clear_hand(s, 0)
    hc = give(s, 0, "haunted_city")
    deal_round(s, {0: [4]})
    play(s, 0, Build(hc))
    assert s.built_in[hc] == 4 and GAME.view(s, None)["players"][0]["city"][0]["round_built"] == 4


def test_CIT_14_spectator_and_other_seats_see_no_private_part():
    s = new(5, seed=3)
    picker = s.picker
    for seat in [None] + [p for p in range(5) if p != picker]:
        v = GAME.view(s, seat)
        assert v["offered"] == [] and v["seen_sets"] == []
        assert seat is None or v["hand"] == [{"card": c, "district": DISTRICT[c]} for c in s.hands[seat]]
    assert GAME.view(s, picker)["offered"] == sorted(s.pile)
