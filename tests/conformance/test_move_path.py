"""Issue 22: the per-move path every engine shares (engines/playout.py, engines/draws.py,
engines/event.py), compiled in the mypyc build. It changes nothing a player sees: tests/golden
pins the games; these pin the pieces."""
from __future__ import annotations

import random

import pytest

from engines import draws, native, registry
from engines.core import Engine, Event, play_random
from engines.playout import MovePath


def reference_play_random(game, state, rng: random.Random) -> list:
    """engines.core.play_random before issue 22's round 3: interpreted, Random.choice twice a move."""
    log = []
    while not game.is_over(state):
        seat = rng.choice(game.seats_to_act(state))
        move = rng.choice(game.legal_moves(state, seat))
        game.apply(state, seat, move)
        log.append((seat, move))
    return log


@pytest.mark.parametrize("game", list(registry.GAME_IDS))
def test_issue22_play_random_makes_the_draws_of_random_choice(game):
    """The same log and the same RNG state after it as the interpreted loop with Random.choice:
    seeded random games (the golden test's, the bench's) replay unchanged."""
    engine = registry.game(game)
    for seats in registry.tested_seats(game):
        ours, theirs = random.Random(seats), random.Random(seats)
        seed = ours.randrange(2**32)
        assert seed == theirs.randrange(2**32)
        log = play_random(engine, engine.new_state(seats, {}, seed), ours)
        assert log == reference_play_random(engine, engine.new_state(seats, {}, seed), theirs)
        assert ours.getstate() == theirs.getstate()


def test_issue22_play_random_refuses_a_game_that_does_not_end():
    engine = registry.game("citadels")
    with pytest.raises(RuntimeError, match="citadels: no end after 3 moves"):
        play_random(engine, engine.new_state(4, {}, 1), random.Random(1), max_moves=3)


@pytest.mark.parametrize("game", list(registry.GAME_IDS))
def test_issue22_every_engine_applies_and_plays_through_the_base_move_path(game):
    """One shape: no game has its own apply/play; each engine's are its tables' MovePath (compiled
    in the mypyc build), bound by Engine.__init__."""
    engine = registry.game(game)
    assert type(engine).apply is Engine.apply and type(engine).play is Engine.play
    for method in (engine.apply, engine.play):
        assert type(method.__self__) is MovePath
        assert method.__self__.checks is engine.checks and method.__self__.effects is engine.effects
    if native.build().startswith("compiled"):
        assert "engines.playout" in native.loaded_compiled()


def test_issue22_a_game_that_defines_apply_keeps_it():
    class Own(Engine):
        checks: dict = {}
        effects: dict = {}

        def apply(self, state, seat, move):
            return [Event("own")]

    engine = Own()
    assert engine.apply(None, 0, None) == [Event("own")] and "apply" not in vars(engine)
    assert type(engine.play.__self__) is MovePath


def test_issue22_the_base_move_path_checks_before_it_changes_anything():
    """apply: the seat check, then the kind's check, then the effect; play: the effect alone."""
    calls: list[str] = []

    def refuse(*a):
        calls.append("check")
        raise ValueError("refused")

    path = MovePath(lambda s, seat, m: calls.append("seat"), {int: refuse},
                    {int: lambda s, seat, m, ev: ev.append(Event("done", {"move": m}))})
    with pytest.raises(ValueError):
        path.apply(None, 0, 5)
    assert calls == ["seat", "check"]
    assert path.play(None, 0, 5) == [Event("done", {"move": 5})] and calls == ["seat", "check"]


def test_issue22_event_is_compiled_with_the_build_and_keeps_its_name():
    made = Event("x")
    assert (made.kind, made.data, made.to) == ("x", {}, None) and Event.__match_args__ == ("kind", "data", "to")
    match made:
        case Event("x", data, None):
            assert data == {}
        case _:
            pytest.fail("Event no longer matches by position")
    if native.build().startswith("compiled"):
        assert "engines.event" in native.loaded_compiled()


def test_issue22_draws_make_the_draws_of_random_shuffle_and_choice():
    """draws.shuffle/choice stand for Random.shuffle/choice: the same results from the same RNG
    state, leaving the same state (the golden games and search statistics depend on it)."""
    for seed in range(40):
        ours, theirs = random.Random(seed), random.Random(seed)
        for n in (0, 1, 2, 7, 8, 30, 66, 127, 128, 300):
            mine, ref = list(range(n)), list(range(n))
            draws.shuffle(ours, mine)
            theirs.shuffle(ref)
            assert mine == ref
            if n:
                assert draws.choice(ours, mine) == theirs.choice(ref)
        assert ours.getstate() == theirs.getstate()
    with pytest.raises(IndexError):
        draws.choice(random.Random(1), [])


def test_issue22_draws_leave_a_random_subclass_to_its_own_methods():
    class Fixed(random.Random):
        def shuffle(self, x):
            x.reverse()

        def choice(self, seq):
            return seq[0]

    cards = [1, 2, 3]
    draws.shuffle(Fixed(1), cards)
    assert cards == [3, 2, 1] and draws.choice(Fixed(1), cards) == 3
