"""Issue 22 item 5: a snapshot's games are restored without their engine (each snapshot game keeps
the engine's is_over, GameHistory.engine_over) and folded through it when first read; what the
game shows is the same either way, and snapshots written before engine_over load as before."""
from __future__ import annotations

import asyncio
import dataclasses
import random

import pytest

from engines import registry
from engines.core import Event, IllegalMove
from server import auth, lobby, records, snapshots
from server.datadir import StartupError
from server.participation import OPEN, Seating, SeatingChanged
from server.store import Store

from .support import GAMES, open_store, play


def shown(core, rec) -> tuple:
    """Everything a client can be shown of a game: status, views, legal moves, events, log."""
    seats = [None, *range(rec.seats)]
    return (rec.version, rec.seq, bytes(rec.history), dict(rec.idem),
            [core.status(rec, s) for s in seats], [core.view(rec, s) for s in seats],
            [core.legal_moves(rec, s) for s in seats],
            [list(core.visible_events(rec, s)) for s in seats], [core.log(rec, s) for s in seats])


def every_game(tmp_path, moves: int = 9) -> tuple[dict, dict]:
    """A data dir with every game type at a few stages (one Pompeii game finished, one with a
    referee event) and a snapshot; returns (game id -> what it showed, game id -> is_over)."""
    store, core = open_store(tmp_path)
    rng = random.Random(3)
    for game, seats in GAMES:
        for n in (0, moves):
            rec, _ = core.create(game, seats, {}, rng.randrange(1000), {})
            play(core, rec, rng, n, key_prefix="k")
    done, _ = core.create("pompeii", 3, {}, 7, {})
    play(core, done, random.Random(7), 10_000)
    assert core.is_over(done)
    announced, _ = core.create("pompeii", 3, {}, 8, {})
    play(core, announced, random.Random(8), 2)
    core.write(announced, records.RefereeActed("autoplay", 1, "seat 1 ran out of time"))
    play(core, announced, random.Random(9), 2)
    waiting = Seating(holders=["p-1", OPEN, "p-1"], creator="p-1", private=False, invite_hash="", created_at=0.0,
                      expires_at=1e12, claims=[1, 1, 1], token_pending=[False] * 3)
    seated, _ = core.create("pompeii", 3, {}, 9, {}, waiting)  # a lobby game: its start is a seating record
    full = dataclasses.replace(waiting, holders=["p-1", "p-2", "p-1"], claims=[1, 2, 1], started=True)
    core.write(seated, SeatingChanged(full, {1: auth.mint()[1]},
                                      (Event("game_started", {"seat_holders": lobby.holders(store.players, full)}),)))
    play(core, seated, random.Random(10), 3)
    assert seated.version == 3 and any(core.visible_events(seated, None))
    asyncio.run(store.snapshot())
    before = {g: shown(core, r) for g, r in store.games.items()}
    over = {g: core.is_over(r) for g, r in store.games.items()}
    store.close()
    return before, over


def test_item5_a_snapshots_games_are_restored_without_replaying_them(tmp_path, monkeypatch):
    before, over = every_game(tmp_path)
    built = []
    for game, _ in GAMES:
        engine = registry.game(game)
        monkeypatch.setattr(engine, "new_state", lambda *a, _f=engine.new_state, **k: built.append(1) or _f(*a, **k))
        monkeypatch.setattr(engine, "apply", lambda *a, _f=engine.apply, **k: built.append(1) or _f(*a, **k))
    store, core = open_store(tmp_path)
    assert built == []  # no new_state, no move replayed
    assert all(rec.pending is not None for rec in store.games.values())
    assert {g: core.is_over(r) for g, r in store.games.items()} == over  # from the snapshot
    assert built == [] and True in over.values()
    assert {g: shown(core, r) for g, r in store.games.items()} == before  # folded when first read
    assert all(rec.pending is None for rec in store.games.values()) and built
    store.close()


