"""Audit of the Pompeii engine against the original rule texts (seed 000 and seed 001).

Each test names the rule id of RULES.md and quotes the seed sentence it checks. They cover what the
other test files check only indirectly or not at all.
"""
import random
from collections import deque

import pytest

from engines.pompeii import (
    GAME,
    DeclareEruption,
    MovePerson,
    OmenTarget,
    Pass,
    PlaceLava,
    PlaceRelative,
    PlayCard,
    StopRelatives,
    legality,
)
from engines.pompeii import board as B
from engines.pompeii.state import (
    FIRST_MOVE,
    OMEN,
    OPENING,
    OVER,
    PLACE_LAVA,
    PLAY_CARD,
    RELATIVES,
    SECOND_MOVE,
    SETTLE,
    layout,
)

from .support import count, cover, escape_position, put, refused, settle_position, squares, start_moves

RED, BLACK, YELLOW, BLUE = 0, 1, 2, 3


def building_ids(state, cells):
    lay = layout(state)
    return {lay.buildings[lay.building_at[B.index(sq)]].id for sq in cells}


# ---------------------------------------------------------------- board and cards (POM-4..7)


def test_POM_6_two_buildings_only_for_3_4_6_8_11():
    # Seed 000: 「3、4、6、8、11号庞贝牌对应的建筑有2个」.
    lay = layout(settle_position())
    twins = sorted(n for n, bs in lay.by_number.items() if len(bs) == 2)
    assert twins == [3, 4, 6, 8, 11]
    assert all(len(lay.by_number[n]) == 1 for n in (1, 2, 5, 7, 9, 10))


def test_POM_6_slots_per_number_equal_cards_per_number():
    # Seed 001: 「卡牌下方的符號代表該號碼牌的數量與對應建築物的圓形空格數」 (the symbol gives both the number
    # of cards of that number and the slots of its buildings).
    lay = layout(settle_position())
    for n, k in B.CARD_COUNTS.items():
        assert sum(slots for _c, slots in lay.number_rooms[n]) == k, n
    assert sum(B.CARD_COUNTS.values()) == 53


def test_POM_6_colour_groups_of_the_seeds():
    # Seed 000: 「同颜色建筑即可以是号码不同但是颜色相同的建筑（比如2357都是紫色）」;
    # seed 001's example puts a relative of building 6 「在同顏色的9號建築內」.
    lay = layout(settle_position())
    colour = {bd.number: bd.colour for bd in lay.buildings if bd.number}
    assert colour[2] == colour[3] == colour[5] == colour[7]
    assert colour[6] == colour[9]
    assert len({colour[1], colour[2], colour[6], colour[10]}) == 4


def test_POM_5_seven_gates_and_POM_4_six_vents():
    # Seed 001: 「玩家想順利逃脫，就必須從龐貝城的7個城門逃出來」;
    # 「火山板塊上有6種不同的符號，代表從6個不同地點冒出得岩漿」.
    assert len(set(B.GATES)) == 7
    assert sorted(B.VENT) == sorted(B.SYMBOLS) and len(set(B.VENT.values())) == 6
    assert not set(B.GATES) & set(B.VENT.values())


# ---------------------------------------------------------------- phase 1 (POM-20..37)


def test_POM_22_split_building_only_its_free_square():
    # Seed 000: 「将一个人物标志物放到这个建筑中的空的白色圈中（如果此建筑上的空白圈都已经被占满则不可放置）」.
    s = settle_position(2, hands=[[1, 2, 2, 2], [1] * 4], first_ad79=False)
    put(s, (1, 0), BLACK, 2)  # B1's west square is full, its east square [1,1] has 2 slots
    assert [m for m in GAME.legal_moves(s, RED) if m.number == 1] == [PlayCard(1, (1, 1))]
    refused(s, RED, PlayCard(1, (1, 0)), "POM-22")


def test_POM_24_omen_as_first_ad79_replacement_takes_effect():
    # Seed 000: 「当玩家拿到第一张AD79牌的时候，他需立即打出这张牌，然後再补回一张牌。
    # 从这时候开始，以下附加规则被加入」.
    s = settle_position(2, hands=[[1, 2, 2, 2], [1] * 4], deck_top=[B.AD79, B.OMEN, 3], first_ad79=False)
    s.deck.insert(0, B.AD79)
    put(s, (5, 4), BLACK)
    GAME.apply(s, RED, PlayCard(1, (1, 0)))
    assert s.first_ad79 and s.step == OMEN and s.turn == RED
    assert GAME.legal_moves(s, RED) == [OmenTarget((5, 4), BLACK)]
    GAME.apply(s, RED, OmenTarget((5, 4), BLACK))
    assert s.volcano == [0, 1] and sorted(s.hands[RED]) == [2, 2, 2, 3] and s.turn == BLACK


