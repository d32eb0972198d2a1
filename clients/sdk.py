"""A small SDK over the generated stubs: hides stubs, tokens, versions and retries.

    client = Client("127.0.0.1:50051", "pompeii")
    game_id, tokens = client.create(seats=3, seed=7)
    seats = [client.seat(game_id, s, token) for s, token in enumerate(tokens)]
    while not (status := client.status(game_id)).over:
        seat = next(seat for seat in seats if status.acts(seat.seat))
        seat.move(seat.legal()[0])
    print(status.outcome["winners"])

A program that plays one seat among others loops on `seat.status().acts(seat.seat)`, moving when
it is true and calling `seat.wait()` (which returns once the game moved) when it is not.
(tests/clients/test_sdk_docstring.py runs the example above against a real server.)
"""
from __future__ import annotations

import builtins
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from google.protobuf import json_format
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from engines.core import Move
from gameengine import codecs
from gameengine.v1 import (
    common_pb2,
    common_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    player_pb2,
    player_pb2_grpc,
    tournament_pb2,
    tournament_pb2_grpc,
)

RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.RESOURCE_EXHAUSTED)
POLICY_CODES = {"autoplay": common_pb2.TIMEOUT_POLICY_AUTOPLAY, "random": common_pb2.TIMEOUT_POLICY_RANDOM,
                "forfeit": common_pb2.TIMEOUT_POLICY_FORFEIT}
Response = TypeVar("Response")


class Refused(Exception):
    """The server refused a call; `rule` is the rule id for an illegal move."""

    def __init__(self, code: grpc.StatusCode, message: str, rule: str = ""):
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message
        self.rule = rule


def refusal(err: grpc.RpcError) -> Refused:
    rule = ""
    status: status_pb2.Status | None = rpc_status.from_call(err) if isinstance(err, grpc.Call) else None
    if status is not None:
        for d in status.details:
            info = error_details_pb2.ErrorInfo()
            if d.Unpack(info):  # False for a detail of another type
                rule = info.metadata.get("rule", "")
    return Refused(err.code(), err.details() or "", rule)


@dataclass
class Status:
    game_id: str
    version: int
    seats_to_act: list[int]
    to_move: int
    over: bool
    outcome: dict[str, Any]
    seats: int

    @classmethod
    def of(cls, msg: common_pb2.GameStatus) -> Status:
        return cls(msg.game_id, msg.version, list(msg.seats_to_act), msg.to_move, msg.over,
                   json_format.MessageToDict(msg.outcome, preserving_proto_field_name=True), msg.seats)

    def acts(self, seat: int) -> bool:
        """Whether `seat` should act now: its turn, or it alone may answer (e.g. a defender)."""
        if self.over or seat not in self.seats_to_act:
            return False
        return self.to_move == seat or self.to_move not in self.seats_to_act


def routing(request: Message, route: str = "") -> tuple[tuple[str, str], ...]:
    """`x-game-id` metadata for a request that names a game (or a tournament): a proxy in front of
    several replicas routes on it to the owner (k8s/). Creates carry none (any replica) unless
    `route` names a game or tournament whose replica the caller lives on (players, entrants)."""
    key = getattr(request, "game_id", "") or getattr(request, "tournament_id", "") or route
    return (("x-game-id", key),) if key else ()


def retry_delay_s(err: grpc.RpcError) -> float:
    """The server's RetryInfo delay (a quota refusal says when to come back), else 0."""
    status: status_pb2.Status | None = rpc_status.from_call(err) if isinstance(err, grpc.Call) else None
    for d in status.details if status is not None else ():
        info = error_details_pb2.RetryInfo()
        if d.Unpack(info):  # False for a detail of another type
            return info.retry_delay.seconds + info.retry_delay.nanos / 1e9
    return 0.0


