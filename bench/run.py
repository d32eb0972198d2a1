"""`make bench`: engine, RPC, memory and snapshot figures -> bench/results.json and a table.

Method (all on this machine, loopback only, bounded in time):
- engine: uniformly random full games on one core, per game and seat count (GE_BENCH_ENGINE_S each);
  MCTS iterations per second from the opening position's view, per game. Rates are per second of the
  thread's CPU time, the reference loop's too, so another process's load does not lower them.
- rpc: the same asyncio load generator (C concurrent calls in each of W client processes) drives a
  bare gRPC echo server and MakeMove on the real server, alternately, GE_BENCH_RPC_ROUNDS times (moves
  precomputed from seeded random games, so the client does no game work); ratio = median move_qps /
  median echo_qps; and each server's CPU per call, which does not depend on how the load generator
  and the server happened to share the two cores, and the load generator's (its share of them).
  Latency: open-loop at half the measured peak move rate, p50/p99 over every call, from one client
  process (the same number of calls in flight): half load needs only one, and a second would compete
  with the server for the two cores and measure the scheduler rather than the server. Each drive also
  records the machine's steal (/proc/stat): the share of CPU time a hypervisor gave to other guests,
  which slows both servers and the load generator unevenly (a run with much of it says little).
- instructions: echo and MakeMove each served under valgrind's callgrind, counted only while one client
  process keeps 1 call in flight for GE_BENCH_INSTRUCTIONS_S (20): the serving process's instructions per
  call and their ratio, which other load and a VM's steal do not change (skipped without valgrind).
- memory: server RSS growth over 10,000 live Pompeii games (3 seats, 5 moves each), per game.
- snapshot: in-process Store with those 10,000 games: snapshot() and recover() times.
- scale: per size in GE_BENCH_SCALE_GAMES (10,000 and 100,000): a data dir of that many live Pompeii
  games (3 seats, 5 moves each) written through the Store; a fresh process restores it: its RSS growth
  per game, the restore time, and the CPU time of one full collection over the restored games (what a
  replica would pay without its start-up freeze); then how each grows from the smallest size.
"""
from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "protos")]

from bench import reference  # noqa: E402
from engines import native, registry  # noqa: E402
from engines.ai import mcts  # noqa: E402
from engines.ai.policies import mcts_settings  # noqa: E402
from engines.core import play_random  # noqa: E402
from gameengine import codecs  # noqa: E402
from server import wire  # noqa: E402

ENGINE_S = float(os.environ.get("GE_BENCH_ENGINE_S", "3"))
RPC_S = float(os.environ.get("GE_BENCH_RPC_S", "8"))
RPC_ROUNDS = int(os.environ.get("GE_BENCH_RPC_ROUNDS", "3"))
HALF_WARMUP_S = 1.0  # the half-load client's first second, not counted: its own start-up, not the server's tail
LIVE_GAMES = int(os.environ.get("GE_BENCH_GAMES", "10000"))
SCALE_GAMES = [int(n) for n in os.environ.get("GE_BENCH_SCALE_GAMES", f"{LIVE_GAMES},100000").split(",") if n]
WORKERS = int(os.environ.get("GE_BENCH_CLIENT_PROCS", "2"))
CONCURRENCY = int(os.environ.get("GE_BENCH_CONCURRENCY", "32"))


# ---- engine -------------------------------------------------------------------
def reference_rate() -> float:
    """The pure-Python reference loop's decisions/s (bench/reference.py), over a short window."""
    return reference.decisions_per_s(min(ENGINE_S, 1.0))


