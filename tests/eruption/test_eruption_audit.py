"""Audit of the Eruption engine against the user's rule text (seeds/002, the Chinese BGA help page).

Each test names the RULES.md id it checks and quotes the seed sentence it rests on. They cover rules the
other test files reach only indirectly or not at all. Tests marked xfail(strict=True) show where the
engine departs from the seed; they pass once the engine follows the seed.
"""
import pytest

from engines.core import advance
from engines.eruption import GAME, flow, geometry, legality, resolution, scoring
from engines.eruption import board as B
from engines.eruption.moves import (
    BuildWall,
    EndCards,
    EndTurn,
    PlaceEruption,
    PlaceTile,
    PlayLavaFlow,
    PlayRain,
    PlayRelocate,
    QuakeReplace,
)

from .helpers import FixedDice, draw, make_state, of_kind, put_on_top, refused

# A chain from the volcano exit (5,4):NW to the north-west rim: its last tile leaves an open end at (2,3):SE.
RIM_CHAIN = [("T2", (4, 4), 2), ("T4", (3, 4), 3), ("T4", (3, 3), 0)]
# A chain from the exit (4,6):S to (5,7), whose S edge is an open end at (5,8):N next to village 3.
SOUTH_CHAIN = [("T4", (4, 7), 3), ("T4", (5, 7), 0)]


def _finish_turn(st):
    """Play the active seat's turn to its end with the cheapest legal moves."""
    seat = st.active
    while st.active == seat and st.phase != "over":
        moves = GAME.legal_moves(st, seat)
        if st.phase in ("placement", "eruption", "quake"):
            GAME.apply(st, seat, moves[0])
        else:
            GAME.apply(st, seat, next(m for m in moves if type(m).__name__ in (
                "EndCards", "EndTurn", "EndPlacement", "DiscardSurplus")))


# ---------------------------------------------------------------- setup


@pytest.mark.parametrize("seats", range(2, 7))
def test_ERU_31_setup_three_cards_one_wall_of_each_material_at_start(seats):
    # 「每位玩家抽取3張功能卡」「每位玩家拿取三種材質(稻草、木頭、石頭)的牆壁各1個」「將玩家棋子放在溫度條的START處」
    st = GAME.new_state(seats, {}, 5)
    assert [len(h) for h in st.hands] == [3] * seats
    assert st.stockpiles == [[1, 1, 1]] * seats
    assert st.temperatures == [0] * seats
    assert st.supply == [18 - seats, 15 - seats, 15 - seats]
    assert sum(map(len, st.hands)) + len(st.draw_pile) + len(st.discard) == 36
    assert len(st.stack) + (st.drawn_tile >= 0) + len(st.board) == 40
    assert st.eruption_status == ["unclaimed"] * 3  # 「爆發板塊面朝下放在圖板旁」
    assert len(set(st.villages)) == seats == len(B.VILLAGES_BY_COUNT[seats])


# ---------------------------------------------------------------- temperature and zones


@pytest.mark.parametrize("temp,zone,walls", [(0, 0, 1), (40, 0, 1), (50, 1, 2), (110, 1, 2), (120, 2, 2),
                                             (200, 2, 2), (210, 3, 2), (290, 3, 2)])
def test_ERU_140_seed_zone_ranges_and_wall_allowance(temp, zone, walls):
    # 「一級燃燒區(50度~110度)」「二級燃燒區(120度~200度)」「三級燃燒區(210度~290度)」;
    # in any zone 「每回合可以多蓋一道牆」
    st = make_state(temps=[temp, 0], phase="walls")
    assert scoring.zone(st, 0) == zone
    assert scoring.wall_allowance(st, 0) == walls


@pytest.mark.parametrize("temp,cards,extra", [(50, 0, False), (110, 0, False), (120, 1, False),
                                              (200, 1, False), (210, 1, True)])
def test_ERU_141_zone_bonuses_do_not_stack(temp, cards, extra):
    # zone 1: only a wall; zone 2: 「抽取一張功能卡、且可以多蓋一道牆」;
    # zone 3: 「多抽一張岩漿板塊、抽取一張功能卡、且可以多蓋一道牆」
    # (「以下bonus每个区域互不叠加」: one card and one extra wall at most, never two)
    st = make_state(temps=[temp, 0], hands=[[], []], phase="placement")
    advance(flow.FLOW, st, [], flow.PLACED_STEP["regular"])
    assert st.phase == ("extra_placement" if extra else "cards")
    if extra:
        GAME.apply(st, 0, GAME.legal_moves(st, 0)[-1])  # EndPlacement: the extra tile is optional
        assert st.phase == "cards"
    assert len(st.hands[0]) == cards
    GAME.apply(st, 0, EndCards())
    assert scoring.wall_allowance(st, 0) == 2


