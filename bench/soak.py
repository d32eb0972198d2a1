"""Bounded soak: waves of hundreds of concurrent random-bot games over loopback.

    python -m bench.soak --concurrent 200 --waves 4

Each wave plays `concurrent` games at once (all four games, round robin) with
asyncio clients, seats driven through their own tokens. Finished games are
evicted after GE_FINISHED_TTL_S=2 s, so resident memory must stay flat from wave
to wave. Stops by itself; exit 0 = no errors and RSS growth under --max-growth.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "protos")]

import grpc  # noqa: E402

from bench.run import rss_bytes  # noqa: E402
from engines import registry  # noqa: E402
from gameengine import codecs  # noqa: E402
from tests.conftest import ServerProcess  # noqa: E402


async def play(channel, game: str, seed: int) -> int:
    c = codecs.codec(game)
    P = c.prefix
    stub = getattr(__import__(c.pb2.__name__ + "_grpc", fromlist=["_"]), f"{P}ServiceStub")(channel)
    pb = c.pb2
    rng = random.Random(seed)
    created = await getattr(stub, f"Create{P}Game")(getattr(pb, f"Create{P}GameRequest")(
        seats=registry.typical_seats(game),
                                                                                         seed=seed))
    tokens = [t.token for t in created.seat_tokens]
    status = created.status
    moves = 0
    while not status.over:
        actor = status.to_move if status.to_move in status.seats_to_act else status.seats_to_act[0]
        legal = await getattr(stub, f"List{P}Moves")(getattr(pb, f"List{P}MovesRequest")(
            game_id=created.game_id, token=tokens[actor]))
        resp = await getattr(stub, f"Make{P}Move")(getattr(pb, f"Make{P}MoveRequest")(
            game_id=created.game_id, token=tokens[actor], expected_version=legal.status.version,
            idempotency_key=f"{seed}-{moves}", move=rng.choice(list(legal.moves))))
        status = resp.status
        moves += 1
    return moves


async def wave(target: str, concurrent: int, base_seed: int) -> tuple[int, list[str]]:
    games = list(registry.GAME_IDS)
    async with grpc.aio.insecure_channel(target) as channel:
        results = await asyncio.gather(*(play(channel, games[i % len(games)], base_seed + i)
                                         for i in range(concurrent)), return_exceptions=True)
    errors = [repr(r) for r in results if isinstance(r, BaseException)]
    return sum(r for r in results if isinstance(r, int)), errors


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--concurrent", type=int, default=200)
    ap.add_argument("--waves", type=int, default=4)
    ap.add_argument("--max-growth", type=float, default=0.25, help="allowed RSS growth, wave 2 to last")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        server = ServerProcess(Path(d), GE_FINISHED_TTL_S="2", GE_RATE_LIMIT_PER_S="0",
                               GE_RATE_LIMIT_PER_ADDRESS_S="0",
                               GE_CREATES_PER_MIN="0", GE_CREATES_TOTAL_PER_S="0").start()
        assert server.proc is not None  # start() launched it
        pid = server.proc.pid
        rows: list[dict[str, Any]] = []
        all_errors: list[str] = []
        try:
            for w in range(args.waves):
                t0 = time.perf_counter()
                moves, errors = asyncio.run(wave(server.target, args.concurrent, 10_000 * (w + 1)))
                time.sleep(3)  # finished games pass their TTL and are evicted
                rows.append({"wave": w + 1, "games": args.concurrent, "moves": moves, "errors": len(errors),
                             "seconds": round(time.perf_counter() - t0, 1),
                             "rss_mb": round(rss_bytes(pid) / 2**20, 1)})
                all_errors += errors
                print(json.dumps(rows[-1]), flush=True)
        finally:
            server.stop()
    growth = (rows[-1]["rss_mb"] - rows[1]["rss_mb"]) / rows[1]["rss_mb"] if len(rows) > 1 else 0.0
    print(f"errors: {len(all_errors)}; RSS growth from wave 2 to {len(rows)}: {growth:+.1%}")
    for e in all_errors[:5]:
        print("ERROR", e)
    return 0 if not all_errors and growth <= args.max_growth else 1


if __name__ == "__main__":
    sys.exit(main())
