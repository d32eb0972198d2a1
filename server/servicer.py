"""gRPC edge: every game's service (protos/gameengine/v1/TEMPLATE.md) served by one class.

`GameServicer` holds, for one game, the handler of each RPC its service declares: `make_move`
handles `MakePompeiiMove` for Pompeii, `MakeKuhnMove` for Kuhn poker (the table of RPC names is
`gameengine.codecs.RPCS`; `handlers()` binds them from the service descriptor, and the
README's "RPC index" lists every RPC with its handler). Each handler reads top to bottom:
authenticate, convert protobuf -> engine values with the game's codec, call GameCore
(server/service.py), convert back. What every RPC shares (the quota check, one log line with
latency, the latency metric, refusals as google.rpc statuses) is the `@rpc` / `@rpc_stream`
decorator of server/edge.py; a handler adds fields to its log line with `note(...)`.
"""
from __future__ import annotations

import inspect
import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import TYPE_CHECKING, Any

import grpc
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import Message

from engines import registry
from engines.core import Move
from gameengine.codecs import Codec, MalformedMove
from gameengine.v1 import common_pb2, common_pb2_grpc

from . import access, clock, drain, fanout, limits, lobby, metrics, observe, quotas, wire
from .edge import Shown, guarded, note, opened, rpc, rpc_stream
from .errors import InvalidArgument, ServiceError, game_over, oversize, undecodable
from .moveprotos import move_fields, move_from_wire, move_proto
from .service import GameCore, check_seats

if TYPE_CHECKING:
    from .referee import Referee

# ---- every game's service ---------------------------------------------------------------------

def status_proto(d: dict[str, Any]) -> common_pb2.GameStatus:
    return common_pb2.GameStatus(**d)


def referee_options(msg: common_pb2.RefereeOptions) -> dict[str, Any]:
    return {"time_bank_ms": msg.time_bank_ms, "increment_ms": msg.increment_ms,
            "timeout_policy": clock.timeout_policy(msg.timeout_policy), "max_moves": msg.max_moves}


