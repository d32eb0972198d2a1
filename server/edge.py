"""What every RPC of every servicer shares (the web port's calls arrive here too, forwarded by
server/web.py): the quota check, one log line with latency (`note(...)` adds fields to it), the
latency metric, and refusals (`ServiceError`, server/errors.py) as one google.rpc.Status in the
call's trailers (the web edge renders it as a ConnectError). No exception ever leaves as UNKNOWN:
an unexpected one becomes INTERNAL and is logged.

    class PlayerServicer(player_pb2_grpc.PlayerServiceServicer):
        @rpc
        async def GetPlayer(self, request, context):
            note(player_id=request.player_id)
            ...
            return player_pb2.GetPlayerResponse(...)
"""
from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager as AsyncContextManager
from typing import Any

import structlog
from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from . import limits, logs, metrics, observe, quotas, transport
from .errors import ServiceError

log = structlog.get_logger("gameengine")
DOMAIN = "gameengine.v1"


# ---- refusals: one neutral google.rpc.Status, rendered by each transport ----------------------

def refusal_status(err: ServiceError) -> status_pb2.Status:
    """The google.rpc.Status of a refusal: code, sentence, ErrorInfo(reason=rule id) and more."""
    details: list[Message] = [error_details_pb2.ErrorInfo(
        reason=(err.rule or err.code_name).replace("-", "_").upper(), domain=DOMAIN,
        metadata={**err.metadata, "rule": err.rule or ""})]
    if err.code_name == "FAILED_PRECONDITION":
        details.append(error_details_pb2.PreconditionFailure(violations=[
            error_details_pb2.PreconditionFailure.Violation(type=err.rule or "", subject="move",
                                                            description=err.message)]))
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
    return status_pb2.Status(code=getattr(code_pb2, err.code_name), message=message, details=packed)


async def refuse(context: Any, err: ServiceError, hold_ms: int = 0) -> None:
    """End the call with the refusal (grpc's abort raises); `hold_ms` asks the web edge to hold it."""
    status = refusal_status(err)
    s = rpc_status.to_status(status)
    trailers = (*s.trailing_metadata, (transport.HOLD_MS, str(hold_ms))) if hold_ms else s.trailing_metadata
    await context.abort(s.code, s.details, trailers)


# ---- what every RPC shares ------------------------------------------------------------------

def note(**fields: Any) -> None:
    """Fields for this call's log line (and any other line it writes); caller text is bounded."""
    logs.bind(**{k: limits.quote(v) if isinstance(v, str) else v for k, v in fields.items()})


class Shown:
    """A value for a log line as its bounded repr, made only when a line is written (at the default
    level a move's call writes none): structlog's JSON renderer asks `__structlog__`."""
    __slots__ = ("value",)

    def __init__(self, value: object):
        self.value = value

    def __structlog__(self) -> str:
        return limits.quote(repr(self.value))

    __repr__ = __str__ = __structlog__


def caller_of(context: Any) -> str:
    """The caller's quota identity, also kept for the rest of the call (quotas.caller())."""
    seen = observe.seen(context)  # the peer and metadata as the call's observation read them
    if seen is None:
        metadata = context.invocation_metadata()
        seen = transport.peer_of(context)[0], quotas.player_token_of(metadata), quotas.forwarded_of(metadata)
    peer, token, forwarded = seen
    client = quotas.client_identity(peer, token, forwarded)
    quotas.CALLER.set(client)
    quotas.ADDRESS.set(client if client.startswith("ip:") else "ip:" + quotas.peer_address(peer, forwarded))
    return client


_latency: dict[tuple[str, str], Any] = {}  # (method, code) -> its ge_rpc_latency_seconds series


def latency_series(method: str, code: str) -> Any:
    """The latency series of one method and code, bound once (`labels()` takes a lock and builds a key)."""
    found = _latency.get((method, code))
    if found is None:
        found = _latency[method, code] = metrics.RPC_LATENCY.labels(method, code)
    return found


