"""Audit against seed 003: rules the other files cover only indirectly (CIT-14, 26, 55, 59, 63, 70, 74, 77, 84, 86)."""
import random

import pytest

from engines.citadels import GAME
from engines.citadels.moves import (
    Assassinate,
    Build,
    EndTurn,
    GraveyardRecover,
    MagicSwap,
    Rob,
    TakeGold,
    WarlordDestroy,
    WarlordSkip,
)
from engines.core import IllegalMove

from .citadels_helpers import clear_hand, deal_round, give, new, play


def end_turn(s):
    seat = s.active
    if not s.action_taken:
        GAME.apply(s, seat, TakeGold())
    GAME.apply(s, seat, EndTurn())
    if s.phase == "turns" and s.step == "end":
        GAME.apply(s, seat, WarlordSkip())


def until_rank(s, rank):
    while s.active_rank != rank:
        end_turn(s)


SEVEN = ["tavern", "market", "docks", "harbor", "town_hall", "manor", "castle"]


def test_CIT_55_CIT_59_keep_and_complete_city_are_immune():
    # seed: 「要塞：无法被军阀攻打」; 「已开辟出八个地区以上的城市无法被军阀攻打」
    s = new(4, seed=3)
    deal_round(s, {0: [8], 1: [6], 2: [7], 3: [4]}, face_up=(1, 2))
    keep = give(s, 1, "keep", to="city")
    manor = give(s, 1, "manor", to="city")
    for d in SEVEN + ["palace"]:
        give(s, 2, d, to="city")
    until_rank(s, 8)
    s.gold[0] = 20
    play(s, 0, TakeGold(), EndTurn())
    targets = {(m.player, m.card) for m in GAME.legal_moves(s, 0) if isinstance(m, WarlordDestroy)}
    assert (1, manor) in targets and (1, keep) not in targets
    assert not any(owner == 2 for owner, _ in targets)
    for move, rule in ((WarlordDestroy(1, keep), "CIT-59"), (WarlordDestroy(2, s.cities[2][0]), "CIT-55")):
        with pytest.raises(IllegalMove) as e:
            GAME.apply(s, 0, move)
        assert e.value.rule == rule


def test_CIT_84_face_down_king_crown_stays():
    # seed: 「意思是如果没有玩家选择国王，皇冠将不会转移」
    s = new(4, seed=3, initial_crown="2")
    deal_round(s, {0: [8], 1: [5], 2: [6], 3: [7]}, face_up=(1, 2))
    while s.phase == "turns":
        end_turn(s)
    assert s.round == 2 and s.crown == 2


def test_CIT_70_CIT_74_first_completer_is_earliest_turn():
    # seed: 「如果你第一个达成游戏结束的条件，奖励四分」「如果你有达成游戏结束的条件，奖励两分」
    s = new(4, seed=4)
    deal_round(s, {0: [8], 1: [5], 2: [6], 3: [7]}, face_up=(1, 2))
    last = {}
    for p in (1, 2):
        for d in SEVEN:
            give(s, p, d, to="city")
        s.gold[p] = 10
        last[p] = give(s, p, "watchtower")
    play(s, 1, TakeGold(), Build(last[1]), EndTurn())
    assert s.final_round and s.first_completer == 1
    play(s, 2, TakeGold(), Build(last[2]), EndTurn())
    while s.phase == "turns":
        end_turn(s)
    parts = s.result["scores"]
    assert [p["completion_bonus"] for p in parts] == [0, 4, 2, 0]
    assert parts[1]["district_points"] == parts[2]["district_points"] == 23
    assert s.result["winners"] == [1]


