"""Compiled (mypyc, `make compiled`) against pure-Python engines, per game: the same fixed work -- seeded
random games and a fixed-iteration ISMCTS search from the opening -- timed in CPU seconds, in child
processes that alternate between the two builds (GE_PURE_PYTHON=1 or not), so load on the machine
falls on both alike. Prints pure ÷ compiled CPU time per figure (> 1: compiled is faster).

    python -m bench.native [rounds]          # GE_NATIVE_GAMES (150) random games, GE_NATIVE_ITERS (1500)
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("pompeii", "eruption", "citadels", "smallworld")


def work() -> dict[str, dict[str, Any]]:
    """In this process's build: CPU seconds of the random games and of the search, per game."""
    from engines import native, registry
    from engines.ai import mcts
    from engines.ai.policies import mcts_settings
    from engines.core import play_random
    from gameengine import codecs

    count, iterations = int(os.environ.get("GE_NATIVE_GAMES", "150")), int(os.environ.get("GE_NATIVE_ITERS", "1500"))
    out: dict[str, dict[str, Any]] = {}
    for game in GAMES:
        engine, seats = registry.game(game), registry.tested_seats(game)[1]
        rng, moves, t0 = random.Random(7), 0, time.process_time()
        for _ in range(count):
            moves += len(play_random(engine, engine.new_state(seats, {}, rng.randrange(2**32)), rng))
        random_s = time.process_time() - t0
        state = engine.new_state(seats, {}, 1)
        seat = mcts.actor(engine, state)
        c = codecs.codec(game)
        view = c.view_from_proto(c.view_to_proto(engine.view(state, seat)))
        settings = {**mcts_settings(game), "time_ms": None}
        t0 = time.process_time()
        mcts.search(engine, view, seat, seats, random.Random(1), iterations=iterations, **settings)
        out[game] = {"seats": seats, "moves": moves, "random_cpu_s": random_s,
                     "mcts_cpu_s": time.process_time() - t0, "build": native.build()}
    return out


def run(pure: bool) -> dict[str, dict[str, Any]]:
    env = dict(os.environ, PYTHONPATH=f"{ROOT}:{ROOT / 'protos'}", GE_PURE_PYTHON="1" if pure else "0")
    out = subprocess.run([sys.executable, "-m", "bench.native", "--child"], env=env, cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    result: dict[str, dict[str, Any]] = json.loads(out)
    return result


def main() -> None:
    if sys.argv[1:] == ["--child"]:
        print(json.dumps(work()))
        return
    rounds = int(sys.argv[1]) if sys.argv[1:] else 3
    totals = {(g, build, part): 0.0 for g in GAMES for build in ("pure", "compiled")
              for part in ("random_cpu_s", "mcts_cpu_s")}
    for _ in range(rounds):
        for build in ("pure", "compiled"):
            figures = run(build == "pure")
            for g in GAMES:
                assert figures[g]["build"].startswith(build), figures[g]["build"]
                for part in ("random_cpu_s", "mcts_cpu_s"):
                    totals[g, build, part] += figures[g][part]
    for g in GAMES:
        ratios = {part.split("_")[0]: round(totals[g, "pure", part] / totals[g, "compiled", part], 2)
                  for part in ("random_cpu_s", "mcts_cpu_s")}
        print(f"{g}: pure ÷ compiled CPU time over {rounds} alternating rounds: random {ratios['random']}x, "
              f"ISMCTS {ratios['mcts']}x", flush=True)


if __name__ == "__main__":
    main()
