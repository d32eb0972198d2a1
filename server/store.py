"""In-memory game store with an append-only journal and periodic atomic snapshots.

Every game lives in memory as a GameRecord. Each accepted write is journaled
(journal.py) before it is acknowledged. A snapshot pickles every record to a
temp file, fsyncs it and renames it into place, then deletes the journal
segments it covers. Restart = load the snapshot + replay newer segments; moves
carry their version, so replaying a record twice is a no-op.
"""
from __future__ import annotations

import asyncio
import os
import pickle
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engines import registry
from engines.core import Event, IllegalMove, Move, replay

from . import auth, journal, participation

SNAPSHOT = "snapshot.pickle"


@dataclass
class LogEntry:
    seat: int
    move: Move
    key: str  # idempotency key ("" when none)
    by_referee: str  # "" for a seat's own move, else the referee action ("autoplay", ...)
    at: float


@dataclass
class GameRecord:
    game_id: str
    game: str
    seats: int
    options: dict[str, Any]
    seed: int
    token_hashes: list[str]
    referee: dict[str, Any]
    created: float
    state: Any
    version: int = 0
    seq: int = 0  # journaled writes so far (moves, referee events, extras): redo guard
    log: list[LogEntry] = field(default_factory=list)
    events: list[tuple[int, Event]] = field(default_factory=list)
    idem: dict[str, int] = field(default_factory=dict)  # idempotency key -> version it produced
    extra: dict[str, Any] = field(default_factory=dict)  # referee state: clocks, forfeits, adjudication

    @property
    def engine(self):
        return registry.game(self.game)


