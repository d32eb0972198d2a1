"""Turn phase and characters: CIT-28..CIT-56, WE-1, WE-2, WE-7, WE-8, WE-14, WE-15."""
import pickle

import pytest

from engines.citadels import GAME, legality
from engines.citadels.cards import DISTRICT
from engines.citadels.moves import (
    Assassinate,
    Build,
    CollectIncome,
    DrawCards,
    EndTurn,
    KeepCards,
    MagicRedraw,
    MagicSwap,
    Rob,
    TakeGold,
    WarlordDestroy,
    WarlordSkip,
)
from engines.core import IllegalMove

from .citadels_helpers import clear_hand, deal_round, give, new, play


def refused(s, seat, move, rule):
    before = pickle.dumps(s)
    with pytest.raises(IllegalMove) as e:
        GAME.apply(s, seat, move)
    assert e.value.rule == rule, e.value
    assert pickle.dumps(s) == before


def end_turn(s):
    seat = s.active
    if not s.action_taken:
        GAME.apply(s, seat, TakeGold())
    ev = GAME.apply(s, seat, EndTurn())
    if s.phase == "turns" and s.step == "end":
        ev += GAME.apply(s, seat, WarlordSkip())
    return ev


def test_CIT_28_calling_order_skips_unheld():
    s = new(4, seed=1)
    ev = deal_round(s, {0: [2], 1: [5], 2: [7], 3: [8]}, face_up=(1, 3))
    assert [(e.data["rank"], e.data["seat"]) for e in ev if e.kind == "character_called"] == [(1, -1), (2, 0)]
    ev = end_turn(s)
    called = [(e.data["rank"], e.data["seat"]) for e in ev if e.kind == "character_called"]
    assert called == [(3, -1), (4, -1), (5, 1)]


def test_CIT_47_WE_1_thief_targets():
    s = new(4, seed=1)
    deal_round(s, {0: [1], 1: [2], 2: [3], 3: [4]}, face_up=(5, 7))
    play(s, 0, Assassinate(6), TakeGold(), EndTurn())
    assert s.active == 1
    assert sorted(m.rank for m in GAME.legal_moves(s, 1) if isinstance(m, Rob)) == [3, 4, 8]
    for r in (6, 1, 2, 5):
        refused(s, 1, Rob(r), "CIT-47")
    s2 = new(4, seed=1, allow_void_targets=True)
    deal_round(s2, {0: [1], 1: [2], 2: [3], 3: [4]}, face_up=(5, 7))
    play(s2, 0, Assassinate(6), TakeGold(), EndTurn())
    assert sorted(m.rank for m in GAME.legal_moves(s2, 1) if isinstance(m, Rob)) == [2, 3, 4, 5, 7, 8]


def test_CIT_46_assassin_targets_and_murder():
    s = new(4, seed=1)
    deal_round(s, {0: [1], 1: [4], 2: [6], 3: [8]}, face_up=(2, 7))
    assert sorted(m.rank for m in GAME.legal_moves(s, 0) if isinstance(m, Assassinate)) == [3, 4, 5, 6, 8]
    refused(s, 0, Assassinate(1), "CIT-46")
    refused(s, 0, Assassinate(7), "CIT-46")
    play(s, 0, Assassinate(6))
    refused(s, 0, Assassinate(4), "CIT-42")
    gold2 = s.gold[2]
    play(s, 0, TakeGold(), EndTurn())
    assert s.active == 1
    ev = end_turn(s)
    # rank 6 is murdered: no answer, no turn (CIT-30)
    called = [(e.data["rank"], e.data["seat"]) for e in ev if e.kind == "character_called"]
    assert called == [(5, -1), (6, -1), (7, -1), (8, 3)]
    ev = end_turn(s)
    assert s.gold[2] == gold2
    ended = [e for e in ev if e.kind == "round_ended"][0]
    assert ended.data["murdered_seat"] == 2 and ended.to is None  # CIT-33
    s2 = new(4, seed=1, allow_void_targets=True)
    deal_round(s2, {0: [1], 1: [4]}, face_up=(2, 7))
    assert sorted(m.rank for m in GAME.legal_moves(s2, 0) if isinstance(m, Assassinate)) == list(range(1, 9))


def test_CIT_31_WE_7_robbery_timing():
    s = new(4, seed=1)
    clear_hand(s, 1)
    give(s, 1, "tavern", to="city")
    give(s, 1, "market", to="city")
    s.gold[1] = 4
    deal_round(s, {0: [2], 1: [6]})
    g0 = s.gold[0]
    play(s, 0, Rob(6), TakeGold(), EndTurn())
    assert s.gold[0] == g0 + 2 + 4 and s.gold[1] == 0  # CIT-29.1 at reveal
    play(s, 1, TakeGold())
    assert s.gold[1] == 3  # 2 + Merchant's 1 (CIT-51)
    play(s, 1, CollectIncome())
    assert s.gold[1] == 5


