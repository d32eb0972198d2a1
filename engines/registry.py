"""Game id -> engine `GAME` object."""
from __future__ import annotations

import importlib

from .core import Game, SeatRange

GAME_IDS = ("pompeii", "eruption", "citadels", "smallworld")


def game(game_id: str) -> Game:
    if game_id not in GAME_IDS:
        raise KeyError(game_id)
    return importlib.import_module(f"engines.{game_id}").GAME


def seat_ranges(game_id: str) -> tuple[SeatRange, ...]:
    """Seat ranges per option set, the base game's first (ListGameTypes)."""
    engine = game(game_id)
    return getattr(engine, "seat_ranges", None) or (SeatRange({}, engine.min_seats, engine.max_seats),)
