"""The web edge's process: `python -m server.gateway`, started and watched by the server (main.py).

The web port (server/web.py: Connect, gRPC-Web and the page) parses HTTP/1.1 and encodes JSON for
browsers, about 1 ms of Python per request. In the gRPC server's event loop that work came in
bursts that held up every gRPC call queued behind it; in its own process it has its own
interpreter and event loop, and the gRPC players keep their latency whatever browsers send.

- The server binds the web port and hands the listening socket to the edge, so a restarted edge
  takes over the same port, and a port that cannot be bound is the server's start-up error.
- The edge forwards each call over a Unix socket in a private directory (`WebEdge.socket`), the
  only place where `transport.WEB_PEER` (the browser's address) is believed.
- The edge exits when the server does (a parent-death signal, and a check of its parent).
- If the edge dies, the server starts another one a second later; the gRPC port never stops.
- A server killed without its shutdown leaves its socket's directory behind; the next server to start
  removes those (`clear_stale`).
- The edge runs at a lower CPU priority (EDGE_NICENESS): when browsers, or an attacker on the web
  port, want more CPU than there is, the web port slows down first and the gRPC players keep theirs.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import shutil
import signal
import socket
import stat
import sys
import tempfile
import time
from typing import Any

import grpc
import structlog

from . import lifetime, logs, metrics, quotas, transport, web
from .config import Config
from .participation import seating_of

log = structlog.get_logger("gameengine.web")
READY = b"ready\n"  # the edge's one line on its stdout, once it listens
RESTART_DELAY_S, RESTART_MAX_S = 1.0, 30.0
# below the server's own process, level with the referee's searches (referee.SEARCH_NICENESS): at 5 a web
# flood's HTTP parsing still delayed the gRPC players' wake-ups (p99 3.9-4.3 ms against ~2 at rest)
EDGE_NICENESS = 10
PAGE_MAX = web.PAGE_MAX


# ---- the server's side --------------------------------------------------------------------------

def live_games(core: Any, wanted: list[str], offset: int, limit: int, newest: int = 2000) -> dict[str, Any]:
    """A page of the spectator-level list for the page's game picker: ids, game, seats, version, over.
    (Spectating a game id is public by design: a spectator only ever gets public views.)
    Private lobby games are never listed (LOBBY-6)."""
    listed = []
    for rec in list(core.store.games.values())[-newest:]:
        seating = seating_of(rec)
        if rec.game in wanted and not (seating is not None and seating.private):
            listed.append((core.is_over(rec), rec.created, rec))
    # unfinished first, each part in creation order: a new game joins the end, so walking the pages
    # by next_offset neither repeats nor skips a game because another was created meanwhile
    listed.sort(key=lambda e: (e[0], e[1], e[2].game_id))
    games = [{"game_id": rec.game_id, "game": rec.game, "seats": rec.seats, "version": rec.version, "over": over}
             for over, _, rec in listed]
    limit = min(PAGE_MAX, limit) if limit >= 1 else PAGE_MAX
    return {"games": games[offset:offset + limit], "total": len(games),
            "next_offset": offset + limit if offset + limit < len(games) else None}


EDGE_LIMITS = frozenset({"message_size", "head_size"})  # the ge_limit_refusals_total labels the web edge counts


def add_internal(server: grpc.aio.Server, core: Any, wanted: list[str]) -> None:
    """web.LIVE_GAMES and web.EDGE_REFUSED, on the internal server only (the public port does not have them)."""
    async def live(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
        try:
            q = json.loads(request)
            offset, limit = max(0, int(q["offset"])), int(q["limit"])
        except (ValueError, KeyError, TypeError):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "offset and limit are integers")
        return json.dumps(live_games(core, wanted, offset, limit)).encode()

    async def refused(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
        limit = request.decode(errors="replace")
        if limit in EDGE_LIMITS:
            metrics.LIMIT_REFUSALS.labels(limit).inc()
        return b""

    service = web.LIVE_GAMES.strip("/").partition("/")[0]  # EDGE_REFUSED's too
    handlers = {path.rpartition("/")[2]: grpc.unary_unary_rpc_method_handler(fn, request_deserializer=bytes,
                                                                             response_serializer=bytes)
                for path, fn in ((web.LIVE_GAMES, live), (web.EDGE_REFUSED, refused))}
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))


DIR_PREFIX, SOCKET_NAME = "ge-web-", "edge.sock"
STALE_AFTER_S = 60.0  # a starting server binds its socket within moments of making its directory


def clear_stale(root: str | None = None) -> list[str]:
    """Remove the socket directories of servers that ended without their shutdown (kill -9): this
    user's, older than STALE_AFTER_S, with no server listening on the socket. Returns those removed."""
    root = root or tempfile.gettempdir()
    removed = []
    with os.scandir(root) as entries:
        for entry in entries:
            if entry.name.startswith(DIR_PREFIX) and _stale(entry.path):
                shutil.rmtree(entry.path, ignore_errors=True)
                removed.append(entry.path)
    return removed


def _stale(path: str) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or time.time() - st.st_mtime < STALE_AFTER_S:
        return False
    probe = socket.socket(socket.AF_UNIX)
    try:
        probe.connect(os.path.join(path, SOCKET_NAME))
    except OSError:
        return True
    finally:
        probe.close()
    return False


