"""Issue 22 (engine speed): the bookkeeping the faster engine keeps beside the rules' state always
agrees with what it summarises, so nothing a player sees can drift from the counts themselves."""
import pickle
import random
from collections import deque

from engines.pompeii import GAME, geometry, legality
from engines.pompeii import board as B
from engines.pompeii.state import People

from .support import cover, escape_position, put


def recounted(people: People) -> tuple[list[int], list[int], list[int]]:
    p = people.seats
    cells = len(people) // p
    crowd = [sum(people[c * p:(c + 1) * p]) for c in range(cells)]
    placed = [sum(people[s::p]) for s in range(p)]
    where = [sum(1 << c for c in range(cells) if people[c * p + s]) for s in range(p)]
    return crowd, placed, where


def test_issue22_people_totals_follow_every_write():
    """Per-cell, per-seat and occupied-square totals equal a recount after every move of random games."""
    rng = random.Random(22)
    for seats in (2, 3, 4):
        state = GAME.new_state(seats, {}, rng.randrange(2**32))
        while not GAME.is_over(state):
            people = state.people
            assert (list(people.crowd), list(people.placed), people.where) == recounted(people)
            seat = rng.choice(GAME.seats_to_act(state))
            GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
        assert state.board_total() == 0 and recounted(state.people)[1] == [0] * seats


def test_issue22_people_totals_follow_direct_writes_and_slices():
    state = GAME.new_state(3, {}, 1)
    state.people[5 * 3 + 1] += 2
    state.people[-1] = 4
    state.people[0:3] = [1, 0, 1]
    assert (list(state.people.crowd), list(state.people.placed), state.people.where) == recounted(state.people)
    assert state.on_cell(5) == 2 and state.on_board(1) == 2 and state.on_board(2) == 5


def test_issue22_state_pickled_without_totals_loads():
    """A state pickled before the totals existed (people a plain list) loads with them rebuilt."""
    state = GAME.new_state(2, {}, 3)
    put(state, (3, 5), 1, 2)
    fields = state.__getstate__()
    fields["people"] = list(fields["people"])
    old = type(state).__new__(type(state))
    old.__setstate__(fields)
    assert isinstance(old.people, People) and old.on_cell(B.index((3, 5))) == 2 and old.on_board(1) == 2
    assert pickle.dumps(pickle.loads(pickle.dumps(old))) == pickle.dumps(old)


def bfs(state, origin: int, steps: int) -> dict[int, int]:
    """POM-72 by hand: breadth-first over NEIGHBOURS through uncovered squares."""
    vents = state.options["vents_block_movement"]
    dist, queue = {origin: 0}, deque([origin])
    while queue:
        c = queue.popleft()
        for n in B.NEIGHBOURS[c]:
            if n not in dist and not state.lava[n] and not (vents and B.IS_VENT[n]) and dist[c] < steps:
                dist[n] = dist[c] + 1
                queue.append(n)
    return dist


def test_issue22_remembered_walks_match_a_breadth_first_search():
    """The walks kept between turns and games give the squares and exits a plain search gives (POM-72/73)."""
    rng = random.Random(7)
    for trial in range(60):
        state = escape_position(2, vents_block_movement=trial % 2 == 1)
        for c in rng.sample(B.CITY, rng.randrange(0, 30)):
            cover(state, B.square(c), "scroll")
        for origin in rng.sample([c for c in B.CITY if not state.lava[c]], 5):
            steps = rng.randrange(1, 9)
            moves, reach, leave = legality.person_steps(geometry.open_cells(state), origin, steps)
            dist = bfs(state, origin, steps)
            assert B.cells_of(reach) == sorted(dist)
            assert leave == any(dist.get(g, steps) <= steps - 1 for g in B.GATES if not state.lava[g])
            assert [m.target for m in moves] == [B.square(t) for t in sorted(dist) if t != origin] + [None] * leave


def test_issue22_lava_masks_follow_lava_order():
    """The covered mask is remade when tiles are laid outside place_lava (a test position, a replaced list)."""
    state = escape_position(2)
    assert geometry.lava_masks(state) == (0, {})
    cover(state, (2, 2), "coin")
    assert geometry.lava_masks(state) == (1 << B.index((2, 2)), {"coin": 1 << B.index((2, 2))})
    state.lava_order = [(B.index((0, 7)), "scroll")]
    assert geometry.lava_masks(state)[0] == 1 << B.index((0, 7))
