"""Per-RPC observation for both transports: the standard gRPC metric families and the
request id and peer bound to every log line written while the call runs.

`observed` wraps every method where it is registered, so it sees every call (health and reflection
too, and the web port's, which the web edge forwards: their `transport` label is "web" and their
peer the browser's). py-grpc-prometheus does not support grpc.aio, hence this small wrapper with
its exact names and labels.
"""
from __future__ import annotations

import asyncio
import contextvars
import itertools
import re
import secrets
import shutil
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import grpc

from . import limits, logs, metrics, quotas, transport

if TYPE_CHECKING:  # annotations only (grpc's classes are not subscriptable at run time)
    from .service import GameCore

    Handler = grpc.RpcMethodHandler[Any, Any]
    Unary = Callable[[Any, Any], Awaitable[Any]]  # (request, context) -> response: a grpc.aio or web behaviour
    Stream = Callable[[Any, Any], Any]  # (request, context) -> an async iterator, or a coroutine that writes

REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")  # a caller's id is logged only if it looks like one
MAX_PEER = 128


_ID_PREFIX = secrets.token_hex(4)  # this process's; a counter numbers its calls (no urandom per call)
_ID_COUNTER = itertools.count()


def request_id(supplied: str | None) -> str:
    """The caller's x-request-id when it is a short token; a fresh one (16 hex digits) otherwise."""
    if supplied and REQUEST_ID.match(supplied):
        return supplied
    return f"{_ID_PREFIX}{next(_ID_COUNTER) & 0xFFFFFFFF:08x}"


def split_method(full: str) -> tuple[str, str]:
    """'/gameengine.v1.PompeiiService/MakePompeiiMove' -> (service, method)."""
    _, _, rest = full.partition("/")
    service, _, method = rest.partition("/")
    return service or "unknown", method or "unknown"


_Labels = tuple[str, str, str, str]  # grpc_type, grpc_service, grpc_method, transport
_children: dict[_Labels, tuple[Any, Any, Any]] = {}  # -> the started, sent and handling series
_handled: dict[tuple[_Labels, str], Any] = {}  # (labels, code) -> the handled series


def _series(labels: _Labels) -> tuple[Any, Any, Any]:
    """The metric series of one method, looked up once (`labels()` takes a lock and builds a key)."""
    found = _children.get(labels)
    if found is None:
        found = _children[labels] = (metrics.GRPC_STARTED.labels(*labels), metrics.GRPC_MSG_SENT.labels(*labels),
                                     metrics.GRPC_HANDLING.labels(*labels))
    return found


class Call:
    """One RPC being observed: started on creation, handled (with its code) on finish."""

    def __init__(self, grpc_type: str, service: str, method: str, transport: str):
        self.labels = (grpc_type, service, method, transport)
        self.t0 = time.perf_counter()
        self.series = _series(self.labels)
        self.series[0].inc()

    def sent(self) -> None:
        self.series[1].inc()

    def finish(self, code: str) -> None:
        self.series[2].observe(time.perf_counter() - self.t0)
        handled = _handled.get((self.labels, code))
        if handled is None:
            handled = _handled[self.labels, code] = metrics.GRPC_HANDLED.labels(*self.labels, code)
        handled.inc()


# (context, peer, x-player-token) of the call running, as `_begin` read them, so the quota check
# (edge.caller_of) need not read the peer and the metadata again; keyed by the call's context.
_SEEN: contextvars.ContextVar[tuple[Any, str, str, str | None] | None] = contextvars.ContextVar("seen", default=None)


def seen(context: Any) -> tuple[str, str, str | None] | None:
    """(peer, player token, X-Forwarded-For) of this call as its observation read them; None for a call
    not observed."""
    found = _SEEN.get()
    return (found[1], found[2], found[3]) if found is not None and found[0] is context else None


def bind_log_fields(rid: str, peer: str, forwarded_for: str | None = None) -> None:
    """Every log line of this call carries them (logs.bind). Both servers run each call in its own
    asyncio task, so the binding ends with the call; nothing to reset (a reset from a stream's
    finaliser could run in another context)."""
    if forwarded_for:
        logs.bind(request_id=rid, peer=peer[:MAX_PEER], forwarded_for=limits.quote(forwarded_for))  # caller text
    else:
        logs.bind(request_id=rid, peer=peer[:MAX_PEER])