class GameServicer:
    """The RPCs of one game's service; `rpc_names` maps each handler to its RPC of this game."""

    def __init__(self, codec: Codec, core: GameCore, referee: Referee):
        self.codec, self.core, self.referee = codec, core, referee
        self.game = codec.game_id
        self.engine = registry.game(self.game)
        self.rpc_names = {role: method.name for role, method in codec.rpcs.items()}
        self.out = {role: codec.response(role) for role in codec.rpcs}
        self.event_of = codec.Event.FromString  # an encoded event (server/eventlog.py) as its message
        self.move_latency = metrics.MOVE_LATENCY.labels(self.game)
        self.moves_counted = {r: metrics.MOVES.labels(self.game, r) for r in ("accepted", "replayed")}
        answer = self.out["make_move"].DESCRIPTOR.fields_by_name
        self.move_answer_tags = tuple(wire.tag(answer[name].number, 0 if name == "replayed" else 2)
                                      for name in ("status", "events", "replayed", "legal_moves"))

    def handlers(self) -> dict[str, Callable[..., Any]]:
        """RPC name -> handler, e.g. "MakePompeiiMove" -> self.make_move."""
        return {name: getattr(self, role) for role, name in self.rpc_names.items()}

    def _move_in(self, msg: Message) -> Move:
        try:
            return move_from_wire(self.codec, msg.SerializeToString())
        except MalformedMove as e:
            raise InvalidArgument(f"malformed move: {e}", rule="REQUEST") from None

    def _moves_out(self, moves: Iterable[Move]) -> list[Message]:
        codec = self.codec
        return [move_proto(codec, m) for m in moves]

    @rpc
    async def create_game(self, request: Any, context: Any) -> Message:
        """Create<Game>Game: a new game; the creator gets the seat tokens (or a lobby seating)."""
        note(game=self.game, seats=request.seats)
        core, referee = self.core, self.referee
        access.require_create_key(context.invocation_metadata())
        drain.STATE.refuse_new_game()
        options = self.codec.options_from_proto(request.options)
        seed = request.seed if request.HasField("seed") else None
        seating, code = None, ""
        if request.open_seats or request.reserved_seats or request.private or request.player_token:
            check_seats(self.game, request.seats)  # a seating is built per seat
            seating, code = lobby.plan(core, referee.cfg, request.seats, request.open_seats,
                                       request.reserved_seats, request.private, request.player_token, seed is not None)
        await quotas.QUOTAS.may_create(quotas.caller(), request.referee.time_bank_ms, quotas.address())
        rec, tokens = core.create(self.game, request.seats, options, seed, referee_options(request.referee), seating)
        quotas.QUOTAS.created(quotas.caller(), rec.game_id, request.referee.time_bank_ms, quotas.address())
        lobby.created(core, referee, rec)
        metrics.GAMES_CREATED.labels(self.game).inc()
        return self.out["create_game"](
            game_id=rec.game_id, seat_tokens=[common_pb2.SeatToken(seat=s, token=t) for s, t in enumerate(tokens) if t],
            status=status_proto(core.status(rec, None)), invite_code=code)

    @rpc
    async def get_view(self, request: Any, context: Any) -> Message:
        """Get<Game>View: the caller's view (a spectator's without a token)."""
        note(game_id=request.game_id)
        rec = self.core.record(request.game_id, self.game)
        seat = self.core.seat(rec, request.token)
        note(seat=seat)
        return self.out["get_view"](status=status_proto(self.core.status(rec, seat)),
                                    view=self.codec.view_to_proto(self.core.view(rec, seat)))

    @rpc
    async def list_moves(self, request: Any, context: Any) -> Message:
        """List<Game>Moves: every legal move of the caller's seat, in the engine's order."""
        note(game_id=request.game_id)
        rec = self.core.record(request.game_id, self.game)
        seat = self.core.seat(rec, request.token, required=True)
        note(seat=seat)
        return self.out["list_moves"](status=status_proto(self.core.status(rec, seat)),
                                      moves=self._moves_out(self.core.callers_moves(rec, seat)))

    @rpc
    async def make_move(self, request: Any, context: Any) -> bytes:
        """Make<Game>Move: apply one move at `expected_version`; a retried key is a replay."""
        note(game_id=request.game_id)
        limits.bounded("idempotency_key", request.idempotency_key, limits.MAX_IDEMPOTENCY_KEY_BYTES)  # before look-ups
        rec = self.core.record(request.game_id, self.game)
        seat = self.core.seat(rec, request.token, required=True)
        if not request.HasField("move"):
            raise InvalidArgument("move is required", rule="REQUEST")
        move = self._move_in(request.move)
        note(seat=seat, move="withheld" if self.engine.move_is_private(move) else Shown(move),
             version=request.expected_version)
        t0 = time.perf_counter()
        events, replayed = await self.core.make_move(rec, seat, request.expected_version, request.idempotency_key, move)
        self.move_latency.observe(time.perf_counter() - t0)
        self.moves_counted["replayed" if replayed else "accepted"].inc()
        if not replayed:  # a replay changes nothing, the clock included
            self.referee.on_move(rec, seat)
        return self._move_answer(self.core.status(rec, seat), events, replayed, self.core.callers_moves(rec, seat))

    def _move_answer(self, status: dict[str, Any], events: list[bytes], replayed: bool, moves: list[Move]) -> bytes:
        """Make<Game>Move's response, encoded: the events as stored and the moves as cached are
        joined as they are (server/wire.py), exactly the bytes of the response message."""
        status_tag, event_tag, replayed_tag, move_tag = self.move_answer_tags
        parts = [wire.length_delimited(status_tag, status_proto(status).SerializeToString())]
        parts += [wire.length_delimited(event_tag, w) for w in events]
        if replayed:
            parts.append(replayed_tag + b"\x01")
        parts += move_fields(self.codec, move_tag, moves)
        return b"".join(parts)

    @rpc_stream
    async def stream_events(self, request: Any, context: Any) -> AsyncIterator[Message]:
        """Stream<Game>Events: the caller's events after `from_version`, then live ones to the end."""
        note(game_id=request.game_id)
        rec = self.core.record(request.game_id, self.game)
        seat = self.core.seat(rec, request.token)
        if request.from_version > rec.version:  # nothing would ever come: a client's lost track, said at once
            raise InvalidArgument(f"from_version {request.from_version} is beyond the game's version {rec.version}",
                                  rule="VERSION", metadata={"current_version": str(rec.version)})
        client = quotas.caller()
        with quotas.QUOTAS.stream(client, rec.game_id, spectator=seat is None, address=quotas.address()):
            await opened(context)
            metrics.STREAMS.labels(self.game).inc()
            history = len(rec.events) if seat is None else 0  # what a spectator gets is a replay
            try:
                sent = replayed = 0
                async for index, version, event in self.core.stream(rec, seat, request.from_version):
                    yield fanout.SHARED.message((rec.game_id, index), event, lambda: self.out["stream_events"](
                        version=version, event=self.event_of(event)))  # noqa: B023 - called at once
                    sent += 1
                    replayed += index < history
                    if sent == quotas.EVENTS_PER_REQUEST:
                        await quotas.QUOTAS.sent(client, sent, replayed, rec.game_id, quotas.address())
                        sent = replayed = 0
            finally:
                metrics.STREAMS.labels(self.game).dec()

    @rpc_stream
    async def stream_state(self, request: Any, context: Any) -> AsyncIterator[Message]:
        """Stream<Game>State: status, view and legal moves now and after every change."""
        note(game_id=request.game_id)
        rec = self.core.record(request.game_id, self.game)
        seat = self.core.seat(rec, request.token)
        client, address = quotas.caller(), quotas.address()
        with quotas.QUOTAS.stream(client, rec.game_id, spectator=seat is None, address=address):
            await opened(context)
            metrics.STREAMS.labels(self.game).inc()
            try:
                async for _ in self.core.changes(rec):
                    yield self.out["stream_state"](
                        status=status_proto(self.core.status(rec, seat)),
                        view=self.codec.view_to_proto(self.core.view(rec, seat)),
                        legal_moves=self._moves_out(self.core.callers_moves(rec, seat)))
                    # built for this stream alone (its seat's view, the live clocks): a request's work
                    await quotas.QUOTAS.sent(client, quotas.EVENTS_PER_REQUEST, address=address)
            finally:
                metrics.STREAMS.labels(self.game).dec()

    @rpc
    async def get_log(self, request: Any, context: Any) -> Message:
        """Get<Game>Log: the move log; other seats' private moves (and the seed) withheld."""
        note(game_id=request.game_id)
        rec = self.core.record(request.game_id, self.game)
        seat = self.core.seat(rec, request.token)
        note(seat=seat)
        out = self.out["get_log"]
        entry_type = self.codec.log_entry
        entries = []
        for e in self.core.log(rec, seat):
            entry: Any = entry_type(version=e["version"], seat=e["seat"], withheld=e["withheld"],
                               by_referee=e["by_referee"])
            if e["move"] is not None:
                entry.move.CopyFrom(self.codec.move_to_proto(e["move"]))
            entries.append(entry)
        return out(status=status_proto(self.core.status(rec, seat)), options=self.codec.options_to_proto(rec.options),
                   seed=rec.seed if self.core.log_revealed(rec, seat) else 0, entries=entries)

    @rpc
    async def get_hint(self, request: Any, context: Any) -> Message:
        """Get<Game>Hint: the referee's search from the caller's view."""
        note(game_id=request.game_id, budget_ms=request.budget_ms)
        rec = self.core.record(request.game_id, self.game)
        seat = self.core.seat(rec, request.token, required=True)
        note(seat=seat)
        best, values = await self.referee.hint(rec, seat, request.budget_ms)
        value_type = self.codec.move_value
        return self.out["get_hint"](
            status=status_proto(self.core.status(rec, seat)),
            best=self.codec.move_to_proto(best) if best is not None else None,
            values=[value_type(move=self.codec.move_to_proto(m), value=v, visits=n) for m, v, n in values])


