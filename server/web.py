"""Browser access: the same services over the Connect protocol and gRPC-Web, on GE_WEB_PORT.

Browsers cannot speak plain gRPC, so a second listener (uvicorn, HTTP/1.1) serves
every method of every game's service with the `connectrpc` library, which speaks
Connect (JSON or binary), gRPC-Web (binary; text mode via grpcweb_text.py) and gRPC on the same paths as the gRPC server
(`/gameengine.v1.PompeiiService/MakePompeiiMove`, ...). It also serves the
reference spectator/player page from `server/web_static/`.

There is no second implementation: each web method calls the very handlers the
gRPC server uses (servicer.GameServicer / GameServiceServicer ...), so the GameCore
operations, codecs, quotas, logging, metrics and the mapping of ServiceError to a
google.rpc.Status are shared. Only the transport differs: `_WebContext` stands in
for grpc's ServicerContext, and renders a refusal's google.rpc.Status (the same one
the gRPC port sends) as a ConnectError with the same code, message and details
(ErrorInfo.metadata["rule"] is the rule id).
"""
from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import structlog
import uvicorn
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_codecs
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import message_factory
from google.rpc import code_pb2, status_pb2
from protobuf.wkt import Any as WireAny
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

import engines
from engines import registry
from gameengine import codecs
from gameengine.v1 import common_pb2, lobby_pb2, player_pb2, tournament_pb2

from . import fanout, transport, webguard
from .grpcweb_text import grpc_web_text
from .lobby import LobbyServicer
from .observe import web_stream, web_unary
from .participation import seating_of
from .players import PlayerServicer
from .service import GameCore
from .servicer import GameServicer, GameServiceServicer, handlers_of
from .tournaments import TournamentServicer

log = structlog.get_logger("gameengine.web")
STATIC = Path(__file__).resolve().parent / "web_static"
ENGINES = Path(engines.__path__[0])  # engines/<game>/data/*.json: public board and card data
# Headers a browser client must be allowed to send and read (Connect, gRPC-Web).
ALLOW_HEADERS = ["content-type", "connect-protocol-version", "connect-timeout-ms", "connect-content-encoding",
                 "connect-accept-encoding", "x-grpc-web", "x-user-agent", "grpc-timeout", "authorization",
                 "x-api-key", "x-player-token",
                 "x-game-id", "x-request-id"]
EXPOSE_HEADERS = ["grpc-status", "grpc-message", "grpc-status-details-bin", "connect-content-encoding",
                  "connect-accept-encoding", "content-encoding"]


class _WebContext:
    """The part of grpc.aio.ServicerContext that server/edge.py uses: peer(), invocation_metadata(),
    time_remaining(), and refuse() in place of abort()."""

    def __init__(self, ctx: RequestContext[Any, Any]):
        self._ctx = ctx

    def peer(self) -> str:
        return f"web:{self._ctx.client_address or 'unknown'}"

    def invocation_metadata(self) -> list[tuple[str, str]]:
        return list(self._ctx.request_headers.allitems())

    def time_remaining(self) -> float | None:
        ms = self._ctx.timeout_ms
        return None if ms is None else ms / 1000

    async def refuse(self, status: status_pb2.Status) -> None:
        raise connect_error(status)


def connect_error(status: status_pb2.Status) -> ConnectError:
    """A refusal (servicer.refusal_status) as Connect and gRPC-Web send it."""
    return ConnectError(Code[code_pb2.Code.Name(status.code)], status.message,
                        [WireAny(type_url=d.type_url, value=d.value) for d in status.details])


class _App(ConnectASGIApplication[Any]):
    """One Connect application holding every service's endpoints (keyed by full path)."""

    @property
    def path(self) -> str:
        return "/"