def engine_figures() -> dict:
    """Per game: random decisions/s by seat count and ISMCTS iterations/s at the opening, per second of
    the thread's CPU time (so other processes' load does not count), each also as a ratio to the
    reference loop measured just before and after it (so the machine cancels out), and
    that ratio against bench/baseline.json (the same figures for the code before issue 22)."""
    baseline_file = ROOT / "bench" / "baseline.json"
    baseline = json.loads(baseline_file.read_text())["engine"] if baseline_file.exists() else {}
    out = {}
    print(f"engines: {native.build()}", flush=True)
    for game in registry.GAME_IDS:
        engine = registry.game(game)
        per_seats = {}
        for n in registry.tested_seats(game):
            rng = random.Random(n)
            before = reference_rate()
            games, moves, t0 = 0, 0, time.thread_time()  # CPU time, as the reference's
            while time.thread_time() - t0 < ENGINE_S:
                state = engine.new_state(n, {}, rng.randrange(2**32))
                moves += len(play_random(engine, state, rng))
                games += 1
            dt = time.thread_time() - t0
            ref = (before + reference_rate()) / 2
            per_seats[str(n)] = {"games_per_s": round(games / dt, 2), "moves_per_s": round(moves / dt, 1),
                                 "to_reference": round(moves / dt / ref, 4)}
        n = registry.tested_seats(game)[1] if len(registry.tested_seats(game)) > 1 else registry.tested_seats(game)[0]
        state = engine.new_state(n, {}, 1)
        seat = mcts.actor(engine, state)
        c = codecs.codec(game)
        view = c.view_from_proto(c.view_to_proto(engine.view(state, seat)))
        before = reference_rate()
        t0 = time.thread_time()
        result = mcts.search(engine, view, seat, n, random.Random(1), time_ms=ENGINE_S * 1000,
                             **mcts_settings(game))  # exactly what the mcts bot runs
        sims = result.iterations / (time.thread_time() - t0)  # per CPU second: its budget is wall time
        ref = (before + reference_rate()) / 2
        figures = {"games_per_s": per_seats[str(registry.tested_seats(game)[0])]["games_per_s"],
                   "by_seats": per_seats, "mcts_sims_per_s": round(sims, 1), "mcts_seats": n,
                   "mcts_to_reference": round(sims / ref, 6), "reference_per_s": round(ref)}
        figures["speedup"] = speedups(figures, baseline.get(game))
        out[game] = figures
        print(f"engine {game}: {per_seats} mcts {sims:.0f}/s; vs baseline {figures['speedup']}", flush=True)
    return out


def speedups(now: dict, before: dict | None) -> dict:
    """Ratio-to-reference now ÷ the same ratio in bench/baseline.json, per seat count and for MCTS."""
    if not before:
        return {}
    out = {f"{n}p": round(v["to_reference"] / before["by_seats"][n]["to_reference"], 2)
           for n, v in now["by_seats"].items() if n in before["by_seats"]}
    out["mcts"] = round(now["mcts_to_reference"] / before["mcts_to_reference"], 2)
    return out


# ---- rpc ------------------------------------------------------------------------
def start(module: str, port: int, data_dir: str, under: tuple[str, ...] = (), **env) -> subprocess.Popen:
    """`python -m module` serving on `port` (`under`: a command to run it under, e.g. valgrind)."""
    e = dict(os.environ, GE_PORT=str(port), GE_DATA_DIR=data_dir, GE_METRICS_PORT="0", GE_LOG_LEVEL="warning",
             GE_RATE_LIMIT_PER_S="0", GE_RATE_LIMIT_PER_ADDRESS_S="0", GE_CREATES_PER_MIN="0",
             GE_CREATES_TOTAL_PER_S="0", GE_LIVE_GAMES="0",
             GE_LIVE_GAMES_PER_CLIENT="0", GE_LIVE_GAMES_PER_ADDRESS="0",
             PYTHONPATH=f"{ROOT}:{ROOT / 'protos'}", **env)
    out = subprocess.DEVNULL if under else None  # valgrind's own lines would fill the bench's output
    return subprocess.Popen([*under, sys.executable, "-m", module], cwd=ROOT, env=e, stdout=out, stderr=out)


def wait_ready(target: str, timeout: float = 30) -> None:
    import grpc
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with grpc.insecure_channel(target) as ch:
                grpc.channel_ready_future(ch).result(timeout=1)
                return
        except Exception:
            time.sleep(0.2)
    raise RuntimeError(f"{target} not ready")


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scripted_games(count: int, seed: int) -> list[dict]:
    """Seeded random Pompeii games played locally: the client replays them over RPC."""
    engine = registry.game("pompeii")
    c = codecs.codec("pompeii")
    rng = random.Random(seed)
    games = []
    for _i in range(count):
        s = rng.randrange(2**32)
        log = play_random(engine, engine.new_state(3, {}, s), random.Random(s))
        games.append({"seed": s, "moves": [(seat, c.move_to_proto(m).SerializeToString()) for seat, m in log]})
    return games


