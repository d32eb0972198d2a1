"""Browser access: the same services over the Connect protocol and gRPC-Web, on GE_WEB_PORT.

Browsers cannot speak plain gRPC, so the web edge (uvicorn, HTTP/1.1) serves every method of every
game's service with the `connectrpc` library, which speaks Connect (JSON or binary), gRPC-Web
(binary; text mode via grpcweb_text.py) and gRPC on the same paths as the gRPC server
(`/gameengine.v1.PompeiiService/MakePompeiiMove`, ...). It also serves the reference
spectator/player page from `server/web_static/`.

The edge runs in its own process (server/gateway.py), so parsing HTTP and encoding JSON for
browsers never holds up the gRPC server's event loop (issue 19: a flood of web requests had
raised gRPC players' p99 twentyfold). There is no second implementation: each web method is
forwarded as the same gRPC call over the server's internal socket, with the browser's address
(transport.WEB_PEER), so quotas, logs, metrics and refusals are the gRPC server's own. A refusal's
google.rpc.Status comes back in the call's trailers and leaves as a ConnectError with the same
code, message and details (ErrorInfo.metadata["rule"] is the rule id).
"""
from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import json
import logging
import re
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import structlog
import uvicorn
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_codecs
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import Message
from google.rpc import code_pb2, status_pb2
from protobuf.wkt import Any as WireAny
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as AsgiMessage

import engines
from engines import registry
from gameengine import codecs
from gameengine.v1 import common_pb2, lobby_pb2, player_pb2, tournament_pb2

from . import fanout, grpcweb_text, limits, quotas, transport, webguard
from .errors import InvalidArgument, ServiceError, Unimplemented, oversize, undecodable
from .grpcweb_text import grpc_web_text

log = structlog.get_logger("gameengine.web")
STATIC = Path(__file__).resolve().parent / "web_static"
ENGINES = Path(engines.__path__[0])  # engines/<game>/data/*.json: public board and card data
# Request headers a call carries on to the gRPC server as metadata (the rest are HTTP's own).
FORWARDED = frozenset({"authorization", "x-api-key", "x-player-token", "x-game-id", "x-request-id",
                       "x-forwarded-for", "traceparent", "tracestate"})
# Headers a browser client must be allowed to send and read (Connect, gRPC-Web), and every forwarded one
# a page may set (X-Forwarded-For is a proxy's).
ALLOW_HEADERS = ["content-type", "connect-protocol-version", "connect-timeout-ms", "connect-content-encoding",
                 "connect-accept-encoding", "x-grpc-web", "x-user-agent", "grpc-timeout",
                 *sorted(FORWARDED - {"x-forwarded-for"})]
EXPOSE_HEADERS = ["grpc-status", "grpc-message", "grpc-status-details-bin", "connect-content-encoding",
                  "connect-accept-encoding", "content-encoding"]
LIVE_GAMES = "/gameengine.internal.WebEdge/LiveGames"  # the page's game list (main.py answers it)
# A refusal the web edge made itself, counted in the server's metrics: the edge's own registry is scraped by nobody
EDGE_REFUSED = "/gameengine.internal.WebEdge/Refused"
HOLD_MAX_MS = 10_000  # above any hold the server asks for (quotas.STREAM_PACE_MAX_S); the web caps bound how many


FORWARDED_MAX_BYTES = 8 << 10  # half of gRPC's metadata limit, which refuses without details


def metadata_of(ctx: RequestContext[Any, Any]) -> list[tuple[str, str]]:
    """The forwarded headers, and the browser's address as the call's peer (transport.WEB_PEER)."""
    md = [(k, v) for k, v in ctx.request_headers.allitems() if k in FORWARDED and v.isascii() and v.isprintable()]
    size = sum(len(k) + len(v) for k, v in md)
    if size > FORWARDED_MAX_BYTES:
        names = ", ".join(sorted({k for k, _ in md}))
        raise edge_refusal(InvalidArgument(f"the headers forwarded as gRPC metadata ({names}) are {size} bytes; "
                                           f"the maximum is {FORWARDED_MAX_BYTES}", rule="LIMIT"))
    md.append((transport.WEB_PEER, f"web:{ctx.client_address or 'unknown'}"))
    return md


