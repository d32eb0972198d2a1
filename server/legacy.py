"""Import a data dir of the release before the protobuf format (pickle journal + snapshot.pickle).

That release wrote `snapshot.pickle` ({"segment": n, "games": [pickled GameRecord]}) and
`journal-N.log` segments (`len | crc32 | pickle` frames of ("create"|"move"|"events"|"extra",
game_id, seq, body)), with no format version. On the first start of this release the server reads
them once, rebuilds every game as storage-proto records (creation, each move, referee events, the
final clock, forfeits and adjudication), folds those through the normal recovery, writes a verified
snapshot in the new format and only then moves the old files to `legacy-pickle/`.

Only the records are taken from the pickles: engine state is re-derived by replaying the moves, so
an engine class that changed since cannot be misread. Unpickling is restricted to the classes that
release wrote (the server's records, engine values, random.Random, builtins).
"""
from __future__ import annotations

import io
import os
import pickle
import struct
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from gameengine import codecs

from . import records
from .datadir import StartupError
from .records import Adjudication, Clock, ClockSet, Created, GameAdjudicated, MoveMade, RefereeActed, SeatForfeited

SNAPSHOT = "snapshot.pickle"
ARCHIVE = "legacy-pickle"
_HEADER = struct.Struct("<II")
_ALLOWED = ("builtins", "copyreg", "collections", "random", "_random", "engines")


class _Old:
    """Stands in for the old release's server.store.GameRecord / LogEntry: only their fields are read."""

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


class _Opaque(_Old):
    """An engine-state class that no longer exists: its content is never used (states are re-derived)."""


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:  # a class or a function (copyreg's)
        if module == "server.store" and name in ("GameRecord", "LogEntry"):
            return _Old
        if module.split(".")[0] not in _ALLOWED:
            raise StartupError(f"old-format file refers to {module}.{name}, which this server does not load")
        try:
            return super().find_class(module, name)
        except (ImportError, AttributeError):
            if module.startswith("engines.") and not module.endswith(".moves"):
                return _Opaque
            raise StartupError(f"old-format file refers to {module}.{name}, which no longer exists") from None


def _loads(data: bytes) -> Any:
    return _Unpickler(io.BytesIO(data)).load()


def present(data_dir: Path) -> list[Path]:
    return sorted([*data_dir.glob("journal-*.log"), *data_dir.glob(SNAPSHOT)])


class _Game:
    """One game as the old release's redo built it, minus the engine state."""

    def __init__(self, rec: Any):  # an unpickled old GameRecord (_Old)
        self.rec = rec
        self.seq = rec.seq
        self.version = rec.version
        self.extra = dict(getattr(rec, "extra", {}))
        self.items: list[tuple[str, Any]] = []  # ("move", LogEntry) | ("referee", Event), in order
        referee_events = [(v, e) for v, e in rec.events if e.kind == "referee"]
        for version in range(0, rec.version + 1):
            if version:
                self.items.append(("move", rec.log[version - 1]))
            self.items.extend(("referee", e) for v, e in referee_events if v == version)

    def redo(self, kind: str, seq: int, body: Any) -> None:
        if seq != self.seq + 1:
            return  # already in the snapshot (the old redo guard)
        self.seq += 1
        if kind == "move":
            self.version += 1
            self.items.append(("move", body))
        elif kind == "events":
            self.items.extend(("referee", e) for e in body if e.kind == "referee")
        elif kind == "extra":
            key, value = body
            self.extra[key] = value
        else:
            raise StartupError(f"old-format journal record of unknown kind {kind!r}")

    def options(self) -> dict[str, Any]:
        """The options the game was played under: the set ones plus the defaults of that release,
        as its engine state resolved them, so a default changed since does not change its rules."""
        resolved = getattr(self.rec.state, "options", None)
        if not isinstance(resolved, dict):
            return dict(self.rec.options)
        known = codecs.codec(self.rec.game).msg("Options").DESCRIPTOR.fields_by_name
        return {**{k: v for k, v in resolved.items() if k in known}, **self.rec.options}

    def history(self, game_id: str) -> bytes:
        rec = self.rec
        created = Created(rec.game, rec.seats, self.options(), rec.seed, tuple(rec.token_hashes),
                          {k: rec.referee.get(k, d) for k, d in (("time_bank_ms", 0), ("increment_ms", 0),
                                                                  ("timeout_policy", "autoplay"), ("max_moves", 0))},
                          rec.created)
        at = rec.created
        writes: list[tuple[float, Any]] = []
        for kind, item in self.items:
            if kind == "move":
                at = item.at
                writes.append((at, MoveMade(item.seat, item.move, item.key, item.by_referee)))
            else:
                d = item.data
                writes.append((at, RefereeActed(d["action"], d["seat"], d["reason"])))
        clock = self.extra.get("clock")
        if clock is not None:
            writes.append((at, ClockSet(Clock(tuple(int(b) for b in clock["bank_ms"]), clock["turn"], clock["since"]))))
        for seat, reason in sorted(self.extra.get("forfeited", {}).items()):
            writes.append((at, SeatForfeited(seat, reason)))
        adj = self.extra.get("adjudication")
        if adj is not None:
            writes.append((at, GameAdjudicated(Adjudication(tuple(adj["scores"]), tuple(adj["ranks"]),
                                                            tuple(adj["winners"]), adj.get("confidence", 0.0), ""))))
        out = bytearray(records.history_entry(records.encode(game_id, 0, rec.created, created, rec.game)))
        for seq, (t, w) in enumerate(writes, start=1):
            out += records.history_entry(records.encode(game_id, seq, t, w, rec.game))
        return bytes(out)