def move_request(game_id: bytes, token: bytes, version: int, move: bytes) -> bytes:
    """A MakePompeiiMoveRequest's bytes from its fields' encodings (server/wire.py): what the echo
    loop's client does per call (nothing) and the move loop's differ only by this join."""
    return b"".join((game_id, token, b"\x18" + wire.varint(version) if version else b"", move))


def load_worker(args) -> tuple[list[float], float]:
    """One client process: C concurrent loops for `warmup_s + seconds`; returns the latencies (s) of
    the calls sent after the warm-up (a new process's new connection: its first calls wait for the
    client's own start, not the server), and the CPU seconds its loops took."""
    kind, target, seconds, concurrency, rate, payload, warmup_s = args
    import grpc

    from gameengine.v1 import pompeii_pb2, pompeii_pb2_grpc

    async def main():
        latencies: list[float] = []
        ch = grpc.aio.insecure_channel(target)
        deadline = time.perf_counter() + warmup_s + seconds
        interval = concurrency / rate if rate else 0.0
        start = time.perf_counter()
        counted = start + warmup_s

        async def stagger(i: int) -> float:
            """Open-loop pacing: spread the loops' send times evenly instead of in bursts."""
            first = start + (interval * i / concurrency if interval else 0.0)
            await asyncio.sleep(max(0.0, first - time.perf_counter()))
            return first
        if kind == "echo":
            call = ch.unary_unary("/bench.Echo/Echo")
            body = pompeii_pb2.MakePompeiiMoveRequest(game_id="x" * 16, token="t" * 32, expected_version=1,
                                                       idempotency_key="k" * 32).SerializeToString()

            async def loop(i):
                nxt = await stagger(i)
                while time.perf_counter() < deadline:
                    t = time.perf_counter()
                    await call(body)
                    if t >= counted:
                        latencies.append(time.perf_counter() - t)
                    if interval:
                        nxt += interval
                        await asyncio.sleep(max(0.0, nxt - time.perf_counter()))
            await asyncio.gather(*(loop(i) for i in range(concurrency)))
        else:
            stub = pompeii_pb2_grpc.PompeiiServiceStub(ch)
            # Bytes in and out, as the echo loop: the figure is the server's, not the client's protobuf work.
            make_move = ch.unary_unary("/gameengine.v1.PompeiiService/MakePompeiiMove")
            games = payload
            moves = {id(g): [wire.length_delimited(b"\x2a", m) for _, m in g["moves"]] for g in games}

            async def loop(i):
                nxt = await stagger(i)
                g = 0
                while time.perf_counter() < deadline:
                    script = games[(i + g * concurrency) % len(games)]
                    g += 1
                    resp = await stub.CreatePompeiiGame(pompeii_pb2.CreatePompeiiGameRequest(seats=3,
                                                                                              seed=script["seed"]))
                    game_id = wire.length_delimited(b"\x0a", resp.game_id.encode())
                    tokens = [wire.length_delimited(b"\x12", t.token.encode()) for t in resp.seat_tokens]
                    for version, ((seat, _), move) in enumerate(zip(script["moves"], moves[id(script)])):
                        if time.perf_counter() >= deadline:
                            break
                        # MakePompeiiMoveRequest(game_id, token, expected_version, move), joined as its
                        # serialization writes it (tests/server/test_issue22_move_path.py checks the bytes)
                        body = move_request(game_id, tokens[seat], version, move)
                        t = time.perf_counter()
                        await make_move(body)
                        if t >= counted:
                            latencies.append(time.perf_counter() - t)
                        if interval:
                            nxt += interval
                            await asyncio.sleep(max(0.0, nxt - time.perf_counter()))
            await asyncio.gather(*(loop(i) for i in range(concurrency)))
        await ch.close()
        return latencies

    import uvloop  # the load generator's own overhead should stay small next to the server's
    cpu = time.process_time()
    latencies = uvloop.run(main())
    return latencies, time.process_time() - cpu


