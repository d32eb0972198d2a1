"""Prometheus metrics, served over HTTP on GE_METRICS_PORT (default 9464), with a readiness page.

k8s/monitoring's alerts and dashboard query these names; tests/deploy/test_monitoring.py
checks every query against a running server's /metrics."""
from __future__ import annotations

import socket
import threading
from bisect import bisect_left
from collections.abc import Callable, Iterable
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

from prometheus_client import Counter, Gauge, Histogram, make_wsgi_app
from prometheus_client.exposition import ThreadingWSGIServer


class _Unlocked:
    """prometheus_client's value (values.MutexValue) without its lock, for a series only one thread
    changes: a lock per change was ~9 % of a move's instructions (thirteen per move)."""
    __slots__ = ("_value", "_exemplar")

    def __init__(self, *_: Any, **__: Any) -> None:
        self._value, self._exemplar = 0.0, None

    def inc(self, amount: float) -> None:
        self._value += amount

    def set(self, value: float, timestamp: float | None = None) -> None:
        self._value = value

    def set_exemplar(self, exemplar: Any) -> None:
        self._exemplar = exemplar

    def get(self) -> float:
        return self._value

    def get_exemplar(self) -> Any:
        return self._exemplar


class LoopCounter(Counter):
    """A Counter whose series change only on the event loop's thread (or under one lock)."""

    def _metric_init(self) -> None:
        super()._metric_init()
        self._value = _Unlocked()

    def inc(self, amount: float = 1, exemplar: dict[str, str] | None = None) -> None:
        if amount < 0 or exemplar:
            super().inc(amount, exemplar)
        else:
            self._value._value += amount  # AttributeError on a family with labels: call .labels() first


class LoopHistogram(Histogram):
    """A Histogram whose series change only on the event loop's thread (or under one lock)."""

    def _metric_init(self) -> None:
        super()._metric_init()
        self._sum = _Unlocked()
        self._buckets = [_Unlocked() for _ in self._upper_bounds]

    def observe(self, amount: float, exemplar: dict[str, str] | None = None) -> None:
        if exemplar:
            super().observe(amount, exemplar)
            return
        self._sum._value += amount  # AttributeError on a family with labels: call .labels() first
        self._buckets[bisect_left(self._upper_bounds, amount)]._value += 1  # the first bound >= amount


# Loop*: changed per call on the event loop (the journal's under its lock), so without a lock per change.
RPC_LATENCY = LoopHistogram("ge_rpc_latency_seconds", "RPC handling time", ["method", "code"],
                            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5))
MOVE_LATENCY = LoopHistogram("ge_move_apply_seconds", "Engine check + journal time per accepted move", ["game"],
                             buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.05))
MOVES = LoopCounter("ge_moves_total", "Moves by outcome", ["game", "result"])
GAMES_CREATED = Counter("ge_games_created_total", "Games created", ["game"])
STREAMS = Gauge("ge_event_streams", "Open event streams", ["game"])
SNAPSHOT_SECONDS = Histogram("ge_snapshot_seconds", "Snapshot duration", buckets=(0.01, 0.1, 0.5, 1, 2, 5, 10, 30))
REFEREE_ACTIONS = Counter("ge_referee_actions_total", "Referee interventions", ["game", "action"])
HINTS = Counter("ge_hints_total", "Hint requests", ["game", "result"])

# The standard gRPC server families (the names and labels of go-grpc-prometheus and
# py-grpc-prometheus, so stock gRPC dashboards work), for the gRPC port (transport="grpc")
# and the Connect/gRPC-Web port (transport="web"). grpc_code is the StatusCode name.
_RPC = ["grpc_type", "grpc_service", "grpc_method", "transport"]
GRPC_STARTED = LoopCounter("grpc_server_started_total", "RPCs started on the server", _RPC)
GRPC_HANDLED = LoopCounter("grpc_server_handled_total", "RPCs completed on the server, by status code",
                           _RPC + ["grpc_code"])
GRPC_HANDLING = LoopHistogram("grpc_server_handling_seconds",
                              "Time from the start of an RPC to its last message (streams: until they end)", _RPC,
                              buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
                                       10, 60, 600, 3600))
