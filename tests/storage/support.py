"""Shared pieces of the storage tests: a store with games, and what was acknowledged."""
from __future__ import annotations

import asyncio
import random
from pathlib import Path

from engines import registry
from server import journal
from server.service import GameCore
from server.store import Store

GAMES = tuple((g, registry.typical_seats(g)) for g in registry.GAME_IDS)  # every game, one table each


def open_store(data_dir: Path, **kw) -> tuple[Store, GameCore]:
    store = Store(data_dir, fsync=kw.pop("fsync", "never"), **kw)
    store.recover()
    return store, GameCore(store)


def play(core: GameCore, rec, rng: random.Random, moves: int, key_prefix: str = "") -> int:
    """Random legal moves through the real write path; returns how many were acknowledged."""
    done = 0
    for _i in range(moves):
        engine = rec.engine
        if core.is_over(rec):
            break
        seat = rng.choice(engine.seats_to_act(rec.state))
        move = rng.choice(engine.legal_moves(rec.state, seat))
        asyncio.run(core.make_move(rec, seat, rec.version, f"{key_prefix}{rec.version}", move))
        done += 1
    return done


def acknowledged(store: Store) -> dict[str, tuple]:
    """What a client was told: per game its version, its moves and every seat's view."""
    return {gid: (rec.version, [(e.seat, e.move) for e in rec.log],
                  repr([rec.engine.view(rec.state, s) for s in [None, *range(rec.seats)]]))
            for gid, rec in store.games.items()}


def populated(data_dir: Path, moves: int = 12, seed: int = 1) -> dict[str, tuple]:
    """A data dir with every game type, its moves journaled; returns what was acknowledged."""
    store, core = open_store(data_dir)
    rng = random.Random(seed)
    for game, seats in GAMES:
        rec, _ = core.create(game, seats, {}, rng.randrange(1000), {})
        play(core, rec, rng, moves)
    acked = acknowledged(store)
    store.close()
    return acked


def segment_frames(data_dir: Path, seg: int = 1):
    path = journal.segment_path(data_dir, seg)
    return path, journal.scan(path, journal.JOURNAL_MAGIC)


def flip(path: Path, offset: int, mask: int = 0x10) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= mask
    path.write_bytes(bytes(data))
