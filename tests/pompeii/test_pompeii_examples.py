"""One test per worked example of RULES.md section 11."""
from collections import Counter

import pytest

from engines.core import Event
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
    geometry,
    legality,
)
from engines.pompeii import board as B
from engines.pompeii.state import ESCAPE, FIRST_MOVE, OMEN, OPENING, OVER, PLAY_CARD, RELATIVES, SECOND_MOVE, layout

from .support import cell, count, cover, escape_position, new, put, refused, settle_position, squares, start_moves

RED, BLACK, YELLOW, BLUE = 0, 1, 2, 3


def draw_order(players, seed):
    s = new(players, seed)
    return s.deck[::-1], s


@pytest.mark.parametrize("players,second_lo,unused", [(2, 27, 12), (3, 27, 8), (4, 32, 4)])
def test_POM_12_W1_deck(players, second_lo, unused):
    seen_second = set()
    for seed in range(300):
        draws, s = draw_order(players, seed)
        assert len(draws) == 42
        assert all(1 <= c <= 11 for c in draws[:8])
        assert draws[8] == B.AD79  # draw 9 is the first AD79
        assert B.OMEN not in draws[:9]
        second = [i + 1 for i, c in enumerate(draws) if c == B.AD79][1]
        assert second_lo <= second <= 42
        seen_second.add(second)
        assert len(s.unused) == unused  # POM-13: unused piles go to the box
        assert [len(h) for h in s.hands] == [4] * players
        allcards = Counter(draws) + Counter(s.unused) + Counter(c for h in s.hands for c in h)
        assert allcards[B.OMEN] == 7 and allcards[B.AD79] == 2
        assert all(allcards[n] == k for n, k in B.CARD_COUNTS.items())
    assert seen_second == set(range(second_lo, 43))  # uniform position in the bottom block


def test_POM_22_W2_two_buildings():
    s = settle_position(2, hands=[[3, 1, 1, 1], [1, 1, 1, 1]], first_ad79=False)
    put(s, (2, 2), BLACK, 3)  # B3a full
    put(s, (2, 3), BLACK, 1)
    moves = [m for m in GAME.legal_moves(s, 0) if m.number == 3]
    assert moves == [PlayCard(3, (2, 3))]
    refused(s, 0, PlayCard(3, (2, 2)), "POM-22")
    put(s, (2, 3), BLACK, 1)  # both full: the card is wild (W-5)
    assert legality.is_wild(s, 3)
    assert len([m for m in GAME.legal_moves(s, 0) if m.number == 3]) > 10


def w3_position(**options):
    s = settle_position(4, hands=[[1] * 4, [1] * 4, [6, 1, 1, 1], [1] * 4], turn=YELLOW, **options)
    put(s, (3, 3), YELLOW)
    put(s, (4, 3), RED, 2)
    put(s, (3, 2), BLUE)  # in the twin B6a: does not count
    return s


def test_POM_32_W3_relatives_building_6():
    s = w3_position()
    events = GAME.apply(s, YELLOW, PlayCard(6, (3, 3)))
    assert {"seat": YELLOW, "count": 3, "building": "B6b"} in [e.data for e in events if e.kind == "relatives_earned"]
    assert s.step == RELATIVES and s.relatives_left == 3
    legal = squares(GAME.legal_moves(s, YELLOW), PlaceRelative)
    assert (3, 2) in legal and (4, 2) in legal and (5, 4) in legal and (3, 1) in legal and (0, 1) in legal
    assert (3, 3) not in legal and (4, 3) not in legal  # never the building just entered
    assert (2, 8) not in legal and (5, 5) not in legal  # other colours
    refused(s, YELLOW, PlaceRelative((4, 3)), "POM-33")
    GAME.apply(s, YELLOW, PlaceRelative((3, 2)))
    refused(s, YELLOW, PlaceRelative((4, 2)), "POM-34")  # B6a already took one
    GAME.apply(s, YELLOW, PlaceRelative((3, 1)))
    GAME.apply(s, YELLOW, PlaceRelative((5, 4)))
    assert count(s, (3, 2), YELLOW) == 1 and count(s, (3, 1), YELLOW) == 1 and count(s, (5, 4), YELLOW) == 1
    assert s.step == PLAY_CARD and s.turn == BLUE and len(s.hands[YELLOW]) == 4  # then the draw
    assert s.supply[YELLOW] == 25 - 4


