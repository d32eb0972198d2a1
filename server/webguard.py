"""The web port's own guards: connection caps and timeouts on uvicorn's HTTP/1.1 protocol, and
security headers on every response (README "Limits", "Browser access").

uvicorn times out a connection only between requests (timeout_keep_alive), never before the
first one or while a request's head trickles in, and its limit_concurrency answers 503 only
once a request arrives. So a connection beyond the total or per-client cap is held as it is
accepted, with no transport or protocol, then answered 503 and closed (Acceptor), and one that
has not sent a whole request head (or finished its TLS handshake) within GE_WEB_HEADER_TIMEOUT_S,
or a request's whole body within GE_WEB_BODY_TIMEOUT_S of its head, is closed.
"""
from __future__ import annotations

import asyncio
import base64
import json
import logging
import resource
import socket
import ssl as ssl_module
import struct
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from typing import Any, cast

import h11
from google.rpc import code_pb2, status_pb2
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol, RequestResponseCycle

from . import limits, quotas
from .edge import refusal_status
from .errors import Exhausted, InvalidArgument, ServiceError, oversize

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


# ---- refusals the edge makes itself ------------------------------------------------------------
# A request the edge cannot decode, over the size limit or for no method never reaches the gRPC server,
# so the edge refuses it itself, with the google.rpc.Status the gRPC server would build
# (edge.refusal_status: ErrorInfo, and BadRequest with INVALID_ARGUMENT), as common.proto promises.

def edge_status(err: ServiceError) -> status_pb2.Status:
    """The google.rpc.Status of a refusal made by the web edge, shaped as the gRPC server's."""
    err.message = limits.clip(err.message)
    return refusal_status(err)


Count = Callable[[str], Awaitable[None]]  # counts a refusal by its limit where /metrics is served (web.refusal_counter)


async def pace_oversize(client_address: Any, forwarded: str | None, err: Exhausted, count: Count,
                        limit: str = "message_size", time_left_s: float | None = None) -> None:
    """Hold an oversize refusal like other refusals the caller could repeat at once (README "Limits"),
    within half the call's `time_left_s` as on the gRPC port, and count it by `limit`; `forwarded`: the
    request's X-Forwarded-For (quotas.peer_address)."""
    client = quotas.client_identity("web:" + _host_port(client_address), forwarded=forwarded)
    q = quotas.QUOTAS
    delay = q.pace_s(client, Exhausted(err.message, retry_after_ms=1000), time_left_s)
    await asyncio.gather(q.pace(client, delay), count(limit))


def connect_error_body(status: status_pb2.Status) -> bytes:
    """A Connect error's JSON body: code, message and the details (unpadded base64, as Connect sends them)."""
    return json.dumps({"code": code_pb2.Code.Name(status.code).lower(), "message": status.message,
                       "details": [{"type": d.type_url.rpartition("/")[2],
                                    "value": base64.b64encode(d.value).decode().rstrip("=")}
                                   for d in status.details]}).encode()


def grpc_status_headers(status: status_pb2.Status) -> list[tuple[bytes, bytes]]:
    """gRPC's status headers (a trailers-only gRPC-Web answer, or its trailers): grpc-status, the
    percent-encoded grpc-message and grpc-status-details-bin."""
    return [(b"grpc-status", str(status.code).encode()),
            (b"grpc-message", _percent_encoded(status.message)),
            (b"grpc-status-details-bin", base64.b64encode(status.SerializeToString()).rstrip(b"="))]


