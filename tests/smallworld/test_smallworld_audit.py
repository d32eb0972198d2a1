"""Independent audit of the Small World engine against the user's rule text.

Authority: seed 004 (/work/shared/seeds/004_e23eff583b700a17.txt, Necromancer Island, Chinese); for the base
game the seed says 「皆依照遊戲正常規則進行遊戲」 (play by the normal rules), so base-game tests check the
restatement RULES.md (SW-n).  Each test name carries the rule id it checks.  A test marked xfail(strict)
shows a discrepancy between the engine and the rule text.
"""
from __future__ import annotations

import pickle
import random

import pytest

from engines.core import IllegalMove, InvalidOptions
from engines.smallworld import GAME
from engines.smallworld import data as D
from engines.smallworld.conquest import conquest_cost
from engines.smallworld.forces import on_map, price
from engines.smallworld.moves import (
    Abandon,
    BerserkRoll,
    BuyGhost,
    BuyPower,
    Conquer,
    Convert,
    Decline,
    Deploy,
    DragonAttack,
    EndConquest,
    EndPurchases,
    Expand,
    FinalAttempt,
    NameAlly,
    Pass,
    PickCombo,
    PlaceFortress,
    PlaceHeroes,
)
from engines.smallworld.scoring import tiebreak_tokens

from .sw_helpers import (
    conquest_turn,
    fresh,
    ghosts,
    give,
    invariants,
    kinds,
    lost_tribe,
    play,
    put_in_row,
    start_turn,
    well_tokens,
)

G = D.GHOSTS


# ---------------------------------------------------------------- helpers (own, scenario-level)

def refused(st, seat, move):
    """The move is refused and the state is untouched; returns the cited rule."""
    before = pickle.dumps(st)
    with pytest.raises(IllegalMove) as e:
        GAME.apply(st, seat, move)
    assert pickle.dumps(st) == before
    return e.value.rule


def set_necro_powers(st, keys):
    """Give the Necromancer exactly these active powers, keeping every badge in exactly one place."""
    st.necromancer_powers = []
    for key in keys:
        p = D.POWER[key]
        if p in st.power_reserve:
            st.power_reserve.remove(p)
        else:
            spare = st.power_reserve.pop()
            if p in st.power_deck:
                st.power_deck[st.power_deck.index(p)] = spare
            else:
                for combo in st.combo_row:
                    if combo[1] == p:
                        combo[1] = spare
        st.necromancer_powers.append(p)


def necgame(seats=4, powers=("merchant",), **opts):
    """Necromancer Island, seat 0 first (the Necromancer is the last seat), empty board, setup done."""
    st = fresh(seats, necromancer=True, **opts)
    assert st.necromancer == seats - 1
    set_necro_powers(st, powers)
    st.phase = "start"
    return st


def ghost_total(st):
    return on_map(st, G) + st.island + st.hand[G] + st.kept[G] + st.well_ghosts + st.ghost_reserve


def finish_turn(st):
    """Play the current turn to its end choosing: EndConquest, else Pass, else the first legal move."""
    seat0 = st.current_seat
    ev = []
    while st.current_seat == seat0 and not st.over:
        actor = GAME.seats_to_act(st)[0]
        moves = GAME.legal_moves(st, actor)
        pick = next((m for m in (EndConquest(), EndPurchases(), Pass()) if m in moves), moves[0])
        ev += GAME.apply(st, actor, pick)
    return ev


def end_conquest(st, seat):
    """Stop conquering if the step is still open (it closes by itself when the hand is empty)."""
    if st.phase == "conquest":
        return play(st, seat, EndConquest())
    return []


def necro_conquest(st, seat):
    """Start the Necromancer's turn and go to his conquest step (skipping purchases)."""
    start_turn(st, seat)
    if st.phase == "purchase":
        play(st, seat, EndPurchases())
    assert st.phase == "conquest" and st.force == G


def scored(ev, seat=None):
    return sum(e.data["coins"] for e in kinds(ev, "scored") if seat is None or e.data["seat"] == seat)


# ================================================================ Necromancer Island: setup (seed 一)

@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_NEC_2_map_is_for_total_players_minus_one(seats):
    # seed 一.1 「使用地圖為遊戲參與玩家(含扮演死靈術士的玩家)總數-1的地圖」
    st = GAME.new_state(seats, {"necromancer": True}, 7)
    assert st.board.key == f"{seats - 1}p"
    assert st.rounds == D.board(f"{seats - 1}p").rounds == {3: 10, 4: 10, 5: 9, 6: 8}[seats]


def test_NEC_2_necromancer_needs_three_to_six_seats():
    for bad in (2, 7):
        with pytest.raises(InvalidOptions, match="NEC-2"):
            GAME.new_state(bad, {"necromancer": True}, 1)


@pytest.mark.parametrize("seed", range(6))
def test_NEC_3_necromancer_sits_right_of_first_player_and_moves_last(seed):
    # seed 一.3 「由坐在起始玩家右手邊的玩家來扮演死靈術士…每個回合扮演死靈術士的玩家一定是該回合最後一個動的玩家」
    st = GAME.new_state(5, {"necromancer": True}, seed)
    assert st.necromancer == (st.first_player - 1) % 5
    assert st.turn_order[0] == st.first_player and st.turn_order[-1] == st.necromancer


def test_NEC_3_volunteer_necromancer():
    # seed 一.3 「想要直接扮演死靈術士的玩家，就主動表明並坐到起始玩家右邊即可」
    st = GAME.new_state(4, {"necromancer": True, "necromancer_seat": "2"}, 3)
    assert st.necromancer == 2 and st.first_player == 3 and st.turn_order[-1] == 2


@pytest.mark.parametrize("seed", range(20))
def test_NEC_4_NEC_5_six_powers_without_spirit_stout_one_ghost_on_island(seed):
    # seed 一.2 「在死靈島上放置1個鬼魂」; 一.4 抽6個, 忽略 不息(Spirit)/剛烈(Stout), 自選1個;
    # 一.5 剩下的13個鬼魂與5個未被選擇的特殊能力…不要把未被選擇的特殊能力與其他任何特殊能力混在一起
    st = GAME.new_state(4, {"necromancer": True}, seed)
    assert st.island == 1 and st.ghost_reserve == 13 and on_map(st, G) == 0 and st.well_ghosts == 0
    drawn = list(st.power_reserve)
    assert len(drawn) == 6 and D.SPIRIT not in drawn and D.STOUT not in drawn
    public = st.power_deck + [p for _, p, _ in st.combo_row] + st.power_discard
    assert not set(drawn) & set(public)
    assert GAME.seats_to_act(st) == [st.necromancer]
    legal = GAME.legal_moves(st, st.necromancer)
    assert sorted(m.power for m in legal) == sorted(D.power_key(p) for p in drawn)
    choice = legal[seed % 6]
    play(st, st.necromancer, choice)
    assert [D.power_key(p) for p in st.necromancer_powers] == [choice.power]
    assert len(st.power_reserve) == 5 and set(st.power_reserve) == set(drawn) - {D.POWER[choice.power]}
    # the unchosen five never reach the public decks during a whole game
    rng = random.Random(seed)
    while not st.over:
        seat = GAME.seats_to_act(st)[0]
        GAME.apply(st, seat, rng.choice(GAME.legal_moves(st, seat)))
        public = set(st.power_deck + [p for _, p, _ in st.combo_row] + st.power_discard
                     + [st.power_of[k] for k in range(D.N_RACES) if st.power_of[k] >= 0])
        assert not public & set(drawn)