class GameServiceServicer(common_pb2_grpc.GameServiceServicer):
    """Game-agnostic discovery and status (common.proto GameService)."""

    def __init__(self, core: GameCore, games: list[str], referee: Referee, admin_token: str):
        self.core = core
        self.games = games
        self.referee = referee
        self.admin_token = admin_token

    @rpc
    async def ListGameTypes(self, request: Any, context: Any) -> common_pb2.ListGameTypesResponse:
        types = []
        for g in self.games:
            spec = registry.spec(g)
            ranges = [common_pb2.SeatRange(options=[f"{k}={_option_text(v)}" for k, v in r.options.items()],
                                           min_seats=r.min_seats, max_seats=r.max_seats)
                      for r in spec.seat_ranges]
            types.append(common_pb2.GameType(game=g, min_seats=spec.min_seats, max_seats=spec.max_seats,
                                             seat_ranges=ranges))
        return common_pb2.ListGameTypesResponse(game_types=types)

    @rpc
    async def GetGameStatus(self, request: Any, context: Any) -> common_pb2.GetGameStatusResponse:
        note(game_id=request.game_id)
        rec = self.core.record(request.game_id)
        seat = self.core.seat(rec, request.token)
        return common_pb2.GetGameStatusResponse(status=status_proto(self.core.status(rec, seat)))

    @rpc
    async def AdjudicateGame(self, request: Any, context: Any) -> common_pb2.AdjudicateGameResponse:
        note(game_id=request.game_id)
        rec = self.core.record(request.game_id)
        limits.bounded("reason", request.reason, limits.MAX_REASON_BYTES)
        if len(request.tokens) > 16:
            raise InvalidArgument(f"{len(request.tokens)} tokens; at most 16 (one per seat, or the operator's)",
                                  rule="LIMIT")
        self.referee.may_adjudicate(rec, list(request.tokens), self.admin_token)
        if self.core.is_over(rec):
            raise game_over()
        await self.referee.adjudicate(rec, request.reason or "stopped on request", request.rollouts)
        return common_pb2.AdjudicateGameResponse(status=status_proto(self.core.status(rec, None)))