@pytest.mark.parametrize("temp,flows,after", [(280, 1, 290), (270, 2, 290)])
def test_ERU_7_damage_stops_at_290(temp, flows, after):
    # 「村莊溫度停在290度(最高溫)」
    tiles = [("T9", (4, 2), 0)] if flows == 2 else [("T2", (4, 2), 0)]
    st = make_state(tiles=tiles, temps=[temp, 0], eruptions=[(k, "board", 1) for k in (1, 2, 3)])
    assert len(geometry.flows_into(st, 0)) == flows
    advance(flow.FLOW, st, [], "turn_start")
    assert st.temperatures[0] == after


def test_ERU_7_eruption_heat_stops_at_290():
    st = make_state(seats=3, temps=[0, 270, 290], eruptions=[(1, "held", 0), (2, "board", 1), (3, "board", 1)],
                    phase="eruption")
    GAME.apply(st, 0, PlaceEruption(1, (2, 4)))
    assert st.temperatures == [0, 290, 290]


# ---------------------------------------------------------------- damage and dice


@pytest.mark.parametrize("material,bonus,holds", [("straw", 0, 21), ("wood", 1, 26), ("stone", 2, 30)])
def test_ERU_95_every_roll_of_each_wall(material, bonus, holds):
    # 「稻草牆：白骰點數≧橘骰點數」「木頭牆：(白骰點數+1)≧橘骰點數」「石頭牆：(白色點數+2)≧橘骰點數」 -> the wall holds
    st = make_state()
    held = 0
    for white in range(1, 7):
        for orange in range(1, 7):
            st.rng = FixedDice([white, orange])
            events = []
            ok = resolution.dice_check(st, ((4, 2), 0), material, "damage", events)
            assert ok == (white + bonus >= orange), (white, orange)
            assert of_kind(events, "dice_rolled")[0]["white"] == white  # white is the wall's die
            held += ok
    assert held == holds


@pytest.mark.parametrize("rolls,temp,wall_left", [([1, 3], 0, True), ([1, 4], 10, False)])
def test_ERU_50_stone_wall_on_a_flow(rolls, temp, wall_left):
    # 「若岩漿流有被牆壁阻擋，則擲骰判斷」「牆壁若阻擋失敗，則該牆損毀(不能回到玩家手中)，村莊溫度上升10度。」
    st = make_state(tiles=[("T2", (4, 2), 0)], walls={((4, 2), 0): "stone"}, temps=[0, 0])
    st.rng = FixedDice(rolls)
    advance(flow.FLOW, st, [], "turn_start")
    assert st.temperatures[0] == temp
    assert (((4, 2), 0) in st.walls) == wall_left
    assert st.stockpiles[0] == [1, 1, 1]  # a failed wall does not go back to anyone
    assert st.removed_walls == [0, 0, 0 if wall_left else 1]


# ---------------------------------------------------------------- eruption tiles


def test_ERU_60_each_zone_awards_its_own_tile_to_the_first_only():
    # 「第一位到達此區域者可以獲得爆發板塊1 / 2 / 3」
    st = make_state(seats=3, temps=[0, 0, 0])
    for temp, k in [(50, 0), (120, 1), (210, 2)]:
        st.temperatures[1] = temp
        resolution.award_eruptions(st, [1], [])
        assert st.eruption_status[k] == "held" and st.eruption_holder[k] == 1
    # a later arrival in a zone whose tile is taken gets nothing
    st.temperatures[2] = 290
    events = []
    resolution.award_eruptions(st, [2], events)
    assert not of_kind(events, "eruption_awarded") and st.eruption_holder == [1, 1, 1]


def test_ERU_62_eruption_tile_comes_before_the_lava_tile():
    # 「玩家到達新的燃燒區域取得的爆發板塊需要優先放置(在抽岩漿板塊之前)。」
    st = make_state(tiles=[("T2", (4, 2), 0), ("T2", (5, 2), 0)], temps=[20, 0])
    stack = list(st.stack)
    advance(flow.FLOW, st, [], "turn_start")  # two unwalled flows: 20 + 40 = 60, zone 1
    assert st.temperatures[0] == 60 and st.eruption_holder[0] == 0
    assert st.phase == "eruption" and st.stack == stack and st.drawn_tile == -1
    assert all(type(m) is PlaceEruption for m in GAME.legal_moves(st, 0))