MAX_TIMEOUT_S = 30 * 86400.0  # gRPC's own deadline overflows near 292 years; grpc-timeout reaches 11,000


def timeout_of(ctx: RequestContext[Any, Any]) -> float | None:
    """The call's time left, in seconds; a deadline beyond MAX_TIMEOUT_S (a grpc-timeout of 99999999H is
    valid) is none, as grpc.aio failed the call at once with DEADLINE_EXCEEDED."""
    if ctx.timeout_ms is None or ctx.timeout_ms / 1000 > MAX_TIMEOUT_S:
        return None
    return ctx.timeout_ms / 1000


def connect_error(status: status_pb2.Status) -> ConnectError:
    """A refusal's google.rpc.Status as Connect and gRPC-Web send it."""
    return ConnectError(Code[code_pb2.Code.Name(status.code)], status.message,
                        [WireAny(type_url=d.type_url, value=d.value) for d in status.details])


def edge_refusal(err: ServiceError) -> ConnectError:
    """A refusal the edge makes itself (a request it cannot decode), with the gRPC server's details."""
    return connect_error(webguard.edge_status(err))


async def refusal(e: grpc.aio.AioRpcError) -> ConnectError:
    """The gRPC server's refusal (its google.rpc.Status trailer), or a transport failure as its code,
    after the hold the server asked for (transport.HOLD_MS): a browser's paced refusal waits here,
    in the edge's process, not as a held call in the gRPC server's loop and heap."""
    await asyncio.sleep(hold_s(e))
    for key, value in e.trailing_metadata() or ():
        if key == "grpc-status-details-bin" and isinstance(value, bytes):
            return connect_error(status_pb2.Status.FromString(value))
    return ConnectError(Code[e.code().name], e.details() or e.code().name.lower())


def hold_s(e: grpc.aio.AioRpcError) -> float:
    """The hold the gRPC server asked for in the refusal's trailers (transport.HOLD_MS), bounded."""
    for key, value in e.trailing_metadata() or ():
        if key == transport.HOLD_MS and isinstance(value, str) and value.isdigit():
            return min(int(value), HOLD_MAX_MS) / 1000
    return 0.0


def shared_decoder(cls: Any) -> Callable[[bytes], Message]:
    """Decode a stream's response; the same bytes decode to one shared message (fanout.SHARED), so N
    spectators of a game cost one JSON encoding per event, as on the gRPC port."""
    def decode(raw: bytes) -> Message:
        key = (cls.DESCRIPTOR.full_name, hashlib.blake2b(raw, digest_size=16).digest())
        return fanout.SHARED.message(key, None, lambda: cls.FromString(raw), len(raw))
    return decode


# ---- requests as the edge decodes them ----------------------------------------------------------
# connectrpc's codecs let protobuf's JSON parser drop unknown fields and enum names (a typo played
# another move), and answered undecodable bytes with a bare "unmarshal message: ...". Here a request
# that does not decode is INVALID_ARGUMENT with a sentence naming what is wrong (quoting at most
# limits.QUOTE_CHARS of the caller's text) and the details the gRPC port sends for undecodable bytes.

