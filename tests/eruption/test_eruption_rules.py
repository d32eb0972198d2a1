"""Rule-family tests: geometry, rotation and edge matching, turn flow, refusals."""
import pickle
import random

import pytest

from engines.core import IllegalMove, advance
from engines.eruption import GAME, derived, flow, generator, geometry, legality
from engines.eruption import board as B
from engines.eruption.moves import (
    BuildWall,
    DrawExtraTile,
    EndCards,
    EndPlacement,
    EndTurn,
    PlaceEruption,
    PlaceTile,
    PlayRain,
    QuakeReplace,
)

from .helpers import draw, make_state, of_kind, put_on_top, refused


def test_ERU_10_board_cells():
    assert len(B.PLAYABLE) == 60 and len(B.VOLCANO) == 7 and len(B.SEA) == 6
    assert sum(len(c) for c in B.VILLAGE_CELLS.values()) == 18
    cells = {(x, y) for x in range(11) for y in range(11) if 5 <= x + y <= 15}
    assert len(cells) == 91
    assert cells == set(B.PLAYABLE) | B.VOLCANO | B.SEA | set(B.VILLAGE_OF)
    assert len(B.SEA_EDGES) == 24


def test_ERU_14_volcano_exits():
    exits = {s for s, m in geometry.open_ends(make_state()).items() for _ in B.EDGES_OF_MASK[m]}
    assert exits == {(4, 4), (6, 3), (7, 4), (6, 6), (3, 6), (4, 7)}


def test_ERU_15_entry_positions_face_village_cells():
    for v, entries in B.ENTRIES.items():
        assert len(entries) == 7
        for s, e in entries:
            assert B.VILLAGE_OF[B.neighbour(s, e)] == v


def test_ERU_16_village_assignment():
    for n, villages in {2: (0, 3), 3: (0, 2, 4), 4: (1, 2, 4, 5), 5: (0, 1, 2, 4, 5)}.items():
        assert GAME.new_state(n, {}, 1).villages == villages


def test_ERU_2_tile_stack():
    st = GAME.new_state(2, {}, 0)
    assert len(st.stack) + 1 == 40 and st.drawn_tile >= 0
    counts = {}
    for t in B.LAVA_TILE_IDS:
        counts[B.TILE_TYPE_OF[t]] = counts.get(B.TILE_TYPE_OF[t], 0) + 1
    assert counts == {"T1": 1, "T2": 1, "T3": 2, "T4": 2, "T5": 3, "T6": 3, "T8": 4, "T9": 4,
                      "T10": 4, "T11": 4, "T12": 6, "T13": 6}


def test_ERU_12_rotation():
    # T9 {N,NE,S}: r turns clockwise by 60 r
    assert B.ROT_MASK["T9"][0] == 0b001011
    assert B.EDGES_OF_MASK[B.ROT_MASK["T9"][2]] == (2, 3, 5)   # SE, S, NW
    assert B.EDGES_OF_MASK[B.ROT_MASK["T4"][1]] == (0, 4)      # N, SW
    assert len(set(B.ROT_MASK["T5"])) == 2 and len(set(B.ROT_MASK["T10"])) == 3
    assert set(B.ROT_MASK["T7"]) == {63}
    for masks in B.ROT_MASK.values():
        for r in range(6):
            assert B.POPCOUNT[masks[r]] == B.POPCOUNT[masks[0]]
            assert B.rotate(masks[r], (6 - r) % 6) == masks[0]


def test_ERU_72_edge_matching_every_placement():
    """Every listed placement matches all constrained edges and links; the rest do not."""
    rng = random.Random(3)
    for seed in range(15):
        st = GAME.new_state(3, {}, seed)
        for _ in range(200):
            if GAME.is_over(st):
                break
            if st.phase == "placement":
                legal = set(legality.tile_placements(st, st.drawn_tile, st.excluded))
                for s in B.PLAYABLE:
                    for r in range(6):
                        ok = s not in st.board and s not in st.excluded
                        if ok:
                            li, co = geometry.constraints(st, s)
                            m = B.MASK_OF_TILE[st.drawn_tile][r]
                            for e in range(6):
                                n = B.neighbour(s, e)
                                if n in st.lava:
                                    ok &= (m >> e & 1) == (st.lava[n] >> B.OPP[e] & 1)
                                elif n in B.VOLCANO:
                                    ok &= (m >> e & 1) == (li >> e & 1)
                            ok &= bool(m & li)
                        assert ok == ((s, r) in legal), (s, r)
            seat = st.active
            GAME.apply(st, seat, rng.choice(GAME.legal_moves(st, seat)))


