"""Entry point: `python -m server.main` (what `make run` starts)."""
from __future__ import annotations

import os

# Before grpc loads: the server forks only to exec (the web edge) or to run searches that make no gRPC
# call, so gRPC's fork handlers have nothing to do; enabled, they print a line that is not JSON to the log.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

import asyncio
import contextlib
import errno
import gc
import signal
import socket
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import grpc
import structlog
from grpc_health.v1 import health, health_pb2
from grpc_reflection.v1alpha import reflection_pb2

from engines import native
from gameengine import codecs
from gameengine.v1 import common_pb2, lobby_pb2, player_pb2, tournament_pb2

from . import (
    access,
    drain,
    expiry,
    gateway,
    lobby,
    logs,
    metrics,
    observe,
    periodic,
    player_stream,
    quotas,
    reflection,
    tournaments,
    tracing,
    transport,
)
from .config import Config
from .datadir import StartupError
from .journal import Journal
from .players import PlayerServicer
from .referee import Referee
from .service import GameCore
from .servicer import GameServicer, GameServiceServicer, add_service
from .store import Store, collector_paused

log = structlog.get_logger("gameengine")
# A health service name that is SERVING while the process answers at all (the k8s livenessProbe's):
# "" and each API's go NOT_SERVING on a full disk, which a restart does not cure.
LIVENESS = "liveness"
SERVING: dict[str, bool] = {}  # health service name -> SERVING now
ALIVE_EVERY_S = 1.0  # how much thinking time before a crash a restart may fail to charge


class Heartbeat:
    """When the event loop last ran: the metrics port's /livez (liveness over plain HTTP, answered by
    its own thread) says the process is stuck once that is long ago, as the gRPC liveness check would
    go unanswered."""

    STUCK_S = 30.0

    def __init__(self) -> None:
        self.beat()

    def beat(self) -> None:
        self.at = time.monotonic()

    async def run(self) -> None:
        while True:
            self.beat()
            await asyncio.sleep(1.0)

    def alive(self) -> bool:
        return time.monotonic() - self.at < self.STUCK_S


HEARTBEAT = Heartbeat()
if TYPE_CHECKING:
    Health = health.HealthServicer | health.aio.HealthServicer


