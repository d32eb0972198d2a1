"""One test per worked example of RULES.md (EX-1 .. EX-13), named by rule id."""
import pytest

from engines.core import advance
from engines.eruption import GAME, flow, geometry, legality, resolution, scoring
from engines.eruption import board as B
from engines.eruption.moves import (
    BuildWall,
    EndTurn,
    PlaceEruption,
    PlaceTile,
    PlayAftershock,
    PlayQuake,
    PlaySinkhole,
    QuakeReplace,
)

from .helpers import FixedDice, draw, make_state, of_kind, put_on_top, refused

EX2_TILES = [("T4", (4, 4), 3), ("T9", (4, 3), 0), ("T9", (4, 2), 0), ("T4", (5, 2), 1)]
EX3_TILES = [("T2", (4, 4), 2)]
EX4_TILES = [("T2", (4, 4), 2), ("T4", (3, 6), 3), ("T2", (3, 5), 0)]
EX6_TILES = [("T4", (4, 4), 3), ("T2", (4, 3), 0), ("T2", (4, 2), 0)]
EX7_TILES = [("T4", (4, 4), 3), ("T9", (4, 3), 0), ("T9", (4, 2), 0), ("T4", (5, 2), 5)]
EX8_TILES = [("T4", (4, 4), 3), ("T2", (4, 3), 0), ("T8", (4, 2), 0)]


def test_ERU_72_EX1_first_tile_six_placements():
    st = make_state(phase="placement")
    t = draw(st, "T3")
    assert set(legality.tile_placements(st, t)) == {
        ((4, 4), 4), ((6, 3), 1), ((7, 4), 0), ((6, 6), 3), ((4, 7), 2), ((3, 6), 5)}
    refused(st, st.active, PlaceTile(t, (4, 4), 5), "ERU-72")  # S lava against volcano grass
    refused(st, st.active, PlaceTile(t, (5, 3), 0), "ERU-72")  # no lava link possible


@pytest.mark.parametrize("tie,temp,walls_left", [("wall", 70, 1), ("lava", 80, 0)])
def test_ERU_50_EX2_damage_with_walls(tie, temp, walls_left):
    st = make_state(options={"dice_tie_goes_to": tie}, tiles=EX2_TILES, temps=[40, 0],
                    walls={((4, 2), 0): "wood", ((5, 2), 0): "straw"})
    st.rng = FixedDice([3, 4, 2, 5])
    events = []
    advance(flow.FLOW, st, events, "turn_start")
    assert st.temperatures[0] == temp
    rolls = of_kind(events, "dice_rolled")
    assert [(r["white"], r["orange"], r["held"]) for r in rolls] == [
        (3, 4, tie == "wall"), (2, 5, False)]
    assert len(st.walls) == walls_left
    # 70 or 80 is zone 1: eruption tile 1 is claimed and placed at the start of this placement step
    assert st.eruption_status[0] == "held" and st.eruption_holder[0] == 0
    assert st.phase == "eruption"
    assert of_kind(events, "eruption_awarded") == [{"seat": 0, "number": 1}]


def _ex3(rolls, options=None, excluded=()):
    st = make_state(options=options, tiles=EX3_TILES, walls={((3, 4), 2): "wood"}, phase="placement")
    t = draw(st, "T4")
    st.excluded = set(excluded)
    assert {r for s, r in legality.tile_placements(st, t) if s == (3, 4)} == {3, 5}
    st.rng = FixedDice(rolls)
    events = GAME.apply(st, 0, PlaceTile(t, (3, 4), 5))
    return st, t, events


def test_ERU_75_EX3_wall_holds_attempt_fails():
    st, t, events = _ex3([3, 4])
    assert of_kind(events, "dice_rolled")[0]["held"]
    assert (3, 4) not in st.board and st.walls == {((3, 4), 2): "wood"}
    assert st.excluded == {(3, 4)} and st.drawn_tile == t and st.phase == "placement"
    spaces = {m.cell for m in GAME.legal_moves(st, 0)}
    assert spaces == {(3, 6), (4, 7), (6, 3), (6, 6), (7, 4)}
    refused(st, 0, PlaceTile(t, (3, 4), 5), "ERU-75")
    GAME.apply(st, 0, PlaceTile(t, (6, 3), 1))
    assert st.excluded == set()  # ERU-76: cleared by a successful placement