def test_POM_31_omen_only_opponents_and_then_hand_of_four():
    # Seed 000: 「从图版上已放置的其他玩家的人物标志物中挑选一个拿出来扔到火山模型中 …
    # 然後玩家再补一张手牌（即手上还是4张）」.
    s = settle_position(2, hands=[[1, 2, 2, 2], [1] * 4], deck_top=[B.OMEN, 9])
    put(s, (5, 4), RED, 2)
    put(s, (2, 8), BLACK)
    GAME.apply(s, RED, PlayCard(2, (0, 4)))
    assert s.step == OMEN and set(GAME.legal_moves(s, RED)) == {OmenTarget((2, 8), BLACK)}
    refused(s, RED, OmenTarget((5, 4), RED), "POM-31")
    GAME.apply(s, RED, OmenTarget((2, 8), BLACK))
    assert len(s.hands[RED]) == 4 and s.turn == BLACK and s.volcano == [0, 1]


def test_POM_32_own_people_count_for_relatives():
    # Seed 000: 「如果此建筑里已有1个其他人物标志物（不管是谁的）」 (whoever it belongs to).
    s = settle_position(2, hands=[[5, 1, 1, 1], [1] * 4])
    put(s, (2, 8), RED, 2)
    events = GAME.apply(s, RED, PlayCard(5, (2, 8)))
    assert [e.data["count"] for e in events if e.kind == "relatives_earned"] == [2]


def test_POM_32_relatives_never_chain():
    # Seed 000 item 五: 「亲属效应在玩家的一轮行动中只能触发一次，即当玩家把由亲属效应触发得到的人物标志物放到其他建筑中
    # 去的时候，这些标志物不再触发此亲属效应」.
    s = settle_position(2, hands=[[5, 1, 1, 1], [1] * 4])
    put(s, (2, 8), BLACK)  # B5: R = 1
    put(s, (4, 5), BLACK, 2)  # B7 holds 2 already
    GAME.apply(s, RED, PlayCard(5, (2, 8)))
    assert s.relatives_left == 1
    events = GAME.apply(s, RED, PlaceRelative((4, 5)))
    assert not [e for e in events if e.kind == "relatives_earned"]
    assert s.relatives_left == 0 and s.step == PLAY_CARD and s.turn == BLACK


def test_POM_33_purple_relatives_go_to_2_3_5_7_or_neutral():
    # Seed 000: 「额外拿1个人物标志物放到另外一个同颜色建筑或者中立建筑的圆圈上」 and 「比如2357都是紫色」.
    s = settle_position(2, hands=[[2, 1, 1, 1], [1] * 4])
    put(s, (1, 4), BLACK)
    GAME.apply(s, RED, PlayCard(2, (0, 4)))
    legal = squares(GAME.legal_moves(s, RED), PlaceRelative)
    numbered = {b for b in building_ids(s, legal) if not b.startswith("N")}
    assert numbered == {"B3a", "B3b", "B5", "B7"}
    assert len(building_ids(s, legal) - numbered) == 13  # every neutral building
    refused(s, RED, PlaceRelative((1, 0)), "POM-33")  # B1: another colour
    refused(s, RED, PlaceRelative((1, 4)), "POM-33")  # B2 itself


def test_POM_33_twin_of_3_takes_a_relative():
    # Seed 000 item 一: 「也可以是同号码中的另外一个建筑（比如3号、6号）」.
    s = settle_position(2, hands=[[3, 1, 1, 1], [1] * 4])
    put(s, (2, 2), BLACK)
    GAME.apply(s, RED, PlayCard(3, (2, 2)))
    assert (2, 3) in squares(GAME.legal_moves(s, RED), PlaceRelative)
    GAME.apply(s, RED, PlaceRelative((2, 3)))
    assert count(s, (2, 3), RED) == 1


