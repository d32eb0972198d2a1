"""Worked examples WX-1 .. WX-14 of RULES.md section 17 (base game), one test each."""
from __future__ import annotations

import pickle
import random

import pytest

from engines.core import IllegalMove
from engines.smallworld import GAME
from engines.smallworld import data as D
from engines.smallworld.conquest import conquest_cost, target_error
from engines.smallworld.forces import on_map, regions_of
from engines.smallworld.moves import (
    BerserkRoll,
    Conquer,
    Convert,
    Decline,
    Deploy,
    DragonAttack,
    EndConquest,
    Expand,
    FinalAttempt,
    PickCombo,
)
from engines.smallworld.resolution import conquer

from .sw_helpers import conquest_turn, fresh, give, kinds, lost_tribe, play, start_turn


def rig(st, roll):
    """Seed the state's RNG so that its next die roll is `roll` (the roll stays a seeded draw)."""
    for s in range(1000):
        if random.Random(s).choice(D.DIE) == roll:
            st.rng.seed(s)
            return
    raise AssertionError


def refused(st, seat, move, rule):
    before = pickle.dumps(st)
    with pytest.raises(IllegalMove) as e:
        GAME.apply(st, seat, move)
    assert e.value.rule == rule, e.value
    assert pickle.dumps(st) == before


def test_WX_1_mountain_with_one_defending_token():
    st = fresh(4)
    assert st.board.mountain[9]
    humans = give(st, 1, "humans", regions={9: 1}, decline=True)
    ratmen = give(st, 0, "ratmen", hand=8)
    assert conquest_cost(st, ratmen, 9) == 4  # 2 + Mountain + token
    st2 = fresh(4)
    lost_tribe(st2, 9)
    k = give(st2, 0, "ratmen", "commando", hand=8)
    assert conquest_cost(st2, k, 9) == 3
    assert humans >= 0


def test_WX_2_first_conquest_entry_regions():
    st = fresh(2)
    lost_tribe(st, 6)
    k = give(st, 0, "ratmen", hand=8)
    conquest_turn(st, 0, k)
    legal = GAME.legal_moves(st, 0)
    assert Conquer(4) in legal and conquest_cost(st, k, 4) == 2
    assert Conquer(21) in legal  # borders Sea 22
    refused(st, 0, Conquer(6), "SW-61")  # only the Lake as water neighbour
    refused(st, 0, Conquer(7), "SW-68")


def test_WX_3_reinforcement_die_final_attempt():
    st = fresh(3)
    k = give(st, 0, "ratmen", hand=2, regions={9: 1, 10: 1})
    lost_tribe(st, 13)
    give(st, 1, "humans", regions={15: 2})
    conquest_turn(st, 0, k)
    assert conquest_cost(st, k, 13) == 3 and conquest_cost(st, k, 15) == 5
    legal = GAME.legal_moves(st, 0)
    assert FinalAttempt(13) in legal and FinalAttempt(15) in legal
    st.fortress[15] = 1  # now costs 6: shortfall 4
    refused(st, 0, FinalAttempt(15), "SW-90")
    st.fortress[15] = 0
    win = GAME.clone(st)
    rig(win, 1)
    ev = play(win, 0, FinalAttempt(13))
    assert kinds(ev, "die_rolled")[0].data["roll"] == 1 and kinds(ev, "die_rolled")[0].to is None
    assert win.occupant[13] == k and kinds(ev, "conquered")[0].data["tokens"] == 2
    assert win.phase == "redeploy"  # the conquest step ends
    lose = GAME.clone(st)
    rig(lose, 0)
    ev = play(lose, 0, FinalAttempt(13))
    assert lose.occupant[13] == D.LOST_TRIBE
    assert lose.phase == "redeploy" and lose.hand[k] == 2
    play(lose, 0, Deploy(9, 2))
    assert lose.tokens[9] == 3 and lose.phase != "redeploy"
    only3 = GAME.clone(st)
    rig(only3, 2)
    play(only3, 0, FinalAttempt(15))
    assert only3.occupant[15] != k  # 2 + 2 < 5: only a 3 wins
    rig(st, 3)
    play(st, 0, FinalAttempt(15))
    assert st.occupant[15] == k


def test_WX_4_giants_discount():
    st = fresh(3)
    g = give(st, 0, "giants", hand=6, regions={2: 1})
    lost_tribe(st, 9)
    assert conquest_cost(st, g, 9) == 2
    assert conquest_cost(st, g, 3) == 1
    st.power_of[g] = D.MOUNTED
    assert conquest_cost(st, g, 3) == 1  # 2 - 1 - 1 floors at 1
    assert conquest_cost(st, g, 13) == 2  # not adjacent to region 2: no discount


