"""Connection limits and TLS for both listeners, from the GE_* settings (README "Limits", "TLS").

gRPC: keepalive pings, idle and age limits (with a grace period for calls in flight), streams
per connection, a connection cap and a handshake timeout, so idle or half-open connections
cannot pile up. TLS when GE_TLS_CERT and GE_TLS_KEY are set (then plaintext is refused), and
mutual TLS when GE_TLS_CLIENT_CA is set too.
"""
from __future__ import annotations

import resource
import ssl
from pathlib import Path
from typing import Any

import grpc

from .config import Config

HARD_REQUEST_FACTOR = 4


def grpc_options(cfg: Config) -> list[tuple[str, int]]:
    def ms(s: float) -> int:
        return int(s * 1000)

    options = [
        # gRPC's own refusal (unpaced, in no metric) only far past GE_MAX_MESSAGE_BYTES: up to it, the
        # handler refuses (servicer.safe_parser), paced and counted as the web port's refusals are
        ("grpc.max_receive_message_length", HARD_REQUEST_FACTOR * cfg.max_message_bytes),
        ("grpc.max_send_message_length", max(8 << 20, 8 * cfg.max_message_bytes)),  # whole game logs
        ("grpc.max_concurrent_streams", cfg.grpc_streams_per_connection),
        ("grpc.keepalive_time_ms", ms(cfg.grpc_keepalive_s)),
        ("grpc.keepalive_timeout_ms", 20_000),
        ("grpc.http2.min_ping_interval_without_data_ms", 10_000),  # clients may ping every 10 s
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.max_connection_idle_ms", ms(cfg.grpc_max_idle_s)),
        ("grpc.max_connection_age_ms", ms(cfg.grpc_max_age_s)),
        ("grpc.max_connection_age_grace_ms", ms(cfg.grpc_max_age_grace_s)),
        ("grpc.max_allowed_incoming_connections", cfg.grpc_max_connections),
        ("grpc.server_handshake_timeout_ms", ms(cfg.grpc_handshake_timeout_s)),
    ]
    return [(k, v) for k, v in options if v > 0]  # 0 = the setting is off (gRPC's own default)


def internal_options(cfg: Config) -> list[tuple[str, int]]:
    """The web edge's socket (server/gateway.py): one connection carries every browser's calls, which
    the web port's own caps bound (GE_WEB_MAX_CONNECTIONS), so no stream, idle or age limit here."""
    return [("grpc.max_receive_message_length", cfg.max_message_bytes),
            ("grpc.max_send_message_length", max(8 << 20, 8 * cfg.max_message_bytes))]


def tls_on(cfg: Config) -> bool:
    return bool(cfg.tls_cert)  # with GE_TLS_KEY: Config.check


def grpc_credentials(cfg: Config) -> grpc.ServerCredentials | None:
    if not tls_on(cfg):
        return None
    ca = Path(cfg.tls_client_ca).read_bytes() if cfg.tls_client_ca else None
    return grpc.ssl_server_credentials([(Path(cfg.tls_key).read_bytes(), Path(cfg.tls_cert).read_bytes())],
                                       root_certificates=ca, require_client_auth=ca is not None)


def web_ssl(cfg: Config) -> dict[str, Any]:
    """uvicorn's TLS arguments for the web port (empty when TLS is off)."""
    if not tls_on(cfg):
        return {}
    args: dict[str, Any] = {"ssl_certfile": cfg.tls_cert, "ssl_keyfile": cfg.tls_key}
    if cfg.tls_client_ca:
        args.update(ssl_ca_certs=cfg.tls_client_ca, ssl_cert_reqs=ssl.CERT_REQUIRED)
    return args


def raise_fd_limit() -> int:
    """Soft open-file limit up to the hard one: connection caps, not EMFILE, should bound connections."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


WEB_PEER = "x-ge-web-peer"  # the browser's address, sent by the web edge (server/gateway.py) with each call
HOLD_MS = "x-ge-hold-ms"  # a refusal's trailer to the web edge: hold it this long before answering the browser
MAX_PEER = 128


def peer_of(context: Any) -> tuple[str, str]:
    """(peer, transport) of a call. The web edge's calls arrive on the internal Unix socket, which
    only this server's own processes can reach; there, and only there, WEB_PEER names the real
    caller (`web:host:port`). Anyone else's WEB_PEER is ignored."""
    peer = context.peer() or ""
    if peer.startswith("unix:"):
        for key, value in context.invocation_metadata() or ():
            if key == WEB_PEER and isinstance(value, str):
                return value[:MAX_PEER], "web"
    return peer, "grpc"
