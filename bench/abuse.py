"""Abuse benchmark (issue 19): each attack runs for a bounded time against a server started the way
`make run` starts it (default settings, own ports and data dir), while a legitimate player plays
over gRPC from 127.0.0.1: a move every 20 ms in its own game, a hint every 2 s, and one clocked
game of its own that the referee must keep playing (RANDOM policy, nobody moves).

Attackers are separate processes speaking the web port's Connect protocol from other loopback
addresses (127.0.0.2 and up: other clients, as remote attackers would be), or raw TCP. An attacker
runs at nice 19 (`--attacker-nice`): on a deployment its CPU is on its own machines, while here it
shares the server's two cores, and at the server's priority the rows would measure how much CPU the
attacking process itself burns (a reconnect loop of 6,000 streams keeps a core busy) rather than
what the server does with the traffic. It still takes every cycle the server leaves idle. Per phase
it reports the player's move latency (p50/p99), its failed calls, its hints, the referee's moves
in its clocked game, and the server's peak RSS, against a baseline phase in the same run; writes
bench/abuse.json. Loopback only; everything stops by itself.

    python -m bench.abuse [--seconds 40] [--only mass_create,hint_flood] [--attacker-nice 19]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "protos")]

from bench import run as R  # noqa: E402
from bench.readme_tables import abuse_table  # noqa: E402

ATTACKS = ["mass_create", "mass_create_many_addresses", "demo_referee", "hint_flood", "stream_fanout",
           "idle_connections", "big_ids", "request_flood", "players_flood"]
GOAL_P99_FACTOR = 2.0
GOAL_MOVES_SHARE = 0.8  # the player keeps its pace: a slow hint or a stall would hide behind a good p99
RSS_BOUND_MB = 512  # the StatefulSet's memory request (k8s/base/statefulset.yaml)


# ---- the attacker side (runs in its own process: `python -m bench.abuse --attack NAME ...`) ----------

class Conn:
    """One keep-alive HTTP/1.1 connection to the web port from a chosen loopback address."""

    def __init__(self, port: int, source: str):
        self.port, self.source = port, source
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None  # while open

    async def open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self.streams is None:
            self.streams = await asyncio.open_connection("127.0.0.1", self.port, local_addr=(self.source, 0))
        return self.streams

    async def post(self, path: str, body: bytes, ctype: str = "application/json") -> int:
        reader, writer = await self.open()
        writer.write(b"POST %s HTTP/1.1\r\nHost: bench\r\nContent-Type: %s\r\nConnect-Protocol-Version: 1\r\n"
                          b"Content-Length: %d\r\n\r\n" % (path.encode(), ctype.encode(), len(body)) + body)
        await writer.drain()
        status, head, _ = await read_response(reader)
        if b"connection: close" in head.lower():
            self.close()
        return status

    def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
        self.streams = None


async def read_response(reader) -> tuple[int, bytes, bytes]:
    """(status, head, body) of one HTTP/1.1 response, with a content-length or chunked body."""
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    lower = head.lower()
    if b"transfer-encoding: chunked" in lower:
        body = b""
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
            body += await reader.readexactly(size)
            await reader.readexactly(2)  # the CRLF after each chunk (and after the last, empty one)
            if size == 0:
                return status, head, body
    length = 0
    for line in lower.split(b"\r\n"):
        if line.startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return status, head, await reader.readexactly(length)


def rpc(service: str, method: str) -> str:
    return f"/gameengine.v1.{service}/{method}"


async def all_of(jobs, counts: dict) -> None:
    """Run the attacker's loops to the end; one that fails is counted, not the end of the attack."""
    for result in await asyncio.gather(*jobs, return_exceptions=True):
        if isinstance(result, BaseException):
            key = f"error_{type(result).__name__}"
            counts[key] = counts.get(key, 0) + 1


async def hammer(port: int, sources: list[str], workers: int, until: float, make_body, path,
                 counts: dict[int | str, int]) -> None:
    """`workers` loops, each on its own connection, posting make_body() until the deadline."""
    async def loop(i: int) -> None:
        conn = Conn(port, sources[i % len(sources)])
        while time.time() < until:
            path_i, body = (path, make_body()) if isinstance(path, str) else path()
            status: int | str  # an HTTP status, or "conn_error"
            try:
                status = await asyncio.wait_for(conn.post(path_i, body), timeout=max(0.1, until - time.time()))
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError, IndexError):
                status = "conn_error"
                conn.close()
                await asyncio.sleep(0.05)
            counts[status] = counts.get(status, 0) + 1
    await all_of([loop(i) for i in range(workers)], counts)