def test_POM_34_W3_several_relatives_per_building_flag():
    s = w3_position(relatives_one_per_building=False)
    GAME.apply(s, YELLOW, PlayCard(6, (3, 3)))
    for _ in range(3):
        GAME.apply(s, YELLOW, PlaceRelative((5, 4)))
    assert count(s, (5, 4), YELLOW) == 3 and s.turn == BLUE


def test_POM_35_W3_supply_limits_relatives():
    s = w3_position()
    s.supply[YELLOW] = 3  # 2 left after the placement
    GAME.apply(s, YELLOW, PlayCard(6, (3, 3)))
    GAME.apply(s, YELLOW, PlaceRelative((5, 4)))
    assert s.step == RELATIVES
    GAME.apply(s, YELLOW, PlaceRelative((3, 1)))
    assert s.supply[YELLOW] == 0 and s.step == PLAY_CARD and s.turn == BLUE  # ended by itself


@pytest.mark.parametrize("split,expected", [(False, 2), (True, 0)])
def test_POM_32_W4_building_10(split, expected):
    s = settle_position(2, hands=[[10, 1, 1, 1], [1] * 4], building_10_split=split)
    put(s, (5, 5), BLACK, 2)
    events = GAME.apply(s, RED, PlayCard(10, (6, 5)))
    earned = [e.data["count"] for e in events if e.kind == "relatives_earned"]
    assert earned == ([expected] if expected else [])
    if expected:
        legal = squares(GAME.legal_moves(s, RED), PlaceRelative)
        assert {(5, 8), (6, 8), (5, 10), (6, 10), (3, 7)} <= set(legal)
        assert (5, 5) not in legal and (6, 5) not in legal and (5, 4) not in legal
    else:
        assert s.turn == BLACK


def w5_position(**options):
    s = settle_position(2, hands=[[7, 1, 1, 1], [1] * 4], **options)
    put(s, (4, 5), BLACK, 3)  # B7 full
    put(s, (3, 7), BLACK, 2)
    put(s, (1, 0), RED)
    return s


def test_POM_37_W5_wild_card_places_anywhere():
    s = w5_position()
    assert legality.is_wild(s, 7)
    legal = [m for m in GAME.legal_moves(s, RED) if m.number == 7]
    placements = squares([m for m in legal if m.square])
    assert (2, 8) in placements and (4, 5) not in placements
    assert (3, 7) not in placements  # POM-33: a neutral building, filled only by relatives
    assert PlayCard(7) in legal  # POM-37: a wild placement may be declined
    events = GAME.apply(s, RED, PlayCard(7, (2, 8)))
    assert events[0].data["wild"] is True
    assert not [e for e in events if e.kind == "relatives_earned"]  # no relatives for a wild placement
    assert count(s, (2, 8), RED) == 1 and s.turn == BLACK


def test_POM_33_wild_card_never_into_a_neutral_building():
    # Seed 000: 「中立建筑无法通过打出手牌来放置人物标志物，而只能是通过亲属效应来放置」;
    # seed 001: 「中立建築沒有對應的龐貝卡，只能靠「親屬」才能放置村民」.
    s = w5_position()
    lay = layout(s)
    legal = [m for m in GAME.legal_moves(s, RED) if m.number == 7 and m.square]
    assert legal and all(lay.buildings[lay.building_at[B.index(m.square)]].number for m in legal)
    refused(s, RED, PlayCard(7, (3, 7)), "POM-33")
    s = w5_position(wild_card_moves_existing=True)
    refused(s, RED, PlayCard(7, (3, 7), (1, 0)), "POM-33")
    s = w5_position(wild_card_neutral_buildings=True)  # the earlier reading, as an option
    GAME.apply(s, RED, PlayCard(7, (3, 7)))
    assert count(s, (3, 7), RED) == 1