class Store:
    def __init__(self, data_dir: str | Path, fsync: str = "interval", fsync_interval_s: float = 0.1,
                 shard: str = ""):
        self.shard = shard  # game ids start with it, so a proxy can route by id (k8s/)
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.games: dict[str, GameRecord] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.changed: dict[str, asyncio.Event] = {}
        self._fsync = fsync
        self._fsync_interval_s = fsync_interval_s
        self.journal: journal.Journal | None = None
        self.last_snapshot = {"save_s": 0.0, "games": 0, "at": 0.0}
        self.players = participation.Players()  # journaled as kind "player" (participation.py)
        self.listeners: list = []  # fn(game_id) after every change to a game (player streams)

    # ---- recovery -------------------------------------------------------
    def recover(self) -> dict[str, int]:
        """Load the snapshot, replay the journal; returns counts for the log line."""
        start_segment, replayed = 1, 0
        snap = self.data_dir / SNAPSHOT
        if snap.exists():
            with open(snap, "rb") as f:
                data = pickle.load(f)
            start_segment = data["segment"]
            if data.get("players"):
                self.players = pickle.loads(data["players"])
            for blob in data["games"]:
                rec = pickle.loads(blob)
                self.games[rec.game_id] = rec
        segs = [s for s in journal.segments(self.data_dir) if s >= start_segment]
        for seg in segs:
            for record in journal.read_segment(journal.segment_path(self.data_dir, seg)):
                replayed += self._redo(record)
        next_segment = (segs[-1] + 1) if segs else start_segment
        self.journal = journal.Journal(self.data_dir, next_segment, self._fsync, self._fsync_interval_s)
        return {"games": len(self.games), "replayed": replayed}

    def _redo(self, record: tuple) -> int:
        kind, game_id, seq, body = record
        if kind == "player":
            return self.players.redo(body)
        if kind == "create":
            if game_id in self.games:
                return 0
            self.games[game_id] = body
            return 1
        rec = self.games.get(game_id)
        if rec is None or seq != rec.seq + 1:
            return 0  # already in the snapshot
        self._do(rec, kind, body)
        return 1

    def _do(self, rec: GameRecord, kind: str, body: Any) -> list[Event]:
        """Apply one journaled write to a record (live or during recovery)."""
        rec.seq += 1
        if kind == "move":
            return self._apply(rec, body)
        if kind == "events":
            rec.events.extend((rec.version, e) for e in body)
            return list(body)
        if kind == "extra":
            key, value = body
            rec.extra[key] = value
            return []
        if kind == "seating":
            participation.apply_seating(self, rec, body)
            return []
        raise ValueError(f"unknown journal record {kind!r}")

    # ---- writes ---------------------------------------------------------
    def lock(self, game_id: str) -> asyncio.Lock:
        if game_id not in self.locks:
            self.locks[game_id] = asyncio.Lock()
        return self.locks[game_id]

    def signal(self, game_id: str) -> asyncio.Event:
        """Set (and replaced) after every change to the game, for event streams."""
        if game_id not in self.changed:
            self.changed[game_id] = asyncio.Event()
        return self.changed[game_id]

    def _notify(self, game_id: str) -> None:
        ev = self.changed.pop(game_id, None)
        if ev is not None:
            ev.set()
        for listener in self.listeners:
            listener(game_id)

    def create(self, game: str, seats: int, options: dict, seed: int | None, referee: dict,
               seating: participation.Seating | None = None) -> tuple[GameRecord, list[str]]:
        """With a seating, only seats it gives the creator get a token ("" for open and reserved seats)."""
        engine = registry.game(game)
        seed = secrets.randbits(63) if seed is None else seed
        state = engine.new_state(seats, options, seed)  # raises InvalidOptions
        pairs = [auth.mint() if seating is None or not seating.token_pending[s] and seating.holders[s] == seating.creator
                 else ("", "") for s in range(seats)]
        rec = GameRecord(
            game_id=f"{self.shard}-{secrets.token_hex(8)}" if self.shard else secrets.token_hex(8), game=game, seats=seats, options=dict(options), seed=seed,
            token_hashes=[h for _, h in pairs], referee=dict(referee), created=time.time(), state=state,
        )
        if seating is not None:
            rec.extra["seating"] = seating  # part of the create record: a game never exists half-seated
        # Journal the record as it stands at version 0: moves replay on top of it.
        self.journal.append(("create", rec.game_id, 0, rec))
        self.games[rec.game_id] = rec
        return rec, [t for t, _ in pairs]

    def move(self, rec: GameRecord, seat: int, move: Move, key: str = "", by_referee: str = "") -> list[Event]:
        """Apply an authorised move: engine check, journal, then acknowledge.

        The engine validates before it mutates (IllegalMove leaves the state as it
        was). Should an engine fail in any other way half-way, or the journal write
        fail, the state is rebuilt from the log, so a refusal never changes a game."""
        entry = LogEntry(seat, move, key, by_referee, time.time())
        try:
            events = self._do(rec, "move", entry)
        except IllegalMove:
            raise
        except Exception:
            self._restore_state(rec)
            raise
        try:
            self.journal.append(("move", rec.game_id, rec.seq, entry))
        except OSError:
            self._undo_last_move(rec)
            raise
        self._notify(rec.game_id)
        return events

    def write_player(self, record) -> None:
        """Journal then apply a global "player" record (participation.PlayerRegistered/PlayerNotified)."""
        self.journal.append(("player", "", 0, record))
        self.players.redo(record)

    def write(self, rec: GameRecord, kind: str, body: Any) -> None:
        """Journal then apply a non-move write: "events" (referee events), "extra" (key, value) or
        "seating" (participation.SeatingChanged)."""
        self.journal.append((kind, rec.game_id, rec.seq + 1, body))
        self._do(rec, kind, body)
        self._notify(rec.game_id)

    @staticmethod
    def _apply(rec: GameRecord, entry: LogEntry) -> list[Event]:
        try:
            events = rec.engine.apply(rec.state, entry.seat, entry.move)
        except Exception:
            rec.seq -= 1  # refused: nothing happened
            raise
        rec.version += 1
        rec.log.append(entry)
        rec.events.extend((rec.version, e) for e in events)
        if entry.key:
            rec.idem[entry.key] = rec.version
        return events

    @staticmethod
    def _restore_state(rec: GameRecord) -> None:
        rec.state = replay(rec.engine, rec.seats, rec.options, rec.seed, [(e.seat, e.move) for e in rec.log])

    def _undo_last_move(self, rec: GameRecord) -> None:
        """Forget an applied move whose journal write failed: it was never acknowledged."""
        entry = rec.log.pop()
        rec.events = [(v, e) for v, e in rec.events if v != rec.version]
        rec.idem.pop(entry.key, None)
        rec.version -= 1
        rec.seq -= 1
        self._restore_state(rec)

    def evict_finished(self, older_than_s: float, is_over) -> int:
        """Drop games that ended more than `older_than_s` ago from memory (and from the
        next snapshot): live memory is bounded by live games, not by history."""
        cutoff = time.time() - older_than_s
        gone = [gid for gid, rec in self.games.items()
                if rec.log and rec.log[-1].at < cutoff and is_over(rec)]
        for gid in gone:
            del self.games[gid]
            self.locks.pop(gid, None)
            self._notify(gid)
        return len(gone)

    # ---- snapshots --------------------------------------------------------
    async def snapshot(self) -> dict[str, float]:
        """Atomic snapshot without stopping play: records are pickled one by one on
        the event loop (each under no await, so consistent), the file is written off-loop."""
        t0 = time.perf_counter()
        segment = self.journal.rotate()  # everything after this point is in `segment`
        players = pickle.dumps(self.players, protocol=pickle.HIGHEST_PROTOCOL)
        blobs = []
        for i, rec in enumerate(list(self.games.values())):
            blobs.append(pickle.dumps(rec, protocol=pickle.HIGHEST_PROTOCOL))
            if i % 50 == 49:  # let moves in between: 50 records pickle in a few ms
                await asyncio.sleep(0)
        await asyncio.to_thread(self._write_snapshot, segment, blobs, players)
        for old in journal.segments(self.data_dir):
            if old < segment:
                os.unlink(journal.segment_path(self.data_dir, old))
        self.last_snapshot = {"save_s": time.perf_counter() - t0, "games": len(blobs), "at": time.time()}
        return self.last_snapshot

    def _write_snapshot(self, segment: int, blobs: list[bytes], players: bytes = b"") -> None:
        tmp = self.data_dir / (SNAPSHOT + ".tmp")
        with open(tmp, "wb") as f:
            pickle.dump({"segment": segment, "games": blobs, "players": players}, f, protocol=pickle.HIGHEST_PROTOCOL)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.data_dir / SNAPSHOT)
        dir_fd = os.open(self.data_dir, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def close(self) -> None:
        if self.journal:
            self.journal.close()
