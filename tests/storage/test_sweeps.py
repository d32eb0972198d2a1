"""The periodic sweeps over every game in memory (snapshot, hibernation, eviction, idle-game expiry)
at 100,000 games: each goes over the games through `Store.sweep`, which yields to the event loop
whenever its share (LOOP_SHARE_S) is spent, none of them leaves an object per game for the cyclic
collector, and a pass that fails is logged and the next one runs. Lobby expiry goes over the waiting
games only (lobby.waiting_games, built at start-up)."""
from __future__ import annotations

import asyncio
import contextlib
import gc
import time

import pytest

from server import expiry, lobby
from server import store as store_module
from server.config import Config
from server.referee import Referee
from server.store import last_activity

from .support import open_store


def restored_games(tmp_path, n: int):
    """`n` games written, snapshotted and restored in a fresh store, as a restarted server has them."""
    store, core = open_store(tmp_path)
    for seed in range(n):
        core.create("pompeii", 3, {}, seed, {})
    asyncio.run(store.snapshot())
    store.close()
    return open_store(tmp_path)


def spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def sweeps(store, core, referee):
    """Each periodic task's pass, with settings under which it keeps every game."""
    return {
        "snapshot": lambda: store._snapshot(0.0),
        "hibernation": lambda: store.hibernate_idle(3600, core.is_over),
        "eviction": lambda: store.evict_finished(3600, core.is_over),
        "idle-game expiry": lambda: expiry.expire_games(store, core, referee, 3600),
    }


@pytest.mark.parametrize("task", ["snapshot", "hibernation", "eviction", "idle-game expiry"])
def test_every_periodic_task_goes_over_the_games_through_the_sweep(tmp_path, monkeypatch, task):
    store, core = restored_games(tmp_path, 30)
    seen: list[str] = []
    real_sweep = store_module.Store.sweep

    async def watched(self):
        async for rec in real_sweep(self):
            seen.append(rec.game_id)
            yield rec
    monkeypatch.setattr(store_module.Store, "sweep", watched)
    referee = Referee(core, Config())
    asyncio.run(sweeps(store, core, referee)[task]())
    assert sorted(seen) == sorted(store.games) and len(seen) == 30
    referee.close()
    store.close()


def test_a_sweep_yields_to_the_loop_once_its_share_is_spent(tmp_path, monkeypatch):
    """Games that each take longer than the share are one to a turn of the loop (a pass over 100,000
    games held the loop for 50-500 ms before)."""
    monkeypatch.setattr(store_module, "LOOP_SHARE_S", 0.002)
    store, core = restored_games(tmp_path, 12)
    turns = 0
    per_turn: dict[int, int] = {}

    async def ticker():
        nonlocal turns
        while True:
            turns += 1
            await asyncio.sleep(0)

    def slow_is_over(rec):
        spin(0.003)
        per_turn[turns] = per_turn.get(turns, 0) + 1
        return False

    async def main():
        t = asyncio.ensure_future(ticker())
        await asyncio.sleep(0)
        gone = await store.evict_finished(-1, slow_is_over)
        t.cancel()
        return gone
    assert asyncio.run(main()) == 0
    assert sum(per_turn.values()) == 12 and max(per_turn.values()) == 1
    store.close()


def test_a_game_that_left_memory_while_the_sweep_waited_is_skipped(tmp_path):
    store, core = restored_games(tmp_path, 3)
    first, gone, last = list(store.games)

    async def main():
        out = []
        async for rec in store.sweep():
            out.append(rec.game_id)
            if rec.game_id == first:
                store.forget(gone)
        return out
    assert asyncio.run(main()) == [first, last]
    store.close()


def test_sweeps_leave_no_object_per_game_for_the_collector(tmp_path):
    """A restarted server freezes what recovery loaded. Before, the first sweep that asked a restored
    game whether it was over read the record's `__dict__`, which CPython 3.11 then makes: 100,000 new
    dicts, and every full collection after that took ~55 ms to visit them."""
    n = 2000
    store, core = restored_games(tmp_path, n)
    gc.collect()
    gc.freeze()
    try:
        before = len(gc.get_objects())
        for rec in store.games.values():  # what each sweep asks of a game
            core.is_over(rec)
            last_activity(rec)
            rec.hibernate()
            lobby.seating_of(rec)
        asyncio.run(store.snapshot())
        gc.collect()
        assert len(gc.get_objects()) - before < n // 4  # the loops' and the referee's own: ~100
    finally:
        gc.unfreeze()
    store.close()