def test_CIT_79_robbing_zero_gold():
    s = new(4, seed=1)
    s.gold[1] = 0
    deal_round(s, {0: [2], 1: [5]})
    play(s, 0, Rob(5), TakeGold(), EndTurn())
    assert s.gold[1] == 0 and s.active == 1


def test_CIT_49_king_takes_crown_and_WE_8_murdered_king():
    s = new(5, seed=1, initial_crown=2)
    deal_round(s, {0: [1], 4: [4]})
    play(s, 0, Assassinate(4), TakeGold())
    ev = play(s, 0, EndTurn())
    assert s.crown == 2 and s.round == 2 and s.phase == "selection"
    assert [e for e in ev if e.kind == "round_ended"][0].data["murdered_seat"] == 4
    s = new(5, seed=1, initial_crown=2, murdered_king_gets_crown=True)
    deal_round(s, {0: [1], 4: [4]})
    play(s, 0, Assassinate(4), TakeGold(), EndTurn())
    assert s.crown == 4
    s = new(5, seed=1, initial_crown=2)
    deal_round(s, {4: [4]})
    assert s.crown == 4  # revealed King takes the crown at once
    s = new(5, seed=1, initial_crown=2)
    deal_round(s, {4: [5]})
    end_turn(s)
    assert s.crown == 2  # CIT-84: King not held


def test_CIT_50_WE_15_bishop_protection_and_murdered_bishop():
    s = new(4, seed=1)
    give(s, 1, "manor", to="city")
    s.gold[0] = 10
    deal_round(s, {1: [5], 0: [8]})
    end_turn(s)
    play(s, 0, TakeGold(), EndTurn())
    assert all(m.player != 1 for m in GAME.legal_moves(s, 0) if isinstance(m, WarlordDestroy))
    refused(s, 0, WarlordDestroy(1, s.cities[1][0]), "CIT-50")
    s = new(4, seed=1)
    give(s, 3, "manor", to="city")
    s.gold[0] = 10
    deal_round(s, {2: [1], 3: [5], 0: [8]})
    play(s, 2, Assassinate(5), TakeGold(), EndTurn())
    play(s, 0, TakeGold(), EndTurn())
    assert WarlordDestroy(3, s.cities[3][0]) in GAME.legal_moves(s, 0)
    ev = play(s, 0, WarlordSkip())
    assert [e for e in ev if e.kind == "round_ended"][0].data["murdered_seat"] == 3


def test_CIT_50_two_player_bishop_covers_own_warlord():
    s = new(2, seed=1)
    give(s, 0, "manor", to="city")
    s.gold[0] = 10
    deal_round(s, {0: [5, 8], 1: [2, 3]})
    end_turn(s)  # thief
    end_turn(s)  # magician
    end_turn(s)  # bishop (seat 0)
    play(s, 0, TakeGold(), EndTurn())
    assert GAME.legal_moves(s, 0) == [WarlordSkip()]


def test_CIT_51_merchant_bonus_after_draw():
    s = new(4, seed=1)
    deal_round(s, {0: [6]})
    g = s.gold[0]
    play(s, 0, DrawCards())
    assert s.gold[0] == g  # bonus waits for the keep choice
    play(s, 0, GAME.legal_moves(s, 0)[0])
    assert s.gold[0] == g + 1


def test_CIT_52_architect_draws_two_and_builds_three():
    s = new(4, seed=1)
    clear_hand(s, 0)
    for d in ("tavern", "market", "temple", "watchtower"):
        give(s, 0, d)
    s.gold[0] = 20
    deal_round(s, {0: [7]})
    play(s, 0, TakeGold())
    assert len(s.hands[0]) == 6
    for c in [c for c in s.hands[0] if DISTRICT[c] in ("tavern", "market", "temple")]:
        play(s, 0, Build(c))
    wt = [c for c in s.hands[0] if DISTRICT[c] == "watchtower"][0]
    refused(s, 0, Build(wt), "CIT-52")
    assert len(s.cities[0]) == 3


def test_CIT_38_one_build_and_CIT_40_duplicates():
    s = new(4, seed=1)
    clear_hand(s, 0)
    t1 = give(s, 0, "tavern")
    t2 = give(s, 0, "tavern")
    m = give(s, 0, "market")
    p = give(s, 0, "palace")
    s.gold[0] = 4
    deal_round(s, {0: [4]})
    refused(s, 0, Build(p), "CIT-38")  # too expensive
    play(s, 0, Build(t1))
    refused(s, 0, Build(m), "CIT-38")  # one build per turn
    end_turn(s)
    s2 = new(4, seed=1)
    clear_hand(s2, 0)
    give(s2, 0, "tavern", to="city")
    t = give(s2, 0, "tavern")
    deal_round(s2, {0: [4]})
    refused(s2, 0, Build(t), "CIT-40")
    assert t2 in s.hands[0]