# ---- gRPC port -------------------------------------------------------------

def without_frames(e: BaseException) -> BaseException:
    """The AbortError that ends a refused call (the edge has logged the refusal), without the handler's
    frames. grpc keeps an aborted call's AbortError on the call's state, which those frames refer to
    through the context, so each refusal left ~46 objects (frames, tracebacks, their locals) in reference
    cycles that only the collector could free (an answered call leaves 5): under a flood of refusals
    (hundreds a second) middle collections of ~30,000 such objects held the event loop for 15-25 ms
    every few seconds."""
    chained = e.__context__
    while chained is not None:  # the refusal that caused the abort, and what caused that
        chained.__traceback__ = None
        chained = chained.__context__
    return e.with_traceback(None)


def _grpc_code(context: Any, err: BaseException | None) -> str:
    if err is None:
        code = context.code() if hasattr(context, "code") else None
        return code.name if isinstance(code, grpc.StatusCode) else "OK"
    if isinstance(err, (asyncio.CancelledError, GeneratorExit)):
        return "CANCELLED"
    code = context.code() if hasattr(context, "code") else None
    return code.name if isinstance(code, grpc.StatusCode) else "UNKNOWN"


_KINDS = {(False, False): "unary", (True, False): "client_stream", (False, True): "server_stream",
          (True, True): "bidi_stream"}  # (request streaming, response streaming) -> grpc_type


def observed(full_method: str, handler: Handler) -> Handler:
    """`handler` with every call observed: the metric families, the request id and the peer on its
    log lines. Applied once per method where it is registered (servicer.add_service, `Observing`):
    a grpc.aio interceptor would build a new handler and run a coroutine chain on every call."""
    service, method = split_method(full_method)
    codec = {"request_deserializer": handler.request_deserializer,
             "response_serializer": handler.response_serializer}
    kind = _KINDS[handler.request_streaming, handler.response_streaming]
    if handler.unary_unary:
        return grpc.unary_unary_rpc_method_handler(_unary(handler.unary_unary, kind, service, method), **codec)
    if handler.stream_unary:
        return grpc.stream_unary_rpc_method_handler(_unary(handler.stream_unary, kind, service, method), **codec)
    if handler.unary_stream:
        return grpc.unary_stream_rpc_method_handler(_stream(handler.unary_stream, kind, service, method), **codec)
    if handler.stream_stream:
        return grpc.stream_stream_rpc_method_handler(_stream(handler.stream_stream, kind, service, method), **codec)
    return handler


def _begin(kind: str, service: str, method: str, context: Any) -> Call:
    """The call's start: counted, and its request id, peer and forwarded-for bound to its log lines."""
    supplied = forwarded = token = None
    for key, value in context.invocation_metadata() or ():
        if key == "x-request-id" and isinstance(value, str):
            supplied = value
        elif key == "x-forwarded-for" and isinstance(value, str):
            forwarded = value if forwarded is None else f"{forwarded},{value}"  # several headers are one list
        elif key == quotas.PLAYER_TOKEN_HEADER and token is None:  # the first, as quotas.player_token_of
            token = value if isinstance(value, str) else ""
    peer, via = transport.peer_of(context)  # "web": forwarded by the web edge
    call = Call(kind, service, method, via)
    bind_log_fields(request_id(supplied), peer, forwarded)
    _SEEN.set((context, peer, token or "", forwarded))
    return call


def _unary(behavior: Unary, kind: str, service: str, method: str) -> Unary:
    async def unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        call = _begin(kind, service, method, context)
        try:
            response = await behavior(request, context)
        except BaseException as e:
            call.finish(_grpc_code(context, e))
            if not isinstance(e, grpc.aio.AbortError):
                raise
            del request, context  # this frame stays in the traceback: see without_frames
            raise without_frames(e) from None
        call.sent()
        call.finish(_grpc_code(context, None))
        return response
    return unary


