"""Expiry of games nobody plays: an unfinished game with no move for GE_IDLE_GAME_TTL_S (counted
from its start for a lobby game) is abandoned by the referee (`Referee.abandon`: no winner, every
seat ranked 1, a referee event saying why) and then leaves memory like a finished game
(GE_FINISHED_TTL_S after its last move). A game still waiting for players is the lobby's (LOBBY-9).
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

import structlog

from . import periodic
from .store import Store, last_activity

if TYPE_CHECKING:
    from .referee import Referee
    from .service import GameCore

log = structlog.get_logger("gameengine")


async def expire_games(store: Store, core: GameCore, referee: Referee, ttl_s: float, now: float | None = None) -> int:
    """Abandon every unfinished game with no move for `ttl_s`; returns how many."""
    cutoff = (time.time() if now is None else now) - ttl_s
    gone = 0
    async for rec in store.sweep():
        waiting = rec.seating is not None and rec.seating.waiting  # expires by LOBBY-9, unstarted
        if not waiting and last_activity(rec) < cutoff and not core.is_over(rec):
            referee.abandon(rec, f"no move for {ttl_s:g} s; the referee abandons the game (GE_IDLE_GAME_TTL_S)")
            gone += 1
    return gone


async def run(store: Store, core: GameCore, referee: Referee, ttl_s: float) -> None:
    if ttl_s <= 0:
        return

    async def one_pass() -> None:  # may fail when the journal cannot be written now
        gone = await expire_games(store, core, referee, ttl_s)
        if gone:
            log.info("abandoned_idle_games", games=gone, ttl_s=ttl_s)
    await periodic.every(min(60.0, max(ttl_s / 4, 0.5)), "idle_game_expiry_failed", one_pass)