@pytest.mark.parametrize("removed", [0, 1, 2])
def test_NEC_6_handicap_removes_ghosts_from_his_supply(removed):
    # seed 三.4 「遊戲開始時直接從專屬供應區中移除1或2鬼魂」
    st = GAME.new_state(4, {"necromancer": True, "necro_ghosts_removed": removed}, 1)
    assert st.island == 1 and st.ghost_reserve == 13 - removed


def test_NEC_7_everyone_starts_with_five_coins():
    st = GAME.new_state(6, {"necromancer": True}, 2)
    assert st.coins == [5] * 6


# ================================================================ the Soul Well on a normal player's turn (seed 二.1)

def test_NEC_10_lost_tribe_and_defender_loss_go_to_the_well():
    # seed 二.1 a 「所有的種族token(包含遊戲起始的原住民與死靈術士的鬼魂)，原先因為被征服而必須移除的1個種
    #   族Token改為置入到靈魂之井中」
    st = necgame(5)
    h = give(st, 0, "humans", hand=10, regions={4: 1})
    r = give(st, 1, "ratmen", regions={8: 3})
    lost_tribe(st, 2)
    conquest_turn(st, 0, h)
    play(st, 0, Conquer(2))  # Lost Tribe: 2 + 1 = 3
    assert st.well_tokens == [D.LOST_TRIBE]
    play(st, 0, Conquer(8))  # 3 Ratmen: 2 + 3 = 5, one lost
    assert st.well_tokens == [D.LOST_TRIBE, r] and st.kept[r] == 2
    assert st.supply[r] == D.BOX[r] - 3


def test_NEC_10_in_decline_lone_token_goes_to_the_well():
    st = necgame(5)
    h = give(st, 0, "humans", hand=5, regions={4: 1})
    o = give(st, 1, "orcs", regions={8: 1}, decline=True)
    conquest_turn(st, 0, h)
    play(st, 0, Conquer(8))
    assert st.well_tokens == [o]


def test_NEC_14_conquering_ghosts_costs_n_plus_2_one_to_well_rest_to_his_hand():
    # seed 二.1 b 「一樣遵循N+2的規則；…將其上的1個鬼魂置入靈魂之井；該領地上剩餘的鬼魂則返回死靈術士手中」
    st = necgame(5)
    ghosts(st, {8: 3, 25: 1})
    h = give(st, 0, "humans", hand=10, regions={2: 1})
    assert conquest_cost(st, h, 8) == 2 + 3
    assert conquest_cost(st, h, 9) == 2 + 1  # empty mountain (WX-16 is 2 + 1 + 3 with a Mountain)
    ghosts(st, {9: 3})
    assert conquest_cost(st, h, 9) == 2 + 1 + 3  # WX-16
    conquest_turn(st, 0, h)
    play(st, 0, Conquer(8))
    assert st.well_ghosts == 1 and st.kept[G] == 2 and st.hand[h] == 5
    assert ghost_total(st) == 14


def test_NEC_15_ghosts_in_his_hand_go_back_to_his_regions_at_turn_end():
    # seed 二.1 c 「該玩家回合結束時，死靈術士可將手中的鬼魂重新分配到他的鬼魂仍然佔領的領地上」
    st = necgame(5)
    ghosts(st, {8: 3, 25: 1})
    h = give(st, 0, "humans", hand=5, regions={2: 1})
    conquest_turn(st, 0, h)
    play(st, 0, Conquer(8))
    end_conquest(st, 0)
    play(st, 0, Deploy(8, 4))  # the attacker's own redeployment first
    assert st.phase == "defend" and GAME.seats_to_act(st) == [4]
    moves = GAME.legal_moves(st, 4)
    assert Deploy(25, 2) in moves and Deploy(8, 1) not in moves
    play(st, 4, Deploy(25, 2))
    assert st.tokens[25] == 3 and st.kept[G] == 0


def test_NEC_15_ghosts_with_no_region_stay_on_the_island():
    # seed 二.1 c 「假如他場上都沒有鬼魂佔領的領地，則將所有鬼魂置留在死靈島上」
    st = necgame(5)
    ghosts(st, {8: 3})
    h = give(st, 0, "humans", hand=5, regions={2: 1})
    conquest_turn(st, 0, h)
    island = st.island
    play(st, 0, Conquer(8))
    end_conquest(st, 0)
    play(st, 0, Deploy(8, 4))
    assert st.kept[G] == 0 and st.island == island + 2
    assert st.current_seat == 1  # nothing to decide


def test_NEC_16_conversion_four_to_one_ghosts_first_rest_stays():
    # seed 二.1 d: every normal player's turn end, after redeployment, 4 tokens (Ghosts first) leave, 1 Ghost to
    #   the Island
    st = necgame(5)
    ghosts(st, {25: 1}, well=2)
    well_tokens(st, "ratmen", 3)
    give(st, 0, "humans", hand=5, regions={2: 1})
    start_turn(st, 0)
    reserve, island = st.ghost_reserve, st.island
    ev = play(st, 0, Expand(), EndConquest())
    assert st.current_seat == 1
    # 5 in the Well: 2 Ghosts + 2 Ratmen leave, 1 Ratman stays
    assert st.well_ghosts == 0 and len(st.well_tokens) == 1
    assert st.ghost_reserve == reserve + 2 - 1 and st.island == island + 1
    assert st.supply[D.RATMEN] == D.BOX[D.RATMEN] - 1
    assert kinds(ev, "well_converted")
    assert ghost_total(st) == 14


def test_NEC_16_conversion_repeats_for_every_group_of_four():
    st = necgame(5)
    well_tokens(st, "ratmen", 9)
    give(st, 0, "humans", hand=5, regions={2: 1})
    start_turn(st, 0)
    island = st.island
    play(st, 0, Expand(), EndConquest())
    assert st.island == island + 2 and len(st.well_tokens) == 1


def test_NEC_16_conversion_only_after_the_turn_not_during_it():
    st = necgame(5)
    well_tokens(st, "ratmen", 3)
    h = give(st, 0, "humans", hand=10, regions={4: 1})
    lost_tribe(st, 2)
    conquest_turn(st, 0, h)
    island = st.island
    play(st, 0, Conquer(2))
    assert len(st.well_tokens) == 4 and st.island == island  # not yet: 「在每個一般玩家的回合結束時(重新部屬完畢後)」
    finish_turn(st)
    assert len(st.well_tokens) == 0 and st.island == island + 1


def test_NEC_11_decline_removals_do_not_go_to_the_well():
    # seed 二.1 a 「若某種族因玩家選擇沒落，移除的種族token則不會置入到靈魂之井」 (WX-20)
    st = necgame(5)
    o = give(st, 0, "orcs", regions={1: 2, 2: 2, 3: 1, 4: 2, 5: 1})
    start_turn(st, 0)
    play(st, 0, Decline())
    assert st.well_tokens == [] and st.supply[o] == D.BOX[o] - 5
    assert st.in_decline[o] and on_map(st, o) == 5


def test_NEC_11_old_decline_race_removed_by_new_decline_goes_to_supply():
    st = necgame(5)
    old = give(st, 0, "humans", regions={6: 1, 7: 1}, decline=True)
    o = give(st, 0, "orcs", regions={1: 2})
    start_turn(st, 0)
    play(st, 0, Decline())
    assert st.well_tokens == [] and st.owner[old] == -1 and st.supply[old] == D.BOX[old]
    assert st.supply[o] == D.BOX[o] - 1