@pytest.mark.parametrize("rolls,options", [([3, 4], {"dice_tie_goes_to": "lava"}), ([2, 4], None)])
def test_ERU_74_EX3_wall_fails_tile_placed(rolls, options):
    st, t, events = _ex3(rolls, options)
    assert not of_kind(events, "dice_rolled")[0]["held"]
    assert st.board[(3, 4)] == (t, 5) and not st.walls
    assert st.removed_walls == [0, 1, 0]


def test_ERU_75_EX3_only_space_held_tile_removed_and_redrawn():
    st = make_state(tiles=EX3_TILES, walls={((3, 4), 2): "wood"}, phase="placement")
    t = draw(st, "T4")
    st.stack = st.stack[-3:]
    rest = list(st.stack)
    st.excluded = {(3, 6), (4, 7), (6, 3), (6, 6), (7, 4)}
    st.rng = FixedDice([3, 4])
    events = GAME.apply(st, 0, PlaceTile(t, (3, 4), 5))
    removed = of_kind(events, "tiles_removed")
    assert removed[0] == {"tiles": [t], "cause": "no_space"}
    # ERU-71: new tiles are drawn with (3,4) still excluded; none fits, the stack runs out
    drawn = of_kind(events, "tile_drawn")
    assert [d["tile"] for d in drawn] == rest[::-1] and all(d["set_aside"] for d in drawn)
    assert removed[1] == {"tiles": rest[::-1], "cause": "unplaceable"}
    assert (3, 4) in st.excluded and st.stack == [] and st.drawn_tile == -1
    assert st.phase == "cards" and st.walls == {((3, 4), 2): "wood"}


def test_ERU_74_EX4_one_walled_connection_swept():
    st = make_state(tiles=EX4_TILES, walls={((3, 4), 2): "wood"}, phase="placement")
    t = draw(st, "T3")
    assert [r for s, r in legality.tile_placements(st, t) if s == (3, 4)] == [5]
    events = GAME.apply(st, 0, PlaceTile(t, (3, 4), 5))
    assert not of_kind(events, "dice_rolled")
    assert of_kind(events, "wall_removed")[0]["cause"] == "swept"
    assert st.board[(3, 4)] == (t, 5) and not st.walls


def test_ERU_74_EX4_both_walled_one_fails():
    st = make_state(tiles=EX4_TILES, walls={((3, 4), 2): "wood", ((3, 4), 3): "straw"},
                    phase="placement")
    t = draw(st, "T3")
    st.rng = FixedDice([5, 2, 2, 3])
    events = GAME.apply(st, 0, PlaceTile(t, (3, 4), 5))
    rolls = of_kind(events, "dice_rolled")
    assert [(r["edge"], r["held"]) for r in rolls] == [(2, True), (3, False)]  # SE first
    assert st.board[(3, 4)] == (t, 5) and not st.walls
    assert st.removed_walls == [1, 1, 0]


def test_ERU_64_EX5_eruption_tile():
    st = make_state(seats=3, tiles=EX3_TILES, walls={((3, 4), 2): "wood"}, temps=[60, 10, 0],
                    eruptions=[(1, "held", 0)], phase="eruption")
    spaces = set(legality.eruption_spaces(st))
    assert (3, 4) in spaces and (4, 7) not in spaces
    # EX-5: none of the 12 spaces next to the volcano can ever take an eruption tile
    ring = {B.neighbour(v, e) for v in B.VOLCANO for e in range(6)} & B.PLAYABLE_SET
    assert len(ring) == 12 and not ring & spaces
    refused(st, 0, PlaceEruption(1, (4, 7)), "ERU-63")
    nxt = put_on_top(st, "T13")
    events = GAME.apply(st, 0, PlaceEruption(1, (3, 4)))
    assert of_kind(events, "wall_removed") == [
        {"x": 3, "y": 4, "edge": 2, "material": "wood", "cause": "eruption"}]
    assert not of_kind(events, "dice_rolled")
    ends = geometry.open_ends(st)
    for cell, e in [((3, 3), 3), ((4, 3), 4), ((3, 5), 0), ((2, 5), 1), ((2, 4), 2)]:
        assert ends[cell] >> e & 1
    assert st.temperatures == [60, 40, 30]
    assert st.eruption_status[0] == "board"
    assert st.drawn_tile == nxt and st.phase == "placement"  # then the regular lava tile


