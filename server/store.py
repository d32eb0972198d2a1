"""In-memory games, the one write path, recovery and snapshots.

Every game lives in memory as a GameRecord (server/records.py). Every write goes through
`Store.commit`, in this order for every kind of record: check the version, apply each record
(rolling all of them back if one fails), record the idempotency key (inside MoveMade.apply),
journal the records in one write, then return (acknowledge). A write the journal cannot make
durable is rolled back and refused UNAVAILABLE.

Recovery loads the newest snapshot that verifies (falling back to the one before it), then folds
the journal segments it does not cover. A damaged record anywhere but the torn tail of the newest
segment stops startup, naming file, offset and game: `python -m server.store verify|repair DIR`.

    python -m server.store verify DATA_DIR   # every record, every damaged stretch; exit 1 if any
    python -m server.store repair DATA_DIR   # salvage every intact record (server stopped)
"""
from __future__ import annotations

import asyncio
import contextlib
import gc
import heapq
import os
import secrets
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import structlog

from engines.core import Event, IllegalMove
from gameengine.storage.v1 import storage_pb2 as spb

from . import auth, datadir, journal, legacy, metrics, participation, records, snapshots, tournament_records
from .datadir import StartupError
from .errors import Stale, Unavailable
from .movelog import LogEntry
from .records import Created, GameRecord, MoveMade, Write
from .tournament_records import TournamentRecord

__all__ = ["GameRecord", "LogEntry", "Store", "last_activity"]  # GameRecord, LogEntry: imported from here too

log = structlog.get_logger("gameengine.store")
LOOP_SHARE_S = 0.001  # how long a sweep over the games (`Store.sweep`) holds the event loop at a time
STREAM_WAIT_S = 30.0  # a stream's wait between looks at its game, player or tournament
STOPPING_RETRY_MS = 1000  # a stream ended by a stop: about when the restarted server or another replica answers
Followup = Callable[[GameRecord], Iterable[Write]]


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector off for a stretch that only allocates what stays (recovery): each
    collection would scan the games loaded so far again, for cycles they do not have (a third of
    restoring 100k games; bench/notes/service.md)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def last_activity(rec: GameRecord) -> float:
    """When the game last changed: its last move, else its last seating change (a join, its start:
    a lobby game's first move can only come after that), else its creation."""
    if rec.log:
        return rec.log.last_at()
    return records.last_seating_at(rec) if rec.seating is not None else rec.created