def test_ERU_63_eruption_tile_anywhere_but_must_match_lava():
    # 「爆發板塊可以放在圖板中任何一處，不一定要連接既有的板塊。如果想連接在既有的板塊上，就需要對應到岩漿流。」
    st = make_state(tiles=[("T2", (4, 4), 2)], eruptions=[(1, "held", 0)], phase="eruption")
    spaces = set(legality.eruption_spaces(st))
    assert {(2, 4), (2, 6), (3, 4)} <= spaces  # unconnected spaces, and the open end (3,4)
    refused(st, 0, PlaceEruption(1, (4, 3)), "ERU-63")  # (4,4)'s N edge is grass
    refused(st, 0, PlaceEruption(1, (4, 4)), "ERU-63")  # not empty


def test_ERU_64_eruption_sweeps_walls_on_its_lava_only():
    # 「若對應的岩漿流上有牆壁阻擋，可不需透過檢定直接擺放，且該牆損毀」; an entry wall blocks no lava toward the tile
    st = make_state(seats=4, active=3, tiles=[("T2", (4, 4), 2), ("T2", (3, 4), 2)],
                    walls={((2, 4), 2): "straw", ((2, 4), 5): "stone"}, eruptions=[(1, "held", 3)],
                    phase="eruption")
    assert st.villages[3] == 5 and ((2, 4), 5) in B.ENTRIES[5]
    events = GAME.apply(st, 3, PlaceEruption(1, (2, 4)))
    assert not of_kind(events, "dice_rolled")
    assert st.walls == {((2, 4), 5): "stone"} and st.removed_walls == [1, 0, 0]


def test_ERU_64_eruption_heat_thirty_to_every_other_player():
    # 「在擺放完爆發板塊後，其餘玩家的村莊溫度上升30度。」
    st = make_state(seats=6, active=2, eruptions=[(1, "held", 2)], phase="eruption")
    GAME.apply(st, 2, PlaceEruption(1, (2, 6)))
    assert st.temperatures == [30, 30, 0, 30, 30, 30]


def test_ERU_64_eruption_tile_on_a_symbol_space_gains_that_wall():
    # 「若将板块放在有特殊符号(稻草、木头、石头)的格子上，可以取得该材质的墙壁一枚。」 (板块: any tile)
    st = make_state(eruptions=[(1, "held", 0)], phase="eruption")
    GAME.apply(st, 0, PlaceEruption(1, (3, 3)))
    assert B.AWARD[(3, 3)] == "wood" and st.stockpiles[0] == [1, 2, 1]


# ---------------------------------------------------------------- lava tiles


def test_ERU_42_the_lava_tile_must_be_placed():
    # 「每位玩家在每回合都需要执行四个动作」... 「动作二、抽岩浆板块，摆放板块」
    st = make_state(phase="placement")
    draw(st, "T13")
    moves = GAME.legal_moves(st, 0)
    assert moves and all(type(m) is PlaceTile for m in moves)
    refused(st, 0, EndCards(), "ERU-112")
    refused(st, 0, EndTurn(), "ERU-44")


def test_ERU_72_lava_may_run_into_the_sea():
    # 「在圖板的最邊邊(溫度條的地方)是海，岩漿流也可以選擇流入海中。」
    st = make_state(tiles=RIM_CHAIN, phase="placement")
    t = draw(st, "T4")
    assert ((2, 3), 0) in B.SEA_EDGES
    assert ((2, 3), 3) in legality.tile_placements(st, t)  # r3 {N, SE}: N runs into the sea
    GAME.apply(st, 0, PlaceTile(t, (2, 3), 3))
    assert st.board[(2, 3)] == (t, 3)
    st2 = make_state(tiles=RIM_CHAIN + [("T4", (2, 3), 3)], phase="walls")
    refused(st2, 0, BuildWall("straw", (2, 3), 0), "ERU-17")


def test_ERU_76_flow_into_an_opponents_village_draws_a_card():
    # 「每流進一條就可以抽取一張。」「＊不論是不是對手的村莊，只要讓岩漿流流進村莊都可以抽卡。」
    st = make_state(tiles=SOUTH_CHAIN, hands=[[], []], phase="placement")
    t = draw(st, "T2")
    GAME.apply(st, 0, PlaceTile(t, (5, 8), 0))
    assert geometry.flows_into(st, 3) == [((5, 8), 3)] and st.villages[1] == 3
    assert len(st.hands[0]) == 1 and st.hands[1] == []