@pytest.mark.parametrize("flag,cards", [(True, 2), (False, 0)])
def test_ERU_76_EX5_eruption_on_empty_board_draws_for_flows(flag, cards):
    # EX-5's two cards need eruption_tile_draws_cards: by default an eruption tile draws none (ERU-64(3))
    st = make_state(options={"cards_for_unoccupied_villages": flag, "eruption_tile_draws_cards": True},
                    eruptions=[(1, "held", 0)], phase="eruption")
    assert (2, 4) in legality.eruption_spaces(st)
    before = len(st.hands[0])
    GAME.apply(st, 0, PlaceEruption(1, (2, 4)))
    assert len(st.hands[0]) - before == cards  # village 5 is unoccupied with 2 players


def _quake_state(tiles, hands=(["quake"], []), ttype="T9"):
    st = make_state(tiles=tiles, hands=list(hands))
    put_on_top(st, ttype)
    return st


def test_ERU_123_EX6_quake_targets_and_new_flow():
    st = _quake_state(EX6_TILES)
    GAME.apply(st, 0, PlayQuake())
    assert st.phase == "quake"
    t = st.quake_tile
    got = {(m.cell, m.rotation) for m in GAME.legal_moves(st, 0)}
    assert got == {((4, 2), 0), ((4, 2), 2), ((4, 2), 3), ((4, 3), 0), ((4, 3), 3), ((4, 4), 5)}
    old = st.board[(4, 2)][0]
    hand = len(st.hands[0])
    GAME.apply(st, 0, QuakeReplace(t, (4, 2), 0))
    assert len(st.hands[0]) == hand + 1  # (4,2):NE is new; (4,2):N was already lava
    assert old in st.removed_tiles and st.board[(4, 2)] == (t, 0)
    assert st.phase == "cards"


def test_ERU_124_EX6_quake_removing_flow_draws_nothing():
    st = _quake_state(EX6_TILES)
    GAME.apply(st, 0, PlayQuake())
    hand = len(st.hands[0])
    GAME.apply(st, 0, QuakeReplace(st.quake_tile, (4, 2), 2))
    assert len(st.hands[0]) == hand
    assert geometry.flows_into(st, 0) == []


def test_ERU_119_EX7_aftershock_turns():
    st = make_state(tiles=EX7_TILES, walls={((6, 2), 5): "straw"}, hands=[["aftershock"], []])
    assert set(legality.aftershock_turns(st)) == {((4, 2), 3), ((5, 2), 1)}
    hand = len(st.hands[0])
    events = GAME.apply(st, 0, PlayAftershock((5, 2), 1))
    assert of_kind(events, "wall_removed")[0]["cause"] == "aftershock"
    assert not st.walls and st.removed_walls == [1, 0, 0]
    assert len(st.hands[0]) == hand - 1 + 1  # new flow (5,2):N
    assert ((5, 2), 0) in geometry.flows_into(st, 0)


def test_ERU_119_EX7_aftershock_moves_flow_away():
    st = make_state(tiles=EX7_TILES, hands=[["aftershock"], []])
    GAME.apply(st, 0, PlayAftershock((4, 2), 3))
    assert ((4, 2), 1) not in geometry.flows_into(st, 0)
    assert geometry.open_ends(st)[(3, 3)] >> 1 & 1  # new open end (3,3):NE
    st2 = make_state(tiles=EX7_TILES, hands=[["aftershock"], []])
    refused(st2, 0, PlayAftershock((4, 3), 3), "ERU-119")
    refused(st2, 0, PlayAftershock((4, 4), 0), "ERU-119")


