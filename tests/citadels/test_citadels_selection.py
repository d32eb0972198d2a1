"""Setup and character selection: CIT-16..CIT-27, WE-3, WE-4, WE-6, WE-16."""
import pytest

from engines.citadels import GAME, flow
from engines.citadels.moves import DiscardCharacter, PickCharacter
from engines.core import IllegalMove, advance

from .citadels_helpers import new


def _seed_with_face_down(n, rank):
    for seed in range(2000):
        s = GAME.new_state(n, {}, seed)
        if s.face_down_ranks[0] == rank and (n != 7 or True):
            return s
    raise AssertionError("no seed")


class StubRng:
    """Returns a fixed order for the first shuffle (CIT-21 tests)."""

    def __init__(self, first):
        self.first = list(first)
        self.calls = 0

    def shuffle(self, xs):
        self.calls += 1
        if self.calls == 1:
            xs[:] = self.first


def test_CIT_16_deal():
    for n in range(2, 8):
        s = new(n, seed=n)
        assert all(len(h) == 4 for h in s.hands)
        assert s.gold == [2] * n
        assert len(s.deck) == 66 - 4 * n
        assert sorted(s.deck + [c for h in s.hands for c in h]) == list(range(66))


def test_CIT_17_initial_crown_fixed_and_random():
    assert new(5, seed=1, initial_crown=3).crown == 3
    assert new(5, seed=1, initial_crown="2").crown == 2
    crowns = {new(5, seed=k).crown for k in range(40)}
    assert len(crowns) > 1


@pytest.mark.parametrize("n,face_up,first_sees", [(2, 0, 7), (3, 0, 7), (4, 2, 5), (5, 1, 6), (6, 0, 7), (7, 0, 7)])
def test_CIT_20_discards_and_first_offer(n, face_up, first_sees):
    for seed in range(10):
        s = new(n, seed=seed)
        assert len(s.face_up) == face_up
        assert len(s.face_down_ranks) == 1 and s.face_down_by == [-1]
        assert 4 not in s.face_up  # CIT-21 king_may_be_face_up false
        assert s.picker == s.crown  # CIT-19
        assert len(s.pile) == first_sees
        assert GAME.view(s, s.crown)["offered"] == sorted(s.pile)


def _draft(s, choose=lambda pile: min(pile)):
    """Play the selection with a fixed choice; returns the sizes each picker saw."""
    sizes = []
    while s.phase == "selection":
        seat = s.picker
        moves = GAME.legal_moves(s, seat)
        if isinstance(moves[0], PickCharacter):
            sizes.append(len(s.pile))
        GAME.apply(s, seat, type(moves[0])(choose(s.pile)))
    return sizes


@pytest.mark.parametrize("n,sizes", [(2, [7, 6, 4, 2]), (3, [7, 6, 5, 4, 3, 2]), (4, [5, 4, 3, 2]),
                                     (5, [6, 5, 4, 3, 2]), (6, [7, 6, 5, 4, 3, 2]), (7, [7, 6, 5, 4, 3, 2, 2])])
def test_CIT_27_selection_invariants(n, sizes):
    for seed in range(5):
        s = new(n, seed=seed)
        assert _draft(s) == sizes
        per = 2 if n <= 3 else 1
        assert all(len(h) == per for h in s.held)
        places = [r for h in s.held for r in h] + s.face_up + s.face_down_ranks
        assert sorted(places) == list(range(1, 9))
        if n >= 4:
            assert min(sizes) >= 2


def test_CIT_22_last_picker_discards_face_down_known_only_to_him():
    s = new(5, seed=3)
    _draft(s)
    last = (s.crown + 4) % 5
    assert s.face_down_by == [-1, last]
    assert GAME.view(s, last)["my_face_down"] == [s.face_down_ranks[1]]
    for seat in range(5):
        if seat != last:
            assert GAME.view(s, seat)["my_face_down"] == []
    assert GAME.view(s, None)["my_face_down"] == []


def test_CIT_21_WE_6_face_up_king_set_aside():
    s = new(4, seed=0)
    s.rng = StubRng([5, 4, 2, 6, 1, 3, 7, 8])  # Bishop, King, Thief, Merchant, ...
    s.round = 0
    ev = []
    advance(flow.FLOW, s, ev, "start_round")
    assert s.face_down_ranks == [5]
    assert s.face_up == [2, 6]
    assert sorted(s.pile) == [1, 3, 4, 7, 8] and len(s.pile) == 5
    assert any(e.kind == "king_set_aside" for e in ev)
    # the flag: the King may be a face-up discard
    s = new(4, seed=0, king_may_be_face_up=True)
    s.rng = StubRng([5, 4, 2, 6, 1, 3, 7, 8])
    advance(flow.FLOW, s, [], "start_round")
    assert s.face_up == [4, 2]


