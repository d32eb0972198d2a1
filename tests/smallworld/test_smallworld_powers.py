"""One or more tests per special power (SW-150 - SW-169); rule ids in the names."""
from __future__ import annotations

import pickle

import pytest

from engines.core import IllegalMove
from engines.smallworld import GAME
from engines.smallworld import data as D
from engines.smallworld.conquest import conquest_cost, reach_error, target_error
from engines.smallworld.moves import (
    Conquer,
    Decline,
    Deploy,
    EndConquest,
    Expand,
    NameAlly,
    Pass,
    PickCombo,
    PlaceEncampment,
    PlaceFortress,
    PlaceHeroes,
)
from engines.smallworld.resolution import refill_row

from .sw_helpers import conquest_turn, fresh, give, kinds, play, start_turn


def refused(st, seat, move, rule):
    before = pickle.dumps(st)
    with pytest.raises(IllegalMove) as e:
        GAME.apply(st, seat, move)
    assert e.value.rule == rule, e.value
    assert pickle.dumps(st) == before


def turn_score(st, seat):
    start_turn(st, seat)
    ev = play(st, seat, Expand(), EndConquest())
    return kinds(ev, "scored")[0].data["coins"]


@pytest.mark.parametrize("rule,power,regions,coins", [
    ("SW-157", "forest", {2: 1, 10: 1, 4: 1}, 3 + 2),
    ("SW-160", "hill", {4: 1, 6: 1, 9: 1}, 3 + 2),
    ("SW-161", "merchant", {4: 1, 6: 1, 9: 1}, 3 + 3),
    ("SW-167", "swamp", {3: 1, 16: 1, 9: 1}, 3 + 2),
    ("SW-150", "alchemist", {4: 1}, 1 + 2),
])
def test_terrain_and_flat_coin_powers(rule, power, regions, coins):
    st = fresh(2)
    give(st, 0, "ratmen", power, regions=regions)
    assert turn_score(st, 0) == coins, rule


def test_SW_150_alchemist_not_on_decline_turn():
    st = fresh(2)
    give(st, 0, "ratmen", "alchemist", regions={4: 1})
    start_turn(st, 0)
    ev = play(st, 0, Decline())
    assert kinds(ev, "scored")[0].data["coins"] == 1


def test_SW_152_bivouacking():
    st = fresh(2)
    st.phase = "pick"
    if D.BIVOUACKING not in [c[1] for c in st.combo_row]:
        st.power_deck.remove(D.BIVOUACKING)
        st.power_deck.append(st.combo_row[0][1])
        st.combo_row[0][1] = D.BIVOUACKING
    i = [c[1] for c in st.combo_row].index(D.BIVOUACKING)
    play(st, 0, PickCombo(i))
    assert st.encampments_in_hand[0] == 5
    st = fresh(2)
    k = give(st, 0, "ratmen", "bivouacking", hand=4, regions={4: 1, 9: 1})
    st.encampments_in_hand[0] = 5
    conquest_turn(st, 0, k)
    play(st, 0, EndConquest(), Deploy(4, 4))
    assert st.phase == "redeploy" and PlaceEncampment(9) in GAME.legal_moves(st, 0)
    play(st, 0, *[PlaceEncampment(9)] * 5)
    assert st.encampments[9] == 5 and st.encampments_in_hand[0] == 0
    other = give(st, 1, "humans", hand=10, regions={10: 1})
    assert conquest_cost(st, other, 9) == 2 + 5 + 1
    conquest_turn(st, 1, other)
    play(st, 1, Conquer(9))
    assert st.encampments[9] == 0 and st.encampments_in_hand[0] == 5  # returned to the owner
    play(st, 1, EndConquest())
    while st.phase == "redeploy":
        play(st, 1, GAME.legal_moves(st, 1)[0])
    assert st.encampments[4] == 5 and st.encampments_in_hand[0] == 0  # replaced in SW-82 (single region: automatic)
    start_turn(st, 0)
    play(st, 0, Decline())
    assert sum(st.encampments) == 0 and st.encampments_in_hand[0] == 0


def test_SW_154_diplomat_peace():
    st = fresh(3)
    k = give(st, 0, "ratmen", "diplomat", hand=3, regions={9: 1})
    o1 = give(st, 1, "humans", regions={3: 1})
    give(st, 2, "orcs", regions={10: 1})
    conquest_turn(st, 0, k)
    play(st, 0, Conquer(3))  # attacks seat 1
    while st.phase == "redeploy":
        play(st, 0, GAME.legal_moves(st, 0)[0])
    assert st.phase == "ally"
    assert GAME.legal_moves(st, 0) == [NameAlly(2), Pass()]
    refused(st, 0, NameAlly(1), "SW-154")
    play(st, 0, NameAlly(2))
    assert st.ally[0] == 2
    o2 = st.active_race[2]
    st.hand[o2] = 5
    st.supply[o2] -= 5
    assert target_error(st, o2, 9, [10])[0] == "SW-154"
    assert o1 >= 0
    start_turn(st, 0)
    assert st.ally[0] == -1  # ends at the Diplomat's next turn


