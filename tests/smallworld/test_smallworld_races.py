"""One or more tests per race (SW-130 - SW-143); rule ids in the names."""
from __future__ import annotations

import pickle

import pytest

from engines.core import IllegalMove
from engines.smallworld import GAME
from engines.smallworld import data as D
from engines.smallworld.conquest import conquest_cost, target_error
from engines.smallworld.forces import on_map
from engines.smallworld.moves import Abandon, Conquer, Decline, Deploy, EndConquest, Expand, PickCombo, SetAside
from engines.smallworld.scoring import tiebreak_tokens

from .sw_helpers import conquest_turn, fresh, give, kinds, lost_tribe, play, put_in_row, start_turn


def refused(st, seat, move, rule):
    before = pickle.dumps(st)
    with pytest.raises(IllegalMove) as e:
        GAME.apply(st, seat, move)
    assert e.value.rule == rule, e.value
    assert pickle.dumps(st) == before


def turn_score(st, seat):
    """Play an EXPAND turn without conquest; return the coins scored."""
    start_turn(st, seat)
    ev = play(st, seat, Expand(), EndConquest())
    return kinds(ev, "scored")[0].data["coins"]


def test_SW_130_amazons_pick_and_set_aside():
    st = fresh(2)
    put_in_row(st, "amazons", "merchant")
    st.phase = "pick"
    play(st, 0, PickCombo(0))
    a = D.AMAZONS
    assert st.hand[a] == 6 + 4 + 2
    st = fresh(2)
    a = give(st, 0, "amazons", regions={1: 3, 2: 3})
    conquest_turn(st, 0, a)
    play(st, 0, EndConquest(), Deploy(1, 2), Deploy(2, 2))
    assert st.phase == "redeploy" and st.set_aside_due == 4
    play(st, 0, SetAside(1), SetAside(1))  # then only region 2 can give: the rest is automatic
    assert st.set_aside[a] == 4 and on_map(st, a) == 2 and st.tokens[1] == 1 and st.tokens[2] == 1
    assert tiebreak_tokens(st, 0) == 2  # set-aside tokens do not count (SW-114)
    start_turn(st, 0)
    play(st, 0, Expand())
    assert st.hand[a] == 4 and st.set_aside[a] == 0
    st2 = fresh(2)
    a = give(st2, 0, "amazons", regions={1: 2})
    st2.set_aside[a], st2.supply[a] = 4, st2.supply[a] - 4
    start_turn(st2, 0)
    play(st2, 0, Decline())
    assert st2.set_aside[a] == 0 and st2.supply[a] == D.BOX[a] - 1


def test_SW_130_amazons_removal_may_abandon():
    st = fresh(2)
    a = give(st, 0, "amazons", regions={1: 1, 2: 1, 3: 2})
    conquest_turn(st, 0, a)
    play(st, 0, EndConquest(), Deploy(3, 1))
    assert st.set_aside_due >= 1
    while st.phase == "redeploy":
        play(st, 0, GAME.legal_moves(st, 0)[0])
    assert st.set_aside[a] == 4 and on_map(st, a) == 0  # ED-19: regions emptied when unavoidable


def test_SW_131_dwarves_mines_active():
    st = fresh(2)
    give(st, 0, "dwarves", regions={2: 1, 5: 1, 4: 1})
    assert turn_score(st, 0) == 3 + 2


def test_SW_132_elves_lose_normally_in_decline():
    st = fresh(2)
    e = give(st, 1, "elves", regions={9: 1}, decline=True)
    k = give(st, 0, "ratmen", hand=5, regions={4: 1})
    conquest_turn(st, 0, k)
    play(st, 0, Conquer(9))
    assert st.kept[e] == 0 and st.owner[e] == -1  # its last token lost: the race left play (SW-103)
    assert st.race_deck[-1] == e


def test_SW_133_ghouls_decline_and_phase():
    st = fresh(2)
    g = give(st, 0, "ghouls", hand=1, regions={4: 3, 9: 2})
    start_turn(st, 0)
    play(st, 0, Decline())
    assert st.tokens[4] == 3 and st.tokens[9] == 2 and st.supply[g] == D.BOX[g] - 5  # all flipped; hand to supply
    h = give(st, 1, "humans", regions={10: 1})
    ev = start_turn(st, 0)
    assert st.phase == "conquest" and st.force == g  # before the combo pick (ED-14)
    assert st.hand[g] == 3
    play(st, 0, Conquer(10))
    assert st.occupant[10] == g and st.kept[h] == 0 and on_map(st, h) == 0
    while st.phase == "redeploy":
        play(st, 0, GAME.legal_moves(st, 0)[0])
    assert st.phase == "pick"
    assert ev


def test_SW_133_ghouls_may_attack_own_active_race():
    st = fresh(2)
    g = give(st, 0, "ghouls", regions={4: 5}, decline=True)
    h = give(st, 0, "humans", regions={9: 2, 3: 1})
    start_turn(st, 0)
    play(st, 0, Expand())
    assert st.force == g
    assert Conquer(9) in GAME.legal_moves(st, 0)
    play(st, 0, Conquer(9))
    assert st.occupant[9] == g and st.kept[h] == 1 and st.supply[h] == D.BOX[h] - 2


