"""Game id -> engine `GAME` object."""
from __future__ import annotations

import importlib

from .core import Game

GAME_IDS = ("pompeii", "eruption", "citadels", "smallworld")


def game(game_id: str) -> Game:
    if game_id not in GAME_IDS:
        raise KeyError(game_id)
    return importlib.import_module(f"engines.{game_id}").GAME