def test_POM_37_wild_placement_into_occupied_building_gives_no_relatives():
    # Seed 000: 「记住，这种情况下不触发亲属效应」; seed 001: 「使用萬用卡不會有觸發親屬的放置」.
    s = settle_position(2, hands=[[7, 1, 1, 1], [1] * 4])
    put(s, (4, 5), BLACK, 3)  # B7 full: a 7 is wild
    put(s, (2, 8), BLACK, 3)  # B5 holds 3: a normal 5 here would earn 3 relatives
    events = GAME.apply(s, RED, PlayCard(7, (2, 8)))
    assert [e.data["wild"] for e in events if e.kind == "card_played"] == [True]
    assert not [e for e in events if e.kind == "relatives_earned"]
    assert s.step == PLAY_CARD and s.turn == BLACK and count(s, (2, 8), RED) == 1


def test_POM_37_wild_move_into_occupied_building_gives_no_relatives():
    # Seed 000: 「让此玩家有机会将图版上已放置的他的任何一个人物标志物移动到任何其他建筑的空位中。
    # 记住，这种情况下不触发亲属效应」.
    s = settle_position(2, hands=[[7, 1, 1, 1], [1] * 4], wild_card_moves_existing=True)
    put(s, (4, 5), BLACK, 3)
    put(s, (2, 8), BLACK, 3)
    put(s, (1, 0), RED)
    supply = s.supply[RED]
    events = GAME.apply(s, RED, PlayCard(7, (2, 8), (1, 0)))
    assert not [e for e in events if e.kind == "relatives_earned"]
    assert count(s, (2, 8), RED) == 1 and count(s, (1, 0), RED) == 0 and s.supply[RED] == supply
    assert s.turn == BLACK


def test_POM_51_declaration_refused_with_one_playable_card():
    # Seed 000: 「当一个玩家的所有手牌都是机会卡的时候，他可以在任何时候（即使不是他的回合）喊“火山爆发”」 — all cards,
    # not some.
    s = settle_position(2, hands=[[1, 1, 1, 1], [9, 9, 9, 1]])
    put(s, (5, 4), RED, 4)  # B9 full, B1 empty
    assert not legality.can_declare(s, BLACK)
    refused(s, BLACK, DeclareEruption(), "POM-51")
    put(s, (1, 0), RED, 2)
    put(s, (1, 1), RED, 2)  # now B1 full too
    assert GAME.legal_moves(s, BLACK) == [DeclareEruption()]


def test_POM_52_second_ad79_discards_hands_and_boxes_supplies():
    # Seed 000: 「当AD79牌第二次被抽到时，游戏第一阶段结束。玩家扔掉所有手牌到弃牌堆，并收起玩家面前所有未用的人物标志物
    # （不要将他们扔进火山模型中）」; 「由抽到AD79牌玩家的左手那位玩家开始抽第一张岩浆牌并放置」.
    s = settle_position(3, hands=[[1] * 4, [2, 4, 4, 4], [6] * 4], turn=1, deck_top=[B.AD79])
    put(s, (3, 0), RED)
    GAME.apply(s, 1, PlayCard(2, (0, 4)))
    assert s.phase == OPENING and s.step == PLACE_LAVA and s.turn == 2
    assert s.hands == [[], [], []] and s.supply == [0, 0, 0]
    assert s.box == [30, 29, 30] and s.volcano == [0, 0, 0]
    for card in (1, 4, 6):
        assert card in s.discard


# ---------------------------------------------------------------- lava (POM-60..65)


@pytest.mark.parametrize("symbol", B.SYMBOLS)
def test_POM_62_first_tile_of_each_symbol_on_its_vent(symbol):
    # Seed 000: 「按照标志，将它放到相应的岩浆起始点方块上」.
    s = escape_position(2, tile=symbol)
    cover(s, (1, 2) if symbol != "coin" else (0, 7), "coin" if symbol != "coin" else "scroll")
    assert squares(GAME.legal_moves(s, RED)) == [B.square(B.VENT[symbol])]


def test_POM_62_tile_joins_only_its_own_symbol():
    # Seed 000: 「以後抽出的岩浆牌必须与已放置的同类岩浆牌相接（至少一边相连，对角线相接是不允许的）」.
    s = escape_position(2, tile="scroll")
    cover(s, (1, 2), "coin")
    cover(s, (0, 7), "scroll")
    legal = squares(GAME.legal_moves(s, RED))
    assert legal == [(0, 6), (1, 7)]
    refused(s, RED, PlaceLava((1, 1)), "POM-62")  # next to coin, not scroll
    refused(s, RED, PlaceLava((1, 8)), "POM-62")  # diagonal to the scroll tile


