"""Three replicas on loopback behind nginx running the Kubernetes router config.

The router's logic (k8s/base/router/router.conf.template) runs here unchanged; only the
replica addresses differ (upstreams.conf: fixed loopback ports instead of cluster DNS).
Games are created through the router, moves reach their owner, and a replica killed with
-9 comes back with its games; while it is down its games answer UNAVAILABLE with a retry
hint, never NOT_FOUND from another replica.
"""
from __future__ import annotations

import base64
import signal
import socket
import subprocess
import time
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from clients.sdk import Client, Refused
from gameengine.v1 import common_pb2, common_pb2_grpc
from tests.conftest import ROOT, ServerProcess, free_port

from .support import nginx_binary, nginx_check, nginx_conf, render

ROUTER_CONF = ROOT / "k8s" / "base" / "router" / "router.conf.template"
SHARDS = ["gameengine-0", "gameengine-1", "gameengine-2"]


class Router:
    """nginx in the foreground with router.conf and a loopback upstreams.conf."""

    def __init__(self, workdir: Path, replicas: dict[str, str]):
        self.dir = workdir
        self.port = free_port()
        self.replicas = replicas
        self.access_log = workdir / "access.log"
        self.error_log = workdir / "error.log"
        self.proc: subprocess.Popen | None = None

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def write_config(self) -> Path:
        d = self.dir
        d.mkdir(parents=True, exist_ok=True)
        (d / "router.conf").write_text(render(ROUTER_CONF.read_text(), {"GE_ROUTER_LISTEN": self.target}))
        owners = "".join(f"    {shard}  {addr};\n" for shard, addr in self.replicas.items())
        servers = "".join(f"    server {addr} max_fails=1 fail_timeout=2s;\n" for addr in self.replicas.values())
        (d / "upstreams.conf").write_text(
            "# loopback stand-in for k8s/base/router/upstreams.conf.template\n"
            f"upstream ge_any {{\n{servers}}}\n"
            "map $ge_shard $ge_owner {\n"
            f"{owners}"
            "    default  unknown-replica.invalid:50051;  # no resolver here: UNAVAILABLE\n"
            "}\n"
            "map $ge_shard $ge_any {\n    default  ge_any;\n}\n")
        log = f"    log_format routed '$http_x_game_id|$upstream_addr|$status';\n    access_log {self.access_log} routed;\n"
        return nginx_conf(d, [d / "router.conf", d / "upstreams.conf"], extra_http=log)

    def start(self, timeout: float = 15) -> "Router":
        nginx = nginx_binary()
        conf = self.write_config()
        nginx_check(conf)
        self.proc = subprocess.Popen([nginx, "-p", str(self.dir), "-c", str(conf), "-e", str(self.error_log)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited: {self.error_log.read_text()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("nginx did not listen")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)  # graceful: finish open calls, then exit
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def routed(self) -> list[tuple[str, str, str]]:
        """(x-game-id, upstream address, HTTP status) for every call so far."""
        rows = []
        for line in self.access_log.read_text().splitlines():
            game_id, upstream, status = line.split("|")
            rows.append((game_id, upstream, status))
        return rows


@pytest.fixture
def cluster(tmp_path):
    replicas = {shard: ServerProcess(tmp_path / shard, GE_SHARD=shard, GE_HOST="127.0.0.1", GE_WEB_PORT="0",
                                     GE_SNAPSHOT_INTERVAL_S="3600")
                for shard in SHARDS}
    router = Router(tmp_path / "router", {shard: s.target for shard, s in replicas.items()})
    try:
        for s in replicas.values():
            s.start()
        router.start()
        yield router, replicas
    finally:
        router.stop()
        for s in replicas.values():
            s.stop()


def play(client: Client, game_id: str, tokens: list[str], moves: int) -> int:
    """Make `moves` legal moves through the router; returns the version reached."""
    seats = [client.seat(game_id, s, t) for s, t in enumerate(tokens)]
    status = client.status(game_id)
    for _ in range(moves):
        if status.over:
            break
        actor = next(s for s in status.seats_to_act if status.acts(s))
        seat = seats[actor]
        legal = seat.legal()
        seat.move(legal[0], expected_version=seat.last.version)
        status = seat.last
    return status.version


def owner_of(game_id: str) -> str:
    return game_id.rsplit("-", 1)[0]


def direct_status(target: str, game_id: str) -> grpc.StatusCode | int:
    """Ask one replica directly (no router): the version, or the refusal code."""
    with grpc.insecure_channel(target) as ch:
        try:
            resp = common_pb2_grpc.GameServiceStub(ch).GetGameStatus(
                common_pb2.GetGameStatusRequest(game_id=game_id), timeout=10)
            return resp.status.version
        except grpc.RpcError as e:
            return e.code()


def test_router_conf_retry_hint_is_consistent():
    """grpc-status-details-bin must decode to the UNAVAILABLE status and message nginx sends,
    or clients that read details (clients/sdk.py) would reject it."""
    from google.rpc import code_pb2, status_pb2

    text = ROUTER_CONF.read_text()
    details = next(line for line in text.splitlines() if "grpc-status-details-bin" in line and "add_header" in line)
    message = next(line for line in text.splitlines() if "grpc-message" in line and "add_header" in line)
    status = status_pb2.Status.FromString(base64.b64decode(details.split('"')[1]))
    assert status.code == code_pb2.UNAVAILABLE
    assert status.message == message.split('"')[1]
    retry = error_details_pb2.RetryInfo()
    assert any(d.Unpack(retry) for d in status.details if d.Is(error_details_pb2.RetryInfo.DESCRIPTOR))
    assert retry.retry_delay.seconds == 1


def test_three_replicas_behind_router(cluster):
    router, replicas = cluster
    client = Client(router.target, "pompeii")
    try:
        # Creates name no game: round robin over the replicas, each id names its minter.
        games = {}
        for i in range(6):
            game_id, tokens = client.create(3, seed=100 + i)
            games[game_id] = tokens
        owners = {owner_of(g) for g in games}
        assert owners == set(SHARDS), games.keys()

        versions = {g: play(client, g, tokens, 3) for g, tokens in games.items()}
        assert all(v == 3 for v in versions.values()), versions

        # Each game lives on its owner only (another replica, asked directly, says UNAVAILABLE
        # and names the owner, never NOT_FOUND), and every call naming it went there.
        for g in games:
            for shard, s in replicas.items():
                got = direct_status(s.target, g)
                assert got == (versions[g] if shard == owner_of(g) else grpc.StatusCode.UNAVAILABLE), (g, shard, got)
        routed = [r for r in router.routed() if r[0] in games]
        assert len(routed) > 6 * 3
        for game_id, upstream, status in routed:
            assert upstream == replicas[owner_of(game_id)].target, (game_id, upstream)
            assert status == "200"

        # kill -9 one replica: its games are UNAVAILABLE with a retry hint, not NOT_FOUND.
        victim = "gameengine-1"
        replicas[victim].kill9()
        lost = [g for g in games if owner_of(g) == victim]
        kept = [g for g in games if owner_of(g) != victim]
        with grpc.insecure_channel(router.target) as ch:
            stub = common_pb2_grpc.GameServiceStub(ch)
            for g in lost:
                with pytest.raises(grpc.RpcError) as err:
                    stub.GetGameStatus(common_pb2.GetGameStatusRequest(game_id=g), timeout=10,
                                       metadata=(("x-game-id", g),))
                assert err.value.code() == grpc.StatusCode.UNAVAILABLE, err.value
                status = rpc_status.from_call(err.value)
                assert status is not None and status.code == grpc.StatusCode.UNAVAILABLE.value[0]
                retry = error_details_pb2.RetryInfo()
                assert any(d.Unpack(retry) for d in status.details if d.Is(error_details_pb2.RetryInfo.DESCRIPTOR))
                assert retry.retry_delay.seconds >= 1
        # The SDK retries UNAVAILABLE with backoff, then reports it (not NOT_FOUND).
        with pytest.raises(Refused) as refused:
            client.status(lost[0])
        assert refused.value.code == grpc.StatusCode.UNAVAILABLE
        # The other replicas play on, and creates skip the dead one.
        for g in kept:
            versions[g] = play(client, g, games[g], 1)
            assert versions[g] == 4
        for i in range(4):
            game_id, tokens = client.create(3, seed=200 + i)
            assert owner_of(game_id) != victim
            games[game_id] = tokens
            versions[game_id] = 0

        # Restart it on the same data directory: its games are back, at the same versions.
        replicas[victim].start()
        for g in lost:
            assert client.status(g).version == versions[g]
            versions[g] = play(client, g, games[g], 1)
            assert versions[g] == 4
        for g, v in versions.items():
            assert client.status(g).version == v
        assert not [r for r in router.routed() if r[0] in games and r[1] != replicas[owner_of(r[0])].target
                    and r[2] == "200"]
    finally:
        client.close()


def test_indexed_tournament_workers_split_the_schedule(cluster, tmp_path):
    """What k8s/tournament runs: workers k = 0, 1 of 2 each play games i % 2 == k through the
    router; together they play the whole schedule once, with the unsharded seeds."""
    from clients import tournament

    router, replicas = cluster
    common = ["--server", router.target, "--game", "pompeii", "--seats", "3", "--bots", "random,greedy",
              "--games", "5", "--think-ms", "1", "--parallel", "1", "--seed", "9", "--quiet"]
    played = []
    for k in range(2):
        report = tournament.run(tournament.parse_args(
            common + ["--shard-index", str(k), "--shard-count", "2", "--json", str(tmp_path / f"t{k}.json")]))
        assert not report["errors"], report["errors"]
        assert all(r["index"] % 2 == k for r in report["results"])
        played += report["results"]
    assert sorted(r["index"] for r in played) == list(range(5))
    whole = tournament.parse_args(common + ["--json", str(tmp_path / "all.json")])
    import random
    seeds = random.Random(whole.seed)
    assert [r["seed"] for r in sorted(played, key=lambda r: r["index"])] == [seeds.randrange(2**62) for _ in range(5)]
    assert all(r["outcome"] for r in played)
    assert {owner_of(r["game_id"]) for r in played} <= set(SHARDS)