def test_NEC_12_elves_going_into_decline_send_all_elf_tokens_to_the_well():
    # seed 三.2 「當精靈選擇沒落時，則需將全部的精靈token都放置到靈魂之井中」
    st = necgame(5)
    e = give(st, 0, "elves", regions={1: 3, 2: 2, 3: 3})
    start_turn(st, 0)
    island = st.island
    ev = play(st, 0, Decline())
    # all 8 Elves entered the Well (none stayed on the map), then two 4:1 conversions ran at turn end
    assert on_map(st, e) == 0 and st.supply[e] == D.BOX[e]
    out = [t for x in kinds(ev, "well_converted") for t in x.data["tokens"]]
    assert out == ["elves"] * 8 and st.island == island + 2


def test_NEC_12_active_elves_lose_no_token_to_conquest_even_by_ghosts():
    st = necgame(5)
    e = give(st, 0, "elves", regions={8: 3, 2: 1})
    ghosts(st, {9: 1}, island=6)
    necro_conquest(st, 4)
    assert st.hand[G] == 6
    play(st, 4, Conquer(8))  # 2 + 3 = 5
    assert st.kept[e] == 3 and st.well_tokens == []


# ================================================================ the Necromancer's turn (seed 二.2)

def test_NEC_19_price_is_powers_plus_ghosts_on_map_and_island_not_well():
    # seed 二.2 a 「費用則是死靈術士已啟用的特殊能力總數，加上場上的鬼魂數量。(地圖上與死靈島上的總和；請
    #   注意靈魂之井內的鬼魂不算)」
    st = necgame(5, powers=("merchant", "forest"))
    ghosts(st, {9: 2, 25: 1}, island=3, well=3)  # WX-17: 2 powers, 6 on map+Island, 3 in the Well
    assert price(st) == 2 + 6
    st.coins[4] = 20
    start_turn(st, 4)
    assert st.phase == "purchase"
    play(st, 4, BuyGhost())
    assert st.coins[4] == 12 and st.island == 4 and price(st) == 9  # bought Ghost goes on the Island
    key = D.power_key(st.power_reserve[0])
    play(st, 4, BuyPower(key))
    assert st.coins[4] == 3 and len(st.necromancer_powers) == 3  # powers coexist
    assert st.phase == "conquest"  # nothing more affordable: on to conquest


def test_NEC_19_cannot_buy_without_the_price():
    st = necgame(5)
    st.coins[4] = 1  # price = 1 power + 1 Ghost on the Island = 2
    start_turn(st, 4)
    assert st.phase == "conquest"
    assert BuyGhost() not in GAME.legal_moves(st, 4)
    assert refused(st, 4, BuyGhost()) in ("NEC-19", "SW-60")


def test_NEC_19_first_turn_buys_two_ghosts_with_five_coins():
    # WX-17: 1 power + 1 Ghost on the Island -> 2, then 3
    st = necgame(5)
    start_turn(st, 4)
    play(st, 4, BuyGhost())
    assert st.coins[4] == 3
    play(st, 4, BuyGhost())
    assert st.coins[4] == 0 and st.hand[G] == 3 and st.phase == "conquest"


@pytest.mark.parametrize("key", ["2p", "3p", "4p", "5p"])
def test_NEC_22_necromancer_enters_through_regions_touching_the_lake(key):
    # seed 二.2 b 「進場的起始點則是與湖中央接觸的那些領地」
    seats = int(key[0]) + 1
    st = necgame(seats)
    b = st.board
    touching = {r for r in b.adj[b.lake] if not b.water[r]}
    necro_conquest(st, seats - 1)
    targets = {m.region for m in GAME.legal_moves(st, seats - 1) if type(m) in (Conquer, FinalAttempt)}
    assert targets == touching


def test_NEC_24_island_and_lake_cannot_be_conquered_even_by_seafaring():
    # seed 三.3 「死靈島為特殊區域，因此無法被一般玩家征服」; 二.2 b 「死靈島並不算一個領地，沒有玩家能夠佔領他」
    st = necgame(5)
    s = give(st, 0, "ratmen", "seafaring", hand=10, regions={15: 1})
    conquest_turn(st, 0, s)
    assert Conquer(16) not in GAME.legal_moves(st, 0)
    refused(st, 0, Conquer(16))
    st = necgame(5, powers=("seafaring",))
    ghosts(st, {15: 1}, island=5)
    necro_conquest(st, 4)
    assert Conquer(16) not in GAME.legal_moves(st, 4)


def test_NEC_10_necromancer_conquest_losses_go_to_the_well():
    # seed 二.2 b 「被死靈術士征服的領地，其上因而要被移除的種族token…改置入靈魂之井」
    st = necgame(5)
    r = give(st, 0, "ratmen", regions={8: 2})
    lost_tribe(st, 9)
    st.island = 8
    st.ghost_reserve -= 7
    necro_conquest(st, 4)
    play(st, 4, Conquer(8), Conquer(9))
    assert st.well_tokens == [r, D.LOST_TRIBE]


def test_NEC_26_NEC_27_his_scoring_and_summoning():
    # seed 二.2 c 「依照一般玩家的得分規則來獲得分數。此外，死靈術士每佔領一個領地，還可以額外從遊戲盒中拿
    #   取一個未使用的種族token
    # …放置在靈魂之井中。假如靈魂之井中因此有大於或等於4個…4:1…」; 三.3 no bonus for the Island  (WX-18)
    st = necgame(5, powers=("forest", "alchemist"))
    ghosts(st, {11: 1, 15: 1, 24: 1}, island=1)  # 11 forest, 15 hill, 24 mountain
    well_tokens(st, "ratmen", 2)
    st.coins[4] = 0
    start_turn(st, 4)
    ev = finish_turn(st)
    assert scored(ev, 4) == 3 + 1 + 2
    # 2 + 3 souls = 5 -> one conversion, 1 left; the Island Ghost was taken into hand and redeployed
    assert len(st.well_tokens) + st.well_ghosts == 1
    assert st.island == 1


def test_NEC_27_no_soul_for_the_island():
    st = necgame(5)
    st.coins[4] = 0
    start_turn(st, 4)
    ev = finish_turn(st)  # holds no region: Island only
    assert scored(ev, 4) == 0 and st.well_tokens == []


def test_NEC_9_ghosts_are_in_decline_for_orcs_and_pillaging():
    # seed 三.1 「鬼魂永遠視為沒落種族，會受到所有影響沒落種族能力或特殊能力的影響」
    st = necgame(5)
    ghosts(st, {8: 1, 9: 1})
    o = give(st, 0, "orcs", "pillaging", hand=10, regions={2: 1})
    conquest_turn(st, 0, o)
    ev = play(st, 0, Conquer(8), Conquer(9), EndConquest(), Deploy(2, 1))
    ev += finish_turn(st)
    assert scored(ev, 0) == 3 + 2 + 2


def test_NEC_9_in_decline_ghouls_may_attack_ghosts():
    st = necgame(5)
    ghosts(st, {8: 1})
    g = give(st, 0, "ghouls", regions={2: 4}, decline=True)
    start_turn(st, 0)
    assert st.phase == "conquest" and st.force == g
    assert Conquer(8) in GAME.legal_moves(st, 0)


def test_NEC_30_sorcerers_cannot_convert_ghosts():
    # seed 三.1 「免疫所有僅對活躍種則才有效果的種族能力或特殊能力」
    st = necgame(5)
    ghosts(st, {8: 1})
    s = give(st, 0, "sorcerers", hand=0, regions={2: 1})
    conquest_turn(st, 0, s)
    assert Convert(8) not in GAME.legal_moves(st, 0)
    refused(st, 0, Convert(8))