def test_ERU_76_a_walled_flow_still_draws():
    # a flow blocked by a wall still flows into the village (the damage step rolls for it), so it draws
    st = make_state(tiles=SOUTH_CHAIN, hands=[[], []], walls={((5, 8), 3): "stone"}, phase="placement")
    t = draw(st, "T2")
    GAME.apply(st, 0, PlaceTile(t, (5, 8), 0))
    assert len(st.hands[0]) == 1 and st.walls == {((5, 8), 3): "stone"}


def test_ERU_74_walled_connection_roll_uses_the_same_check_as_damage():
    # 「若想要连接的板块上的岩浆流有墙壁阻挡，则要进行骰子检定(检定同动作一)。」:
    # a stone wall holds on white 1, orange 3
    st = make_state(tiles=[("T2", (4, 4), 2)], walls={((3, 4), 2): "stone"}, phase="placement")
    t = draw(st, "T4")
    st.rng = FixedDice([1, 3])
    events = GAME.apply(st, 0, PlaceTile(t, (3, 4), 5))
    assert of_kind(events, "dice_rolled")[0]["held"] and (3, 4) not in st.board
    assert st.temperatures == [0, 0]  # a placement roll heats nobody
    st.rng = FixedDice([1, 4])
    GAME.apply(st, 0, PlaceTile(t, (6, 3), 1))  # another space: no wall there
    assert (6, 3) in st.board


# ---------------------------------------------------------------- walls


def test_ERU_90_wall_at_own_village_before_lava_arrives():
    # 「若是蓋在村莊周圍，則不一定要等到岩漿流流到了才蓋，可先蓋好來防患未然」
    st = make_state(phase="walls")
    assert not st.board
    GAME.apply(st, 0, BuildWall("stone", (4, 2), 0))
    assert st.walls == {((4, 2), 0): "stone"} and st.stockpiles[0] == [1, 1, 0]


def test_ERU_90_no_wall_in_the_middle_of_nowhere():
    # 「蓋牆壁的位置可以是村莊周圍或是圖板中任何一條岩漿流的尾端」: nowhere else
    st = make_state(phase="walls")
    refused(st, 0, BuildWall("straw", (2, 6), 0), "ERU-90")
    refused(st, 0, BuildWall("straw", (5, 3), 3), "ERU-90")  # faces the volcano's grass, no lava end


def test_ERU_91_each_lava_end_of_a_tile_takes_its_own_wall():
    # 「同一處只能蓋一道牆，不能疊加。」「同一塊岩漿板塊若有兩條以上的岩漿流，每一條岩漿流可蓋一道牆。」
    st = make_state(tiles=[("T4", (4, 4), 3), ("T9", (4, 3), 0)], temps=[50, 0], phase="walls")
    GAME.apply(st, 0, BuildWall("straw", (4, 2), 3))
    GAME.apply(st, 0, BuildWall("wood", (5, 2), 4))
    assert st.walls == {((4, 2), 3): "straw", ((5, 2), 4): "wood"}
    st.walls_built = 0
    refused(st, 0, BuildWall("stone", (4, 2), 3), "ERU-91")


def test_ERU_92_one_wall_outside_a_zone():
    # 「玩家在每回合只能蓋1道牆(除非位於燃燒區域或使用功能卡)。」
    st = make_state(temps=[40, 0], phase="walls")
    GAME.apply(st, 0, BuildWall("straw", (6, 3), 4))
    refused(st, 0, BuildWall("wood", (7, 4), 4), "ERU-92")


def test_ERU_118_relocate_many_moves_in_own_village():
    # 「玩家可在回合內重新分配自己村莊內的牆壁位置(無次數限制)。」
    walls = {((4, 2), 0): "wood", ((3, 2), 1): "straw", ((5, 2), 0): "stone"}
    st = make_state(walls=walls, hands=[["relocate"], []])
    steps = (((4, 2), 0, (4, 2), 1), ((3, 2), 1, (6, 1), 0), ((5, 2), 0, (7, 0), 5), ((4, 2), 1, (3, 2), 1))
    GAME.apply(st, 0, PlayRelocate(steps))
    assert st.walls == {((3, 2), 1): "wood", ((6, 1), 0): "straw", ((7, 0), 5): "stone"}


# ---------------------------------------------------------------- cards


def test_ERU_120_rain_cools_only_the_player():
    # 「下雨 可使自己的村莊溫度下降30度。」
    st = make_state(seats=3, temps=[100, 100, 100], hands=[["rain"], [], []])
    GAME.apply(st, 0, PlayRain())
    assert st.temperatures == [70, 100, 100]