def test_POM_37_wild_placement_may_be_declined():
    # Seed 001: 「玩家可以放置村民到任意建築物」 (may); seed 000 calls the card a chance (「让此玩家有机会」).
    s = w5_position()
    supply = s.supply[RED]
    GAME.apply(s, RED, PlayCard(7))
    assert s.supply[RED] == supply and s.turn == BLACK and 7 in s.discard
    s = w5_position(wild_placement_compulsory=True)
    assert PlayCard(7) not in GAME.legal_moves(s, RED)
    refused(s, RED, PlayCard(7), "POM-37")


def test_POM_37_W5_wild_card_moves_existing():
    s = w5_position(wild_card_moves_existing=True)
    supply = s.supply[RED]
    legal = [m for m in GAME.legal_moves(s, RED) if m.number == 7]
    assert PlayCard(7) in legal  # decline
    assert all(m.origin == (1, 0) for m in legal if m.square)
    refused(s, RED, PlayCard(7, (2, 8)), "POM-37")  # no new piece with this flag
    refused(s, RED, PlayCard(7, (1, 1), (1, 0)), "POM-37")  # same building B1
    GAME.apply(s, RED, PlayCard(7, (2, 8), (1, 0)))
    assert count(s, (2, 8), RED) == 1 and count(s, (1, 0), RED) == 0 and s.supply[RED] == supply


def test_POM_36_W5_omen_frees_a_slot():
    s = w5_position()
    s.hands[BLACK] = [7, 1, 1, 1]
    s.deck.append(B.OMEN)
    GAME.apply(s, RED, PlayCard(1, (1, 1)))
    assert s.step == RELATIVES  # B1 already held red's person on [1,0]
    GAME.apply(s, RED, StopRelatives())
    assert s.step == OMEN
    GAME.apply(s, RED, OmenTarget((4, 5), BLACK))
    assert not legality.is_wild(s, 7)


def test_POM_31_W6_omen_chain():
    s = settle_position(3, hands=[[1] * 4, [2, 1, 1, 1], [1] * 4], turn=1, deck_top=[B.OMEN, B.OMEN, 4])
    put(s, (2, 6), 2)
    put(s, (5, 4), 0)
    events = GAME.apply(s, 1, PlayCard(2, (0, 4)))
    assert [e.kind for e in events][-1] == "omen_drawn" and s.step == OMEN and s.turn == 1
    targets = GAME.legal_moves(s, 1)
    assert set(targets) == {OmenTarget((2, 6), 2), OmenTarget((5, 4), 0)}
    refused(s, 1, OmenTarget((0, 4), 1), "POM-31")  # its own person
    GAME.apply(s, 1, OmenTarget((2, 6), 2))
    assert s.volcano[2] == 1 and legality.free_slots(s, cell(2, 6)) == 4 and s.step == OMEN
    GAME.apply(s, 1, OmenTarget((5, 4), 0))
    assert s.volcano[0] == 1 and len(s.hands[1]) == 4 and s.hands[1][-1] == 4 and s.turn == 2


def test_POM_31_W6_omen_without_target():
    s = settle_position(3, hands=[[1] * 4, [2, 1, 1, 1], [1] * 4], turn=1, deck_top=[B.OMEN, B.OMEN, 4])
    events = GAME.apply(s, 1, PlayCard(2, (0, 4)))
    assert [e.data["effective"] for e in events if e.kind == "omen_drawn"] == [False, False]
    assert s.turn == 2 and s.discard.count(B.OMEN) == 2


def w7_position(hand2=(2, 7, 7, 9)):
    s = settle_position(4, hands=[[1, 3, 4, 5], [1] * 4, list(hand2), [1] * 4])
    for square, n in (((0, 4), 2), ((1, 4), 2), ((4, 5), 3), ((5, 4), 4)):  # buildings 2, 7, 9 full
        put(s, square, 0, n)
    return s