def endpoints(servicers: list[tuple[Any, object]]) -> dict[str, Endpoint[Any, Any]]:
    """`/<service>/<method>` -> endpoint calling the gRPC servicer's method of that name."""
    result: dict[str, Endpoint[Any, Any]] = {}
    for service, servicer in servicers:
        handlers = handlers_of(servicer, service)
        for m in service.methods:
            info = MethodInfo(name=m.name, service_name=service.full_name,
                              input=message_factory.GetMessageClass(m.input_type),
                              output=message_factory.GetMessageClass(m.output_type),
                              idempotency_level=IdempotencyLevel.UNKNOWN,
                              stream_type=StreamType.SERVER_STREAM if m.server_streaming else StreamType.UNARY)
            fn = handlers[m.name]
            path = f"/{service.full_name}/{m.name}"
            if m.server_streaming:
                result[path] = Endpoint.server_stream(
                    method=info, function=web_stream(_stream(fn), service.full_name, m.name))
            elif m.client_streaming:
                raise NotImplementedError(f"{path}: client streaming is not served to browsers")
            else:
                result[path] = Endpoint.unary(method=info, function=web_unary(_unary(fn), service.full_name, m.name))
    return result


def _unary(fn: Callable[..., Awaitable[Any]]) -> Callable[[Any, RequestContext[Any, Any]], Awaitable[Any]]:
    async def call(request: Any, ctx: RequestContext[Any, Any]) -> Any:
        return await fn(request, _WebContext(ctx))
    return call


