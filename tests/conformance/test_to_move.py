"""Issue 15 item 2: `to_move` is the seat whose decision the game waits for, in every game.

Random seeded games per game and option set (thousands of decisions each, bounded in
time): whenever the game waits on exactly one seat, `to_move` is that seat and it has a
legal move; whenever several seats may act, `to_move` is one of them. `current_player`
(the turn order) is a seat while the game runs and None once it is over.
"""
from __future__ import annotations

import random
import time

import pytest

from engines import registry

OPTION_SETS = {
    "pompeii": [{}, {"edition": "2013", "dual_vent_tiles": True}],
    "eruption": [{}, {"eruption_tiles_per_turn": "one"}],
    "citadels": [{}, {"warlord_timing": "any_time"}],
    "smallworld": [{}, {"necromancer": True}],
}
DECISIONS = 10_000  # per game and option set
BUDGET_S = 20


def cases():
    for game in registry.GAME_IDS:
        for options in OPTION_SETS.get(game, [{}]):
            named = "-".join(f"{k}={v}" for k, v in options.items()) or "default"
            yield pytest.param(game, options, id=f"{game}-{named}")


@pytest.mark.parametrize("game,options", list(cases()))
def test_item2_to_move_is_the_seat_the_game_waits_for(game, options):
    engine = registry.game(game)
    deadline = time.monotonic() + BUDGET_S
    decisions = single = 0
    seed = 0
    while decisions < DECISIONS and time.monotonic() < deadline:
        seed += 1
        rng = random.Random(seed)
        low = engine.min_seats + (1 if options.get("necromancer") else 0)
        seats = rng.randint(low, min(engine.max_seats, 5))
        state = engine.new_state(seats, options, seed)
        while not engine.is_over(state) and decisions < DECISIONS:
            acting = engine.seats_to_act(state)
            to_move = engine.to_move(state)
            where = f"seed {seed}, decision {decisions}, phase {getattr(state, 'phase', '?')!r}"
            assert acting, where
            assert to_move in acting, f"to_move {to_move} not in seats_to_act {acting} ({where})"
            assert engine.legal_moves(state, to_move), f"to_move {to_move} has no legal move ({where})"
            single += len(acting) == 1
            assert engine.current_player(state) in range(seats), where
            seat = rng.choice(acting)
            engine.apply(state, seat, rng.choice(engine.legal_moves(state, seat)))
            decisions += 1
        if engine.is_over(state):
            assert engine.to_move(state) is None and engine.current_player(state) is None
    assert decisions >= 1000, f"only {decisions} decisions in {BUDGET_S}s"
    assert single, "no state waited on a single seat"


def test_item2_smallworld_defender_is_to_move_not_the_current_player():
    """The defend phase (SW-82): the defender decides; the attacker stays the current player."""
    engine = registry.game("smallworld")
    seen = 0
    for seed in range(1, 40):
        rng = random.Random(seed)
        state = engine.new_state(3, {}, seed)
        while not engine.is_over(state):
            if state.phase == "defend":
                public = engine.view(state, None)
                defender = public["defender_queue"][0]
                assert engine.to_move(state) == defender != engine.current_player(state) == public["current_seat"]
                seen += 1
            seat = rng.choice(engine.seats_to_act(state))
            engine.apply(state, seat, rng.choice(engine.legal_moves(state, seat)))
        if seen >= 5:
            return
    raise AssertionError(f"only {seen} defend phases in 40 games")