async def serve(cfg: Config, ready: asyncio.Event | None = None) -> None:
    wanted = [g for g in cfg.games.split(",") if g] or list(codecs.load_all())
    unknown = [g for g in wanted if g not in codecs.load_all()]
    if unknown:
        raise StartupError(f"GE_GAMES names {', '.join(repr(g[:40]) for g in unknown[:5])}: not a game this "
                           f"server has ({', '.join(codecs.load_all())})")
    credentials = preflight(cfg)  # before recovery, which may take minutes on a large data dir
    store = Store(cfg.data_dir, cfg.fsync, cfg.fsync_interval_ms / 1000, shard=cfg.shard,
                  snapshot_pace_s=cfg.snapshot_pace_ms / 1000)
    t0 = time.perf_counter()
    # Small young generations keep each collection short: with (50000, 20, 100) a
    # middle-generation pass every ~1.4 s at 1900 moves/s stalled the loop ~10 ms.
    # Full collections stay short because a live game is a few dozen tracked objects
    # (events and log stored compactly: server/eventlog.py); what start-up and recovery
    # loaded (modules, descriptors, the restored games) is frozen out of their sight before
    # the collector is on again, so no collection ever scans it.
    with collector_paused(), _stoppable():
        log.info("recovering", data_dir=cfg.data_dir)  # from here a stop is heard
        counts = store.recover()
        gc.freeze()
        gc.set_threshold(5_000, 10, 10)
    journal = store.journal
    assert journal is not None  # recover() opened it
    metrics.RESTORE_SECONDS.set(time.perf_counter() - t0)
    log.info("recovered", data_dir=cfg.data_dir, restore_s=round(time.perf_counter() - t0, 3), **counts)
    quotas.QUOTAS = quotas.Quotas(quotas.Settings.of(cfg))
    quotas.trust_proxies(cfg.trusted_networks())
    core = GameCore(store)
    unserved: dict[str, int] = {}
    for rec in store.games.values():
        if not core.is_over(rec):
            quotas.QUOTAS.recovered(rec.game_id)
            if rec.game not in wanted:
                unserved[rec.game] = unserved.get(rec.game, 0) + 1
    if unserved:  # nobody could move in them, and `drain wait` would wait for them forever
        raise StartupError(f"the data dir holds unfinished games GE_GAMES leaves out "
                           f"({', '.join(f'{n} {g}' for g, n in sorted(unserved.items()))}): serve those games "
                           "until their games end, or end them first with AdjudicateGame (GE_ADMIN_TOKEN)")
    quotas.verify_player_token = lambda token: getattr(store.players.authenticate(token), "player_id", None)
    transport.raise_fd_limit()
    referee = Referee(core, cfg)
    store.listeners.append(player_stream.listener(core))
    player_stream.sync_all(core)  # what a crash kept from the player streams (idempotent)
    lobby.forget_expired(store)
    lobby.waiting_games(store)  # its index, built before anything is served (a pass over every game)
    lobby.restart_clocks(core, referee)
    referee.resume_clocks()
    game_counts = observe.GameCounts(core, asyncio.get_running_loop())
    observe.data_volume(cfg.data_dir)
    drain.STATE = drain.Drain(drain.drain_file(cfg.data_dir, cfg.drain_file))
    drain.STATE.refresh()
    store.listeners.append(tournaments.listener(core, referee))

    server = grpc.aio.server(interceptors=tracing.interceptors(cfg),  # observation: in add_service (observe.py)
                             options=transport.grpc_options(cfg) + [
        ("grpc.so_reuseport", 0)])  # a second server on the port fails to bind instead of sharing it
    edge = gateway.WebEdge(cfg) if cfg.web_port else None
    # The web edge's calls come over a Unix socket only it can reach, to a server of their own: one
    # HTTP/2 connection carries every browser's calls, so the public port's per-connection limits
    # (streams, idle, age) must not apply to it.
    internal = grpc.aio.server(options=transport.internal_options(cfg)) \
        if edge is not None else None
    api_servers = [server] if internal is None else [server, internal]
    names = [common_pb2.DESCRIPTOR.services_by_name["GameService"].full_name]
    api: list[tuple[Any, Any, object]] = [
        (codecs.codec(game).service, codecs.codec(game).pb2, GameServicer(codecs.codec(game), core, referee))
        for game in wanted]
    api.append((common_pb2.DESCRIPTOR.services_by_name["GameService"], common_pb2,
                GameServiceServicer(core, wanted, referee, cfg.admin_token)))
    for pb, player_side in ((player_pb2, PlayerServicer(core)), (lobby_pb2, lobby.LobbyServicer(core, referee, cfg)),
                            (tournament_pb2, tournaments.TournamentServicer(core, referee, cfg, wanted))):
        api.append((next(iter(pb.DESCRIPTOR.services_by_name.values())), pb, player_side))
    for service, pb, servicer in api:
        for srv in api_servers:
            add_service(service, pb, servicer, srv, max_request_bytes=cfg.max_message_bytes)
        if service.full_name not in names:
            names.append(service.full_name)
    health_servicer = health.aio.HealthServicer() if hasattr(health, "aio") else health.HealthServicer()
    await _set(health_servicer, "", health_pb2.HealthCheckResponse.NOT_SERVING)  # SERVING once all is up
    # health and reflection get the same request guard as ours: undecodable bytes are
    # INVALID_ARGUMENT there too, never UNKNOWN
    # types-grpcio-health-checking (and -reflection) type DESCRIPTOR as upb's class, protobuf's own
    # stubs as descriptor.ServiceDescriptor: one class at run time
    add_service(health_pb2.DESCRIPTOR.services_by_name["Health"], health_pb2,  # type: ignore[arg-type]
                health_servicer, server, max_request_bytes=cfg.max_message_bytes)
    names.append(health_pb2.DESCRIPTOR.services_by_name["Health"].full_name)
    reflector = reflection.Reflection(names, reflection.load_sources())
    alpha = reflection_pb2.DESCRIPTOR.services_by_name["ServerReflection"]
    for name in (reflection.V1ALPHA, reflection.V1):  # the same messages under both names
        add_service(alpha, reflection_pb2, reflector, server, name=name,  # type: ignore[arg-type]
                    max_request_bytes=cfg.max_message_bytes)
    if edge is not None and internal is not None:
        gateway.add_internal(observe.Observing(internal), core, wanted)  # type: ignore[arg-type]
        internal.add_insecure_port("unix:" + edge.socket)
    try:
        port = (server.add_secure_port(f"{cfg.host}:{cfg.port}", credentials) if credentials
                else server.add_insecure_port(f"{cfg.host}:{cfg.port}"))
    except RuntimeError as e:
        raise StartupError(f"cannot bind {cfg.host}:{cfg.port} ({e}): another process has the port") from None
    if cfg.metrics_port:
        try:
            HEARTBEAT.beat()  # recovery has just ended; its task starts with the others
            metrics.serve_http(cfg.metrics_port, cfg.host, lambda: SERVING.get("", False), HEARTBEAT.alive)
        except OSError as e:
            why = ": another process has the port" if e.errno == errno.EADDRINUSE else ""
            raise StartupError(f"cannot bind the metrics port {cfg.host}:{cfg.metrics_port} ({e.strerror}){why} "
                               "(GE_METRICS_PORT; 0 turns metrics off)") from None
    await server.start()
    if internal is not None:
        await internal.start()
    if edge is not None and edge.bind():  # Connect/gRPC-Web and the page
        await edge.start()
    elif edge is not None:
        await edge.stop()
        edge = None
    if journal.failed is not None:  # _watch_storage logs only changes
        log.warning("storage_failing", reason=journal.failed)
    for name in names + [""]:  # a full disk at start-up (Journal.failed): reads are served, not writes
        await _set(health_servicer, name, health_pb2.HealthCheckResponse.SERVING if journal.failed is None
                   else health_pb2.HealthCheckResponse.NOT_SERVING)
    await _set(health_servicer, LIVENESS, health_pb2.HealthCheckResponse.SERVING)
    # The server's overall status also follows the referee's worker pool (NOT_SERVING only
    # while a dead worker cannot be replaced).
    def on_health(ok: bool) -> None:
        asyncio.ensure_future(_set(health_servicer, "", (
            health_pb2.HealthCheckResponse.SERVING if ok and journal.failed is None
            else health_pb2.HealthCheckResponse.NOT_SERVING)))

    referee.on_health = on_health
    log.info("serving", host=cfg.host, port=port, metrics_port=cfg.metrics_port, games=wanted,
             fsync=cfg.fsync, data_dir=cfg.data_dir, tls=credentials is not None,
             engines=native.build())  # compiled (mypyc) or pure (why): engines/native.py

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    tasks = [asyncio.create_task(_snapshots(store, cfg.snapshot_interval_s)),
             asyncio.create_task(_evictions(store, core, cfg.finished_ttl_s, cfg.finished_games_max)),
             asyncio.create_task(_hibernation(store, core, cfg.hibernate_after_s)),
             asyncio.create_task(expiry.run(store, core, referee, cfg.idle_game_ttl_s)),
             asyncio.create_task(referee.run()),
             asyncio.create_task(lobby.expiry_loop(core, cfg.lobby_waiting_ttl_s)),
             asyncio.create_task(tournaments.run(core, referee, cfg.tournament_registration_ttl_s)),
             asyncio.create_task(_watch_storage(journal, health_servicer, names + [""], lambda: referee.healthy)),
             asyncio.create_task(_alive(store)),
             asyncio.create_task(HEARTBEAT.run()),
             asyncio.create_task(drain.STATE.watch(game_counts.unfinished))]
    if ready is not None:
        ready.set()
    await stop.wait()

    # Graceful: say NOT_SERVING, drain calls, snapshot, then exit.
    store.stop_serving()
    log.info("stopping")
    for name in names + [""]:
        await _set(health_servicer, name, health_pb2.HealthCheckResponse.NOT_SERVING)
    if edge is not None:  # first: its calls in flight still need the gRPC server
        await edge.stop()
    if internal is not None:
        await internal.stop(grace=1)
    await server.stop(grace=5)
    for t in tasks:
        t.cancel()
    referee.close()
    snap: dict[str, float | str]
    try:
        saved = await store.snapshot(paced=False)  # nothing is served any more
        snap = dict(saved) if saved is not None else {"snapshot": "nothing new since the last"}
    except Exception as e:  # e.g. a full disk: the journal holds every acknowledged write
        snap = {"snapshot_failed": str(e)}
    store.close()
    log.info("stopped", **snap)