def call(fn: Callable[..., Response], request: Message, retries: int = 5, timeout: float = 30.0,
         metadata: Iterable[tuple[str, str]] = (), route: str = "") -> Response:
    """Unary call with backoff on transient failures (at least the server's RetryInfo delay,
    at most 10 s). Writes stay safe to retry because they carry an idempotency key."""
    delay = 0.1
    attempt = 0
    while True:
        try:
            return fn(request, timeout=timeout, metadata=routing(request, route) + tuple(metadata))
        except grpc.RpcError as e:
            if e.code() not in RETRYABLE or attempt == retries:
                raise refusal(e) from None
            time.sleep(min(max(delay, retry_delay_s(e)), 10.0))
            delay = min(delay * 2, 2.0)
            attempt += 1


def key_metadata(api_key: str) -> tuple[tuple[str, str], ...]:
    """The creator's API key (`x-api-key`) for a server with GE_CREATE_TOKENS: games, players, tournaments."""
    return (("x-api-key", api_key),) if api_key else ()


def make_channel(target: str, tls: bool = False, ca: str | None = None, cert: str | None = None,
                 key: str | None = None) -> grpc.Channel:
    """A channel to the server: plaintext, or TLS (`ca`: PEM file to trust instead of the system's
    roots; `cert`/`key`: this client's certificate for a server that wants mutual TLS)."""
    options: list[tuple[str, Any]] = [("grpc.max_receive_message_length", 16 << 20)]
    if not (tls or ca or cert):
        return grpc.insecure_channel(target, options=options)
    def read(path: str | None) -> bytes | None:
        if not path:
            return None
        with open(path, "rb") as f:
            return f.read()

    creds = grpc.ssl_channel_credentials(root_certificates=read(ca), private_key=read(key),
                                         certificate_chain=read(cert))
    return grpc.secure_channel(target, creds, options=options)


def _callable(channel: grpc.Channel, service: str, method: MethodDescriptor, response: type[Message]) -> Any:
    """The multicallable of one RPC, from its descriptor (what a generated stub holds). Any: its
    messages are the game's own classes, found by reflection (gameengine.codecs)."""
    make = channel.unary_stream if method.server_streaming else channel.unary_unary
    return make(f"/{service}/{method.name}", request_serializer=lambda m: m.SerializeToString(),
                response_deserializer=response.FromString)


class Client:
    """`tls`/`ca`/`cert`/`key` as for `make_channel`; `api_key` is sent on creates (`x-api-key`)
    for a server with GE_CREATE_TOKENS."""

    def __init__(self, target: str, game: str, channel: grpc.Channel | None = None, *, tls: bool = False,
                 ca: str | None = None, cert: str | None = None, key: str | None = None, api_key: str = ""):
        self.target = target
        self.game = game
        self.codec = codecs.codec(game)
        self.channel = channel or make_channel(target, tls, ca, cert, key)
        self.api_key = api_key
        self.common = common_pb2_grpc.GameServiceStub(self.channel)
        # The game's RPCs by role (gameengine.codecs.RPCS), e.g. rpcs["make_move"] calls MakePompeiiMove.
        self.rpcs = {role: _callable(self.channel, self.codec.service.full_name, m, self.codec.response(role))
                     for role, m in self.codec.rpcs.items()}

    def request(self, role: str, **fields: Any) -> Any:
        """The request message of one of the game's RPCs, e.g. request("make_move", ...); Any: the
        game's own class, found by reflection."""
        return self.codec.request(role)(**fields)

    def create(self, seats: int, options: dict[str, Any] | None = None, seed: int | None = None,
               time_bank_ms: int = 0, increment_ms: int = 0, timeout_policy: str = "autoplay",
               max_moves: int = 0, open_seats: Iterable[int] = (), reserved: dict[int, str] | None = None,
               private: bool = False, player_token: str = "") -> tuple[str, list[str]]:
        """(game id, token per seat). Open and reserved seats (which need `player_token`) have ""
        tokens; a private game's invite code is then in `self.invite_code`."""
        req = self.request("create_game", seats=seats, options=self.codec.options_to_proto(options or {}),
                        referee=common_pb2.RefereeOptions(time_bank_ms=time_bank_ms, increment_ms=increment_ms,
                                                          timeout_policy=POLICY_CODES[timeout_policy],
                                                          max_moves=max_moves),
                        open_seats=list(open_seats), private=private, player_token=player_token,
                        reserved_seats=[common_pb2.SeatReservation(seat=s, player_id=p)
                                        for s, p in (reserved or {}).items()])
        if seed is not None:
            req.seed = seed
        resp = call(self.rpcs["create_game"], req, metadata=key_metadata(self.api_key))
        self.invite_code = resp.invite_code
        tokens = [""] * seats
        for t in resp.seat_tokens:
            tokens[t.seat] = t.token
        return resp.game_id, tokens

    def seat(self, game_id: str, seat: int, token: str) -> SeatClient:
        return SeatClient(self, game_id, seat, token)

    def spectator(self, game_id: str) -> SeatClient:
        return SeatClient(self, game_id, -1, "")

    def status(self, game_id: str, token: str = "") -> Status:
        resp = call(self.common.GetGameStatus, common_pb2.GetGameStatusRequest(game_id=game_id, token=token))
        return Status.of(resp.status)

    def adjudicate(self, game_id: str, tokens: Iterable[str], reason: str, rollouts: int = 0) -> Status:
        resp = call(self.common.AdjudicateGame, common_pb2.AdjudicateGameRequest(
            game_id=game_id, tokens=list(tokens), reason=reason, rollouts=rollouts), timeout=120)
        return Status.of(resp.status)

    def close(self) -> None:
        self.channel.close()