class Store:
    def __init__(self, data_dir: str | Path, fsync: str = "interval", fsync_interval_s: float = 0.1,
                 shard: str = "", snapshot_pace_s: float = snapshots.PACE_S):
        if fsync not in journal.FSYNC_POLICIES:
            raise ValueError(f"GE_FSYNC must be one of {journal.FSYNC_POLICIES}, not {fsync!r}")
        self.shard = shard  # game ids start with it, so a proxy can route by id (k8s/)
        self.data_dir = Path(data_dir)
        self.tightened = datadir.prepare(self.data_dir)
        self.stopped_at = datadir.last_alive(self.data_dir)  # what a clock's seat used until then is charged
        self._lock_fd: int | None = datadir.lock(self.data_dir)
        self.serving_stopped = False  # stop_serving: the alive mark is final
        self.games: dict[str, GameRecord] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.changed: dict[str, asyncio.Event] = {}
        self._fsync = fsync
        self._fsync_interval_s = fsync_interval_s
        self._snapshot_pace_s = snapshot_pace_s
        self.journal: journal.Journal | None = None
        self.orphans = 0  # records of games no snapshot holds (recovery)
        self.players = participation.Players()  # the players subject (records.PLAYER_KINDS)
        self.tournaments = tournament_records.Tournaments()  # tournament subjects (records.TOURNAMENT_KINDS)
        # games created waiting for players, at least (lobby.waiting_games drops the rest); None until built
        self.waiting: dict[str, None] | None = None
        self.listeners: list[Callable[[str], None]] = []  # fn(game_id) after every change to a game (player streams)
        self.last_snapshot = {"save_s": 0.0, "games": 0, "at": 0.0}
        # The journal segment the last snapshot began (it holds what came after it), and whether games
        # left memory since: with that segment still empty and none evicted, a snapshot would be a copy.
        self._saved_segment: int | None = None
        self._evicted = False
        self._snapshotting: asyncio.Future[dict[str, float]] | None = None
        self._share_until = self._rest_until = 0.0  # the sweeps' work and rest (`sweep`), shared by all of them

    # ---- recovery -------------------------------------------------------
    def recover(self) -> dict[str, Any]:
        """Load the newest good snapshot, fold the journal after it; returns counts for the log line."""
        with collector_paused():
            return self._recover()

    def _recover(self) -> dict[str, Any]:
        counts: dict[str, Any] = {"replayed": 0}
        unfinished = snapshots.clear_unfinished(self.data_dir)  # we hold the data dir's lock: no writer is left
        if unfinished:
            counts["unfinished_snapshots_removed"] = unfinished
        old_files = legacy.import_if_present(self.data_dir, self._fold_history)
        start = 1 if old_files else self._load_snapshots(counts)
        segs = [s for s in journal.segments(self.data_dir) if s >= start]
        seals = self._readable_sizes("sealed", journal.seals, "damaged_seal")
        marks = self._readable_sizes("synced", journal.marks, "damaged_mark")
        self._refuse_missing_segments(start, segs, seals)
        for seg in segs:
            counts["replayed"] += self._replay_segment(seg, newest=seg == segs[-1], counts=counts,
                                                       sealed=seals.get(seg), synced=marks.get(seg))
        next_segment = max(segs, default=start - 1) + 1
        # The segment first, then the snapshot that begins it, as every snapshot is made (`_snapshot`)
        self.journal = journal.Journal(self.data_dir, next_segment, self._fsync, self._fsync_interval_s)
        if segs:  # the last server's newest segment is closed now
            self.journal.seal_previous(segs[-1], journal.segment_path(self.data_dir, segs[-1]).stat().st_size)
        if old_files:  # a verified snapshot in this format holds what they held: then move them aside
            snapshots.write(self.data_dir, next_segment,
                            snapshots.Frames(journal.frame(records.saved_game(r)) for r in self.games.values()),
                            records.players_state(self.players), list(self.tournaments.history))
            counts["imported_legacy"] = legacy.archive(self.data_dir, old_files)
        if (counts["replayed"] == 0 and "snapshot" in counts and "damaged_snapshots" not in counts
                and not self.orphans and all(r.pending is not None for r in self.games.values())):
            self._saved_segment = next_segment  # memory is the newest snapshot, in this format: a restart is no news
        counts["games"] = len(self.games)
        if self.orphans:
            counts["records_of_evicted_games"] = self.orphans
            metrics.RECOVERY_MENDS.labels("records_of_evicted_games").inc(self.orphans)
        if self.tightened:
            counts["modes_tightened"] = self.tightened
        return counts

    def _readable_sizes(self, suffix: str, read: Callable[[Path], dict[int, int | None]], mend: str) -> dict[int, int]:
        """The segments' seals or synced marks; one that does not read is left out (its segment is taken as
        it is), logged and counted as `mend`."""
        found = read(self.data_dir)
        for seg in sorted(s for s, size in found.items() if size is None):
            log.warning("journal_size_file_damaged", file=f"{journal.segment_path(self.data_dir, seg).stem}.{suffix}")
            metrics.RECOVERY_MENDS.labels(mend).inc()
        return {s: size for s, size in found.items() if size is not None}

    def _refuse_missing_segments(self, start: int, segs: list[int], seals: dict[int, int]) -> None:
        """Every segment from the snapshot used to the newest one must be there: at least up to the
        newest snapshot's own (a segment is created before the snapshot that begins it) and the one
        after the newest sealed segment (a segment is sealed once the next one exists)."""
        newest = max([*segs, *snapshots.listed(self.data_dir), *(s + 1 for s in seals)], default=start - 1)
        missing = sorted(set(range(start, newest + 1)) - set(segs))
        if missing:
            names = ", ".join(journal.segment_path(self.data_dir, m).name for m in missing)
            raise StartupError(f"journal segment(s) {names} are missing from {self.data_dir}: the moves "
                               f"journaled in them would be lost. Nothing was changed. Put them back (or restore "
                               f"the data dir from a backup); `python -m server.store verify {self.data_dir}` "
                               f"lists what is there")

    def _load_snapshots(self, counts: dict[str, Any]) -> int:
        """Fold the newest snapshot that verifies; returns the first segment it does not cover."""
        have = snapshots.listed(self.data_dir)
        for seg in reversed(have):
            file = snapshots.path(self.data_dir, seg)
            try:
                segment, histories, players, tournament_recs = snapshots.load(file)
                records.load_players(players, self.players)
                for pb in tournament_recs:
                    self._redo_tournament(pb)
                for h in histories:
                    self._fold_history(h, file.name)
            except snapshots.SnapshotDamaged as e:
                self.games.clear()
                self.players = participation.Players()
                self.tournaments = tournament_records.Tournaments()
                log.error("snapshot_damaged", reason=str(e), fallback="the previous snapshot and the journal")
                metrics.RECOVERY_MENDS.labels("damaged_snapshot").inc()
                counts.setdefault("damaged_snapshots", []).append(str(e))
                continue
            counts["snapshot"] = file.name
            return segment
        segs = journal.segments(self.data_dir)
        if not have and segs and segs[0] != 1:
            raise StartupError(f"{self.data_dir} has no snapshot, and its journal starts at segment {segs[0]}: the "
                               f"snapshot that held the games before it is missing. Nothing was changed. Put the "
                               f"snapshot back (or restore the data dir from a backup); `python -m server.store "
                               f"verify {self.data_dir}` lists what is there")
        if have and (not segs or segs[0] != 1):
            damaged = "; ".join(counts["damaged_snapshots"])
            raise StartupError(f"every snapshot in {self.data_dir} is damaged ({damaged}) "
                               f"and the journal no longer starts at segment 1, so the games cannot be rebuilt "
                               f"from it alone. Nothing was changed. Run `python -m server.store verify "
                               f"{self.data_dir}`, restore the data dir from a backup, or move the damaged "
                               f"snapshots away to start with only the games the journal holds")
        return 1

    def _fold_history(self, saved: bytes, where: str) -> None:
        """Fold one game's records; a game new to the store keeps its history as it is (it is
        exactly the records' entries) instead of rebuilding it record by record. A snapshot's game
        that kept the engine's is_over (records.saved_game) is folded without the engine
        (`_fold_saved`): its state and events are made when first read (GameRecord.settle)."""
        over, history = records.split_saved(saved)
        if over is not None and self._fold_saved(over, history, where):
            return
        try:
            new: GameRecord | None = None
            for payload in records.history_payloads(history):
                pb = records.parse(payload)
                if new is None and pb.WhichOneof("write") == "created" and pb.game_id not in self.games:
                    self._redo(pb, payload, where)
                    new = self.games[pb.game_id]
                    continue
                if new is not None and pb.game_id != new.game_id:
                    raise records.FormatError(f"the history of game {new.game_id} holds a record of game "
                                              f"{pb.game_id[:40]!r}")
                self._redo(pb, payload, where, keep_history=new is None)
            if new is not None:
                new.history = bytearray(history)
        except (records.FormatError, StartupError) as e:
            raise snapshots.SnapshotDamaged(f"{where}: {e}") from None

    def _fold_saved(self, over: bool, history: bytes, where: str) -> bool:
        """A snapshot's game that kept engine_over, new to the store: its records parsed in one go
        and folded without the engine (GameRecord.restored); False for anything else, which the
        record-by-record fold handles (and reports, if it is damage)."""
        try:
            recs = spb.GameHistory.FromString(history).records
        except Exception:  # DecodeError: the record-by-record fold says where
            return False
        if not recs or recs[0].WhichOneof("write") != "created" or recs[0].game_id in self.games:
            return False
        first = recs[0]
        game_id = first.game_id
        try:
            rec = GameRecord.restored(Created.decode(first.created, ""), game_id, over)
            for pb in recs[1:]:
                kind = pb.WhichOneof("write")
                if (pb.game_id != game_id or kind not in records.KINDS or kind in records.PLAYER_KINDS
                        or kind == "created" or pb.seq != rec.seq + 1):
                    return False  # damage or an odd history: the record-by-record fold says what
                if kind == "move":
                    rec.defer(records.logged_move(pb.move, rec.game, pb.at))
                else:
                    records.decode(pb, rec.game).apply(rec, pb.at)  # type: ignore[union-attr]
                rec.seq += 1
        except (records.FormatError, StartupError) as e:
            raise snapshots.SnapshotDamaged(f"{where}: {e}") from None
        rec.history = bytearray(history)
        self.games[game_id] = rec
        return True

    def _replay_segment(self, seg: int, newest: bool, counts: dict[str, Any], sealed: int | None,
                        synced: int | None) -> int:
        path = journal.segment_path(self.data_dir, seg)
        data = path.read_bytes()
        if sealed is None and synced is not None and len(data) < synced:  # cut below what was on disk
            raise StartupError(journal.unsynced_size(path, len(data), synced) +
                               f" Nothing was changed. Put the file back from a backup, or run `python -m "
                               f"server.store repair {self.data_dir}` to start without what it lost")
        s = journal.scan(path, journal.JOURNAL_MAGIC, data)
        if s.header_error and newest and journal.header_cut_short(data, journal.JOURNAL_MAGIC):
            # killed between creating the file and writing its header: nothing in it was acknowledged
            journal.write_file(path, journal.file_header(journal.JOURNAL_MAGIC))
            log.warning("journal_segment_header_completed", file=path.name, had_bytes=len(data))
            metrics.RECOVERY_MENDS.labels("segment_header").inc()
            return 0
        if s.header_error:
            raise StartupError(f"{path} offset 0: {s.header_error}. Nothing was changed. "
                               f"Run `python -m server.store verify {self.data_dir}`, then "
                               f"`python -m server.store repair {self.data_dir}`")
        damage = list(s.damage)
        torn = damage.pop() if damage and damage[-1].tail and newest else None
        if damage:
            self._refuse_damage(path, damage)
        if sealed is not None and sealed != len(data):  # cut at a frame boundary: every frame left is intact
            raise StartupError(journal.unsealed_size(path, len(data), sealed) +
                               f" Nothing was changed. Put the file back from a backup, or run `python -m "
                               f"server.store repair {self.data_dir}` to start without what it lost")
        n = 0
        for f in s.frames:
            try:
                n += self._redo(records.parse(f.payload), f.payload, f"{path} offset {f.offset}")
            except records.FormatError as e:
                raise StartupError(f"{path} offset {f.offset}: {e}. Nothing was changed. "
                                   f"Run `python -m server.store verify {self.data_dir}`") from None
        if torn is not None:
            if self._written_whole(data, torn):
                self._refuse_damage(path, [torn], "a whole record changed after it was written, not a torn "
                                                  "last write")
            self._cut_torn_tail(path, data, torn)
            counts["torn_tail_bytes"] = torn.end - torn.offset
        return n

    def _refuse_damage(self, path: Path, damage: list[journal.Damage], why: str = "") -> None:
        from .repair import damaged_games
        d = damage[0]
        games = damaged_games(self.data_dir, path, d) or "unknown (the damaged bytes do not name one)"
        why = why or ("not its newest segment, so this is no torn last write" if d.tail else "")
        raise StartupError(f"{path} offset {d.offset}: record damaged ({d.end - d.offset} bytes: {d.reason}); "
                           f"game {games}. "
                           f"{len(damage)} damaged stretch(es) in this file{f' ({why})' if why else ''}. "
                           f"Nothing was changed. Run `python -m server.store verify {self.data_dir}` to "
                           f"see every record, then `python -m server.store repair {self.data_dir}` to "
                           f"salvage the intact ones")

    def _written_whole(self, data: bytes, torn: journal.Damage) -> bool:
        """Whether a damaged last stretch is a record written whole (so maybe acknowledged) and hit
        since. A write a crash cut short is a prefix of its frame, so its length field runs past the
        file's end; a power loss can leave zeros where unsynced bytes were. A frame that reaches the
        file's end exactly and does not end in zeros was written whole: its damage came later."""
        if journal.mend(data, torn) is not None:
            return True
        return (journal.spans_one_frame(data, torn)
                and not data[torn.offset:torn.end].endswith(bytes(journal.FRAME.size)))

    def _cut_torn_tail(self, path: Path, data: bytes, torn: journal.Damage) -> None:
        """Drop a torn last write of the newest segment (never acknowledged), its bytes kept in damaged/."""
        aside = self.data_dir / "damaged"
        kept = aside / f"{path.name}.{torn.offset}.{time.strftime('%Y%m%dT%H%M%S')}.torn"
        try:
            aside.mkdir(mode=0o700, exist_ok=True)
            journal.write_file(kept, data[torn.offset:torn.end])
            where = str(kept)
        except OSError as e:  # a full disk: the copy is a courtesy, those bytes were never acknowledged
            where = f"not kept: {journal.describe(e)}"
        os.truncate(path, torn.offset)
        metrics.RECOVERY_MENDS.labels("torn_tail").inc()
        log.warning("journal_torn_tail_dropped", file=path.name, offset=torn.offset,
                    bytes=torn.end - torn.offset, kept=where)

    def _redo(self, pb: spb.JournalRecord, payload: bytes, where: str, keep_history: bool = True) -> int:
        """Fold one record during recovery; a record already folded (seq not newer) is skipped.
        `keep_history`: append it to its game's history (False: the caller sets the whole history)."""
        kind = pb.WhichOneof("write")
        if kind in records.PLAYER_KINDS:  # idempotent: 0 when the snapshot holds it already
            return self.players.redo(records.decode(pb, ""))
        if kind in records.TOURNAMENT_KINDS:  # guarded by the tournament's own seq
            return self._redo_tournament(pb)
        if kind == "created":
            if pb.game_id in self.games:
                return 0
            created = Created.decode(pb.created, "").build(pb.game_id)
            created.history += records.history_entry(payload)
            self.games[pb.game_id] = created
            return 1
        rec = self.games.get(pb.game_id)
        if rec is None:
            self.orphans += 1  # a finished game evicted before the snapshot (logged by recover)
            return 0
        if pb.seq <= rec.seq:
            return 0  # already in the snapshot
        if pb.seq != rec.seq + 1:
            raise StartupError(f"{where}: game {pb.game_id} jumps from seq {rec.seq} to {pb.seq}: its records "
                               f"in between are missing. Run `python -m server.store verify {self.data_dir}`")
        write = records.decode(pb, rec.game)
        assert not isinstance(write, (Created, participation.PlayerRegistered, participation.PlayerNotified))  # above
        try:
            write.apply(rec, pb.at)  # a move settles a restored game first (GameRecord.settle)
        except IllegalMove as e:
            raise StartupError(f"{where}: game {pb.game_id} seq {pb.seq}: the engine refuses the journaled move "
                               f"({e}); was the data dir written by another engine version?") from None
        except records.Unsettled as e:
            raise StartupError(f"{where}: {e}") from None
        rec.seq += 1
        if keep_history:
            rec.history += records.history_entry(payload)
        return 1

    # ---- the write path -------------------------------------------------
    def lock(self, game_id: str) -> asyncio.Lock:
        if game_id not in self.locks:
            self.locks[game_id] = asyncio.Lock()
        return self.locks[game_id]

    def signal(self, game_id: str) -> asyncio.Event:
        """Set (and replaced) after every change to the game, for event streams."""
        if game_id not in self.changed:
            self.changed[game_id] = asyncio.Event()
        return self.changed[game_id]

    async def wait(self, signal: asyncio.Event) -> bool:
        """A stream's wait for its next change: True once `signal` is set, False after STREAM_WAIT_S.
        Unavailable once the server stops serving, so every open stream ends at once with a retry hint
        and its caller reconnects (to the restarted server or another replica), resuming where it was."""
        self._serving_or_unavailable()
        try:
            await asyncio.wait_for(signal.wait(), timeout=STREAM_WAIT_S)
            woke = True
        except TimeoutError:
            woke = False
        self._serving_or_unavailable()
        return woke

    def _serving_or_unavailable(self) -> None:
        if self.serving_stopped:
            raise Unavailable("the server is stopping: reconnect and resume from the last event you have",
                              retry_after_ms=STOPPING_RETRY_MS)

    def _notify(self, game_id: str) -> None:
        ev = self.changed.pop(game_id, None)
        if ev is not None:
            ev.set()
        for listener in self.listeners:
            listener(game_id)

    def _journal(self) -> journal.Journal:
        """The journal recover() opened: every write comes after recovery."""
        if self.journal is None:
            raise RuntimeError("the store is written to before recover() opened its journal")
        return self.journal

    def _append(self, frames: bytes, refused: str = "nothing was changed", **where: str) -> None:
        """Journal `frames` in one write, or log where it failed and raise Unavailable saying what
        the caller refused (`refused`): the one acknowledgement rule of every kind of record."""
        try:
            self._journal().append(frames)
        except journal.JournalUnavailable as e:
            log.error("journal_write_failed", reason=str(e), **where)
            raise Unavailable(f"the server cannot write its journal ({e.strerror}); {refused}: retry later",
                              retry_after_ms=1000) from None

    def commit(self, rec: GameRecord, writes: Iterable[Write], expected_version: int | None = None,
               followups: Followup | None = None) -> list[Event]:
        """The one write path. Checks `expected_version` (None: not a versioned write), applies
        `writes` and then whatever `followups(rec)` returns (e.g. the clock after a move), journals
        them all in one write and returns their events. Any refusal or failure leaves the game as
        it was: IllegalMove and engine errors propagate, a journal failure is Unavailable."""
        if expected_version is not None and expected_version != rec.version:
            raise Stale(f"expected_version {expected_version} is stale: the game is at version {rec.version}"
                        if expected_version < rec.version else
                        f"expected_version {expected_version} is beyond the game's version {rec.version}",
                        rule="VERSION", metadata={"current_version": str(rec.version)})
        sp = rec.savepoint()
        at = time.time()
        frames: list[bytes] = []
        events: list[Event] = []
        moved = False
        try:
            for w in writes:
                events += self._apply(rec, w, at, frames)
                moved = moved or isinstance(w, MoveMade)
            for w in followups(rec) if followups else ():
                events += self._apply(rec, w, at, frames)
            self._append(b"".join(frames), game_id=rec.game_id)
        except (IllegalMove, Unavailable):
            rec.rollback(sp, state_touched=moved)
            raise
        except BaseException:
            rec.rollback(sp, state_touched=True)
            raise
        self._notify(rec.game_id)
        return events

    @staticmethod
    def _apply(rec: GameRecord, write: Write, at: float, frames: list[bytes]) -> list[Event]:
        events = write.apply(rec, at)
        rec.seq += 1
        payload = records.encode(rec.game_id, rec.seq, at, write, rec.game)
        rec.history += records.history_entry(payload)
        frames.append(journal.frame(payload))
        return events

    def create(self, game: str, seats: int, options: dict[str, Any], seed: int | None, referee: dict[str, Any],
               seating: participation.Seating | None = None,
               followups: Followup | None = None) -> tuple[GameRecord, list[str]]:
        """Create, apply `followups` (e.g. the referee's clock) and journal them together. With a
        seating, only seats it gives the creator get a token ("" for open and reserved seats)."""
        seed = secrets.randbits(63) if seed is None else seed
        pairs = [auth.mint() if seating is None
                 or not seating.token_pending[s] and seating.holders[s] == seating.creator
                 else ("", "") for s in range(seats)]
        game_id = f"{self.shard}-{secrets.token_hex(8)}" if self.shard else secrets.token_hex(8)
        created = Created(game, seats, dict(options), seed, tuple(h for _, h in pairs), dict(referee), time.time(),
                          seating)
        rec = created.build(game_id)  # raises InvalidOptions
        payload = records.encode(game_id, 0, created.created, created, game)
        rec.history += records.history_entry(payload)
        frames = [journal.frame(payload)]
        for w in followups(rec) if followups else ():
            self._apply(rec, w, created.created, frames)
        self._append(b"".join(frames), "no game was created", game_id=game_id)
        self.games[game_id] = rec
        return rec, [t for t, _ in pairs]

    def write_player(self, record: participation.PlayerRegistered | participation.PlayerNotified) -> None:
        """Journal then apply a record of the players subject (participation.PlayerRegistered /
        PlayerNotified): the same journal and acknowledgement rule, no game, no version."""
        self._append(journal.frame(records.encode("", 0, time.time(), record, "")), subject="players")
        self.players.redo(record)

    def _redo_tournament(self, pb: spb.JournalRecord) -> int:
        n = self.tournaments.redo(tournament_records.from_journal(pb))
        if n:
            self.tournaments.history.append(pb)
        return n

    def write_tournament(self, record: TournamentRecord) -> None:
        """Journal then apply a tournament record (server/tournament_records.py): the same journal
        and acknowledgement rule as a move; a record out of its tournament's sequence is a bug."""
        pb = tournament_records.to_journal(record, time.time())
        self._append(journal.frame(pb.SerializeToString()), subject="tournaments")
        if not self.tournaments.redo(record):
            raise ValueError(f"tournament record {type(record).__name__} out of sequence")
        self.tournaments.history.append(pb)

    def forget(self, game_id: str) -> None:
        """The game leaves memory, and so the next snapshot (its records stay in older files)."""
        del self.games[game_id]
        self.locks.pop(game_id, None)
        if self.waiting is not None:
            self.waiting.pop(game_id, None)
        self._evicted = True

    async def sweep(self) -> AsyncIterator[GameRecord]:
        """Every game in memory, for a periodic task on the event loop (snapshots, hibernation, eviction,
        expiry). The sweeps work in shares of LOOP_SHARE_S, each followed by as long a rest in which no
        sweep works, so together they take at most about half the loop however many games there are
        (at 100,000 games a pass is 50-500 ms of work). A rest, not a single turn of the loop: an RPC
        takes several turns, and each would have waited for another share. A game that left memory
        while the sweep rested is skipped; the others are seen as they are when their turn comes."""
        await self._share()
        for rec in list(self.games.values()):  # values, not items: no tuple per game for the collector
            if self.games.get(rec.game_id) is rec:
                yield rec
            if time.perf_counter() >= self._share_until:
                self._rest_until = time.perf_counter() + LOOP_SHARE_S
                await self._share()

    async def _share(self) -> None:
        """Wait for the sweeps' rest to end, then start a share of work."""
        while (rest := self._rest_until - time.perf_counter()) > 0:
            await asyncio.sleep(rest)
        self._share_until = time.perf_counter() + LOOP_SHARE_S

    async def evict_finished(self, older_than_s: float, is_over: Callable[[GameRecord], bool],
                             keep_at_most: int = 0) -> int:
        """Drop games that ended more than `older_than_s` ago from memory (and from the next snapshot),
        and beyond `keep_at_most` finished ones (0: no cap) the oldest of the rest: live memory is
        bounded by live games, not by history, however fast games are finished."""
        cutoff = time.time() - older_than_s
        gone = 0
        kept: list[tuple[float, str]] = []
        async for rec in self.sweep():
            if not is_over(rec):
                continue
            ended = last_activity(rec)
            if ended < cutoff:
                self._evict(rec)
                gone += 1
            elif keep_at_most:
                kept.append((ended, rec.game_id))
        if keep_at_most and len(kept) > keep_at_most:
            for _, game_id in heapq.nsmallest(len(kept) - keep_at_most, kept):
                oldest = self.games.get(game_id)
                if oldest is not None:
                    self._evict(oldest)
                    gone += 1
        return gone

    def _evict(self, rec: GameRecord) -> None:
        self.forget(rec.game_id)
        self._notify(rec.game_id)

    async def hibernate_idle(self, idle_s: float, is_over: Callable[[GameRecord], bool],
                             now: float | None = None) -> int:
        """Pickle the engine state (GameRecord.hibernate) of every game with no write for `idle_s`, and
        of every finished one at once: a finished game's state is only read again for views, while bots
        and tournaments finish games by the hundred between two passes. A game whose lock is held is in
        use and left awake."""
        cutoff = (time.time() if now is None else now) - idle_s
        slept = 0
        async for rec in self.sweep():
            lock = self.locks.get(rec.game_id)
            if ((last_activity(rec) < cutoff or is_over(rec)) and not (lock is not None and lock.locked())
                    and rec.hibernate()):
                slept += 1
        return slept

    # ---- snapshots --------------------------------------------------------
    async def snapshot(self, paced: bool = True) -> dict[str, float] | None:
        """One snapshot at a time, and a cancelled caller does not cut one short: its threads would
        go on writing files the next one also writes (the shutdown's follows the periodic one's).
        None, and nothing written, when nothing changed since the last one: an idle replica does not
        rewrite all its games every interval. `paced`: the writer rests between pieces (snapshots.PACE_S),
        so that calls served beside it keep their latency; a shutdown serves none."""
        while self._snapshotting is not None and not self._snapshotting.done():
            await asyncio.wait([self._snapshotting])
        if self._unchanged():
            return None
        self._snapshotting = asyncio.ensure_future(self._snapshot(self._snapshot_pace_s if paced else 0.0))
        return await asyncio.shield(self._snapshotting)

    def _unchanged(self) -> bool:
        """The last snapshot and its empty segment hold exactly what is in memory."""
        j = self._journal()
        return self._saved_segment == j.segment and j.empty and not self._evicted

    async def _snapshot(self, pace_s: float) -> dict[str, float]:
        """A snapshot without stopping play. The journal moves to a new segment (its syncs off the
        loop); each game's frame is made on the event loop (`sweep`), so a game's history may also hold
        records of the new segment (recovery folds those once: `_redo`). The file is written,
        checked and older files pruned in a thread that holds the GIL only in short C calls
        (snapshots.write). Then only this snapshot and the one before it are kept, with the segments
        the older one needs."""
        t0 = time.perf_counter()
        segment = await self._journal().rotate_off_loop()  # everything after this point is in `segment`
        self._evicted = False  # the games framed below are those left now; a later eviction sets it again
        frames = snapshots.Frames()
        async for rec in self.sweep():
            frames.add(journal.frame(records.saved_game(rec)))
        players = records.players_state(self.players)
        await asyncio.to_thread(snapshots.write, self.data_dir, segment, frames, players,
                                list(self.tournaments.history), pace_s)
        games = frames.games
        await asyncio.to_thread(self._prune, segment)
        self._saved_segment = segment
        self.last_snapshot = {"save_s": time.perf_counter() - t0, "games": games, "at": time.time()}
        return self.last_snapshot

    def _prune(self, newest: int) -> None:
        kept = [s for s in snapshots.listed(self.data_dir) if s <= newest][-2:]
        for s in snapshots.listed(self.data_dir):
            if s not in kept:
                os.unlink(snapshots.path(self.data_dir, s))
        if len(kept) == 2:  # the older snapshot still needs the segments from its own onward
            for seg in journal.segments(self.data_dir):
                if seg < kept[0]:
                    os.unlink(journal.segment_path(self.data_dir, seg))
            for seg in journal.seals(self.data_dir):
                if seg < kept[0]:
                    os.unlink(journal.seal_path(self.data_dir, seg))
            for seg in journal.marks(self.data_dir):
                if seg < kept[0]:
                    os.unlink(journal.mark_path(self.data_dir, seg))

    def alive(self) -> None:
        """Mark this server alive now (datadir.touch): a restart charges clocks up to it (clock.resumed);
        and the size the journal is synced to (Journal.mark_synced)."""
        if self._lock_fd is not None and not self.serving_stopped:
            datadir.touch(self._lock_fd)
        if self.journal is not None:
            self.journal.mark_synced()

    def stop_serving(self) -> None:
        """The last mark: from now on no seat can move (a graceful stop drains and snapshots for a while,
        which a seat on turn must not pay for)."""
        self.alive()
        self.serving_stopped = True
        for signals in (self.changed, self.players.signals, self.tournaments.signals):  # wake every stream
            for signal in signals.values():
                signal.set()

    def close(self) -> None:
        try:
            if self.journal:
                self.journal.close()
        finally:
            if self._lock_fd is not None:
                self.alive()  # when it stopped, unless stop_serving said so earlier
                datadir.unlock(self._lock_fd)
                self._lock_fd = None


if __name__ == "__main__":
    from .repair import main

    main()
