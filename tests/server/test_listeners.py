"""The server's start-up wires each store listener once (a tournament game's end advances its tournament once)."""
from __future__ import annotations

import asyncio

from server import main, tournaments
from server.config import Config
from tests.conftest import free_port


def test_the_tournament_listener_is_registered_once(tmp_path, monkeypatch):
    made = []
    real = tournaments.listener

    def counting(core, referee):
        made.append(core)
        return real(core, referee)
    monkeypatch.setattr(tournaments, "listener", counting)
    cfg = Config.from_env({"GE_DATA_DIR": str(tmp_path), "GE_PORT": str(free_port()), "GE_WEB_PORT": "0",
                           "GE_METRICS_PORT": "0", "GE_LOG_LEVEL": "warning"})

    async def scenario():
        ready = asyncio.Event()
        task = asyncio.create_task(main.serve(cfg, ready))
        await asyncio.wait([task, asyncio.create_task(ready.wait())], timeout=30,
                           return_when=asyncio.FIRST_COMPLETED)
        assert ready.is_set(), task.exception() if task.done() else "the server did not start"
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    asyncio.run(scenario())
    assert len(made) == 1