def test_NEC_30_diplomat_cannot_name_the_necromancer():
    st = necgame(5)
    d = give(st, 0, "ratmen", "diplomat", hand=0, regions={2: 1})
    conquest_turn(st, 0, d)
    play(st, 0, EndConquest())
    assert st.phase == "ally"
    assert NameAlly(4) not in GAME.legal_moves(st, 0)


def test_NEC_28_win_when_all_ghosts_in_play_at_his_step_d():
    # seed 二.2 d 「假如死靈術士的所有鬼魂都出現在場中(地圖上的領地以及死靈島)…專屬供應區與靈魂之井裡都沒
    #   有鬼魂時。則死靈術士立即獲得遊戲勝利」
    st = necgame(5)
    ghosts(st, {8: 5, 9: 4}, island=5)
    assert st.ghost_reserve == 0 and st.well_ghosts == 0
    st.coins[0] = 100
    start_turn(st, 4)
    finish_turn(st)
    assert st.over and st.necromancer_won and st.round == 1
    assert st.necromancer == 4 and list(GAME.outcome(st).winners) == [4]  # he alone wins, 100 coins or not


def test_NEC_28_no_win_while_a_ghost_is_in_the_well():
    st = necgame(5)
    ghosts(st, {8: 5, 9: 4}, island=4, well=1)
    start_turn(st, 4)
    finish_turn(st)
    assert not st.over


def test_NEC_28_handicap_lowers_the_number_needed():
    st = necgame(5, necro_ghosts_removed=2)
    ghosts(st, {8: 5, 9: 4}, island=3)
    assert st.ghost_reserve == 0
    start_turn(st, 4)
    finish_turn(st)
    assert st.over and st.necromancer_won


def test_NEC_28_win_is_checked_at_his_own_step_d():
    # seed: the check is step d of the Necromancer's turn (docs N1): a conversion on another turn does not end the game
    st = necgame(5)
    ghosts(st, {8: 5, 9: 4}, island=4)
    well_tokens(st, "ratmen", 3)
    lost_tribe(st, 2)
    h = give(st, 0, "humans", hand=5, regions={4: 1})
    conquest_turn(st, 0, h)
    play(st, 0, Conquer(2))
    finish_turn(st)
    assert st.ghost_reserve == 0 and not st.over and st.current_seat == 1
    while st.current_seat != 4:
        finish_turn(st)
        assert not st.over
    finish_turn(st)
    assert st.over and st.necromancer_won


def test_NEC_29_normal_end_compares_coins_necromancer_included():
    # seed 二.2 d 「所有玩家(包含死靈術士)在遊戲結束時各自比較所獲得的分數，最高分的玩家獲勝」
    st = necgame(5)
    st.round = st.rounds
    st.coins = [3, 4, 5, 6, 40]
    for s in range(5):
        start_turn(st, s)
        if s < 4:
            play(st, s, PickCombo(0))
        finish_turn(st)
    assert st.over and not st.necromancer_won
    out = GAME.outcome(st)
    assert list(out.winners) == [4]


# ================================================================ base game: setup, components (SW-10 - SW-26)
# The seed defers the base game to the normal rules 「皆依照遊戲正常規則進行遊戲」; RULES.md restates them.

@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_SW_20_SW_23_SW_25_base_setup(seats):
    st = GAME.new_state(seats, {}, seats)
    b = st.board
    assert b.key == f"{seats}p" and st.rounds == {2: 10, 3: 10, 4: 9, 5: 8}[seats]
    assert b.n == {2: 23, 3: 30, 4: 39, 5: 48}[seats]
    assert b.borders == {2: 51, 3: 71, 4: 95, 5: 119}[seats]
    assert st.coins == [5] * seats and st.round == 1
    assert [r for r in range(b.n) if st.occupant[r] == D.LOST_TRIBE] == [r for r in range(b.n) if b.lost_tribe[r]]
    assert all(st.tokens[r] == 1 for r in range(b.n) if b.lost_tribe[r])
    assert len(st.combo_row) == 6 and all(c == 0 for _, _, c in st.combo_row)
    assert st.necromancer == -1
    for bad in (1, 6):
        with pytest.raises(InvalidOptions, match="SW-20"):
            GAME.new_state(bad, {}, 1)


def test_SW_11_SW_12_SW_13_SW_16_component_counts():
    banner = dict(amazons=6, dwarves=3, elves=6, ghouls=5, giants=6, halflings=6, humans=5, orcs=5, ratmen=8,
                  skeletons=6, sorcerers=5, tritons=6, trolls=5, wizards=5)
    box = dict(amazons=15, dwarves=8, elves=11, ghouls=10, giants=11, halflings=11, humans=10, orcs=10, ratmen=13,
               skeletons=20, sorcerers=18, tritons=11, trolls=10, wizards=10)
    for key in banner:
        assert D.BANNER[D.RACE[key]] == banner[key] and D.BOX[D.RACE[key]] == box[key]
    assert D.EXTRA[D.AMAZONS] == 4 and sum(D.EXTRA) == 4
    badge = dict(alchemist=4, berserk=4, bivouacking=5, commando=4, diplomat=5, dragon_master=5, flying=5, forest=4,
                 fortified=3, heroic=5, hill=4, merchant=2, mounted=5, pillaging=5, seafaring=5, spirit=5, stout=4,
                 swamp=4, underworld=5, wealthy=4)
    assert {k: D.BADGE[D.POWER[k]] for k in badge} == badge and D.N_POWERS == 20
    assert D.BOX[D.LOST_TRIBE] == 18 and D.BOX[G] == 14
    assert sorted(D.DIE) == [0, 0, 0, 1, 2, 3]


@pytest.mark.parametrize("race", sorted(D.RACE))
def test_SW_43_SW_130_tokens_received_on_pick(race):
    st = fresh(2)
    put_in_row(st, race, "commando", 2)
    st.phase = "pick"
    play(st, 0, PickCombo(2))
    k = D.RACE[race]
    assert st.hand[k] == D.BANNER[k] + 4 + (4 if race == "amazons" else 0)
    assert st.active_race[0] == k and st.power_of[k] == D.COMMANDO


def test_SW_40_SW_44_combo_row_payment_WX_5():
    st = fresh(2)
    for i, c in enumerate([0, 1, 0, 2, 0, 0]):
        st.combo_row[i][2] = c
    row = [tuple(c[:2]) for c in st.combo_row]
    st.coins[0] = 2
    st.phase = "pick"
    assert PickCombo(3) not in GAME.legal_moves(st, 0)
    refused(st, 0, PickCombo(3))
    st.coins[0] = 5
    play(st, 0, PickCombo(3))
    assert st.coins[0] == 4
    assert [c[2] for c in st.combo_row] == [1, 2, 1, 0, 0, 0]
    assert [tuple(c[:2]) for c in st.combo_row[:5]] == row[:3] + row[4:]


# ================================================================ conquest (SW-60 - SW-93)

def test_SW_64_cost_mountain_token_WX_1_and_markers():
    st = fresh(4)
    k = give(st, 0, "ratmen", hand=8, regions={8: 1})
    lost_tribe(st, 9)
    assert conquest_cost(st, k, 9) == 4
    c = give(st, 1, "humans", "commando", hand=8, regions={4: 1})
    assert conquest_cost(st, c, 9) == 3
    give(st, 2, "orcs", regions={14: 2})
    st.troll_lair[14] = 1
    st.fortress[14] = 1
    st.encampments[14] = 2
    assert conquest_cost(st, k, 14) == 2 + 2 + 1 + 1 + 2
    assert conquest_cost(st, k, 15) == 2  # empty


