"""Issue 15 item 6, the part a real server cannot show on demand: a worker pool that cannot
be replaced makes the referee unhealthy, and a working one makes it healthy again."""
from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import os
import signal
import types

import pytest

from server.config import Config
from server.errors import Unavailable
from server.referee import Referee


def dying_pool() -> concurrent.futures.ProcessPoolExecutor:
    """A pool whose every worker dies as it starts (the fault: no worker can run)."""
    return concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                                  initializer=os._exit, initargs=(3,))


def test_item6_not_serving_only_while_the_pool_cannot_be_replaced():
    async def scenario():
        referee = Referee(core=types.SimpleNamespace(), cfg=Config())  # the pool needs no games
        told: list[bool] = []
        referee.on_health = told.append
        try:
            assert await referee._in_pool("test", os.getpid) in referee.pool._processes
            working = referee._new_pool
            referee._new_pool = dying_pool
            for pid in list(referee.pool._processes):
                os.kill(pid, signal.SIGKILL)
            with pytest.raises(Unavailable):
                await referee._in_pool("test", os.getpid)
            assert told == [False] and not referee.healthy
            referee._new_pool = working
            await referee._probe()  # what the referee's tick runs every second while unhealthy
            assert told == [False, True] and referee.healthy
            assert await referee._in_pool("test", os.getpid) in referee.pool._processes
        finally:
            referee.close()
    asyncio.run(scenario())


def test_searches_run_at_a_lower_cpu_priority_than_the_server():
    """Hints, autoplay and adjudication yield the CPU to the server's own process (issue 19 item 2:
    a hint budget must not slow another caller's moves)."""
    from server.referee import SEARCH_NICENESS

    async def scenario():
        referee = Referee(core=types.SimpleNamespace(), cfg=Config())
        try:
            return await referee._in_pool("test", os.nice, 0)
        finally:
            referee.close()

    assert asyncio.run(scenario()) == os.nice(0) + SEARCH_NICENESS
