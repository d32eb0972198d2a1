"""In-process arena for tuning policies (no RPC): each seat decides from its own view only,
exactly as the bots do. The RPC-level strength benchmark is bench/strength.py.

    python -m bench.arena --game pompeii --seats 3 --bots mcts,greedy,greedy --games 12 --think-ms 100
"""
from __future__ import annotations

import argparse
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
    game, seats, bots, seed, think_ms = job
    engine = registry.game(game)
    codec = codecs.codec(game)
    state = engine.new_state(seats, {}, seed)
    rng = random.Random(seed)
    while not engine.is_over(state):
        who = actor(engine, state)
        view = codec.view_from_proto(codec.view_to_proto(engine.view(state, who)))
        move = choose(bots[who], game, view, who, seats, rng, legal=engine.legal_moves(state, who),
                      think_ms=think_ms)
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
    ap.add_argument("--parallel", type=int, default=2)
    args = ap.parse_args(argv)
    names = args.bots.split(",")
    jobs = [(args.game, args.seats, [names[(s + i) % len(names)] for s in range(args.seats)], 500 + i,
             args.think_ms) for i in range(args.games)]
    wins = {b: 0.0 for b in names}
    seats_played = {b: 0 for b in names}
    with multiprocessing.get_context("spawn").Pool(args.parallel) as pool:
        for bots, winners, scores in pool.imap_unordered(play, jobs):
            for s, b in enumerate(bots):
                seats_played[b] += 1
                if s in winners:
                    wins[b] += 1 / len(winners)
    for b in dict.fromkeys(names):
        print(f"{b:8s} win rate {wins[b] / seats_played[b]:.2f} over {seats_played[b]} seats "
              f"(fair {1 / args.seats:.2f})")


if __name__ == "__main__":
    main()
