"""Codec registry: game id -> Codec instance (imported lazily)."""
from __future__ import annotations

import importlib

from .base import Codec, MalformedMove

GAME_IDS = ("pompeii", "eruption", "citadels", "smallworld")


def codec(game_id: str) -> Codec:
    if game_id not in GAME_IDS:
        raise KeyError(game_id)
    return importlib.import_module(f"{__name__}.{game_id}").CODEC


def available() -> dict[str, Codec]:
    """Codecs whose game is built (modules that import cleanly)."""
    found = {}
    for gid in GAME_IDS:
        try:
            found[gid] = codec(gid)
        except ImportError:
            continue
    return found


__all__ = ["Codec", "MalformedMove", "codec", "available", "GAME_IDS"]
