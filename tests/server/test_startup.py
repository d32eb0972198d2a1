"""Start-up and liveness: a stop asked for during recovery ends the process at once; every log line is JSON;
/livez follows the event loop."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT, free_port

GAMES = 30_000  # ~1.2 s to restore here: the signal lands inside recovery


@pytest.fixture(scope="module")
def large_data_dir(tmp_path_factory):
    data = tmp_path_factory.mktemp("large") / "data"
    subprocess.run([sys.executable, "-m", "bench.run", "_scale_build", str(data), str(GAMES)], cwd=ROOT, check=True,
                   env=dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'protos'}"))
    return data


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_recovery_stops_the_server_with_a_line(large_data_dir, sig):
    """Until it served, the server had no handler: SIGTERM killed it by default (and as a container's
    PID 1, which ignores unhandled signals, not at all until the grace period ran out); SIGINT printed a
    KeyboardInterrupt traceback."""
    env = dict(os.environ, GE_DATA_DIR=str(large_data_dir), GE_PORT=str(free_port()), GE_WEB_PORT="0",
               GE_METRICS_PORT="0", PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'protos'}")
    proc = subprocess.Popen([sys.executable, "-m", "server.main"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        lines = []
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line)
            if '"recovering"' in line:
                proc.send_signal(sig)
                break
            assert '"serving"' not in line, "served without a line before recovery"
        t0 = time.monotonic()
        rest = proc.communicate(timeout=30)[0]
    finally:
        proc.kill()
    out = "".join(lines) + rest
    assert proc.returncode == 0, out[-2000:]
    assert time.monotonic() - t0 < 5
    assert f"stopped by {sig.name} before serving" in out and '"serving"' not in out, out[-2000:]
    assert "Traceback" not in out


def test_every_line_a_server_with_its_web_port_logs_is_json(tmp_path):
    """Starting the web edge (a fork and exec) made gRPC's fork handlers print a line of their own
    ("fork_posix.cc:71] Other threads are currently calling into gRPC ...") into the JSON log."""
    import json

    from clients.sdk import Client
    from tests.conftest import ServerProcess
    server = ServerProcess(tmp_path / "data", GE_LOG_LEVEL="info").with_web().start()
    try:
        Client(server.target, "kuhn").create(2, seed=1)
    finally:
        server.stop()
    lines = server.log.read_text().splitlines()
    assert lines
    for line in lines:
        assert isinstance(json.loads(line), dict), line


def test_livez_says_the_event_loop_is_stuck_once_its_heartbeat_is_old():
    import asyncio

    from server.main import Heartbeat
    beat = Heartbeat()
    assert beat.alive()
    beat.at -= Heartbeat.STUCK_S + 1  # a loop that ran nothing for that long
    assert not beat.alive()

    async def one_beat() -> None:
        task = asyncio.create_task(beat.run())
        await asyncio.sleep(0.01)
        task.cancel()
    asyncio.run(one_beat())
    assert beat.alive()
