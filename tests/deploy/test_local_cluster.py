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
from tests.web.conftest import WebServer

from .support import nginx_binary, nginx_check, nginx_conf, render

ROUTER_CONF = ROOT / "k8s" / "base" / "router" / "router.conf.template"
SHARDS = ["gameengine-0", "gameengine-1", "gameengine-2"]


class PortTaken(RuntimeError):
    """nginx could not bind a port it was given: another process took it after free_port() picked it."""


class Router:
    """nginx in the foreground with router.conf and a loopback upstreams.conf."""

    def __init__(self, workdir: Path, replicas: dict[str, WebServer]):
        self.dir = workdir
        self.port = free_port()
        self.web_port = free_port()
        self.replicas = dict(replicas)
        self.access_log = workdir / "access.log"
        self.error_log = workdir / "error.log"
        self.proc: subprocess.Popen | None = None

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def web_base(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def write_config(self) -> Path:
        d = self.dir
        d.mkdir(parents=True, exist_ok=True)
        (d / "router.conf").write_text(render(ROUTER_CONF.read_text(), {
            "GE_ROUTER_LISTEN": self.target, "GE_ROUTER_WEB_LISTEN": f"127.0.0.1:{self.web_port}"}))
        (d / "upstreams.conf").write_text(loopback_upstreams(
            {shard: s.target for shard, s in self.replicas.items()},
            {shard: f"127.0.0.1:{s.web_port}" for shard, s in self.replicas.items()}))
        log = (f"    log_format routed '$ge_game_id|$upstream_addr|$status';\n"
               f"    access_log {self.access_log} routed;\n")
        return nginx_conf(d, [d / "router.conf", d / "upstreams.conf"], extra_http=log)

    def start(self, timeout: float = 15) -> Router:
        for attempt in range(ServerProcess.BIND_ATTEMPTS):  # ports picked again if another process took one
            try:
                return self._start(timeout)
            except PortTaken:
                if attempt + 1 == ServerProcess.BIND_ATTEMPTS:
                    raise
                self.port, self.web_port = free_port(), free_port()
        raise AssertionError("unreachable")

    def _start(self, timeout: float) -> Router:
        nginx = nginx_binary()
        conf = self.write_config()
        nginx_check(conf)
        logged = self.error_log.stat().st_size if self.error_log.exists() else 0
        self.proc = subprocess.Popen([nginx, "-p", str(self.dir), "-c", str(conf), "-e", str(self.error_log)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                errors = self.error_log.read_bytes()[logged:].decode(errors="replace")
                if "Address already in use" in errors:
                    raise PortTaken(errors[-2000:])
                raise RuntimeError(f"nginx exited: {errors[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                socket.create_connection(("127.0.0.1", self.web_port), timeout=0.5).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("nginx did not listen")

    def remove(self, shard: str) -> None:
        """What the headless Service does when a replica is scaled away: nginx stops seeing it."""
        del self.replicas[shard]
        nginx_check(self.write_config())
        self.proc.send_signal(signal.SIGHUP)  # reload: new workers, old ones finish their calls
        time.sleep(1.0)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)  # graceful: finish open calls, then exit
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def routed(self) -> list[tuple[str, str, str]]:
        """(game id, upstream address, HTTP status) for every call so far."""
        rows = []
        for line in self.access_log.read_text().splitlines():
            game_id, upstream, status = line.split("|")
            rows.append((game_id, upstream, status))
        return rows


def loopback_upstreams(grpc_addrs: dict[str, str], web_addrs: dict[str, str]) -> str:
    """The loopback stand-in for k8s/base/router/upstreams.conf.template: the same four
    variables, fixed addresses instead of cluster DNS."""
    def upstream(name, addrs):
        servers = "".join(f"    server {a} max_fails=1 fail_timeout=2s;\n" for a in addrs.values())
        return f"upstream {name} {{\n{servers}}}\n"

    def owner_map(var, scheme, addrs, port):
        rows = "".join(f"    {shard}  {scheme}://{a};\n" for shard, a in addrs.items())
        return (f"map $ge_shard ${var} {{\n{rows}"
                f"    default  {scheme}://unknown-replica.invalid:{port};  # no resolver here: UNAVAILABLE\n}}\n")

    return ("# loopback stand-in for k8s/base/router/upstreams.conf.template\n"
            + upstream("ge_any", grpc_addrs) + upstream("ge_any_web", web_addrs)
            + owner_map("ge_owner", "grpc", grpc_addrs, 50051) + owner_map("ge_owner_web", "http", web_addrs, 8080)
            + "map $ge_shard $ge_any {\n    default  grpc://ge_any;\n}\n"
            + "map $ge_shard $ge_any_web {\n    default  http://ge_any_web;\n}\n")


@pytest.fixture
def cluster(tmp_path):
    replicas = {shard: WebServer(tmp_path / shard, GE_SHARD=shard, GE_HOST="127.0.0.1",
                                 GE_SNAPSHOT_INTERVAL_S="3600", GE_LOG_LEVEL="info")
                for shard in SHARDS}
    router = Router(tmp_path / "router", replicas)
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
        # Creates name no game: round robin over the replicas, each id names its minter. A replica whose
        # connect timed out (a loaded CI machine) is skipped for fail_timeout (2 s): keep creating, bounded.
        games = {}
        deadline = time.time() + 15
        for i in range(60):
            game_id, tokens = client.create(3, seed=100 + i)
            games[game_id] = tokens
            if (i >= 5 and {owner_of(g) for g in games} == set(SHARDS)) or time.time() > deadline:
                break
            if i >= 5:
                time.sleep(0.5)
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


def test_tournament_job_runs_through_the_router(cluster, tmp_path):
    """What k8s/tournament runs: clients.tournament through the router; the tournament, its players,
    its entrants' streams and every one of its games live on the replica that owns the tournament."""
    from clients import tournament
    from clients.sdk import TournamentClient

    router, replicas = cluster
    out = tmp_path / "results" / "tournament.json"
    report = tournament.run(tournament.parse_args(
        ["--server", router.target, "--game", "pompeii", "--seats", "3", "--bots", "random,greedy,random",
         "--games", "3", "--think-ms", "1", "--parallel", "1", "--seed", "9", "--quiet", "--json", str(out)]))
    assert not report["errors"], report["errors"]
    owner = owner_of(report["tournament_id"])
    assert owner in SHARDS
    assert {owner_of(r["game_id"]) for r in report["results"]} == {owner}
    assert all(r["outcome"] for r in report["results"]) and out.exists() and out.with_suffix(".png").exists()
    t = TournamentClient(router.target).get(report["tournament_id"])  # routed by its id
    assert t.games_finished == 3 and len(t.entrants) == 3


def test_the_router_picks_again_a_port_another_process_took(tmp_path):
    """nginx refuses a port taken between free_port() and its bind; the router then picks new ones."""
    nginx_binary()  # skips (fails in CI) without nginx
    router = Router(tmp_path / "router", {"a": WebServer(tmp_path / "a")})  # the replica need not run
    taken = router.port
    with socket.socket() as holder:  # bound, not listening: as an outgoing connection's port
        holder.bind(("127.0.0.1", taken))
        router.start()  # nginx tries to bind for ~2.5 s, then exits
    try:
        assert router.port != taken
        socket.create_connection(("127.0.0.1", router.port), timeout=2).close()
    finally:
        router.stop()