class WebEdge:
    """The web port: its listening socket (bound here) and the edge process serving it."""

    def __init__(self, cfg: Config):
        self.cfg = cfg
        for path in clear_stale():
            log.info("web_stale_socket_dir_removed", path=path)
        self.dir = tempfile.mkdtemp(prefix=DIR_PREFIX)  # 0700: only this server's user reaches the socket
        self.socket = os.path.join(self.dir, SOCKET_NAME)
        self.listener: socket.socket | None = None
        self.proc: asyncio.subprocess.Process | None = None
        self.stopping = False
        self._watch: asyncio.Task[None] | None = None

    def bind(self) -> bool:
        """Bind the web port; a port that cannot be bound is logged and skipped (gRPC stays up)."""
        cfg = self.cfg
        sock = socket.socket(socket.AF_INET6 if ":" in cfg.host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((cfg.host, cfg.web_port))
        except OSError as e:
            sock.close()
            log.error("web_listener_failed", host=cfg.host, port=cfg.web_port, error=str(e))
            return False
        sock.listen(256)
        self.listener = sock
        return True

    async def start(self, timeout_s: float = 60) -> None:
        """Start the edge, wait until it listens, and keep it running (`_keep`)."""
        if await self._spawn(timeout_s):
            log.info("web_serving", host=self.cfg.host, port=self.cfg.web_port, pid=self.proc and self.proc.pid,
                     cors=self.cfg.web_cors_origins, tls=bool(transport.web_ssl(self.cfg)))
        self._watch = asyncio.create_task(self._keep())

    async def _spawn(self, timeout_s: float) -> bool:
        assert self.listener is not None
        fd = self.listener.fileno()
        # from the loop's thread: the edge's parent-death signal follows the thread that started it
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server.gateway", "--socket", self.socket, "--listen-fd", str(fd),
            "--parent", str(os.getpid()), pass_fds=(fd,), stdout=asyncio.subprocess.PIPE)
        assert self.proc.stdout is not None
        try:
            line = await asyncio.wait_for(self.proc.stdout.readline(), timeout_s)
        except TimeoutError:
            line = b""
        if line == READY:
            return True
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        code = await self.proc.wait()
        log.error("web_edge_failed", pid=self.proc.pid, returncode=code)
        return False

    async def _keep(self) -> None:
        """Another edge whenever one ends (after RESTART_DELAY_S, doubling while they keep failing)."""
        delay = RESTART_DELAY_S
        while not self.stopping:
            assert self.proc is not None
            code = await self.proc.wait()
            if self.stopping:
                return
            log.warning("web_edge_exited", pid=self.proc.pid, returncode=code, restart_in_s=delay)
            await asyncio.sleep(delay)
            if self.stopping:
                return
            if await self._spawn(60):
                delay = RESTART_DELAY_S
                log.info("web_edge_restarted", pid=self.proc.pid)
            else:
                delay = min(RESTART_MAX_S, 2 * delay)

    async def stop(self) -> None:
        """Stop the edge (it finishes what it serves for up to 2 s), then close the port."""
        self.stopping = True
        if self._watch is not None:
            self._watch.cancel()
        if self.proc is not None and self.proc.returncode is None:
            self.proc.terminate()
            try:
                await asyncio.wait_for(self.proc.wait(), 10)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        if self.listener is not None:
            self.listener.close()
        shutil.rmtree(self.dir, ignore_errors=True)


# ---- the edge's side ----------------------------------------------------------------------------

async def _watch_parent(parent: int, stop: asyncio.Event) -> None:
    while not stop.is_set():
        await asyncio.sleep(1.0)
        if os.getppid() != parent:
            stop.set()


async def serve(cfg: Config, socket_path: str, listen_fd: int, parent: int) -> None:
    options = [("grpc.max_receive_message_length", -1),  # what the server sends, it has bounded
               ("grpc.max_send_message_length", cfg.max_message_bytes + 1024)]
    async with grpc.aio.insecure_channel("unix:" + socket_path, options=options) as channel:
        sock = socket.socket(fileno=listen_fd)
        sock.setblocking(False)
        server = web.server(web.build_app(channel, cfg), cfg)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if task.done():
            raise SystemExit("the web edge could not serve its port")
        # What start-up made (modules, descriptors, the app) is frozen out of the collector's sight, and
        # the young generation is larger: collections were a tenth of the edge's CPU under stream floods.
        gc.freeze()
        gc.set_threshold(5_000, 10, 10)
        sys.stdout.buffer.write(READY)
        sys.stdout.flush()
        watcher = asyncio.create_task(_watch_parent(parent, stop))
        await asyncio.wait([task, asyncio.create_task(stop.wait())], return_when=asyncio.FIRST_COMPLETED)
        server.should_exit = True
        watcher.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, timeout=5)


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m server.gateway", description="the web edge (started by the server)")
    p.add_argument("--socket", required=True)
    p.add_argument("--listen-fd", type=int, required=True)
    p.add_argument("--parent", type=int, required=True)
    args = p.parse_args()
    lifetime.die_with_parent(signal.SIGTERM, args.parent)
    os.nice(EDGE_NICENESS)
    cfg = Config.from_env()
    logs.configure(cfg.log_level)
    quotas.trust_proxies(cfg.trusted_networks())  # the web caps and oversize refusals' caller
    run = asyncio.run
    if cfg.event_loop == "uvloop":
        import uvloop
        run = uvloop.run
    run(serve(cfg, args.socket, args.listen_fd, args.parent))


if __name__ == "__main__":
    main()