def test_CIT_23_WE_3_seven_player_last_pick():
    s = _seed_with_face_down(7, 4)  # the initial face-down card is the King
    p1 = s.crown
    assert 4 not in s.pile and len(s.pile) == 7  # P1 sees the 7 others
    assert GAME.view(s, p1)["face_down_count"] == 1
    for _ in range(6):  # P1..P6 pick, never the Thief
        GAME.apply(s, s.picker, PickCharacter(min(r for r in s.pile if r != 2)))
    p7 = (p1 + 6) % 7
    assert s.picker == p7
    v7 = GAME.view(s, p7)
    assert v7["offered"] == [2, 4] and v7["shown_face_down"] == 4
    assert GAME.view(s, p1)["shown_face_down"] == 0
    ev = GAME.apply(s, p7, PickCharacter(4))
    assert s.face_down_ranks == [2] and s.face_down_by == [p7]
    assert GAME.view(s, p7)["my_face_down"] == [2]
    assert all(GAME.view(s, p)["my_face_down"] == [] for p in range(7) if p != p7)
    # only P7 learns about the Thief; all pick events are his
    assert all(e.to == p7 for e in ev if e.kind in ("character_picked", "character_discarded"))
    # rank 4: P7 reveals and takes the crown (the Thief is out)
    while s.calling < 4:
        seat = s.active
        for mv in GAME.legal_moves(s, seat):
            if type(mv).__name__ == "TakeGold":
                GAME.apply(s, seat, mv)
                break
        GAME.apply(s, seat, [m for m in GAME.legal_moves(s, seat) if type(m).__name__ == "EndTurn"][0])
    assert s.active == p7 and s.active_rank == 4 and s.crown == p7


def test_CIT_24_WE_4_two_player_draft():
    s = _seed_with_face_down(2, 6)  # Merchant face down
    a = s.crown
    b = 1 - a
    assert len(s.pile) == 7
    GAME.apply(s, a, PickCharacter(4))
    assert s.picker == b and sorted(s.pile) == [1, 2, 3, 5, 7, 8]
    GAME.apply(s, b, PickCharacter(7))
    with pytest.raises(IllegalMove) as e:
        GAME.apply(s, b, PickCharacter(1))
    assert e.value.rule == "CIT-24"
    GAME.apply(s, b, DiscardCharacter(1))
    assert s.picker == a and sorted(s.pile) == [2, 3, 5, 8]
    GAME.apply(s, a, PickCharacter(8))
    GAME.apply(s, a, DiscardCharacter(2))
    assert s.picker == b and sorted(s.pile) == [3, 5]
    ev = GAME.apply(s, b, PickCharacter(5))
    assert sorted(s.held[a]) == [4, 8] and sorted(s.held[b]) == [5, 7]
    assert sorted(s.face_down_ranks) == [1, 2, 3, 6]
    assert GAME.view(s, b)["my_face_down"] == [1, 3]
    assert GAME.view(s, a)["my_face_down"] == [2]
    calls = [(e.data["rank"], e.data["seat"]) for e in ev if e.kind == "character_called"]
    assert calls == [(1, -1), (2, -1), (3, -1), (4, a)]
    assert s.crown == a
    ev = GAME.apply(s, a, GAME.legal_moves(s, a)[0])  # take gold
    ev = GAME.apply(s, a, [m for m in GAME.legal_moves(s, a) if type(m).__name__ == "EndTurn"][0])
    assert s.active == b and s.active_rank == 5
    # seen sets (CIT-12)
    assert [sorted(x["ranks"]) for x in GAME.view(s, b)["seen_sets"]] == [[1, 2, 3, 5, 7, 8], [3, 5]]


def test_CIT_25_WE_16_three_player_draft():
    s = new(3, seed=4)
    order = [(s.crown + i) % 3 for i in range(3)] * 2
    sizes = []
    for seat in order:
        assert s.picker == seat
        sizes.append(len(s.pile))
        GAME.apply(s, seat, PickCharacter(max(s.pile)))
    assert sizes == [7, 6, 5, 4, 3, 2]
    assert all(len(h) == 2 for h in s.held)
    c = order[2]
    assert s.face_down_by == [-1, c] and GAME.view(s, c)["my_face_down"] == [s.face_down_ranks[1]]
    assert len(GAME.view(s, order[0])["seen_sets"]) == 2


def test_CIT_19_refusals_leave_state_unchanged():
    import pickle
    s = new(4, seed=2)
    before = pickle.dumps(s)
    other = (s.picker + 1) % 4
    for seat, mv, rule in [(other, PickCharacter(s.pile[0]), "CIT-19"),
                           (s.picker, PickCharacter(s.face_up[0]), "CIT-19"),
                           (s.picker, DiscardCharacter(s.pile[0]), "CIT-24")]:
        with pytest.raises(IllegalMove) as e:
            GAME.apply(s, seat, mv)
        assert e.value.rule == rule
        assert pickle.dumps(s) == before


def test_CIT_19_picks_are_private():
    s = new(4, seed=2)
    assert GAME.move_is_private(PickCharacter(3)) and GAME.move_is_private(DiscardCharacter(3))
    ev = GAME.apply(s, s.picker, PickCharacter(s.pile[0]))
    assert all(e.to is not None for e in ev)
