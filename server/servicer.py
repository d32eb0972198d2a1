"""gRPC edge: one servicer class per game, generated from the game's codec.

Each handler authenticates, converts protobuf <-> engine values with the codec,
calls GameCore and maps refusals to status codes with google.rpc details.
No exception ever leaves as UNKNOWN: unexpected ones become INTERNAL.
"""
from __future__ import annotations

import importlib
import time
from typing import Any, Callable

import grpc
import structlog
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from engines import registry
from gameengine.codecs import Codec, MalformedMove
from gameengine.v1 import common_pb2, common_pb2_grpc

from . import access, drain, limits, lobby, metrics, quotas
from .errors import Illegal, InvalidArgument, ServiceError
from .service import GameCore

log = structlog.get_logger("gameengine")
DOMAIN = "gameengine.v1"
TIMEOUT_POLICIES = {0: "autoplay", 1: "autoplay", 2: "random", 3: "forfeit"}


def status_for(err: ServiceError) -> grpc.Status:
    """The google.rpc.Status of a refusal: code, sentence, ErrorInfo(reason=rule id) and more."""
    code = getattr(code_pb2, err.code_name)
    details = []
    info = error_details_pb2.ErrorInfo(reason=(err.rule or err.code_name).replace("-", "_").upper(),
                                       domain=DOMAIN, metadata={**err.metadata, "rule": err.rule or ""})
    details.append(info)
    if err.code_name == "FAILED_PRECONDITION":
        details.append(error_details_pb2.PreconditionFailure(violations=[
            error_details_pb2.PreconditionFailure.Violation(type=err.rule or "", subject="move", description=err.message)]))
    elif err.code_name == "INVALID_ARGUMENT":
        details.append(error_details_pb2.BadRequest(field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field="request", description=err.message)]))
    if err.retry_after_ms:
        details.append(error_details_pb2.RetryInfo(retry_delay={"nanos": (err.retry_after_ms % 1000) * 10**6,
                                                                 "seconds": err.retry_after_ms // 1000}))
    packed = []
    for d in details:
        a = any_pb2.Any()
        a.Pack(d)
        packed.append(a)
    message = f"{err.rule}: {err.message}" if err.rule else err.message
    return rpc_status.to_status(status_pb2.Status(code=code, message=message, details=packed))


async def guarded(method: str, context: grpc.aio.ServicerContext, fn: Callable, fields: dict | None = None,
                  **more: Any):
    """Run a handler body; log one line with latency; turn refusals into statuses.
    `fields` may be filled in by the body (seat, move) before the line is written."""
    fields = fields if fields is not None else {}
    fields.update(more)
    t0 = time.perf_counter()
    failure = None
    client = ""
    try:
        client = caller_of(context)
        quotas.QUOTAS.request(client)
        async with quotas.QUOTAS.turn(client):
            result = await fn()
    except ServiceError as e:
        failure = e
    except Exception:  # never UNKNOWN: an engine or codec bug is INTERNAL, and logged
        log.exception("internal_error", method=method, **{k: _bounded_field(v) for k, v in fields.items()})
        failure = ServiceError("internal error; the game was not changed")
    latency_ms = (time.perf_counter() - t0) * 1000
    code = failure.code_name if failure else "OK"
    metrics.RPC_LATENCY.labels(method, code).observe(latency_ms / 1000)
    if code != "RESOURCE_EXHAUSTED" or quotas.QUOTAS.should_log_refusal(client):
        log.info("rpc", method=method, code=code, latency_ms=round(latency_ms, 3),
                 rule=getattr(failure, "rule", None), **{k: _bounded_field(v) for k, v in fields.items()})
    if failure is not None:
        await quotas.QUOTAS.pace(client, failure, context.time_remaining())
        failure.message = limits.clip(failure.message)
        s = status_for(failure)
        failure = None  # the exception's traceback holds this frame: no cycle through the local
        await context.abort(s.code, s.details, s.trailing_metadata)
    return result


def caller_of(context) -> str:
    """The caller's quota identity, also kept for the rest of the call (quotas.caller())."""
    client = quotas.client_identity(context.peer(), quotas.player_token_of(context.invocation_metadata()))
    quotas.CALLER.set(client)
    return client


def _bounded_field(value: Any) -> Any:
    return limits.quote(value) if isinstance(value, str) else value


def status_proto(d: dict[str, Any]) -> common_pb2.GameStatus:
    return common_pb2.GameStatus(**d)


def referee_options(msg: common_pb2.RefereeOptions) -> dict[str, Any]:
    return {"time_bank_ms": msg.time_bank_ms, "increment_ms": msg.increment_ms,
            "timeout_policy": TIMEOUT_POLICIES.get(msg.timeout_policy, "autoplay"), "max_moves": msg.max_moves}


def make_servicer(codec: Codec, core: GameCore, referee) -> tuple[object, Callable]:
    """Build the servicer instance for one game and its add_..._to_server function."""
    P, pb, game = codec.prefix, codec.pb2, codec.game_id
    grpc_mod = importlib.import_module(pb.__name__ + "_grpc")
    engine = registry.game(game)

    def move_in(msg):
        try:
            return codec.move_from_proto(msg)
        except MalformedMove as e:
            raise InvalidArgument(f"malformed move: {e}") from None

    def move_label(move, seat):
        return "withheld" if engine.move_is_private(move) else repr(move)

    class Servicer(getattr(grpc_mod, f"{P}ServiceServicer")):
        async def create(self, request, context):
            async def body():
                access.require_create_key(context.invocation_metadata())
                drain.STATE.refuse_new_game()
                options = codec.options_from_proto(request.options)
                seed = request.seed if request.HasField("seed") else None
                seating, code = None, ""
                if request.open_seats or request.reserved_seats or request.private or request.player_token:
                    seating, code = lobby.plan(core, referee.cfg, request.seats, request.open_seats,
                                               request.reserved_seats, request.private, request.player_token)
                quotas.QUOTAS.may_create(quotas.caller(), request.referee.time_bank_ms)
                rec, tokens = core.create(game, request.seats, options, seed, referee_options(request.referee),
                                          seating)
                quotas.QUOTAS.created(quotas.caller(), rec.game_id, request.referee.time_bank_ms)
                lobby.created(core, referee, rec)
                metrics.GAMES_CREATED.labels(game).inc()
                return getattr(pb, f"Create{P}GameResponse")(
                    game_id=rec.game_id,
                    seat_tokens=[common_pb2.SeatToken(seat=s, token=t) for s, t in enumerate(tokens) if t],
                    status=status_proto(core.status(rec, None)), invite_code=code)
            return await guarded(f"Create{P}Game", context, body, game=game, seats=request.seats)

        async def view(self, request, context):
            fields = {"game_id": request.game_id}

            async def body():
                rec = core.record(request.game_id, game)
                seat = fields["seat"] = core.seat(rec, request.token)
                return getattr(pb, f"Get{P}ViewResponse")(
                    status=status_proto(core.status(rec, seat)), view=codec.view_to_proto(core.view(rec, seat)))
            return await guarded(f"Get{P}View", context, body, fields)

        async def moves(self, request, context):
            fields = {"game_id": request.game_id}

            async def body():
                rec = core.record(request.game_id, game)
                seat = fields["seat"] = core.seat(rec, request.token, required=True)
                return getattr(pb, f"List{P}MovesResponse")(
                    status=status_proto(core.status(rec, seat)),
                    moves=[codec.move_to_proto(m) for m in core.legal_moves(rec, seat)])
            return await guarded(f"List{P}Moves", context, body, fields)

        async def move(self, request, context):
            fields = {"game_id": request.game_id}

            async def body():
                rec = core.record(request.game_id, game)
                seat = core.seat(rec, request.token, required=True)
                if not request.HasField("move"):
                    raise InvalidArgument("move is required")
                move = move_in(request.move)
                fields.update(seat=seat, move=move_label(move, seat), version=request.expected_version)
                t0 = time.perf_counter()
                events, replayed = await core.make_move(rec, seat, request.expected_version,
                                                        request.idempotency_key, move)
                metrics.MOVE_LATENCY.labels(game).observe(time.perf_counter() - t0)
                metrics.MOVES.labels(game, "replayed" if replayed else "accepted").inc()
                if not replayed:  # a replay changes nothing, the clock included
                    referee.on_move(rec, seat)
                return getattr(pb, f"Make{P}MoveResponse")(
                    status=status_proto(core.status(rec, seat)),
                    events=[codec.event_to_proto(e) for e in events], replayed=replayed,
                    legal_moves=[codec.move_to_proto(m) for m in core.legal_moves(rec, seat)])
            return await guarded(f"Make{P}Move", context, body, fields)

        async def stream(self, request, context):
            rec = await guarded(f"Stream{P}Events", context,
                                lambda: _async(lambda: core.record(request.game_id, game)),
                                game_id=request.game_id)
            seat = await guarded(f"Stream{P}Events", context,
                                 lambda: _async(lambda: core.seat(rec, request.token)), game_id=request.game_id)
            slot = quotas.QUOTAS.stream(quotas.caller(), rec.game_id, spectator=seat is None)
            await guarded(f"Stream{P}Events", context, lambda: _async(slot.__enter__), game_id=request.game_id)
            metrics.STREAMS.labels(game).inc()
            try:
                async for version, event in core.stream(rec, seat, request.from_version):
                    yield getattr(pb, f"Stream{P}EventsResponse")(version=version, event=codec.event_to_proto(event))
            finally:
                metrics.STREAMS.labels(game).dec()
                slot.__exit__(None, None, None)

        async def state(self, request, context):
            rec = await guarded(f"Stream{P}State", context,
                                lambda: _async(lambda: core.record(request.game_id, game)),
                                game_id=request.game_id)
            seat = await guarded(f"Stream{P}State", context,
                                 lambda: _async(lambda: core.seat(rec, request.token)), game_id=request.game_id)
            metrics.STREAMS.labels(game).inc()
            try:
                async for _ in core.changes(rec):
                    yield getattr(pb, f"Stream{P}StateResponse")(
                        status=status_proto(core.status(rec, seat)), view=codec.view_to_proto(core.view(rec, seat)),
                        legal_moves=[codec.move_to_proto(m) for m in core.legal_moves(rec, seat)])
            finally:
                metrics.STREAMS.labels(game).dec()

        async def get_log(self, request, context):
            fields = {"game_id": request.game_id}

            async def body():
                rec = core.record(request.game_id, game)
                seat = fields["seat"] = core.seat(rec, request.token)
                entries = []
                for e in core.log(rec, seat):
                    entry = getattr(pb, f"{P}LogEntry")(version=e["version"], seat=e["seat"],
                                                        withheld=e["withheld"], by_referee=e["by_referee"])
                    if e["move"] is not None:
                        entry.move.CopyFrom(codec.move_to_proto(e["move"]))
                    entries.append(entry)
                return getattr(pb, f"Get{P}LogResponse")(
                    status=status_proto(core.status(rec, seat)), options=codec.options_to_proto(rec.options),
                    seed=rec.seed if core.log_revealed(rec, seat) else 0, entries=entries)
            return await guarded(f"Get{P}Log", context, body, fields)

        async def hint(self, request, context):
            fields = {"game_id": request.game_id, "budget_ms": request.budget_ms}

            async def body():
                rec = core.record(request.game_id, game)
                seat = fields["seat"] = core.seat(rec, request.token, required=True)
                best, values = await referee.hint(rec, seat, request.budget_ms)
                return getattr(pb, f"Get{P}HintResponse")(
                    status=status_proto(core.status(rec, seat)),
                    best=codec.move_to_proto(best) if best is not None else None,
                    values=[getattr(pb, f"{P}MoveValue")(move=codec.move_to_proto(m), value=v, visits=n)
                            for m, v, n in values])
            return await guarded(f"Get{P}Hint", context, body, fields)

    for rpc, impl in ((f"Create{P}Game", "create"), (f"Get{P}View", "view"), (f"List{P}Moves", "moves"),
                      (f"Make{P}Move", "move"), (f"Stream{P}Events", "stream"), (f"Get{P}Log", "get_log"),
                      (f"Get{P}Hint", "hint"), (f"Stream{P}State", "state")):
        setattr(Servicer, rpc, getattr(Servicer, impl))
    return Servicer(), lambda servicer, server: add_service(pb.DESCRIPTOR.services_by_name[f"{P}Service"], pb,
                                                            servicer, server)


class Undecodable:
    """Stands in for a request whose bytes are not a valid message, so the handler can
    answer INVALID_ARGUMENT instead of gRPC's generic deserialization failure."""

    def __init__(self, error: str):
        self.error = error

    async def refuse(self, method: str, context) -> None:
        async def body():
            raise InvalidArgument(f"the request is not a valid protobuf message: {self.error}")
        await guarded(method, context, body)


def checked(method: str, impl, streaming: bool, request_streaming: bool = False):
    if request_streaming:  # e.g. ServerReflectionInfo: each request of the stream is checked
        async def guarded_requests(requests, context):
            async for request in requests:
                if isinstance(request, Undecodable):
                    await request.refuse(method, context)
                yield request

        async def responses(requests, context):
            async for response in impl(guarded_requests(requests, context), context):
                yield response

        async def response(requests, context):
            return await impl(guarded_requests(requests, context), context)
        return responses if streaming else response
    if streaming:
        async def stream(request, context):
            if isinstance(request, Undecodable):
                await request.refuse(method, context)
            async for item in impl(request, context):
                yield item
        return stream

    async def unary(request, context):
        if isinstance(request, Undecodable):
            await request.refuse(method, context)
        return await impl(request, context)
    return unary


def safe_parser(cls):
    def parse(data: bytes):
        try:
            return cls.FromString(data)
        except Exception as e:  # DecodeError and friends
            return Undecodable(str(e) or type(e).__name__)
    return parse


HANDLERS = {(False, False): grpc.unary_unary_rpc_method_handler, (False, True): grpc.unary_stream_rpc_method_handler,
            (True, False): grpc.stream_unary_rpc_method_handler, (True, True): grpc.stream_stream_rpc_method_handler}


def add_service(service, pb, servicer, server) -> None:
    """Register a service's methods like the generated add_..._to_server, but with
    request parsing that cannot fail outside our error mapping."""
    handlers = {}
    for method in service.methods:
        cls = getattr(pb, method.input_type.name)
        impl = checked(method.name, getattr(servicer, method.name), method.server_streaming, method.client_streaming)
        make = HANDLERS[method.client_streaming, method.server_streaming]
        handlers[method.name] = make(impl, request_deserializer=safe_parser(cls),
                                     response_serializer=lambda m: m.SerializeToString())
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service.full_name, handlers),))