def test_CIT_63_graveyard_under_any_time_returns_to_main_step():
    s = new(3, seed=2, warlord_timing="any_time")
    deal_round(s, {0: [8, 1], 1: [7, 2], 2: [3, 4]})
    give(s, 1, "graveyard", to="city")
    castle = give(s, 2, "castle", to="city")
    until_rank(s, 8)
    s.gold[0] = 5
    GAME.apply(s, 0, WarlordDestroy(2, castle))
    assert GAME.to_move(s) == 1 and s.step == "graveyard"
    GAME.apply(s, 1, GraveyardRecover())
    assert s.step == "main" and GAME.to_move(s) == 0 and castle in s.known_hand[1]
    with pytest.raises(IllegalMove) as e:
        GAME.apply(s, 0, WarlordDestroy(2, castle))
    assert e.value.rule == "CIT-42"


def test_CIT_26_build_limit_belongs_to_each_characters_own_turn():
    s = new(2, seed=3)
    deal_round(s, {0: [4, 7], 1: [6, 8]})
    clear_hand(s, 0)
    cards = [give(s, 0, d) for d in ("tavern", "market", "docks", "harbor")]
    s.gold[0] = 30
    assert s.active_rank == 4
    play(s, 0, TakeGold(), Build(cards[0]))
    with pytest.raises(IllegalMove) as e:
        GAME.apply(s, 0, Build(cards[1]))
    assert e.value.rule == "CIT-38"
    GAME.apply(s, 0, EndTurn())
    until_rank(s, 7)
    play(s, 0, TakeGold(), Build(cards[1]), Build(cards[2]), Build(cards[3]))
    assert len(s.cities[0]) == 4


def test_CIT_77_void_names_accepted_without_effect():
    s = new(4, seed=1, allow_void_targets=True)
    deal_round(s, {0: [1], 1: [2], 2: [3], 3: [4]}, face_up=(5, 7))
    play(s, 0, Assassinate(6), TakeGold(), EndTurn())  # nobody holds the Merchant
    play(s, 1, Rob(5), TakeGold(), EndTurn())  # a face-up discard: void
    gold = s.gold[:]
    while s.phase == "turns":
        end_turn(s)
    assert s.last_murdered_seat == -1
    assert s.gold[1] == gold[1]  # no robbery happened


def test_CIT_86_empty_hand_may_be_swapped():
    # seed: 「魔法师可以空手去交换指定玩家的手牌」
    s = new(4, seed=2)
    deal_round(s, {0: [3], 1: [4], 2: [5], 3: [6]}, face_up=(1, 2))
    clear_hand(s, 0)
    theirs = list(s.hands[2])
    play(s, 0, MagicSwap(2))
    assert s.hands[0] == theirs and s.hands[2] == []


def _swap_hidden(t, viewer, rng):
    """Exchange two cards the viewer cannot place: other seats' unknown hand cards, unknown deck cards."""
    me = -1 if viewer is None else viewer
    spots = [(t.hands[p], i) for p in range(t.seats) if p != me for i, c in enumerate(t.hands[p])
             if c not in t.known_hand[p] and c not in t.drawn]
    spots += [(t.deck, i) for i, c in enumerate(t.deck) if t.deck_known.get(c, -2) not in (-1, me)]
    if len(spots) >= 2:
        (a, i), (b, j) = rng.sample(spots, 2)
        a[i], b[j] = b[j], a[i]


@pytest.mark.parametrize("n", (2, 3, 4, 7))
def test_CIT_14_no_viewer_sees_other_hands_or_deck_order(n):
    rng = random.Random(n)
    s = GAME.new_state(n, {}, 50 + n)
    for _ in range(250):
        if GAME.is_over(s):
            break
        for viewer in [None, *range(n)]:
            t = GAME.clone(s)
            _swap_hidden(t, viewer, rng)
            assert GAME.view(t, viewer) == GAME.view(s, viewer)
        assert GAME.view(s, None)["hand"] == [] and GAME.view(s, None)["my_characters"] == []
        seat = GAME.to_move(s)
        GAME.apply(s, seat, rng.choice(GAME.legal_moves(s, seat)))
