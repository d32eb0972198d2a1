"""Issue 16 against real server processes: a full disk under play, a second server on the same
data dir or port, the previous release's data dir. Each test is bounded and counts the
acknowledged moves kept after a restart: all of them."""
from __future__ import annotations

import errno
import os
import random
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from clients.sdk import Client
from engines import registry
from tests.conftest import ROOT, ServerProcess

FIXTURE = Path(__file__).parent / "fixtures" / "legacy-a4e5322"


def health(target: str, service: str = "") -> int:
    with grpc.insecure_channel(target) as ch:
        try:
            return health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(service=service),
                                                        timeout=2).status
        except grpc.RpcError:
            return -1


def wait_for(predicate, timeout: float = 15.0) -> bool:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


class Game:
    """One game driven move by move with raw calls (no retries), remembering acknowledgements."""

    def __init__(self, target: str, game: str, seats: int, seed: int):
        self.client = Client(target, game)
        self.game_id, self.tokens = self.client.create(seats, seed=seed)
        self.rng = random.Random(seed)
        self.acked: list[tuple[int, bytes]] = []

    def step(self) -> grpc.StatusCode:
        c = self.client
        status = c.status(self.game_id)
        if status.over:
            return grpc.StatusCode.OUT_OF_RANGE
        seat = next(s for s in status.seats_to_act if status.acts(s))
        move = self.rng.choice(c.seat(self.game_id, seat, self.tokens[seat]).legal())
        req = c.request("make_move", game_id=self.game_id, token=self.tokens[seat],
                     expected_version=status.version, idempotency_key=f"k{status.version}",
                     move=c.codec.move_to_proto(move))
        try:
            c.rpcs["make_move"](req, timeout=10)
        except grpc.RpcError as e:
            assert c.status(self.game_id).version == status.version, "a refused move changed the game"
            return e.code()
        self.acked.append((seat, c.codec.move_to_proto(move).SerializeToString()))
        return grpc.StatusCode.OK

    def kept(self, target: str) -> list[tuple[int, bytes]]:
        client = Client(target, self.client.game)
        log = client.spectator(self.game_id).log()
        client.close()
        # a spectator's log withholds secret moves until the end: compare those by seat only
        return [(e.seat, None if e.withheld else e.move.SerializeToString()) for e in log.entries]

    def matches(self, target: str) -> bool:
        kept = self.kept(target)
        return len(kept) == len(self.acked) and all(
            k == (seat, move) or k == (seat, None) for k, (seat, move) in zip(kept, self.acked))


