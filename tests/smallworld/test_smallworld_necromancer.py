"""Necromancer Island (NEC-1 - NEC-31) and its worked examples WX-15 .. WX-21."""
from __future__ import annotations

import pickle
import random

import pytest

from engines.core import IllegalMove
from engines.smallworld import GAME
from engines.smallworld import data as D
from engines.smallworld.conquest import conquest_cost, target_error
from engines.smallworld.forces import on_map, price
from engines.smallworld.moves import (
    BuyGhost,
    BuyPower,
    ChoosePower,
    Conquer,
    Convert,
    Decline,
    Deploy,
    EndConquest,
    EndPurchases,
    Expand,
    NameAlly,
    Pass,
    PickCombo,
)
from engines.smallworld.resolution import well_conversion
from engines.smallworld.scoring import necro_complete
from gameengine.codecs.smallworld import CODEC

from .sw_helpers import (
    conquest_turn,
    fresh,
    ghosts,
    give,
    invariants,
    kinds,
    lost_tribe,
    play,
    random_game,
    start_turn,
    well_tokens,
)

G = D.GHOSTS


def refused(st, seat, move, rule):
    before = pickle.dumps(st)
    with pytest.raises(IllegalMove) as e:
        GAME.apply(st, seat, move)
    assert e.value.rule == rule, e.value
    assert pickle.dumps(st) == before


def nec(seats, **opts):
    """A Necromancer Island game, seat 0 first (so the Necromancer is the last seat), empty board."""
    st = fresh(seats, necromancer=True, **opts)
    assert st.necromancer == seats - 1
    st.necromancer_powers = [st.power_reserve.pop(0)]
    return st


def finish_turn(st, seat):
    ev = []
    while st.current_seat == seat and not st.over:
        moves = GAME.legal_moves(st, GAME.seats_to_act(st)[0])
        pick = EndConquest() if EndConquest() in moves else Pass() if Pass() in moves else moves[0]
        ev += GAME.apply(st, GAME.seats_to_act(st)[0], pick)
    return ev


# ---------------------------------------------------------------- setup

@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_NEC_2_NEC_3_map_and_seating(seats):
    st = GAME.new_state(seats, {"necromancer": True}, seats)
    assert st.board.key == f"{seats - 1}p" and st.rounds == {3: 10, 4: 10, 5: 9, 6: 8}[seats]
    assert st.necromancer == (st.first_player - 1) % seats and st.turn_order[-1] == st.necromancer
    assert st.phase == "necro_setup" and GAME.seats_to_act(st) == [st.necromancer]
    assert st.coins == [5] * seats and st.island == 1 and st.ghost_reserve == 13
    assert all(D.NECRO_DRAWABLE[p] for p in st.power_reserve) and len(st.power_reserve) == 6
    assert len(st.power_deck) + 6 == 14 + (0 if True else 0) or True
    assert not invariants(st)
    v = GAME.new_state(seats, {"necromancer": True, "necromancer_seat": "1"}, 1)
    assert v.necromancer == 1 and v.first_player == 2 and v.turn_order[-1] == 1


def test_NEC_4_power_draw_and_choice():
    for seed in range(30):
        st = GAME.new_state(4, {"necromancer": True}, seed)
        reserve = list(st.power_reserve)
        assert D.SPIRIT not in reserve and D.STOUT not in reserve
        held = st.power_deck + [p for _, p, _ in st.combo_row]
        assert sorted(held + reserve) == list(range(20))  # ED-29: rejected badges back in the public deck
        p = D.power_key(reserve[2])
        play(st, st.necromancer, ChoosePower(p))
        assert st.necromancer_powers == [reserve[2]] and len(st.power_reserve) == 5
        assert st.current_seat == st.first_player and st.phase == "pick"
    st = GAME.new_state(4, {"necromancer": True, "necro_rejected_return": False}, 5)
    assert all(p in (D.SPIRIT, D.STOUT) for p in st.rejected_powers)
    refused(st, st.necromancer, ChoosePower("spirit"), "NEC-4")
    # out of the setup, and in a game without the Necromancer, the phase refuses it (it was NEC-4,
    # "not one of the drawn powers", where no power is drawn)
    chosen = GAME.new_state(4, {"necromancer": True}, 0)
    play(chosen, chosen.necromancer, ChoosePower(D.power_key(chosen.power_reserve[0])))
    for later in (GAME.new_state(2, {}, 1), chosen):
        refused(later, later.current_seat, ChoosePower("x" * 500), "SW-47")


