"""GameStatus never tells one seat that another may act out of turn (POM-51, POM-90)."""
from __future__ import annotations

import asyncio

from server.service import GameCore
from server.store import Store
from tests.pompeii.test_pompeii_examples import w7_position


def test_POM_51_out_of_turn_right_is_shown_only_to_its_seat(tmp_path):
    store = Store(tmp_path)
    store.recover()
    core = GameCore(store)
    rec, _ = core.create("pompeii", 4, {}, 1, {})
    rec.state = w7_position()  # seat 0 to play; seat 2 holds an all-wild hand
    assert rec.engine.seats_to_act(rec.state) == [0, 2]
    assert core.status(rec, None)["seats_to_act"] == [0]
    for caller in (0, 1, 3):
        assert core.status(rec, caller)["seats_to_act"] == [0]
    assert core.status(rec, 2)["seats_to_act"] == [0, 2]
    assert core.legal_moves(rec, 1) == [] and core.legal_moves(rec, 2)
    store.close()


def test_journal_replay_restores_a_game_exactly(tmp_path):
    import pickle
    import random

    from engines.core import play_random

    store = Store(tmp_path)
    store.recover()
    core = GameCore(store)
    rec, _ = core.create("pompeii", 3, {}, 5, {})
    log = play_random(rec.engine, rec.engine.clone(rec.state), random.Random(2))
    for seat, move in log[:40]:
        asyncio.run(core.make_move(rec, seat, rec.version, "", move))
    before = pickle.dumps(rec.state)
    store.close()
    again = Store(tmp_path)
    assert again.recover()["games"] == 1
    assert pickle.dumps(again.games[rec.game_id].state) == before
    again.close()


def test_a_replica_never_says_not_found_for_another_replicas_game(tmp_path):
    import pytest

    from server.errors import NotFound, Unavailable

    store = Store(tmp_path, shard="gameengine-1")
    store.recover()
    core = GameCore(store)
    rec, _ = core.create("pompeii", 2, {}, 1, {})
    assert rec.game_id.startswith("gameengine-1-")
    assert core.record(rec.game_id) is rec
    with pytest.raises(Unavailable) as e:
        core.record("gameengine-0-0123456789abcdef")
    assert e.value.retry_after_ms and "gameengine-0" in e.value.message
    with pytest.raises(NotFound):
        core.record("gameengine-1-0123456789abcdef")
    store.close()


def test_an_engine_failing_half_way_leaves_the_game_unchanged(tmp_path, monkeypatch):
    """Defence in depth: a move that crashes an engine after mutating is rolled back from the log."""
    import pickle
    import random

    import pytest

    store = Store(tmp_path)
    store.recover()
    core = GameCore(store)
    rec, _ = core.create("pompeii", 3, {}, 8, {})
    engine = rec.engine
    seat = engine.to_move(rec.state)
    asyncio.run(core.make_move(rec, seat, 0, "", random.Random(1).choice(engine.legal_moves(rec.state, seat))))
    before = (pickle.dumps(rec.state), rec.version, rec.seq, len(rec.events))
    seat = engine.to_move(rec.state)
    move = engine.legal_moves(rec.state, seat)[0]
    real_apply = engine.apply  # the engine's own (Engine.__init__ binds its compiled MovePath.apply)

    def broken(state, seat_, move_):
        events = real_apply(state, seat_, move_)  # mutates...
        if move_ == move:
            raise RuntimeError("engine bug")  # ...then fails on this one move
        return events

    monkeypatch.setattr(engine, "apply", broken)
    with pytest.raises(RuntimeError):
        asyncio.run(core.make_move(rec, seat, rec.version, "", move))
    assert (pickle.dumps(rec.state), rec.version, rec.seq, len(rec.events)) == before
    store.close()