class SeatClient:
    """One seat (or a spectator, seat -1) of one game."""

    def __init__(self, client: Client, game_id: str, seat: int, token: str):
        self.client = client
        self.game_id = game_id
        self.seat = seat
        self.token = token
        self.last: Status | None = None

    def view(self) -> tuple[Status, dict[str, Any]]:
        c = self.client
        resp = call(c.rpcs["get_view"], c.request("get_view", game_id=self.game_id, token=self.token))
        self.last = Status.of(resp.status)
        return self.last, c.codec.view_from_proto(resp.view)

    def status(self) -> Status:
        self.last = self.client.status(self.game_id, self.token)
        return self.last

    def legal(self) -> list[Move]:
        c = self.client
        resp = call(c.rpcs["list_moves"], c.request("list_moves", game_id=self.game_id, token=self.token))
        self.last = Status.of(resp.status)
        return [c.codec.move_from_proto(m) for m in resp.moves]

    def move(self, move: Move, expected_version: int | None = None) -> list[tuple[str, dict[str, Any]]]:
        """Send a move once, whatever the retries: one idempotency key per move. The mover's next
        legal moves are then in `self.next_legal`."""
        c = self.client
        version = expected_version if expected_version is not None else (self.last or self.status()).version
        req = c.request("make_move", game_id=self.game_id, token=self.token, expected_version=version,
                     idempotency_key=uuid.uuid4().hex, move=c.codec.move_to_proto(move))
        resp = call(c.rpcs["make_move"], req)
        self.last = Status.of(resp.status)
        self.next_legal = [c.codec.move_from_proto(m) for m in resp.legal_moves]
        return [c.codec.event_from_proto(e) for e in resp.events]

    def hint(self, budget_ms: int = 200) -> tuple[Move, list[tuple[Move, float, int]]]:
        c = self.client
        resp = call(c.rpcs["get_hint"], c.request("get_hint", game_id=self.game_id, token=self.token,
                                                 budget_ms=budget_ms), retries=0)
        return (c.codec.move_from_proto(resp.best),
                [(c.codec.move_from_proto(v.move), v.value, v.visits) for v in resp.values])

    def log(self) -> Any:
        """The game's Get<Game>Log response (its own class, found by reflection)."""
        c = self.client
        return call(c.rpcs["get_log"], c.request("get_log", game_id=self.game_id, token=self.token))

    def events(self, from_version: int = 0, timeout: float | None = None) -> Iterator[tuple[int, str, dict[str, Any]]]:
        """Iterate (version, kind, data) as the server streams them; ends with the game."""
        c = self.client
        req = c.request("stream_events", game_id=self.game_id, token=self.token, from_version=from_version)
        stream = c.rpcs["stream_events"](req, timeout=timeout, metadata=routing(req))
        for item in stream:
            kind, data = c.codec.event_from_proto(item.event)
            yield item.version, kind, data

    def wait(self, timeout: float = 2.0) -> Status:
        """Block until the game moves past the last seen version (or timeout), then refresh."""
        version = (self.last or self.status()).version
        try:
            for v, _, _ in self.events(from_version=version, timeout=timeout):
                if v > version:
                    break
        except grpc.RpcError as e:
            if e.code() not in RETRYABLE:
                raise refusal(e) from None
        return self.status()

    def states(self, timeout: float | None = None) -> Iterator[tuple[Status, dict[str, Any], list[Move]]]:
        """Iterate (status, view, legal moves) after every accepted change; ends with the game."""
        c = self.client
        req = c.request("stream_state", game_id=self.game_id, token=self.token)
        for item in c.rpcs["stream_state"](req, timeout=timeout, metadata=routing(req)):
            self.last = Status.of(item.status)
            yield self.last, c.codec.view_from_proto(item.view), [c.codec.move_from_proto(m) for m in item.legal_moves]


