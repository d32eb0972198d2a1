"""Crash loop: kill -9 the server under bot load, restart it, check nothing acknowledged is lost.

    python -m bench.crashloop --games 40 --kills 5 --interval 1.5

Bot threads play random legal moves in every game (all four games, round robin).
Each acknowledged move is remembered. Every `interval` seconds the server gets
SIGKILL and is restarted on the same data directory; then every game's log must
start with exactly the acknowledged moves. Finally every game plays to its end.
Loopback only; bounded by --kills and stops by itself. Exit code 0 = clean.
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "protos")]

import grpc  # noqa: E402

from clients.sdk import Client, Refused  # noqa: E402
from engines import registry  # noqa: E402
from tests.conftest import ServerProcess  # noqa: E402


class Player(threading.Thread):
    """Plays one game with random legal moves, surviving restarts; records acknowledgements."""

    def __init__(self, target: str, game: str, seed: int, stop: threading.Event):
        super().__init__(daemon=True)
        self.target, self.game, self.seed, self.stop = target, game, seed, stop
        self.acked: list[tuple[int, bytes]] = []  # (seat, serialized move) per acknowledged version
        self.errors: list[str] = []
        client = self._client()
        self.game_id, self.tokens = client.create(registry.typical_seats(game), seed=seed)
        client.close()

    def _client(self) -> Client:
        return Client(self.target, self.game)

    def run(self) -> None:
        rng = random.Random(self.seed)
        client = self._client()
        while not self.stop.is_set():
            try:
                status = client.status(self.game_id)
                if status.over:
                    return
                actor = next(s for s in status.seats_to_act if status.acts(s))
                seat = client.seat(self.game_id, actor, self.tokens[actor])
                move = rng.choice(seat.legal())
                seat.move(move, expected_version=status.version)  # retried with one key across restarts
                if len(self.acked) == status.version:
                    self.acked.append((actor, client.codec.move_to_proto(move).SerializeToString()))
            except Refused as e:
                if e.code not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED,
                                  grpc.StatusCode.DEADLINE_EXCEEDED):
                    self.errors.append(f"{e.code.name}: {e.message}")
                    return
                time.sleep(0.05)
            except grpc.RpcError:
                time.sleep(0.05)

    def verify(self) -> list[str]:
        acked = list(self.acked)  # before reading the log: the bot may get more acks meanwhile
        client = self._client()
        log = client.spectator(self.game_id).log()
        problems = []
        if len(log.entries) < len(acked):
            problems.append(f"{self.game} {self.game_id}: {len(acked)} acknowledged, {len(log.entries)} kept")
        for i, (seat, move) in enumerate(acked[: len(log.entries)]):
            e = log.entries[i]
            if e.seat != seat or (not e.withheld and e.move.SerializeToString() != move):
                problems.append(f"{self.game} {self.game_id}: move {i + 1} differs after restart")
                break
        client.close()
        return problems


def run(games: int, kills: int, interval: float, data_dir: Path) -> list[str]:
    server = ServerProcess(data_dir, GE_SNAPSHOT_INTERVAL_S="1.5").start()
    gids = list(registry.GAME_IDS)
    stop = threading.Event()
    players = [Player(server.target, gids[i % len(gids)], 1000 + i, stop) for i in range(games)]
    for p in players:
        p.start()
    problems: list[str] = []
    for k in range(kills):
        time.sleep(interval)
        server.kill9()
        server.start()
        for p in players:
            problems += p.verify()
        print(f"kill {k + 1}/{kills}: {sum(len(p.acked) for p in players)} moves acknowledged, "
              f"{len(problems)} problems", flush=True)
    # let every game play to its end, no more kills
    deadline = time.time() + 600
    for p in players:
        p.join(timeout=max(1, deadline - time.time()))
        if p.is_alive():
            problems.append(f"{p.game} {p.game_id}: did not finish")
        problems += [f"{p.game} {p.game_id}: {e}" for e in p.errors]
        problems += p.verify()
        if not p._client().status(p.game_id).over and not p.errors:
            problems.append(f"{p.game} {p.game_id}: not over")
    stop.set()
    server.stop()
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--kills", type=int, default=5)
    ap.add_argument("--interval", type=float, default=1.5)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        problems = run(args.games, args.kills, args.interval, Path(d))
    for p in problems:
        print("PROBLEM", p)
    print("clean" if not problems else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
