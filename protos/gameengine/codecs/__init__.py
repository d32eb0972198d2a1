"""Game id -> its Codec (base.py), for every game of the registry (engines/registry.py).

A game whose proto, engine or adapters fail to import fails here loudly: the server's startup
(`load_all`) and every test that plays it."""
from __future__ import annotations

import importlib
from functools import cache

from engines import registry

from .base import RPCS, Codec, MalformedMove, MoveFields


@cache
def codec(game_id: str) -> Codec:
    entry = registry.entry(game_id)
    if entry.codec:  # the game declares field adapters (gameengine/codecs/<module>.py)
        found: Codec = importlib.import_module(f"{__name__}.{entry.codec}").CODEC
        return found
    return Codec(game_id)


def load_all() -> dict[str, Codec]:
    """Every registered game's codec, in registry order."""
    return {gid: codec(gid) for gid in registry.GAME_IDS}


__all__ = ["RPCS", "Codec", "MalformedMove", "MoveFields", "codec", "load_all"]


def rpc_index() -> str:
    """The README's RPC index: every game's RPC with the handler that serves it (so a reader who
    greps `MakePompeiiMove` finds `GameServicer.make_move`); tests/conformance/test_spec.py."""
    rows = ["| RPC (each game's service) | handler in `server/servicer.py` |", "|---|---|"]
    for role, name in RPCS.items():
        rpcs = ", ".join(f"`{name.format(P=registry.entry(g).prefix)}`" for g in registry.GAME_IDS)
        rows.append(f"| {rpcs} | `GameServicer.{role}` |")
    return "\n".join(rows) + "\n"