@dataclass
class PlayerEvent:
    """One event of a player's stream: kind is "seat_assigned", "game_started", "your_turn" or "game_over"."""
    cursor: int
    kind: str
    game_id: str
    game: str
    seat: int
    seat_token: str = ""  # seat_assigned of a reserved seat, on its first delivery only
    status: Status | None = None  # your_turn
    outcome: dict[str, Any] | None = None  # game_over

    @classmethod
    def of(cls, msg: player_pb2.StreamPlayerEventsResponse) -> PlayerEvent:
        kind = msg.WhichOneof("event")
        if kind is None:
            raise ValueError(f"player event {msg.cursor} has no event set")
        body = getattr(msg, kind)
        return cls(msg.cursor, kind, body.game_id, body.game, body.seat,
                   seat_token=getattr(body, "seat_token", ""),
                   status=Status.of(body.status) if kind == "your_turn" else None,
                   outcome=json_format.MessageToDict(body.outcome, preserving_proto_field_name=True)
                   if kind == "game_over" else None)


class PlayerClient:
    """A registered player: the lobby and the player stream. Only the player token is needed.

        me = PlayerClient.register("127.0.0.1:50051", "alice")
        for event in me.events():  # seat assigned, game started, your turn, game over
            ...
    """

    def __init__(self, target: str, token: str, channel: grpc.Channel | None = None, route: str = "",
                 tls: dict[str, Any] | None = None):
        self.target = target
        self.token = token
        self.player_id = ""  # known after register(), or set by a caller that asked GetPlayer
        self.name = ""
        self.channel = channel or make_channel(target, **(tls or {}))
        self.players = player_pb2_grpc.PlayerServiceStub(self.channel)
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(self.channel)
        self.cursor = 0  # of the last event received: events() resumes from it
        self.route = route  # behind the k8s router: a game or tournament id on the player's replica

    @classmethod
    def register(cls, target: str, name: str, route: str = "", tls: dict[str, Any] | None = None,
                 api_key: str = "") -> PlayerClient:
        with make_channel(target, **(tls or {})) as ch:
            resp = call(player_pb2_grpc.PlayerServiceStub(ch).RegisterPlayer,
                        player_pb2.RegisterPlayerRequest(name=name), metadata=key_metadata(api_key), route=route)
        me = cls(target, resp.player_token, route=route, tls=tls)
        me.player_id, me.name = resp.player.player_id, resp.player.name
        return me

    def me(self) -> player_pb2.GetPlayerResponse:
        return call(self.players.GetPlayer, player_pb2.GetPlayerRequest(player_token=self.token), route=self.route)

    def open_games(self, game: str = "", page_size: int = 20) -> list[lobby_pb2.OpenGame]:
        """Every public waiting game with a free seat (all pages)."""
        games: list[lobby_pb2.OpenGame] = []
        token = ""
        while True:
            resp = call(self.lobby.ListOpenGames, lobby_pb2.ListOpenGamesRequest(game=game, page_size=page_size,
                                                                                page_token=token))
            games.extend(resp.games)
            token = resp.next_page_token
            if not token:
                return games

    def join(self, game_id: str, seat: int | None = None, invite_code: str = "") -> lobby_pb2.JoinGameResponse:
        req = lobby_pb2.JoinGameRequest(game_id=game_id, player_token=self.token, invite_code=invite_code)
        if seat is not None:
            req.seat = seat
        return call(self.lobby.JoinGame, req)

    def leave(self, game_id: str, seat: int | None = None) -> Status:
        req = lobby_pb2.LeaveGameRequest(game_id=game_id, player_token=self.token)
        if seat is not None:
            req.seat = seat
        return Status.of(call(self.lobby.LeaveGame, req).status)

    def events(self, cursor: int | None = None, timeout: float | None = None,
               reconnect: bool = True) -> Iterator[PlayerEvent]:
        """Iterate PlayerEvents after `cursor` (default: the last one received), reconnecting from
        the last cursor after a transient failure, so nothing is lost or repeated."""
        if cursor is not None:
            self.cursor = cursor
        delay = 0.2
        while True:
            try:
                req = player_pb2.StreamPlayerEventsRequest(player_token=self.token, cursor=self.cursor)
                for msg in self.players.StreamPlayerEvents(req, timeout=timeout, metadata=routing(req, self.route)):
                    self.cursor = msg.cursor
                    delay = 0.2
                    yield PlayerEvent.of(msg)
                return
            except grpc.RpcError as e:
                if not reconnect or e.code() not in (grpc.StatusCode.UNAVAILABLE,):
                    raise refusal(e) from None
                time.sleep(delay)
                delay = min(delay * 2, 2.0)

    def close(self) -> None:
        self.channel.close()


