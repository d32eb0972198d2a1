"""Property tests over many random legal games for every player count (POM-9, POM-90..93)."""
import os
import pickle
import random
from collections import Counter

import pytest

from engines.core import Event, replay
from engines.pompeii import GAME
from engines.pompeii import board as B
from engines.pompeii.heuristic import choose, evaluate
from engines.pompeii.state import OVER, SETTLE
from gameengine.codecs.pompeii import CODEC

TOTAL_GAMES = int(os.environ.get("GE_PROPERTY_GAMES", "1050"))
PER_COUNT = max(1, TOTAL_GAMES // 3)
DEEP_GAMES = max(2, PER_COUNT // 35)  # games with codec / determinize checks at every step


def random_options(rng: random.Random) -> dict:
    if rng.random() < 0.4:
        return {}
    opts = {"edition": rng.choice(["2006", "2013"])}
    for flag in ("building_10_split", "relatives_one_per_building", "wild_card_moves_existing",
                 "lava_on_foreign_vent", "vents_block_movement"):
        opts[flag] = rng.random() < 0.5
    opts["omen_targets"] = rng.choice(["opponents", "any"])
    opts["dual_vent_tiles"] = opts["edition"] == "2013" and rng.random() < 0.5
    return opts


def pieces(state, seat, start):
    """POM-9: every piece is in exactly one place."""
    return state.supply[seat] + state.on_board(seat) + state.saved[seat] + state.volcano[seat] + state.box[seat]


def check_invariants(state, start):
    p = state.seats
    for s in range(p):
        assert pieces(state, s, start) == start, (s, state.supply, state.saved, state.volcano, state.box)
    cards = Counter(state.deck) + Counter(state.unused) + Counter(state.discard)
    for h in state.hands:
        cards.update(h)
    assert cards[B.OMEN] == 7 and cards[B.AD79] == 2 and sum(cards.values()) == 62
    if state.phase == SETTLE:
        lay = B.LAYOUTS[state.options["building_10_split"]]
        for c in B.CITY:  # POM-6: a slot holds at most one person in phase 1
            assert state.on_cell(c) <= lay.slots_at[c]
        assert all(len(h) in (3, 4) for h in state.hands)
    assert min(state.people) >= 0
    assert all(state.on_cell(c) == 0 for c, _ in state.lava_order)  # POM-64
    if state.phase == OVER:
        assert state.board_total() == 0


def check_events(events, seat):
    for e in events:
        if e.kind == "card_received":
            assert e.to == seat  # POM-23: only the drawer sees its card
        else:
            assert e.to is None


def play_checked(players, seed, deep=False):
    rng = random.Random(seed)
    options = random_options(rng)
    state = GAME.new_state(players, options, seed)
    start = state.supply[0]
    log = []
    for _ in range(5000):
        if GAME.is_over(state):
            break
        seats = GAME.seats_to_act(state)
        assert seats and GAME.to_move(state) in seats
        for s in range(players):
            moves = GAME.legal_moves(state, s)
            assert bool(moves) == (s in seats)
            assert len(set(moves)) == len(moves)
        if deep:
            check_views(state, rng)
        seat = rng.choice(seats)
        moves = GAME.legal_moves(state, seat)
        move = rng.choice(moves)
        if deep:
            for m in moves:
                assert CODEC.move_from_proto(CODEC.move_to_proto(m)) == m
        events = GAME.apply(state, seat, move)
        check_events(events, seat)
        if deep:
            for e in events:
                msg = CODEC.event_to_proto(e)
                kind, data = CODEC.event_from_proto(msg)
                assert kind == e.kind and CODEC.event_to_proto(Event(kind, data, e.to)) == msg
        check_invariants(state, start)
        log.append((seat, move))
    assert GAME.is_over(state), "POM-80: the game must end"
    out = GAME.outcome(state)
    assert out.winners and all(out.ranks[w] == 1 for w in out.winners)
    return options, state, log


def check_views(state, rng):
    spectator = GAME.view(state, None)
    assert spectator["hand"] == [] and spectator["viewer"] == -1
    for seat in range(state.seats):
        v = GAME.view(state, seat)
        assert {**v, "hand": [], "viewer": -1} == spectator  # only the hand is private (POM-90)
        msg = CODEC.view_to_proto(v)
        wire = CODEC.view_from_proto(msg)
        d = GAME.determinize(wire, seat, random.Random(rng.random()))
        assert CODEC.view_to_proto(GAME.view(d, seat)) == msg
        assert GAME.view(d, seat) == v  # hidden parts resampled, the seat's view unchanged
        assert GAME.legal_moves(d, seat) == GAME.legal_moves(state, seat)
        cards = Counter(d.deck) + Counter(d.unused) + Counter(d.discard) + Counter(c for h in d.hands for c in h)
        assert cards == Counter(state.deck) + Counter(state.unused) + Counter(state.discard) + Counter(
            c for h in state.hands for c in h)
        if state.phase == SETTLE:
            check_deck_structure(d)


def check_deck_structure(state):
    """POM-12 as the seat can know it: the determinized deck keeps the public structure."""
    draws = state.deck[::-1]
    drawn = 42 - len(draws)
    for i, c in enumerate(draws, start=drawn + 1):
        if i <= 8:
            assert 1 <= c <= 11
        if i == 9:
            assert c == B.AD79
        if c == B.AD79 and i != 9:
            assert i >= 43 - B.bottom_block_size(state.seats)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_POM_9_POM_93_random_games(players):
    for g in range(PER_COUNT):
        seed = players * 100_000 + g
        options, state, log = play_checked(players, seed, deep=g < DEEP_GAMES)
        again = replay(GAME, players, options, seed, log)  # POM-93
        assert pickle.dumps(again) == pickle.dumps(state)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_POM_90_hidden_reshuffle_keeps_view(players):
    """A seat's view and legal list ignore everything it cannot see (other hands, deck, unused piles)."""
    rng = random.Random(players)
    for g in range(20):
        state = GAME.new_state(players, {}, 500 + g)
        for _ in range(rng.randrange(0, 60)):
            if GAME.is_over(state):
                break
            seat = rng.choice(GAME.seats_to_act(state))
            GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
        for seat in range(players):
            other = state.clone()
            others_hands = [c for s, h in enumerate(other.hands) if s != seat for c in h]
            hidden = list(other.deck) + list(other.unused) + others_hands
            rng.shuffle(hidden)
            other.deck = [hidden.pop() for _ in other.deck]
            other.unused = [hidden.pop() for _ in other.unused]
            for s in range(players):
                if s != seat:
                    other.hands[s] = [hidden.pop() for _ in other.hands[s]]
            other.rng.seed(rng.random())
            assert GAME.view(other, seat) == GAME.view(state, seat)
            assert GAME.view(other, None) == GAME.view(state, None)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_determinized_states_play_to_the_end(players):
    rng = random.Random(players)
    for g in range(10):
        state = GAME.new_state(players, {}, 900 + g)
        for _ in range(rng.randrange(0, 120)):
            if GAME.is_over(state):
                break
            seat = rng.choice(GAME.seats_to_act(state))
            GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
        seat = rng.randrange(players)
        wire = CODEC.view_from_proto(CODEC.view_to_proto(GAME.view(state, seat)))
        d = GAME.determinize(wire, seat, rng)
        while not GAME.is_over(d):
            s = rng.choice(GAME.seats_to_act(d))
            GAME.apply(d, s, choose(d, s, rng))
        assert 0.0 <= evaluate(d, seat) <= 1.0