class StrictCodec:
    """A connectrpc codec ("proto" or "json") that refuses what it cannot decode exactly."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.json = inner.name() == "json"

    def name(self) -> str:
        return str(self.inner.name())

    def encode(self, message: Message) -> bytes:
        return bytes(self.inner.encode(message))

    def decode(self, data: bytes | bytearray, message_class: Any) -> Any:
        return decode_json(bytes(data), message_class) if self.json else decode_proto(bytes(data), message_class)


def decode_proto(data: bytes, cls: Any) -> Message:
    """Binary protobuf; undecodable bytes are refused as the gRPC port refuses them (servicer.safe_parser)."""
    try:
        message: Message = cls.FromString(data)
    except Exception as e:  # noqa: BLE001 - DecodeError and friends, as the gRPC port catches them
        raise edge_refusal(undecodable(str(e) or type(e).__name__)) from None
    return message


def decode_json(data: bytes, cls: Any) -> Message:
    """Protobuf's JSON mapping with nothing ignored: an unknown field or enum name, a wrong JSON type,
    a duplicate key or malformed JSON is INVALID_ARGUMENT in protobuf's own words, with each long
    string of the caller's quoted (limits.unechoed) and the sentence bounded (limits.clip)."""
    message: Message = cls()
    if not data.lstrip()[:1] == b"{":  # protobuf's parser took [] and "" for an empty message
        raise edge_refusal(InvalidArgument(f"the request is not a valid {cls.DESCRIPTOR.full_name} in JSON: "
                                           "a message is a JSON object", rule="REQUEST"))
    try:
        json_format.Parse(data, message, ignore_unknown_fields=False)
    except (json_format.ParseError, ValueError, TypeError, RecursionError) as e:
        said = limits.unechoed(str(e) or type(e).__name__, _json_strings(data))
        raise edge_refusal(InvalidArgument(limits.clip(
            f"the request is not a valid {cls.DESCRIPTOR.full_name} in JSON: {said}"), rule="REQUEST")) from None
    return message


def _json_strings(data: bytes) -> list[str]:
    """The keys, string values and numbers of a JSON request (none when it does not parse)."""
    try:  # numbers as written: protobuf's sentence repeats an out-of-range one
        value = json.loads(data, parse_int=str, parse_float=str)
    except (ValueError, RecursionError):
        return []
    found: list[str] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            found.append(v)
        elif isinstance(v, dict):
            found += v.keys()
            stack += v.values()
        elif isinstance(v, list):
            stack += v
    return found


# connectrpc's words for a request that is no well-formed message, which it answers UNIMPLEMENTED or
# INTERNAL (an empty body, a compressed flag without an encoding): the caller's request is malformed
MALFORMED = ("unary request has zero messages", "unary request has multiple messages", "protocol error: ")


def refusal_counter(channel: grpc.aio.Channel) -> webguard.Count:
    """Counts a refusal by `limit` in the server's ge_limit_refusals_total (EDGE_REFUSED)."""
    call = channel.unary_unary(EDGE_REFUSED, request_serializer=str.encode, response_deserializer=bytes)

    async def count(limit: str) -> None:
        with contextlib.suppress(grpc.aio.AioRpcError):  # a count lost with a restarting server is no refusal lost
            await call(limit, timeout=5)
    return count


class EdgeRefusals:
    """A metadata interceptor (connectrpc runs it around reading the request) giving the refusals
    connectrpc makes itself the gRPC port's shape: a gRPC-Web envelope cut short, a body that does not
    decompress, a body without a declared length that grows over GE_MAX_MESSAGE_BYTES."""

    def __init__(self, max_bytes: int, count: webguard.Count):
        self.max_bytes, self.count = max_bytes, count

    async def on_start(self, ctx: RequestContext[Any, Any]) -> None:
        return None

    async def on_end(self, token: None, ctx: RequestContext[Any, Any], error: Exception | None, /) -> None:
        if not isinstance(error, ConnectError) or error.details:
            return  # the gRPC server's refusals come with their details; a timeout or cancel has none
        if error.code == Code.INVALID_ARGUMENT or error.message.startswith(MALFORMED):
            raise edge_refusal(InvalidArgument(error.message, rule="REQUEST")) from None
        if error.message.startswith("unknown compression: "):  # connectrpc's words quote the header whole
            raise edge_refusal(Unimplemented(
                "the request's compression is not one this server reads: gzip, or identity (none)",
                rule="REQUEST")) from None
        if error.code == Code.RESOURCE_EXHAUSTED:  # connectrpc's "message is larger than configured max"
            err = oversize(self.max_bytes)
            left_s = None if ctx.timeout_ms is None else max(0.0, ctx.timeout_ms / 1000)
            await _past_deadline(ctx, webguard.pace_oversize(
                _address(ctx.client_address), quotas.forwarded_of(ctx.request_headers.allitems()), err, self.count,
                time_left_s=left_s))
            raise edge_refusal(err) from None


