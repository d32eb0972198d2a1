"""Settings from the environment (GE_*), with the defaults the README documents."""
from __future__ import annotations

import os
from dataclasses import dataclass


def _env(name: str, default: str) -> str:
    return os.environ.get(name, default)


@dataclass(frozen=True)
class Config:
    host: str = _env("GE_HOST", "127.0.0.1")
    port: int = int(_env("GE_PORT", "50051"))
    metrics_port: int = int(_env("GE_METRICS_PORT", "9464"))
    data_dir: str = _env("GE_DATA_DIR", "./var")
    fsync: str = _env("GE_FSYNC", "interval")
    fsync_interval_ms: int = int(_env("GE_FSYNC_INTERVAL_MS", "100"))
    finished_ttl_s: float = float(_env("GE_FINISHED_TTL_S", "86400"))
    snapshot_interval_s: float = float(_env("GE_SNAPSHOT_INTERVAL_S", "60"))
    max_message_bytes: int = int(_env("GE_MAX_MESSAGE_BYTES", str(1 << 20)))
    rate_limit_per_s: float = float(_env("GE_RATE_LIMIT_PER_S", "2000"))
    log_level: str = _env("GE_LOG_LEVEL", "info")
    hint_workers: int = int(_env("GE_HINT_WORKERS", "1"))
    hint_queue: int = int(_env("GE_HINT_QUEUE", "4"))
    hint_max_ms: int = int(_env("GE_HINT_MAX_MS", "2000"))
    autoplay_ms: int = int(_env("GE_AUTOPLAY_MS", "200"))
    referee_tick_s: float = float(_env("GE_REFEREE_TICK_S", "0.2"))
    admin_token: str = _env("GE_ADMIN_TOKEN", "")
    games: str = _env("GE_GAMES", "")  # comma list; empty = every built game
    shard: str = _env("GE_SHARD", "")  # game ids are prefixed with it (multi-replica routing)
    web_port: int = int(_env("GE_WEB_PORT", "8080"))  # Connect + gRPC-Web + the page (server/web.py); 0 = off
    event_loop: str = _env("GE_EVENT_LOOP", "uvloop")  # "uvloop" (libuv: shorter latency tail) or "asyncio"
    web_cors_origins: str = _env("GE_WEB_CORS_ORIGINS", "")  # comma list of allowed origins, "*" = any
    # Participation layer (server/lobby.py): a waiting game expires after this long (LOBBY-9); per player,
    # at most this many waiting games of its own (LOBBY-7) and seats in others' waiting games (LOBBY-8).
    lobby_waiting_ttl_s: float = float(_env("GE_LOBBY_WAITING_TTL_S", "3600"))
    lobby_max_waiting_created: int = int(_env("GE_LOBBY_MAX_WAITING_CREATED", "5"))
    lobby_max_open_joins: int = int(_env("GE_LOBBY_MAX_OPEN_JOINS", "10"))