def test_POM_51_W7_declaring_out_of_turn():
    s = w7_position()
    assert GAME.seats_to_act(s) == [0, 2]
    assert GAME.legal_moves(s, 2) == [DeclareEruption()]
    assert DeclareEruption() not in GAME.legal_moves(s, 0) and GAME.legal_moves(s, 0)
    assert GAME.legal_moves(s, 1) == [] and GAME.legal_moves(s, 3) == []
    supplies = list(s.supply)
    stale = GAME.legal_moves(s, 0)[0]
    events = GAME.apply(s, 2, DeclareEruption())
    refused(s, 0, stale, "POM-20")  # POM-92: no longer legal after the declaration
    assert events[0] == Event("eruption_declared", {"seat": 2, "hand": [2, 7, 7, 9]})
    eruption = next(e for e in events if e.kind == "eruption")
    assert eruption.to is None and eruption.data["hands"][0] == {"seat": 0, "cards": [1, 3, 4, 5]}
    assert s.hands == [[]] * 4 and s.supply == [0] * 4 and s.box == supplies
    assert s.phase == OPENING and s.volcano == [0] * 4
    order = [e.data["seat"] for e in events if e.kind == "tile_drawn"]
    while s.phase == OPENING:
        seat = GAME.seats_to_act(s)[0]
        move = next(m for m in GAME.legal_moves(s, seat) if not s.on_cell(cell(*m.square)))
        order += [e.data["seat"] for e in GAME.apply(s, seat, move) if e.kind == "tile_drawn"]
    assert order[:6] == [3, 0, 1, 2, 3, 0]
    assert s.phase == ESCAPE and s.turn == 1


def test_POM_51_W7_declaration_refused():
    s = w7_position(hand2=(2, 7, 7, 5))
    assert GAME.legal_moves(s, 2) == [] and GAME.seats_to_act(s) == [0]
    refused(s, 2, DeclareEruption(), "POM-51")
    refused(s, 0, DeclareEruption(), "POM-51")


@pytest.mark.parametrize("players,drawer,order", [(3, 1, [2, 0, 1, 2, 0, 1]), (2, 0, [1, 0, 1, 0, 1, 0])])
def test_POM_61_W8_opening_order(players, drawer, order):
    hands = [[1, 1, 1, 1] for _ in range(players)]
    s = settle_position(players, hands=hands, turn=drawer, deck_top=[B.AD79])
    put(s, (3, 0), 0, 2)
    events = GAME.apply(s, drawer, PlayCard(1, (1, 0)))
    assert any(e.kind == "ad79_drawn" and not e.data["first"] for e in events)
    assert s.eruption_seat == drawer
    seats = [e.data["seat"] for e in events if e.kind == "tile_drawn"]
    while s.phase == OPENING:
        seat = GAME.seats_to_act(s)[0]
        move = next(m for m in GAME.legal_moves(s, seat) if not s.on_cell(cell(*m.square)))
        seats += [e.data["seat"] for e in GAME.apply(s, seat, move) if e.kind == "tile_drawn"]
    assert seats[:6] == order
    assert s.phase == ESCAPE and s.turn == (order[-1] + 1) % players
    assert seats[6] == s.turn  # phase 2's first tile


def test_POM_62_W9_coin_adjacency():
    s = escape_position(2, tile="coin")
    assert squares(GAME.legal_moves(s, 0)) == [(1, 2)]
    cover(s, (1, 2), "coin")
    assert squares(GAME.legal_moves(s, 0)) == [(0, 2), (1, 1), (1, 3), (2, 2)]
    cover(s, (1, 1), "coin")
    assert squares(GAME.legal_moves(s, 0)) == [(0, 1), (0, 2), (1, 0), (1, 3), (2, 1), (2, 2)]
    refused(s, 0, PlaceLava((0, 0)), "POM-62")  # a diagonal neighbour
    refused(s, 0, PlaceLava((2, 0)), "POM-62")
    refused(s, 0, PlaceLava((1, 1)), "POM-64")  # covered