def test_ERU_72_mismatch_refused_unchanged():
    st = make_state(tiles=[("T2", (4, 4), 2)], phase="placement")
    t = draw(st, "T4")
    refused(st, 0, PlaceTile(t, (3, 4), 0), "ERU-72")   # {S,NW}: SE grass against lava
    refused(st, 0, PlaceTile(t, (4, 4), 3), "ERU-72")   # occupied
    refused(st, 0, PlaceTile(t, (5, 5), 0), "ERU-72")   # volcano
    refused(st, 0, PlaceTile(t, (2, 3), 0), "ERU-72")   # no link
    refused(st, 0, PlaceTile(t, (3, 4), 7), "ERU-12")
    refused(st, 0, PlaceTile(t + 1, (3, 4), 5), "ERU-73")  # not the drawn tile
    refused(st, 1, PlaceTile(t, (3, 4), 5), "ERU-40")  # not your turn
    refused(st, 0, EndCards(), "ERU-112")              # wrong step
    refused(st, 0, BuildWall("straw", (3, 4), 2), "ERU-44")


def test_ERU_91_wall_on_taken_spot_refused():
    st = make_state(walls={((6, 3), 4): "wood"}, phase="walls")
    refused(st, 0, BuildWall("straw", (6, 3), 4), "ERU-91")
    refused(st, 0, BuildWall("marble", (7, 4), 4), "ERU-4")
    st.stockpiles[0] = [0, 1, 1]
    refused(st, 0, BuildWall("straw", (7, 4), 4), "ERU-92")
    refused(st, 0, BuildWall("wood", (5, 3), 0), "ERU-90")  # not an open end


def test_ERU_50_walls_without_flow_not_rolled_and_ERU_53_timing():
    st = make_state(walls={((4, 2), 0): "wood"}, temps=[0, 0])
    events = []
    advance(flow.FLOW, st, events, "turn_start")
    assert not of_kind(events, "dice_rolled") and st.temperatures[0] == 0


def test_ERU_51_other_villages_not_damaged():
    st = make_state(seats=2, tiles=[("T9", (4, 2), 0), ("T2", (5, 8), 0)], temps=[0, 0], active=1)
    advance(flow.FLOW, st, [], "turn_start")
    assert st.temperatures == [0, 20]


def test_ERU_61_own_damage_step_timing():
    st2 = make_state(seats=3, options={"eruption_award_timing": "own_damage_step"},
                     temps=[0, 40, 0], eruptions=[(2, "held", 0)], phase="eruption")
    GAME.apply(st2, 0, PlaceEruption(2, (2, 4)))
    assert st2.eruption_status[0] == "unclaimed"  # B at 70 but not in B's damage step
    st2.active = 1
    advance(flow.FLOW, st2, [], "turn_start")
    assert st2.eruption_status[0] == "held" and st2.eruption_holder[0] == 1
    assert st2.phase == "eruption"  # placed in the same turn (ERU-62)


def test_ERU_65_eruption_tile_lost():
    st = make_state(eruptions=[(1, "held", 0)], phase="walls", active=1)
    # No legal space: set in the board's cached facts, which the flow reads (compiled code calls
    # legality.eruption_spaces directly, so patching the name in flow would not reach it).
    derived.of(st).eruption_spaces = []
    assert legality.eruption_spaces(st) == []
    events = GAME.apply(st, 1, EndTurn())
    assert of_kind(events, "eruption_tile_lost") == [{"seat": 0, "number": 1}]
    assert st.eruption_status[0] == "removed" and st.temperatures == [0, 0]
    assert st.phase == "placement"


def test_ERU_62_held_tile_placed_even_with_empty_stack():
    st = make_state(eruptions=[(1, "held", 0)], phase="walls", active=1)
    st.stack = []
    st.end_trigger, st.turns_left, st.trigger_seat = "exhaustion", 2, 1
    GAME.apply(st, 1, EndTurn())
    assert st.phase == "eruption"
    GAME.apply(st, 0, PlaceEruption(1, (2, 4)))
    assert st.phase == "cards"  # no placement possible with an empty stack


def test_ERU_42_zone_three_extra_placement():
    st = make_state(temps=[210, 0], phase="placement")
    draw(st, "T13")
    GAME.apply(st, 0, GAME.legal_moves(st, 0)[0])
    assert st.phase == "extra_placement"
    assert set(GAME.legal_moves(st, 0)) == {DrawExtraTile(), EndPlacement()}
    s2 = st.clone()
    GAME.apply(s2, 0, EndPlacement())
    assert s2.phase == "cards"
    GAME.apply(st, 0, DrawExtraTile())
    assert st.phase == "placement" and st.placement_origin == "extra"
    GAME.apply(st, 0, GAME.legal_moves(st, 0)[0])
    assert st.phase == "cards" and len(st.board) == 2


