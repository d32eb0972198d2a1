"""Rule tests for every action card (ERU-110..124) and the card-step mechanics."""
import pytest

from engines.core import advance
from engines.eruption import GAME, flow, geometry, resolution, scoring
from engines.eruption import board as B
from engines.eruption.moves import (
    DiscardForTile,
    DiscardForWall,
    DiscardSurplus,
    EndCards,
    PlaceTile,
    PlayLavaFlow,
    PlayQuake,
    PlayRain,
    PlayReinforce,
    PlayRelocate,
    PlaySinkhole,
    PlayVolcanicBomb,
)

from .helpers import make_state, of_kind, put_on_top, refused

EX6_TILES = [("T4", (4, 4), 3), ("T2", (4, 3), 0), ("T2", (4, 2), 0)]


def test_ERU_116_lava_flow_places_then_returns_to_cards():
    st = make_state(hands=[["lava_flow", "rain"], []])
    GAME.apply(st, 0, PlayLavaFlow())
    assert st.phase == "placement" and st.placement_origin == "card" and st.discard == ["lava_flow"]
    GAME.apply(st, 0, GAME.legal_moves(st, 0)[0])
    assert st.phase == "cards" and len(st.board) == 1
    st.stack = []
    st.hands[0].append("lava_flow")
    assert PlayLavaFlow() not in GAME.legal_moves(st, 0)
    refused(st, 0, PlayLavaFlow(), "ERU-115")


def test_ERU_117_reinforce_builds_outside_allowance():
    st = make_state(tiles=EX6_TILES, hands=[["reinforce"], []])
    GAME.apply(st, 0, PlayReinforce("stone", (4, 2), 0))
    assert st.walls == {((4, 2), 0): "stone"} and st.stockpiles[0] == [1, 1, 0]
    assert st.walls_built == 0
    st.hands[0].append("reinforce")
    refused(st, 0, PlayReinforce("stone", (4, 2), 1), "ERU-117")  # no stone left
    refused(st, 0, PlayReinforce("wood", (4, 2), 0), "ERU-91")  # taken spot
    refused(st, 0, PlayReinforce("wood", (4, 9), 3), "ERU-90")  # village 3's entry


def test_ERU_118_relocate_sequence():
    walls = {((4, 2), 0): "wood", ((3, 2), 1): "straw"}
    st = make_state(walls=walls, hands=[["relocate", "relocate"], []])
    steps = (((4, 2), 0, (5, 2), 0), ((3, 2), 1, (4, 2), 0))
    GAME.apply(st, 0, PlayRelocate(steps))
    assert st.walls == {((5, 2), 0): "wood", ((4, 2), 0): "straw"}
    refused(st, 0, PlayRelocate((((5, 2), 0, (4, 2), 0),)), "ERU-91")
    refused(st, 0, PlayRelocate((((5, 2), 0, (4, 9), 3),)), "ERU-118")
    refused(st, 0, PlayRelocate((((6, 1), 0, (6, 1), 5),)), "ERU-118")
    refused(st, 0, PlayRelocate(()), "ERU-118")
    st2 = make_state(hands=[["relocate"], []])
    assert not any(type(m) is PlayRelocate for m in GAME.legal_moves(st2, 0))
    refused(st2, 0, PlayRelocate((((4, 2), 0, (5, 2), 0),)), "ERU-115")


def test_ERU_118_every_arrangement_is_listed_once():
    """Relocate may take several steps (a swap of two walls needs three): legal_moves lists one step
    list per reachable arrangement of the village's walls, and each is accepted as listed."""
    walls = {((4, 2), 0): "wood", ((3, 2), 1): "straw"}
    st = make_state(walls=walls, hands=[["relocate"], []])
    entries = sorted(geometry.own_entries(st, 0))
    arrangements = []
    for m in [m for m in GAME.legal_moves(st, 0) if type(m) is PlayRelocate]:
        after = st.clone()
        GAME.apply(after, 0, m)
        arrangements.append(tuple(after.walls.get(p) for p in entries))
    n = len(entries)
    assert len(arrangements) == len(set(arrangements)) == n * (n - 1) - 1  # two distinct walls, all but today's
    swapped = {((4, 2), 0): "straw", ((3, 2), 1): "wood"}
    assert tuple(swapped.get(p) for p in entries) in arrangements


@pytest.mark.parametrize("temp,after", [(50, 20), (20, 0), (0, 0)])
def test_ERU_120_rain(temp, after):
    st = make_state(temps=[temp, 0], hands=[["rain"], []])
    GAME.apply(st, 0, PlayRain())
    assert st.temperatures[0] == after
    assert scoring.zone(st, 0) == 0