async def _past_deadline(ctx: RequestContext[Any, Any], hold: Awaitable[None]) -> None:
    """Await `hold` (a refusal's pacing, within the time left, and its count) to its end even when the
    call's deadline passes meanwhile: connectrpc cancels at the deadline, which left its own refusal,
    without details, in place of ours. Any other cancellation ends it."""
    task = asyncio.ensure_future(hold)
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        if ctx.timeout_ms is None or ctx.timeout_ms > TIMER_SLACK_MS:
            task.cancel()
            raise
        await task


TIMER_SLACK_MS = 2.0  # uvloop's timers have millisecond resolution: the deadline's may fire that much early


def _address(client_address: str | None) -> tuple[str, int] | None:
    """connectrpc's "host:port" as ASGI's (host, port)."""
    if not client_address:
        return None
    host, _, port = client_address.rpartition(":")
    return (host, int(port)) if port.isdigit() else None


# `/<package.Service>/<Method>`: the shape of every RPC path (the page's files and /api/ have no such one)
RPC_PATH = re.compile(r"/[^/]+\.[^/]+/[^/]+")


async def unimplemented(scope: Scope, receive: Receive, send: Send) -> None:
    """A call of a method this server does not have: UNIMPLEMENTED with gRPC's own message, as on the
    gRPC port (Connect: HTTP 404 and its JSON error, which connect-web reads as unimplemented either
    way; gRPC-Web: grpc-status 12), with ErrorInfo (reason UNIMPLEMENTED)."""
    await webguard.send_refusal(send, webguard.content_type_of(scope), webguard.edge_status(
        Unimplemented("Method not found!")), 404)


class _App(ConnectASGIApplication[Any]):
    """One Connect application holding every service's endpoints (keyed by full path)."""

    @property
    def path(self) -> str:
        return "/"


def endpoints(services: list[ServiceDescriptor], channel: grpc.aio.Channel) -> dict[str, Endpoint[Any, Any]]:
    """`/<service>/<method>` -> an endpoint forwarding the call to the gRPC server."""
    result: dict[str, Endpoint[Any, Any]] = {}
    for service in services:
        for m in service.methods:
            if m.client_streaming:
                continue  # none of ours; browsers cannot send a client stream
            inp, out = message_factory.GetMessageClass(m.input_type), message_factory.GetMessageClass(m.output_type)
            info = MethodInfo(name=m.name, service_name=service.full_name, input=inp, output=out,
                              idempotency_level=IdempotencyLevel.UNKNOWN,
                              stream_type=StreamType.SERVER_STREAM if m.server_streaming else StreamType.UNARY)
            path = f"/{service.full_name}/{m.name}"
            if m.server_streaming:
                result[path] = Endpoint.server_stream(method=info, function=_stream(channel.unary_stream(
                    path, request_serializer=inp.SerializeToString, response_deserializer=shared_decoder(out))))
            else:
                result[path] = Endpoint.unary(method=info, function=_unary(channel.unary_unary(
                    path, request_serializer=inp.SerializeToString, response_deserializer=out.FromString)))
    return result


def _unary(call: Any) -> Callable[[Any, RequestContext[Any, Any]], Awaitable[Any]]:
    async def forward(request: Any, ctx: RequestContext[Any, Any]) -> Any:
        try:
            return await call(request, metadata=metadata_of(ctx), timeout=timeout_of(ctx))
        except grpc.aio.AioRpcError as e:
            raise await refusal(e) from None
    return forward


# Set by `opening` for each web call: a stream endpoint appends to it when it yields fanout.OPENED
OPENING: contextvars.ContextVar[list[bool] | None] = contextvars.ContextVar("opening", default=None)


