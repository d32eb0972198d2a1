"""Small World properties over many random legal games, base game and Necromancer Island (the generic
contract checks, replay, codec and determinize, are in tests/conformance/)."""
from __future__ import annotations

import pickle
import random

import pytest

from engines.core import IllegalMove
from engines.smallworld import GAME
from engines.smallworld import data as D
from engines.smallworld.moves import (
    BuyGhost,
    Conquer,
    Decline,
    Deploy,
    EndConquest,
    Expand,
    Pass,
    PickCombo,
    PlaceHeroes,
)

from .sw_helpers import PROPERTY_GAMES, invariants, random_game

CONFIGS = [(False, 2), (False, 3), (False, 4), (False, 5), (True, 3), (True, 4), (True, 5), (True, 6)]
GAMES = PROPERTY_GAMES or 130  # 8 configs x 130 = 1040 random games by default
IDS = [f"{'nec' if n else 'base'}{s}" for n, s in CONFIGS]


@pytest.mark.parametrize("nec,seats", CONFIGS, ids=IDS)
def test_random_games_keep_invariants_and_end(nec, seats):
    for seed in range(GAMES):
        moves = []

        def check(st, seat, move, events, seed=seed, moves=moves):
            bad = invariants(st)
            assert not bad, (seed, move, bad)
            moves.append(move)

        st, log = random_game(seats, {"necromancer": nec}, seed, check if seed % 4 == 0 else None)
        assert GAME.is_over(st)
        if not st.necromancer_won:  # SW-32: after the last turn of round N
            assert st.round == st.rounds == D.board(st.map_key[0]).rounds
            assert st.turn_index == 0
        assert not invariants(st)
        out = GAME.outcome(st)
        assert min(out.ranks) == 1 and out.winners
        assert all(c >= 0 for c in st.coins)


@pytest.mark.parametrize("nec,seats", CONFIGS, ids=IDS)
def test_views_do_not_leak(nec, seats):
    rng = random.Random(3)
    opts = {"necromancer": nec, "necro_reserve_public": False} if nec else {}
    st = GAME.new_state(seats, opts, 11)
    for i in range(400):
        if GAME.is_over(st):
            break
        seat = rng.choice(GAME.seats_to_act(st))
        for s in list(range(seats)) + [None]:
            v = GAME.view(st, s)
            other = GAME.clone(st)
            for o in range(seats):  # everything s cannot see: other coins, deck orders, RNG
                if o != s:
                    other.coins[o] += 17
            other.rng.seed(i)
            other.race_deck.reverse()
            other.power_deck.reverse()
            if s != st.necromancer and st.necromancer >= 0 and other.power_deck:
                other.power_reserve[0], other.power_deck[0] = other.power_deck[0], other.power_reserve[0]
            assert GAME.view(other, s) == v
            if s is None:
                assert all(p["coins"] == -1 for p in v["players"]) or v["over"]
        events = GAME.apply(st, seat, rng.choice(GAME.legal_moves(st, seat)))
        for e in events:
            if e.kind == "scored":  # SW-122: coins gained go to that player only
                assert e.to == e.data["seat"]
            elif e.kind != "game_over":
                assert e.to is None
                assert "total" not in e.data


@pytest.mark.parametrize("nec,seats", CONFIGS, ids=IDS)
def test_refused_moves_leave_state_unchanged(nec, seats):
    rng = random.Random(5)
    st = GAME.new_state(seats, {"necromancer": nec}, 21)
    probes = [PickCombo(5), PickCombo(9), Expand(), Decline(), Conquer(0), Conquer(99), EndConquest(), Deploy(0, 1),
              Deploy(3, 40), Pass(), PlaceHeroes((0, 1)), BuyGhost()]
    refused = 0
    while not GAME.is_over(st):
        seat = rng.choice(GAME.seats_to_act(st))
        legal = GAME.legal_moves(st, seat)
        for s in range(seats):
            for m in probes:
                if s == seat and m in legal:
                    continue
                before = pickle.dumps(st)
                with pytest.raises(IllegalMove) as e:
                    GAME.apply(st, s, m)
                assert e.value.rule.startswith(("SW-", "NEC-", "ED-"))
                assert pickle.dumps(st) == before
                refused += 1
        GAME.apply(st, seat, rng.choice(legal))
    assert refused > 100
