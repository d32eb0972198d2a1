"""Three replicas on loopback behind nginx running the Kubernetes router config.

The router's logic (k8s/base/router/router.conf.template) runs here unchanged; only the
replica addresses differ (upstreams.conf: fixed loopback ports instead of cluster DNS).
Games are created through the router, moves reach their owner, and a replica killed with
-9 comes back with its games; while it is down its games answer UNAVAILABLE with a retry
hint, never NOT_FOUND from another replica.
"""
from __future__ import annotations

import base64
import json
import signal
import socket
import struct
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from clients.sdk import Client, Refused
from gameengine.v1 import common_pb2, common_pb2_grpc
from tests.conftest import ROOT, free_port
from tests.web.conftest import WebServer, connect_call

from .support import nginx_binary, nginx_check, nginx_conf, render

ROUTER_CONF = ROOT / "k8s" / "base" / "router" / "router.conf.template"
SHARDS = ["gameengine-0", "gameengine-1", "gameengine-2"]


class Router:
    """nginx in the foreground with router.conf and a loopback upstreams.conf."""

    def __init__(self, workdir: Path, replicas: dict[str, "WebServer"]):
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


# ---- issue 23: the browser path through the router, and drain before scale-down -----------

def web_get(url: str) -> tuple[int, bytes, dict]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read(), dict(e.headers)


def connect_stream_url(url: str, body: dict, idle_s: float = 1.5) -> list[dict]:
    """A Connect server stream (JSON) at a full URL: the messages until the end or `idle_s` of silence."""
    payload = json.dumps(body).encode()
    req = urllib.request.Request(url, data=struct.pack(">BI", 0, len(payload)) + payload, method="POST",
                                 headers={"content-type": "application/connect+json", "connect-protocol-version": "1"})
    out = []
    with urllib.request.urlopen(req, timeout=idle_s) as r:
        while True:
            try:
                head = r.read(5)
            except TimeoutError:
                break
            if len(head) < 5:
                break
            flags, n = struct.unpack(">BI", head)
            out.append(json.loads(r.read(n)) if n else {})
            if flags & 2:
                break
    return out


def web_create(router: Router, seed: int) -> tuple[str, list[str]]:
    status, body = connect_call(router.web_base, "PompeiiService", "CreatePompeiiGame", {"seats": 3, "seed": seed})
    assert status == 200, body
    return body["gameId"], [t["token"] for t in body["seatTokens"]]


def web_routed(router: Router, replicas) -> list[tuple[str, str, str]]:
    web_addrs = {f"127.0.0.1:{s.web_port}" for s in replicas.values()}
    return [r for r in router.routed() if r[1].split(", ")[-1] in web_addrs]


def test_item1_connect_and_page_through_the_router_reach_the_owner(cluster):
    router, replicas = cluster
    # The page's files and its game list come from any replica.
    status, html, _ = web_get(router.web_base + "/")
    assert status == 200 and b"<script" in html
    status, js, _ = web_get(router.web_base + "/app.js")
    assert status == 200 and b"x-game-id" in js  # the page's calls carry the routing header (api.ts)
    assert web_get(router.web_base + "/healthz")[:2] == (200, b"ok\n")  # the router's livenessProbe
    # The router's readinessProbe: kubelet's gRPC health Check through nginx to a replica.
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    with grpc.insecure_channel(router.target) as ch:
        assert health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=5).status == \
            health_pb2.HealthCheckResponse.SERVING

    # Connect creates name no game: round robin over the replicas.
    games = dict(web_create(router, 300 + i) for i in range(6))
    assert {owner_of(g) for g in games} == set(SHARDS), games.keys()

    for g, tokens in games.items():
        # A browser's call with the header: view, legal moves and a move, all at the owner.
        hdr = {"x-game-id": g}
        status, moves = connect_call(router.web_base, "PompeiiService", "ListPompeiiMoves",
                                     {"gameId": g, "token": tokens[0]}, headers=hdr)
        if status != 200:  # seat 0 is not to act: take the seat that is
            view = connect_call(router.web_base, "PompeiiService", "GetPompeiiView", {"gameId": g}, headers=hdr)[1]
            actor = view["status"]["seatsToAct"][0]
            status, moves = connect_call(router.web_base, "PompeiiService", "ListPompeiiMoves",
                                         {"gameId": g, "token": tokens[actor]}, headers=hdr)
        else:
            actor = 0
        assert status == 200, moves
        status, made = connect_call(router.web_base, "PompeiiService", "MakePompeiiMove",
                                    {"gameId": g, "token": tokens[actor], "expectedVersion": 0,
                                     "idempotencyKey": f"k-{g}", "move": moves["moves"][0]}, headers=hdr)
        assert status == 200 and made["status"]["version"] == 1, made
        # ... and with the query parameter instead of the header (a stream, as a browser's EventSource-like use)
        events = connect_stream_url(f"{router.web_base}/gameengine.v1.PompeiiService/StreamPompeiiEvents?game_id={g}",
                                    {"gameId": g}, idle_s=1.0)
        assert any(e.get("version") == 1 for e in events), events

    rows = [r for r in web_routed(router, replicas) if r[0] in games]
    assert len(rows) >= 6 * 2  # (a stream is logged when nginx sees it closed: maybe not yet)
    for game_id, upstream, status in rows:
        assert upstream == f"127.0.0.1:{replicas[owner_of(game_id)].web_port}", (game_id, upstream)
        assert status == "200"

    # gRPC and Connect see the same game at its owner.
    client = Client(router.target, "pompeii")
    try:
        for g in games:
            assert client.status(g).version == 1
    finally:
        client.close()

    # The owner is down: Connect's UNAVAILABLE with RetryInfo from the router, not NOT_FOUND.
    victim = "gameengine-0"
    replicas[victim].kill9()
    lost = next(g for g in games if owner_of(g) == victim)
    status, body = connect_call(router.web_base, "GameService", "GetGameStatus", {"gameId": lost},
                                headers={"x-game-id": lost})
    assert status == 503 and body["code"] == "unavailable", body
    retry = error_details_pb2.RetryInfo()
    detail = next(d for d in body["details"] if d["type"] == "google.rpc.RetryInfo")
    retry.ParseFromString(base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4)))
    assert retry.retry_delay.seconds == 1
    # creates skip the dead replica
    for i in range(3):
        assert owner_of(web_create(router, 400 + i)[0]) != victim


