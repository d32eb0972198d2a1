"""Property tests over many random legal games, for every player count.

GE_PROPERTY_GAMES (default 1000) is the total number of random games, spread over 2..6 seats.
Each game: invariants after every move (temperatures, conservation of walls, cards and tiles,
every tile linked to a source, walls only on legal positions), termination, exact replay.
A share of the games also checks views, codec round trips, determinize, leaks and refusals.
"""
import os
import pickle
import random
from collections import Counter

import pytest

from engines.core import IllegalMove
from engines.eruption import GAME, geometry, legality, setup
from engines.eruption import board as B
from engines.eruption import heuristic as H
from engines.eruption.moves import (
    BuildWall,
    DiscardForTile,
    DiscardForWall,
    DiscardSurplus,
    DrawExtraTile,
    EndCards,
    EndPlacement,
    EndTurn,
    PlaceEruption,
    PlaceTile,
    PlayAftershock,
    PlayLavaFlow,
    PlayQuake,
    PlayRain,
    PlayReinforce,
    PlayRelocate,
    PlaySinkhole,
    PlayVolcanicBomb,
    QuakeReplace,
)
from gameengine.codecs.eruption import CODEC

GAMES = int(os.environ.get("GE_PROPERTY_GAMES", "1000"))
PER_COUNT = max(1, GAMES // 5)
HEAVY = max(1, PER_COUNT // 100)
SEATS = range(2, 7)


def random_options(rng):
    opts = {}
    for name, (_default, values) in setup.FLAGS.items():
        if rng.random() < 0.3:
            opts[name] = rng.choice(values)
    return opts


def check_invariants(st):
    # ERU-7: temperatures in 0..290, steps of 10
    assert all(0 <= t <= 290 and t % 10 == 0 for t in st.temperatures)
    # cards are conserved (ERU-5, ERU-111)
    cards = Counter(st.draw_pile) + Counter(st.discard)
    for h in st.hands:
        cards += Counter(h)
    assert cards == Counter(setup.deck_for(st.options))
    # walls are conserved (ERU-4, ERU-8)
    if not st.options["unlimited_walls"]:
        for i, m in enumerate(B.MATERIALS):
            on_board = sum(1 for x in st.walls.values() if x == m)
            held = sum(p[i] for p in st.stockpiles)
            assert st.supply[i] + held + on_board + st.removed_walls[i] == B.SUPPLY[i]
    assert all(x >= 0 for p in st.stockpiles for x in p)
    # lava tiles are conserved: each id in exactly one place
    places = [t for t, _ in st.board.values() if t < 40] + st.stack + st.burnout_removed
    places += [t for t in st.removed_tiles if t < 40]
    places += [t for t in (st.drawn_tile, st.quake_tile) if t >= 0]
    assert sorted(places) == list(B.LAVA_TILE_IDS)
    for k in range(3):
        on_board = B.ERUPTION_IDS[k] in {t for t, _ in st.board.values()}
        assert on_board == (st.eruption_status[k] == "board")
    # ERU-21 invariant: every tile linked to a source
    assert geometry.all_linked(st.lava, geometry.eruption_cells(st))
    # ERU-91 invariant: walls stand on open ends or on occupied villages' entry positions
    ends = geometry.open_ends(st)
    for (s, e) in st.walls:
        v = B.ENTRY_VILLAGE.get((s, e))
        if v is None:
            assert s not in st.board and ends.get(s, 0) >> e & 1
        else:
            assert v in st.villages
    # ERU-111/114: only the active player draws, and a turn ends with at most 3 cards
    for s, h in enumerate(st.hands):
        assert len(h) <= 3 or (s == st.active and st.phase not in ("walls", "over"))


def play(seats, seed, policy="random", check=check_invariants):
    rng = random.Random(seed * 7919 + seats)
    options = random_options(rng)
    st = GAME.new_state(seats, options, seed)
    log = []
    for _ in range(20000):
        if GAME.is_over(st):
            break
        check(st)
        seat = st.active
        assert GAME.seats_to_act(st) == [seat] and GAME.to_move(st) == seat
        if policy == "heuristic":
            move = H.choose(st, seat, rng)
        else:
            move = rng.choice(GAME.legal_moves(st, seat))
        GAME.apply(st, seat, move)
        log.append((seat, move))
    assert GAME.is_over(st), "the game must end"
    check(st)
    return options, st, log


@pytest.mark.parametrize("seats", SEATS)
def test_random_games_invariants_termination_replay(seats):
    for seed in range(PER_COUNT):
        options, st, log = play(seats, seed)
        out = GAME.outcome(st)
        assert min(out.ranks) == 1 and set(out.winners) == {s for s in range(seats) if out.ranks[s] == 1}
        if seed % 4 == 0:  # ERU-30: replay from (options, seed, moves) is exact
            again = GAME.new_state(seats, options, seed)
            for seat, move in log:
                GAME.apply(again, seat, move)
            assert pickle.dumps(again) == pickle.dumps(st)


@pytest.mark.parametrize("seats", SEATS)
def test_heuristic_games_end(seats):
    for seed in range(max(1, PER_COUNT // 20)):
        _, st, _ = play(seats, 10_000 + seed, policy="heuristic")
        for s in range(seats):
            assert 0.0 <= H.evaluate(st, s) <= 1.0


def _scramble_hidden(st, seat, rng):
    """Change everything `seat` cannot see: other hands, pile order, stack order, rng."""
    st2 = st.clone()
    others = [s for s in range(st.seats) if s != seat]
    pool = st2.draw_pile + [c for s in others for c in st2.hands[s]]
    rng.shuffle(pool)
    for s in others:
        k = len(st2.hands[s])
        st2.hands[s], pool = sorted(pool[:k]), pool[k:]
    st2.draw_pile = pool
    rng.shuffle(st2.stack)
    st2.rng = random.Random(rng.random())
    return st2


def _candidates(st, rng):
    """Random move guesses of every kind, legal or not."""
    cell = rng.choice(B.PLAYABLE + ((5, 5), (0, 0), (4, 1)))
    e, r = rng.randrange(6), rng.randrange(6)
    mat = rng.choice(B.MATERIALS)
    card = rng.choice(B.CARD_KINDS)
    entries = B.ENTRIES[st.villages[st.active]]
    a, b = rng.choice(entries), rng.choice(entries)
    tile = st.drawn_tile if rng.random() < 0.8 else rng.randrange(43)
    return [
        PlaceTile(tile, cell, r), PlaceEruption(rng.randint(1, 3), cell), BuildWall(mat, cell, e),
        PlayReinforce(mat, cell, e), PlayAftershock(cell, r), PlaySinkhole(cell),
        PlayVolcanicBomb(cell, e), QuakeReplace(st.quake_tile, cell, r), DiscardForWall(card),
        DiscardSurplus(card), DiscardForTile(tuple(sorted((card, rng.choice(B.CARD_KINDS))))),
        EndCards(), EndTurn(), DrawExtraTile(), EndPlacement(), PlayRain(), PlayQuake(),
        PlayLavaFlow(), PlayRelocate(((a[0], a[1], b[0], b[1]),)),
    ]


def heavy_check(st, rng, seen_events):
    n = st.seats
    seat = st.active
    views = {}
    for s in [None, *range(n)]:
        v = GAME.view(st, s)
        views[s] = v
        check_invariants(GAME.determinize(v, -1 if s is None else s, rng))  # codec, view: tests/conformance
    assert views[None]["hand"] == []
    assert legality.sinkhole_targets(st) == legality.sinkhole_targets_slow(st)  # ERU-121 fast path
    for s in range(n):  # no view leaks a hand, the stack order or the rng
        assert GAME.view(_scramble_hidden(st, s, rng), s) == views[s]
    assert GAME.view(_scramble_hidden(st, -1, rng), None) == views[None]
    legal = GAME.legal_moves(st, seat)
    for m in rng.sample(legal, min(6, len(legal))):
        GAME.apply(st.clone(), seat, m)
    legal_set = set(legal)
    for m in _candidates(st, rng):
        if m in legal_set:
            GAME.apply(st.clone(), seat, m)
            continue
        before = pickle.dumps(st)
        with pytest.raises(IllegalMove) as e:
            GAME.apply(st, seat, m)
        assert e.value.rule.startswith("ERU-")
        assert pickle.dumps(st) == before
    for other in range(n):
        if other != seat:
            assert GAME.legal_moves(st, other) == []
            m = legal[0]
            before = pickle.dumps(st)
            with pytest.raises(IllegalMove):
                GAME.apply(st, other, m)
            assert pickle.dumps(st) == before


@pytest.mark.parametrize("seats", SEATS)
def test_views_codec_determinize_leaks_refusals(seats):
    for seed in range(HEAVY):
        rng = random.Random(seed)
        st = GAME.new_state(seats, random_options(rng), 50_000 + seed)
        while not GAME.is_over(st):
            heavy_check(st, rng, None)
            seat = st.active
            move = rng.choice(GAME.legal_moves(st, seat))
            for ev in GAME.apply(st, seat, move):
                kind, data = CODEC.event_from_proto(CODEC.event_to_proto(ev))
                assert kind == ev.kind and data == dict(ev.data)
                # hands are private: only card_drawn carries a card to a seat, and only to the drawer
                if ev.kind == "card_drawn":
                    assert ev.to == ev.data["seat"]
                else:
                    assert ev.to is None
        v = GAME.view(st, None)
        assert CODEC.view_from_proto(CODEC.view_to_proto(v)) == v


@pytest.mark.slow
@pytest.mark.parametrize("seats", SEATS)
def test_soak_many_random_and_heuristic_games(seats):
    for seed in range(10 * PER_COUNT):
        play(seats, 100_000 + seed, policy="heuristic" if seed % 2 else "random")