def test_ERU_92_zone_wall_allowance():
    st = make_state(temps=[50, 0], phase="walls")
    GAME.apply(st, 0, BuildWall("straw", (6, 3), 4))
    GAME.apply(st, 0, BuildWall("wood", (7, 4), 4))
    refused(st, 0, BuildWall("stone", (6, 6), 0), "ERU-92")
    assert GAME.legal_moves(st, 0) == [EndTurn()]


def test_ERU_123_quake_refusals():
    st = make_state(tiles=[("T2", (4, 4), 2)], hands=[["quake"], []])
    put_on_top(st, "T1")
    GAME.apply(st, 0, generator.legal_moves(st, 0)[-1])  # PlayQuake is last for a quake-only hand
    assert st.phase == "quake"
    refused(st, 0, QuakeReplace(st.quake_tile, (3, 4), 0), "ERU-123")  # empty space
    refused(st, 0, QuakeReplace(st.quake_tile + 1, (4, 4), 5), "ERU-123")
    refused(st, 0, QuakeReplace(st.quake_tile, (4, 4), 0), "ERU-123")  # S lava vs grass


def test_ERU_30_replay_is_exact():
    for n in (2, 6):
        st = GAME.new_state(n, {}, 7)
        rng = random.Random(1)
        log = []
        while not GAME.is_over(st):
            seat = st.active
            m = rng.choice(GAME.legal_moves(st, seat))
            GAME.apply(st, seat, m)
            log.append((seat, m))
        again = GAME.new_state(n, {}, 7)
        for seat, m in log:
            GAME.apply(again, seat, m)
        assert pickle.dumps(again) == pickle.dumps(st)


def test_ERU_40_moves_after_game_over_refused():
    st = make_state(phase="over")
    with pytest.raises(IllegalMove) as e:
        GAME.apply(st, 0, PlayRain())
    assert e.value.rule == "ERU-150"
    assert GAME.seats_to_act(st) == [] and GAME.to_move(st) is None


def test_ERU_21_sinkhole_and_quake_keep_every_tile_linked():
    """Every legal Sinkhole and Quake replacement, in many random positions, keeps ERU-21."""
    from engines.eruption.moves import PlaySinkhole
    rng = random.Random(11)
    tried = {"sinkhole": 0, "quake": 0}
    for seed in range(20):
        st = GAME.new_state(2 + seed % 5, {}, seed)
        while not GAME.is_over(st):
            seat = st.active
            if st.phase == "cards" and st.board and rng.random() < 0.25:
                probe = st.clone()
                probe.hands[seat] = probe.hands[seat] + ["sinkhole"]
                for m in GAME.legal_moves(probe, seat):
                    if type(m) is PlaySinkhole:
                        s2 = probe.clone()
                        GAME.apply(s2, seat, m)
                        assert geometry.all_linked(s2.lava, geometry.eruption_cells(s2))
                        tried["sinkhole"] += 1
                for t in probe.stack[:2]:
                    for c, r in legality.quake_replacements(probe, t):
                        s2 = probe.clone()
                        s2.stack.remove(t)
                        s2.quake_tile, s2.phase = t, "quake"
                        GAME.apply(s2, seat, QuakeReplace(t, c, r))
                        assert geometry.all_linked(s2.lava, geometry.eruption_cells(s2))
                        tried["quake"] += 1
            GAME.apply(st, seat, rng.choice(GAME.legal_moves(st, seat)))
    assert tried["sinkhole"] > 100 and tried["quake"] > 100


def test_ERU_40_a_move_of_no_eruption_kind_is_refused_in_every_step():
    """check_seat refuses a kind the game does not know, whatever the step (it was ERU-112,
    "using cards", outside the cards step), and changes nothing."""
    from typing import NamedTuple

    class Shuffle(NamedTuple):
        deck: str

    for phase in ("placement", "cards", "walls"):
        st = make_state(phase=phase)
        refused(st, st.active, Shuffle("x" * 10_000), "ERU-40")
        with pytest.raises(IllegalMove) as e:
            GAME.apply(st, st.active, Shuffle("x" * 10_000))
        assert len(e.value.message) <= 200  # caller-supplied text is never echoed whole


def test_ERU_1_a_long_unknown_option_is_not_echoed_whole():
    from engines.core import InvalidOptions

    with pytest.raises(InvalidOptions) as e:
        GAME.new_state(2, {"y" * 10_000: True}, 1)
    assert e.value.rule == "ERU-1" and len(e.value.message) <= 200
