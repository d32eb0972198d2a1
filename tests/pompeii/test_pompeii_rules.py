"""Rule-family tests and refusals beyond the worked examples."""
import pickle

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
    ESCAPE,
    FIRST_MOVE,
    OMEN,
    OPENING,
    PLACE_LAVA,
    PLAY_CARD,
    RELATIVES,
    SECOND_MOVE,
    SETTLE,
    layout,
)

from .support import cell, cover, escape_position, new, put, refused, settle_position, squares, start_moves

# ---------------------------------------------------------------- setup

@pytest.mark.parametrize("edition,pieces", [("2006", {2: 36, 3: 30, 4: 25}), ("2013", {2: 30, 3: 30, 4: 25})])
def test_POM_11_supplies(edition, pieces):
    for p, n in pieces.items():
        assert new(p, edition=edition).supply == [n] * p


@pytest.mark.parametrize("dual,total", [(False, 45), (True, 48)])
def test_POM_14_bag(dual, total):
    s = new(2, edition="2013", dual_vent_tiles=dual)
    assert sum(s.bag) == total
    assert dict(zip(B.SYMBOLS, s.bag)) == {"scroll": 8, "column": 8, "coin": 8, "vase": 7, "helmet": 7, "mask": 7}


def test_POM_15_start():
    s = new(3)
    assert s.phase == SETTLE and s.step == PLAY_CARD and s.turn == 0 and not s.first_ad79
    assert s.board_total() == 0 and s.saved == s.volcano == [0, 0, 0]
    assert GAME.seats_to_act(s) == [0] and GAME.legal_moves(s, 1) == []


def test_POM_93_same_seed_same_game():
    assert pickle.dumps(new(4, 7)) == pickle.dumps(new(4, 7))
    assert pickle.dumps(new(4, 7)) != pickle.dumps(new(4, 8))


# ---------------------------------------------------------------- phase 1

def test_POM_20_turn_passes_left_and_wrong_seat_refused():
    s = settle_position(3, hands=[[1, 2, 2, 2], [1] * 4, [1] * 4], first_ad79=False)
    refused(s, 1, PlayCard(1, (1, 0)), "POM-92")
    GAME.apply(s, 0, PlayCard(1, (1, 0)))
    assert s.turn == 1 and len(s.hands[0]) == 4
    refused(s, 1, Pass(), "POM-75")
    refused(s, 1, PlaceLava((0, 7)), "POM-60")


def test_POM_22_placement_compulsory_and_empty_supply():
    s = settle_position(2, hands=[[1, 2, 2, 2], [1] * 4], first_ad79=False)
    refused(s, 0, PlayCard(1), "POM-22")
    refused(s, 0, PlayCard(1, (0, 1)), "POM-22")  # a normal card never reaches a neutral building
    refused(s, 0, PlayCard(1, (1, 0), (1, 1)), "POM-22")
    s.supply[0] = 0
    assert [m for m in GAME.legal_moves(s, 0)] == [PlayCard(1), PlayCard(2)]
    refused(s, 0, PlayCard(1, (1, 0)), "POM-22")
    GAME.apply(s, 0, PlayCard(1))
    assert s.board_total() == 0 and s.turn == 1


def test_POM_23_drawn_card_is_private():
    s = settle_position(2, hands=[[1, 2, 2, 2], [1] * 4], deck_top=[9], first_ad79=False)
    events = GAME.apply(s, 0, PlayCard(1, (1, 0)))
    drawn = [e for e in events if e.kind in ("card_drawn", "card_received")]
    assert drawn[0].to is None and drawn[0].data == {"seat": 0}
    assert drawn[1].to == 0 and drawn[1].data == {"seat": 0, "number": 9}
    assert sorted(s.hands[0]) == [2, 2, 2, 9]


def test_POM_24_first_ad79_replacement():
    s = settle_position(2, hands=[[1, 2, 2, 2], [1] * 4], deck_top=[B.AD79, 8], first_ad79=False)
    s.deck.insert(0, B.AD79)  # keep two AD79 in the deck
    events = GAME.apply(s, 0, PlayCard(1, (1, 0)))
    assert [e.kind for e in events if e.kind == "ad79_drawn"] == ["ad79_drawn"]
    assert s.first_ad79 and 8 in s.hands[0] and s.turn == 1 and B.AD79 in s.discard


def test_POM_25_omen_before_first_ad79_has_no_effect():
    s = settle_position(2, hands=[[1, 2, 2, 2], [1] * 4], deck_top=[B.OMEN, 3], first_ad79=False)
    put(s, (5, 4), 1)
    events = GAME.apply(s, 0, PlayCard(1, (1, 0)))
    assert [e.data["effective"] for e in events if e.kind == "omen_drawn"] == [False]
    assert s.volcano == [0, 0] and s.turn == 1 and 3 in s.hands[0]


