"""PlayerService: RegisterPlayer, GetPlayer and StreamPlayerEvents (player_stream.py).

A player is a unique name and a bearer token (shown once; the server keeps its SHA-256 hash, like
seat tokens). Rules of this layer:

    PLAYER-1: a name is 1-32 characters from A-Z a-z 0-9 _ - . (INVALID_ARGUMENT)
    PLAYER-2: names are unique on the server (ALREADY_EXISTS)
    PLAYER-3: joins, seat plans and the player stream need a registered player's token (UNAUTHENTICATED)
    PLAYER-4: a stream cursor is one the server issued and still keeps (the last 1000 events per player)
    PLAYER-5: GetPlayer names exactly one existing player (NOT_FOUND when there is none)
"""
from __future__ import annotations

import re
import secrets
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, TypedDict

import structlog

from gameengine.v1 import common_pb2, player_pb2, player_pb2_grpc

from . import access, auth, lobby, player_stream, quotas
from .edge import note, opened, rpc, rpc_stream
from .errors import AlreadyExists, InvalidArgument, NotFound
from .participation import Player, PlayerNotified, PlayerRegistered, seating_of
from .store import Store

if TYPE_CHECKING:
    from .service import GameCore

log = structlog.get_logger("gameengine.players")
NAME = re.compile(r"[A-Za-z0-9_.\-]{1,32}")


class Where(TypedDict):
    """The fields every player event message has."""
    game_id: str
    game: str
    seat: int


def register(store: Store, name: str) -> tuple[PlayerRegistered, str]:
    if not NAME.fullmatch(name):
        raise InvalidArgument("a player name is 1-32 characters from A-Z a-z 0-9 _ - .", rule="PLAYER-1")
    if name in store.players.by_name:
        raise AlreadyExists(f"the name {name!r} is taken", rule="PLAYER-2")
    token, digest = auth.mint()
    record = PlayerRegistered(player_id=f"p-{secrets.token_hex(8)}", name=name, token_hash=digest, at=time.time())
    store.write_player(record)
    return record, token


def event_proto(event: PlayerNotified, seat_token: str) -> player_pb2.StreamPlayerEventsResponse:
    where = Where(game_id=event.game_id, game=event.game, seat=event.seat)
    msg = player_pb2.StreamPlayerEventsResponse(cursor=event.cursor)
    if event.kind == "seat_assigned":
        msg.seat_assigned.CopyFrom(player_pb2.PlayerSeatAssigned(seat_token=seat_token, **where))
    elif event.kind == "game_started":
        msg.game_started.CopyFrom(player_pb2.PlayerGameStarted(**where))
    elif event.kind == "your_turn":
        msg.your_turn.CopyFrom(player_pb2.PlayerYourTurn(status=common_pb2.GameStatus(**(event.status or {})),
                                                         **where))
    elif event.kind == "game_over":
        msg.game_over.CopyFrom(player_pb2.PlayerGameOver(outcome=common_pb2.Outcome(**(event.outcome or {})),
                                                         **where))
    return msg


class PlayerServicer(player_pb2_grpc.PlayerServiceServicer):
    def __init__(self, core: GameCore) -> None:
        self.core = core

    @rpc
    async def RegisterPlayer(self, request: player_pb2.RegisterPlayerRequest,
                             context: Any) -> player_pb2.RegisterPlayerResponse:
        note(name_chars=len(request.name))
        access.require_create_key(context.invocation_metadata())
        quotas.QUOTAS.may_register(quotas.address())  # by address: a player is an identity
        record, token = register(self.core.store, request.name)
        return player_pb2.RegisterPlayerResponse(
            player=player_pb2.Player(player_id=record.player_id, name=record.name), player_token=token)

    @rpc
    async def GetPlayer(self, request: player_pb2.GetPlayerRequest, context: Any) -> player_pb2.GetPlayerResponse:
        players = self.core.store.players
        which = request.WhichOneof("who")
        if which is None:
            raise InvalidArgument("name one of player_id, name or player_token", rule="PLAYER-5")
        value = lobby.bounded(getattr(request, which), lobby.MAX_TOKEN, which)
        player: Player | None
        if which == "player_token":
            player = lobby.player_of(players, value)
        else:
            player = players.by_id.get(value if which == "player_id" else players.by_name.get(value, ""))
        if player is None:
            raise NotFound(f"no player with that {which.replace('_', ' ')}", rule="PLAYER-5")
        resp = player_pb2.GetPlayerResponse(player=player_pb2.Player(player_id=player.player_id,
                                                                     name=player.name))
        if which == "player_token":
            for rec in list(self.core.store.games.values()):
                seating = seating_of(rec)
                if seating is None or self.core.is_over(rec):
                    continue
                for seat in seating.seats_of(player.player_id):
                    resp.seats.add(game_id=rec.game_id, game=rec.game, seat=seat, waiting=seating.waiting)
        return resp

    @rpc_stream
    async def StreamPlayerEvents(self, request: player_pb2.StreamPlayerEventsRequest,
                                 context: Any) -> AsyncIterator[player_pb2.StreamPlayerEventsResponse]:
        note(cursor=request.cursor)
        player = lobby.player_of(self.core.store.players, request.player_token)
        player_stream.check_cursor(player, request.cursor)
        with quotas.QUOTAS.stream(quotas.caller(), "", spectator=False, address=quotas.address()):
            await opened(context)
            stream = player_stream.events(self.core, player, request.cursor)
            try:
                async for event, token in stream:
                    yield event_proto(event, token)  # the seat token goes out here only, and is never logged
            finally:
                await stream.aclose()