def test_ERU_121_EX8_sinkhole_and_sources():
    st = make_state(tiles=EX8_TILES, hands=[["sinkhole"], []])
    assert legality.sinkhole_targets(st) == [(4, 2)]
    refused(st, 0, PlaySinkhole((4, 3)), "ERU-121")
    refused(st, 0, PlaySinkhole((4, 4)), "ERU-121")
    # an eruption tile on (3,2) links (4,2) to a second source
    st = make_state(tiles=EX8_TILES, eruptions=[(1, "held", 0)], phase="eruption",
                    hands=[["sinkhole"], []], options={"cards_act_on_eruption_tiles": True})
    GAME.apply(st, 0, PlaceEruption(1, (3, 2)))
    st.phase = "cards"
    assert set(legality.sinkhole_targets(st)) == {(4, 2), (4, 3), (4, 4), (3, 2)}
    assert legality.sinkhole_targets(st) == legality.sinkhole_targets_slow(st)
    for cell in [(4, 3), (4, 4), (3, 2)]:
        s2 = st.clone()
        GAME.apply(s2, 0, PlaySinkhole(cell))
        assert cell not in s2.board
        assert geometry.all_linked(s2.lava, geometry.eruption_cells(s2))


def test_ERU_123_EX8_quake_replaces_eruption_tile():
    st = make_state(tiles=EX8_TILES + [("T7", (3, 2), 1)], hands=[["quake"], []],
                    options={"cards_act_on_eruption_tiles": True})  # ERU-66: not by default
    put_on_top(st, "T1")
    GAME.apply(st, 0, PlayQuake())
    assert QuakeReplace(st.quake_tile, (3, 2), 5) in GAME.legal_moves(st, 0)
    GAME.apply(st, 0, QuakeReplace(st.quake_tile, (3, 2), 5))
    assert st.eruption_status[0] == "removed"
    assert B.ERUPTION_IDS[0] in st.removed_tiles
    assert geometry.all_linked(st.lava, geometry.eruption_cells(st))


def test_ERU_90_EX9_legal_wall_positions():
    st = make_state(tiles=EX6_TILES, phase="walls")
    exits = {((3, 6), 2), ((4, 7), 0), ((6, 3), 4), ((6, 6), 0), ((7, 4), 4)}
    ends = {(s, e) for s, m in geometry.open_ends(st).items() for e in B.EDGES_OF_MASK[m]}
    assert ends == exits
    p0 = set(legality.wall_positions(st, 0))
    p1 = set(legality.wall_positions(st, 1))
    assert len(p0) == len(p1) == 12
    assert p0 == exits | set(B.ENTRIES[0]) and p1 == exits | set(B.ENTRIES[3])
    st.active = 1
    refused(st, 1, BuildWall("straw", (4, 2), 1), "ERU-90")  # village 0's entry
    refused(st, 1, BuildWall("straw", (7, 0), 0), "ERU-17")  # sea edge
    refused(st, 1, BuildWall("straw", (4, 3), 0), "ERU-90")  # between two tiles
    st.active = 0
    st.temperatures[0] = 50  # zone 1: two walls
    GAME.apply(st, 0, BuildWall("straw", (4, 2), 1))
    GAME.apply(st, 0, BuildWall("wood", (6, 3), 4))
    refused(st, 0, BuildWall("stone", (7, 4), 4), "ERU-92")
    st2 = make_state(tiles=EX6_TILES, phase="walls")
    GAME.apply(st2, 0, BuildWall("straw", (4, 2), 1))
    refused(st2, 0, BuildWall("wood", (6, 3), 4), "ERU-92")  # no zone: one wall