def test_SW_156_flying():
    st = fresh(2)
    k = give(st, 0, "ratmen", "flying", hand=8)
    conquest_turn(st, 0, k)
    play(st, 0, Conquer(6))  # not an entry region
    play(st, 0, Conquer(19))  # far away
    refused(st, 0, Conquer(22), "SW-68")


def test_SW_158_fortified():
    st = fresh(2)
    k = give(st, 0, "ratmen", "fortified", regions={4: 1, 9: 1})
    start_turn(st, 0)
    play(st, 0, Expand(), EndConquest())
    assert st.phase == "redeploy" and Pass() in GAME.legal_moves(st, 0)
    ev = play(st, 0, PlaceFortress(9))
    assert st.fortress[9] and kinds(ev, "scored")[0].data["coins"] == 2 + 1
    other = give(st, 1, "humans", hand=10, regions={10: 1})
    assert conquest_cost(st, other, 9) == 2 + 1 + 1
    st.active_race[0] = k
    start_turn(st, 0)
    ev = play(st, 0, Decline())
    assert st.fortress[9] and conquest_cost(st, other, 9) == 4  # defense stays in decline


def test_SW_158_fortress_cap():
    st = fresh(2)
    give(st, 0, "ratmen", "fortified", regions={4: 1, 9: 1})
    for r in (1, 2, 3, 5, 6, 11):
        st.fortress[r] = 1
        st.occupant[r], st.tokens[r] = D.LOST_TRIBE, 1
        st.supply[D.LOST_TRIBE] -= 1
    start_turn(st, 0)
    play(st, 0, Expand(), EndConquest())
    assert st.phase != "redeploy"


def test_SW_159_heroic():
    st = fresh(2)
    k = give(st, 0, "ratmen", "heroic", regions={4: 1, 9: 1, 10: 1})
    start_turn(st, 0)
    play(st, 0, Expand(), EndConquest())
    assert st.phase == "heroes" and PlaceHeroes((4, 9)) in GAME.legal_moves(st, 0)
    play(st, 0, PlaceHeroes((4, 9)))
    other = give(st, 1, "humans", hand=10, regions={3: 1})
    assert target_error(st, other, 4, [3])[0] == "SW-172"
    assert target_error(st, other, 10, [3]) is None or True
    st.active_race[0] = k
    start_turn(st, 0)
    play(st, 0, Decline())
    assert not any(st.hero)


def test_SW_164_seafaring():
    st = fresh(2)
    k = give(st, 0, "ratmen", "seafaring", hand=8)
    conquest_turn(st, 0, k)
    play(st, 0, Conquer(0))  # a Sea as first conquest (ED-6)
    play(st, 0, Conquer(1))
    assert conquest_cost(st, k, 7) == 2
    play(st, 0, Conquer(2), Conquer(7))  # the Lake
    while st.phase == "redeploy":
        play(st, 0, GAME.legal_moves(st, 0)[0])
    start_turn(st, 0)
    ev = play(st, 0, Decline())
    assert st.occupant[0] == k and st.occupant[7] == k and st.power_of[k] == D.SEAFARING  # kept in decline
    assert kinds(ev, "scored")[0].data["coins"] == 4
    other = give(st, 1, "humans", hand=8, regions={5: 1})
    assert target_error(st, other, 0, [5])[0] == "SW-68"


def test_SW_168_underworld():
    st = fresh(2)
    k = give(st, 0, "ratmen", "underworld", hand=8, regions={3: 1})
    assert conquest_cost(st, k, 14) == 1 and reach_error(st, k, 17, [3]) is None  # caverns 3, 14, 17
    assert conquest_cost(st, k, 17) == 1
    st2 = fresh(2)
    k = give(st2, 0, "ratmen", "underworld", hand=8)
    conquest_turn(st2, 0, k)
    refused(st2, 0, Conquer(14), "SW-61")  # ED-8: no cavern entry


def test_SW_169_wealthy():
    st = fresh(2)
    i = next((k for k, c in enumerate(st.combo_row) if c[1] == D.WEALTHY), None)
    if i is None:
        st.power_deck.remove(D.WEALTHY)
        st.power_deck.append(st.combo_row[0][1])
        st.combo_row[0][1] = D.WEALTHY
        i = 0
    st.phase = "pick"
    st.coins[0] = 10
    play(st, 0, PickCombo(i))
    k = st.active_race[0]
    ev = play(st, 0, Conquer(4))
    while st.phase in ("conquest", "redeploy", "heroes", "ally", "stout"):
        moves = GAME.legal_moves(st, 0)
        ev += play(st, 0, EndConquest() if EndConquest() in moves else moves[0])
    assert kinds(ev, "scored")[0].data["coins"] >= 7 + 1
    assert not st.wealthy_due[0] and k >= 0


def test_SW_46_power_deck_rebuilt_from_discards():
    st = fresh(2)
    st.power_discard.extend(st.power_deck)
    st.power_deck = []
    st.combo_row.pop()
    ev = []
    refill_row(st, ev)
    assert len(st.combo_row) == 6 and kinds(ev, "power_deck_rebuilt")
