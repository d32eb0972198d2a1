"""Idle games hibernate (GE_HIBERNATE_AFTER_S): the engine state of a game nobody touched is kept
pickled, out of the cyclic collector's sight, and thawed when read. Nothing a player sees changes:
a hibernated game and its never-hibernated twin answer every view, legal move and event alike."""
from __future__ import annotations

import asyncio
import gc
import random

import pytest

from server.store import last_activity

from .support import GAMES, acknowledged, open_store, play
from .test_issue22_service import tracked_reachable


def twin_games(core, game: str, seats: int, seed: int):
    return [core.create(game, seats, {}, seed, {})[0] for _ in range(2)]


def seen(rec) -> tuple:
    """Everything a seat or spectator can read of a game."""
    engine = rec.engine
    state = rec.state
    return (rec.version, engine.is_over(state), repr([engine.view(state, s) for s in [None, *range(rec.seats)]]),
            repr([engine.legal_moves(state, s) for s in engine.seats_to_act(state)]),
            [rec.events.wire(i) for i in range(len(rec.events))])


@pytest.mark.parametrize("game,seats", GAMES)
def test_a_hibernated_game_plays_on_exactly_like_its_twin(tmp_path, game, seats):
    store, core = open_store(tmp_path)
    sleeper, awake = twin_games(core, game, seats, 11)
    rng = random.Random(4)
    for step in range(80):
        if core.is_over(awake):
            break
        if step % 7 == 3:
            assert sleeper.hibernate() and "state" not in sleeper.__dict__
            assert core.is_over(sleeper) == core.is_over(awake) and "state" not in sleeper.__dict__, \
                "is_over is answered without waking the game"
        engine = awake.engine
        seat = rng.choice(engine.seats_to_act(awake.state))
        move = rng.choice(engine.legal_moves(awake.state, seat))
        for rec in (sleeper, awake):
            asyncio.run(core.make_move(rec, seat, rec.version, f"k{step}", move))
        assert seen(sleeper) == seen(awake)
    store.close()


def test_a_hibernated_game_is_a_few_references_for_the_collector(tmp_path):
    store, core = open_store(tmp_path)
    rec, _ = core.create("pompeii", 3, {}, 5, {})
    play(core, rec, random.Random(5), 40)
    shared = {id(rec.engine), id(rec.options)}
    _, awake = tracked_reachable(rec.state, shared)
    assert rec.hibernate()
    assert not gc.is_tracked(rec.hibernated) and rec.asleep()
    assert awake > 300, "what hibernation takes out of every full collection"
    store.close()


def test_the_sweep_leaves_recent_and_locked_games_awake(tmp_path):
    store, core = open_store(tmp_path)
    old, recent, busy = (core.create("citadels", 4, {}, s, {})[0] for s in (1, 2, 3))
    now = last_activity(recent) + 100

    async def sweep():
        recent.created = now - 1  # touched a second ago
        async with store.locks.setdefault(busy.game_id, asyncio.Lock()):
            return await store.hibernate_idle(30, core.is_over, now=now)

    assert asyncio.run(sweep()) == 1
    assert "state" not in old.__dict__ and "state" in recent.__dict__ and "state" in busy.__dict__
    # busy's lock is free now; old sleeps already
    assert asyncio.run(store.hibernate_idle(30, core.is_over, now=now)) == 1
    store.close()


def test_a_finished_game_sleeps_at_the_next_pass_however_recent(tmp_path):
    store, core = open_store(tmp_path)
    finished, playing = (core.create("pompeii", 3, {}, s, {})[0] for s in (1, 2))
    play(core, finished, random.Random(1), 2000)
    play(core, playing, random.Random(2), 10)
    assert core.is_over(finished) and not core.is_over(playing)
    now = max(last_activity(finished), last_activity(playing)) + 1  # both wrote a second ago
    assert asyncio.run(store.hibernate_idle(30, core.is_over, now=now)) == 1
    assert finished.asleep() and not playing.asleep()
    assert core.is_over(finished) and finished.asleep(), "is_over is answered without waking it"
    store.close()


def test_a_snapshot_of_hibernated_games_restores_them(tmp_path):
    store, core = open_store(tmp_path)
    rng = random.Random(9)
    for game, seats in GAMES:
        rec, _ = core.create(game, seats, {}, rng.randrange(99), {})
        play(core, rec, rng, 12)
    acked = acknowledged(store)
    assert asyncio.run(store.hibernate_idle(0, core.is_over, now=float("inf"))) == len(GAMES)
    asyncio.run(store.snapshot())
    assert all("state" not in r.__dict__ for r in store.games.values()), "a snapshot does not wake them"
    store.close()
    again, _ = open_store(tmp_path)
    assert acknowledged(again) == acked
    again.close()