@pytest.mark.parametrize("setting,zone", [("seed", 2), ("board", 3)])
def test_ERU_140_EX10_threshold_flag(setting, zone):
    st = make_state(seats=3, options={"zone_thresholds": setting}, temps=[190, 0, 0],
                    eruptions=[(1, "board", 1), (2, "board", 1)])
    st.temperatures[0] = 200
    assert scoring.zone(st, 0) == zone
    resolution.award_eruptions(st, [0], [])
    assert (st.eruption_status[2] == "held") == (setting == "board")
    st.temperatures[0] = 210
    assert scoring.zone(st, 0) == 3
    # zone 2 draws a card at the start of the cards step; zone 3 also gets the extra placement
    st.temperatures[0] = 200
    st.phase = "placement"
    hand = len(st.hands[0])
    advance(flow.FLOW, st, [], flow.PLACED_STEP["regular"])
    assert st.phase == ("extra_placement" if zone == 3 else "cards")
    if zone == 2:
        assert len(st.hands[0]) == hand + 1


@pytest.mark.parametrize("per_turn", ["all", "one"])
def test_ERU_60_EX11_jump_claims_two(per_turn):
    tiles = [("T4", (4, 4), 3), ("T12", (4, 3), 0), ("T12", (4, 2), 0), ("T3", (3, 2), 4),
             ("T4", (5, 2), 1)]
    st = make_state(seats=3, options={"eruption_tiles_per_turn": per_turn}, tiles=tiles,
                    temps=[40, 0, 0])
    flows = geometry.flows_into(st, 0)
    assert len(flows) == 4
    events = []
    advance(flow.FLOW, st, events, "turn_start")
    assert st.temperatures[0] == 120
    assert [d["number"] for d in of_kind(events, "eruption_awarded")] == [1, 2]
    assert st.phase == "eruption"
    cell = legality.eruption_spaces(st)[-1]
    GAME.apply(st, 0, PlaceEruption(1, cell))
    assert st.temperatures[1:] == [30, 30]
    if per_turn == "all":
        assert st.phase == "eruption"
        GAME.apply(st, 0, PlaceEruption(2, legality.eruption_spaces(st)[-1]))
        assert st.temperatures[1:] == [60, 60]
    else:
        assert st.phase == "placement" and st.eruption_status[1] == "held"


def test_ERU_60_EX11_simultaneous_award_goes_first_in_turn_order():
    st = make_state(seats=3, temps=[0, 190, 200], eruptions=[(1, "board", 1), (2, "held", 0)],
                    phase="eruption")
    GAME.apply(st, 0, PlaceEruption(2, (2, 4)))
    assert st.temperatures == [0, 220, 230]
    assert st.eruption_status[2] == "held" and st.eruption_holder[2] == 1


def _finish_turn(st):
    """Play the active seat's turn to its end with the cheapest legal moves."""
    seat = st.active
    while st.active == seat and st.phase != "over":
        moves = GAME.legal_moves(st, seat)
        GAME.apply(st, seat, moves[0] if st.phase in ("placement", "eruption", "quake") else
                   next(m for m in moves if type(m).__name__ in ("EndCards", "EndTurn", "EndPlacement",
                                                                "DiscardSurplus")))


def test_ERU_152_EX12_exhaustion():
    st = make_state(seats=4, active=1, phase="walls")
    st.stack = []
    order = []
    GAME.apply(st, 1, EndTurn())
    assert st.end_trigger == "exhaustion" and st.turns_left == 4
    while st.phase != "over":
        order.append(st.active)
        _finish_turn(st)
    assert order == [2, 3, 0, 1]


def test_ERU_151_EX12_burnout():
    st = make_state(seats=4, active=2, phase="walls", temps=[0, 0, 290, 0])
    GAME.apply(st, 2, EndTurn())
    assert st.end_trigger == "burnout" and st.stack == [] and len(st.burnout_removed) > 0
    order = []
    while st.phase != "over":
        order.append(st.active)
        _finish_turn(st)
    assert order == [3, 0, 1]
    v = GAME.view(st, None)
    assert v["burnout_removed_count"] == len(st.burnout_removed)
    assert not set(st.burnout_removed) & set(v["removed_tiles"])  # ERU-33: not shown