def opening(app: ASGIApp) -> ASGIApp:
    """A stream's headers go out once the gRPC server has opened it, not with its first message:
    connectrpc starts a response with its first message, so a browser's fetch (which resolves on the
    headers) and a proxy's header timeout saw nothing on a quiet game until its next move. The stream
    yields fanout.OPENED, which connectrpc answers with the headers and an empty message dropped here."""
    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        opened: list[bool] = []
        dropped = False

        async def without_opened(message: Any) -> None:
            nonlocal dropped
            if opened and not dropped and message["type"] == "http.response.body":
                dropped = True  # the first message sent after OPENED is its (empty) envelope
                return
            await send(message)

        token = OPENING.set(opened)
        try:
            await app(scope, receive, without_opened)
        finally:
            OPENING.reset(token)
    return wrapped


def _stream(call: Any) -> Callable[[Any, RequestContext[Any, Any]], AsyncIterator[Any]]:
    async def forward(request: Any, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        stream = call(request, metadata=metadata_of(ctx), timeout=timeout_of(ctx))
        try:
            await stream.initial_metadata()  # the gRPC server sends its headers once the stream is set up
            opened = OPENING.get()
            if opened is not None and not stream.done():  # a refusal keeps its trailers-only answer
                opened.append(True)
                yield fanout.OPENED
            async for message in stream:
                yield message
        except grpc.aio.AioRpcError as e:
            raise await refusal(e) from None
        finally:
            stream.cancel()  # the browser left: the gRPC server's stream ends too
    return forward


# Each protocol's headers as connectrpc reads them: (header, its shape, the shape in words)
GRPC_WEB_HEADERS = ((b"grpc-timeout", re.compile(r"[0-9]{1,8}[HMSmun]"),
                     "1 to 8 digits and a unit (H, M, S, m, u or n)"),)
CONNECT_HEADERS = ((b"connect-protocol-version", re.compile("1"), "1"),
                   (b"connect-timeout-ms", re.compile(r"[0-9]{0,10}"), "at most 10 digits (milliseconds)"))  # "": none


def protocol_refusal(scope: Scope) -> InvalidArgument | None:
    """The protocol headers connectrpc refuses before any of our code runs, in its words with the caller's
    value quoted whole and no ErrorInfo; checked here first, by its own tests (INVALID_ARGUMENT, REQUEST).
    A header sent twice is checked in each of its values."""
    protocol = connectrpc_protocol(scope)
    if protocol == "grpc":
        # HTTP/1.1 has no trailers for gRPC: connectrpc answered grpc-status 2 and logged a traceback
        return InvalidArgument("the web port speaks Connect and gRPC-Web; gRPC is served on the gRPC port",
                               rule="REQUEST")
    for name, shape, said in GRPC_WEB_HEADERS if protocol == "grpc-web" else CONNECT_HEADERS:
        for key, value in scope.get("headers", ()):
            if key == name and not shape.fullmatch(text := value.decode()):  # with_readable_headers: UTF-8
                return InvalidArgument(f"header {name.decode()} must be {said}, not {limits.quote(text)!r}",
                                       rule="REQUEST")
    return None


def connectrpc_protocol(scope: Scope) -> str:
    """The protocol connectrpc takes the request for, by its content type exactly as sent: "grpc-web" for
    "application/grpc-web" or "application/grpc-web+..." (text mode becomes that in grpcweb_text), "grpc"
    for "application/grpc" or "application/grpc+...", and "connect" for anything else, including
    "application/grpc-web; charset=utf-8"."""
    raw = next((v for k, v in scope.get("headers", ()) if k == b"content-type"), b"").decode()
    low, text, binary = raw.strip().lower(), grpcweb_text.TEXT, grpcweb_text.BINARY
    if low == text or low.startswith(text + "+") or raw == binary or raw.startswith(binary + "+"):
        return "grpc-web"
    if raw == "application/grpc" or raw.startswith("application/grpc+"):
        return "grpc"
    return "connect"


def described_http_errors(app: ASGIApp) -> ASGIApp:
    """connectrpc answers a method other than POST (405) and a content type it does not read (415) with
    an empty body: a browser's fetch saw no reason. They get the refusal's shape here (INVALID_ARGUMENT,
    rule REQUEST, with ErrorInfo), keeping the HTTP status and connectrpc's Allow / Accept-Post."""
    async def described(scope: Scope, receive: Receive, send: Send) -> None:
        replaced = False

        async def send_described(message: AsgiMessage) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start" and message["status"] in HTTP_REFUSALS:
                replaced = True
                kept = [(k, v) for k, v in message.get("headers", ()) if k.lower() in (b"allow", b"accept-post")]
                said = HTTP_REFUSALS[message["status"]]
                await webguard.send_refusal(send, webguard.content_type_of(scope), webguard.edge_status(
                    InvalidArgument(said, rule="REQUEST")), message["status"], headers=kept)
            elif not replaced:
                await send(message)
        await app(scope, receive, send_described)
    return described


HTTP_REFUSALS = {
    405: "an RPC is called with POST (this port does not serve the Connect protocol's GET)",
    415: "the content type is not one this port reads: application/json or application/proto (Connect), "
         "application/connect+json or +proto (Connect streams), application/grpc-web(+proto) or "
         "application/grpc-web-text (gRPC-Web)",
}


def services_of(wanted: list[str]) -> list[ServiceDescriptor]:
    services = [common_pb2.DESCRIPTOR.services_by_name["GameService"],
                player_pb2.DESCRIPTOR.services_by_name["PlayerService"],
                lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"],
                tournament_pb2.DESCRIPTOR.services_by_name["TournamentService"]]
    return services + [codecs.codec(game).service for game in wanted]


def build_app(channel: grpc.aio.Channel, cfg: Any) -> ASGIApp:
    """The ASGI application: RPC paths go to connectrpc, the rest to the static page."""
    wanted = [g for g in cfg.games.split(",") if g] or list(codecs.load_all())
    routes = endpoints(services_of(wanted), channel)
    count = refusal_counter(channel)
    rpc = grpc_web_text(opening(described_http_errors(_App(
        service=None, endpoints=lambda _: routes,  # type: ignore[arg-type, return-value]
        codecs=[fanout.SharedCodec(StrictCodec(c)) for c in google_protobuf_codecs()],
        interceptors=[EdgeRefusals(cfg.max_message_bytes, count)],
        read_max_bytes=cfg.max_message_bytes))), cfg.max_message_bytes, count)
    static = StaticFiles(directory=STATIC, html=True)
    list_games = channel.unary_unary(LIVE_GAMES, request_serializer=_json_bytes, response_deserializer=json.loads)

    types = [{"game": g, "prefix": registry.entry(g).prefix, "service": registry.entry(g).service,
              "data_files": list(registry.spec(g).data_files),
              "rpcs": {role: m.name for role, m in codecs.codec(g).rpcs.items()}} for g in wanted]
    data = {g: StaticFiles(directory=ENGINES / g / "data", check_dir=False) for g in wanted}

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http":
            return
        if path in routes:
            refused = protocol_refusal(scope)
            if refused is not None:
                await webguard.send_refusal(send, webguard.content_type_of(scope), webguard.edge_status(refused),
                                            webguard.INVALID_ARGUMENT_HTTP)
                return
            await rpc(scope, receive, send)
        elif scope["method"] == "POST" and RPC_PATH.fullmatch(path):
            await unimplemented(scope, receive, send)  # an RPC of no service here (the files answer GET)
        elif path == "/api/games":
            offset, limit = _page(scope)
            try:
                page = await list_games({"offset": offset, "limit": limit}, timeout=10)
            except grpc.aio.AioRpcError as e:
                await asyncio.sleep(hold_s(e))
                await JSONResponse({"error": e.code().name}, status_code=503)(scope, receive, send)
                return
            await JSONResponse({"types": types, **page}, headers={"cache-control": "no-store"})(scope, receive, send)
        elif path.startswith("/data/") and path.split("/")[2] in data:
            # the games' public board/card data files, so the page draws from the engine's own geometry
            game = path.split("/")[2]
            await _files(data[game], dict(scope, path="/" + path.split("/", 3)[3] if path.count("/") >= 3 else "/"),
                         receive, send)
        else:
            await _files(static, scope, receive, send)

    origins = [o.strip() for o in cfg_value(cfg, "web_cors_origins", "").split(",") if o.strip()]
    guarded: ASGIApp = webguard.with_head_limit(webguard.with_readable_headers(
        webguard.with_body_limit(app, cfg.max_message_bytes, count)), count)
    if origins:  # inside the security headers: its preflight answers and refusals carry them too
        guarded = CORSMiddleware(guarded, allow_origins=origins, allow_methods=["GET", "POST", "OPTIONS"],
                                 allow_headers=ALLOW_HEADERS, expose_headers=EXPOSE_HEADERS, max_age=7200)
    return webguard.with_security_headers(guarded)


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value).encode()