GRPC_MSG_SENT = LoopCounter("grpc_server_msg_sent_total", "Messages sent by the server (stream items included)", _RPC)

# Games in memory, computed at every scrape (server/main.py registers the source).
LIVE_GAMES = Gauge("ge_live_games", "Games held in memory, by state (running or finished)", ["state"])
UNFINISHED_GAMES = Gauge("ge_unfinished_games", "Games not over yet: 0 means a drained replica may be removed")
DATA_FREE = Gauge("ge_data_volume_free_bytes", "Free bytes on GE_DATA_DIR's file system")
DATA_CAPACITY = Gauge("ge_data_volume_capacity_bytes", "Size of GE_DATA_DIR's file system")
DRAINING = Gauge("ge_draining", "1 while this replica accepts no new games (README: Deployment, scale-down)")

# The journal (observed in one place: journal.Journal.append / sync) and recovery.
JOURNAL_APPEND_SECONDS = LoopHistogram("ge_journal_append_seconds",
                                       "Time to write one journal record (with fsync when GE_FSYNC=always)",
                                       buckets=(0.00001, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                0.01, 0.05, 0.25, 1))
JOURNAL_FSYNC_SECONDS = Histogram("ge_journal_fsync_seconds", "Time of one journal fdatasync",
                                  buckets=(0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                           0.05, 0.1, 0.25, 1))
JOURNAL_BYTES = LoopCounter("ge_journal_bytes_total", "Bytes written to the journal")
JOURNAL_ERRORS = Counter("ge_journal_write_errors_total",
                         "Journal writes or fsyncs that failed (the write was refused)")
RESTORE_SECONDS = Gauge("ge_restore_seconds", "Time the last start-up took to load the snapshot and replay the journal")
RECOVERY_MENDS = Counter("ge_recovery_mends_total",
                         "What the last start-up's recovery mended or skipped, by kind: torn_tail (a torn last write "
                         "dropped), segment_header (a newest segment's header completed), damaged_snapshot (fell back "
                         "to the one before), damaged_seal (a closed segment's seal unreadable: the segment taken as "
                         "it is), damaged_mark (a segment's synced mark unreadable: its end taken as it is), "
                         "records_of_evicted_games (records of games no longer held)", ["kind"])

# Limits: every refusal for a limit, by limit name (rate, hint_queue, ...).
LIMIT_REFUSALS = Counter("ge_limit_refusals_total", "Requests refused for a limit", ["limit"])
HINT_QUEUE_DEPTH = Gauge("ge_hint_queue_depth", "Hint and referee searches running or waiting for a worker")
HINT_QUEUE_CAPACITY = Gauge("ge_hint_queue_capacity",
                            "Searches the referee admits at once (GE_HINT_WORKERS + GE_HINT_QUEUE)")


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        return None  # scrapes and probes every few seconds: no line each


def serve_http(port: int, host: str, ready: Callable[[], bool], alive: Callable[[], bool]) -> None:
    """GE_METRICS_PORT in a daemon thread, for probes that cannot speak gRPC over TLS (k8s/overlays/tls):
    /metrics; /readyz, 200 while the gRPC health status "" is SERVING and 503 otherwise (a full disk, a
    worker pool that cannot replace a dead worker); /livez, 200 while the event loop runs (`alive`),
    answered without the loop, where /metrics waits for it to count the games (up to 5 s)."""
    metrics = make_wsgi_app()
    probes = {"/readyz": (ready, b"ready\n", b"not ready: the gRPC health status is NOT_SERVING\n"),
              "/livez": (alive, b"alive\n", b"not alive: the event loop has not run for a long time\n")}

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        probe = probes.get(environ.get("PATH_INFO", ""))
        if probe is None:
            return metrics(environ, start_response)  # type: ignore[no-any-return]
        check, yes, no = probe
        ok = check()
        start_response("200 OK" if ok else "503 Service Unavailable", [("Content-Type", "text/plain; charset=utf-8")])
        return [yes if ok else no]

    class Server(ThreadingWSGIServer):
        address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

    httpd = make_server(host, port, app, Server, handler_class=_Quiet)
    threading.Thread(target=httpd.serve_forever, daemon=True, name="metrics-http").start()
