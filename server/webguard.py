"""The web port's own guards: connection caps and timeouts on uvicorn's HTTP/1.1 protocol, and
security headers on every response (README "Limits", "Browser access").

uvicorn times out a connection only between requests (timeout_keep_alive), never before the
first one or while a request's head trickles in, and its limit_concurrency answers 503 only
once a request arrives. So a connection beyond the total or per-client cap is closed at once,
and one that has not sent a whole request head within GE_WEB_HEADER_TIMEOUT_S is closed.
"""
from __future__ import annotations

import asyncio
import json
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
        await quotas.QUOTAS.pace(client, Exhausted(message, retry_after_ms=1000))
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


def protocol(max_connections: int, per_client: int, header_timeout_s: float) -> type[H11Protocol]:
    """An H11Protocol class enforcing the connection caps and the request-head timeout."""
    open_by_client: dict[str, int] = {}

    class GuardedH11(H11Protocol):
        _client_key = ""
        _head_timer: asyncio.TimerHandle | None = None

        # asyncio.Protocol's is typed with BaseTransport; uvicorn's own override narrows it the same way
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._client_key = quotas.peer_address("web:" + _host_port(self.client))
            n = open_by_client.get(self._client_key, 0) + 1
            open_by_client[self._client_key] = n
            if (max_connections and len(self.connections) > max_connections) or (per_client and n > per_client):
                transport.abort()  # before reading anything: costs one accept, no buffers
                return
            self._arm_head_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            n = open_by_client.get(self._client_key, 0) - 1
            if n > 0:
                open_by_client[self._client_key] = n
            else:
                open_by_client.pop(self._client_key, None)
            if self._head_timer is not None:
                self._head_timer.cancel()
            super().connection_lost(exc)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm_head_timer()  # the next request's head has the same deadline

        def _arm_head_timer(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
            if header_timeout_s > 0:
                self._head_timer = self.loop.call_later(header_timeout_s, self._head_deadline, self.cycle)

        def _head_deadline(self, cycle_then: RequestResponseCycle | None) -> None:
            # Still no new request since the timer was armed: the head never came (or never completed).
            if self.cycle is cycle_then and not self.transport.is_closing():
                self.transport.close()

    return GuardedH11


def _host_port(client: Any) -> str:  # uvicorn's (host, port) or ASGI's [host, port], or None
    if not client:
        return "unknown"
    host, port = client[0], client[1]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