async def attack(name: str, web_port: int, grpc_port: int, seconds: float, victim: str) -> dict:
    until = time.time() + seconds
    counts: dict = {}
    create = rpc("PompeiiService", "CreatePompeiiGame")
    if name == "mass_create":
        await hammer(web_port, ["127.0.0.2"], 32, until, lambda: b'{"seats": 3}', create, counts)
    elif name == "mass_create_many_addresses":  # a botnet: 60 addresses, to reach the total cap
        sources = [f"127.0.1.{i}" for i in range(1, 61)]
        await hammer(web_port, sources, 60, until, lambda: b'{"seats": 3}', create, counts)
    elif name == "demo_referee":  # the page's demo settings, and clocks just above the demo bound
        bodies = [b'{"seats": 4, "referee": {"timeBankMs": 1, "incrementMs": 700, "timeoutPolicy": 2}}',
                  b'{"seats": 4, "referee": {"timeBankMs": 1000, "incrementMs": 1, "timeoutPolicy": 2}}',
                  b'{"seats": 4, "referee": {"timeBankMs": 1000, "incrementMs": 1, "timeoutPolicy": 1}}']
        await hammer(web_port, ["127.0.0.3"], 8, until, lambda: random.choice(bodies), create, counts)
    elif name == "hint_flood":
        games = await own_games(web_port, "127.0.0.4", 8)
        hint = rpc("PompeiiService", "GetPompeiiHint")
        await hammer(web_port, ["127.0.0.4"], 32, until,
                     lambda: json.dumps({**random.choice(games), "budgetMs": 2000}).encode(), hint, counts)
    elif name == "stream_fanout":  # spectator streams on the victim's game, from 20 addresses
        body = json.dumps({"gameId": victim}).encode()
        envelope = b"\x00" + len(body).to_bytes(4, "big") + body
        stream = rpc("PompeiiService", "StreamPompeiiEvents")

        async def spectate(source: str) -> None:
            while time.time() < until:
                try:
                    r, w = await asyncio.open_connection("127.0.0.1", web_port, local_addr=(source, 0))
                    w.write(b"POST %s HTTP/1.1\r\nHost: b\r\nContent-Type: application/connect+json\r\n"
                            b"Connect-Protocol-Version: 1\r\nContent-Length: %d\r\n\r\n"
                            % (stream.encode(), len(envelope))
                            + envelope)
                    await w.drain()
                    counts["opened"] = counts.get("opened", 0) + 1
                    while time.time() < until:  # read and drop whatever comes; EOF = refused or closed
                        data = await asyncio.wait_for(r.read(65536), timeout=max(0.1, until - time.time()))
                        if not data:
                            counts["closed_by_server"] = counts.get("closed_by_server", 0) + 1
                            break
                    w.close()
                except (TimeoutError, OSError):
                    counts["conn_error"] = counts.get("conn_error", 0) + 1
                    await asyncio.sleep(0.05)
        await all_of([spectate(f"127.0.2.{1 + i % 20}") for i in range(6000)], counts)
    elif name == "idle_connections":  # open and hold: web from 40 addresses, gRPC raw TCP
        held = []

        async def hold(port: int, source: str) -> None:
            try:
                r, w = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
                held.append(w)
                counts[f"opened_{'web' if port == web_port else 'grpc'}"] = \
                    counts.get(f"opened_{'web' if port == web_port else 'grpc'}", 0) + 1
                data = await asyncio.wait_for(r.read(65536 * 4), timeout=max(0.1, until - time.time()))
                while data:
                    data = await asyncio.wait_for(r.read(65536), timeout=max(0.1, until - time.time()))
                counts["closed_by_server"] = counts.get("closed_by_server", 0) + 1
            except (TimeoutError, OSError):
                counts["still_open_or_error"] = counts.get("still_open_or_error", 0) + 1
        jobs = [hold(web_port, f"127.0.3.{1 + i % 40}") for i in range(8000)]
        jobs += [hold(grpc_port, f"127.0.4.{1 + i % 40}") for i in range(4000)]
        await all_of(jobs, counts)
        for w in held:
            w.close()
    elif name == "big_ids":  # a 1 MB game id and 100 kB idempotency keys
        status = rpc("GameService", "GetGameStatus")
        move = rpc("PompeiiService", "MakePompeiiMove")
        big_id = json.dumps({"gameId": "x" * 1_000_000}).encode()
        big_key = json.dumps({"gameId": victim, "token": "t", "idempotencyKey": "k" * 100_000}).encode()
        await hammer(web_port, ["127.0.0.7"], 8, until, None,
                     lambda: random.choice([(status, big_id), (move, big_key)]), counts)
    elif name == "request_flood":
        view = json.dumps({"gameId": victim}).encode()
        await hammer(web_port, ["127.0.0.8"], 64, until, lambda: view, rpc("PompeiiService", "GetPompeiiView"), counts)
    elif name == "players_flood":  # one address over gRPC, its 20 registered players each a client of its own
        await players_flood(grpc_port, "127.0.0.9", victim, until, counts)
    return {str(k): v for k, v in counts.items()}