def test_POM_30_no_relatives_before_first_ad79():
    s = settle_position(2, hands=[[1, 2, 2, 2], [1] * 4], first_ad79=False)
    put(s, (1, 1), 1, 2)
    events = GAME.apply(s, 0, PlayCard(1, (1, 0)))
    assert not [e for e in events if e.kind == "relatives_earned"] and s.turn == 1


def test_POM_31_omen_targets_any():
    s = settle_position(2, hands=[[1, 2, 2, 2], [1] * 4], deck_top=[B.OMEN, 3], omen_targets="any")
    put(s, (0, 1), 0)
    GAME.apply(s, 0, PlayCard(2, (0, 4)))
    assert set(GAME.legal_moves(s, 0)) == {OmenTarget((0, 1), 0), OmenTarget((0, 4), 0)}
    GAME.apply(s, 0, OmenTarget((0, 4), 0))
    assert s.volcano[0] == 1 and s.turn == 1


def test_POM_35_stop_relatives():
    s = settle_position(2, hands=[[1, 2, 2, 2], [1] * 4])
    put(s, (1, 1), 1, 2)
    GAME.apply(s, 0, PlayCard(1, (1, 0)))
    assert s.step == RELATIVES and s.relatives_left == 2
    refused(s, 1, StopRelatives(), "POM-92")
    refused(s, 0, PlayCard(2, (0, 4)), "POM-20")
    refused(s, 0, PlaceRelative((2, 8)), "POM-33")  # purple, not grey
    refused(s, 0, PlaceRelative((1, 1)), "POM-33")  # the building just entered
    supply = s.supply[0]
    events = GAME.apply(s, 0, StopRelatives())
    assert events[0].data == {"seat": 0, "unplaced": 2}
    assert s.supply[0] == supply and s.turn == 1 and s.relatives_left == 0


def test_POM_35_relatives_end_when_no_square():
    s = settle_position(2, hands=[[1, 2, 2, 2], [1] * 4])
    put(s, (1, 1), 1, 2)
    lay = layout(s)
    for b in lay.relative_targets(lay.by_id["B1"]):  # fill every eligible building
        for c in lay.buildings[b].squares:
            s.people[c * 2 + 1] += lay.slots_at[c]
    GAME.apply(s, 0, PlayCard(1, (1, 0)))
    assert s.turn == 1 and s.step == PLAY_CARD


def test_POM_37_wild_with_empty_supply_or_full_board():
    s = settle_position(2, hands=[[7, 2, 2, 2], [1] * 4])
    put(s, (4, 5), 1, 3)
    s.supply[0] = 0
    assert PlayCard(7) in GAME.legal_moves(s, 0)
    refused(s, 0, PlayCard(7, (0, 1)), "POM-37")
    s.supply[0] = 5
    assert PlayCard(7) in GAME.legal_moves(s, 0)  # POM-37: the seeds' "may"
    s.options = dict(s.options, wild_placement_compulsory=True)
    refused(s, 0, PlayCard(7), "POM-37")  # compulsory when possible, with the option


def test_POM_50_second_ad79_in_omen_chain():
    s = settle_position(2, hands=[[1, 2, 2, 2], [1] * 4], deck_top=[B.OMEN, B.AD79])
    put(s, (5, 4), 1, 2)
    GAME.apply(s, 0, PlayCard(2, (0, 4)))
    events = GAME.apply(s, 0, OmenTarget((5, 4), 1))
    assert s.phase == OPENING and s.eruption_seat == 0 and s.turn == 1 and s.step == PLACE_LAVA
    assert [e.kind for e in events][:3] == ["omen_victim", "ad79_drawn", "eruption"]


def test_POM_51_declaration_cuts_in_during_relatives_and_omen():
    s = settle_position(2, hands=[[1, 2, 2, 2], [9] * 4], deck_top=[B.OMEN])
    put(s, (5, 4), 0, 4)  # B9 full: seat 1's hand is all wild
    put(s, (1, 1), 1)
    GAME.apply(s, 0, PlayCard(1, (1, 0)))
    assert s.step == RELATIVES and GAME.seats_to_act(s) == [0, 1]
    clone = s.clone()
    GAME.apply(clone, 1, DeclareEruption())
    assert clone.phase == OPENING and clone.relatives_left == 0 and clone.turn == 0  # left of the declarer
    GAME.apply(s, 0, StopRelatives())
    assert s.step == OMEN and DeclareEruption() in GAME.legal_moves(s, 1)
    GAME.apply(s, 1, DeclareEruption())
    assert s.phase == OPENING and s.hands == [[], []] and s.box == [35, 36]