def test_SW_135_halflings_enter_anywhere_with_two_holes():
    st = fresh(2)
    k = give(st, 0, "halflings", hand=11)
    conquest_turn(st, 0, k)
    play(st, 0, Conquer(6))  # not an entry region
    play(st, 0, Conquer(12), Conquer(13))
    assert st.hole[6] and st.hole[12] and not st.hole[13]
    other = give(st, 1, "ratmen", hand=5, regions={11: 1})
    assert target_error(st, other, 6, [11])[0] == "SW-172"
    st.active_race[0], st.in_decline[k] = -1, 0
    st.active_race[0] = k
    start_turn(st, 0)
    play(st, 0, Decline())
    assert not any(st.hole)


def test_SW_136_humans_farmland():
    st = fresh(2)
    give(st, 0, "humans", regions={1: 1, 9: 1, 4: 1})
    assert turn_score(st, 0) == 3 + 2


def test_SW_137_orcs_nonempty_conquests():
    st = fresh(2)
    o = give(st, 0, "orcs", hand=10, regions={4: 1})
    lost_tribe(st, 3)
    give(st, 1, "humans", regions={9: 1}, decline=True)
    conquest_turn(st, 0, o)
    ev = play(st, 0, Conquer(3), Conquer(9), Conquer(10), EndConquest())
    ev += play(st, 0, Deploy(4, st.hand[o]))
    assert kinds(ev, "scored")[0].data["coins"] == 4 + 2


def test_SW_138_ratmen_banner():
    st = fresh(2)
    put_in_row(st, "ratmen", "merchant")
    st.phase = "pick"
    play(st, 0, PickCombo(0))
    assert st.hand[D.RATMEN] == 8 + 2


def test_SW_141_tritons_coastal():
    st = fresh(2)
    t = give(st, 0, "tritons", hand=5, regions={1: 1})
    assert conquest_cost(st, t, 2) == 1 and conquest_cost(st, t, 6) == 1
    assert conquest_cost(st, t, 3) == 2  # not coastal
    st.power_of[t] = D.SEAFARING
    assert conquest_cost(st, t, 0) == 2  # water: no discount (ED-27)


def test_SW_142_trolls_lairs():
    st = fresh(2)
    t = give(st, 0, "trolls", hand=5, regions={4: 1})
    conquest_turn(st, 0, t)
    play(st, 0, Conquer(3))
    assert st.troll_lair[3]
    other = give(st, 1, "ratmen", hand=8, regions={2: 1})
    assert conquest_cost(st, other, 3) == 2 + 1 + st.tokens[3]
    st.active_race[0] = t
    start_turn(st, 0)
    play(st, 0, Decline())
    assert st.troll_lair[3] and conquest_cost(st, other, 3) == 4  # lairs stay in decline
    conquest_turn(st, 1, other)
    play(st, 1, Conquer(3))
    assert not st.troll_lair[3]


def test_SW_93_abandon_only_before_first_conquest():
    st = fresh(2)
    k = give(st, 0, "ratmen", regions={4: 3, 9: 1})
    start_turn(st, 0)
    play(st, 0, Expand(), Abandon(9))
    assert st.occupant[9] == D.NO_RACE and st.hand[k] == 3
    play(st, 0, Conquer(10))
    refused(st, 0, Abandon(4), "SW-93")


def test_SW_70_own_active_region_refused_own_decline_allowed():
    st = fresh(2)
    give(st, 0, "humans", regions={9: 1}, decline=True)
    k = give(st, 0, "ratmen", hand=6, regions={4: 1})
    conquest_turn(st, 0, k)
    refused(st, 0, Conquer(4), "SW-70")
    assert conquest_cost(st, k, 9) == 3  # ED-9: own in-decline token adds 1
    play(st, 0, Conquer(9))
    assert st.occupant[9] == k


def test_SW_54_wiped_race_expand_or_decline():
    st = fresh(2)
    k = give(st, 0, "ratmen")
    start_turn(st, 0)
    assert GAME.legal_moves(st, 0) == [Expand(), Decline()]
    c = GAME.clone(st)
    ev = play(c, 0, Expand())
    assert kinds(ev, "scored")[0].data["coins"] == 0
    ev = play(st, 0, Decline())
    assert st.owner[k] == -1 and st.race_deck[-1] == k and kinds(ev, "race_left_play")


def test_SW_104_decline_limit_and_SW_45_banner_return():
    st = fresh(2)
    st.combo_row.pop()  # a short row is refilled when a banner returns
    h = give(st, 0, "humans", regions={1: 1}, decline=True)
    give(st, 0, "orcs", regions={4: 1})
    start_turn(st, 0)
    play(st, 0, Decline())
    assert st.owner[h] == -1 and len(st.combo_row) == 6
