"""Game id -> engine `GAME` object, and its declared `GameSpec`."""
from __future__ import annotations

import importlib

from .core import Game, GameSpec, SeatRange

GAME_IDS = ("pompeii", "eruption", "citadels", "smallworld")


def game(game_id: str) -> Game:
    if game_id not in GAME_IDS:
        raise KeyError(game_id)
    return importlib.import_module(f"engines.{game_id}").GAME


def spec(game_id: str) -> GameSpec:
    return game(game_id).spec


def seat_ranges(game_id: str) -> tuple[SeatRange, ...]:
    """Seat ranges per option set, the base game's first (ListGameTypes)."""
    return spec(game_id).seat_ranges


def games_table() -> str:
    """The README's table of games, rendered from the specs (tests/conformance/test_spec.py)."""
    rows = ["| game id | game | seats | options | rules |", "|---|---|---|---|---|"]
    for gid in GAME_IDS:
        s = spec(gid)
        seats = "; ".join(f"{r.min_seats}–{r.max_seats}"
                          + "".join(f" with `{k}={str(v).lower()}`" for k, v in r.options.items())
                          for r in s.seat_ranges)
        rows.append(f"| `{gid}` | {s.title} | {seats} | {len(s.options)} | [{s.rules_doc}]({s.rules_doc}), `engines/{gid}/` |")
    return "\n".join(rows) + "\n"