class _Call:
    """One RPC: the quota check on entry, the handler run in the client's turn (quotas.turn); on
    exit the log line, the latency metric, and a refusal (ServiceError, or INTERNAL for anything
    else), paced (quotas.pace) and rendered by the transport."""

    def __init__(self, method: str, context: Any, request: Any = None):
        self.method, self.context, self.client = method, context, ""
        self.request = request  # its long strings are quoted, not repeated, in a refusal (limits.unechoed)
        self.t0 = time.perf_counter()

    async def enter(self) -> None:
        self.client = caller_of(self.context)
        wait_s = quotas.QUOTAS.request(self.client, 1, quotas.address())
        if wait_s:
            await asyncio.sleep(wait_s)  # its address's line (GE_RATE_LIMIT_PER_ADDRESS_S)

    def turn(self) -> AsyncContextManager[None]:
        return quotas.QUOTAS.turn(self.client, quotas.address())

    def answered(self) -> None:
        """The call succeeded: its latency and its log line."""
        self._record("OK", None)

    def _record(self, code: str, failure: ServiceError | None) -> None:
        latency_s = time.perf_counter() - self.t0
        latency_series(self.method, code).observe(latency_s)
        if logs.enabled(logging.INFO) and (code != "RESOURCE_EXHAUSTED"
                                           or quotas.QUOTAS.should_log_refusal(self.client)):
            log.info("rpc", method=self.method, code=code, latency_ms=round(latency_s * 1000, 3),
                     rule=failure.rule if failure else None)

    async def exit(self, error: BaseException) -> None:
        """The call failed: its latency and log line, then the refusal, paced (an answered call: `answered`)."""
        if isinstance(error, ServiceError):
            failure = error
        else:  # never UNKNOWN: an engine or codec bug is INTERNAL, and logged
            log.error("internal_error", method=self.method, exc_info=error)
            failure = ServiceError("internal error; the game was not changed")
        self._record(failure.code_name, failure)
        # logged: its traceback's frames (the handler chain) need not live through the hold
        error.__traceback__ = error.__context__ = error.__cause__ = None
        q = quotas.QUOTAS
        hold_s = q.pace_s(self.client, failure, self.context.time_remaining())
        hold_ms = 0
        if hold_s and transport.peer_of(self.context)[1] == "web":
            # the web edge holds it: the held call lives in its process, not in this loop and heap
            hold_ms = round(hold_s * 1000)
        else:
            await q.pace(self.client, hold_s)
        failure.message = limits.clip(limits.unechoed(failure.message, limits.proto_strings(self.request)))
        await refuse(self.context, failure, hold_ms)


def _method_name(servicer: Any, handler: Callable[..., Any]) -> str:
    names: dict[str, str] = getattr(servicer, "rpc_names", {})
    return names.get(handler.__name__, handler.__name__)


def rpc(handler: Callable[[Any, Any, Any], Awaitable[Any]]) -> Callable[[Any, Any, Any], Awaitable[Any]]:
    """A unary handler `(self, request, context) -> response` with what every RPC shares."""
    @functools.wraps(handler)
    async def call(self: Any, request: Any, context: Any) -> Any:
        c = _Call(_method_name(self, handler), context, request)
        try:
            await c.enter()
            async with c.turn():
                response = await handler(self, request, context)
        except Exception as e:  # noqa: BLE001 - every failure is answered by _Call.exit
            await c.exit(e)
            raise  # exit raised the refusal; never reached
        c.answered()
        return response
    return call


def rpc_stream(handler: Callable[[Any, Any, Any], AsyncIterator[Any]]) -> Callable[[Any, Any, Any], AsyncIterator[Any]]:
    """A server-streaming handler (an async generator); the log line is written when the stream
    has been set up (its first response) or refused."""
    @functools.wraps(handler)
    async def call(self: Any, request: Any, context: Any) -> AsyncIterator[Any]:
        c = _Call(_method_name(self, handler), context, request)
        responses = handler(self, request, context)
        try:
            await c.enter()  # no turn (quotas.turn): the first response may wait for the game to move
            first = await responses.__anext__()
        except StopAsyncIteration:
            c.answered()
            return
        except Exception as e:  # noqa: BLE001
            await c.exit(e)
            raise
        c.answered()
        yield first
        try:
            async for response in responses:
                yield response
        except ServiceError as e:  # after its set-up: the server stopping (Store.wait)
            await refuse(context, e, 0)
    return call


async def opened(context: Any) -> None:
    """A stream is set up (checked, within its quota): its headers go now, so a client knows it is
    open on a quiet game, where gRPC would send them with the first message, minutes later."""
    await context.send_initial_metadata(())


async def guarded(method: str, context: Any, fn: Callable[[], Awaitable[Any]], fields: dict[str, Any] | None = None,
                  **more: Any) -> Any:
    """What `@rpc` does, for a call written as a function (server/players.py, lobby.py, tournaments.py)."""
    note(**(fields or {}), **more)
    c = _Call(method, context)
    try:
        await c.enter()
        async with c.turn():
            result = await fn()
    except Exception as e:  # noqa: BLE001
        note(**(fields or {}))  # what `fn` added (e.g. JoinGame's seat)
        await c.exit(e)
        raise
    note(**(fields or {}))
    c.answered()
    return result