@pytest.fixture
def small_disk(tmp_path):
    """A 1 MiB tmpfs (we run as root in CI); skipped where mount is not allowed (test_storage.py
    injects the same failures in-process)."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def http_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def readyz(server: ServerProcess) -> int:
    return http_status(f"http://127.0.0.1:{server.metrics_port}/readyz")


def metrics_page(server: ServerProcess) -> int:
    return http_status(f"http://127.0.0.1:{server.metrics_port}/metrics")


def fill(path: Path) -> None:
    with open(path, "wb", buffering=0) as f:
        for chunk in (65536, 4096, 512, 1):
            while True:
                try:
                    if f.write(b"\0" * chunk) != chunk:
                        break
                except OSError as e:
                    assert e.errno == errno.ENOSPC
                    break


def test_item3_full_disk_under_play_refuses_then_resumes_and_keeps_every_acknowledged_move(tmp_path, small_disk):
    server = ServerProcess(small_disk / "data", GE_SNAPSHOT_INTERVAL_S="3600", GE_REFEREE_TICK_S="0.05")
    server.log = tmp_path / "server.log"
    server.start()
    try:
        games = [Game(server.target, g, registry.typical_seats(g), 40 + i) for i, g in enumerate(registry.GAME_IDS)]
        bot = Client(server.target, "citadels")  # the referee plays this one by itself, all along
        bot.create(3, seed=3, time_bank_ms=1, timeout_policy="random")
        for _ in range(10):
            for g in games:  # a short game (Kuhn poker) may be over before the tenth move
                assert g.step() in (grpc.StatusCode.OK, grpc.StatusCode.OUT_OF_RANGE)
        fill(small_disk / "filler")
        refused = None
        for _ in range(400):  # the journal's last page may still take a few records
            code = games[0].step()
            if code != grpc.StatusCode.OK:
                refused = code
                break
        assert refused == grpc.StatusCode.UNAVAILABLE
        assert wait_for(lambda: health(server.target) == health_pb2.HealthCheckResponse.NOT_SERVING)
        os.unlink(small_disk / "filler")
        assert wait_for(lambda: health(server.target) == health_pb2.HealthCheckResponse.SERVING)
        for _ in range(10):
            for g in games:
                assert g.step() in (grpc.StatusCode.OK, grpc.StatusCode.OUT_OF_RANGE)
        server.kill9()
        server.start()
        for g in games:
            assert g.matches(server.target), g.client.game
        assert sum(len(g.acked) for g in games) >= 60
    finally:
        server.stop()


def test_item3_a_restart_on_a_full_disk_serves_reads_and_resumes_writes_by_itself(tmp_path, small_disk):
    """What a pod restarted on a full volume does: it starts (liveness SERVING, the rest NOT_SERVING),
    answers reads, refuses writes UNAVAILABLE, and takes writes once there is room, nothing lost."""
    server = ServerProcess(small_disk / "data", GE_SNAPSHOT_INTERVAL_S="3600")
    server.log = tmp_path / "server.log"
    server.start()
    try:
        game = Game(server.target, "pompeii", 3, 7)
        for _ in range(6):
            assert game.step() == grpc.StatusCode.OK
        fill(small_disk / "filler")
        server.kill9()
        before = server.log.stat().st_size
        server.start(service="liveness")
        assert health(server.target) == health_pb2.HealthCheckResponse.NOT_SERVING
        restarted = server.log.read_text()[before:]  # says why it is not ready
        assert '"storage_failing"' in restarted and "No space left" in restarted, restarted[-2000:]
        # what the tls overlay's probes ask over plain HTTP: /livez and /metrics answer, /readyz says not ready
        assert readyz(server) == 503 and metrics_page(server) == 200
        assert http_status(f"http://127.0.0.1:{server.metrics_port}/livez") == 200
        assert game.matches(server.target)  # reads are served
        assert game.step() == grpc.StatusCode.UNAVAILABLE
        os.unlink(small_disk / "filler")
        assert wait_for(lambda: health(server.target) == health_pb2.HealthCheckResponse.SERVING)
        assert readyz(server) == 200
        for _ in range(4):
            assert game.step() == grpc.StatusCode.OK
        server.kill9()
        server.start()
        assert game.matches(server.target) and len(game.acked) == 10
    finally:
        server.stop()


def test_item4_a_second_server_on_the_same_data_dir_refuses_and_names_the_holder(tmp_path):
    first = ServerProcess(tmp_path / "data").start()
    try:
        game = Game(first.target, "pompeii", 3, 1)
        for _ in range(5):
            game.step()
        second = ServerProcess(tmp_path / "data")
        second.log = tmp_path / "second.log"
        with pytest.raises(RuntimeError, match="server exited"):
            second.start()
        text = second.log.read_text()
        assert f"pid {first.proc.pid}" in text and "one server per data dir" in text
        assert game.matches(first.target)  # the first one never noticed
    finally:
        first.stop()


def test_item4_a_second_server_on_the_same_port_fails_to_bind(tmp_path):
    first = ServerProcess(tmp_path / "a").start()
    try:
        second = ServerProcess(tmp_path / "b", GE_PORT=str(first.port))
        second.port = first.port
        # (not second.start(): its health check would reach the first server) the process must exit
        (tmp_path / "b").mkdir()
        proc = subprocess.Popen([sys.executable, "-m", "server.main"], cwd=ROOT, env=second.env,
                                stdout=subprocess.DEVNULL, stderr=open(second.log, "ab"))
        try:
            assert proc.wait(timeout=60) != 0
        finally:
            if proc.poll() is None:  # it bound the port beside the first one (SO_REUSEPORT)
                proc.kill()
                proc.wait()
        assert "cannot bind" in second.log.read_text()
    finally:
        first.stop()


def test_item2_the_previous_release_data_dir_serves_every_game(tmp_path):
    import json

    data = tmp_path / "data"
    shutil.copytree(FIXTURE / "data", data)
    expected = json.loads((FIXTURE / "expected.json").read_text())
    server = ServerProcess(data).start()
    try:
        for gid, e in expected.items():
            client = Client(server.target, e["game"])
            assert client.status(gid).version == e["version"]
            assert len(client.spectator(gid).log().entries) == len(e["log"])
            client.close()
    finally:
        server.stop()


def test_acknowledged_moves_cut_from_the_segment_written_last_stop_the_restart(tmp_path):
    """kill -9, then the newest journal segment loses its last records at a record boundary (every frame
    left intact): the restart refuses with a sentence naming the file, instead of serving without them."""
    from server import journal
    server = ServerProcess(tmp_path / "data", GE_FSYNC="always").start()
    data = tmp_path / "data"
    try:
        game = Game(server.target, "pompeii", 3, 7)
        for _ in range(10):
            assert game.step() == grpc.StatusCode.OK
        seg = journal.segments(data)[-1]
        path = journal.segment_path(data, seg)
        assert wait_for(lambda: journal.marks(data).get(seg) == path.stat().st_size, 5), "marked within a second"
    finally:
        server.kill9()
    cut = journal.scan(path, journal.JOURNAL_MAGIC).frames[-2].offset
    os.truncate(path, cut)
    with pytest.raises(RuntimeError, match="server exited"):
        server.start()
    said = server.log.read_text()
    assert path.name in said and "are lost" in said and "repair" in said, said[-2000:]
    assert path.stat().st_size == cut, "nothing was changed"