class GameServiceServicer(common_pb2_grpc.GameServiceServicer):
    """Game-agnostic discovery and status."""

    def __init__(self, core: GameCore, games: list[str], referee, admin_token: str):
        self.core = core
        self.games = games
        self.referee = referee
        self.admin_token = admin_token

    async def ListGameTypes(self, request, context):
        async def body():
            types = []
            for g in self.games:
                spec = registry.spec(g)
                ranges = [common_pb2.SeatRange(options=[f"{k}={_option_text(v)}" for k, v in r.options.items()],
                                               min_seats=r.min_seats, max_seats=r.max_seats)
                          for r in spec.seat_ranges]
                types.append(common_pb2.GameType(game=g, min_seats=spec.min_seats, max_seats=spec.max_seats,
                                                 seat_ranges=ranges))
            return common_pb2.ListGameTypesResponse(game_types=types)
        return await guarded("ListGameTypes", context, body)

    async def GetGameStatus(self, request, context):
        async def body():
            rec = self.core.record(request.game_id)
            seat = self.core.seat(rec, request.token)
            return common_pb2.GetGameStatusResponse(status=status_proto(self.core.status(rec, seat)))
        return await guarded("GetGameStatus", context, body, game_id=request.game_id)

    async def AdjudicateGame(self, request, context):
        async def body():
            rec = self.core.record(request.game_id)
            limits.bounded("reason", request.reason, limits.MAX_REASON_BYTES)
            if len(request.tokens) > 16:
                raise InvalidArgument(f"{len(request.tokens)} tokens; at most 16 (one per seat, or the operator's)")
            self.referee.may_adjudicate(rec, list(request.tokens), self.admin_token)
            await self.referee.adjudicate(rec, request.reason or "stopped on request", request.rollouts)
            return common_pb2.AdjudicateGameResponse(status=status_proto(self.core.status(rec, None)))
        return await guarded("AdjudicateGame", context, body, game_id=request.game_id)


def _option_text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


async def _async(fn):
    return fn()