def test_SW_65_discounts_never_below_one_WX_4():
    st = fresh(3)
    g = give(st, 0, "giants", "mounted", hand=8, regions={2: 1})
    lost_tribe(st, 9)
    assert conquest_cost(st, g, 9) == 1 + 1 - 1  # 2 + LT - Giants - Mounted(hill) -> 2 - ... : 3 - 1 - 1 = 1
    assert conquest_cost(st, g, 3) == 1  # 2 - 1 - 1 = 0 -> floor 1
    assert conquest_cost(st, g, 13) == 2 + 0  # 13 not next to 2: no Giants discount, swamp: no Mounted


def test_SW_61_first_conquest_entry_WX_2():
    st = fresh(2)
    k = give(st, 0, "ratmen", hand=8)
    conquest_turn(st, 0, k)
    legal = {m.region for m in GAME.legal_moves(st, 0) if type(m) is Conquer}
    assert 4 in legal and 21 in legal and 6 not in legal and 9 not in legal
    assert legal == set(st.board.entry)
    assert refused(st, 0, Conquer(6)) == "SW-61"


def test_SW_63_later_conquests_need_adjacency():
    st = fresh(2)
    k = give(st, 0, "ratmen", hand=8, regions={4: 1})
    conquest_turn(st, 0, k)
    assert refused(st, 0, Conquer(13)) == "SW-63"
    play(st, 0, Conquer(9))
    assert Conquer(8) in GAME.legal_moves(st, 0)  # through the region taken this turn


def test_SW_68_water_only_for_seafaring():
    st = fresh(2)
    k = give(st, 0, "ratmen", hand=8, regions={1: 1})
    conquest_turn(st, 0, k)
    assert Conquer(0) not in GAME.legal_moves(st, 0) and Conquer(7) not in GAME.legal_moves(st, 0)
    st = fresh(2)
    s = give(st, 0, "ratmen", "seafaring", hand=8, regions={1: 1})
    conquest_turn(st, 0, s)
    assert conquest_cost(st, s, 0) == 2 and Conquer(0) in GAME.legal_moves(st, 0)
    assert Conquer(7) not in GAME.legal_moves(st, 0) and Conquer(7) not in [
        m for m in GAME.legal_moves(st, 0)]  # the Lake is not adjacent to 1
    play(st, 0, Conquer(6))
    assert Conquer(7) in GAME.legal_moves(st, 0)  # base game: the Lake is open to Seafaring


def test_SW_70_own_active_region_never_a_target_own_decline_is():
    st = fresh(2)
    d = give(st, 0, "humans", regions={9: 1}, decline=True)
    k = give(st, 0, "ratmen", hand=8, regions={4: 1})
    conquest_turn(st, 0, k)
    assert Conquer(9) in GAME.legal_moves(st, 0) and conquest_cost(st, k, 9) == 3
    assert refused(st, 0, Conquer(4)) == "SW-70"
    play(st, 0, Conquer(9))
    assert st.owner[d] == -1  # its last token gone: the race leaves play


def test_SW_80_defender_discards_one_keeps_rest_WX_6():
    st = fresh(2)
    r = give(st, 1, "ratmen", regions={9: 4, 14: 1})
    a = give(st, 0, "humans", hand=6, regions={4: 1})
    conquest_turn(st, 0, a)
    play(st, 0, Conquer(9))
    assert st.kept[r] == 3 and st.supply[r] == D.BOX[r] - 4
    end_conquest(st, 0)
    while st.phase == "redeploy":
        play(st, 0, GAME.legal_moves(st, 0)[0])
    # one region left: the 3 kept Ratmen go there at the end of A's turn (placed without a choice)
    assert st.tokens[14] == 4 and st.kept[r] == 0 and st.current_seat == 1


def test_SW_132_active_elves_keep_all():
    st = fresh(2)
    e = give(st, 1, "elves", regions={9: 4, 14: 1})
    a = give(st, 0, "humans", hand=6, regions={4: 1})
    conquest_turn(st, 0, a)
    play(st, 0, Conquer(9))
    assert st.kept[e] == 4 and st.supply[e] == D.BOX[e] - 5


@pytest.mark.parametrize("seed", range(12))
def test_SW_90_final_attempt_WX_3(seed):
    st = fresh(3, seed=seed)
    k = give(st, 0, "ratmen", hand=2, regions={9: 1, 10: 1})
    lost_tribe(st, 13)
    give(st, 1, "orcs", regions={15: 2})
    st.troll_lair[15] = 0
    conquest_turn(st, 0, k)
    moves = GAME.legal_moves(st, 0)
    assert FinalAttempt(13) in moves and FinalAttempt(15) in moves and Conquer(13) not in moves
    ev = play(st, 0, FinalAttempt(13))
    roll = kinds(ev, "die_rolled")[0].data["roll"]
    assert roll in D.DIE
    assert st.phase == "redeploy"  # the conquest step ends either way
    if roll >= 1:
        assert st.occupant[13] == k and st.hand[k] + sum(st.tokens[r] for r in (9, 10, 13)) == 4
    else:
        assert st.occupant[13] == D.LOST_TRIBE and st.hand[k] + st.tokens[9] + st.tokens[10] == 4
    st2 = fresh(3)
    k2 = give(st2, 0, "ratmen", hand=1, regions={9: 1})
    give(st2, 1, "orcs", regions={13: 3})
    conquest_turn(st2, 0, k2)
    assert FinalAttempt(13) not in GAME.legal_moves(st2, 0)  # cost 5, shortfall 4: out of reach


def test_SW_92_SW_93_ready_troops_and_abandon():
    st = fresh(2)
    k = give(st, 0, "ratmen", regions={4: 3, 9: 2, 10: 1})
    start_turn(st, 0)
    play(st, 0, Expand())
    assert st.hand[k] == 3 and [st.tokens[r] for r in (4, 9, 10)] == [1, 1, 1]
    play(st, 0, Abandon(10))
    assert st.occupant[10] == D.NO_RACE and st.hand[k] == 4
    play(st, 0, Conquer(3))
    assert Abandon(4) not in GAME.legal_moves(st, 0)


# ================================================================ decline (SW-100 - SW-104)

def test_SW_100_SW_104_decline_WX_7():
    st = fresh(2)
    h = give(st, 0, "humans", regions={1: 1, 2: 1, 3: 1}, decline=True)
    o = give(st, 0, "orcs", "commando", regions={4: 2, 9: 2, 10: 2, 14: 2, 15: 1})
    start_turn(st, 0)
    ev = play(st, 0, Decline())
    assert st.owner[h] == -1 and st.race_deck[-1] == h
    assert on_map(st, o) == 5 and st.supply[o] == D.BOX[o] - 5 and st.in_decline[o]
    assert scored(ev, 0) == 5
    assert D.COMMANDO in st.power_discard and st.power_of[o] == -1
    start_turn(st, 0)
    assert st.phase == "pick"


def test_SW_165_spirit_decline_keeps_old_decline_WX_7():
    st = fresh(2)
    h = give(st, 0, "humans", regions={1: 1, 2: 1, 3: 1}, decline=True)
    o = give(st, 0, "orcs", "spirit", regions={4: 2, 9: 2, 10: 2, 14: 2, 15: 1})
    start_turn(st, 0)
    ev = play(st, 0, Decline())
    assert st.owner[h] == 0 and scored(ev, 0) == 8
    assert st.power_of[o] == D.SPIRIT