def opening_position(drawn, tile):
    s = escape_position(2, turn=RED, tile=tile)
    s.phase = OPENING
    s.opening_drawn = drawn
    s.eruption_seat = BLACK
    return s


def test_POM_64_opening_tile_kills_everyone_on_its_square():
    # Seed 000: 「如果一个玩家将岩浆牌放到了城市广场上（不管这广场上有一整个建筑还是半个建筑），
    # 那麽这个广场上的所有人物标志物都被扔进火山模型中」 (said of the opening tiles).
    s = opening_position(0, "column")
    cover(s, (1, 2), "coin")
    put(s, (4, 4), RED)
    put(s, (5, 4), BLACK, 2)
    cover(s, (3, 4), "column")
    GAME.apply(s, RED, PlaceLava((4, 4)))
    assert s.volcano == [1, 0] and count(s, (5, 4)) == 2
    assert s.phase == OPENING and s.turn == BLACK and s.step == PLACE_LAVA  # nobody moves yet


def test_POM_65_cut_off_applied_during_the_opening():
    # The seeds state the cut-off rule only for phase 2 (seed 000: 「另外，如果有区域还没被岩浆覆盖，但是被岩浆包围…
    # 则这个区域内的人物标志物也立即被扔进火山模型中」, under 第二阶段). The engine applies it after the
    # opening tiles too (RULES POM-65); the outcome is the same: nobody moves before the first
    # phase-2 tile, whose own cut-off check would kill them.
    s = opening_position(4, "vase")
    for square in ((2, 10), (3, 10), (4, 10)):
        cover(s, square, "vase")
    cover(s, (6, 9), "helmet")
    put(s, (6, 10), BLACK)
    put(s, (0, 0), RED)
    events = GAME.apply(s, RED, PlaceLava((5, 10)))
    assert [e.kind for e in events if e.kind == "cut_off"] == ["cut_off"]
    assert s.volcano[BLACK] == 1 and s.phase == OPENING


# ---------------------------------------------------------------- phase 2 (POM-70..76)


def test_POM_72_no_diagonal_steps():
    # Seed 000: 「在移动的时候，可以横向或竖向移动，可以改变方向，但是不能对角线移动」.
    s = escape_position(2, step=FIRST_MOVE)
    put(s, (3, 5), RED)
    put(s, (0, 0), RED)
    start_moves(s)
    targets = {m.target for m in GAME.legal_moves(s, RED) if type(m) is MovePerson and m.origin == (3, 5)}
    assert targets == {(2, 5), (4, 5), (3, 4), (3, 6)}
    refused(s, RED, MovePerson((3, 5), (2, 6)), "POM-72")


def test_POM_72_pass_through_and_stop_on_crowded_squares():
    # Seed 000: 「每个城市方块里可以放置任意多的人，建筑物中的小圈在逃命阶段不含意义」.
    s = escape_position(2, step=FIRST_MOVE)
    put(s, (3, 5), RED, 3)  # N = 3
    put(s, (3, 6), BLACK, 5)  # more than the 3 slots of B8a
    put(s, (4, 6), BLACK, 9)
    start_moves(s)
    GAME.apply(s, RED, MovePerson((3, 5), (5, 6)))  # through [3,6] and [4,6]
    assert count(s, (5, 6), RED) == 1
    GAME.apply(s, RED, MovePerson((3, 5), (3, 6)))  # N = 2, stops on the crowded square
    assert count(s, (3, 6)) == 6


def test_POM_72_lava_cannot_be_crossed():
    # Seed 001: 「玩家可以移動到任何方格，除非該方格被岩漿板塊覆蓋」; seed 000's cut-off rule treats lava as a wall
    # (「被岩浆包围以至於从这个区域没有任何路通到城市大门」).
    s = escape_position(2, step=FIRST_MOVE)
    put(s, (3, 5), RED, 3)
    put(s, (0, 0), BLACK)
    cover(s, (3, 6), "scroll")
    start_moves(s)
    targets = {m.target for m in GAME.legal_moves(s, RED) if type(m) is MovePerson}
    assert (3, 6) not in targets and (3, 7) not in targets  # [3,7] is 2 steps across lava, 4 around
    refused(s, RED, MovePerson((3, 5), (3, 7)), "POM-72")