async def forward_from(source: str, port: int) -> asyncio.Server:
    """A loopback port whose connections reach `port` from the address `source` (gRPC cannot pick the
    address it calls from)."""
    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()

    async def connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        except OSError:
            writer.close()
            return
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
    return await asyncio.start_server(connect, "127.0.0.1", 0)


async def players_flood(grpc_port: int, source: str, victim: str, until: float, counts: dict) -> None:
    """20 players registered from `source`, each keeping 16 cheap calls in flight on 4 channels."""
    import grpc

    from gameengine.v1 import player_pb2, player_pb2_grpc, pompeii_pb2, pompeii_pb2_grpc
    forwarder = await forward_from(source, grpc_port)
    target = f"127.0.0.1:{forwarder.sockets[0].getsockname()[1]}"
    channels = [grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(4)]
    tokens = []
    for i in range(20):
        try:
            answer = await player_pb2_grpc.PlayerServiceStub(channels[0]).RegisterPlayer(
                player_pb2.RegisterPlayerRequest(name=f"flood{i}"), timeout=10)
            tokens.append(answer.player_token)
        except grpc.aio.AioRpcError as e:
            counts[f"register_{e.code().name}"] = counts.get(f"register_{e.code().name}", 0) + 1
    counts["players"] = len(tokens)
    request = pompeii_pb2.GetPompeiiViewRequest(game_id=victim)

    async def loop(i: int) -> None:
        stub = pompeii_pb2_grpc.PompeiiServiceStub(channels[i % len(channels)])
        metadata = (("x-player-token", tokens[i % len(tokens)]),)
        while time.time() < until:
            try:
                await stub.GetPompeiiView(request, metadata=metadata, timeout=max(0.1, until - time.time()))
                key = "OK"
            except grpc.aio.AioRpcError as e:
                key = e.code().name
            counts[key] = counts.get(key, 0) + 1
    if tokens:
        await all_of([loop(i) for i in range(16 * len(tokens))], counts)
    for channel in channels:
        await channel.close()
    forwarder.close()