async def _files(files: StaticFiles, scope: Scope, receive: Receive, send: Send) -> None:
    """StaticFiles outside a Starlette app: its 404/405 arrive as HTTPException."""
    try:
        await files(scope, receive, send)
    except HTTPException as e:
        await PlainTextResponse(e.detail, status_code=e.status_code)(scope, receive, send)


PAGE_MAX = 200


def _page(scope: Scope) -> tuple[int, int]:
    """`?offset=N&limit=M` of /api/games (gateway.live_games bounds the limit); bad values fall back to the
    first page."""
    from urllib.parse import parse_qs
    q = parse_qs(scope.get("query_string", b"").decode("latin-1")[:200])
    try:
        offset = max(0, int(q.get("offset", ["0"])[0]))
        limit = int(q.get("limit", [str(PAGE_MAX)])[0])
    except ValueError:
        return 0, PAGE_MAX
    return offset, limit


def cfg_value(cfg: Any, name: str, default: Any) -> Any:
    return getattr(cfg, name, default)


class _Server(uvicorn.Server):
    """uvicorn in the edge's own loop (server/gateway.py owns SIGTERM/SIGINT), accepting through
    webguard.Acceptor so connections over the caps never get a transport or protocol."""

    def __init__(self, config: uvicorn.Config, protocol: type[webguard.GuardedH11]):
        super().__init__(config)
        self.protocol = protocol

    def capture_signals(self) -> contextlib.AbstractContextManager[None]:  # type: ignore[override]
        return contextlib.nullcontext()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await self.lifespan.startup()
        config = self.config
        loop = asyncio.get_running_loop()

        def make_protocol(client_key: str) -> webguard.GuardedH11:
            return self.protocol(config=config, server_state=self.server_state, app_state=self.lifespan.state,
                                 _loop=loop, client_key=client_key)
        self.servers = [webguard.Acceptor(sock, make_protocol, self.protocol.caps, config.ssl,  # type: ignore[misc]
                                          self.protocol.header_timeout_s) for sock in sockets or ()]
        self.started = True


def server(app: ASGIApp, cfg: Any) -> uvicorn.Server:
    """uvicorn with the web port's limits (README "Limits"), serving `app` on the sockets given to serve()."""
    logging.getLogger("uvicorn.error").addFilter(webguard.OncePerSecond())
    protocol = webguard.protocol(webguard.Caps(cfg.web_max_connections, cfg.web_connections_per_client),
                                 cfg.web_header_timeout_s, cfg.web_body_timeout_s)
    config = uvicorn.Config(app, lifespan="off", log_config=None, access_log=False,
                            ws="none", timeout_graceful_shutdown=2, log_level="warning",
                            # the peer address is the quota identity: no X-Forwarded-For from anyone
                            proxy_headers=False, server_header=False,
                            http=protocol,
                            timeout_keep_alive=cfg.web_idle_s,  # no limit_concurrency: the Acceptor caps connections
                            h11_max_incomplete_event_size=webguard.MAX_HEAD_BYTES, **transport.web_ssl(cfg))
    return _Server(config, protocol)
