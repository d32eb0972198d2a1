"""Purple districts, end of game, scoring, bank: CIT-5, CIT-57..CIT-76, WE-5, WE-9..WE-13."""
import pickle

import pytest

from engines.citadels import GAME, scoring
from engines.citadels.moves import (
    Build,
    CollectIncome,
    DrawCards,
    EndTurn,
    GraveyardDecline,
    GraveyardRecover,
    Laboratory,
    MagicSwap,
    Smithy,
    TakeGold,
    WarlordDestroy,
    WarlordSkip,
)
from engines.core import IllegalMove, InvalidOptions

from .citadels_helpers import clear_hand, deal_round, give, new, play


def refused(s, seat, move, rule):
    before = pickle.dumps(s)
    with pytest.raises(IllegalMove) as e:
        GAME.apply(s, seat, move)
    assert e.value.rule == rule, e.value
    assert pickle.dumps(s) == before


def city(s, seat, names, built_round=0):
    return [give(s, seat, d, to="city", built_round=built_round) for d in names]


def test_CIT_60_laboratory():
    s = new(4, seed=1)
    deal_round(s, {0: [4]})
    refused(s, 0, Laboratory(s.hands[0][0]), "CIT-60")
    city(s, 0, ["laboratory"])
    c = s.hands[0][0]
    g = s.gold[0]
    ev = play(s, 0, Laboratory(c))
    assert s.gold[0] == g + 1 and s.deck[-1] == c and c not in s.hands[0]
    assert [e.to for e in ev if e.kind == "cards_returned"] == [0]
    assert all("cards" not in e.data for e in ev if e.to is None)
    refused(s, 0, Laboratory(s.hands[0][0]), "CIT-42")
    s = new(4, seed=1)
    clear_hand(s, 0)
    city(s, 0, ["laboratory"])
    deal_round(s, {0: [4]})
    assert not any(isinstance(m, Laboratory) for m in GAME.legal_moves(s, 0))


def test_CIT_61_smithy():
    s = new(4, seed=1)
    city(s, 0, ["smithy"])
    s.gold[0] = 1
    deal_round(s, {0: [4]})
    refused(s, 0, Smithy(), "CIT-61")
    s.gold[0] = 3
    top = s.deck[:3]
    play(s, 0, Smithy())
    assert s.gold[0] == 1 and s.hands[0][-3:] == top
    refused(s, 0, Smithy(), "CIT-42")
    s = new(4, seed=1)
    city(s, 0, ["smithy"])
    s.hands[1].extend(s.deck)
    s.deck = []
    deal_round(s, {0: [4]})
    refused(s, 0, Smithy(), "CIT-44")


def test_CIT_62_65_WE_13_observatory_and_library():
    for names, d, k in ((["observatory"], 3, 1), (["library"], 2, 2), (["observatory", "library"], 3, 2)):
        s = new(4, seed=1)
        city(s, 0, names)
        deal_round(s, {0: [4]})
        size, hand = len(s.deck), len(s.hands[0])
        play(s, 0, DrawCards())
        if d > k:
            assert len(s.drawn) == d and all(len(m.kept) == k for m in GAME.legal_moves(s, 0))
            play(s, 0, GAME.legal_moves(s, 0)[0])
        assert len(s.hands[0]) == hand + k and len(s.deck) == size - k
    s = new(4, seed=1)
    city(s, 0, ["observatory", "library"])
    deal_round(s, {0: [7]})
    hand = len(s.hands[0])
    play(s, 0, DrawCards())
    play(s, 0, GAME.legal_moves(s, 0)[0])
    assert len(s.hands[0]) == hand + 4