def _option_text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


# ---- registration: request parsing that cannot fail outside the refusal mapping --------------

class Undecodable:
    """Stands in for a request the server does not read: bytes that are no valid message, or more of
    them than GE_MAX_MESSAGE_BYTES, so the handler answers with our refusal (INVALID_ARGUMENT, or a
    paced RESOURCE_EXHAUSTED) instead of gRPC's generic deserialization failure or its own unpaced,
    uncounted size refusal."""

    def __init__(self, refusal: ServiceError):
        self.refusal = refusal

    async def refuse(self, method: str, context: Any) -> None:
        async def body() -> None:
            raise self.refusal
        await guarded(method, context, body)


def checked(method: str, impl: Callable[..., Any], streaming: bool,
            request_streaming: bool = False) -> Callable[..., Any]:
    if request_streaming:  # e.g. ServerReflectionInfo: each request of the stream is checked
        async def guarded_requests(requests: AsyncIterator[Any], context: Any) -> AsyncIterator[Any]:
            async for request in requests:
                if isinstance(request, Undecodable):
                    await request.refuse(method, context)
                yield request

        async def responses(requests: AsyncIterator[Any], context: Any) -> AsyncIterator[Any]:
            async for response in impl(guarded_requests(requests, context), context):
                yield response

        async def response(requests: AsyncIterator[Any], context: Any) -> Any:
            return await impl(guarded_requests(requests, context), context)
        return responses if streaming else response
    if streaming and inspect.isasyncgenfunction(impl):
        async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
            if isinstance(request, Undecodable):
                await request.refuse(method, context)
            async for item in impl(request, context):
                yield item
        return stream
    # a unary call, or a stream its handler writes with context.write (grpc's own Health.Watch)

    async def unary(request: Any, context: Any) -> Any:
        if isinstance(request, Undecodable):
            await request.refuse(method, context)
        return await impl(request, context)
    return unary


def safe_parser(cls: type[Message], max_bytes: int = 0) -> Callable[[bytes], Any]:
    def parse(data: bytes) -> Any:
        if max_bytes and len(data) > max_bytes:
            metrics.LIMIT_REFUSALS.labels("message_size").inc()
            return Undecodable(oversize(max_bytes, len(data)))
        try:
            return cls.FromString(data)
        except Exception as e:  # DecodeError and friends
            return Undecodable(undecodable(str(e) or type(e).__name__))
    return parse


def serialize(response: Message | bytes) -> bytes:
    """A response as sent: one the handler encoded itself (`_move_answer`) goes as it is."""
    return response if isinstance(response, bytes) else fanout.serialize(response)


HANDLERS = {(False, False): grpc.unary_unary_rpc_method_handler, (False, True): grpc.unary_stream_rpc_method_handler,
            (True, False): grpc.stream_unary_rpc_method_handler, (True, True): grpc.stream_stream_rpc_method_handler}


def handlers_of(servicer: Any, service: ServiceDescriptor) -> dict[str, Callable[..., Any]]:
    """RPC name -> handler: a GameServicer's table, else the servicer's method of that name."""
    if isinstance(servicer, GameServicer):
        return servicer.handlers()
    return {m.name: getattr(servicer, m.name) for m in service.methods}


def add_service(service: ServiceDescriptor, pb: Any, servicer: Any, server: grpc.aio.Server,
                name: str = "", max_request_bytes: int = 0) -> None:
    """Register a service's methods like the generated add_..._to_server, but with
    request parsing that cannot fail outside our error mapping, and every call observed
    (server/observe.py) (`name`: serve it under another full name with the same messages,
    e.g. reflection v1 beside v1alpha)."""
    impls = handlers_of(servicer, service)
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}
    for method in service.methods:
        cls = getattr(pb, method.input_type.name)
        impl = checked(method.name, impls[method.name], method.server_streaming, method.client_streaming)
        make = HANDLERS[method.client_streaming, method.server_streaming]
        handlers[method.name] = observe.observed(f"/{name or service.full_name}/{method.name}", make(
            impl, request_deserializer=safe_parser(cls, max_request_bytes), response_serializer=serialize))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(name or service.full_name, handlers),))