def test_CIT_37_action_first_flag():
    s = new(4, seed=1, action_order="action_first")
    clear_hand(s, 0)
    t = give(s, 0, "tavern")
    deal_round(s, {0: [4]})
    assert Build(t) not in GAME.legal_moves(s, 0)
    refused(s, 0, Build(t), "CIT-37")
    refused(s, 0, EndTurn(), "CIT-32")
    play(s, 0, TakeGold(), Build(t))
    s = new(4, seed=1)
    clear_hand(s, 0)
    t = give(s, 0, "tavern")
    deal_round(s, {0: [4]})
    play(s, 0, Build(t))  # default: any order


def test_CIT_41_income_and_CIT_87_zero():
    s = new(4, seed=1)
    clear_hand(s, 0)
    give(s, 0, "prison", to="city")
    give(s, 0, "watchtower", to="city")
    give(s, 0, "manor", to="city")
    deal_round(s, {0: [8]})
    g = s.gold[0]
    play(s, 0, CollectIncome())
    assert s.gold[0] == g + 2
    refused(s, 0, CollectIncome(), "CIT-42")
    s = new(4, seed=1)
    deal_round(s, {0: [6], 1: [7]})
    g = s.gold[0]
    play(s, 0, CollectIncome())
    assert s.gold[0] == g
    play(s, 0, TakeGold(), EndTurn())
    assert CollectIncome() not in GAME.legal_moves(s, 1)
    refused(s, 1, CollectIncome(), "CIT-41")


def test_CIT_34_36_draw_keep_return_order():
    s = new(4, seed=1)
    deal_round(s, {0: [4]})
    top = s.deck[:2]
    refused(s, 0, EndTurn(), "CIT-32")
    play(s, 0, DrawCards())
    assert s.step == "keep" and s.drawn == top
    refused(s, 0, TakeGold(), "CIT-36")
    refused(s, 0, KeepCards((top[0], top[1]), ()), "CIT-36")
    assert sorted(GAME.legal_moves(s, 0)) == sorted([KeepCards((top[0],), (top[1],)), KeepCards((top[1],), (top[0],))])
    ev = play(s, 0, KeepCards((top[1],), (top[0],)))
    assert s.deck[-1] == top[0] and top[1] in s.hands[0]
    assert [e for e in ev if e.kind == "cards_returned"][0].to == 0
    assert GAME.view(s, 0)["known_deck"][-1]["card"] == top[0]
    assert GAME.view(s, 1)["known_deck"] == []
    refused(s, 0, DrawCards(), "CIT-34")


def test_CIT_44_empty_and_short_deck():
    s = new(4, seed=1)
    s.hands[1].extend(s.deck[1:])
    del s.deck[1:]
    deal_round(s, {0: [4]})
    play(s, 0, DrawCards())  # one card only: kept, no choice
    assert s.step == "main" and s.action_taken and not s.deck
    s = new(4, seed=1)
    s.hands[1].extend(s.deck)
    s.deck = []
    deal_round(s, {0: [7]})
    refused(s, 0, DrawCards(), "CIT-44")
    play(s, 0, TakeGold())  # Architect draws nothing
    assert DrawCards() not in GAME.legal_moves(s, 0)


def test_CIT_48_WE_14_magician():
    s = new(6, seed=1)
    clear_hand(s, 2)
    deal_round(s, {2: [3]})
    s.hands[5].append(s.deck.pop(0))
    five = list(s.hands[5])
    assert len(five) == 5
    ev = play(s, 2, MagicSwap(5))
    assert s.hands[2] == five and s.hands[5] == []
    pub = [e for e in ev if e.kind == "magic_swap"][0]
    assert pub.to is None and pub.data["cards_received"] == 5
    refused(s, 2, MagicSwap(4), "CIT-42")
    s = new(6, seed=1)
    deal_round(s, {2: [3]})
    refused(s, 2, MagicSwap(2), "CIT-48")
    hand = list(s.hands[2][:3])
    s.deck.extend(s.hands[2][3:])
    s.hands[2] = list(hand)
    top = s.deck[:2]
    size = len(s.deck)
    play(s, 2, MagicRedraw((hand[0], hand[1])))
    assert s.hands[2] == [hand[2]] + top and s.deck[-2:] == [hand[0], hand[1]] and len(s.deck) == size
    s = new(6, seed=1)
    clear_hand(s, 2)
    deal_round(s, {2: [3]})
    refused(s, 2, MagicRedraw((s.deck[0],)), "CIT-48")
    assert not any(isinstance(m, MagicRedraw) for m in GAME.legal_moves(s, 2))


