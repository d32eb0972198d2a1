"""Build tests/storage/fixtures/legacy-a4e5322/: a data dir written by the release before the
protobuf format (commit a4e5322: pickle journal + snapshot.pickle), and expected.json.

Run it with that release's tree first on the path (it drives that release's server and reads the
dir back with that release's Store), e.g.:

    git archive a4e5322 | tar -x -C /tmp/release && (cd /tmp/release && make stubs)
    cd /tmp/release && PYTHONPATH=/tmp/release:/tmp/release/protos \
        .venv/bin/python /path/to/tests/storage/make_legacy_fixture.py OUT_DIR

What it writes: every game type, moves before and after a snapshot (so the dir holds a
snapshot.pickle and a journal segment), a clocked game the referee forfeits and plays out,
an adjudicated game, then kill -9. expected.json is what that release recovers from the dir.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from clients.sdk import Client
from gameengine import codecs


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(data_dir: Path, port: int) -> subprocess.Popen:
    env = dict(os.environ, GE_PORT=str(port), GE_METRICS_PORT="0", GE_WEB_PORT="0", GE_DATA_DIR=str(data_dir),
               GE_SNAPSHOT_INTERVAL_S="3600", GE_REFEREE_TICK_S="0.05", GE_ADMIN_TOKEN="fixture-admin",
               GE_LOG_LEVEL="warning")
    proc = subprocess.Popen([sys.executable, "-m", "server.main"], env=env, stdout=subprocess.DEVNULL)
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        stub = health_pb2_grpc.HealthStub(ch)
        for _ in range(300):
            try:
                if stub.Check(health_pb2.HealthCheckRequest(), timeout=1).status == 1:
                    return proc
            except grpc.RpcError:
                time.sleep(0.1)
    raise RuntimeError("server did not start")


def play(client: Client, game_id: str, tokens: list[str], rng: random.Random, moves: int) -> None:
    seats = [client.seat(game_id, s, t) for s, t in enumerate(tokens)]
    status = seats[0].status()
    for _ in range(moves):
        if status.over:
            return
        actor = next(s for s in status.seats_to_act if status.acts(s))
        seats[actor].move(rng.choice(seats[actor].legal()), expected_version=status.version)
        status = seats[actor].last


def expected_from(data_dir: Path, tokens: dict[str, list[str]]) -> dict:
    """What this release recovers from the dir (read from a copy: recovery truncates a torn tail)."""
    from server.store import Store
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "d"
        shutil.copytree(data_dir, copy)
        store = Store(copy)
        store.recover()
        out = {}
        for gid, rec in store.games.items():
            codec = codecs.codec(rec.game)
            engine = rec.engine
            views = {str(s): json_format.MessageToDict(codec.view_to_proto(engine.view(rec.state, s)))
                     for s in [None, *range(rec.seats)]}
            out[gid] = {
                "game": rec.game, "seats": rec.seats, "seed": rec.seed, "version": rec.version,
                "options": rec.options, "referee": rec.referee, "tokens": tokens[gid],
                "log": [{"seat": e.seat, "move": json_format.MessageToDict(codec.move_to_proto(e.move)),
                         "by_referee": e.by_referee} for e in rec.log],
                "referee_events": [[v, dict(e.data)] for v, e in rec.events if e.kind == "referee"],
                "extra": rec.extra, "over": engine.is_over(rec.state) or "adjudication" in rec.extra,
                "views": views,
            }
        store.close()
        return out


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    data = out / "data"
    shutil.rmtree(data, ignore_errors=True)
    port = free_port()
    rng = random.Random(16)
    tokens: dict[str, list[str]] = {}
    proc = start(data, port)
    games = []
    for game, seats, n in (("pompeii", 3, 20), ("eruption", 2, 15), ("citadels", 4, 25), ("smallworld", 3, 15)):
        client = Client(f"127.0.0.1:{port}", game)
        gid, toks = client.create(seats, seed=rng.randrange(1000))
        tokens[gid] = toks
        play(client, gid, toks, rng, n)
        games.append((client, gid, toks))
    # A clocked game the referee forfeits seat by seat and plays out (forfeit, clock, referee events).
    cit = Client(f"127.0.0.1:{port}", "citadels")
    gid, toks = cit.create(2, seed=5, time_bank_ms=1, timeout_policy="forfeit")
    tokens[gid] = toks
    for _ in range(200):
        if cit.status(gid).over:
            break
        time.sleep(0.1)
    # An adjudicated game.
    pom = Client(f"127.0.0.1:{port}", "pompeii")
    gid, toks = pom.create(2, seed=7)
    tokens[gid] = toks
    play(pom, gid, toks, rng, 6)
    pom.adjudicate(gid, toks, "fixture", rollouts=20)
    proc.send_signal(signal.SIGTERM)  # graceful: snapshot.pickle, older segments deleted
    proc.wait(timeout=30)

    proc = start(data, port)
    for client, gid, toks in games:  # these moves live only in the journal
        play(client, gid, toks, rng, 5)
    sw = Client(f"127.0.0.1:{port}", "smallworld")
    gid, toks = sw.create(4, options={"necromancer": True}, seed=11)
    tokens[gid] = toks
    play(sw, gid, toks, rng, 8)
    time.sleep(0.3)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    (data / "server.log").unlink(missing_ok=True)
    expected = expected_from(data, tokens)
    (out / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    print(f"{len(expected)} games, files: {sorted(p.name for p in data.iterdir())}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