async def own_games(web_port: int, source: str, n: int) -> list[dict]:
    """Create n games and keep (game id, the token of the seat to move) for hints."""
    out = []
    reader, writer = await asyncio.open_connection("127.0.0.1", web_port, local_addr=(source, 0))
    for _ in range(n):
        body = b'{"seats": 2}'
        writer.write(b"POST /gameengine.v1.PompeiiService/CreatePompeiiGame HTTP/1.1\r\nHost: b\r\n"
                     b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        await writer.drain()
        _, _, body = await read_response(reader)
        resp = json.loads(body or b"{}")
        if "gameId" in resp:
            seat = resp["status"].get("toMove", 0)
            out.append({"gameId": resp["gameId"], "token": resp["seatTokens"][seat]["token"]})
    writer.close()
    return out or [{"gameId": "none", "token": "none"}]


# ---- the legitimate player and the phases (the parent process) ---------------------------------------

class Player(threading.Thread):
    """Plays Pompeii games over gRPC (both seats of its own games), a move every 20 ms."""

    def __init__(self, target: str):
        super().__init__(daemon=True)
        from clients.sdk import Client
        self.client = Client(target, "pompeii")
        self.latencies: list[float] = []
        self.hint_latencies: list[float] = []
        self.errors: list[str] = []
        self.hints = {"ok": 0, "failed": 0}
        self.stop = threading.Event()
        self.game_id = ""

    def run(self) -> None:
        from clients.sdk import Refused
        rng = random.Random(7)
        last_hint = time.time()
        while not self.stop.is_set():
            try:
                self.game_id, tokens = self.client.create(2)
                seats = [self.client.seat(self.game_id, s, t) for s, t in enumerate(tokens)]
                status = seats[0].status()
                while not status.over and not self.stop.is_set():
                    actor = next(s for s in status.seats_to_act if status.acts(s))
                    legal = seats[actor].legal()
                    t0 = time.perf_counter()
                    seats[actor].move(rng.choice(legal), expected_version=status.version)
                    self.latencies.append(time.perf_counter() - t0)
                    last = seats[actor].last
                    assert last is not None  # move() set it
                    status = last
                    if time.time() - last_hint > 2 and not status.over:
                        last_hint = time.time()
                        actor = next(s for s in status.seats_to_act if status.acts(s))
                        try:
                            t0 = time.perf_counter()
                            seats[actor].hint(100)
                            self.hint_latencies.append(time.perf_counter() - t0)
                            self.hints["ok"] += 1
                        except Refused as e:
                            self.hints["failed"] += 1
                            self.errors.append(f"hint {e.code.name}: {e.message[:80]}")
                    time.sleep(0.02)
            except Exception as e:  # noqa: BLE001 - every failure of the legitimate player is a finding
                self.errors.append(f"{type(e).__name__}: {str(e)[:120]}")
                time.sleep(0.2)

    def take(self) -> tuple[list[float], list[float], list[str], dict]:
        lat, hint_lat, err, hints = self.latencies, self.hint_latencies, self.errors, self.hints
        self.latencies, self.hint_latencies, self.errors, self.hints = [], [], [], {"ok": 0, "failed": 0}
        return lat, hint_lat, err, hints


class ClockedGame:
    """The player's clocked game that nobody moves, so the referee plays every turn (RANDOM policy). When
    it ends another starts, so its referee moves are counted over the whole phase."""

    def __init__(self, target: str):
        from clients.sdk import Client
        self.client = Client(target, "pompeii")
        self.ended = 0  # referee moves in the games that have ended
        self.start()

    def start(self) -> None:
        game_id, _ = self.client.create(3, time_bank_ms=1500, increment_ms=300, timeout_policy="random")
        self.game = self.client.spectator(game_id)

    def moves(self) -> int:
        """Referee moves so far, in every game."""
        status = self.game.status()
        if not status.over:
            return self.ended + status.version
        self.ended += status.version
        self.start()
        return self.ended


def server_rss(pid: int) -> int:
    """The server's RSS with its children's (the web edge, the referee's workers)."""
    total = R.rss_bytes(pid)
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            try:
                total += server_rss(int(child))
            except (FileNotFoundError, ProcessLookupError):
                pass  # it just ended
    return total


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def phase(name: str, seconds: float, player: Player, clocked: ClockedGame, server, ports, nice: int = 19) -> dict:
    attacker = None
    if name != "baseline":
        attacker = subprocess.Popen([sys.executable, "-m", "bench.abuse", "--attack", name, "--seconds", str(seconds),
                                     "--web-port", str(ports[1]), "--grpc-port", str(ports[0]),
                                     "--victim", player.game_id], cwd=ROOT, stdout=subprocess.PIPE,
                                    env=dict(os.environ, PYTHONPATH=f"{ROOT}:{ROOT / 'protos'}"),
                                    preexec_fn=lambda: os.nice(nice))
    player.take()
    m0 = clocked.moves()
    rss, t0 = [], time.time()
    while time.time() - t0 < seconds:
        rss.append(server_rss(server.pid) / 2**20)
        clocked.moves()  # an ended game is replaced at once
        time.sleep(0.5)
    attacks: dict[str, Any] = {}
    if attacker is not None:
        out, _ = attacker.communicate(timeout=seconds + 60)
        lines = out.decode().strip().splitlines()
        # an attacker that did not report has measured nothing: the row cannot meet the goal
        attacks = json.loads(lines[-1]) if lines else {"attacker_failed": attacker.returncode}
    elapsed = time.time() - t0
    lat, hint_lat, errors, hints = player.take()
    referee_moves = clocked.moves() - m0
    return {"moves": len(lat), "p50_ms": round(pct(lat, 0.5) * 1000, 2), "p99_ms": round(pct(lat, 0.99) * 1000, 2),
            "errors": len(errors), "error_samples": sorted(set(errors))[:5], "hints": hints,
            "hint_ms_p50_max": [round(pct(hint_lat, 0.5) * 1000, 1), round(max(hint_lat, default=0) * 1000, 1)],
            "referee_moves_per_s": round(referee_moves / elapsed, 2), "rss_mb_max": round(max(rss), 1),
            "seconds": round(elapsed, 1), "attacker": attacks}


def measure(name: str, seconds: float, nice: int = 19) -> dict:
    """A fresh server with `make run`'s settings: a baseline phase, then the attack, same length."""
    grpc_port, web_port = R.free_port(), R.free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GE_")}  # every setting at its default
    env.update(GE_PORT=str(grpc_port), GE_WEB_PORT=str(web_port), GE_METRICS_PORT="0", GE_LOG_LEVEL="warning",
               GE_DATA_DIR=tempfile.mkdtemp(prefix="abuse-"), PYTHONPATH=f"{ROOT}:{ROOT / 'protos'}")
    server = subprocess.Popen([sys.executable, "-m", "server.main"], cwd=ROOT, env=env)
    try:
        target = f"127.0.0.1:{grpc_port}"
        R.wait_ready(target)
        player = Player(target)
        player.start()
        clocked = ClockedGame(target)
        time.sleep(2)  # warm-up: the hint worker starts, the first games are played
        base = phase("baseline", seconds, player, clocked, server, (grpc_port, web_port))
        under = phase(name, seconds, player, clocked, server, (grpc_port, web_port), nice)
        player.stop.set()
        player.join(timeout=10)
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    row = {"attack": name, "baseline": base, "under_attack": under,
           "goal_met": (under["p99_ms"] <= GOAL_P99_FACTOR * base["p99_ms"] and under["errors"] == 0
                        and under["rss_mb_max"] <= RSS_BOUND_MB and "attacker_failed" not in under["attacker"]
                        and under["moves"] >= GOAL_MOVES_SHARE * base["moves"])}
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.abuse", description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=40, help="length of each phase (p99 over ~1,600 moves)")
    p.add_argument("--attacker-nice", type=int, default=19, help="the attacking process's nice value")
    p.add_argument("--only", default="", help="comma list of attacks (default: all)")
    p.add_argument("--json", default=str(ROOT / "bench" / "abuse.json"))
    p.add_argument("--attack", help=argparse.SUPPRESS)
    p.add_argument("--web-port", type=int, help=argparse.SUPPRESS)
    p.add_argument("--grpc-port", type=int, help=argparse.SUPPRESS)
    p.add_argument("--victim", default="", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.attack:  # the attacker process
        import resource
        resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
        print(json.dumps(asyncio.run(attack(args.attack, args.web_port, args.grpc_port, args.seconds, args.victim))))
        return
    attacks = [a for a in (args.only.split(",") if args.only else ATTACKS) if a]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    rows = [measure(name, args.seconds, args.attacker_nice) for name in attacks]
    report = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "commit": commit.strip(),
              "seconds_per_phase": args.seconds,
              "attacker_nice": args.attacker_nice,
              "load_average_at_end": os.getloadavg(),
              "goal": f"p99 <= {GOAL_P99_FACTOR} x baseline, no failed legitimate call, RSS <= {RSS_BOUND_MB} MB, "
                      f"at least {GOAL_MOVES_SHARE:.0%} of the baseline's moves",
              "rows": rows}
    Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    print(abuse_table(report))


if __name__ == "__main__":
    main()