def test_POM_52_empty_board_ends_the_game():
    s = settle_position(2, hands=[[7, 2, 2, 2], [9] * 4])
    put(s, (5, 4), 0, 4)
    s.people[cell(5, 4) * 2] = 0  # nobody on the board, but B9 "full" is needed for wildness
    assert not legality.can_declare(s, 1)
    s = settle_position(2, hands=[[1, 2, 2, 2], [1] * 4], deck_top=[B.AD79])
    s.supply[0] = 0
    events = GAME.apply(s, 0, PlayCard(1))
    assert GAME.is_over(s) and events[-1].kind == "game_over" and s.box == [0, 36]


# ---------------------------------------------------------------- lava

def test_POM_61_nobody_moves_during_opening():
    s = settle_position(2, hands=[[1, 2, 2, 2], [1] * 4], deck_top=[B.AD79])
    put(s, (3, 0), 1, 2)
    GAME.apply(s, 0, PlayCard(1, (1, 0)))
    assert s.phase == OPENING
    assert all(type(m) is PlaceLava for m in GAME.legal_moves(s, 1))
    refused(s, 1, Pass(), "POM-75")
    refused(s, 0, PlaceLava((0, 7)), "POM-92")


def test_POM_63_tile_without_square_is_discarded():
    s = escape_position(2, turn=1, step=SECOND_MOVE, pass_anytime=True)  # POM-75: seat 1 passes
    cover(s, (0, 7), "scroll")
    cover(s, (0, 6), "coin")
    cover(s, (1, 7), "coin")
    put(s, (4, 4), 0)
    put(s, (3, 0), 1)
    s.bag = [3] + [0] * (len(s.bag) - 1)  # only scroll tiles left
    s.moves_made = 1
    events = GAME.apply(s, 1, Pass())
    kinds = [e.kind for e in events]
    assert kinds[-3:] == ["turn_started", "tile_drawn", "tile_discarded"]
    assert s.turn == 0 and s.step == FIRST_MOVE and s.tiles_discarded == ["scroll"] and sum(s.bag) == 2


def test_POM_64_tile_kills_everyone_on_the_square():
    s = escape_position(2, turn=0, tile="column")
    put(s, (3, 4), 0, 2)
    put(s, (3, 4), 1)
    put(s, (0, 0), 1)
    events = GAME.apply(s, 0, PlaceLava((3, 4)))
    assert events[0].data["killed"] == [2, 1] and s.volcano == [2, 1]
    assert s.turn == 1 and s.phase == ESCAPE  # seat 0 has nobody left: turn over (POM-76)


def test_POM_65_all_gates_covered_kills_everyone():
    s = escape_position(2, turn=0, tile="scroll")
    for g in B.GATES:
        if B.square(g) != (1, 9):
            cover(s, B.square(g), "coin")
    for square in ((0, 7), (1, 8)):
        cover(s, square, "scroll")
    put(s, (3, 0), 1)
    GAME.apply(s, 0, PlaceLava((1, 9)))
    assert s.volcano[1] == 1 and GAME.is_over(s)  # POM-81


def test_POM_66_dual_vent_tile():
    s = escape_position(2, tile="helmet+mask", edition="2013", dual_vent_tiles=True)
    assert sorted(GAME.legal_moves(s, 0)) == [PlaceLava((6, 3), "mask"), PlaceLava((6, 9), "helmet")]
    refused(s, 0, PlaceLava((6, 3)), "POM-66")
    refused(s, 0, PlaceLava((6, 3), "helmet"), "POM-62")
    put(s, (0, 0), 1)
    GAME.apply(s, 0, PlaceLava((6, 3), "mask"))
    assert s.lava[cell(6, 3)] == "mask"
    s2 = escape_position(2, tile="scroll")
    refused(s2, 0, PlaceLava((0, 7), "coin"), "POM-62")
    GAME.apply(s2, 0, PlaceLava((0, 7), "scroll"))  # naming the only symbol is accepted too


def test_POM_62_foreign_vent_covered_lets_own_symbol_spread_from_vent():
    s = escape_position(2, tile="coin", lava_on_foreign_vent=True)
    cover(s, (1, 2), "scroll")
    assert squares(GAME.legal_moves(s, 0)) == [(0, 2), (1, 1), (1, 3), (2, 2)]


# ---------------------------------------------------------------- phase 2

