"""The caches behind Eruption's speed (issue 22) never answer for a board or a view they were not made
for: the board answers (derived.py) follow every edit of `board` and `lava`, a pickle holds plain dicts,
and `determinize` follows a view that changed since the last one."""
from __future__ import annotations

import pickle
import random

import pytest

from engines.eruption import GAME, derived, view
from engines.eruption import board as B
from engines.eruption.state import Cells


def mid_game(seed=3, moves=90):
    st = GAME.new_state(3, {}, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        seat = GAME.to_move(st)
        GAME.apply(st, seat, rng.choice(GAME.legal_moves(st, seat)))
    return st


def _answers(d):
    return (dict(derived.ends(d)), derived.constrained(d), list(derived.spots(d)), list(derived.end_positions(d)),
            d.filled[:], d.lava_at[:], d.ends_at[:], d.constrained_at[:], d.spot_at[:])


def answers(st):
    return _answers(derived.of(st))


def fresh(st):
    return _answers(derived.made(st.board, st.lava))


EDITS = {  # each done to board and lava alike: (cells, an empty space, a tile's cell, a value)
    "set an empty space": lambda cells, empty, cell, value: cells.__setitem__(empty, value),
    "set a tile's cell again": lambda cells, empty, cell, value: cells.__setitem__(cell, value),
    "del": lambda cells, empty, cell, value: cells.__delitem__(cell),
    "pop": lambda cells, empty, cell, value: cells.pop(cell),
    "popitem": lambda cells, empty, cell, value: cells.popitem(),
    "clear": lambda cells, empty, cell, value: cells.clear(),
    "update": lambda cells, empty, cell, value: cells.update({empty: value}),
    "setdefault": lambda cells, empty, cell, value: cells.setdefault(empty, value),
    "|=": lambda cells, empty, cell, value: cells.__ior__({cell: value}),
}


@pytest.mark.parametrize("edit", EDITS)
def test_issue22_every_edit_of_the_board_renews_its_answers(edit):
    st = mid_game()
    empty = next(iter(answers(st)[0]))  # an open end; the answers are made for the board as it is
    cell = next(iter(st.lava))
    stamps = st.board.stamp, st.lava.stamp
    EDITS[edit](st.board, empty, cell, (0, 1))
    EDITS[edit](st.lava, empty, cell, B.MASK_OF_TILE[0][1])
    assert st.board.stamp != stamps[0] and st.lava.stamp != stamps[1]
    assert answers(st) == fresh(st)


def test_issue22_a_tile_placed_in_play_updates_the_answers_like_a_fresh_board():
    st = GAME.new_state(4, {}, 11)
    rng = random.Random(11)
    while not GAME.is_over(st):
        seat = GAME.to_move(st)
        GAME.apply(st, seat, rng.choice(GAME.legal_moves(st, seat)))
        assert answers(st) == fresh(st)


def test_issue22_a_pickle_holds_plain_dicts_and_loads_as_cells():
    st = mid_game()
    answers(st)
    fields = st.__getstate__()[1]
    assert type(fields["board"]) is dict and type(fields["lava"]) is dict
    again = pickle.loads(pickle.dumps(st))
    assert type(again.board) is Cells and type(again.lava) is Cells
    assert again.board == st.board and again.lava == st.lava and again.derived is None
    assert answers(again) == answers(st)


def test_issue22_a_clone_shares_the_answers_until_its_board_changes():
    st = mid_game()
    d = derived.of(st)
    twin = st.clone()
    assert derived.of(twin) is d
    twin.board.pop(next(iter(twin.lava)))
    assert derived.of(twin) is not d and derived.of(st) is d
    assert answers(twin) == fresh(twin)


def test_issue22_determinize_follows_a_view_changed_since_the_last_one():
    st = mid_game()
    seat = GAME.to_move(st)
    v = GAME.view(st, seat)
    first = GAME.determinize(v, seat, random.Random(1))
    v["temperatures"][seat] += 10
    v["walls"] = []
    second = GAME.determinize(v, seat, random.Random(1))
    assert second.temperatures[seat] == first.temperatures[seat] + 10
    assert second.walls == {} and first.walls == st.walls
    assert view.determinize(v, seat, random.Random(1)).walls == {}


def test_issue22_board_answers_hold_the_one_tuple_per_space():
    """Compiled code must not rebuild cells: a fixed-length tuple annotation made mypyc box each cell
    into a new tuple at every dict it met, so lookups hashed and compared copies (board.Cell)."""
    st = mid_game()
    d = derived.of(st)
    assert derived.ends(d) and all(cell is B.CANONICAL[cell] for cell in derived.ends(d))
    assert all(spot[0] is B.CANONICAL[spot[0]] for spot in derived.spots(d))
    assert all(position is B.CANONICAL_POSITION[position] for position in derived.end_positions(d))


def place_a_tile(st, rng):
    """Random moves until one puts a tile on the board."""
    tiles = len(st.board)
    while len(st.board) == tiles and not GAME.is_over(st):
        seat = GAME.to_move(st)
        GAME.apply(st, seat, rng.choice(GAME.legal_moves(st, seat)))


def test_issue22_a_placement_updates_answers_only_this_state_holds_in_place():
    st = mid_game()
    d = derived.of(st)
    place_a_tile(st, random.Random(5))
    assert derived.of(st) is d and answers(st) == fresh(st)


def test_issue22_a_placement_copies_answers_a_clone_shares():
    st = mid_game()
    d = derived.of(st)
    twin = st.clone()
    before = answers(twin)
    before = tuple(dict(x) if isinstance(x, dict) else list(x) for x in before)
    place_a_tile(st, random.Random(5))
    assert derived.of(st) is not d and answers(st) == fresh(st)
    assert derived.of(twin) is d and answers(twin) == before == fresh(twin)


def test_issue22_determinized_states_do_not_change_the_shared_root_answers():
    st = mid_game()
    seat = GAME.to_move(st)
    v = GAME.view(st, seat)
    first = GAME.determinize(v, seat, random.Random(1))
    root = derived.of(first)
    place_a_tile(first, random.Random(2))
    second = GAME.determinize(v, seat, random.Random(3))
    assert derived.of(second) is root and answers(second) == fresh(second)


def test_issue22_draws_are_the_draws_of_random_Random():
    from engines.eruption import draws

    for seed in range(30):
        for n in (1, 2, 6, 37, 60, 127):
            ours, theirs = random.Random(seed), random.Random(seed)
            a, b = list(range(n)), list(range(n))
            draws.shuffle(ours, a)
            theirs.shuffle(b)
            assert a == b
            assert [draws.die(ours) for _ in range(9)] == [theirs.randint(1, 6) for _ in range(9)]
            assert draws.below(ours, n) == theirs.randrange(n)
            assert ours.getstate() == theirs.getstate()

    class Loaded(random.Random):
        def randint(self, a, b):
            return 6

    assert draws.die(Loaded(1)) == 6  # a subclass draws itself
