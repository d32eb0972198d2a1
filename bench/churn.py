"""Memory under connection churn: server RSS growth over four 15-second waves in which 4 threads each open
a channel per game, play a full Pompeii game and send a stale (refused) move before every real one.
Finished games are evicted after 1 s, so RSS should stay flat: anything a game, a connection or a refusal
leaves behind (a reference cycle the collector cannot free, a per-game entry nobody removes, an unbounded
cache such as the move conversions of server/moveprotos.py) shows up as growth. Loopback only.

    python -m bench.churn
"""
from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "protos")]

import grpc  # noqa: E402

from bench import run as R  # noqa: E402
from gameengine.v1 import pompeii_pb2 as pb  # noqa: E402
from gameengine.v1 import pompeii_pb2_grpc  # noqa: E402


def rss_mb(pid: int) -> float:
    return R.rss_bytes(pid) / 2**20


def churn(target: str, seconds: float, games: list[dict]) -> None:
    deadline, n = time.time() + seconds, 0
    while time.time() < deadline:
        script, n = games[n % len(games)], n + 1
        with grpc.insecure_channel(target) as ch:
            stub = pompeii_pb2_grpc.PompeiiServiceStub(ch)
            r = stub.CreatePompeiiGame(pb.CreatePompeiiGameRequest(seats=3, seed=script["seed"]))
            tokens = [t.token for t in r.seat_tokens]
            for version, (seat, raw) in enumerate(script["moves"]):
                move = pb.PompeiiMove.FromString(raw)
                try:  # refused: stale version
                    stub.MakePompeiiMove(pb.MakePompeiiMoveRequest(
                        game_id=r.game_id, token=tokens[seat], expected_version=version + 5, move=move))
                except grpc.RpcError:
                    pass
                stub.MakePompeiiMove(pb.MakePompeiiMoveRequest(
                    game_id=r.game_id, token=tokens[seat], expected_version=version, move=move))


def main() -> None:
    games = R.scripted_games(16, 3)
    port = R.free_port()
    server = R.start("server.main", port, tempfile.mkdtemp(), GE_WEB_PORT="0", GE_FINISHED_TTL_S="1")
    target = f"127.0.0.1:{port}"
    try:
        R.wait_ready(target)
        churn(target, 5, games)  # warm-up
        time.sleep(2)
        base, growth = rss_mb(server.pid), []
        for _ in range(4):
            threads = [threading.Thread(target=churn, args=(target, 15, games)) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            time.sleep(2)
            growth.append(round(rss_mb(server.pid) - base, 1))
    finally:
        server.terminate()
        server.wait()
    print("server RSS growth (MB) after each wave:", growth)


if __name__ == "__main__":
    main()