def test_POM_73_covered_gate_square_blocks_its_gate():
    # Seed 000: 「图版上的人物标志物已不可能逃出城市（即所有的门或者路已被熔浆牌挡住）」:
    # a gate whose square is covered is closed, and 「穿越大门计一个行动力」.
    s = escape_position(2, step=FIRST_MOVE)
    cover(s, (0, 0), "coin")
    put(s, (0, 1), RED, 2)  # N = 2: one step to [0,0] and one through its gate, were it open
    put(s, (3, 0), BLACK)
    start_moves(s)
    assert MovePerson((0, 1), None) not in GAME.legal_moves(s, RED)
    refused(s, RED, MovePerson((0, 1), None), "POM-73")
    refused(s, RED, MovePerson((0, 1), (0, 0)), "POM-72")


def test_POM_71_allowance_is_fixed_at_the_start_of_the_move():
    # Seed 000: 「移动力数值等於要移动的标志物所在方块中的总人数」: people passed on the way add nothing.
    s = escape_position(2, step=FIRST_MOVE)
    put(s, (2, 7), RED)
    put(s, (0, 0), RED)
    put(s, (1, 7), BLACK, 3)  # one step away from [2,7]
    start_moves(s)
    targets = {m.target for m in GAME.legal_moves(s, RED) if type(m) is MovePerson and m.origin == (2, 7)}
    assert targets == {(1, 7), (2, 6), (2, 8), (3, 7)}  # N = 1 from [2,7]
    refused(s, RED, MovePerson((2, 7), (0, 7)), "POM-72")


def test_POM_74_two_people_must_differ_when_not_alone():
    # Seed 000: 「玩家在此阶段必须移动不同的2个标志物进行逃离，除非他在图版上只剩下了1个人物标志物」.
    s = escape_position(2, step=FIRST_MOVE)
    put(s, (3, 5), RED)
    put(s, (3, 5), BLACK)
    put(s, (5, 0), RED)
    start_moves(s)
    GAME.apply(s, RED, MovePerson((3, 5), (2, 5)))
    legal = [m for m in GAME.legal_moves(s, RED) if type(m) is MovePerson]
    assert legal and {m.origin for m in legal} == {(5, 0)}
    assert Pass() not in GAME.legal_moves(s, RED)
    GAME.apply(s, RED, MovePerson((5, 0), (4, 0)))
    assert s.turn == BLACK


# ---------------------------------------------------------------- end (POM-80..83)


def test_POM_80_last_tile_seat_finishes_its_turn_then_the_rest_die():
    # Seed 000: 「当一个玩家从布袋中摸出最後一块岩浆牌的时候，那麽这个玩家的本回合完成後游戏结束。
    # 这个玩家可以完成他的这回合行动。然後所有留在图版上的人物标志物都被扔到火山模型中」.
    s = escape_position(2, turn=RED, tile="scroll")
    s.bag = [0] * len(s.bag)  # the pending tile was the last one
    put(s, (0, 5), RED)  # alone on a gate square: N = 1, leaves
    put(s, (3, 0), RED, 2)
    put(s, (5, 1), BLACK, 3)
    GAME.apply(s, RED, PlaceLava((0, 7)))
    assert s.step == FIRST_MOVE and not GAME.is_over(s)
    GAME.apply(s, RED, MovePerson((0, 5), None))
    assert s.step == SECOND_MOVE and s.saved[RED] == 1
    events = GAME.apply(s, RED, MovePerson((3, 0), (4, 0)))
    assert GAME.is_over(s) and s.phase == OVER
    assert events[-1].data["final_casualties"] == [2, 3]
    assert s.saved == [1, 0] and s.volcano == [2, 3] and GAME.outcome(s).winners == (RED,)


def test_POM_83_most_saved_wins_before_volcano_count():
    # Seed 000: 「救出最多人物标志物的玩家获胜。如果有不止一人救出最多数量的人物标志物，
    # 则他们中被扔进火山模型中标志物数量最少的那位获胜」.
    s = escape_position(3, step=FIRST_MOVE)
    s.saved, s.volcano = [5, 6, 6], [0, 20, 19]
    put(s, (0, 5), RED)
    start_moves(s)
    GAME.apply(s, RED, MovePerson((0, 5), None))  # the last person out: the game ends (POM-81)
    out = GAME.outcome(s)
    assert GAME.is_over(s) and s.saved == [6, 6, 6] and out.winners == (RED,)
    s2 = escape_position(2, step=FIRST_MOVE)  # more saved beats a far larger volcano count
    s2.saved, s2.volcano = [4, 5], [0, 30]
    put(s2, (0, 5), BLACK)
    start_moves(s2, BLACK)
    GAME.apply(s2, BLACK, MovePerson((0, 5), None))
    assert GAME.is_over(s2) and GAME.outcome(s2).winners == (BLACK,)