def test_SW_166_stout_decline_after_scoring_WX_14():
    st = fresh(2)
    k = give(st, 0, "ratmen", "stout", regions={4: 2, 9: 2})
    start_turn(st, 0)
    ev = play(st, 0, Expand(), EndConquest(), Deploy(4, 2))
    assert st.phase == "stout" and scored(ev, 0) == 2
    ev = play(st, 0, Decline())
    assert st.in_decline[k] and on_map(st, k) == 2 and scored(ev, 0) == 0
    start_turn(st, 0)
    assert st.phase == "pick"


# ================================================================ scoring (SW-110 - SW-114)

def turn_score(st, seat):
    start_turn(st, seat)
    ev = play(st, seat, Expand())
    ev += end_conquest(st, seat)
    while st.phase == "redeploy":
        ev += play(st, seat, GAME.legal_moves(st, seat)[0])
    ev += finish_turn(st) if st.current_seat == seat else []
    return scored(ev, seat)


def test_SW_110_scoring_WX_8():
    st = fresh(2)
    give(st, 0, "wizards", "alchemist", regions={1: 1, 10: 1, 4: 1, 9: 1})
    give(st, 0, "dwarves", regions={2: 1, 3: 1, 11: 1}, decline=True)
    assert turn_score(st, 0) == 4 + 2 + 2 + 3 + 1


@pytest.mark.parametrize("power,regions,bonus", [
    ("forest", {2: 1, 10: 1, 4: 1}, 2), ("hill", {4: 1, 6: 1, 9: 1}, 2), ("swamp", {3: 1, 16: 1, 4: 1}, 2),
    ("merchant", {4: 1, 9: 1, 3: 1}, 3), ("alchemist", {4: 1}, 2), ("commando", {4: 1, 9: 1}, 0)])
def test_SW_111_power_bonuses(power, regions, bonus):
    st = fresh(2)
    give(st, 0, "ratmen", power, regions=regions)
    assert turn_score(st, 0) == len(regions) + bonus


def test_SW_136_SW_143_humans_farmland_wizards_magic():
    st = fresh(2)
    give(st, 0, "humans", regions={1: 1, 9: 1, 4: 1})
    assert turn_score(st, 0) == 3 + 2
    st = fresh(2)
    give(st, 0, "wizards", regions={1: 1, 10: 1, 4: 1})
    assert turn_score(st, 0) == 3 + 2


def test_SW_131_dwarves_mine_counts_in_decline():
    st = fresh(2)
    give(st, 0, "dwarves", regions={2: 1, 5: 1, 4: 1}, decline=True)
    give(st, 0, "ratmen", regions={9: 1})
    assert turn_score(st, 0) == 4 + 2


def test_SW_150_alchemist_not_on_the_decline_turn():
    st = fresh(2)
    give(st, 0, "ratmen", "alchemist", regions={4: 1, 9: 1})
    start_turn(st, 0)
    ev = play(st, 0, Decline())
    assert scored(ev, 0) == 2


def test_SW_169_wealthy_once_on_the_pick_turn():
    st = fresh(2)
    put_in_row(st, "ratmen", "wealthy", 0)
    st.phase = "pick"
    ev = play(st, 0, PickCombo(0), Conquer(4))
    ev += end_conquest(st, 0)
    while st.phase == "redeploy":
        ev += play(st, 0, GAME.legal_moves(st, 0)[0])
    assert scored(ev, 0) == 1 + 7
    assert turn_score(st, 0) == 1


def test_SW_137_SW_163_orcs_and_pillaging_count_nonempty_conquests():
    st = fresh(2)
    o = give(st, 0, "orcs", "pillaging", hand=12, regions={4: 1})
    lost_tribe(st, 3)
    give(st, 1, "humans", regions={9: 1}, decline=True)
    conquest_turn(st, 0, o)
    ev = play(st, 0, Conquer(3), Conquer(9), Conquer(10), EndConquest())
    while st.phase == "redeploy":
        ev += play(st, 0, GAME.legal_moves(st, 0)[0])
    assert scored(ev, 0) == 4 + 2 + 2


def test_SW_158_fortified_coins_and_defense():
    st = fresh(2)
    give(st, 0, "ratmen", "fortified", regions={4: 2, 9: 1})
    start_turn(st, 0)
    ev = play(st, 0, Expand(), EndConquest(), Deploy(4, 1), PlaceFortress(4))
    ev += finish_turn(st) if st.current_seat == 0 else []
    assert scored(ev, 0) == 2 + 1
    b = give(st, 1, "humans", hand=8, regions={3: 1})
    assert conquest_cost(st, b, 4) == 2 + 2 + 1


@pytest.mark.parametrize("tie", [False, True])
def test_SW_113_SW_114_winner_and_tiebreak_WX_13(tie):
    st = fresh(2)
    give(st, 0, "ratmen", regions={4: 5, 9: 4})
    give(st, 1, "humans", regions={1: 5, 2: 3})
    st.round = st.rounds
    st.coins = [80, 80 if tie else 81]
    start_turn(st, 0)
    play(st, 0, Decline())
    start_turn(st, 1)
    play(st, 1, Decline())
    assert st.over
    out = GAME.outcome(st)
    # decline turns score 2 each: still equal; tokens on the map: 2 vs 2 -> then tie share
    if not tie:
        assert list(out.winners) == [1]
    else:
        assert tiebreak_tokens(st, 0) == tiebreak_tokens(st, 1) == 2 and sorted(out.winners) == [0, 1]


def test_SW_114_tiebreak_counts_tokens_on_map():
    st = fresh(2)
    give(st, 0, "ratmen", regions={4: 5, 9: 4})
    give(st, 0, "humans", regions={1: 4}, decline=True)
    give(st, 1, "orcs", regions={2: 9, 3: 3})
    st.round = st.rounds
    st.coins = [80, 81]  # seat 0 scores 3 (2 + 1 in decline), seat 1 scores 2: tied at 83
    for s in (0, 1):
        start_turn(st, s)
        play(st, s, Expand(), EndConquest())
        while st.phase == "redeploy":
            play(st, s, GAME.legal_moves(st, s)[0])
        finish_turn(st) if st.current_seat == s and not st.over else None
    assert st.over and st.coins == [83, 83]
    out = GAME.outcome(st)
    assert tiebreak_tokens(st, 0) == 13 and tiebreak_tokens(st, 1) == 12
    assert list(out.winners) == [0]  # WX-13


def test_SW_32_game_ends_after_last_round():
    st = fresh(3)
    for rnd in range(1, st.rounds + 1):
        for s in range(3):
            assert not st.over and st.round == rnd and st.current_seat == s
            if st.phase == "pick":
                play(st, s, PickCombo(0))
            finish_turn(st)
    assert st.over and st.round == st.rounds


# ================================================================ races (SW-130 - SW-143)

def test_SW_130_amazons_set_aside_four_after_redeployment():
    st = fresh(2)
    a = give(st, 0, "amazons", regions={4: 4, 9: 4})
    start_turn(st, 0)
    play(st, 0, Expand())
    assert st.hand[a] == 6
    play(st, 0, EndConquest(), Deploy(4, 3), Deploy(9, 3))
    while st.phase == "redeploy":
        play(st, 0, GAME.legal_moves(st, 0)[0])
    assert st.set_aside[a] == 4 and on_map(st, a) == 4 and tiebreak_tokens(st, 0) == 4


def test_SW_133_ghouls_stay_on_decline_and_conquer_first():
    st = fresh(2)
    g = give(st, 0, "ghouls", hand=1, regions={4: 3, 9: 2})
    start_turn(st, 0)
    play(st, 0, Decline())
    assert st.tokens[4] == 3 and st.tokens[9] == 2 and st.supply[g] == D.BOX[g] - 5
    start_turn(st, 0)
    assert st.phase == "conquest" and st.force == g and st.hand[g] == 3