def test_ERU_123_quake_on_a_symbol_space_gains_no_wall():
    # Reading taken (ERU-123): a Quake replaces a tile, it is no placement, so no wall award.
    st = make_state(tiles=[("T4", (4, 4), 3), ("T3", (4, 3), 5), ("T4", (5, 3), 2)], hands=[["quake"], []])
    put_on_top(st, "T8")
    GAME.apply(st, 0, GAME.legal_moves(st, 0)[-1])
    assert st.phase == "quake"
    move = next(m for m in GAME.legal_moves(st, 0) if m.cell == (5, 3))
    assert isinstance(move, QuakeReplace)
    GAME.apply(st, 0, move)
    assert st.stockpiles[0] == [1, 1, 1]


# ---------------------------------------------------------------- end of the game


def test_ERU_151_rain_below_290_before_turn_end_is_no_burnout():
    # 「有某位玩家在其回合結束時，村莊溫度停在290度(最高溫)。」: judged at the end of the player's own turn
    st = make_state(seats=3, active=1, temps=[0, 290, 0], hands=[[], ["rain"], []])
    s2 = st.clone()
    GAME.apply(st, 1, PlayRain())
    GAME.apply(st, 1, EndCards())
    GAME.apply(st, 1, EndTurn())
    assert st.end_trigger == "" and st.stack
    GAME.apply(s2, 1, EndCards())
    GAME.apply(s2, 1, EndTurn())
    assert s2.end_trigger == "burnout" and s2.stack == [] and s2.turns_left == 2


def test_ERU_152_last_tile_drawn_by_a_card_the_drawer_plays_again():
    # 「圖板中央的板塊被抽完，則所有玩家進入最後一回合(包括抽最後一張板塊的玩家)。」
    st = make_state(seats=3, active=1, hands=[[], ["lava_flow"], []])
    last = put_on_top(st, "T13")
    st.stack = [last]
    GAME.apply(st, 1, PlayLavaFlow())
    GAME.apply(st, 1, GAME.legal_moves(st, 1)[0])
    assert st.stack == [] and st.end_trigger == ""  # judged at the end of the turn
    GAME.apply(st, 1, EndCards())
    GAME.apply(st, 1, EndTurn())
    assert st.end_trigger == "exhaustion"
    order = []
    while st.phase != "over":
        order.append(st.active)
        _finish_turn(st)
    assert order == [2, 0, 1]


def test_ERU_153_final_round_turns_take_damage():
    # 「其餘玩家進入最後一回合」: a final turn is a whole turn, starting with 动作一
    st = make_state(seats=2, active=0, tiles=[("T2", (5, 8), 0)], temps=[0, 100], phase="walls")
    st.stack = []
    GAME.apply(st, 0, EndTurn())
    assert st.end_trigger == "exhaustion" and st.active == 1
    assert st.temperatures == [0, 120]


def test_ERU_150_burnout_and_exhaustion_together_is_a_burnout():
    # Ambiguity: the seed has no rule for both events at once; the engine takes the burnout (others play once).
    st = make_state(seats=3, active=0, temps=[290, 0, 0], phase="walls")
    st.stack = []
    GAME.apply(st, 0, EndTurn())
    assert st.end_trigger == "burnout" and st.turns_left == 2


def test_ERU_154_lowest_temperature_wins():
    # 「村莊溫度最低者獲勝。」
    st = make_state(seats=4, temps=[120, 40, 290, 50])
    out = GAME.outcome(st)
    assert out.winners == (1,) and out.ranks == (3, 1, 4, 2)


@pytest.mark.parametrize("tiebreak, winners", [("walls", (1,)), ("none", (0, 1))])
def test_ERU_155_ERU_156_tied_coolest_by_the_walls_or_sharing_the_win(tiebreak, winners):
    # Seed 002 names no tie-break (「村莊溫度最低者獲勝」): option tiebreak "none" reads it literally.
    st = make_state(temps=[140, 140], options={"tiebreak": tiebreak})
    st.stockpiles = [[3, 0, 0], [0, 0, 2]]  # ERU-155 values 3 and 6
    out = GAME.outcome(st)
    assert out.winners == winners and out.ranks == ((2, 1) if tiebreak == "walls" else (1, 1))


def test_ERU_155_the_default_breaks_ties_by_the_walls():
    st = make_state(temps=[140, 140])
    st.stockpiles = [[3, 0, 0], [0, 0, 2]]
    assert GAME.outcome(st).winners == (1,)
