"""Ports at start-up: a busy metrics port is refused with a sentence, like a busy gRPC port, and the
test harness picks again a port it picked that another process took before the server bound it."""
from __future__ import annotations

import socket
import subprocess
import sys
import urllib.request

import pytest

from tests.conftest import ROOT, ServerProcess


def held(port: int) -> socket.socket:
    """A listening socket on `port`: what any other process holding it looks like to the server."""
    s = socket.socket()
    s.bind(("127.0.0.1", port))
    s.listen(1)
    return s


def test_a_busy_metrics_port_stops_the_server_with_a_sentence_not_a_traceback(tmp_path):
    server = ServerProcess(tmp_path / "data")
    with held(server.metrics_port):
        server.data_dir.mkdir()
        proc = subprocess.run([sys.executable, "-m", "server.main"], cwd=ROOT, env=server.env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60, text=True)
    assert proc.returncode != 0
    assert f"cannot bind the metrics port 127.0.0.1:{server.metrics_port}" in proc.stderr
    assert "another process has the port" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("port, answers", [
    ("metrics_port", lambda s: urllib.request.urlopen(f"http://127.0.0.1:{s.metrics_port}/metrics", timeout=5)),
    ("web_port", lambda s: urllib.request.urlopen(f"http://127.0.0.1:{s.web_port}/api/games", timeout=5)),
])
def test_the_harness_picks_again_a_port_it_picked_that_was_taken(tmp_path, port, answers):
    server = ServerProcess(tmp_path / "data").with_web()
    taken = getattr(server, port)
    with held(taken):
        server.start()
    try:
        assert getattr(server, port) != taken
        with answers(server) as r:
            assert r.status == 200
    finally:
        server.stop()


def test_a_port_a_test_set_is_not_picked_again(tmp_path):
    first = ServerProcess(tmp_path / "a")
    with held(first.metrics_port):
        second = ServerProcess(tmp_path / "b", GE_METRICS_PORT=str(first.metrics_port))
        try:
            second.start()
            raise AssertionError("started on a port another process holds")
        except RuntimeError as e:
            assert "cannot bind the metrics port" in str(e)