def test_WX_5_combo_row_payment_and_refill():
    st = fresh(2)
    for i, c in enumerate([0, 1, 0, 2, 0, 0]):
        st.combo_row[i][2] = c
    picked = tuple(st.combo_row[3][:2])
    nxt = st.race_deck[0], st.power_deck[0]
    st.phase = "pick"
    ev = play(st, 0, PickCombo(3))
    assert st.coins[0] == 4
    assert [c[2] for c in st.combo_row] == [1, 2, 1, 0, 0, 0]
    assert tuple(st.combo_row[5][:2]) == nxt
    assert st.active_race[0] == picked[0]
    assert kinds(ev, "combo_picked")[0].data["collected"] == 2
    st2 = fresh(2)
    st2.phase = "pick"
    st2.coins[0] = 2
    refused(st2, 0, PickCombo(3), "SW-40")


def _wx6(defender_race, other_regions):
    st = fresh(2)
    a = give(st, 0, "humans", hand=6, regions={4: 1})
    regs = {9: 4}
    regs.update(other_regions)
    b = give(st, 1, defender_race, regions=regs)
    conquest_turn(st, 0, a)
    assert conquest_cost(st, a, 9) == 6
    play(st, 0, Conquer(9))
    assert st.phase == "redeploy" and st.hand[a] == 5  # surplus is lifted for free redistribution (SW-95)
    play(st, 0, Deploy(9, 5))
    return st, a, b


def test_WX_6_defender_losses_and_redeployment():
    st, a, b = _wx6("ratmen", {14: 1, 3: 1})
    assert st.kept[b] == 3 and st.supply[b] == D.BOX[b] - 5
    assert st.phase == "defend" and GAME.seats_to_act(st) == [1]
    play(st, 1, Deploy(14, 2))
    play(st, 1, Deploy(3, 1))
    assert st.tokens[14] == 3 and st.tokens[3] == 2 and st.kept[b] == 0
    assert st.current_seat == 1 and st.phase == "start"
    # no other region: the 3 stay in hand and re-enter by SW-61
    st, a, b = _wx6("ratmen", {})
    assert st.kept[b] == 3 and st.current_seat == 1 and st.phase == "start"
    play(st, 1, Expand())
    assert st.hand[b] == 3
    refused(st, 1, Conquer(14), "SW-61")
    assert Conquer(4) in GAME.legal_moves(st, 1)  # an edge region held by one Human: cost 3
    # active Elves keep all 4
    st, a, b = _wx6("elves", {14: 1})
    assert st.tokens[14] == 5 and st.supply[b] == D.BOX[b] - 5


def _wx7(power):
    st = fresh(2)
    h = give(st, 0, "humans", regions={1: 1, 2: 1, 3: 1}, decline=True)
    o = give(st, 0, "orcs", power, regions={9: 5, 10: 1, 14: 1, 15: 1, 21: 1})
    start_turn(st, 0)
    assert st.phase == "start"
    ev = play(st, 0, Decline())
    return st, h, o, ev


def test_WX_7_decline_removes_old_race():
    st, h, o, ev = _wx7(None)
    assert st.owner[h] == -1 and st.race_deck[-1] == h and on_map(st, h) == 0
    assert on_map(st, o) == 5 and st.supply[o] == D.BOX[o] - 5
    assert st.in_decline[o] and st.active_race[0] == -1
    assert not kinds(ev, "conquered")
    assert kinds(ev, "scored")[0].data["coins"] == 5
    assert st.current_seat == 1
    start_turn(st, 0)
    assert st.phase == "pick"  # SW-101


def test_WX_7_spirit_keeps_old_race():
    st, h, o, ev = _wx7("spirit")
    assert st.owner[h] == 0 and on_map(st, h) == 3
    assert kinds(ev, "scored")[0].data["coins"] == 8
    assert st.power_of[o] == D.SPIRIT  # SW-46: Spirit stays with the race


def test_WX_8_scoring():
    st = fresh(2)
    give(st, 0, "dwarves", regions={2: 1, 3: 1, 6: 1}, decline=True)
    w = give(st, 0, "wizards", "alchemist", regions={1: 1, 10: 1, 4: 1, 9: 1})
    start_turn(st, 0)
    ev = play(st, 0, Expand(), EndConquest())
    assert kinds(ev, "scored")[0].data["coins"] == 12
    assert st.coins[0] == 5 + 12
    assert w >= 0


@pytest.mark.parametrize("power,coins", [(None, 5), ("pillaging", 8)])
def test_WX_9_skeletons_and_pillaging(power, coins):
    st = fresh(2)
    give(st, 1, "humans", regions={9: 1}, decline=True)
    give(st, 1, "ratmen", regions={10: 1})
    lost_tribe(st, 3)
    s = give(st, 0, "skeletons", power, hand=14)
    conquest_turn(st, 0, s)
    ev = play(st, 0, Conquer(4), Conquer(3), Conquer(9), Conquer(10), Conquer(8))
    assert st.nonempty_conquests[s] == 3 and st.conquests[s] == 5
    raised = kinds(ev, "skeletons_raised")
    assert raised[0].data["tokens"] == 1
    assert st.phase == "redeploy" and st.hand[s] == 10
    ev = play(st, 0, Deploy(4, 10))
    assert on_map(st, s) == 15 and st.supply[s] == D.BOX[s] - 15
    assert kinds(ev, "scored")[0].data["coins"] == coins


