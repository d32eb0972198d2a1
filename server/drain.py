"""Draining a replica before it is removed (README: Deployment, "Scaling down").

A replica drains while its drain file exists (GE_DRAIN_FILE, default <GE_DATA_DIR>/DRAIN;
on the data volume, so a restarted replica is still draining). Draining, it refuses new
games with UNAVAILABLE + RetryInfo (ErrorInfo reason DRAINING) — the router and the SDK
send the create to another replica — and keeps serving its own games; `ge_unfinished_games`
tells when they have all ended and the replica may be removed.

Operators, in the pod (`kubectl exec gameengine-N -- python -m server.drain on`):
    python -m server.drain on | off | status | wait [--timeout S]
"""
from __future__ import annotations

import argparse
import asyncio
import sys
import time
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path

import structlog

from . import metrics
from .errors import Unavailable

log = structlog.get_logger("gameengine")
RETRY_ELSEWHERE_MS = 100  # another replica can take the game at once


def drain_file(data_dir: str, configured: str = "") -> Path:
    return Path(configured) if configured else Path(data_dir) / "DRAIN"


class Drain:
    def __init__(self, path: Path | None = None):
        self.path = path
        self.draining = False

    def refresh(self) -> bool:
        """Re-read the drain file; returns whether the state changed."""
        now = self.path is not None and self.path.exists()
        changed, self.draining = now != self.draining, now
        metrics.DRAINING.set(1 if now else 0)
        return changed

    def refuse_new_game(self) -> None:
        if self.draining:
            raise Unavailable("this replica is draining and takes no new games; retry, another replica will",
                              rule="DRAINING", retry_after_ms=RETRY_ELSEWHERE_MS)

    async def watch(self, unfinished: Callable[[], Awaitable[int]], interval_s: float = 1.0) -> None:
        """Follow the drain file; log when draining starts, stops, and when the last game ended."""
        told_empty = False
        while True:
            if self.refresh():
                log.info("draining" if self.draining else "draining_stopped", drain_file=str(self.path),
                         unfinished_games=await unfinished())
                told_empty = False
            if self.draining and not told_empty and await unfinished() == 0:
                log.info("drained", note="no unfinished games: this replica may be removed")
                told_empty = True
            await asyncio.sleep(interval_s)


STATE = Drain()


# ---- the operator's command ----------------------------------------------------

def unfinished_games(metrics_port: int, host: str = "127.0.0.1") -> int:
    with urllib.request.urlopen(f"http://{host}:{metrics_port}/metrics", timeout=5) as r:
        for line in r.read().decode().splitlines():
            if line.startswith("ge_unfinished_games "):
                return int(float(line.split()[1]))
    raise RuntimeError("the server exports no ge_unfinished_games")


def main(argv: list[str] | None = None) -> int:
    from .config import Config

    cfg = Config.from_env()
    p = argparse.ArgumentParser(prog="python -m server.drain", description=__doc__.split("\n\n")[0])
    p.add_argument("action", choices=["on", "off", "status", "wait"])
    p.add_argument("--timeout", type=float, default=0, help="wait: give up after this many seconds (0 = never)")
    args = p.parse_args(argv)
    path = drain_file(cfg.data_dir, cfg.drain_file)
    port = cfg.metrics_port
    host = "127.0.0.1" if cfg.host in ("0.0.0.0", "::") else cfg.host
    if args.action == "on":
        path.touch(mode=0o600)  # as every file of the data dir (datadir.prepare)
        print(f"draining: {path} created; new games go to other replicas")
    elif args.action == "off":
        path.unlink(missing_ok=True)
        print(f"accepting new games: {path} removed")
    elif args.action == "status":
        print(f"draining={path.exists()} unfinished_games={unfinished_games(port, host)}")
    else:
        deadline = time.monotonic() + args.timeout if args.timeout else None
        while (left := unfinished_games(port, host)) > 0:
            if deadline is not None and time.monotonic() > deadline:
                print(f"{left} games still unfinished", file=sys.stderr)
                return 1
            time.sleep(2)
        print("no unfinished games: the replica may be removed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
