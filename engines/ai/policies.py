"""The three policies by name, each a function (game, view, seat, seats, rng, budget) -> move."""
from __future__ import annotations

import importlib
import random
from typing import Any

from engines import registry
from engines.core import Move

from .mcts import search

POLICIES = ("random", "greedy", "mcts")


def heuristic(game_id: str):
    return importlib.import_module(f"engines.{game_id}.heuristic")


# Per-game search settings. depth: guided rollout moves before `evaluate` cuts off;
# c: UCB exploration (rewards are in [0, 1]); widen: progressive-widening k (0 = off),
# with the greedy move as the first child; bias: progressive bias toward that move.
# Pompeii needs a strong bias: its evaluation barely separates settle-phase placements,
# so unbiased search there drifts from greedy's good gate-side moves (0.10 vs greedy
# unbiased, 0.68 with bias 2, 20 games at 150 iterations). Its rollouts use the cheap
# `heuristic.rollout` (~2.5x the iterations), which pays for depth 16: vs greedy at 100 ms,
# 2 seats, seeds 1000+30: depth 8 0.37, 16 0.60, 24 0.63. Its `rank` (greedy's scores as the
# widening order) and a move-budget evaluate() then gave 0.47 -> 0.75 at 120 iterations.
# Citadels' evaluate() is a sigmoid of the lead in expected final points (0.53 -> 0.67 at 570
# iterations, 30 games).
# Eruption's prior/rollout keep Rain and turn cards into walls for the last turn (ties at 290
# go to walls), and evaluate() counts them: vs greedy at 150 iterations 0.68 -> 0.86 (120 games).
# Tuned with bench/arena.py.
MCTS_TABLE: dict[str, dict[str, float]] = {
    "pompeii": {"depth": 16, "c": 0.7, "widen": 1.0, "bias": 2.0},
    "eruption": {"depth": 8, "c": 0.7, "widen": 1.0, "bias": 1.0},
    "citadels": {"depth": 8, "c": 0.7, "widen": 1.0, "bias": 2.0},
    "smallworld": {"depth": 8, "c": 0.7, "widen": 1.0, "bias": 1.0},
}


def mcts_settings(game_id: str) -> dict[str, Any]:
    """Short rollouts guided by the game's greedy policy, cut off by its evaluation:
    with ~100 ms per move, long random playouts leave too few iterations to learn from.
    GE_MCTS_DEPTH / GE_MCTS_C / GE_MCTS_WIDEN / GE_MCTS_BIAS / GE_MCTS_ROLLOUT=random override the table
    (for tuning)."""
    import os
    h = heuristic(game_id)
    t = MCTS_TABLE.get(game_id, {"depth": 8, "c": 0.7, "widen": 1.0, "bias": 1.0})
    env = os.environ.get
    guided = env("GE_MCTS_ROLLOUT", "greedy") == "greedy"
    return {"rollout_depth": int(env("GE_MCTS_DEPTH", t["depth"])), "c": float(env("GE_MCTS_C", t["c"])),
            "evaluate": getattr(h, "evaluate", None),
            "rollout_policy": getattr(h, "rollout", h.choose) if guided else None,
            "prior": getattr(h, "prior", h.choose), "rank": getattr(h, "rank", None),
            "widen_k": float(env("GE_MCTS_WIDEN", t["widen"])),
            "prior_bias": float(env("GE_MCTS_BIAS", t["bias"]))}


def choose(policy: str, game_id: str, view: dict[str, Any], seat: int, seats: int, rng: random.Random,
           legal: list[Move] | None = None, think_ms: float | None = None, iterations: int | None = None) -> Move:
    """A move for `seat` from its view alone. `legal` (from the server) is used when given."""
    game = registry.game(game_id)
    if policy in POLICIES and legal is not None and len(legal) == 1:
        return legal[0]  # a forced move needs no thought (and no think time)
    if policy == "random":
        if legal is None:
            legal = game.legal_moves(game.determinize(view, seat, rng), seat)
        return rng.choice(legal)
    if policy == "greedy":
        return heuristic(game_id).choose(game.determinize(view, seat, rng), seat, rng)
    if policy == "mcts":
        return search(game, view, seat, seats, rng, iterations=iterations, time_ms=think_ms,
                      **mcts_settings(game_id)).best
    raise KeyError(f"unknown policy {policy!r}; choose from {', '.join(POLICIES)}")