def test_WX_10_sorcerer_conversion():
    st = fresh(3)
    s = give(st, 0, "sorcerers", hand=3, regions={9: 1, 12: 1})
    q = give(st, 1, "ratmen", regions={10: 1, 8: 1})
    st.fortress[10] = 1
    give(st, 1, "dwarves", regions={13: 1}, decline=True)
    give(st, 2, "humans", "bivouacking", regions={3: 1, 2: 1})
    st.encampments[2] = 1
    lost_tribe(st, 7)
    conquest_turn(st, 0, s)
    supply = st.supply[s]
    ev = play(st, 0, Convert(10))
    assert st.occupant[10] == s and st.tokens[10] == 1 and not st.fortress[10]
    assert st.hand[s] == 3 and st.supply[s] == supply - 1 and st.supply[q] == D.BOX[q] - 1
    assert kinds(ev, "converted")
    refused(st, 0, Convert(8), "SW-140")  # second conversion against Q
    refused(st, 0, Convert(2), "SW-140")  # Encampment
    refused(st, 0, Convert(13), "SW-140")  # in decline
    refused(st, 0, Convert(7), "SW-140")  # Lost Tribe
    play(st, 0, Convert(3))  # against R: legal


def test_WX_11_berserk():
    st = fresh(2)
    k = give(st, 0, "ratmen", "berserk", hand=3, regions={9: 1})
    give(st, 1, "humans", regions={8: 2})
    conquest_turn(st, 0, k)
    assert conquest_cost(st, k, 8) == 5
    assert not any(isinstance(m, FinalAttempt) for m in GAME.legal_moves(st, 0))  # ED-16
    rig(st, 2)
    play(st, 0, BerserkRoll())
    assert st.berserk_roll == 2
    ev = play(st, 0, Conquer(8))
    assert st.occupant[8] == k and kinds(ev, "conquered")[0].data["tokens"] == 3
    assert st.phase == "redeploy"  # hand 0: no further conquest
    # variant: hand 1, roll 0, every target costs 2 or more
    st = fresh(2)
    k = give(st, 0, "ratmen", "berserk", hand=1, regions={9: 1})
    conquest_turn(st, 0, k)
    rig(st, 0)
    ev = play(st, 0, BerserkRoll())
    assert kinds(ev, "conquest_ended")[0].data["reason"] == "no_affordable_target"
    assert st.tokens[9] == 2 and st.phase != "conquest"


def test_WX_12_dragon():
    st = fresh(2)
    k = give(st, 0, "ratmen", "dragon_master", hand=3, regions={9: 1})
    h = give(st, 1, "humans", regions={14: 5, 13: 1})
    st.fortress[14] = 1
    conquest_turn(st, 0, k)
    play(st, 0, DragonAttack(14))
    assert st.tokens[14] == 1 and st.kept[h] == 4 and st.supply[h] == D.BOX[h] - 5
    assert not st.fortress[14] and st.dragon[14]
    assert not any(isinstance(m, DragonAttack) for m in GAME.legal_moves(st, 0))  # once per turn
    st.hand[h] += 0
    assert target_error(st, h, 14, [13]) == ("SW-172", target_error(st, h, 14, [13])[1])
    conquer(st, k, 10, 1, [], "dragon", 1)  # the Dragon moves on
    assert not st.dragon[14] and target_error(st, h, 14, [13]) is None


def test_WX_13_tiebreak():
    st = fresh(2)
    a = give(st, 0, "amazons", regions={1: 3, 2: 3, 3: 3})
    st.set_aside[a] = 4
    st.supply[a] -= 4
    give(st, 0, "humans", regions={9: 2, 10: 2}, decline=True)
    give(st, 1, "ratmen", regions={14: 6, 13: 6})
    st.coins = [80, 80]
    st.over = 1
    out = GAME.outcome(st)
    assert out.detail["tiebreak_tokens"] == [13, 12]
    assert out.winners == (0,) and out.ranks == (1, 2)
    st.tokens[14] = 7
    st.supply[D.RATMEN] -= 1
    assert GAME.outcome(st).winners == (0, 1)  # ED-24 shared victory


def test_WX_14_stout():
    st = fresh(2)
    k = give(st, 0, "ratmen", "stout", hand=2, regions={1: 2, 2: 2, 3: 2, 4: 1, 9: 1, 10: 1})
    start_turn(st, 0)
    ev = play(st, 0, Expand(), Conquer(14), EndConquest())
    ev = play(st, 0, Deploy(1, st.hand[k]))
    assert kinds(ev, "scored")[0].data["coins"] == 7
    assert st.phase == "stout"
    ev = play(st, 0, Decline())
    assert not kinds(ev, "scored")
    assert on_map(st, k) == 7 and all(st.tokens[r] == 1 for r in regions_of(st, k))
    assert st.supply[k] == D.BOX[k] - 7 and st.in_decline[k]
    assert st.coins[0] == 12
    start_turn(st, 0)
    assert st.phase == "pick"