def test_ERU_155_EX13_tiebreak():
    tiles = [("T9", (4, 2), 0), ("T4", (5, 2), 1), ("T2", (5, 8), 0)]
    walls = {((4, 2), 0): "wood", ((3, 2), 1): "straw", ((4, 9), 3): "stone"}
    st = make_state(tiles=tiles, walls=walls, temps=[140, 140])
    st.stockpiles = [[2, 0, 1], [1, 2, 0]]
    assert len(geometry.flows_into(st, 0)) == 3 and len(geometry.flows_into(st, 3)) == 1
    assert [scoring.tiebreak_value(st, 0), scoring.tiebreak_value(st, 1)] == [5, 7]
    out = GAME.outcome(st)
    assert out.winners == (1,) and out.ranks == (2, 1)
    assert out.scores == (150.0, 150.0)  # ERU-154: 290 - temperature
    st.stockpiles = [[1, 0, 1], [1, 0, 1]]  # ERU-156: still tied -> shared win
    st.walls = {}
    st.lava = {}
    st.board = {}
    assert GAME.outcome(st).winners == (0, 1)


def test_ERU_66_quake_aftershock_sinkhole_act_on_lava_tiles_only():
    # Seed 002's card table: 「替換圖板上任一岩漿板塊」, 「可將圖板上任一岩漿板塊旋轉方向」,
    # 「可移除圖板上任一岩漿板塊」
    # name lava tiles (岩漿板塊), which the text keeps apart from eruption tiles (爆發板塊).
    tiles = EX8_TILES + [("T7", (3, 2), 1)]
    st = make_state(tiles=tiles, hands=[["sinkhole", "aftershock", "quake"], []])
    moves = GAME.legal_moves(st, 0)
    assert PlaySinkhole((3, 2)) not in moves and (3, 2) not in legality.sinkhole_targets_slow(st)
    assert not [m for m in moves if isinstance(m, PlayAftershock) and m.cell == (3, 2)]
    refused(st, 0, PlaySinkhole((3, 2)), "ERU-66")
    refused(st, 0, PlayAftershock((3, 2), 2), "ERU-66")
    assert set(legality.sinkhole_targets(st)) == {(4, 2), (4, 3), (4, 4)}
    put_on_top(st, "T1")
    GAME.apply(st, 0, PlayQuake())
    assert all(m.cell != (3, 2) for m in GAME.legal_moves(st, 0))
    refused(st, 0, QuakeReplace(st.quake_tile, (3, 2), 5), "ERU-66")


def test_ERU_64_eruption_tile_draws_no_cards():
    # Seed 002 grants cards when a lava tile (岩漿板塊) flows into a village (「若將岩漿板塊銜接到村莊…就可以
    # 抽取一張功能卡」); its eruption-tile paragraph deals +30 to the others and names no draw.
    st = make_state(eruptions=[(1, "held", 0)], phase="eruption")
    before = len(st.hands[0])
    events = GAME.apply(st, 0, PlaceEruption(1, (2, 4)))  # EX-5: two flows into village 5
    assert len(st.hands[0]) == before and not of_kind(events, "cards_drawn")
    assert st.temperatures[1] == 30


def test_ERU_124_a_moved_flow_earns_no_card():
    # Seed 002: one flow before, two after the Quake or Aftershock → one card, 「因為只有新增一條」:
    # the card counts flows added, so a flow that only moves from one entry edge to another earns none.
    st = make_state(tiles=EX8_TILES, hands=[["aftershock"], []])
    assert geometry.flows_into(st, 0) == [((4, 2), 0)]
    GAME.apply(st, 0, PlayAftershock((4, 2), 4))  # the flow moves from (4,2):N to (4,2):NE
    assert geometry.flows_into(st, 0) == [((4, 2), 1)] and st.hands[0] == []
    st = make_state(tiles=EX8_TILES, hands=[["aftershock"], []], options={"new_flows_per_edge": True})
    GAME.apply(st, 0, PlayAftershock((4, 2), 4))
    assert len(st.hands[0]) == 1  # the earlier per-edge count, as an option
