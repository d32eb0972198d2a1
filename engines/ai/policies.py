"""The three policies by name, each a function (game, view, seat, seats, rng, budget) -> move."""
from __future__ import annotations

import importlib
import random
from typing import Any, Callable

from engines import registry
from engines.core import Move

from .mcts import search

POLICIES = ("random", "greedy", "mcts")


def heuristic(game_id: str):
    return importlib.import_module(f"engines.{game_id}.heuristic")


def mcts_settings(game_id: str) -> dict[str, Any]:
    """Short rollouts guided by the game's greedy policy, cut off by its evaluation:
    with ~100 ms per move, long random playouts leave too few iterations to learn from."""
    import os
    h = heuristic(game_id)
    depth = int(os.environ.get("GE_MCTS_DEPTH", "8"))
    guided = os.environ.get("GE_MCTS_ROLLOUT", "greedy") == "greedy"
    return {"rollout_depth": depth, "evaluate": getattr(h, "evaluate", None),
            "rollout_policy": h.choose if guided else None, "c": float(os.environ.get("GE_MCTS_C", "0.7"))}


def choose(policy: str, game_id: str, view: dict[str, Any], seat: int, seats: int, rng: random.Random,
           legal: list[Move] | None = None, think_ms: float | None = None, iterations: int | None = None) -> Move:
    """A move for `seat` from its view alone. `legal` (from the server) is used when given."""
    game = registry.game(game_id)
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