def test_item5_a_restored_game_plays_on_and_its_next_snapshot_restores_it_again(tmp_path):
    every_game(tmp_path)
    store, core = open_store(tmp_path)
    rng = random.Random(5)
    for rec in list(store.games.values()):
        play(core, rec, rng, 3, key_prefix="again")  # the write path settles the game first
    after = {g: shown(core, r) for g, r in store.games.items()}
    asyncio.run(store.snapshot())
    store.close()
    again, core = open_store(tmp_path)
    assert {g: shown(core, r) for g, r in again.games.items()} == after
    again.close()


def test_item5_journal_moves_after_the_snapshot_fold_their_game_at_restore(tmp_path):
    every_game(tmp_path)
    store, core = open_store(tmp_path)
    moved = next(r for r in store.games.values() if r.game == "pompeii" and not core.is_over(r))
    play(core, moved, random.Random(6), 2, key_prefix="j")
    after = {g: shown(core, r) for g, r in store.games.items()}
    store.close()  # no snapshot: the two moves are only in the journal
    again, core = open_store(tmp_path)
    assert again.games[moved.game_id].pending is None  # settled to replay its journaled moves
    assert sum(r.pending is not None for r in again.games.values()) == len(after) - 1
    assert {g: shown(core, r) for g, r in again.games.items()} == after
    again.close()


def test_item5_a_snapshot_written_before_engine_over_still_loads(tmp_path, monkeypatch):
    with monkeypatch.context() as m:  # the previous format: each game's history as it is
        m.setattr(records, "saved_game", lambda rec: bytes(rec.history))
        before, over = every_game(tmp_path)
    file = snapshots.path(tmp_path, snapshots.listed(tmp_path)[-1])
    assert all(records.split_saved(h)[0] is None for h in snapshots.load(file)[1])
    store, core = open_store(tmp_path)
    assert all(rec.pending is None for rec in store.games.values())  # folded through the engine, as before
    assert {g: shown(core, r) for g, r in store.games.items()} == before
    assert {g: core.is_over(r) for g, r in store.games.items()} == over
    asyncio.run(store.snapshot())  # rewritten in the current format
    store.close()
    again, core = open_store(tmp_path)
    assert all(rec.pending is not None for rec in again.games.values())
    assert {g: shown(core, r) for g, r in again.games.items()} == before
    again.close()


def _refuse(*a, **k):
    raise IllegalMove("POM-1", "a rules change refuses this move")


def test_item5_a_move_the_engine_refuses_when_a_restored_game_settles_is_named(tmp_path, monkeypatch):
    every_game(tmp_path)
    store, core = open_store(tmp_path)
    rec = next(r for r in store.games.values() if r.game == "pompeii" and r.version)
    with monkeypatch.context() as m:
        m.setattr(rec.engine, "apply", _refuse)
        with pytest.raises(records.Unsettled, match=f"game {rec.game_id}: the engine refuses its move at version 1"):
            core.view(rec, None)
    assert rec.pending is not None  # nothing half-made
    play(core, rec, random.Random(1), 1)  # journaled after the snapshot
    store.close()
    monkeypatch.setattr(rec.engine, "apply", _refuse)
    with pytest.raises(StartupError, match=f"game {rec.game_id}: the engine refuses its move at version 1"):
        open_store(tmp_path)  # a journaled move settles its game at start-up: refused loudly there


@pytest.mark.parametrize("enabled", [True, False])
def test_item5_restore_runs_no_cyclic_collection_and_leaves_the_collector_as_it_found_it(tmp_path, enabled):
    """Recovery only allocates what stays: a collection during it would scan the games loaded so far
    again for cycles they do not have (a third of restoring 100k games, bench/notes/service.md)."""
    import gc
    import sys

    every_game(tmp_path)
    store = Store(tmp_path, fsync="never")
    collections: list[int] = []

    def seen(phase: str, info: dict) -> None:  # a collection started inside the folding of games
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_name not in ("_load_snapshots", "_replay_segment"):
            frame = frame.f_back
        if phase == "start" and frame is not None:
            collections.append(info["generation"])
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    threshold = gc.get_threshold()
    gc.set_threshold(1, 1, 1)  # without the pause, every allocation of a container would collect
    gc.callbacks.append(seen)
    try:
        store.recover()
        still = gc.isenabled()
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*threshold)
        (gc.enable if was else gc.disable)()
    assert len(store.games) > 8
    assert collections == []
    assert still is enabled
    store.close()