def _frames(path: Path, newest: bool) -> Iterator[Any]:
    data = path.read_bytes()
    pos = 0
    while pos + _HEADER.size <= len(data):
        length, crc = _HEADER.unpack_from(data, pos)
        body = data[pos + _HEADER.size:pos + _HEADER.size + length]
        if len(body) < length or zlib.crc32(body) != crc:
            break
        yield _loads(body)
        pos += _HEADER.size + length
    if pos < len(data) and not newest:
        raise StartupError(f"{path} offset {pos}: old-format record damaged in a segment that is not the "
                           f"newest; nothing was changed. Restore the data dir from a backup, or start the "
                           f"previous release on it to see what it recovers")
    # a torn tail of the newest segment is what the old release dropped too


def import_if_present(data_dir: Path, fold: Callable[[bytes, str], None]) -> list[Path]:
    """Fold an old-format data dir into the store; returns the old files (still in place)."""
    old = present(data_dir)
    if not old:
        return []
    if list(data_dir.glob("journal-*.gej")) or list(data_dir.glob("snapshot-*.ges")):
        raise StartupError(f"{data_dir} holds files of both the old pickle format ({old[0].name}) and this one; "
                           f"move one set away (the pickle files are the older) and start again")
    games: dict[str, _Game] = {}
    start = 1
    snap = data_dir / SNAPSHOT
    if snap.exists():
        try:
            data = _loads(snap.read_bytes())
        except StartupError:
            raise
        except Exception as e:
            raise StartupError(f"{snap}: old-format snapshot unreadable ({type(e).__name__}: {e}); nothing was "
                               f"changed. Restore it from a backup") from None
        start = data["segment"]
        for blob in data["games"]:
            rec = _loads(blob)
            games[rec.game_id] = _Game(rec)
    segs = sorted(int(p.stem.split("-")[1]) for p in data_dir.glob("journal-*.log"))
    segs = [s for s in segs if s >= start]
    for seg in segs:
        path = data_dir / f"journal-{seg:08d}.log"
        for kind, game_id, seq, body in _frames(path, newest=seg == segs[-1]):
            if kind == "create":
                games.setdefault(game_id, _Game(body))
            elif game_id in games:
                games[game_id].redo(kind, seq, body)
    for game_id, g in games.items():
        fold(g.history(game_id), f"old-format game {game_id}")
    return old


def archive(data_dir: Path, old: list[Path]) -> str:
    dest = data_dir / ARCHIVE
    dest.mkdir(mode=0o700, exist_ok=True)
    for p in old:
        os.replace(p, dest / p.name)
    return f"{len(old)} old-format files moved to {dest}"