@pytest.mark.parametrize("foreign", [False, True])
def test_POM_62_W9_foreign_vent(foreign):
    s = escape_position(2, tile="scroll", lava_on_foreign_vent=foreign)
    for square in ((0, 7), (1, 7), (1, 8), (2, 8), (2, 9)):
        cover(s, square, "scroll")
    expected = [(0, 6), (1, 6), (1, 9), (2, 7), (3, 8), (3, 9)] + ([(2, 10)] if foreign else [])
    assert squares(GAME.legal_moves(s, 0)) == sorted(expected)


def w10_position():
    s = escape_position(4, turn=RED, tile="column")
    for square in ((3, 4), (3, 3), (4, 3), (3, 5), (4, 5)):
        cover(s, square, "column")
    for square in ((6, 3), (6, 4), (5, 3)):
        cover(s, square, "mask")
    put(s, (5, 4), BLUE, 2)
    put(s, (5, 4), BLACK, 2)
    put(s, (4, 4), YELLOW)
    put(s, (4, 4), RED)
    put(s, (0, 0), RED)  # someone elsewhere keeps the game going
    return s


def test_POM_65_W10_cut_off():
    s = w10_position()
    assert squares(GAME.legal_moves(s, RED)) == [(2, 3), (2, 4), (2, 5), (3, 2), (3, 6), (4, 2), (4, 4),
                                                 (4, 6), (5, 5)]
    events = GAME.apply(s, RED, PlaceLava((5, 5)))
    cut = next(e for e in events if e.kind == "cut_off")
    assert sorted((d["row"], d["col"]) for d in cut.data["squares"]) == [(4, 4), (5, 4)]
    assert cut.data["killed"] == [1, 2, 1, 2] and s.volcano == [1, 2, 1, 2]
    assert s.on_board(RED) == 1 and s.step == FIRST_MOVE


def test_POM_71_W11_square_of_four():
    s = escape_position(4, turn=YELLOW, step=FIRST_MOVE)
    put(s, (2, 6), YELLOW, 2)
    put(s, (2, 6), RED)
    put(s, (2, 6), BLUE)
    put(s, (0, 5), BLUE)
    start_moves(s)
    assert MovePerson((2, 6), None) in GAME.legal_moves(s, YELLOW)
    events = GAME.apply(s, YELLOW, MovePerson((2, 6), None))
    assert events[0].data["allowance"] == 4 and s.saved[YELLOW] == 1
    assert s.step == SECOND_MOVE
    refused(s, YELLOW, MovePerson((2, 6), None), "POM-73")  # N = 3 now
    GAME.apply(s, YELLOW, MovePerson((2, 6), (0, 5)))
    assert count(s, (0, 5)) == 2
    s.bag = [1] + [0] * (len(s.bag) - 1)
    start_moves(s, YELLOW)  # a later turn
    GAME.apply(s, YELLOW, MovePerson((0, 5), None))  # N = 2: one step is enough
    assert s.saved[YELLOW] == 2


def w12_position(share=False, last=False):
    s = escape_position(2, turn=RED, step=FIRST_MOVE)
    put(s, (3, 5), RED)
    put(s, (3, 6), BLACK, 3)
    if share:
        put(s, (3, 5), BLACK)
    if not last:
        put(s, (1, 0), RED)
    start_moves(s)
    return s


def test_POM_74_W12_lone_person_moves_twice():
    s = w12_position()
    events = GAME.apply(s, RED, MovePerson((3, 5), (3, 6)))
    assert events[0].data["allowance"] == 1
    assert MovePerson((3, 6), None) in GAME.legal_moves(s, RED)
    events = GAME.apply(s, RED, MovePerson((3, 6), None))
    assert events[0].data["allowance"] == 4 and s.saved[RED] == 1


def test_POM_74_W12_shared_square_moves_once():
    s = w12_position(share=True)
    GAME.apply(s, RED, MovePerson((3, 5), (3, 6)))
    assert all(m.origin != (3, 6) for m in GAME.legal_moves(s, RED) if type(m) is MovePerson)
    refused(s, RED, MovePerson((3, 6), None), "POM-74")