async def send_refusal(send: Send, content_type: bytes, status: status_pb2.Status, http_status: int,
                       close: bool = False, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """Send a refusal as the request's protocol reads it: gRPC-Web (any application/grpc...) a
    trailers-only answer, HTTP 200 with the status in its headers; a Connect stream
    (application/connect+...) HTTP 200 and an end-of-stream message holding the error, which is all a
    Connect client reads from a stream; a Connect unary call `http_status` and the error's JSON. The
    answer's content type is the request's only when it is one this port serves (never caller text)."""
    headers = [*(headers or ()), *([(b"connection", b"close")] if close else [])]
    ctype = content_type.split(b";")[0].strip()
    if ctype.startswith(b"application/grpc"):
        answered = ctype if ctype in SERVED_TYPES else b"application/grpc-web+proto"
        headers += [(b"content-type", answered), *grpc_status_headers(status)]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b""})
        return
    error = connect_error_body(status)
    if ctype.startswith(b"application/connect+"):
        end = b'{"error": ' + error + b"}"
        body, http_status = struct.pack(">BI", 2, len(end)) + end, 200  # flag 2: the end of the stream
        ctype = ctype if ctype in SERVED_TYPES else b"application/connect+json"
    else:
        body, ctype = error, b"application/json"
    headers += [(b"content-type", ctype), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": http_status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


SERVED_TYPES = frozenset({b"application/grpc", b"application/grpc+proto", b"application/grpc-web",
                          b"application/grpc-web+proto", b"application/grpc-web+json",
                          b"application/grpc-web-text", b"application/grpc-web-text+proto",
                          b"application/connect+json", b"application/connect+proto"})


def _percent_encoded(message: str) -> bytes:
    """grpc-message as gRPC sends it: printable ASCII as it is, but %, and the rest percent-encoded (UTF-8)."""
    return "".join(c if " " <= c <= "~" and c != "%" else urllib.parse.quote(c, safe="")
                   for c in message).encode()


def content_type_of(scope: Scope) -> bytes:
    for name, value in scope.get("headers", ()):
        if name == b"content-type":
            found: bytes = value.strip().lower()
            return found
    return b""


# HTTP status of a Connect error (the Connect protocol's table: resource_exhausted is 429)
RESOURCE_EXHAUSTED_HTTP, INVALID_ARGUMENT_HTTP = 429, 400


def with_readable_headers(app: ASGIApp) -> ASGIApp:
    """Refuse a request with a header value that is not UTF-8 (INVALID_ARGUMENT, rule REQUEST): connectrpc
    decodes every header as UTF-8, and such a byte answered HTTP 500 "unknown" with a traceback."""
    async def readable_app(scope: Scope, receive: Receive, send: Send) -> None:
        unreadable = [name for name, value in scope.get("headers", ()) if not _utf8(value)]
        if scope["type"] != "http" or not unreadable:
            await app(scope, receive, send)
            return
        name = limits.quote(unreadable[0].decode("latin-1"))
        err = InvalidArgument(f"the value of header {name!r} is not UTF-8", rule="REQUEST")
        await send_refusal(send, content_type_of(scope), edge_status(err), INVALID_ARGUMENT_HTTP)
    return readable_app


def _utf8(value: bytes) -> bool:
    try:
        value.decode()
    except UnicodeDecodeError:
        return False
    return True


def with_body_limit(app: ASGIApp, max_bytes: int, count: Count) -> ASGIApp:
    """Refuse a request whose declared body is over `max_bytes` (GE_MAX_MESSAGE_BYTES, plus the 5-byte
    envelope) before reading any of it, paced like other refusals and closing the connection, so an
    oversized body costs the server one header parse instead of reading and decoding it. The refusal is
    RESOURCE_EXHAUSTED with ErrorInfo: Connect's HTTP 429 with its JSON error, gRPC-Web's grpc-status 8;
    a body with no declared length is refused the same way as it is read (web.EdgeRefusals)."""
    async def limited_app(scope: Scope, receive: Receive, send: Send) -> None:
        size = _content_length(scope) if scope["type"] == "http" else None
        if size is None or size <= body_bound(scope, max_bytes):
            await app(scope, receive, send)
            return
        err = oversize(max_bytes, size)
        await pace_oversize(scope.get("client"), forwarded_in(scope), err, count)
        await send_refusal(send, content_type_of(scope), edge_status(err), RESOURCE_EXHAUSTED_HTTP, close=True)

    return limited_app


MAX_HEAD_BYTES = 16 << 10  # h11 stops reading a head at this size; one that arrives whole is measured here
HEADERS_TOO_LARGE_HTTP = 431


def with_head_limit(app: ASGIApp, count: Count) -> ASGIApp:
    """Refuse a request whose head (request line and headers) is over MAX_HEAD_BYTES: h11 bounds only a head
    still arriving, and one sent in a single read of up to ~64 KiB was parsed and served. RESOURCE_EXHAUSTED
    (rule LIMIT, HTTP 431), paced and counted like an oversized body, and the connection closed."""
    async def limited_app(scope: Scope, receive: Receive, send: Send) -> None:
        size = head_size(scope) if scope["type"] == "http" else 0
        if size <= MAX_HEAD_BYTES:
            await app(scope, receive, send)
            return
        err = Exhausted(f"the request head is {size} bytes; the maximum is {MAX_HEAD_BYTES}", rule="LIMIT")
        await pace_oversize(scope.get("client"), forwarded_in(scope), err, count, "head_size")
        await send_refusal(send, content_type_of(scope), edge_status(err), HEADERS_TOO_LARGE_HTTP, close=True)
    return limited_app


def head_size(scope: Scope) -> int:
    """A request head's size as sent: its request line ("METHOD target HTTP/1.1") and header lines."""
    query = scope.get("query_string", b"")
    line = len(scope.get("method", "")) + len(scope.get("raw_path", b"")) + (len(query) + 1 if query else 0) + 12
    return line + sum(len(name) + len(value) + 4 for name, value in scope.get("headers", ()))


def body_bound(scope: Scope, max_bytes: int) -> int:
    """The longest body one request of `max_bytes` can take: its 5-byte envelope; in gRPC-Web text mode
    the base64 of that, with some slack (grpcweb_text checks the message itself once decoded)."""
    if content_type_of(scope).startswith(b"application/grpc-web-text"):
        return text_bound(max_bytes)
    return max_bytes + 5


def text_bound(max_bytes: int) -> int:
    return 4 * (max_bytes + 5 + 2) // 3 + 64


def forwarded_in(scope: Scope) -> str | None:
    """An ASGI request's X-Forwarded-For, several headers joined in their order as one list."""
    return quotas.forwarded_of([(k.decode("latin-1"), v.decode("latin-1"))
                                for k, v in scope.get("headers", ()) if k == b"x-forwarded-for"])


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
        """`key` the client's address; "" a trusted proxy's (GE_TRUSTED_PROXIES), held to the total only."""
        n = self.by_client.get(key, 0)
        if (self.max_connections and self.total >= self.max_connections) or (
                key and self.per_client and n >= self.per_client):
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
                     b"Content-Type: text/plain; charset=utf-8\r\n%sContent-Length: %d\r\n\r\n%s"
                     % (OVER_CAP_HOLD_S, b"".join(k + b": " + v + b"\r\n" for k, v in SECURITY_HEADERS),
                        len(_OVER_CAP_BODY), _OVER_CAP_BODY))
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
            # a trusted proxy carries many callers: only the total holds it (their calls have their own quotas)
            key = "" if quotas.trusted_proxy(quotas.ip_of(addr[0])) else quotas.peer_address("web:" + _host_port(addr))
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
    """uvicorn's HTTP/1.1 protocol with deadlines for a request's head and its body, holding its place
    under the caps until the connection ends. `protocol()` makes the class for one server's caps and
    deadlines."""
    caps: Caps
    header_timeout_s: float
    body_timeout_s: float
    _head_timer: asyncio.TimerHandle | None = None
    _body_timer: asyncio.TimerHandle | None = None

    def __init__(self, *args: Any, client_key: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.client_key = client_key  # counted under `caps` by the Acceptor

    def give_back(self) -> None:
        if self.client_key:
            self.caps.release(self.client_key)
            self.client_key = ""

    # asyncio.Protocol's is typed with BaseTransport; uvicorn's own override narrows it the same way
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.lingering = Lingering(transport, self)
        super().connection_made(cast(asyncio.Transport, self.lingering))
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self.give_back()
        for timer in (self._head_timer, self._body_timer):
            if timer is not None:
                timer.cancel()
        self.lingering.stop()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if not self.lingering.discard(len(data)):
            super().data_received(data)

    def handle_events(self) -> None:
        # Called on data and after a response (a pipelined request): a new cycle is a new request's head.
        before = self.cycle
        super().handle_events()
        if self.cycle is not before and self.cycle is not None and self.conn.their_state is h11.SEND_BODY:
            self._arm_body_timer(self.cycle)

    def send_400_response(self, msg: str) -> None:
        # uvicorn's answer to a request h11 cannot parse, with the headers every other answer has
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close"), *SECURITY_HEADERS]
        for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
                      h11.Data(data=msg.encode("ascii")), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event))
        self.transport.close()

    def on_response_complete(self) -> None:
        before = self.cycle
        super().on_response_complete()
        if self.cycle is before:  # no pipelined request started meanwhile: wait for the next head
            self._arm_head_timer()

    def _arm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        if self.header_timeout_s > 0:
            self._head_timer = self.loop.call_later(self.header_timeout_s, self._head_deadline, self.cycle)

    def _arm_body_timer(self, cycle: RequestResponseCycle) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
        if self.body_timeout_s > 0:
            self._body_timer = self.loop.call_later(self.body_timeout_s, self._body_deadline, cycle)

    def _head_deadline(self, cycle_then: RequestResponseCycle | None) -> None:
        # Still no new request since the timer was armed: the head never came (or never completed).
        if self.cycle is cycle_then and not self.transport.is_closing():
            self.lingering.close_now()

    def _body_deadline(self, cycle_then: RequestResponseCycle) -> None:
        # The request's body is still coming: a stalled body would hold its connection (and its place
        # under the caps) for ever, as the head did before its deadline.
        if self.cycle is cycle_then and self.conn.their_state is h11.SEND_BODY and not self.transport.is_closing():
            self.lingering.close_now()


