"""The web port's own guards: connection caps and timeouts on uvicorn's HTTP/1.1 protocol, and
security headers on every response (README "Limits", "Browser access").

uvicorn times out a connection only between requests (timeout_keep_alive), never before the
first one or while a request's head trickles in, and its limit_concurrency answers 503 only
once a request arrives. So a connection beyond the total or per-client cap is held as it is
accepted, with no transport or protocol, then answered 503 and closed (Acceptor), and one that
has not sent a whole request head (or finished its TLS handshake) within GE_WEB_HEADER_TIMEOUT_S
is closed.
"""
from __future__ import annotations

import asyncio
import json
import resource
import socket
import ssl as ssl_module
from collections.abc import Callable
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol, RequestResponseCycle

from . import metrics, quotas
from .errors import Exhausted

# The page loads only its own script, style and data (no inline script or style), and may not be framed.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = [(b"content-security-policy", CSP.encode()), (b"x-frame-options", b"DENY"),
                    (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]


def with_security_headers(app: ASGIApp) -> ASGIApp:
    async def guarded_app(scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                message = dict(message, headers=list(message.get("headers", []))
                               + [(k, v) for k, v in SECURITY_HEADERS if k not in names])
            await send(message)
        await app(scope, receive, send_with_headers)
    return guarded_app


def with_body_limit(app: ASGIApp, max_bytes: int) -> ASGIApp:
    """Refuse a request whose declared body is over `max_bytes` (GE_MAX_MESSAGE_BYTES, plus the 5-byte
    envelope) before reading any of it, paced like other refusals and closing the connection, so an
    oversized body costs the server one header parse instead of reading and decoding it."""
    limit = max_bytes + 5

    async def limited_app(scope: Scope, receive: Receive, send: Send) -> None:
        size = _content_length(scope) if scope["type"] == "http" else None
        if size is None or size <= limit:
            await app(scope, receive, send)
            return
        message = f"the request body is {size} bytes; the maximum is {max_bytes} (GE_MAX_MESSAGE_BYTES)"
        client = quotas.client_identity("web:" + _host_port(scope.get("client")))
        q = quotas.QUOTAS
        await q.pace(client, q.pace_s(client, Exhausted(message, retry_after_ms=1000)))
        metrics.LIMIT_REFUSALS.labels("message_size").inc()
        headers = [(b"connection", b"close")]
        ctype = dict(scope.get("headers", ())).get(b"content-type", b"")
        if ctype.startswith(b"application/grpc-web"):  # a trailers-only gRPC-Web answer
            headers += [(b"content-type", ctype), (b"grpc-status", b"8"), (b"grpc-message", message.encode())]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        body = json.dumps({"code": "resource_exhausted", "message": message}).encode()
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 429, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return limited_app


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class Caps:
    """Open web connections, in total and per client (GE_WEB_MAX_CONNECTIONS, GE_WEB_CONNECTIONS_PER_CLIENT)."""

    def __init__(self, max_connections: int, per_client: int):
        self.max_connections, self.per_client = max_connections, per_client
        self.total = 0
        self.by_client: dict[str, int] = {}

    def admit(self, key: str) -> bool:
        n = self.by_client.get(key, 0)
        if (self.max_connections and self.total >= self.max_connections) or (self.per_client and n >= self.per_client):
            return False
        self.by_client[key] = n + 1
        self.total += 1
        return True

    def release(self, key: str) -> None:
        n = self.by_client.get(key, 0) - 1
        if n > 0:
            self.by_client[key] = n
        else:
            self.by_client.pop(key, None)
        self.total -= 1


OVER_CAP_HOLD_S = 5.0  # a connection over a cap waits this long for its 503, as a refused stream does
_OVER_CAP_BODY = (b"too many open connections from this address or in all "
                  b"(GE_WEB_CONNECTIONS_PER_CLIENT, GE_WEB_MAX_CONNECTIONS)\n")
OVER_CAP_RESPONSE = (b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: %d\r\nConnection: close\r\n"
                     b"Content-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (OVER_CAP_HOLD_S, len(_OVER_CAP_BODY), _OVER_CAP_BODY))
DRAIN_READS = 4  # reads of what a turned-away client sent, at most: it cannot keep the loop reading


class Acceptor:
    """The web port's accept loop. A connection over a cap gets no transport or protocol: it is held
    (a descriptor and a timer) for OVER_CAP_HOLD_S, then answered 503 and closed. Closed at once, an
    attacker's thousands of refused connections came straight back: several thousand accepts and
    closes a second. At most `max_held` wait at once (half the descriptors); beyond, one is closed at
    once. Stands in for the asyncio.Server uvicorn would make (close / wait_closed)."""

    BATCH = 64  # accepts per wake-up, so one flood cannot hold the loop

    def __init__(self, sock: socket.socket, make_protocol: Callable[[str], GuardedH11], caps: Caps,
                 ssl: ssl_module.SSLContext | None, handshake_timeout_s: float,
                 hold_s: float = OVER_CAP_HOLD_S):
        self.sock, self.make_protocol, self.caps = sock, make_protocol, caps
        self.ssl, self.handshake_timeout_s, self.hold_s = ssl, handshake_timeout_s, hold_s
        self.loop = asyncio.get_running_loop()
        self.sock.setblocking(False)
        self.serving: set[asyncio.Task[None]] = set()
        self.held: dict[socket.socket, asyncio.TimerHandle] = {}
        self.max_held = resource.getrlimit(resource.RLIMIT_NOFILE)[0] // 2
        self.loop.add_reader(self.sock.fileno(), self._accept)
        self.closed = False

    def _accept(self) -> None:
        for _ in range(self.BATCH):
            try:
                conn, addr = self.sock.accept()
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                return
            except OSError:  # out of descriptors or buffers: stop accepting for a moment, as asyncio does
                self.loop.remove_reader(self.sock.fileno())
                self.loop.call_later(0.1, self._resume)
                return
            key = quotas.peer_address("web:" + _host_port(addr))
            if not self.caps.admit(key):
                self._hold(conn)
                continue
            conn.setblocking(False)
            task = self.loop.create_task(self._serve(conn, key))
            self.serving.add(task)  # the loop keeps only a weak reference to a task
            task.add_done_callback(self.serving.discard)

    async def _serve(self, conn: socket.socket, key: str) -> None:
        protocol = self.make_protocol(key)
        try:
            await self.loop.connect_accepted_socket(
                lambda: protocol, conn, ssl=self.ssl,
                ssl_handshake_timeout=(self.handshake_timeout_s or None) if self.ssl else None)
        except (OSError, ssl_module.SSLError, TimeoutError):  # the peer left, or failed the TLS handshake
            protocol.give_back()
            conn.close()

    def _hold(self, conn: socket.socket) -> None:
        if len(self.held) >= self.max_held:
            conn.close()
            return
        conn.setblocking(False)
        self.held[conn] = self.loop.call_later(quotas.jittered(self.hold_s), self._turn_away, conn)

    def _turn_away(self, conn: socket.socket) -> None:
        """503 (not over TLS: no handshake was made), then close after reading what the client sent,
        so the close is a FIN the client reads the answer before, not a reset."""
        self.held.pop(conn, None)
        try:
            if self.ssl is None:
                conn.send(OVER_CAP_RESPONSE)
                conn.shutdown(socket.SHUT_WR)
            for _ in range(DRAIN_READS):
                if not conn.recv(65536):
                    break
        except OSError:  # nothing more to read (BlockingIOError), or the client has gone
            pass
        conn.close()

    def _resume(self) -> None:
        if not self.closed:
            self.loop.add_reader(self.sock.fileno(), self._accept)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.loop.remove_reader(self.sock.fileno())
            self.sock.close()
            for conn, timer in self.held.items():
                timer.cancel()
                conn.close()
            self.held.clear()

    async def wait_closed(self) -> None:
        return None


class GuardedH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with the request-head timeout, holding its place under the caps
    until the connection ends. `protocol()` makes the class for one server's caps and timeout."""
    caps: Caps
    header_timeout_s: float
    _head_timer: asyncio.TimerHandle | None = None

    def __init__(self, *args: Any, client_key: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.client_key = client_key  # counted under `caps` by the Acceptor

    def give_back(self) -> None:
        if self.client_key:
            self.caps.release(self.client_key)
            self.client_key = ""

    # asyncio.Protocol's is typed with BaseTransport; uvicorn's own override narrows it the same way
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self.give_back()
        if self._head_timer is not None:
            self._head_timer.cancel()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_head_timer()  # the next request's head has the same deadline

    def _arm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        if self.header_timeout_s > 0:
            self._head_timer = self.loop.call_later(self.header_timeout_s, self._head_deadline, self.cycle)

    def _head_deadline(self, cycle_then: RequestResponseCycle | None) -> None:
        # Still no new request since the timer was armed: the head never came (or never completed).
        if self.cycle is cycle_then and not self.transport.is_closing():
            self.transport.close()


def protocol(caps: Caps, header_timeout_s: float) -> type[GuardedH11]:
    return type("GuardedH11", (GuardedH11,), {"caps": caps, "header_timeout_s": header_timeout_s})


def _host_port(client: Any) -> str:  # uvicorn's (host, port) or ASGI's [host, port], or None
    if not client:
        return "unknown"
    host, port = client[0], client[1]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