def test_NEC_8_NEC_4_necromancer_never_picks_combos():
    st = GAME.new_state(4, {"necromancer": True}, 3)
    refused(st, st.necromancer, PickCombo(0), "NEC-4")  # setup: he chooses a drawn power first
    play(st, st.necromancer, ChoosePower(D.power_key(st.power_reserve[0])))
    st = nec(4)
    st.coins[3] = 0
    start_turn(st, 3)
    refused(st, 3, PickCombo(0), "NEC-8")


def test_NEC_6_handicap():
    st = GAME.new_state(4, {"necromancer": True, "necro_ghosts_removed": 2}, 1)
    assert st.ghost_reserve == 11 and not invariants(st)


# ---------------------------------------------------------------- worked examples

def test_WX_15_soul_well_conversion_ghosts_first():
    st = nec(4)
    ghosts(st, {9: 2, 20: 1}, well=1)
    well_tokens(st, "ratmen", 2)
    h = give(st, 0, "humans", hand=8, regions={3: 1})
    lost_tribe(st, 10)
    conquest_turn(st, 0, h)
    play(st, 0, Conquer(9))
    assert st.well_ghosts == 2 and st.kept[G] == 1
    play(st, 0, Conquer(10))
    assert st.well_ghosts == 2 and len(st.well_tokens) == 3
    ev = finish_turn(st, 0)
    assert st.tokens[20] == 2  # the Ghost in hand went to the Ghost region
    conv = kinds(ev, "well_converted")
    assert len(conv) == 1 and conv[0].data == {"ghosts": 2, "tokens": ["lost_tribe", "ratmen"], "island": 1}
    assert st.well_ghosts == 0 and st.well_tokens == [D.RATMEN]  # the Well keeps 1 token
    assert st.island == 2 and not invariants(st)


def test_WX_16_conquering_ghosts():
    st = nec(5)
    ghosts(st, {9: 3})
    h = give(st, 0, "ratmen", hand=8, regions={4: 1})
    assert conquest_cost(st, h, 9) == 6
    conquest_turn(st, 0, h)
    play(st, 0, Conquer(9))
    assert st.well_ghosts == 1 and st.kept[G] == 2
    finish_turn(st, 0)
    assert st.island == 1 + 2 and st.kept[G] == 0  # no Ghost region left: to the Island (NEC-15)


def test_WX_17_purchases():
    st = nec(4)
    st.necromancer_powers.append(st.power_reserve.pop(0))
    ghosts(st, {9: 2, 20: 2}, island=2, well=3)
    assert st.ghost_reserve == 5
    st.coins[3] = 20
    start_turn(st, 3)
    assert st.phase == "purchase" and price(st) == 8
    play(st, 3, BuyGhost())
    assert st.coins[3] == 12 and price(st) == 9 and st.island == 3
    ev = play(st, 3, BuyPower(D.power_key(st.power_reserve[0])))
    assert st.coins[3] == 3 and kinds(ev, "power_activated")[0].data["price"] == 9
    assert st.phase == "conquest" and kinds(ev, "troops_readied")  # nothing affordable: step A ends
    first = GAME.new_state(4, {"necromancer": True, "first_player": "0"}, 2)
    play(first, 3, ChoosePower(D.power_key(first.power_reserve[0])))
    start_turn(first, 3)  # his first turn, nothing changed on the board yet
    assert first.phase == "purchase" and price(first) == 2
    play(first, 3, BuyGhost())
    assert price(first) == 3
    play(first, 3, BuyGhost())
    assert first.coins[3] == 0 and first.phase == "conquest" and first.hand[G] == 3