def drive(kind: str, target: str, seconds: float, rate: float = 0.0, payload=None, workers: int = WORKERS,
          warmup_s: float = 0.0, in_flight: int = CONCURRENCY * WORKERS) -> dict:
    """`workers` client processes with `in_flight` calls in flight in all; calls sent in the first
    `warmup_s` are not counted."""
    per_worker_rate = rate / workers if rate else 0.0
    concurrency = in_flight // workers
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(workers) as pool:
        t0 = time.perf_counter()
        job = (kind, target, seconds, concurrency, per_worker_rate, payload, warmup_s)
        parts = pool.map(load_worker, [job] * workers)
        dt = time.perf_counter() - t0
    lat = sorted(x for p, _ in parts for x in p)
    client_cpu_s = sum(cpu for _, cpu in parts)  # over the warm-up too: a share, not a count
    return {"qps": len(lat) / seconds, "p50_ms": 1000 * lat[len(lat) // 2],
            "p99_ms": 1000 * lat[int(len(lat) * 0.99)], "calls": len(lat), "wall_s": dt,
            "client_cpu_us_per_call": 1e6 * client_cpu_s / max(1, len(lat)), "client_cpu_s": client_cpu_s}


def cpu_s(pid: int) -> float:
    """The process's user + system CPU seconds so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


Ticks = tuple[int, int, int]  # (steal, busy, all) CPU ticks of the whole machine


def machine_ticks(stat: str | None = None) -> Ticks:
    """(steal, busy, all) CPU ticks of the whole machine so far, from /proc/stat's first line; busy is
    user, nice, system, irq and softirq (not idle, iowait or steal)."""
    line = (stat if stat is not None else Path("/proc/stat").read_text()).splitlines()[0].split()
    ticks = [int(x) for x in line[1:9]]  # user nice system idle iowait irq softirq steal (guest is in user)
    return ticks[7], sum(ticks[:3]) + ticks[5] + ticks[6], sum(ticks)


def steal_pct(before: Ticks, after: Ticks) -> float:
    """The share of the machine's CPU time the hypervisor gave to others between two machine_ticks():
    a run with much of it measured the host, not the code."""
    steal, total = after[0] - before[0], after[2] - before[2]
    return round(100 * steal / total, 1) if total > 0 else 0.0


def others_pct(before: Ticks, after: Ticks, own_s: float) -> float:
    """The share of the machine's CPU time that processes other than the measured ones (`own_s` CPU
    seconds: the server and its load generator) used between two machine_ticks(): a stray process on
    one of the two cores shows as ~40-50 %. It includes the load processes' own start-up (a few %)."""
    tick = os.sysconf("SC_CLK_TCK")
    busy, total = (after[1] - before[1]) / tick, (after[2] - before[2]) / tick
    return round(max(0.0, 100 * (busy - own_s) / total), 1) if total > 0 else 0.0


def timed_drive(pid: int, kind: str, target: str, payload=None, **kw) -> dict:
    """A drive of RPC_S (a peak one unless `kw` sets a rate), with the server's CPU seconds per call and
    the machine's steal and other processes' share over it."""
    c0, m0 = cpu_s(pid), machine_ticks()
    d = drive(kind, target, RPC_S, payload=payload, **kw)
    server_s = cpu_s(pid) - c0
    m1 = machine_ticks()
    d["server_cpu_us_per_call"] = 1e6 * server_s / max(1, d["calls"])
    d["steal_pct"] = steal_pct(m0, m1)
    d["others_pct"] = others_pct(m0, m1, server_s + d["client_cpu_s"])
    return d


