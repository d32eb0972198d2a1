"""Each illegal-move family is refused with its rule id and leaves the state bit-for-bit unchanged."""
from __future__ import annotations

import pickle

import pytest

from engines.core import IllegalMove
from engines.smallworld import GAME
from engines.smallworld import data as D
from engines.smallworld.moves import (
    BerserkRoll,
    BuyGhost,
    Conquer,
    Decline,
    Deploy,
    DragonAttack,
    EndConquest,
    Expand,
    FinalAttempt,
    PickCombo,
    SetAside,
)
from gameengine.codecs.base import MalformedMove
from gameengine.codecs.smallworld import CODEC
from gameengine.v1 import smallworld_pb2

from .sw_helpers import conquest_turn, fresh, give, play, random_game, start_turn


def refused(st, seat, move, rule):
    before = pickle.dumps(st)
    with pytest.raises(IllegalMove) as e:
        GAME.apply(st, seat, move)
    assert e.value.rule == rule, e.value
    assert pickle.dumps(st) == before


def test_SW_30_not_your_turn():
    st = fresh(3)
    st.phase = "pick"
    refused(st, 1, PickCombo(0), "SW-30")


def test_SW_32_game_over():
    st, _ = random_game(2, {}, 4)
    refused(st, 0, PickCombo(0), "SW-32")


def test_SW_47_pick_with_active_race():
    st = fresh(2)
    give(st, 0, "ratmen", regions={4: 1})
    start_turn(st, 0)
    refused(st, 0, PickCombo(0), "SW-47")


def test_SW_50_phase_refusals():
    st = fresh(2)
    st.phase = "pick"
    refused(st, 0, Expand(), "SW-47")
    refused(st, 0, SetAside(3), "SW-130")


def test_SW_64_cost_and_SW_60_empty_hand():
    st = fresh(2)
    k = give(st, 0, "ratmen", hand=2, regions={4: 1})
    give(st, 1, "humans", regions={9: 2})
    conquest_turn(st, 0, k)
    refused(st, 0, Conquer(9), "SW-64")
    play(st, 0, Conquer(10))
    assert st.phase == "redeploy"
    st2 = fresh(2)
    k = give(st2, 0, "ratmen", regions={4: 1, 9: 1})
    conquest_turn(st2, 0, k)
    refused(st2, 0, Conquer(10), "SW-60")


def test_SW_63_adjacency():
    st = fresh(2)
    k = give(st, 0, "ratmen", hand=5, regions={4: 1})
    conquest_turn(st, 0, k)
    refused(st, 0, Conquer(20), "SW-63")


def test_SW_151_berserk_refusals():
    st = fresh(2)
    k = give(st, 0, "ratmen", hand=3, regions={4: 1})
    conquest_turn(st, 0, k)
    refused(st, 0, BerserkRoll(), "SW-151")
    st.power_of[k] = D.BERSERK
    give(st, 1, "humans", regions={9: 2})
    refused(st, 0, FinalAttempt(9), "SW-151")


def test_SW_155_dragon_once_per_turn():
    st = fresh(2)
    k = give(st, 0, "ratmen", "dragon_master", hand=3, regions={4: 1})
    conquest_turn(st, 0, k)
    play(st, 0, DragonAttack(9))
    refused(st, 0, DragonAttack(10), "SW-155")


def test_SW_95_deploy_refusals():
    st = fresh(2)
    k = give(st, 0, "ratmen", hand=3, regions={4: 1, 9: 1})
    conquest_turn(st, 0, k)
    play(st, 0, EndConquest())
    refused(st, 0, Deploy(4, 9), "SW-95")
    refused(st, 0, Deploy(10, 1), "SW-95")


def test_SW_82_only_the_defender_redeploys():
    st = fresh(2)
    a = give(st, 0, "humans", hand=6, regions={4: 1})
    give(st, 1, "ratmen", regions={9: 4, 14: 1, 3: 1})
    conquest_turn(st, 0, a)
    play(st, 0, Conquer(9))
    play(st, 0, Deploy(9, 5))
    assert st.phase == "defend"
    refused(st, 0, Deploy(9, 1), "SW-82")
    refused(st, 1, Deploy(14, 9), "SW-82")


def test_NEC_19_price_refusal():
    st = fresh(4, necromancer=True)
    st.necromancer_powers = [st.power_reserve.pop(0)]
    st.coins[3] = 1
    start_turn(st, 3)
    assert st.phase == "conquest"  # nothing affordable: step A is skipped
    st.hand[D.GHOSTS], st.island = 0, 1
    st.phase = "purchase"
    refused(st, 3, BuyGhost(), "NEC-19")


def test_decline_refused_mid_conquest():
    st = fresh(2)
    k = give(st, 0, "ratmen", hand=3, regions={4: 1})
    conquest_turn(st, 0, k)
    refused(st, 0, Decline(), "SW-60")


def test_malformed_moves_and_options_roundtrip():
    with pytest.raises(MalformedMove):
        CODEC.move_from_proto(smallworld_pb2.SmallWorldMove())
    m = smallworld_pb2.SmallWorldMove()
    m.place_heroes.SetInParent()
    with pytest.raises(MalformedMove):
        CODEC.move_from_proto(m)
    m = smallworld_pb2.SmallWorldMove()
    m.buy_power.SetInParent()
    with pytest.raises(MalformedMove):
        CODEC.move_from_proto(m)
    opts = GAME.default_options()
    assert CODEC.options_from_proto(CODEC.options_to_proto(opts)) == opts
    assert CODEC.options_from_proto(smallworld_pb2.SmallWorldOptions()) == {}
    GAME.new_state(4, CODEC.options_from_proto(CODEC.options_to_proto({"first_player": "2", "necromancer": True})), 1)