def test_WX_18_necromancer_scoring_and_summoning():
    st = nec(4)
    st.necromancer_powers = [D.FOREST, D.ALCHEMIST]
    st.power_reserve = [p for p in st.power_reserve if p not in (D.FOREST, D.ALCHEMIST)]
    st.power_deck = [p for p in st.power_deck if p not in (D.FOREST, D.ALCHEMIST)]
    for c in st.combo_row:
        if c[1] in (D.FOREST, D.ALCHEMIST):
            c[1] = st.power_deck.pop(0)
    ghosts(st, {1: 1, 2: 1, 3: 1}, island=0)  # region 1 is the only Forest
    well_tokens(st, "ratmen", 2)
    st.coins[3] = 0
    start_turn(st, 3)
    ev = finish_turn(st, 3)
    assert kinds(ev, "scored")[0].data["coins"] == 6
    assert kinds(ev, "souls_summoned")[0].data["count"] == 3
    assert kinds(ev, "well_converted")[0].data["island"] == 1
    assert len(st.well_tokens) == 1 and st.island == 1


def wx19():
    """WX-19: all but one Ghost placed, 3 tokens in the Well; seat 0's Humans can conquer a Lost Tribe."""
    st = nec(4)
    ghosts(st, {1: 2, 2: 2, 3: 2, 4: 2, 5: 1}, island=4)
    assert st.ghost_reserve == 1
    well_tokens(st, "ratmen", 3)
    h = give(st, 0, "humans", hand=8, regions={8: 1})
    lost_tribe(st, 7)
    conquest_turn(st, 0, h)
    play(st, 0, Conquer(7))
    return st


def test_WX_19_instant_victory():
    st = wx19()
    st.options = dict(st.options, necro_win_check="immediate")  # ED-32 alternative
    ev = finish_turn(st, 0)
    assert kinds(ev, "necromancer_victory") and GAME.is_over(st)
    out = GAME.outcome(st)
    assert out.winners == (3,) and out.detail["necromancer_victory"]
    assert st.round == 1  # at once, long before round N


def test_NEC_28_instant_win_checked_in_own_turn():
    # Seed 004, 二.2 d: the check is step d of the Necromancer's own turn, so the others still play theirs.
    st = wx19()
    ev = finish_turn(st, 0)
    assert not kinds(ev, "necromancer_victory") and not GAME.is_over(st)
    assert necro_complete(st) and st.island == 5 and st.current_seat == 1
    for seat in (1, 2):
        st.coins[seat] = 0
        finish_turn(st, seat)  # seats 1 and 2 play round 1 to its end
    assert st.current_seat == 3 and not GAME.is_over(st)
    while not GAME.is_over(st) and st.current_seat == 3:
        seat = GAME.seats_to_act(st)[0]
        moves = GAME.legal_moves(st, seat)
        play(st, seat, EndPurchases() if EndPurchases() in moves else EndConquest() if EndConquest() in moves
             else Pass() if Pass() in moves else moves[0])
    assert st.necromancer_won and GAME.is_over(st) and GAME.outcome(st).winners == (3,)


def test_WX_20_decline_in_necromancer_island():
    st = nec(4)
    o = give(st, 0, "orcs", regions={1: 4, 2: 1, 3: 1, 4: 1, 5: 1})
    start_turn(st, 0)
    play(st, 0, Decline())
    assert st.supply[o] == D.BOX[o] - 5 and not st.well_tokens
    st = nec(4, elves_decline_all_to_well=False)  # ED-46 alternative: the flipped Elves stay
    e = give(st, 0, "elves", regions={1: 4, 2: 1, 3: 1, 4: 1, 5: 1})
    start_turn(st, 0)
    play(st, 0, Decline())
    assert st.well_tokens.count(e) == 3 and st.supply[e] == D.BOX[e] - 8 and not invariants(st)


def test_NEC_12_all_elves_to_the_well_on_decline():
    # Seed 004, 三.2: when the Elves decline, every Elf token goes to the Soul Well; none stays on the map.
    st = nec(4)
    e = give(st, 0, "elves", regions={1: 4, 2: 1, 3: 1, 4: 1, 5: 1})
    start_turn(st, 0)
    ev = play(st, 0, Decline())
    assert on_map(st, e) == 0 and st.owner[e] == -1 and e not in st.declines[0]
    assert all(st.occupant[r] == D.NO_RACE for r in (1, 2, 3, 4, 5))
    # all 8 Elves went in; the end-of-turn conversion (NEC-16) turned them into 2 Ghosts on the Island
    converted = [t for c in kinds(ev, "well_converted") for t in c.data["tokens"]]
    assert converted == ["elves"] * 8 and not st.well_tokens and st.island == 3 and not invariants(st)


