"""The three policies by name, each a function (game, view, seat, seats, rng, budget) -> move."""
from __future__ import annotations

import importlib
import os
import random
from types import ModuleType
from typing import Any

from engines import registry
from engines.core import Move

from .mcts import Evaluate, PerSeat, search

POLICIES = ("random", "greedy", "mcts")


def heuristic(game_id: str) -> ModuleType:
    return importlib.import_module(f"engines.{game_id}.heuristic")


# The one search-settings table: the mcts bot, the referee's hints and its autoplay all search with
# it (README "The referee"). depth: guided rollout moves before `evaluate` cuts off; c: UCB
# exploration (rewards are in [0, 1]); widen: progressive-widening k (0 = off), with the greedy move
# as the first child; bias: progressive bias toward that move. How each value was chosen, with the
# arena runs behind it: bench/TUNING.md.
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
    h = heuristic(game_id)
    t = MCTS_TABLE.get(game_id, {"depth": 8, "c": 0.7, "widen": 1.0, "bias": 1.0})
    env = os.environ.get
    guided = env("GE_MCTS_ROLLOUT", "greedy") == "greedy"
    return {"rollout_depth": int(env("GE_MCTS_DEPTH", t["depth"])), "c": float(env("GE_MCTS_C", t["c"])),
            "evaluate": seat_values(h),
            "rollout_policy": getattr(h, "rollout", h.choose) if guided else None,
            "prior": getattr(h, "prior", h.choose), "rank": getattr(h, "rank", None),
            "widen_k": float(env("GE_MCTS_WIDEN", t["widen"])),
            "prior_bias": float(env("GE_MCTS_BIAS", t["bias"]))}


def seat_values(h: ModuleType) -> Evaluate | None:
    """The heuristic's estimate of every seat's reward: its `evaluate_all(state, seats)` when it has
    one (the position read once), else its `evaluate(state, seat)` per seat, else none."""
    if hasattr(h, "evaluate_all"):
        evaluate_all: Evaluate = h.evaluate_all
        return evaluate_all
    return PerSeat(h.evaluate) if hasattr(h, "evaluate") else None


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
        move: Move = heuristic(game_id).choose(game.determinize(view, seat, rng), seat, rng)
        return move
    if policy == "mcts":
        return search(game, view, seat, seats, rng, iterations=iterations, time_ms=think_ms,
                      **mcts_settings(game_id)).best
    raise KeyError(f"unknown policy {policy!r}; choose from {', '.join(POLICIES)}")
