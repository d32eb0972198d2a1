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
        evaluate: Callable | None = getattr(heuristic(game_id), "evaluate", None)
        return search(game, view, seat, seats, rng, iterations=iterations, time_ms=think_ms,
                      evaluate=evaluate).best
    raise KeyError(f"unknown policy {policy!r}; choose from {', '.join(POLICIES)}")