def test_SW_135_halflings_anywhere_two_holes_immune():
    st = fresh(2)
    k = give(st, 0, "halflings", hand=11)
    conquest_turn(st, 0, k)
    play(st, 0, Conquer(9), Conquer(8), Conquer(14))
    assert st.hole[9] and st.hole[8] and not st.hole[14]
    o = give(st, 1, "ratmen", hand=8, regions={4: 1})
    st.current_seat = 1
    conquest_turn(st, 1, o)
    assert Conquer(9) not in GAME.legal_moves(st, 1) and refused(st, 1, Conquer(9)) == "SW-172"


def test_SW_139_skeletons_one_per_two_nonempty_WX_9():
    st = fresh(2)
    s = give(st, 0, "skeletons", hand=14, regions={4: 1})
    lost_tribe(st, 3)
    give(st, 1, "humans", regions={9: 1}, decline=True)
    give(st, 1, "ratmen", regions={10: 1})
    conquest_turn(st, 0, s)
    ev = play(st, 0, Conquer(3), Conquer(9), Conquer(10), Conquer(15), Conquer(14))  # 3 + 3 + 3 + 3 + 2 = 14
    ev += end_conquest(st, 0)
    assert kinds(ev, "skeletons_raised")[0].data["tokens"] == 1
    assert on_map(st, s) + st.hand[s] == 14 + 1 + 1


def test_SW_140_sorcerers_convert_lone_active_token_WX_10():
    st = fresh(2)
    s = give(st, 0, "sorcerers", hand=0, regions={4: 1})
    q = give(st, 1, "ratmen", regions={9: 1, 10: 2})
    st.fortress[9] = 1
    conquest_turn(st, 0, s)
    moves = GAME.legal_moves(st, 0)
    assert Convert(9) in moves and Convert(10) not in moves
    play(st, 0, Convert(9))
    assert st.occupant[9] == s and st.tokens[9] == 1 and not st.fortress[9] and st.supply[q] == D.BOX[q] - 2
    st2 = fresh(2)
    s2 = give(st2, 0, "sorcerers", hand=0, regions={4: 1})
    give(st2, 1, "ratmen", regions={9: 1}, decline=True)
    lost_tribe(st2, 3)
    conquest_turn(st2, 0, s2)
    assert Convert(9) not in GAME.legal_moves(st2, 0) and Convert(3) not in GAME.legal_moves(st2, 0)


def test_SW_141_tritons_coastal_discount():
    st = fresh(2)
    t = give(st, 0, "tritons", hand=8, regions={1: 1})
    assert conquest_cost(st, t, 2) == 1 and conquest_cost(st, t, 6) == 1  # both border the Sea or the Lake
    assert conquest_cost(st, t, 4) == 2  # not coastal


def test_SW_142_trolls_lair_on_conquest_stays_in_decline():
    st = fresh(2)
    t = give(st, 0, "trolls", hand=8, regions={4: 1})
    conquest_turn(st, 0, t)
    play(st, 0, Conquer(9))
    assert st.troll_lair[9]
    o = give(st, 1, "ratmen", hand=8, regions={10: 1})
    assert conquest_cost(st, o, 9) == 2 + st.tokens[9] + 1


# ================================================================ special powers (SW-150 - SW-169)

@pytest.mark.parametrize("seed", range(8))
def test_SW_151_berserk_rolls_first_WX_11(seed):
    st = fresh(2, seed=seed)
    k = give(st, 0, "ratmen", "berserk", hand=3, regions={4: 1})
    give(st, 1, "humans", regions={9: 2})
    conquest_turn(st, 0, k)
    moves = GAME.legal_moves(st, 0)
    assert BerserkRoll() in moves and not any(type(m) is FinalAttempt for m in moves)
    ev = play(st, 0, BerserkRoll())
    roll = kinds(ev, "die_rolled")[0].data["roll"]
    if st.phase == "conquest":
        legal = GAME.legal_moves(st, 0)
        assert (Conquer(9) in legal) == (max(1, 4 - roll) <= 3)
        if Conquer(9) in legal:
            ev = play(st, 0, Conquer(9))
            assert kinds(ev, "conquered")[0].data["tokens"] == max(1, 4 - roll)


def test_SW_152_bivouacking_encampments_add_defense():
    st = fresh(2)
    give(st, 0, "ratmen", "bivouacking", regions={4: 1, 9: 1})
    st.encampments_in_hand[0] = 5
    start_turn(st, 0)
    play(st, 0, Expand(), EndConquest())
    while st.phase == "redeploy":
        play(st, 0, GAME.legal_moves(st, 0)[0])
    assert sum(st.encampments) == 5
    o = give(st, 1, "humans", hand=9, regions={3: 1})
    r = max((4, 9), key=lambda x: st.encampments[x])
    assert conquest_cost(st, o, r) == 2 + 1 + st.encampments[r]


def test_SW_154_diplomat_peace():
    st = fresh(3)
    d = give(st, 0, "ratmen", "diplomat", hand=0, regions={3: 1})
    o = give(st, 1, "humans", hand=8, regions={4: 1})
    conquest_turn(st, 0, d)
    play(st, 0, EndConquest())
    assert st.phase == "ally"
    play(st, 0, NameAlly(1))
    conquest_turn(st, 1, o)
    assert Conquer(3) not in GAME.legal_moves(st, 1) and refused(st, 1, Conquer(3)) == "SW-154"


def test_SW_155_dragon_one_token_ignores_defense_WX_12():
    st = fresh(2)
    k = give(st, 0, "ratmen", "dragon_master", hand=3, regions={4: 1})
    q = give(st, 1, "humans", regions={9: 5})
    st.fortress[9] = 1
    conquest_turn(st, 0, k)
    play(st, 0, DragonAttack(9))
    assert st.tokens[9] == 1 and st.dragon[9] and not st.fortress[9] and st.kept[q] == 4
    assert not any(type(m) is DragonAttack for m in GAME.legal_moves(st, 0))


def test_SW_156_flying_any_land_region():
    st = fresh(2)
    k = give(st, 0, "ratmen", "flying", hand=8)
    conquest_turn(st, 0, k)
    legal = {m.region for m in GAME.legal_moves(st, 0) if type(m) is Conquer}
    assert legal == set(st.board.land)


def test_SW_159_heroic_immune():
    st = fresh(2)
    give(st, 0, "ratmen", "heroic", regions={4: 1, 9: 1, 10: 1})
    start_turn(st, 0)
    play(st, 0, Expand(), EndConquest())
    assert st.phase == "heroes"
    play(st, 0, PlaceHeroes((4, 9)))
    assert st.hero[4] and st.hero[9]
    o = give(st, 1, "humans", hand=8, regions={3: 1})
    conquest_turn(st, 1, o)
    assert refused(st, 1, Conquer(4)) == "SW-172"
    assert Conquer(4) not in GAME.legal_moves(st, 1) and Conquer(9) not in GAME.legal_moves(st, 1)


def test_SW_162_SW_168_mounted_underworld_discounts():
    st = fresh(2)
    m = give(st, 0, "ratmen", "mounted", hand=8, regions={4: 1})
    assert conquest_cost(st, m, 9) == 1 and conquest_cost(st, m, 10) == 2  # farmland vs forest
    st = fresh(2)
    u = give(st, 0, "ratmen", "underworld", hand=8, regions={3: 1})
    assert conquest_cost(st, u, 14) == 1  # cavern
    conquest_turn(st, 0, u)
    assert Conquer(17) in GAME.legal_moves(st, 0)  # caverns adjacent to each other