def test_POM_71_72_allowance_and_covered_squares():
    s = escape_position(2, turn=0, step=FIRST_MOVE)
    put(s, (4, 4), 0)
    put(s, (4, 4), 1)
    cover(s, (4, 5), "column")
    start_moves(s)
    targets = sorted(m.target for m in GAME.legal_moves(s, 0) if type(m) is MovePerson)
    assert targets == [(2, 4), (3, 3), (3, 4), (3, 5), (4, 2), (4, 3), (5, 3), (5, 4), (5, 5), (6, 4)]  # N = 2
    refused(s, 0, MovePerson((4, 4), (4, 6)), "POM-72")
    refused(s, 0, MovePerson((4, 4), (4, 4)), "POM-75")
    refused(s, 0, MovePerson((0, 0), (0, 1)), "POM-71")
    refused(s, 1, MovePerson((4, 4), (4, 3)), "POM-92")
    refused(s, 0, MovePerson((0, 8), (0, 7)), "POM-3")


@pytest.mark.parametrize("block", [False, True])
def test_POM_72_vents(block):
    s = escape_position(2, turn=0, step=FIRST_MOVE, vents_block_movement=block)
    put(s, (2, 4), 0, 2)
    start_moves(s)
    targets = {m.target for m in GAME.legal_moves(s, 0) if type(m) is MovePerson}
    assert ((3, 4) in targets) is not block


def test_POM_75_pass_only_when_no_move_is_possible():
    # Seed 000: 「玩家在此阶段必须移动不同的2个标志物」; seed 001: 「必須移動2個不同的村民」.
    s = escape_position(2, turn=0, step=FIRST_MOVE)
    put(s, (3, 5), 0)
    put(s, (3, 0), 1)
    start_moves(s)
    assert Pass() not in GAME.legal_moves(s, 0)
    refused(s, 0, Pass(), "POM-75")
    GAME.apply(s, 0, MovePerson((3, 5), (2, 5)))  # movement points need not all be used
    assert s.step == SECOND_MOVE and Pass() not in GAME.legal_moves(s, 0)  # the lone person moves again (POM-74)
    refused(s, 0, Pass(), "POM-75")
    s = escape_position(2, turn=0, step=FIRST_MOVE)
    put(s, (3, 5), 0)
    put(s, (3, 0), 1)
    for square in ((2, 5), (4, 5), (3, 4), (3, 6)):
        cover(s, square, "scroll")
    start_moves(s)
    # walled in (a position the cut-off rule POM-65 normally prevents): no move, so the pass is legal
    assert GAME.legal_moves(s, 0) == [Pass()]
    GAME.apply(s, 0, Pass())
    assert s.step == SECOND_MOVE and GAME.legal_moves(s, 0) == [Pass()]


def test_POM_75_pass_then_any_person():
    s = escape_position(2, turn=0, step=FIRST_MOVE, pass_anytime=True)  # the earlier reading, as an option
    put(s, (3, 5), 0)
    put(s, (3, 0), 1)
    start_moves(s)
    GAME.apply(s, 0, Pass())
    assert s.step == SECOND_MOVE and MovePerson((3, 5), (2, 5)) in GAME.legal_moves(s, 0)
    GAME.apply(s, 0, Pass())
    assert s.turn == 1


def test_POM_76_last_person_leaves_skips_second_move():
    s = escape_position(2, turn=0, step=FIRST_MOVE)
    put(s, (0, 5), 0)
    put(s, (3, 0), 1)
    start_moves(s)
    GAME.apply(s, 0, MovePerson((0, 5), None))
    assert s.turn == 1 and s.step == PLACE_LAVA


def test_POM_76_nobody_on_board_still_places_a_tile():
    s = escape_position(2, turn=0, tile="scroll")
    put(s, (3, 0), 1)
    GAME.apply(s, 0, PlaceLava((0, 7)))
    assert s.turn == 1 and s.step == PLACE_LAVA


def test_POM_81_last_person_out_ends_the_game():
    s = escape_position(2, turn=0, step=FIRST_MOVE)
    put(s, (0, 5), 0)
    start_moves(s)
    events = GAME.apply(s, 0, MovePerson((0, 5), None))
    assert GAME.is_over(s) and events[-1].kind == "game_over" and GAME.outcome(s).winners == (0,)
    assert GAME.seats_to_act(s) == [] and GAME.legal_moves(s, 0) == [] and GAME.to_move(s) is None
    refused(s, 0, Pass(), "POM-75")


def test_refusals_of_unknown_moves_and_seats():
    s = new(2)
    refused(s, 0, ("play", 1), "POM-91")
    refused(s, 5, PlayCard(1), "POM-1")
    refused(s, 0, PlayCard(s.hands[0][0], (9, 9)), "POM-3")
    refused(s, 0, OmenTarget((0, 0), 1), "POM-31")
    refused(s, 0, PlaceRelative((0, 1)), "POM-35")
    refused(s, 0, StopRelatives(), "POM-35")
    refused(s, 0, MovePerson((0, 0), None), "POM-70")
