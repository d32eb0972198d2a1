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


class ServerProcess:
    """`python -m server.main` as a child process; restartable on the same data dir."""

    def __init__(self, data_dir: Path, **env: str):
        self.data_dir = data_dir
        self.port = free_port()
        self.metrics_port = free_port()
        self.env = dict(os.environ, GE_PORT=str(self.port), GE_METRICS_PORT=str(self.metrics_port),
                        GE_DATA_DIR=str(data_dir), GE_WEB_PORT="0",
                        GE_LOG_LEVEL=os.environ.get("GE_TEST_LOG_LEVEL", "warning"),
                        # a test is one client doing the work of many: requests and creates as
                        # generous as before (tests/limits set the quotas they test)
                        GE_RATE_LIMIT_PER_S="1000", GE_CREATES_PER_MIN="600", GE_CREATES_BURST="600",
                        GE_CREATES_TOTAL_PER_S="0",
                        PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'protos'}")
        self.env.update(env)
        self.proc: subprocess.Popen | None = None
        self.log = data_dir / "server.log"

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> ServerProcess:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen([sys.executable, "-m", "server.main"], cwd=ROOT, env=self.env,
                                     stdout=subprocess.DEVNULL, stderr=open(self.log, "ab"))
        from grpc_health.v1 import health_pb2, health_pb2_grpc
        deadline = time.time() + timeout
        with self.channel() as ch:
            stub = health_pb2_grpc.HealthStub(ch)
            while time.time() < deadline:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
                try:
                    if stub.Check(health_pb2.HealthCheckRequest(), timeout=1).status == 1:
                        return self
                except grpc.RpcError:
                    time.sleep(0.1)
        raise RuntimeError("server did not become healthy")

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