def test_CIT_48_redraw_small_deck_draws_own_cards_back():
    s = new(4, seed=1)
    s.hands[1].extend(s.deck)
    s.deck = []
    deal_round(s, {0: [3]})
    hand = list(s.hands[0])
    play(s, 0, MagicRedraw(tuple(hand[:2])))
    assert sorted(s.hands[0]) == sorted(hand) and s.deck == []


def test_CIT_53_warlord_end_step_and_any_time():
    s = new(4, seed=1)
    give(s, 1, "watchtower", to="city")
    deal_round(s, {0: [8]})
    wt = s.cities[1][0]
    refused(s, 0, WarlordDestroy(1, wt), "CIT-53")
    refused(s, 0, WarlordSkip(), "CIT-53")
    play(s, 0, TakeGold(), EndTurn())
    assert s.step == "end"
    assert set(GAME.legal_moves(s, 0)) == {WarlordDestroy(1, wt), WarlordSkip()}
    refused(s, 0, Build(s.hands[0][0]), "CIT-53")
    play(s, 0, WarlordDestroy(1, wt))
    assert s.cities[1] == [] and s.deck[-1] == wt and s.round == 2
    s = new(4, seed=1, warlord_timing="any_time")
    give(s, 1, "watchtower", to="city")
    deal_round(s, {0: [8]})
    wt = s.cities[1][0]
    play(s, 0, WarlordDestroy(1, wt))
    refused(s, 0, WarlordDestroy(0, wt), "CIT-42")
    play(s, 0, TakeGold(), EndTurn())
    assert s.round == 2


def test_CIT_54_WE_2_great_wall_prices():
    s = new(4, seed=1)
    ids = {d: give(s, 2, d, to="city") for d in ("great_wall", "manor", "watchtower", "keep", "castle", "temple")}
    price = {d: legality.destroy_price(s, 2, c) for d, c in ids.items()}
    assert price == {"great_wall": 5, "manor": 3, "watchtower": 1, "keep": 3, "castle": 4, "temple": 1}
    assert legality.immunity(s, 2, ids["keep"]) == "CIT-59"
    s.gold[0] = 2
    deal_round(s, {0: [8]})
    play(s, 0, TakeGold())
    s.gold[0] = 2
    play(s, 0, EndTurn())
    targets = {(m.player, m.card) for m in GAME.legal_moves(s, 0) if isinstance(m, WarlordDestroy)}
    assert targets == {(2, ids["watchtower"]), (2, ids["temple"])}
    refused(s, 0, WarlordDestroy(2, ids["keep"]), "CIT-59")
    refused(s, 0, WarlordDestroy(2, ids["castle"]), "CIT-54")
    give(s, 2, "tavern", to="city")
    give(s, 2, "market", to="city")
    assert len(s.cities[2]) == 8
    assert GAME.legal_moves(s, 0) == [WarlordSkip()]
    refused(s, 0, WarlordDestroy(2, ids["temple"]), "CIT-55")


def test_CIT_81_destroy_at_size_minus_one_and_CIT_82_skip_only():
    s = new(4, seed=1)
    for d in ("tavern", "market", "docks", "harbor", "manor", "castle", "temple"):
        give(s, 1, d, to="city")
    s.gold[0] = 0
    deal_round(s, {0: [8]})
    s.action_taken = True
    s.gold[0] = 0
    play(s, 0, EndTurn())
    tav = s.cities[1][0]
    tem = s.cities[1][-1]
    assert set(GAME.legal_moves(s, 0)) == {WarlordDestroy(1, tav), WarlordDestroy(1, tem), WarlordSkip()}
    play(s, 0, WarlordDestroy(1, tav))
    assert len(s.cities[1]) == 6


def test_CIT_56_destroyed_to_discard_flag():
    s = new(4, seed=1, destroyed_district_to="discard")
    wt = give(s, 1, "watchtower", to="city")
    deal_round(s, {0: [8]})
    play(s, 0, TakeGold(), EndTurn(), WarlordDestroy(1, wt))
    assert s.discard_pile == [wt] and wt not in s.deck
    assert GAME.view(s, None)["discard_pile"] == [{"card": wt, "district": "watchtower"}]


def test_CIT_30_murdered_player_keeps_everything_2p_other_character_plays():
    s = new(2, seed=1)
    deal_round(s, {0: [1, 4], 1: [6, 8]})
    g1, h1 = s.gold[1], list(s.hands[1])
    play(s, 0, Assassinate(6), TakeGold(), EndTurn())
    assert s.active == 0 and s.active_rank == 4
    end_turn(s)
    assert s.active == 1 and s.active_rank == 8  # seat 1's Warlord still plays
    assert s.gold[1] == g1 and s.hands[1] == h1
