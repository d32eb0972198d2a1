"""Settings from the environment (GE_*), with the defaults the README documents.

`Config()` is the defaults; `Config.from_env()` reads GE_* when the server starts (never at import).
"""
from __future__ import annotations

import ipaddress
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import TypeVar

from .journal import FSYNC_POLICIES

T = TypeVar("T", int, float, str)
_PARSE = {"int": int, "float": float, "str": str}


def setting(env: str, default: T) -> T:
    """A Config field: its default, and the GE_* variable that overrides it."""
    return field(default=default, metadata={"env": env})


@dataclass(frozen=True)
class Config:
    host: str = setting("GE_HOST", "127.0.0.1")
    port: int = setting("GE_PORT", 50051)
    metrics_port: int = setting("GE_METRICS_PORT", 9464)
    data_dir: str = setting("GE_DATA_DIR", "./var")
    fsync: str = setting("GE_FSYNC", "interval")
    fsync_interval_ms: int = setting("GE_FSYNC_INTERVAL_MS", 100)
    finished_ttl_s: float = setting("GE_FINISHED_TTL_S", 86400.0)
    finished_games_max: int = setting("GE_FINISHED_GAMES_MAX", 20000)  # in memory; the oldest beyond leave early
    hibernate_after_s: float = setting("GE_HIBERNATE_AFTER_S", 10.0)  # idle and finished games pickled; 0 = never
    snapshot_interval_s: float = setting("GE_SNAPSHOT_INTERVAL_S", 60.0)
    snapshot_pace_ms: float = setting("GE_SNAPSHOT_PACE_MS", 10.0)  # the writer's rest per MiB; 0 = at once
    max_message_bytes: int = setting("GE_MAX_MESSAGE_BYTES", 64 << 10)  # a request; no legitimate one nears it
    log_level: str = setting("GE_LOG_LEVEL", "info")
    hint_workers: int = setting("GE_HINT_WORKERS", 2)
    workers_per_client: int = setting("GE_WORKERS_PER_CLIENT", 1)  # of hint_workers, held at once; 0: all
    hint_queue: int = setting("GE_HINT_QUEUE", 4)
    hint_max_ms: int = setting("GE_HINT_MAX_MS", 2000)
    autoplay_ms: int = setting("GE_AUTOPLAY_MS", 200)
    referee_tick_s: float = setting("GE_REFEREE_TICK_S", 0.2)
    admin_token: str = setting("GE_ADMIN_TOKEN", "")
    games: str = setting("GE_GAMES", "")  # comma list; empty = every built game
    shard: str = setting("GE_SHARD", "")  # game ids are prefixed with it (multi-replica routing)
    web_port: int = setting("GE_WEB_PORT", 8080)  # Connect + gRPC-Web + the page (server/web.py); 0 = off
    event_loop: str = setting("GE_EVENT_LOOP", "uvloop")  # "uvloop" (libuv: shorter latency tail) or "asyncio"
    web_cors_origins: str = setting("GE_WEB_CORS_ORIGINS", "")  # comma list of allowed origins, "*" = any
    # Participation layer (server/lobby.py): a waiting game expires after this long (LOBBY-9); per player,
    # at most this many waiting games of its own (LOBBY-7) and seats in others' waiting games (LOBBY-8).
    lobby_waiting_ttl_s: float = setting("GE_LOBBY_WAITING_TTL_S", 3600.0)
    lobby_max_waiting_created: int = setting("GE_LOBBY_MAX_WAITING_CREATED", 5)
    lobby_max_open_joins: int = setting("GE_LOBBY_MAX_OPEN_JOINS", 10)
    # ---- limits (server/limits.py, server/quotas.py; README "Limits"); 0 turns a quota off ----
    requests_per_s: float = setting("GE_RATE_LIMIT_PER_S", 200.0)  # per client, burst 2x
    requests_per_address_s: float = setting("GE_RATE_LIMIT_PER_ADDRESS_S", 200.0)  # its players together, burst 0.1 s
    creates_per_min: float = setting("GE_CREATES_PER_MIN", 120.0)  # per client
    creates_burst: float = setting("GE_CREATES_BURST", 20.0)  # per client, at once
    creates_total_per_s: float = setting("GE_CREATES_TOTAL_PER_S", 20.0)  # heavy creators together, burst 1 s
    creates_light_per_min: float = setting("GE_CREATES_LIGHT_PER_MIN", 10.0)  # per client: not held to the total
    live_games: int = setting("GE_LIVE_GAMES", 10000)  # unfinished games, all clients
    live_games_per_client: int = setting("GE_LIVE_GAMES_PER_CLIENT", 1000)
    live_games_per_address: int = setting("GE_LIVE_GAMES_PER_ADDRESS", 2000)  # its players together
    demo_games_per_client: int = setting("GE_DEMO_GAMES_PER_CLIENT", 4)  # unfinished, bank under demo_bank_ms
    demo_bank_ms: int = setting("GE_DEMO_BANK_MS", 1000)
    streams_per_client: int = setting("GE_STREAMS_PER_CLIENT", 256)
    streams_per_address: int = setting("GE_STREAMS_PER_ADDRESS", 512)  # its players together
    tournaments_per_address: int = setting("GE_TOURNAMENTS_PER_ADDRESS", 10)  # registering or running (TOUR-15)
    tournament_registration_ttl_s: float = setting("GE_TOURNAMENT_REGISTRATION_TTL_S", 86400.0)  # TOUR-16
    spectators_per_game: int = setting("GE_SPECTATORS_PER_GAME", 32)
    replay_events_per_game_s: float = setting("GE_REPLAY_EVENTS_PER_GAME_S", 500.0)  # burst 2x
    hints_per_client: int = setting("GE_HINTS_PER_CLIENT", 2)
    hints_per_game: int = setting("GE_HINTS_PER_GAME", 2)
    hints_per_address: int = setting("GE_HINTS_PER_ADDRESS", 2)  # its players together
    hint_ms_per_client_min: float = setting("GE_HINT_MS_PER_CLIENT_MIN", 20000.0)
    pool_jobs_per_client: int = setting("GE_POOL_JOBS_PER_CLIENT", 2)
    referee_moves_per_client_s: float = setting("GE_REFEREE_MOVES_PER_CLIENT_S", 20.0)
    calls_per_client: int = setting("GE_CALLS_PER_CLIENT", 4)  # handlers at once; more wait their turn
    calls_per_address: int = setting("GE_CALLS_PER_ADDRESS", 16)  # all its identities' handlers at once
    idle_game_ttl_s: float = setting("GE_IDLE_GAME_TTL_S", 86400.0)  # unfinished, no move: abandoned
    grpc_keepalive_s: float = setting("GE_GRPC_KEEPALIVE_S", 60.0)
    grpc_max_idle_s: float = setting("GE_GRPC_MAX_IDLE_S", 300.0)
    grpc_max_age_s: float = setting("GE_GRPC_MAX_AGE_S", 3600.0)
    grpc_max_age_grace_s: float = setting("GE_GRPC_MAX_AGE_GRACE_S", 300.0)
    grpc_streams_per_connection: int = setting("GE_GRPC_STREAMS_PER_CONNECTION", 256)
    grpc_max_connections: int = setting("GE_GRPC_MAX_CONNECTIONS", 8000)
    grpc_handshake_timeout_s: float = setting("GE_GRPC_HANDSHAKE_TIMEOUT_S", 10.0)
    web_idle_s: float = setting("GE_WEB_IDLE_S", 5.0)  # keep-alive between requests
    web_header_timeout_s: float = setting("GE_WEB_HEADER_TIMEOUT_S", 10.0)  # to send a request's head
    web_body_timeout_s: float = setting("GE_WEB_BODY_TIMEOUT_S", 10.0)  # to send its body, from its head
    web_max_connections: int = setting("GE_WEB_MAX_CONNECTIONS", 1000)
    web_connections_per_client: int = setting("GE_WEB_CONNECTIONS_PER_CLIENT", 32)
    # comma list of networks (CIDR) whose X-Forwarded-For names the caller (quotas.forwarded_origin); empty = none
    trusted_proxies: str = setting("GE_TRUSTED_PROXIES", "")
    create_tokens: str = setting("GE_CREATE_TOKENS", "")  # comma list; set = creating needs one (server/access.py)
    create_tokens_file: str = setting("GE_CREATE_TOKENS_FILE", "")  # one per line
    tls_cert: str = setting("GE_TLS_CERT", "")  # PEM; with tls_key, both ports serve TLS only
    tls_key: str = setting("GE_TLS_KEY", "")
    tls_client_ca: str = setting("GE_TLS_CLIENT_CA", "")  # PEM; set = clients must present a cert it signed
    # draining while it exists; empty = <data_dir>/DRAIN (server/drain.py)
    drain_file: str = setting("GE_DRAIN_FILE", "")
    otel: str = setting("GE_OTEL", "")  # "1" = OpenTelemetry tracing of gRPC calls (server/tracing.py)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Config:
        """The defaults, overridden by every GE_* variable set in `environ` (default os.environ);
        ConfigError (one line naming the variable) for a value that is not one the server runs with."""
        env = os.environ if environ is None else environ
        values = {}
        for f in fields(cls):
            name = f.metadata["env"]
            if name in env:
                try:
                    values[f.name] = _PARSE[str(f.type)](env[name])
                except ValueError:
                    raise ConfigError(f"{name}={env[name][:40]!r} is not {_WHAT[str(f.type)]}") from None
        cfg = cls(**values)
        cfg.check()
        return cfg

    def check(self) -> None:
        """Values that parse but that the server cannot run with: a zero interval would spin a core."""
        for name, value, ok, what in (
                ("GE_PORT", self.port, 0 < self.port < 65536, "a port 1..65535"),
                ("GE_METRICS_PORT", self.metrics_port, 0 <= self.metrics_port < 65536, "a port, or 0 (off)"),
                ("GE_WEB_PORT", self.web_port, 0 <= self.web_port < 65536, "a port, or 0 (off)"),
                ("GE_FSYNC", self.fsync, self.fsync in FSYNC_POLICIES, ", ".join(FSYNC_POLICIES)),
                ("GE_FSYNC_INTERVAL_MS", self.fsync_interval_ms, self.fsync_interval_ms > 0, "above 0"),
                ("GE_SNAPSHOT_INTERVAL_S", self.snapshot_interval_s, self.snapshot_interval_s > 0, "above 0"),
                ("GE_REFEREE_TICK_S", self.referee_tick_s, self.referee_tick_s > 0, "above 0"),
                ("GE_HINT_WORKERS", self.hint_workers, self.hint_workers >= 1, "at least 1"),
                ("GE_LOG_LEVEL", self.log_level, self.log_level.lower() in LOG_LEVELS, ", ".join(LOG_LEVELS)),
                ("GE_EVENT_LOOP", self.event_loop, self.event_loop in ("uvloop", "asyncio"), "uvloop or asyncio")):
            if not ok:
                raise ConfigError(f"{name}={_shown(value)!r}: must be {what}")
        for f in fields(self):  # a negative count, rate or time means nothing (0 turns a limit off)
            value = getattr(self, f.name)
            if isinstance(value, float) and not math.isfinite(value):  # float() reads "nan" and "inf"
                raise ConfigError(f"{f.metadata['env']}={_shown(value)!r}: must be a finite number")
            if isinstance(value, (int, float)) and value < 0:
                raise ConfigError(f"{f.metadata['env']}={_shown(value)!r}: must be 0 or more")
        if self.max_message_bytes < 1024:  # -1 would be gRPC's "unlimited"
            raise ConfigError(f"GE_MAX_MESSAGE_BYTES={self.max_message_bytes!r}: must be at least 1024")
        if self.shard and not SHARD.fullmatch(self.shard):  # the router reads the owner off the game id
            raise ConfigError(f"GE_SHARD={_shown(self.shard)!r}: must be a DNS label: lowercase letters, digits "
                              "and '-', starting with a letter or digit, at most 63")
        if bool(self.tls_cert) != bool(self.tls_key):
            raise ConfigError("GE_TLS_CERT and GE_TLS_KEY go together: set both or neither")
        if self.tls_client_ca and not self.tls_cert:
            raise ConfigError("GE_TLS_CLIENT_CA needs GE_TLS_CERT and GE_TLS_KEY")
        self.trusted_networks()

    def files(self) -> dict[str, str]:
        """The files the server reads at start, by the variable naming each (those set)."""
        return {name: path for name, path in (
            ("GE_CREATE_TOKENS_FILE", self.create_tokens_file), ("GE_TLS_CERT", self.tls_cert),
            ("GE_TLS_KEY", self.tls_key), ("GE_TLS_CLIENT_CA", self.tls_client_ca)) if path}

    def trusted_networks(self) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
        """GE_TRUSTED_PROXIES' networks ("10.0.0.0/8,fc00::/7"; a bare address is its own /32 or /128)."""
        try:
            return tuple(ipaddress.ip_network(part.strip(), strict=False)
                         for part in self.trusted_proxies.split(",") if part.strip())
        except ValueError:
            raise ConfigError(f"GE_TRUSTED_PROXIES={self.trusted_proxies[:40]!r}: must be networks such as "
                              "10.0.0.0/8,fc00::/7, separated by commas") from None


def _shown(value: object) -> str:
    """A parsed value as it was most likely written: 0 and -1 for the floats 0.0 and -1.0."""
    return (f"{value:g}" if isinstance(value, float) else str(value))[:40]


class ConfigError(SystemExit):
    """A GE_* value the server does not start with; its message is the one line printed."""


LOG_LEVELS = ("debug", "info", "warning", "error")
SHARD = re.compile(r"[a-z0-9][-a-z0-9]{0,62}")  # k8s/base/router/router.conf.template's owner
_WHAT = {"int": "an integer", "float": "a number", "str": "text"}
