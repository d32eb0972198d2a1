"""Shared fixtures: a real server process on loopback with its own data directory."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class CallContext:
    """A grpc.aio call's context for a handler called in-process: its peer and metadata (each read
    counted in `reads`), no deadline, and an abort that keeps what it was given and raises."""

    def __init__(self, metadata=(), peer: str = "ipv4:127.0.0.1:4000"):
        self.metadata, self._peer = tuple(metadata), peer
        self.reads = {"peer": 0, "metadata": 0}
        self.aborted: list[tuple] = []  # (code, details, trailing metadata) of each abort

    def peer(self) -> str:
        self.reads["peer"] += 1
        return self._peer

    def invocation_metadata(self):
        self.reads["metadata"] += 1
        return self.metadata

    def time_remaining(self):
        return None

    def code(self):
        return None

    async def send_initial_metadata(self, metadata) -> None:
        return None

    async def abort(self, code, details, trailing_metadata=()):
        self.aborted.append((code, details, tuple(trailing_metadata)))
        raise RuntimeError("aborted")


class ServerProcess:
    """`python -m server.main` as a child process; restartable on the same data dir."""

    # The ports a server binds, by setting and attribute. A port picked by free_port() is free only
    # until another process (any test's outgoing connection included) takes it before the server
    # binds it; start() then picks again those this harness picked, never one a test set.
    PORTS = {"GE_PORT": "port", "GE_METRICS_PORT": "metrics_port", "GE_WEB_PORT": "web_port"}
    BIND_ATTEMPTS = 3

    def __init__(self, data_dir: Path, **env: str):
        self.data_dir = data_dir
        self.port = free_port()
        self.metrics_port = free_port()
        self.picked = {"GE_PORT", "GE_METRICS_PORT"} - env.keys()
        self.env = dict(os.environ, GE_PORT=str(self.port), GE_METRICS_PORT=str(self.metrics_port),
                        GE_DATA_DIR=str(data_dir), GE_WEB_PORT="0",
                        GE_LOG_LEVEL=os.environ.get("GE_TEST_LOG_LEVEL", "warning"),
                        # a test is one client doing the work of many: requests and creates as
                        # generous as before (tests/limits set the quotas they test)
                        GE_RATE_LIMIT_PER_S="1000", GE_RATE_LIMIT_PER_ADDRESS_S="0", GE_CREATES_PER_MIN="600",
                        GE_CREATES_BURST="600", GE_CREATES_TOTAL_PER_S="0",
                        PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'protos'}")
        self.env.update(env)
        self.proc: subprocess.Popen | None = None
        self.log = data_dir / "server.log"

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def with_web(self) -> ServerProcess:
        """Serve the web port too, on a port this harness picks (`web_port`)."""
        self.web_port = free_port()
        self.env["GE_WEB_PORT"] = str(self.web_port)
        self.picked.add("GE_WEB_PORT")
        return self

    def start(self, timeout: float = 30, service: str = "") -> ServerProcess:
        """Start and wait until health `service` is SERVING ("": the whole server)."""
        for attempt in range(self.BIND_ATTEMPTS):
            written = self.log.stat().st_size if self.log.exists() else 0
            if self._start(timeout, written, service):
                return self
            taken = self._log_since(written)
            if attempt + 1 == self.BIND_ATTEMPTS or not self._pick_again(taken):
                raise RuntimeError(f"server exited: {taken[-2000:]}")
        raise AssertionError("unreachable")

    def _log_since(self, offset: int) -> str:
        return self.log.read_bytes()[offset:].decode(errors="replace")

    def _start(self, timeout: float, written: int, service: str = "") -> bool:
        """True once healthy (with every port it was given bound); False if it exited or left a port."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen([sys.executable, "-m", "server.main"], cwd=ROOT, env=self.env,
                                     stdout=subprocess.DEVNULL, stderr=open(self.log, "ab"))
        from grpc_health.v1 import health_pb2, health_pb2_grpc
        deadline = time.time() + timeout
        with self.channel() as ch:
            stub = health_pb2_grpc.HealthStub(ch)
            while time.time() < deadline:
                if self.proc.poll() is not None:
                    return False
                try:
                    if stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=1).status == 1:
                        break
                except grpc.RpcError:
                    time.sleep(0.1)
            else:
                raise RuntimeError("server did not become healthy")
        if "GE_WEB_PORT" in self.picked and "web_listener_failed" in self._log_since(written):
            self.stop()  # up without its web port (gateway.WebEdge.bind logs and skips it)
            return False
        return True

    def _pick_again(self, log: str) -> bool:
        """New ports for those this harness picked when the server's log says one was taken."""
        if "another process has the port" not in log and "web_listener_failed" not in log:
            return False
        for name in self.picked:
            port = free_port()
            setattr(self, self.PORTS[name], port)
            self.env[name] = str(port)
        return bool(self.picked)

    def channel(self) -> grpc.Channel:
        """A channel to this server (a TLS server's test overrides it)."""
        return grpc.insecure_channel(self.target)

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = ServerProcess(tmp_path_factory.mktemp("server")).start()
    yield s
    s.stop()


@pytest.fixture
def fresh_server(tmp_path):
    servers = []

    def make(**env):
        s = ServerProcess(tmp_path / f"data{len(servers)}", **env)
        servers.append(s)
        return s

    yield make
    for s in servers:
        s.stop()
