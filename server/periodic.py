"""The server's periodic passes (snapshots, eviction, hibernation, idle-game and lobby expiry): each
runs on the event loop once a period, and a pass that fails is logged and the next one runs as usual
(a pass that ended its task stopped that work until a restart)."""
from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import structlog

log = structlog.get_logger("gameengine")


async def every(period_s: float, failed: str, one_pass: Callable[[], Awaitable[object]], offset_s: float = 0.0) -> None:
    """`one_pass()` every `period_s` (the first after `offset_s` more); a failure is logged as `failed`."""
    await asyncio.sleep(offset_s)
    while True:
        await asyncio.sleep(period_s)
        try:
            await one_pass()
        except Exception:
            log.exception(failed)
