"""In-process arena for tuning policies (no RPC): each seat decides from its own view only,
exactly as the bots do. The RPC-level strength benchmark is bench/strength.py.

    python -m bench.arena --game pompeii --seats 3 --bots mcts,greedy,greedy --games 12 --think-ms 100
"""
from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "protos")]

from engines import registry  # noqa: E402
from engines.ai.mcts import actor  # noqa: E402
from engines.ai.policies import choose  # noqa: E402
from gameengine import codecs  # noqa: E402


def play(job):
    game, seats, bots, seed, think_ms, iterations = job
    engine = registry.game(game)
    codec = codecs.codec(game)
    state = engine.new_state(seats, {}, seed)
    rng = random.Random(seed)
    while not engine.is_over(state):
        who = actor(engine, state)
        view = codec.view_from_proto(codec.view_to_proto(engine.view(state, who)))
        move = choose(bots[who], game, view, who, seats, rng, legal=engine.legal_moves(state, who),
                      think_ms=think_ms, iterations=iterations)
        engine.apply(state, who, move)
    o = engine.outcome(state)
    return bots, list(o.winners), list(o.scores)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", required=True)
    ap.add_argument("--seats", type=int, default=3)
    ap.add_argument("--bots", default="mcts,greedy,random")
    ap.add_argument("--games", type=int, default=12)
    ap.add_argument("--think-ms", type=float, default=100)
    ap.add_argument("--iterations", type=int, default=None,
                    help="MCTS iteration budget per move (with --think-ms 0: iterations only, "
                         "for load-independent tuning)")
    ap.add_argument("--seed", type=int, default=500, help="seed of the first game")
    ap.add_argument("--parallel", type=int, default=2)
    args = ap.parse_args(argv)
    names = args.bots.split(",")
    jobs = [(args.game, args.seats, [names[(s + i) % len(names)] for s in range(args.seats)], args.seed + i,
             args.think_ms or None, args.iterations) for i in range(args.games)]
    wins = {b: 0.0 for b in names}
    seats_played = {b: 0 for b in names}
    with multiprocessing.get_context("spawn").Pool(args.parallel) as pool:
        for bots, winners, _scores in pool.imap_unordered(play, jobs):
            for s, b in enumerate(bots):
                seats_played[b] += 1
                if s in winners:
                    wins[b] += 1 / len(winners)
    for b in dict.fromkeys(names):
        lo, hi = wilson(wins[b], seats_played[b])
        print(f"{b:8s} win rate {wins[b] / seats_played[b]:.2f} [95% {lo:.2f}-{hi:.2f}] over "
              f"{seats_played[b]} seats (fair {1 / args.seats:.2f})")


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (shared wins count fractionally)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, mid - half), min(1.0, mid + half)


if __name__ == "__main__":
    main()