def test_CIT_63_WE_12_graveyard():
    def scene(recover):
        s = new(4, seed=1)
        castle = give(s, 2, "castle", to="city")
        city(s, 1, ["graveyard"])
        s.gold[1] = 1
        deal_round(s, {0: [8]})
        s.gold[0] = 3
        s.action_taken = True
        play(s, 0, EndTurn())
        ev = play(s, 0, WarlordDestroy(2, castle))
        assert s.gold[0] == 0 and GAME.to_move(s) == 1 and GAME.seats_to_act(s) == [1]
        assert set(GAME.legal_moves(s, 1)) == {GraveyardRecover(), GraveyardDecline()}
        assert GAME.legal_moves(s, 0) == []
        refused(s, 0, WarlordSkip(), "CIT-63")
        refused(s, 1, TakeGold(), "CIT-63")
        assert sum(len(x) for x in s.hands) + sum(len(x) for x in s.cities) + len(s.deck) + 1 == 66
        ev = play(s, 1, GraveyardRecover() if recover else GraveyardDecline())
        return s, castle, ev
    s, castle, ev = scene(True)
    assert castle in s.hands[1] and s.gold[1] == 0
    for seat in (None, 0, 2, 3):
        assert GAME.view(s, seat)["players"][1]["known_hand"] == [{"card": castle, "district": "castle"}]
    assert s.round == 2  # the Warlord's turn ended after the answer
    s, castle, ev = scene(False)
    assert s.deck[-1] == castle and GAME.view(s, None)["known_deck"][-1]["card"] == castle
    # no offer to the Warlord himself, to a player without gold, or for the Graveyard itself
    s = new(4, seed=1)
    own = give(s, 0, "castle", to="city")
    city(s, 0, ["graveyard"])
    deal_round(s, {0: [8]})
    s.gold[0] = 5
    s.action_taken = True
    play(s, 0, EndTurn(), WarlordDestroy(0, own))
    assert s.round == 2 and s.deck[-1] == own
    s = new(4, seed=1)
    gy = city(s, 1, ["graveyard"])[0]
    s.gold[1] = 3
    deal_round(s, {0: [8]})
    s.gold[0] = 5
    s.action_taken = True
    play(s, 0, EndTurn(), WarlordDestroy(1, gy))
    assert s.round == 2


def test_CIT_80_known_card_follows_swap_and_stops_at_laboratory():
    s = new(4, seed=1)
    c = give(s, 1, "castle")
    s.known_hand[1].append(c)
    deal_round(s, {0: [3]})
    play(s, 0, MagicSwap(1))
    assert s.known_hand[0] == [c] and GAME.view(s, 2)["players"][0]["known_hand"][0]["card"] == c
    city(s, 0, ["laboratory"])
    play(s, 0, Laboratory(s.hands[0][0]))
    assert s.known_hand[0] == []


def test_CIT_64_WE_10_school_of_magic():
    for rank, gain in ((4, 3), (8, 2)):
        s = new(4, seed=1)
        city(s, 1, ["manor", "palace", "prison", "school_of_magic"])
        deal_round(s, {1: [rank]})
        g = s.gold[1]
        play(s, 1, CollectIncome())
        assert s.gold[1] == g + gain
    s = new(4, seed=1)
    city(s, 1, ["manor", "palace", "prison", "school_of_magic"])
    deal_round(s, {1: [7]})
    assert CollectIncome() not in GAME.legal_moves(s, 1)
    assert scoring.five_colour_bonus(s, 1) == 0


def test_CIT_58_73_WE_9_haunted_city():
    s = new(6, seed=1)
    s.round = 5
    city(s, 3, ["tavern", "manor", "temple", "library"], built_round=2)
    hc = city(s, 3, ["haunted_city"], built_round=3)[0]
    s.final_round, s.complete_round = True, 5
    assert scoring.five_colour_bonus(s, 3) == 3
    s.built_in[hc] = 5  # built in the final round: stays purple
    assert scoring.five_colour_bonus(s, 3) == 0
    city(s, 5, ["tavern", "manor", "temple"], built_round=1)
    s.cities[5].append(hc)
    s.cities[3].remove(hc)
    s.built_in[hc] = 1
    assert scoring.five_colour_bonus(s, 5) == 0  # fills one gap only


def test_CIT_73_five_colours_plain():
    s = new(4, seed=1)
    city(s, 0, ["tavern", "manor", "temple", "prison"])
    assert scoring.five_colour_bonus(s, 0) == 0
    city(s, 0, ["keep"])
    assert scoring.five_colour_bonus(s, 0) == 3


def _finish(s, first):
    s.final_round, s.complete_round, s.first_completer = True, s.round, first
    return scoring.score(s)


def test_CIT_76_WE_5_tiebreak():
    s = new(2, seed=1)
    city(s, 0, ["tavern", "manor", "watchtower", "temple", "keep", "town_hall", "castle", "palace"])
    city(s, 1, ["harbor", "town_hall", "palace", "castle", "docks", "manor", "market", "prison"])
    s.gold = [3, 1]
    res = _finish(s, 0)
    a, b = res["scores"]
    assert (a["district_points"], a["five_colour_bonus"], a["completion_bonus"], a["total"]) == (23, 3, 4, 30)
    assert (b["district_points"], b["five_colour_bonus"], b["completion_bonus"], b["total"]) == (28, 0, 2, 30)
    assert res["winners"] == [1]
    s.result = res
    assert GAME.outcome(s).winners == (1,) and GAME.outcome(s).ranks == (2, 1)
    # variant: equal points, gold decides, then shared
    s = new(2, seed=1)
    city(s, 0, ["university", "palace", "cathedral", "fortress", "harbor"])
    city(s, 1, ["dragon_gate", "palace", "cathedral", "fortress", "harbor"])
    s.gold = [4, 2]
    res = _finish(s, -1)
    assert [p["total"] for p in res["scores"]] == [30, 30] and res["winners"] == [0]
    s.gold = [2, 2]
    assert _finish(s, -1)["winners"] == [0, 1]
    s.gold = [4, 2]
    s.options = dict(s.options, tiebreak="none")
    assert _finish(s, -1)["winners"] == [0, 1]
    s.options = dict(s.options, tiebreak="gold")
    s.gold = [1, 2]
    assert _finish(s, -1)["winners"] == [1]