def test_POM_74_W12_lone_status_fixed_before_tile():
    s = w12_position(share=True)
    s.people[cell(3, 5) * 2 + BLACK] = 0  # the tile killed the other person: still not alone at turn start
    GAME.apply(s, RED, MovePerson((3, 5), (3, 6)))
    refused(s, RED, MovePerson((3, 6), (4, 6)), "POM-74")


def test_POM_74_W12_last_person_moves_twice():
    s = w12_position(share=True, last=True)
    GAME.apply(s, RED, MovePerson((3, 5), (3, 6)))
    GAME.apply(s, RED, MovePerson((3, 6), None))
    assert s.saved[RED] == 1


def test_POM_73_W13_gate_step():
    s = escape_position(2, turn=RED, step=FIRST_MOVE)
    put(s, (0, 5), BLACK)
    start_moves(s)
    assert MovePerson((0, 5), None) not in GAME.legal_moves(s, RED)
    s = escape_position(2, turn=RED, step=FIRST_MOVE)
    put(s, (0, 5), RED)
    put(s, (4, 4), RED)
    start_moves(s)
    assert MovePerson((0, 5), None) in GAME.legal_moves(s, RED)  # alone on the gate square: N = 1
    s = escape_position(2, turn=RED, step=FIRST_MOVE)
    put(s, (0, 4), RED)
    put(s, (4, 4), RED)
    start_moves(s)
    refused(s, RED, MovePerson((0, 4), None), "POM-73")
    GAME.apply(s, RED, MovePerson((0, 4), (0, 5)))
    assert s.saved[RED] == 0
    GAME.apply(s, RED, MovePerson((0, 5), None))
    assert s.saved[RED] == 1


@pytest.mark.parametrize("block", [False, True])
def test_POM_65_W14_vents_and_cut_off(block):
    s = escape_position(2, turn=RED, tile="vase", vents_block_movement=block)
    for square in ((2, 10), (3, 10), (4, 10)):
        cover(s, square, "vase")
    put(s, (6, 10), BLACK)
    put(s, (0, 0), RED)
    GAME.apply(s, RED, PlaceLava((5, 10)))
    if block:
        assert s.volcano[BLACK] == 1 and count(s, (6, 10)) == 0
    else:
        assert count(s, (6, 10), BLACK) == 1
        dist = geometry.reachable(s, cell(6, 10), 3)
        assert dist[cell(6, 8)] == 2 and geometry.can_leave(s, dist, 3)


def w15_position(volcano1=13):
    s = escape_position(3, turn=2, tile="scroll", pass_anytime=True)  # POM-75: W-15's seat 2 passes
    s.bag = [0] * len(s.bag)  # the 45th tile is the pending one
    s.saved = [11, 11, 9]
    s.volcano = [13, volcano1, 5]
    put(s, (4, 1), 0)
    put(s, (5, 0), 2)
    return s


def test_POM_83_W15_end_and_tie_break():
    s = w15_position()
    GAME.apply(s, 2, PlaceLava((0, 7)))
    assert s.step == FIRST_MOVE  # the seat finishes its turn
    GAME.apply(s, 2, Pass())
    events = GAME.apply(s, 2, Pass())
    assert GAME.is_over(s) and s.phase == OVER
    over = events[-1]
    assert over.kind == "game_over" and over.data["final_casualties"] == [1, 0, 1]
    assert s.volcano == [14, 13, 6] and s.board_total() == 0
    out = GAME.outcome(s)
    assert out.winners == (1,) and out.ranks == (2, 1, 3)


def test_POM_83_W15_shared_win():
    s = w15_position(volcano1=14)
    GAME.apply(s, 2, PlaceLava((0, 7)))
    GAME.apply(s, 2, Pass())
    GAME.apply(s, 2, Pass())
    out = GAME.outcome(s)
    assert out.winners == (0, 1) and out.ranks == (1, 1, 3)
