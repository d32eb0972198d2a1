"""Expiry of games nobody plays: an unfinished game with no move for GE_IDLE_GAME_TTL_S is
abandoned by the referee (`Referee.abandon`: no winner, every seat ranked 1, a referee event
saying why) and then leaves memory like a finished game (GE_FINISHED_TTL_S after its last move).

`idle` is the reusable part: any kind of waiting record (a lobby game with an open seat, say)
expires through it with its own liveness test and time-to-live.
"""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeVar

import structlog

from .store import Store, last_activity

if TYPE_CHECKING:
    from .referee import Referee
    from .service import GameCore

log = structlog.get_logger("gameengine")
R = TypeVar("R")


def idle(records: Iterable[R], waiting: Callable[[R], bool], last: Callable[[R], float], ttl_s: float,
         now: float) -> list[R]:
    """The records still waiting whose last activity is more than `ttl_s` ago."""
    cutoff = now - ttl_s
    return [r for r in records if last(r) < cutoff and waiting(r)]


def expire_games(store: Store, core: GameCore, referee: Referee, ttl_s: float, now: float | None = None) -> int:
    """Abandon every unfinished game with no move for `ttl_s`; returns how many."""
    now = time.time() if now is None else now
    games = idle(list(store.games.values()), lambda r: not core.is_over(r), last_activity, ttl_s, now)
    for rec in games:
        referee.abandon(rec, f"no move for {ttl_s:g} s; the referee abandons the game (GE_IDLE_GAME_TTL_S)")
    return len(games)


async def run(store: Store, core: GameCore, referee: Referee, ttl_s: float) -> None:
    if ttl_s <= 0:
        return
    while True:
        await asyncio.sleep(min(60.0, max(ttl_s / 4, 0.5)))
        gone = expire_games(store, core, referee, ttl_s)
        if gone:
            log.info("abandoned_idle_games", games=gone, ttl_s=ttl_s)