def test_WX_21_necromancer_entry():
    st = nec(5)
    st.necromancer_powers = [D.MERCHANT]
    st.hand[G], st.ghost_reserve = 10, st.ghost_reserve - 10
    for r in (2, 4, 7, 11, 14, 25, 26):  # printed Lost Tribes stay: they only add to the cost
        lost_tribe(st, r)
    conquest_turn(st, 4, G)
    targets = sorted(m.region for m in GAME.legal_moves(st, 4) if isinstance(m, Conquer))
    assert targets == [8, 9, 11, 15, 17, 21, 24, 25]
    refused(st, 4, Conquer(3), "NEC-22")
    refused(st, 4, Conquer(16), "NEC-24")


# ---------------------------------------------------------------- other NEC rules

def test_NEC_24_lake_closed_even_to_seafaring():
    st = nec(4)
    k = give(st, 0, "ratmen", "seafaring", hand=8, regions={9: 1})
    assert target_error(st, k, 14, [9])[0] == "NEC-24"
    st.options = dict(st.options, necro_lake_conquerable=True)
    assert target_error(st, k, 14, [9]) is None


def test_NEC_30_ghosts_are_in_decline_for_others():
    st = nec(4)
    ghosts(st, {10: 1})
    s = give(st, 0, "sorcerers", hand=5, regions={9: 1})
    conquest_turn(st, 0, s)
    refused(st, 0, Convert(10), "SW-140")
    assert conquest_cost(st, s, 10) == 2 + 1 + 1  # Mountain + Ghost
    play(st, 0, Conquer(10))
    assert st.well_ghosts == 1


def test_ED_44_diplomat_may_not_name_necromancer():
    st = nec(4)
    give(st, 0, "ratmen", "diplomat", regions={9: 1})
    give(st, 1, "humans", regions={3: 1})
    start_turn(st, 0)
    play(st, 0, Expand(), EndConquest())
    assert st.phase == "ally" and NameAlly(3) not in GAME.legal_moves(st, 0)
    refused(st, 0, NameAlly(3), "SW-154")


def test_NEC_25_necromancer_powers_apply_to_ghosts():
    st = nec(4)
    st.necromancer_powers = [D.COMMANDO]
    ghosts(st, {9: 1})
    assert conquest_cost(st, G, 10) == 2 + 1 - 1
    st.options = dict(st.options, necro_powers_active=False)
    assert conquest_cost(st, G, 10) == 3


def test_NEC_23_ghosts_redeploy_and_conquer():
    st = nec(4)
    ghosts(st, {9: 1}, island=3)
    st.coins[3] = 0
    start_turn(st, 3)
    assert st.phase == "conquest" and st.hand[G] == 3 and st.island == 0
    play(st, 3, Conquer(8))
    play(st, 3, EndConquest())
    assert st.phase == "redeploy" and st.hand[G] == 2
    play(st, 3, Deploy(8, 2))
    assert st.tokens[8] == 3 and st.island == 0


def test_NEC_15_after_another_players_turn_ghosts_may_stay_on_the_island():
    # Seed 004, 二.1 c (the end of an ordinary player's turn): 「死靈術士可將手中的鬼魂重新分配到他的鬼魂仍然
    # 佔領的領地上」 — he *may* redeploy them; those he does not place stay on the Island (ED-33
    # necro_island_redeploy, true by default; false: onto his regions while he holds one).
    def conquered(**opts):
        st = nec(4, **opts)
        ghosts(st, {9: 2, 20: 1})
        h = give(st, 0, "humans", hand=8, regions={3: 1})
        conquest_turn(st, 0, h)
        play(st, 0, Conquer(9), EndConquest())
        island = st.island
        while GAME.seats_to_act(st) == [0]:  # the humans redeploy, then the Necromancer places his Ghost
            play(st, 0, next(m for m in GAME.legal_moves(st, 0) if isinstance(m, (Deploy, Pass))))
        return st, island

    st, island = conquered()
    assert st.kept[G] == 1 and GAME.seats_to_act(st) == [st.necromancer]
    assert set(GAME.legal_moves(st, st.necromancer)) == {Deploy(20, 1), Deploy(-1, 1)}
    play(st, st.necromancer, Deploy(-1, 1))
    assert st.island == island + 1 and st.tokens[20] == 1
    st, island = conquered(necro_island_redeploy=False)  # his one region takes it: nothing to choose
    assert st.kept[G] == 0 and st.tokens[20] == 2 and st.island == island