def rpc_figures() -> dict:
    """Echo and MakeMove peaks alternate RPC_ROUNDS times against two servers started side by side, so a
    slow spell of the machine (the load generator shares its two cores) lands on both; the ratio is of
    the medians. The server's CPU per call is the load-independent view of the same comparison."""
    games = scripted_games(64, 5)
    echo_port, port = free_port(), free_port()
    echo_target, target = f"127.0.0.1:{echo_port}", f"127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as data:
        echo = start("bench.echo_server", echo_port, tempfile.mkdtemp())
        srv = start("server.main", port, data)
        try:
            wait_ready(echo_target)
            wait_ready(target)
            time.sleep(1)
            drive("echo", echo_target, 1.0)  # warm-up
            drive("move", target, 1.0, payload=games)
            rounds = []
            for _ in range(RPC_ROUNDS):
                e = timed_drive(echo.pid, "echo", echo_target)
                m = timed_drive(srv.pid, "move", target, payload=games)
                rounds.append((e, m))
                print(f"echo {e['qps']:.0f} qps, move {m['qps']:.0f} qps: {m['qps'] / e['qps']:.2f} "
                      f"(steal {e['steal_pct']} / {m['steal_pct']} %, other processes {e['others_pct']} / "
                      f"{m['others_pct']} %)", flush=True)
            echo_qps = statistics.median(e["qps"] for e, _ in rounds)
            move_qps = statistics.median(m["qps"] for _, m in rounds)
            half = timed_drive(srv.pid, "move", target, payload=games, rate=move_qps / 2, workers=1,
                               warmup_s=HALF_WARMUP_S)
            print(f"move at half load ({half['qps']:.0f} qps): p50 {half['p50_ms']:.2f} ms p99 {half['p99_ms']:.2f} ms "
                  f"(steal {half['steal_pct']} %, other processes {half['others_pct']} %)")
        finally:
            for proc in (echo, srv):
                proc.terminate()
                proc.wait()
    echo_cpu = statistics.median(e["server_cpu_us_per_call"] for e, _ in rounds)
    move_cpu = statistics.median(m["server_cpu_us_per_call"] for _, m in rounds)
    echo_client = statistics.median(e["client_cpu_us_per_call"] for e, _ in rounds)
    move_client = statistics.median(m["client_cpu_us_per_call"] for _, m in rounds)
    return {"echo_qps": round(echo_qps, 1), "move_qps": round(move_qps, 1),
            "move_to_echo_ratio": round(move_qps / echo_qps, 3),
            "rounds": [{"echo_qps": round(e["qps"], 1), "move_qps": round(m["qps"], 1),
                        "ratio": round(m["qps"] / e["qps"], 3),
                        "steal_pct": {"echo": e["steal_pct"], "move": m["steal_pct"]},
                        "others_pct": {"echo": e["others_pct"], "move": m["others_pct"]}} for e, m in rounds],
            "server_cpu_us_per_call": {"echo": round(echo_cpu, 1), "move": round(move_cpu, 1),
                                       "echo_to_move": round(echo_cpu / move_cpu, 3)},
            # The load generator shares the two cores: a call's rate is bounded by client + server CPU.
            "client_cpu_us_per_call": {"echo": round(echo_client, 1), "move": round(move_client, 1)},
            "p50_ms": round(half["p50_ms"], 3),
            "p99_ms": round(half["p99_ms"], 3), "half_load_qps": round(half["qps"], 1), "half_load_client_procs": 1,
            "half_load_warmup_s": HALF_WARMUP_S, "half_load_steal_pct": half["steal_pct"],
            "half_load_others_pct": half["others_pct"],
            "client_procs": WORKERS, "concurrency": CONCURRENCY,
            "fsync": os.environ.get("GE_FSYNC", "interval"), "event_loop": os.environ.get("GE_EVENT_LOOP", "uvloop")}


INSTRUCTIONS_S = float(os.environ.get("GE_BENCH_INSTRUCTIONS_S", "20"))
INSTRUCTIONS_IN_FLIGHT = 1  # one call at a time: how many calls share a loop wake-up does not vary


def instructions_per_call(module: str, kind: str, payload=None) -> dict:
    """A server run under callgrind with counting off until it is warm; then counted while one client
    process keeps INSTRUCTIONS_IN_FLIGHT calls in flight for INSTRUCTIONS_S: every instruction of the
    serving process (the event loop, gRPC's poller, the journal's threads; not the kernel's) per call."""
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        out = Path(data) / "callgrind.out"
        srv = start(module, port, tempfile.mkdtemp(dir=data), under=(
            "valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}"),
            PYTHONHASHSEED="0", GE_SNAPSHOT_INTERVAL_S="100000", GE_HIBERNATE_AFTER_S="100000")
        try:
            wait_ready(f"127.0.0.1:{port}", timeout=600)
            drive(kind, f"127.0.0.1:{port}", 3.0, payload=payload, workers=1, in_flight=INSTRUCTIONS_IN_FLIGHT)
            subprocess.run(["callgrind_control", "--instr=on", str(srv.pid)], check=True, capture_output=True)
            d = drive(kind, f"127.0.0.1:{port}", INSTRUCTIONS_S, payload=payload, workers=1,
                      in_flight=INSTRUCTIONS_IN_FLIGHT)
            subprocess.run(["callgrind_control", "--instr=off", str(srv.pid)], check=True, capture_output=True)
        finally:
            srv.terminate()
            srv.wait()
        totals = next(int(line.split()[1]) for line in out.read_text().splitlines() if line.startswith("totals:"))
    return {"per_call": round(totals / d["calls"]), "calls": d["calls"]}