def test_ERU_121_sinkhole_removes_owned_walls_keeps_entry_walls():
    # T9@(4,3) r0 {N,NE,S}: open ends (4,2):S and (5,2):SW belong to it; (4,2):N is an entry
    st = make_state(tiles=[("T4", (4, 4), 3), ("T9", (4, 3), 0)],
                    walls={((4, 2), 3): "straw", ((5, 2), 4): "wood", ((4, 2), 0): "stone"},
                    hands=[["sinkhole"], []])
    GAME.apply(st, 0, PlaySinkhole((4, 3)))
    assert (4, 3) not in st.board and (4, 3) in geometry.open_ends(st)
    assert st.walls == {((4, 2), 0): "stone"}  # entry wall stays
    assert st.removed_walls == [1, 1, 0] and (4, 3) not in st.lava
    assert st.hands[0] == []  # no cards drawn


def test_ERU_122_volcanic_bomb_any_wall():
    st = make_state(walls={((4, 9), 3): "stone"}, hands=[["volcanic_bomb", "volcanic_bomb"], []])
    GAME.apply(st, 0, PlayVolcanicBomb((4, 9), 3))
    assert st.walls == {} and st.removed_walls == [0, 0, 1]
    refused(st, 0, PlayVolcanicBomb((4, 9), 3), "ERU-122")


def test_ERU_123_quake_no_fit_no_effect():
    # a lone eruption tile far from the volcano: no tile can replace it (no other source); with only an
    # eruption tile on the board, Quake has no target at all by default (ERU-66)
    st = make_state(tiles=[("T7", (2, 4), 1)], hands=[["quake"], []])
    refused(st, 0, PlayQuake(), "ERU-115")
    st = make_state(tiles=[("T7", (2, 4), 1)], hands=[["quake"], []], options={"cards_act_on_eruption_tiles": True})
    stack = sorted(st.stack)
    events = GAME.apply(st, 0, PlayQuake())
    assert of_kind(events, "quake_no_effect") and st.phase == "cards"
    assert sorted(st.stack) == stack and st.discard == ["quake"]
    assert len(of_kind(events, "tile_drawn")) == len(stack)


def test_ERU_115_quake_needs_stack_and_board():
    st = make_state(hands=[["quake"], []])
    assert PlayQuake() not in GAME.legal_moves(st, 0)
    refused(st, 0, PlayQuake(), "ERU-115")


def test_ERU_123_quake_sets_aside_unfit_tiles():
    # EX-3 board: only (4,4) T2 {SE,NW}; a T1 cannot keep both links, so it is set aside
    st = make_state(tiles=[("T2", (4, 4), 2), ("T4", (3, 4), 5)], hands=[["quake"], []])
    t1 = put_on_top(st, "T1")
    t13 = st.stack[-2]
    st.stack.remove(t13)
    st.stack.insert(len(st.stack) - 1, t13)
    events = GAME.apply(st, 0, PlayQuake())
    drawn = of_kind(events, "tile_drawn")
    assert drawn[0]["tile"] == t1 and drawn[0]["set_aside"] in (True, False)
    assert st.quake_tile >= 0
    assert t1 in st.stack or st.quake_tile == t1


def test_ERU_113_discard_for_wall():
    st = make_state(hands=[["quake", "rain"], []])
    GAME.apply(st, 0, DiscardForWall("quake"))
    assert st.stockpiles[0] == [1, 1, 2] and st.discard == ["quake"]
    st.supply[1] = 0
    refused(st, 0, DiscardForWall("rain"), "ERU-97")
    assert DiscardForWall("rain") not in GAME.legal_moves(st, 0)
    st2 = make_state(options={"unlimited_walls": True}, hands=[["rain"], []])
    st2.supply[1] = 0
    GAME.apply(st2, 0, DiscardForWall("rain"))
    assert st2.stockpiles[0][1] == 2


def test_ERU_113_discard_two_for_tile():
    st = make_state(hands=[["rain", "quake", "quake"], []])
    refused(st, 0, DiscardForTile(("rain", "rain")), "ERU-113")
    refused(st, 0, DiscardForTile(("rain", "quake")), "ERU-113")  # a move is named as legal_moves lists it
    GAME.apply(st, 0, DiscardForTile(("quake", "rain")))
    assert st.phase == "placement" and st.placement_origin == "card" and st.hands[0] == ["quake"]
    GAME.apply(st, 0, GAME.legal_moves(st, 0)[0])
    assert st.phase == "cards"
    st.stack = []
    st.hands[0] = ["quake", "rain"]
    refused(st, 0, DiscardForTile(("quake", "rain")), "ERU-113")