def _stream(behavior: Stream, kind: str, service: str, method: str) -> Callable[[Any, Any], AsyncIterator[Any]]:
    async def stream(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
        call = _begin(kind, service, method, context)
        try:
            result = behavior(request, context)
            if asyncio.iscoroutine(result):  # a handler that writes with context.write()
                await result
            else:
                async for item in result:
                    call.sent()
                    yield item
        except BaseException as e:
            call.finish(_grpc_code(context, e))
            if not isinstance(e, grpc.aio.AbortError):
                raise
            del request, context  # this frame stays in the traceback: see without_frames
            raise without_frames(e) from None
        call.finish(_grpc_code(context, None))
    return stream


class _ObservedGeneric(grpc.GenericRpcHandler):
    """A generic handler whose methods are observed, each wrapped once, when first asked for."""

    def __init__(self, inner: grpc.GenericRpcHandler):
        self.inner = inner
        self.wrapped: dict[str, Handler | None] = {}

    def service(self, details: grpc.HandlerCallDetails) -> Handler | None:
        name = details.method
        if name in self.wrapped:
            return self.wrapped[name]
        handler = self.inner.service(details)
        if handler is not None:  # an unknown name is not kept (callers choose names)
            self.wrapped[name] = handler = observed(name, handler)
        return handler


class Observing:
    """A server as code that registers generic handlers sees it (gateway.add_internal), with
    every method it registers observed like those of servicer.add_service."""

    def __init__(self, server: grpc.aio.Server):
        self.server = server

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        self.server.add_generic_rpc_handlers(tuple(_ObservedGeneric(h) for h in handlers))


# ---- games in memory --------------------------------------------------------------

class GameCounts:
    """(running, finished) games in memory, wired to ge_live_games{state} and ge_unfinished_games.
    Counted, not kept, so no write path can forget to update them. The count runs on the event loop
    through Store.sweep, and a scrape asks the loop for it and waits. When the metrics server's thread
    counted 100,000 games itself, a scrape held the GIL for 50-260 ms, and calls made meanwhile waited
    9 ms at the median (bench/notes/service.md). A count younger than `max_age_s` is reused."""

    SCRAPE_WAIT_S = 5.0  # a loop too busy to count by then: the scrape gets the last count

    def __init__(self, core: GameCore, loop: asyncio.AbstractEventLoop, max_age_s: float = 0.5):
        self.core, self.loop, self.max_age_s = core, loop, max_age_s
        self.loop_thread = threading.get_ident()  # made on the loop's thread
        self.counted_at = float("-inf")
        self.last = (0, 0)
        metrics.LIVE_GAMES.labels("running").set_function(lambda: self.scraped()[0])
        metrics.LIVE_GAMES.labels("finished").set_function(lambda: self.scraped()[1])
        metrics.UNFINISHED_GAMES.set_function(lambda: self.scraped()[0])

    def fresh(self) -> bool:
        return time.monotonic() - self.counted_at < self.max_age_s

    async def count(self) -> tuple[int, int]:
        """On the event loop."""
        if self.fresh():
            return self.last
        running = finished = 0
        async for rec in self.core.store.sweep():
            try:
                over = self.core.is_over(rec)
            except Exception:  # a game its engine cannot fold counts as running
                over = False
            finished += over
            running += not over
        self.counted_at, self.last = time.monotonic(), (running, finished)
        return self.last

    async def unfinished(self) -> int:
        return (await self.count())[0]

    def scraped(self) -> tuple[int, int]:
        """From the metrics server's thread."""
        if self.fresh() or threading.get_ident() == self.loop_thread:  # the loop cannot wait for itself
            return self.last
        try:
            return asyncio.run_coroutine_threadsafe(self.count(), self.loop).result(self.SCRAPE_WAIT_S)
        except Exception:  # the loop is stopping, or too busy to answer in time
            return self.last


def data_volume(data_dir: str) -> None:
    """ge_data_volume_{free,capacity}_bytes of the data directory's file system, read at scrape."""
    metrics.DATA_FREE.set_function(lambda: shutil.disk_usage(data_dir).free)
    metrics.DATA_CAPACITY.set_function(lambda: shutil.disk_usage(data_dir).total)