LINGER_S, LINGER_BYTES = 2.0, 4 << 20


class Lingering:
    """The transport uvicorn writes to, closing it as a lingering close when the request's body has not all
    been read (a refusal of an oversized body): the answer is sent and the write side shut, and what the
    client still sends is read and dropped for up to LINGER_S or LINGER_BYTES. Closed at once, the unread
    body made the kernel reset the connection, and a client sending its body in one write got ECONNRESET
    instead of the answer. The rest is the transport's own."""

    def __init__(self, transport: asyncio.Transport, protocol: GuardedH11):
        self.transport, self.protocol = transport, protocol
        self.dropped = 0
        self.timer: asyncio.TimerHandle | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)

    def close(self) -> None:
        unread = self.protocol.conn.their_state is h11.SEND_BODY
        if self.timer is not None or not unread or not self.transport.can_write_eof():
            self.close_now()
            return
        self.transport.write_eof()
        self.transport.resume_reading()
        self.timer = self.protocol.loop.call_later(LINGER_S, self.close_now)

    def is_closing(self) -> bool:
        return self.timer is not None or self.transport.is_closing()

    def discard(self, n: int) -> bool:
        """Whether `n` bytes just received are dropped (the connection is lingering)."""
        if self.timer is None:
            return False
        self.dropped += n
        if self.dropped > LINGER_BYTES:
            self.close_now()
        return True

    def close_now(self) -> None:
        self.stop()
        self.transport.close()

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()


class OncePerSecond(logging.Filter):
    """uvicorn logs a warning for each request it cannot parse: a flood of them must not become a log
    flood. One line a second gets through, saying how many were left out before it."""

    def __init__(self) -> None:
        super().__init__()
        self.last, self.left_out = 0.0, 0

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.WARNING or record.exc_info:
            return True  # failures are each logged
        now = time.monotonic()
        if now - self.last < 1.0:
            self.left_out += 1
            return False
        if self.left_out:
            record.msg = f"{record.getMessage()} ({self.left_out} more such warnings left out before this one)"
            record.args = ()
        self.last, self.left_out = now, 0
        return True


def protocol(caps: Caps, header_timeout_s: float, body_timeout_s: float) -> type[GuardedH11]:
    return type("GuardedH11", (GuardedH11,), {"caps": caps, "header_timeout_s": header_timeout_s,
                                              "body_timeout_s": body_timeout_s})


def _host_port(client: Any) -> str:  # uvicorn's (host, port) or ASGI's [host, port], or None
    if not client:
        return "unknown"
    host, port = client[0], client[1]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