def instruction_figures() -> dict:
    """Instructions per call, echo and MakeMove (`instructions_per_call`): unlike rates and CPU time they
    do not move with other processes' load or a hypervisor's steal, so two commits compare on any machine
    with valgrind; what they leave out is how fast the machine runs them (caches, the kernel)."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("instructions: skipped (valgrind not found; Debian's package valgrind)", flush=True)
        return {"skipped": "valgrind not found"}
    echo = instructions_per_call("bench.echo_server", "echo")
    move = instructions_per_call("server.main", "move", payload=scripted_games(16, 5))
    out = {"echo_per_call": echo["per_call"], "move_per_call": move["per_call"],
           "echo_to_move": round(echo["per_call"] / move["per_call"], 3),
           "calls": {"echo": echo["calls"], "move": move["calls"]}, "seconds": INSTRUCTIONS_S,
           "in_flight": INSTRUCTIONS_IN_FLIGHT,
           "valgrind": subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip()}
    print(f"instructions per call (callgrind): echo {out['echo_per_call']:,}, MakeMove {out['move_per_call']:,}: "
          f"{out['echo_to_move']:.2f}", flush=True)
    return out


# ---- memory and snapshots ----------------------------------------------------------
def rss_bytes(pid: int) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def memory_figures() -> dict:
    import grpc

    from gameengine.v1 import pompeii_pb2, pompeii_pb2_grpc
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        srv = start("server.main", port, data, GE_SNAPSHOT_INTERVAL_S="100000")
        try:
            wait_ready(f"127.0.0.1:{port}")
            with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
                stub = pompeii_pb2_grpc.PompeiiServiceStub(ch)
                scripts = scripted_games(20, 9)
                for i in range(50):  # warm-up: allocator arenas, imports
                    stub.CreatePompeiiGame(pompeii_pb2.CreatePompeiiGameRequest(seats=3, seed=i))
                time.sleep(0.5)
                base = rss_bytes(srv.pid)
                for i in range(LIVE_GAMES):
                    script = scripts[i % len(scripts)]
                    r = stub.CreatePompeiiGame(pompeii_pb2.CreatePompeiiGameRequest(seats=3, seed=script["seed"]))
                    tokens = [t.token for t in r.seat_tokens]
                    for v, (seat, move) in enumerate(script["moves"][:5]):
                        stub.MakePompeiiMove(pompeii_pb2.MakePompeiiMoveRequest(
                            game_id=r.game_id, token=tokens[seat], expected_version=v,
                            move=pompeii_pb2.PompeiiMove.FromString(move)))
                time.sleep(0.5)
                grown = rss_bytes(srv.pid) - base
        finally:
            srv.terminate()
            srv.wait()
    per_game = grown / LIVE_GAMES
    print(f"memory: {per_game / 1024:.1f} KiB per live Pompeii game ({LIVE_GAMES} games)", flush=True)
    return {"bytes_per_live_game": round(per_game), "games": LIVE_GAMES, "game": "pompeii", "seats": 3,
            "moves_per_game": 5}


class LoopStalls:
    """The longest the event loop went without running a ready task while a coroutine ran: what a
    move arriving then would have waited."""
    TICK_S = 0.0005

    def __init__(self) -> None:
        self.worst = 0.0

    async def during(self, work):
        done = False

        async def ticker():
            while not done:
                t = time.perf_counter()
                await asyncio.sleep(self.TICK_S)
                self.worst = max(self.worst, time.perf_counter() - t - self.TICK_S)
        tick = asyncio.create_task(ticker())
        try:
            return await work
        finally:
            done = True
            await tick


def snapshot_figures() -> dict:
    from server import snapshots
    from server.records import MoveMade
    from server.store import Store

    async def main(data):
        store = Store(data, fsync="never")
        store.recover()
        scripts = scripted_games(20, 11)
        c = codecs.codec("pompeii")
        for i in range(LIVE_GAMES):
            script = scripts[i % len(scripts)]
            rec, _ = store.create("pompeii", 3, {}, script["seed"], {})
            for seat, move in script["moves"][:5]:
                store.commit(rec, [MoveMade(seat, c.move_from_proto(c.msg("Move").FromString(move)))])
        stalls = LoopStalls()
        snap = await stalls.during(store.snapshot())
        store.close()
        t0 = time.perf_counter()
        again = Store(data)
        counts = again.recover()
        restore = time.perf_counter() - t0
        again.close()
        assert counts["games"] == LIVE_GAMES
        return {"save_s": round(snap["save_s"], 3), "restore_s": round(restore, 3), "games": LIVE_GAMES,
                "loop_stall_max_ms": round(1000 * stalls.worst, 2),
                "snapshot_bytes": os.path.getsize(snapshots.path(Path(data), snapshots.listed(Path(data))[-1]))}

    with tempfile.TemporaryDirectory() as data:
        out = asyncio.run(main(data))
    print(f"snapshot: save {out['save_s']} s (event loop held at most {out['loop_stall_max_ms']} ms), "
          f"restore {out['restore_s']} s for {out['games']} games", flush=True)
    return out


def scale_build(data: str, games: int) -> None:
    """`python -m bench.run _scale_build DIR N`: N live Pompeii games through the Store, snapshotted."""
    from server.records import MoveMade
    from server.store import Store

    store = Store(data, fsync="never")
    store.recover()
    scripts = scripted_games(20, 11)
    c = codecs.codec("pompeii")
    for i in range(games):
        script = scripts[i % len(scripts)]
        rec, _ = store.create("pompeii", 3, {}, script["seed"], {})
        for seat, move in script["moves"][:5]:
            store.commit(rec, [MoveMade(seat, c.move_from_proto(c.msg("Move").FromString(move)))])
    asyncio.run(store.snapshot())
    store.close()


def scale_restore(data: str) -> None:
    """`python -m bench.run _scale_restore DIR`: restore in this fresh process; prints its figures."""
    import gc

    from server.store import Store
    gc.collect()
    base = rss_bytes(os.getpid())
    t0, cpu0 = time.perf_counter(), time.process_time()
    store = Store(data)
    counts = store.recover()
    restore, restore_cpu = time.perf_counter() - t0, time.process_time() - cpu0
    grown = rss_bytes(os.getpid()) - base
    cpu = time.process_time()
    gc.collect()
    full_gc_ms = (time.process_time() - cpu) * 1000
    rss, tracked = rss_bytes(os.getpid()), len(gc.get_objects())
    sweeps = sweep_figures(store)
    # A snapshot's games are folded through their engine when first read (GameRecord.settle):
    # what reading every game once costs, and the memory of games that all have been read.
    cpu = time.process_time()
    for rec in store.games.values():
        rec.settle()
    settle_cpu = time.process_time() - cpu
    settled = rss_bytes(os.getpid()) - base
    store.close()
    print(json.dumps({"games": counts["games"], "restore_s": round(restore, 3), "restore_cpu_s": round(restore_cpu, 3),
                      "rss_bytes": rss, "bytes_per_game": round(grown / counts["games"]), "tracked_objects": tracked,
                      "full_gc_cpu_ms": round(full_gc_ms, 1), "settle_all_cpu_s": round(settle_cpu, 3),
                      "rss_all_settled_bytes": rss_bytes(os.getpid()),
                      "bytes_per_settled_game": round(settled / counts["games"]), **sweeps}))


def sweep_figures(store) -> dict:
    """A running server's periodic passes over the games (`Store.sweep`: a snapshot, hibernation, eviction
    and lobby expiry, side by side) once over every restored game, after start-up's freeze: how long they
    took, the event loop's longest stall meanwhile (what a call arriving then waited), and a full collection
    after them (an object a pass left per game is one more for every full collection to visit)."""
    import gc

    from server import lobby
    from server.service import GameCore
    core = GameCore(store)
    gc.freeze()

    async def passes():
        await asyncio.gather(store.snapshot(), store.hibernate_idle(3600, core.is_over),
                             store.evict_finished(86400, core.is_over), lobby.expire(core, time.time()))
    stalls = LoopStalls()
    t0 = time.perf_counter()
    asyncio.run(stalls.during(passes()))
    took = time.perf_counter() - t0
    cpu = time.process_time()
    gc.collect()
    full_gc_ms = (time.process_time() - cpu) * 1000
    gc.unfreeze()
    return {"sweeps_s": round(took, 3), "sweeps_worst_stall_ms": round(stalls.worst * 1000, 2),
            "full_gc_after_sweeps_cpu_ms": round(full_gc_ms, 1)}


def scale_figures() -> dict:
    """Restore time and memory per live game at each size of GE_BENCH_SCALE_GAMES, and how they grow."""
    out: dict = {"game": "pompeii", "seats": 3, "moves_per_game": 5, "by_games": {}}
    for n in SCALE_GAMES:
        with tempfile.TemporaryDirectory() as data:
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "bench.run", "_scale_build", data, str(n)], cwd=ROOT, check=True)
            built = time.perf_counter() - t0
            r = subprocess.run([sys.executable, "-m", "bench.run", "_scale_restore", data], cwd=ROOT, check=True,
                               capture_output=True, text=True)
        fig = json.loads(r.stdout.strip().splitlines()[-1])
        fig["build_s"] = round(built, 1)
        out["by_games"][str(n)] = fig
        print(f"scale {n} games: restore {fig['restore_s']} s ({fig['restore_cpu_s']} s CPU), "
              f"{fig['bytes_per_game'] / 1024:.1f} KiB per game, "
              f"RSS {fig['rss_bytes'] / 2**20:.0f} MiB, full collection {fig['full_gc_cpu_ms']} ms CPU; every game "
              f"read once: {fig['settle_all_cpu_s']} s CPU, {fig['bytes_per_settled_game'] / 1024:.1f} KiB per game, "
              f"RSS {fig['rss_all_settled_bytes'] / 2**20:.0f} MiB; the periodic sweeps once over every game: "
              f"{fig['sweeps_s']} s, the loop's longest stall {fig['sweeps_worst_stall_ms']} ms, a full collection "
              f"after them {fig['full_gc_after_sweeps_cpu_ms']} ms CPU", flush=True)
    sizes = sorted(out["by_games"], key=int)
    if len(sizes) > 1:
        small, large = out["by_games"][sizes[0]], out["by_games"][sizes[-1]]
        out["growth"] = {"games": round(int(sizes[-1]) / int(sizes[0]), 1),
                         "restore_s": round(large["restore_s"] / small["restore_s"], 2),
                         "restore_cpu_s": round(large["restore_cpu_s"] / small["restore_cpu_s"], 2),
                         "bytes_per_game": round(large["bytes_per_game"] / small["bytes_per_game"], 2),
                         "full_gc_cpu_ms": round(large["full_gc_cpu_ms"] / max(small["full_gc_cpu_ms"], 0.1), 2)}
    return out


def write_baseline() -> None:
    """`python -m bench.run baseline`: the engine figures of the code checked out now become
    bench/baseline.json, the reference that later runs' "speedup" figures divide by."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    (ROOT / "bench" / "baseline.json").unlink(missing_ok=True)
    figures = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "commit": commit,
               "command": "python -m bench.run baseline", "engine": engine_figures()}
    (ROOT / "bench" / "baseline.json").write_text(json.dumps(figures, indent=2) + "\n")


def main() -> None:
    """`python -m bench.run [engine rpc memory snapshot]`: all parts by default. A partial
    run prints its figures but leaves bench/results.json alone."""
    if sys.argv[1:] == ["baseline"]:
        return write_baseline()
    if sys.argv[1:2] == ["_scale_build"]:
        return scale_build(sys.argv[2], int(sys.argv[3]))
    if sys.argv[1:2] == ["_scale_restore"]:
        return scale_restore(sys.argv[2])
    parts = sys.argv[1:] or ["engine", "rpc", "instructions", "memory", "snapshot", "scale"]
    results = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}, "engines": native.build(),
               "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "command": "make bench"}
    steps = {"engine": engine_figures, "rpc": rpc_figures, "instructions": instruction_figures,
             "memory": memory_figures, "snapshot": snapshot_figures, "scale": scale_figures}
    for part in parts:
        results[part] = steps[part]()
    if sys.argv[1:]:
        print(json.dumps({k: results[k] for k in parts if k != "engine"}, indent=2))
        return
    out = ROOT / "bench" / "results.json"
    out.write_text(json.dumps(results, indent=2))
    print(json.dumps({k: results[k] for k in ("rpc", "instructions", "memory", "snapshot", "scale")}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