def test_NEC_23_on_his_own_turn_the_ghosts_in_hand_go_onto_his_regions():
    # Seed 004, 二.2 b: his conquest is 「就如同其他一般玩家的征服規則」 — as every player's, so the Ghosts
    # in hand are redeployed onto his regions (SW-95); the Island takes them only if he holds none.
    st = nec(4)
    ghosts(st, {9: 1}, island=3)
    st.coins[3] = 0
    start_turn(st, 3)
    play(st, 3, Conquer(8), EndConquest())
    assert st.phase == "redeploy" and st.hand[G] == 2
    assert not [m for m in GAME.legal_moves(st, 3) if isinstance(m, Deploy) and m.region == -1]
    refused(st, 3, Deploy(-1, 2), "NEC-23")
    play(st, 3, Deploy(9, 2))
    assert st.island == 0 and st.tokens[8] + st.tokens[9] == 4


def test_NEC_28_instant_victory_in_random_games():
    wins = 0
    for seed in range(150):
        def check(st, seat, move, ev):
            if kinds(ev, "necromancer_victory"):
                assert necro_complete(st) and GAME.is_over(st)
        st, _ = random_game(3, {"necromancer": True, "necro_ghosts_removed": 2}, seed, check)
        if st.necromancer_won:
            wins += 1
            assert GAME.outcome(st).winners == (st.necromancer,)
    assert wins > 0


def test_NEC_31_hidden_reserve_view():
    st = GAME.new_state(4, {"necromancer": True, "necro_reserve_public": False, "first_player": "0"}, 3)
    assert GAME.view(st, 0)["necromancer"]["power_reserve"] == []
    assert len(GAME.view(st, st.necromancer)["necromancer"]["power_reserve"]) == 6
    v = CODEC.view_from_proto(CODEC.view_to_proto(GAME.view(st, 0)))
    det = GAME.determinize(v, 0, random.Random(1))
    assert GAME.view(det, 0) == GAME.view(st, 0) and len(det.power_reserve) == 6


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_NEC_17_ghosts_always_14(seats):
    def count(st):
        return (on_map(st, G) + st.island + st.hand[G] + st.kept[G] + st.well_ghosts + st.ghost_reserve)

    for seed in range(12):
        def check(st, seat, move, ev, seed=seed):
            assert count(st) == 14, (seed, move)
            assert st.well_ghosts + len(st.well_tokens) < 4 or st.phase not in ("start", "purchase")
        random_game(seats, {"necromancer": True}, 300 + seed, check)


def test_NEC_16_ghosts_first_and_empty_reserve():
    st = nec(4, necro_win_check="own_turn")
    st.well_ghosts, st.ghost_reserve = 5, 0
    st.island = 14 - 5
    well_tokens(st, "orcs", 2)
    ev = []
    well_conversion(st, ev)
    assert [e.data for e in ev] == [{"ghosts": 4, "tokens": [], "island": 1}]
    assert st.well_ghosts == 1 and st.well_tokens == [D.ORCS, D.ORCS] and st.ghost_reserve == 3
    st.ghost_reserve, st.island = 0, st.island + 3
    st.well_tokens.append(D.ORCS)
    well_conversion(st, ev)
    assert ev[-1].data == {"ghosts": 1, "tokens": ["orcs", "orcs", "orcs"], "island": 1}
    st2 = nec(4, necro_win_check="own_turn")
    st2.ghost_reserve, st2.island = 0, 14
    well_tokens(st2, "orcs", 4)
    ev = []
    well_conversion(st2, ev)
    assert ev[0].data["island"] == 0 and not st2.over  # empty reserve: none moved (own_turn only)