def scrape_value(s, name: str) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{s.metrics_port}/metrics", timeout=5) as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    raise AssertionError(f"{name} not exported")


def wait_until(predicate, timeout: float = 10.0) -> None:
    deadline = time.time() + timeout
    while not predicate():
        assert time.time() < deadline, "timed out"
        time.sleep(0.2)


def test_item2_drain_replica_2_then_remove_it_nothing_lost(cluster):
    """README "Scaling down", on loopback: drain gameengine-2, creates go to 0 and 1, its games
    are played to their end, it leaves the router and stops; every game is still there."""
    router, replicas = cluster
    client = Client(router.target, "pompeii")
    try:
        games: dict[str, list[str]] = {}
        for i in range(6):
            game_id, tokens = client.create(3, seed=500 + i)
            games[game_id] = tokens
        drained = "gameengine-2"
        mine = [g for g in games if owner_of(g) == drained]
        assert mine and {owner_of(g) for g in games} == set(SHARDS)
        for g in games:
            play(client, g, games[g], 2)

        # Drain (what `kubectl exec gameengine-2 -- python -m server.drain on` does).
        (replicas[drained].data_dir / "DRAIN").touch()
        wait_until(lambda: scrape_value(replicas[drained], "ge_draining") == 1)
        assert scrape_value(replicas[drained], "ge_unfinished_games") == len(mine)

        # New games, over gRPC (the SDK retries the drained replica's UNAVAILABLE) and over
        # Connect (nginx passes the 503 on to the next replica), all land on 0 and 1.
        fresh = {}
        for i in range(9):
            game_id, tokens = client.create(3, seed=600 + i)
            fresh[game_id] = tokens
        for i in range(6):
            game_id, tokens = web_create(router, 700 + i)
            fresh[game_id] = tokens
        assert {owner_of(g) for g in fresh} == {"gameengine-0", "gameengine-1"}, fresh.keys()
        games.update(fresh)

        # The drained replica still serves its games: they are played on, then end.
        for g in mine:
            assert play(client, g, games[g], 2) == 4
            client.adjudicate(g, games[g], "test: played to its end before the scale-down")
        wait_until(lambda: scrape_value(replicas[drained], "ge_unfinished_games") == 0)
        final = {g: client.status(g) for g in games}
        assert all(final[g].over for g in mine)

        # Remove it: the router stops seeing it (headless Service), the pod stops (SIGTERM).
        router.remove(drained)
        replicas[drained].stop()
        for g, st in final.items():
            if owner_of(g) == drained:
                continue
            assert client.status(g).version == st.version
            assert play(client, g, games[g], 1) == st.version + 1
        with pytest.raises(Refused) as refused:
            client.status(mine[0])
        assert refused.value.code == grpc.StatusCode.UNAVAILABLE  # retained, not NOT_FOUND

        # Nothing lost: its volume holds every one of its games, finished, with its outcome.
        replicas[drained].start()
        for g in mine:
            back = direct_status(replicas[drained].target, g)
            assert back == final[g].version, (g, back)
        assert scrape_value(replicas[drained], "ge_draining") == 1  # still draining after a restart
    finally:
        client.close()
