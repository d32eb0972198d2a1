"""Maps (SW-10), setup (SW-20 - SW-26), options (section 18) and turn order."""
from __future__ import annotations

import pytest

from engines.core import InvalidOptions
from engines.smallworld import GAME
from engines.smallworld import data as D
from engines.smallworld.setup import new_state

MAPS = [("2p", 23, 51, 10, (0, 22), 7), ("3p", 30, 71, 10, (0, 24), 14), ("4p", 39, 95, 9, (0, 38), 16),
        ("5p", 48, 119, 8, (0, 43), 20)]


@pytest.mark.parametrize("key,regions,borders,rounds,seas,lake", MAPS)
def test_SW_10_maps(key, regions, borders, rounds, seas, lake):
    b = D.board(key)
    assert (b.n, b.borders, b.rounds, tuple(sorted(b.seas)), b.lake) == (regions, borders, rounds, seas, lake)
    for r in range(b.n):
        assert r not in b.adj[r]
        assert all(r in b.adj[m] for m in b.adj[r])  # SW-2 symmetric
    entry = {r for r in b.land if b.edge[r] or b.adj[r] & b.seas}
    assert entry == set(b.entry)  # SW-61
    assert set(b.lake_adjacent) == {r for r in b.land if b.lake in b.adj[r]}
    assert set(b.coastal) == {r for r in b.land if b.adj[r] & (b.seas | {b.lake})}
    assert all(b.mountain[r] == (b.terrain[r] == "mountain") for r in range(b.n))


def test_ED_3_ED_4_5p_variants():
    assert D.board("5p", True, "hill").borders == 120
    assert D.board("5p", False, "farmland").terrain[28] == "farmland"
    assert D.board("5p").terrain[28] == "hill" and 19 not in D.board("5p").adj[13]
    st = GAME.new_state(5, {"map5p_border_13_19": True, "map5p_region28_terrain": "farmland"}, 1)
    assert st.board.borders == 120 and st.board.terrain[28] == "farmland"


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_SW_20_to_25_setup(seats):
    st = GAME.new_state(seats, {}, 3)
    b = st.board
    assert b.key == f"{seats}p" and st.rounds == b.rounds and st.round == 1
    assert len(st.combo_row) == 6 and all(c[2] == 0 for c in st.combo_row)  # SW-22
    assert len(st.race_deck) == 8 and len(st.power_deck) == 14
    assert [r for r in range(b.n) if st.occupant[r] == D.LOST_TRIBE] == [r for r in range(b.n) if b.lost_tribe[r]]
    assert st.coins == [5] * seats  # SW-25
    assert st.turn_order == [(st.first_player + i) % seats for i in range(seats)]
    assert st.phase == "pick" and st.current_seat == st.first_player


def test_SW_26_first_player_option_and_random():
    assert GAME.new_state(4, {"first_player": "2"}, 1).turn_order == [2, 3, 0, 1]
    assert GAME.new_state(4, {"first_player": 3}, 1).first_player == 3
    firsts = {GAME.new_state(4, {}, s).first_player for s in range(40)}
    assert firsts == {0, 1, 2, 3}


@pytest.mark.parametrize("seats,opts,rule", [
    (1, {}, "SW-20"), (6, {}, "SW-20"), (2, {"necromancer": True}, "NEC-2"), (7, {"necromancer": True}, "NEC-2"),
    (3, {"no_such_flag": True}, "ED-0"), (3, {"public_coins": 1}, "ED-0"), (3, {"combo_row_size": 9}, "ED-2"),
    (3, {"first_player": "7"}, "ED-5"), (3, {"tie_policy": "coin_flip"}, "ED-0"),
    (4, {"necromancer": True, "necro_ghosts_removed": 3}, "NEC-6"),
    (4, {"necromancer": True, "necromancer_seat": "1", "first_player": "3"}, "NEC-3"),
])
def test_invalid_options(seats, opts, rule):
    with pytest.raises(InvalidOptions) as e:
        GAME.new_state(seats, opts, 1)
    assert e.value.rule == rule


def test_default_options_are_the_rules_defaults():
    o = GAME.default_options()
    assert o["public_coins"] is False and o["combo_row_size"] == 6 and o["tie_policy"] == "shared"
    assert o["necromancer"] is False and o["necro_win_check"] == "own_turn"  # NEC-28 (seed 004): own turn
    assert len(o) == 48 and o["elves_decline_all_to_well"] is True  # ED-46 (NEC-12), ED-47 (log) added


def test_ED_2_short_combo_row():
    st = GAME.new_state(2, {"combo_row_size": 4}, 1)
    assert len(st.combo_row) == 4


def test_ED_1_public_coins():
    st = GAME.new_state(3, {"public_coins": True}, 1)
    assert all(p["coins"] == 5 for p in GAME.view(st, None)["players"])
    st = GAME.new_state(3, {}, 1)
    v = GAME.view(st, 1)
    assert [p["coins"] for p in v["players"]] == [-1, 5, -1]


def test_SW_124_coins_revealed_at_end():
    from .sw_helpers import random_game
    st, _ = random_game(3, {}, 2)
    assert [p["coins"] for p in GAME.view(st, None)["players"]] == st.coins


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_SW_32_game_lasts_n_rounds(seats):
    from .sw_helpers import random_game
    turns = []
    st, _ = random_game(seats, {}, 9, lambda s, seat, m, ev: turns.extend(e for e in ev if e.kind == "turn_started"))
    assert len(turns) == seats * st.rounds - 1  # the first turn starts inside new_state
    assert st.round == new_state(seats, {}, 9).board.rounds