async def passes_until(task_loop, done, timeout_s: float = 20.0) -> None:
    """Run a periodic task (a pass every 0.5 s at these settings) until `done()` or the timeout."""
    task = asyncio.ensure_future(task_loop)
    deadline = time.monotonic() + timeout_s
    while not done() and not task.done() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def test_idle_game_expiry_goes_on_after_a_pass_the_journal_refused(tmp_path):
    """A pass that cannot write (a full disk for a moment) is logged, and the next pass expires the game:
    the task used to end with the exception, and no idle game expired until a restart."""
    from server.errors import Unavailable

    store, core = open_store(tmp_path)
    referee = Referee(core, Config())
    rec, _ = core.create("pompeii", 3, {}, 1, {})
    real_append = store._append
    refused = []

    def append_once_refused(frames, *a, **kw):
        if not refused:
            refused.append(frames)
            raise Unavailable("the server cannot write its journal (No space left on device)")
        return real_append(frames, *a, **kw)
    store._append = append_once_refused

    asyncio.run(passes_until(expiry.run(store, core, referee, 0.001), lambda: core.is_over(rec)))
    assert refused and core.is_over(rec)
    referee.close()
    store.close()


def test_eviction_goes_on_after_a_pass_that_failed(tmp_path):
    from server import main

    store, core = open_store(tmp_path)
    referee = Referee(core, Config())
    rec, _ = core.create("pompeii", 3, {}, 1, {})
    referee.abandon(rec, "test: over")
    real_is_over = core.is_over
    failed = []

    def is_over_once_failing(r):
        if not failed:
            failed.append(r.game_id)
            raise RuntimeError("test: the engine refuses this game's records")
        return real_is_over(r)
    core.is_over = is_over_once_failing

    asyncio.run(passes_until(main._evictions(store, core, 0.001, 0), lambda: rec.game_id not in store.games))
    assert failed and rec.game_id not in store.games
    referee.close()
    store.close()


def test_a_scrape_counts_the_games_on_the_event_loop(tmp_path):
    """The live-games gauges count when scraped, from the metrics server's thread. Counted there, 100,000
    games held the GIL 50-260 ms per scrape; now the thread asks the loop, which counts through the sweep."""
    import threading

    from server import observe

    store, core = open_store(tmp_path)
    referee = Referee(core, Config())
    games = [core.create("pompeii", 3, {}, seed, {})[0] for seed in range(3)]
    referee.abandon(games[0], "test: over")
    counted_on: set[int] = set()
    real_is_over = core.is_over

    def is_over(rec):
        counted_on.add(threading.get_ident())
        return real_is_over(rec)
    core.is_over = is_over

    async def main():
        counts = observe.GameCounts(core, asyncio.get_running_loop())
        scraped = await asyncio.to_thread(counts.scraped)  # as the metrics server's thread asks
        return threading.get_ident(), scraped
    loop_thread, scraped = asyncio.run(main())
    assert scraped == (2, 1) and counted_on == {loop_thread}
    referee.close()
    store.close()


def test_finished_games_beyond_the_cap_leave_memory_oldest_first(tmp_path):
    """GE_FINISHED_GAMES_MAX: games finished faster than GE_FINISHED_TTL_S lets them go held memory without
    bound (11,662 abandoned tournament games, 299 MB in 42 s, kept for a day)."""
    store, core = restored_games(tmp_path, 12)
    over = sorted(store.games)[:8]
    for i, game_id in enumerate(over):
        store.games[game_id].created = time.time() - 100 + i  # when each ended, oldest first (no move made)
    gone = asyncio.run(store.evict_finished(3600, lambda rec: rec.game_id in over, keep_at_most=5))
    assert gone == 3 and not set(over[:3]) & set(store.games) and set(over[3:]) <= set(store.games)
    assert len(store.games) == 9, "an unfinished game left"
    store.close()