# ---------------------------------------------------------------- every decision against an independent reading

_D = B._DATA
_VOID = {tuple(v) for v in _D["void_cells"]}
_CITY = [(r, c) for r in range(B.ROWS) for c in range(B.COLS) if (r, c) not in _VOID]
_VENT = {k: tuple(v) for k, v in _D["vents"].items()}
_GATES = {tuple(g["square"]) for g in _D["gates"]}
_BUILD = [(b["number"] or 0, b["colour"], {tuple(q["square"]): q["slots"] for q in b["squares"]})
          for b in _D["buildings"]]


def _nb(sq):
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        q = (sq[0] + dr, sq[1] + dc)
        if q in _CITY:
            yield q


def _seed_reading(s, seat):
    """The legal actions the seeds give (default flags), computed from board.json alone."""
    def crowd(sq):
        return s.on_cell(B.index(sq))

    def free(i):
        return [sq for sq, k in _BUILD[i][2].items() if crowd(sq) < k]

    def wild(n):
        return all(not free(i) for i, b in enumerate(_BUILD) if b[0] == n)

    out = set()
    if s.phase == SETTLE:
        hand = s.hands[seat]
        if hand and all(wild(n) for n in hand):
            out.add(DeclareEruption())
        if seat != s.turn:
            return out
        if s.step == PLAY_CARD:
            for n in set(hand):
                if wild(n):
                    out.add(PlayCard(n))
                    numbered = [i for i, b in enumerate(_BUILD) if b[0]] if s.supply[seat] else []
                else:
                    numbered = [i for i, b in enumerate(_BUILD) if b[0] == n] if s.supply[seat] else []
                    if not s.supply[seat]:
                        out.add(PlayCard(n))
                out |= {PlayCard(n, sq) for i in numbered for sq in free(i)}
        elif s.step == RELATIVES:
            ent = s.relatives_building
            for i, b in enumerate(_BUILD):
                if i != ent and i not in s.relatives_used and (b[1] == _BUILD[ent][1] or not b[0]):
                    out |= {PlaceRelative(sq) for sq in free(i)}
            out.add(StopRelatives())
        elif s.step == OMEN:
            out |= {OmenTarget(sq, v) for sq in _CITY for v in range(s.seats)
                    if v != seat and s.count(B.index(sq), v)}
        return out
    if seat != s.turn:
        return out
    cov = {B.square(c) for c, _sym in s.lava_order}
    if s.step == PLACE_LAVA:
        sym = s.pending_tile
        mine = [B.square(c) for c, y in s.lava_order if y == sym]
        if not mine:
            return {PlaceLava(_VENT[sym])}
        return {PlaceLava(q) for t in mine for q in _nb(t)
                if q not in cov and (q not in _VENT.values() or q == _VENT[sym])}
    for sq in _CITY:
        mine = s.count(B.index(sq), seat)
        if not mine or (s.moves_made and s.first_end == B.index(sq) and mine == 1
                        and not (s.first_lone or s.on_board(seat) == 1)):
            continue
        n = crowd(sq)
        dist = {sq: 0}
        queue = deque([sq])
        while queue:
            q = queue.popleft()
            for r in _nb(q):
                if r not in cov and r not in dist:
                    dist[r] = dist[q] + 1
                    queue.append(r)
        out |= {MovePerson(sq, q) for q, d in dist.items() if 0 < d <= n}
        if any(dist.get(g, n) <= n - 1 for g in _GATES):
            out.add(MovePerson(sq, None))
    return out or {Pass()}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_POM_22_33_62_72_legal_actions_match_the_seed_reading(players):
    rng = random.Random(players)
    for seed in range(3):
        s = GAME.new_state(players, {}, seed)
        while not GAME.is_over(s):
            for seat in range(players):
                engine = {PlaceLava(tuple(m.square)) if type(m) is PlaceLava else m for m in GAME.legal_moves(s, seat)}
                assert engine == _seed_reading(s, seat), (seed, s.phase, s.step, seat)
            acts = GAME.seats_to_act(s)
            seat = s.turn if len(acts) == 1 or rng.random() < 0.97 else rng.choice(acts)
            GAME.apply(s, seat, rng.choice(GAME.legal_moves(s, seat)))
        assert s.phase == OVER and s.board_total() == 0