def test_ERU_114_hand_limit():
    st = make_state(hands=[["rain", "rain", "quake", "quake", "relocate"], []])
    assert EndCards() not in GAME.legal_moves(st, 0)
    refused(st, 0, EndCards(), "ERU-114")
    GAME.apply(st, 0, DiscardSurplus("relocate"))
    GAME.apply(st, 0, DiscardForWall("rain"))
    assert len(st.hands[0]) == 3
    refused(st, 0, DiscardSurplus("rain"), "ERU-114")
    GAME.apply(st, 0, EndCards())
    assert st.phase == "walls"


def test_ERU_113_card_not_in_hand():
    st = make_state(hands=[["rain"], []])
    for move in [PlayQuake(), DiscardForWall("quake"), PlaySinkhole((4, 4)), PlayLavaFlow()]:
        refused(st, 0, move, "ERU-113")


def test_ERU_43_zone_two_draws_at_cards_step():
    st = make_state(temps=[120, 0], hands=[[], []], phase="placement")
    advance(flow.FLOW, st, [], flow.PLACED_STEP["regular"])
    assert st.phase == "cards" and len(st.hands[0]) == 1
    st = make_state(temps=[110, 0], hands=[[], []], phase="placement")
    advance(flow.FLOW, st, [], flow.PLACED_STEP["regular"])
    assert len(st.hands[0]) == 0


def test_ERU_111_discard_reshuffled_when_pile_empty():
    st = make_state(hands=[[], []])
    st.discard, st.draw_pile = st.draw_pile, []
    events = []
    resolution.draw_cards(st, 0, 2, "flow", events)
    assert len(st.hands[0]) == 2 and st.discard == []
    assert of_kind(events, "discard_reshuffled")
    private = [e for e in events if e.kind == "card_drawn"]
    assert len(private) == 2 and all(e.to == 0 for e in private)
    st.draw_pile, st.discard = [], []
    resolution.draw_cards(st, 0, 1, "flow", [])
    assert len(st.hands[0]) == 2  # both empty: nothing drawn


def test_ERU_76_wall_award_space_and_flow_cards():
    st = make_state(tiles=[("T2", (4, 4), 2)], hands=[[], []], phase="placement")
    put_on_top(st, "T13")
    flow.start_placement(st, "regular", [])
    move = next(m for m in GAME.legal_moves(st, 0) if m.cell == (3, 4))
    GAME.apply(st, 0, move)
    # (3,4) is no award space
    assert st.stockpiles[0] == [1, 1, 1]
    st = make_state(tiles=[("T4", (4, 4), 3)], hands=[[], []], phase="placement")
    put_on_top(st, "T2")
    flow.start_placement(st, "regular", [])
    GAME.apply(st, 0, PlaceTile(st.drawn_tile, (4, 3), 0))
    put_on_top(st, "T13")
    st.phase = "placement"
    flow.start_placement(st, "regular", [])
    # T13 on (4,2) with lava N, NE: 2 cards; on award-free space
    m = next(m for m in GAME.legal_moves(st, 0)
             if m.cell == (4, 2) and B.POPCOUNT[B.MASK_OF_TILE[m.tile][m.rotation] & 3] == 2)
    hand = len(st.hands[0])
    GAME.apply(st, 0, m)
    assert len(st.hands[0]) == hand + 2


def test_ERU_97_award_space_supply_empty():
    st = make_state(tiles=[("T4", (4, 4), 3), ("T3", (4, 3), 5)], hands=[[], []], phase="placement")
    put_on_top(st, "T4")
    flow.start_placement(st, "regular", [])
    move = next(m for m in GAME.legal_moves(st, 0) if m.cell == (5, 3))
    s2 = st.clone()
    GAME.apply(st, 0, move)
    assert st.stockpiles[0] == [2, 1, 1]  # (5,3) is a straw space
    s2.supply[0] = 0
    GAME.apply(s2, 0, move)
    assert s2.stockpiles[0] == [1, 1, 1] and (5, 3) in s2.board


def test_moves_of_different_kinds_differ():
    assert EndCards() != PlayRain() and PlayLavaFlow() != PlayQuake()
    assert DiscardForWall("rain") != DiscardSurplus("rain")
    assert len({EndCards(), PlayRain(), PlayLavaFlow(), PlayQuake()}) == 4
    assert DiscardForWall("rain") == DiscardForWall("rain")