def test_SW_164_seafaring_decline_keeps_water_and_scores():
    st = fresh(2)
    s = give(st, 0, "ratmen", "seafaring", regions={0: 1, 1: 1})
    start_turn(st, 0)
    ev = play(st, 0, Decline())
    assert st.occupant[0] == s and scored(ev, 0) == 2 and st.power_of[s] == D.SEAFARING


# ================================================================ information (SW-120 - SW-124, NEC-31)

@pytest.mark.parametrize("nec", [False, True])
def test_SW_121_coins_hidden_from_others_until_the_end(nec):
    seats = 4
    st = GAME.new_state(seats, {"necromancer": nec}, 5)
    rng = random.Random(1)
    while not st.over:
        seat = GAME.seats_to_act(st)[0]
        for ev in GAME.apply(st, seat, rng.choice(GAME.legal_moves(st, seat))):
            if ev.kind == "scored":
                assert ev.to == ev.data["seat"]  # amount and total only to the scorer
            elif ev.to is None and ev.kind != "game_over":
                assert "total" not in ev.data
        if not st.over:
            for viewer in range(seats):
                v = GAME.view(st, viewer)
                for p in v["players"]:
                    assert p["coins"] == (st.coins[p["seat"]] if p["seat"] == viewer else -1)
    v = GAME.view(st, 0)
    assert [p["coins"] for p in v["players"]] == st.coins


def test_NEC_31_well_and_price_are_public():
    st = necgame(5)
    well_tokens(st, "ratmen", 2)
    st.well_ghosts, st.ghost_reserve = 1, st.ghost_reserve - 1
    for viewer in range(5):
        n = GAME.view(st, viewer)["necromancer"]
        assert n["well_tokens"] == ["ratmen", "ratmen"] and n["well_ghosts"] == 1
        assert n["price"] == price(st) and n["island"] == st.island and n["ghost_reserve"] == st.ghost_reserve
        assert n["active_powers"] == ["merchant"]


# ================================================================ property: random games at every player count

CONFIGS = [(False, 2), (False, 3), (False, 4), (False, 5), (True, 3), (True, 4), (True, 5), (True, 6)]
AUDIT_GAMES = 80  # per configuration: 640 random games in all


def check_well_and_ghosts(st, removed):
    """Seed 二.1 d: Ghosts on regions + Island + his supply (+ in hand / in the Well) always make 14 (less the
    handicap); the Lake under the Island holds nothing (三.3)."""
    assert ghost_total(st) == 14 - removed
    assert min(st.well_ghosts, st.ghost_reserve, st.island, st.hand[G], st.kept[G]) >= 0
    assert st.occupant[st.board.lake] == D.NO_RACE


@pytest.mark.parametrize("nec,seats", CONFIGS, ids=[f"{'nec' if n else 'base'}{s}" for n, s in CONFIGS])
def test_SW_NEC_property_random_games(nec, seats):
    for seed in range(AUDIT_GAMES):
        removed = seed % 3 if nec else 0
        opts = {"necromancer": nec, "necro_ghosts_removed": removed} if nec else {}
        st = GAME.new_state(seats, opts, 1000 + seed)
        rng = random.Random(seed)
        coins = [5] * seats
        turns = [] if nec else [(1, st.first_player)]  # the base game's first turn starts inside new_state
        moves = 0
        while not GAME.is_over(st):
            seat = GAME.seats_to_act(st)[0]
            move = rng.choice(GAME.legal_moves(st, seat))
            for ev in GAME.apply(st, seat, move):
                d = ev.data
                if ev.kind == "scored":
                    assert d["coins"] >= 0
                    coins[d["seat"]] += d["coins"]
                elif ev.kind == "combo_picked":
                    assert d["seat"] != st.necromancer  # NEC-8
                    coins[d["seat"]] += d["collected"] - d["paid"]
                elif ev.kind in ("ghost_bought", "power_activated"):
                    assert d["seat"] == st.necromancer
                    coins[d["seat"]] -= d["price"]
                elif ev.kind == "turn_started":
                    turns.append((d["round"], d["seat"]))
                    if nec:  # 二.1 d: the Well was converted at every turn end: fewer than 4 left
                        assert st.well_ghosts + len(st.well_tokens) < 4
            moves += 1
            assert moves < 5000
            assert all(c >= 0 for c in st.coins)  # SW-112
            if seed % 8 == 0:
                assert not invariants(st), invariants(st)
            if nec:
                check_well_and_ghosts(st, removed)
        # every coin comes from the turn scoring events, the row and the purchases
        assert coins == st.coins, (seed, coins, st.coins)
        assert not invariants(st)
        # SW-30 / NEC-3: seat order from the first player, the Necromancer last in every round
        order = st.turn_order
        assert order[0] == st.first_player
        if nec:
            assert order[-1] == st.necromancer
        expected = [(r, s) for r in range(1, st.rounds + 1) for s in order]
        if st.necromancer_won:  # NEC-28: only at the end of his own turn, all his Ghosts in play
            assert turns == expected[:len(turns)] and turns[-1][1] == st.necromancer
            assert st.ghost_reserve == 0 and st.well_ghosts == 0 and st.hand[G] == st.kept[G] == 0
        else:  # SW-32: exactly N rounds of one turn per seat
            assert turns == expected and st.round == st.rounds == {2: 10, 3: 10, 4: 9, 5: 8}[int(st.board.key[0])]
        out = GAME.outcome(st)
        best = max(st.coins)
        if not st.necromancer_won:  # SW-113 / SW-114 / 二.2 d: most coins, then most tokens on the map
            top = [s for s in range(seats) if st.coins[s] == best]
            most = max(tiebreak_tokens(st, s) for s in top)
            assert sorted(out.winners) == [s for s in top if tiebreak_tokens(st, s) == most]
        else:
            assert list(out.winners) == [st.necromancer]


def test_NEC_27_NEC_28_his_own_summoning_completes_the_ghosts_and_he_wins_at_step_d():
    # seed 二.2 c summoning + 4:1 on his own turn, then 二.2 d the victory check
    st = necgame(5)
    ghosts(st, {8: 6, 9: 6}, island=1)  # 13 in play, 1 in reserve
    well_tokens(st, "ratmen", 2)  # + 2 souls for his 2 regions = 4 -> the last Ghost goes to the Island
    start_turn(st, 4)
    finish_turn(st)
    assert st.ghost_reserve == 0 and st.over and st.necromancer_won


def test_NEC_20_NEC_28_buying_the_last_ghost_wins_at_step_d():
    st = necgame(5)
    ghosts(st, {8: 6, 9: 6}, island=1)
    st.coins[4] = price(st)
    start_turn(st, 4)
    play(st, 4, BuyGhost())
    assert st.ghost_reserve == 0 and st.coins[4] == 0
    finish_turn(st)
    assert st.over and st.necromancer_won


def test_NEC_23_on_his_own_turn_ghosts_go_onto_his_regions_not_the_island():
    # seed 二.2 b 「就如同其他一般玩家的征服規則」: redeployment as every player; the Island is not a region
    st = necgame(5)
    ghosts(st, {8: 1}, island=4)
    necro_conquest(st, 4)
    play(st, 4, Conquer(9))  # cost 3 (mountain); 1 Ghost left in hand
    end_conquest(st, 4)
    assert st.phase == "redeploy"
    assert refused(st, 4, Deploy(-1, 1)) == "NEC-23"
    assert all(m.region in (8, 9) for m in GAME.legal_moves(st, 4))
