"""A player's stream: what concerns it across all its games, as journaled, numbered events.

After every change to a game with a seating (store listener) `sync` compares what each seated
player was told (Player.progress) with the game as it stands and journals the missing events:
the seat assigned, the game started, your turn (once per version at which the seat should act),
the game over. Running it again finds nothing missing, so it also runs over every game after a
restart: an event lost to a crash between a move and its notification is made up then, and one
already journaled is never repeated. Events are numbered per player (cursor 1, 2, ...).
"""
from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any

import structlog

from . import auth
from .errors import Illegal, InvalidArgument
from .participation import EVENTS_KEPT, OPEN, Player, PlayerNotified, SeatingChanged, seating_of
from .records import GameRecord

if TYPE_CHECKING:
    from .service import GameCore

log = structlog.get_logger("gameengine.players")


def acts(status: dict[str, Any], seat: int) -> bool:
    """The seat should act now: its turn, or it alone may answer (the SDK's Status.acts)."""
    to_act = status["seats_to_act"]
    return not status["over"] and seat in to_act and (status["to_move"] == seat or status["to_move"] not in to_act)


def due(core: GameCore, rec: GameRecord) -> list[dict[str, Any]]:
    """The events the game's seated players should have had by now and have not."""
    seating = seating_of(rec)
    if seating is None:
        return []
    players = core.store.players
    over = seating.expired or core.is_over(rec)
    out: list[dict[str, Any]] = []  # PlayerNotified's fields but the cursor
    for seat, pid in enumerate(seating.holders):
        player = players.by_id.get(pid) if pid != OPEN else None
        if player is None:
            continue
        told = player.progress.get((rec.game_id, seat), {})
        base = {"player_id": pid, "game_id": rec.game_id, "game": rec.game, "seat": seat}
        if told.get("claim", 0) < seating.claims[seat]:
            out.append(dict(base, kind="seat_assigned", progress=("claim", seating.claims[seat])))
        if seating.started and not told.get("started"):
            out.append(dict(base, kind="game_started", progress=("started", True)))
        if over:
            if not told.get("over"):
                outcome = None if seating.expired else core.outcome(rec)
                out.append(dict(base, kind="game_over", progress=("over", True), outcome=outcome))
        elif seating.started and told.get("turn", -1) < rec.version:
            status = core.status(rec, seat)
            if acts(status, seat):
                out.append(dict(base, kind="your_turn", progress=("turn", rec.version), status=status))
    return out


def sync(core: GameCore, game_id: str) -> int:
    """Journal the missing events of one game's players; wake their streams."""
    rec = core.store.games.get(game_id)
    if rec is None:
        core.store.players.forget_game(game_id)
        return 0
    return _notify_all(core, due(core, rec))


def sync_all(core: GameCore) -> int:
    return sum(_notify_all(core, due(core, rec)) for rec in list(core.store.games.values()))


def _notify_all(core: GameCore, events: list[dict[str, Any]]) -> int:
    store = core.store
    for e in events:
        player = store.players.by_id[e["player_id"]]
        store.write_player(PlayerNotified(cursor=player.last_cursor + 1, **e))
        signal = store.players.signals.pop(player.player_id, None)
        if signal is not None:
            signal.set()
    return len(events)


def listener(core: GameCore) -> Callable[[str], None]:
    """The store listener: sync after every change. A failure here must not fail the change
    (it is journaled already); what was not told is told on the next change or restart."""
    def on_change(game_id: str) -> None:
        try:
            sync(core, game_id)
        except Exception:
            log.exception("player_sync_failed", game_id=game_id)
    return on_change


def first_delivery(core: GameCore, event: PlayerNotified) -> str:
    """The seat token of a reserved seat, minted on the first delivery of its "seat assigned"
    (the plain token never reaches the journal); "" when it went out another way or before."""
    rec = core.store.games.get(event.game_id)
    seating = seating_of(rec) if rec is not None else None
    if (rec is None or seating is None or event.kind != "seat_assigned" or not seating.token_pending[event.seat]
            or seating.holders[event.seat] != event.player_id or core.is_over(rec)):
        return ""
    token, digest = auth.mint()
    pending = list(seating.token_pending)
    pending[event.seat] = False
    core.store.commit(rec, [SeatingChanged(dataclasses.replace(seating, token_pending=pending), {event.seat: digest})])
    return token


def check_cursor(player: Player, cursor: int) -> None:
    if cursor > player.last_cursor:
        raise InvalidArgument(f"cursor {cursor} is beyond the player's last event ({player.last_cursor})",
                              rule="PLAYER-4")
    oldest = player.events[0].cursor if player.events else player.last_cursor + 1
    if cursor + 1 < oldest:
        raise Illegal(f"cursor {cursor} is older than the {EVENTS_KEPT} events kept; the oldest kept is "
                      f"{oldest}", rule="PLAYER-4")


async def events(core: GameCore, player: Player, cursor: int) -> AsyncGenerator[tuple[PlayerNotified, str], None]:
    """(event, seat token or "") after `cursor` (checked), then live ones, until the caller goes away."""
    players = core.store.players
    while True:
        signal = players.signals.setdefault(player.player_id, asyncio.Event())
        pending = [e for e in player.events if e.cursor > cursor]
        for event in pending:
            yield event, first_delivery(core, event)
            cursor = event.cursor
        if pending:
            continue
        await core.store.wait(signal)