def test_CIT_69_74_WE_11_completing_in_final_round():
    s = new(4, seed=1)
    city(s, 1, ["tavern", "manor", "temple", "prison", "keep", "castle"])
    city(s, 3, ["market", "palace", "church", "battlefield", "harbor", "docks", "monastery"])
    clear_hand(s, 1)
    clear_hand(s, 3)
    a, b = give(s, 1, "watchtower"), give(s, 1, "trading_post")
    c = give(s, 3, "cathedral")
    s.gold[1] = s.gold[3] = 10
    deal_round(s, {1: [7], 3: [8]})
    play(s, 1, TakeGold(), Build(a), Build(b))
    assert s.first_completer == 1 and s.final_round
    play(s, 1, EndTurn())
    assert s.active == 3
    assert all(m.player != 1 for m in GAME.legal_moves(s, 3) if isinstance(m, WarlordDestroy))
    play(s, 3, TakeGold(), Build(c), EndTurn())
    ev = play(s, 3, WarlordSkip())
    assert GAME.is_over(s) and GAME.legal_moves(s, 3) == [] and GAME.seats_to_act(s) == []
    refused(s, 3, TakeGold(), "CIT-69")
    parts = GAME.outcome(s).detail["scores"]
    assert parts[1]["completion_bonus"] == 4 and parts[3]["completion_bonus"] == 2
    assert parts[0]["completion_bonus"] == 0
    assert any(e.kind == "game_over" for e in ev)
    assert GAME.view(s, None)["scores"] == parts


def test_CIT_85_two_player_first_completer_keeps_second_turn():
    s = new(2, seed=1, city_complete_size=7)
    city(s, 0, ["tavern", "manor", "temple", "prison", "keep", "castle"])
    clear_hand(s, 0)
    a = give(s, 0, "watchtower")
    s.gold[0] = 5
    deal_round(s, {0: [4, 6], 1: [8, 2]})
    play(s, 1, TakeGold(), EndTurn())  # thief
    play(s, 0, Build(a), TakeGold(), EndTurn())
    assert s.first_completer == 0 and s.active == 0 and s.active_rank == 6


def test_CIT_39_build_beyond_size_and_CIT_8_short_game():
    s = new(4, seed=1, city_complete_size=1)
    clear_hand(s, 0)
    t = give(s, 0, "tavern")
    deal_round(s, {0: [4]})
    ev = play(s, 0, Build(t))
    assert s.final_round and [e.data["first"] for e in ev if e.kind == "city_completed"] == [True]


def test_CIT_5_finite_bank():
    s = new(4, seed=1, gold_supply=9)
    assert s.bank == 1
    deal_round(s, {0: [6]})
    play(s, 0, TakeGold())
    assert s.gold[0] == 3 and s.bank == 0  # pays what it holds; Merchant bonus gets nothing
    clear_hand(s, 0)
    t = give(s, 0, "tavern")
    play(s, 0, Build(t))
    assert s.bank == 1 and sum(s.gold) + s.bank == 9
    v = GAME.view(s, None)
    assert v["bank"] == 1 and not v["bank_unlimited"]
    assert GAME.view(new(4), None)["bank_unlimited"]


def test_CIT_69_gap_uncompletable_game_ends():
    """Engine reading: when fewer district names remain in play than city_complete_size,
    no city can complete; the round in progress becomes the last one."""
    with pytest.raises(InvalidOptions) as e:  # only 28 district names exist: such a game could never end
        new(4, seed=1, city_complete_size=29)
    assert e.value.rule == "CIT-8"
    new(4, seed=1, city_complete_size=28)
    s = new(4, seed=1, destroyed_district_to="discard")
    s.discard_pile = s.deck[:]
    s.deck = []
    for h in s.hands:
        s.discard_pile.extend(h[1:])
        del h[1:]
    deal_round(s, {0: [4]})
    assert not scoring.completable(s)
    ev = play(s, 0, TakeGold(), EndTurn())
    assert GAME.is_over(s) and [e.kind for e in ev][-2:] == ["game_stalled", "game_over"]
    assert all(p["completion_bonus"] == 0 for p in GAME.outcome(s).detail["scores"])