FORMATS = {"round_robin": tournament_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN, "swiss": tournament_pb2.TOURNAMENT_FORMAT_SWISS}
TOURNAMENT_STATES = {v: k for k, v in tournament_pb2.TournamentState.items()}


@dataclass
class TournamentEvent:
    """One event of a tournament's stream: kind is "game_scheduled", "game_finished", "round_finished",
    "standings_changed" or "tournament_finished"; body is its message."""
    cursor: int
    kind: str
    body: Any


class TournamentClient:
    """TournamentService: create, enter, start, follow and read tournaments.

        tc = TournamentClient("127.0.0.1:50051")
        t, creator = tc.create("citadels", 4, games=12, time_bank_ms=2000, increment_ms=200)
        tc.join(t.tournament_id, player_token)            # each entrant, with its own token
        tc.start(t.tournament_id, creator)
        for event in tc.events(t.tournament_id): ...      # ends with tournament_finished
    """

    def __init__(self, target: str, channel: grpc.Channel | None = None, tls: dict[str, Any] | None = None,
                 api_key: str = ""):
        self.target = target
        self.channel = channel or make_channel(target, **(tls or {}))
        self.stub = tournament_pb2_grpc.TournamentServiceStub(self.channel)
        self.api_key = api_key  # sent on create (x-api-key), for a server with GE_CREATE_TOKENS
        self.cursor = 0

    def create(self, game: str, seats: int, fmt: str = "round_robin", games: int = 0, rounds: int = 0,
               time_bank_ms: int = 2000, increment_ms: int = 200, timeout_policy: str = "autoplay",
               max_moves: int = 0, max_parallel: int = 0, player_ids: Iterable[str] = (), max_entrants: int = 0,
               points_per_rank: Iterable[float] = (), seed: int | None = None,
               options: dict[str, Any] | None = None, name: str = "") -> tuple[tournament_pb2.Tournament, str]:
        """(the tournament, its creator token). `fmt` is "round_robin" or "swiss"."""
        req = tournament_pb2.CreateTournamentRequest(
            name=name, game=game, seats_per_game=seats,
            format=FORMATS.get(fmt, tournament_pb2.TOURNAMENT_FORMAT_UNSPECIFIED), games=games, rounds=rounds,
            clock=tournament_pb2.TournamentClock(time_bank_ms=time_bank_ms, increment_ms=increment_ms,
                                                 timeout_policy=POLICY_CODES[timeout_policy], max_moves=max_moves),
            max_parallel_games=max_parallel, player_ids=list(player_ids), max_entrants=max_entrants,
            points_per_rank=list(points_per_rank))
        if options:
            getattr(req, game).CopyFrom(codecs.codec(game).options_to_proto(options))
        if seed is not None:
            req.seed = seed
        resp = call(self.stub.CreateTournament, req, retries=0, metadata=key_metadata(self.api_key))
        return resp.tournament, resp.creator_token

    def join(self, tournament_id: str, player_token: str) -> tournament_pb2.Tournament:
        return call(self.stub.JoinTournament, tournament_pb2.JoinTournamentRequest(
            tournament_id=tournament_id, player_token=player_token)).tournament

    def withdraw(self, tournament_id: str, player_token: str) -> tournament_pb2.Tournament:
        return call(self.stub.WithdrawFromTournament, tournament_pb2.WithdrawFromTournamentRequest(
            tournament_id=tournament_id, player_token=player_token)).tournament

    def start(self, tournament_id: str, creator_token: str) -> tournament_pb2.Tournament:
        return call(self.stub.StartTournament, tournament_pb2.StartTournamentRequest(
            tournament_id=tournament_id, creator_token=creator_token)).tournament

    def cancel(self, tournament_id: str, creator_token: str) -> tournament_pb2.Tournament:
        return call(self.stub.CancelTournament, tournament_pb2.CancelTournamentRequest(
            tournament_id=tournament_id, creator_token=creator_token)).tournament

    def get(self, tournament_id: str, creator_token: str = "") -> tournament_pb2.Tournament:
        """`creator_token`: a finished tournament's seeds are shown to its creator only (0 otherwise)."""
        req = tournament_pb2.GetTournamentRequest(tournament_id=tournament_id, creator_token=creator_token)
        return call(self.stub.GetTournament, req).tournament

    def list(self, game: str = "", page_size: int = 20, page_token: str = "") -> tournament_pb2.ListTournamentsResponse:
        return call(self.stub.ListTournaments, tournament_pb2.ListTournamentsRequest(
            game=game, page_size=page_size, page_token=page_token))

    def leaderboard(self, game: str, page_size: int = 20) -> builtins.list[tournament_pb2.LeaderboardEntry]:
        return list(call(self.stub.GetLeaderboard, tournament_pb2.GetLeaderboardRequest(
            game=game, page_size=page_size)).entries)

    def events(self, tournament_id: str, cursor: int | None = None,
               timeout: float | None = None) -> Iterator[TournamentEvent]:
        """TournamentEvents after `cursor` (default: the last one received), reconnecting from the last
        cursor after a transient failure (a server restart): nothing lost or repeated. Ends with
        tournament_finished."""
        if cursor is not None:
            self.cursor = cursor
        delay = 0.2
        while True:
            try:
                req = tournament_pb2.StreamTournamentEventsRequest(tournament_id=tournament_id, cursor=self.cursor)
                for msg in self.stub.StreamTournamentEvents(req, timeout=timeout, metadata=routing(req)):
                    self.cursor = msg.cursor
                    delay = 0.2
                    kind = msg.WhichOneof("event")
                    if kind is None:
                        raise ValueError(f"tournament event {msg.cursor} has no event set")
                    yield TournamentEvent(msg.cursor, kind, getattr(msg, kind))
                    if kind == "tournament_finished":
                        return
                return
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.UNAVAILABLE:
                    raise refusal(e) from None
                time.sleep(delay)
                delay = min(delay * 2, 2.0)

    def close(self) -> None:
        self.channel.close()