def _stream(fn: Callable[..., AsyncIterator[Any]]) -> Callable[[Any, RequestContext[Any, Any]], AsyncIterator[Any]]:
    def call(request: Any, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        return fn(request, _WebContext(ctx))
    return call


def build_app(core: GameCore, referee: Any, cfg: Any) -> ASGIApp:
    """The ASGI application: RPC paths go to connectrpc, the rest to the static page."""
    wanted = [g for g in cfg.games.split(",") if g] or list(codecs.load_all())
    servicers: list[tuple[Any, object]] = [
        (common_pb2.DESCRIPTOR.services_by_name["GameService"],
         GameServiceServicer(core, wanted, referee, cfg.admin_token)),
        (player_pb2.DESCRIPTOR.services_by_name["PlayerService"], PlayerServicer(core)),
        (lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"], LobbyServicer(core, referee, cfg)),
        (tournament_pb2.DESCRIPTOR.services_by_name["TournamentService"],
         TournamentServicer(core, referee, cfg, wanted))]
    for game in wanted:
        codec = codecs.codec(game)
        servicers.append((codec.service, GameServicer(codec, core, referee)))
    routes = endpoints(servicers)
    rpc = grpc_web_text(_App(service=None, endpoints=lambda _: routes,  # type: ignore[arg-type, return-value]
                             codecs=[fanout.SharedCodec(c) for c in google_protobuf_codecs()],
                             read_max_bytes=cfg.max_message_bytes), cfg.max_message_bytes)
    static = StaticFiles(directory=STATIC, html=True)

    types = [{"game": g, "prefix": registry.entry(g).prefix, "service": registry.entry(g).service,
              "data_files": list(registry.spec(g).data_files),
              "rpcs": {role: m.name for role, m in codecs.codec(g).rpcs.items()}} for g in wanted]
    data = {g: StaticFiles(directory=ENGINES / g / "data", check_dir=False) for g in wanted}

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http":
            return
        if path in routes:
            await rpc(scope, receive, send)
        elif path == "/api/games":
            offset, limit = _page(scope)
            games = live_games(core, wanted)
            await JSONResponse({"types": types, "games": games[offset:offset + limit], "total": len(games),
                                "next_offset": offset + limit if offset + limit < len(games) else None},
                               headers={"cache-control": "no-store"})(scope, receive, send)
        elif path.startswith("/data/") and path.split("/")[2] in data:
            # the games' public board/card data files, so the page draws from the engine's own geometry
            game = path.split("/")[2]
            await _files(data[game], dict(scope, path="/" + path.split("/", 3)[3] if path.count("/") >= 3 else "/"),
                         receive, send)
        else:
            await _files(static, scope, receive, send)

    origins = [o.strip() for o in cfg_value(cfg, "web_cors_origins", "").split(",") if o.strip()]
    guarded = webguard.with_security_headers(webguard.with_body_limit(app, cfg.max_message_bytes))
    if not origins:
        return guarded
    return CORSMiddleware(guarded, allow_origins=origins, allow_methods=["GET", "POST", "OPTIONS"],
                          allow_headers=ALLOW_HEADERS, expose_headers=EXPOSE_HEADERS, max_age=7200)


async def _files(files: StaticFiles, scope: Scope, receive: Receive, send: Send) -> None:
    """StaticFiles outside a Starlette app: its 404/405 arrive as HTTPException."""
    try:
        await files(scope, receive, send)
    except HTTPException as e:
        await PlainTextResponse(e.detail, status_code=e.status_code)(scope, receive, send)


PAGE_MAX = 200


def _page(scope: Scope) -> tuple[int, int]:
    """`?offset=N&limit=M` of /api/games (limit at most PAGE_MAX); bad values fall back to the first page."""
    from urllib.parse import parse_qs
    q = parse_qs(scope.get("query_string", b"").decode("latin-1")[:200])
    try:
        offset = max(0, int(q.get("offset", ["0"])[0]))
        limit = min(PAGE_MAX, max(1, int(q.get("limit", [str(PAGE_MAX)])[0])))
    except ValueError:
        return 0, PAGE_MAX
    return offset, limit


def live_games(core: GameCore, wanted: list[str], limit: int = 2000) -> list[dict[str, Any]]:
    """Spectator-level list for the page's game picker: ids, game, seats, version, over.
    (Spectating a game id is public by design: a spectator only ever gets public views.)
    Private lobby games are never listed (LOBBY-6)."""
    games = []
    for rec in list(core.store.games.values())[-limit:]:
        seating = seating_of(rec)
        if rec.game in wanted and not (seating is not None and seating.private):
            games.append({"game_id": rec.game_id, "game": rec.game, "seats": rec.seats,
                          "version": rec.version, "over": core.is_over(rec)})
    games.sort(key=lambda g: (g["over"], g["game_id"]))
    return games


def cfg_value(cfg: Any, name: str, default: Any) -> Any:
    return getattr(cfg, name, default)


class _Server(uvicorn.Server):
    """uvicorn embedded in our loop: it must not take over SIGTERM/SIGINT (main.py owns them)."""

    def capture_signals(self) -> contextlib.AbstractContextManager[None]:  # type: ignore[override]
        return contextlib.nullcontext()


async def start(core: GameCore, referee: Any, cfg: Any) -> Callable[[], Awaitable[None]] | None:
    """Start the web listener on cfg.web_port (0 disables) and return an async stop().

    A port that cannot be bound is logged and skipped: the gRPC service stays up."""
    port = int(cfg_value(cfg, "web_port", 8080))
    if not port:
        return None
    sock = socket.socket(socket.AF_INET6 if ":" in cfg.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((cfg.host, port))
    except OSError as e:
        sock.close()
        log.error("web_listener_failed", host=cfg.host, port=port, error=str(e))
        return None
    sock.listen(256)
    sock.setblocking(False)
    config = uvicorn.Config(build_app(core, referee, cfg), lifespan="off", log_config=None, access_log=False,
                            ws="none", timeout_graceful_shutdown=2, log_level="warning",
                            # the peer address is the quota identity: no X-Forwarded-For from anyone
                            proxy_headers=False, server_header=False,
                            http=webguard.protocol(cfg.web_max_connections, cfg.web_connections_per_client,
                                                   cfg.web_header_timeout_s),
                            timeout_keep_alive=cfg.web_idle_s, limit_concurrency=cfg.web_max_connections or None,
                            h11_max_incomplete_event_size=16 * 1024, **transport.web_ssl(cfg))
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.01)
    log.info("web_serving", host=cfg.host, port=port, cors=cfg_value(cfg, "web_cors_origins", ""),
             tls=bool(transport.web_ssl(cfg)))

    async def stop() -> None:
        server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, timeout=5)

    return stop