def preflight(cfg: Config) -> grpc.ServerCredentials | None:
    """What the server reads or binds besides its data dir, checked before recovery: StartupError (one
    line naming the variable) for a file it cannot read, a host that does not resolve, a drain file's
    missing directory. Installs the API keys; returns the gRPC port's TLS credentials, if any."""
    for name, path in cfg.files().items():
        try:
            with open(path, "rb") as f:
                f.read(1)
        except OSError as e:
            raise StartupError(f"{name}={path[:80]!r}: cannot be read ({e.strerror})") from None
    try:
        socket.getaddrinfo(cfg.host, cfg.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise StartupError(f"GE_HOST={cfg.host[:80]!r}: not an address, nor a name that resolves") from None
    if cfg.drain_file and not drain.drain_file(cfg.data_dir, cfg.drain_file).parent.is_dir():
        raise StartupError(f"GE_DRAIN_FILE={cfg.drain_file[:80]!r}: its directory does not exist")
    access.configure(cfg.create_tokens, cfg.create_tokens_file)
    return transport.grpc_credentials(cfg)


@contextlib.contextmanager
def _stoppable() -> Iterator[None]:
    """SIGTERM or SIGINT during recovery ends the process at once, with a log line: in a container the
    server is PID 1, which ignores a signal it has no handler for (until serving, the loop has none),
    so a pod deleted mid-recovery waited out its grace period. Recovery survives an end at any point
    (it survives kill -9)."""
    def stop(signum: int, frame: object) -> None:
        raise Stopped(f"stopped by {signal.Signals(signum).name} before serving")
    before = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


class Stopped(SystemExit):
    """A signal to stop came before the server was serving."""


async def _watch_storage(journal: Journal, health_servicer: Health, names: list[str],
                         referee_ok: Callable[[], bool] = lambda: True, interval_s: float = 0.5) -> None:
    """NOT_SERVING while the journal cannot be written; SERVING again as soon as it can (the
    overall status "" only while the referee's workers are up too)."""
    serving = journal.failed is None
    while True:
        await asyncio.sleep(interval_s)
        ok = journal.failed is None or await asyncio.to_thread(journal.probe)
        if ok != serving:
            serving = ok
            log.warning("storage_" + ("recovered" if ok else "failing"), reason=journal.failed)
            for name in names:
                await _set(health_servicer, name, health_pb2.HealthCheckResponse.SERVING
                           if ok and (name or referee_ok()) else health_pb2.HealthCheckResponse.NOT_SERVING)


async def _set(health_servicer: Health, name: str, status: int) -> None:
    SERVING[name] = status == health_pb2.HealthCheckResponse.SERVING  # read by the metrics port's /readyz
    result = health_servicer.set(name, status)
    if asyncio.iscoroutine(result):
        await result


async def _alive(store: Store) -> None:
    """Every second, the data dir's mark that this server is alive (Store.alive): a restart charges the
    clocks' seats up to it, not the downtime after it (clock.resumed)."""
    # In a thread: a file's time is a metadata write, which can wait for the file system's journal
    # (on the event loop, half-load p99 read 3.8-5.7 ms, against 2.6-2.9 ms this way).
    async def one_pass() -> None:
        await asyncio.to_thread(store.alive)
    await periodic.every(ALIVE_EVERY_S, "alive_mark_failed", one_pass)


async def _snapshots(store: Store, interval_s: float) -> None:
    async def one_pass() -> None:
        snap = await store.snapshot()
        if snap is not None:  # None: nothing new to save
            metrics.SNAPSHOT_SECONDS.observe(snap["save_s"])
            log.info("snapshot", **snap)
    await periodic.every(interval_s, "snapshot_failed", one_pass)


async def _evictions(store: Store, core: GameCore, ttl_s: float, keep_at_most: int) -> None:
    async def one_pass() -> None:  # may fail on a game whose engine refuses its records (Unsettled)
        gone = await store.evict_finished(ttl_s, core.is_over, keep_at_most)
        if gone:
            log.info("evicted_finished_games", games=gone, ttl_s=ttl_s)
    await periodic.every(min(30.0, max(ttl_s / 4, 0.5)), "eviction_failed", one_pass)


async def _hibernation(store: Store, core: GameCore, idle_s: float) -> None:
    if idle_s <= 0:
        return
    period = max(idle_s / 2, 0.5)
    # A state that cannot be pickled fails the pass and stays awake; the others still sleep next time.
    # Out of step with the snapshot's and the sweeps' whole seconds.
    await periodic.every(period, "hibernation_failed", lambda: store.hibernate_idle(idle_s, core.is_over),
                         offset_s=period / 2)


def main() -> None:
    cfg = Config.from_env()  # ConfigError: one line naming the variable
    logs.configure(cfg.log_level)
    run = asyncio.run
    if cfg.event_loop == "uvloop":
        import uvloop
        run = uvloop.run
    try:
        run(serve(cfg))
    except StartupError as e:
        log.error("startup_refused", reason=str(e))
        raise SystemExit(1) from None  # the line above says why; a traceback would add nothing
    except Stopped as e:
        log.info("stopped", reason=str(e))
        raise SystemExit(0) from None


if __name__ == "__main__":
    main()
