"""Snapshot files: `snapshot-NNNNNNNN.ges`, a compaction of the journal segments before NNNNNNNN.

Layout (storage.proto): the file header, one SnapshotHeader frame, then one GameHistory frame per
game (every record of the game, as journaled). No engine state is stored: loading folds the
records, so the engines re-derive every state. A snapshot is written to a temp file, fsynced, read
back and checked against what was written, then renamed and the directory fsynced; only then is
anything older removed.
"""
from __future__ import annotations

import os
import time
import zlib
from collections.abc import Iterable
from pathlib import Path

from gameengine.storage.v1 import storage_pb2 as spb

from . import journal
from .journal import SNAPSHOT_MAGIC


class SnapshotDamaged(Exception):
    pass


def path(data_dir: Path, segment: int) -> Path:
    return data_dir / f"snapshot-{segment:08d}.ges"


def listed(data_dir: Path) -> list[int]:
    return sorted(int(p.stem.split("-")[1]) for p in data_dir.glob("snapshot-*.ges"))


def clear_unfinished(data_dir: Path) -> list[str]:
    """Remove what a snapshot, seal or synced mark write cut short (by a crash) left: `write` renames only
    a checked file, and the journal holds everything such a file did (a seal or mark not written is a
    segment taken as it is, or checked against the mark before). Names of the files removed."""
    gone = []
    for tmp in [*data_dir.glob("snapshot-*.tmp"), *data_dir.glob("journal-*.sealed.tmp"),
                *data_dir.glob("journal-*.synced.tmp")]:
        tmp.unlink()
        gone.append(tmp.name)
    return gone


BATCH_BYTES = 1 << 20
# The writer's rest after each piece written and synced, and after each piece read back. On two cores
# shared with the load, a 12 MB snapshot written at once, synced at the end and read back in one
# read took 25-50 ms of CPU and disk work in one burst, and held the calls of a half-loaded server
# beside it at 10-30 ms; paced, no call went over 5 ms (bench/notes/service.md, 2026-12-07).
PACE_S = 0.010


class Frames:
    """A snapshot's game frames (journal.frame(records.saved_game(rec))), joined into pieces of about
    BATCH_BYTES as they are added. The store adds them on the event loop, within a sweep's share, so
    the thread that writes them holds the GIL only in C calls over whole pieces: a Python pass over
    100,000 frames in that thread held the event loop off the GIL for ~5 ms at a time."""

    def __init__(self, frames: Iterable[bytes] = ()) -> None:
        self.pieces: list[bytes] = []
        self.games = 0
        self._batch: list[bytes] = []
        self._size = 0
        for f in frames:
            self.add(f)

    def add(self, frame: bytes) -> None:
        self._batch.append(frame)
        self._size += len(frame)
        self.games += 1
        if self._size >= BATCH_BYTES:
            self._join()

    def joined(self) -> list[bytes]:
        """Every piece, the last one too."""
        if self._batch:
            self._join()
        return self.pieces

    def _join(self) -> None:
        self.pieces.append(b"".join(self._batch))
        self._batch, self._size = [], 0


def write(data_dir: Path, segment: int, frames: Frames, players: Iterable[spb.PlayerState] = (),
          tournament_records: Iterable[spb.JournalRecord] = (), pace_s: float = 0.0) -> Path:
    """Write, fsync, read back, check and rename a snapshot; raises OSError or SnapshotDamaged.
    It runs in a thread beside the event loop and holds the GIL only in C calls over `frames`' pieces
    (zlib releases it over long buffers). The read-back is checked by length and CRC against the
    bytes written; `load` reads the format. With `pace_s` (PACE_S), each piece is synced as it is
    written and the writer rests `pace_s` after each piece written and each read back."""
    final = path(data_dir, segment)
    tmp = final.with_suffix(".tmp")
    header = spb.SnapshotHeader(segment=segment, games=frames.games, written=time.time(),
                                players=players, tournament_records=tournament_records).SerializeToString()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, journal.FILE_MODE)
    try:
        crc, size = 0, 0
        for piece in (journal.file_header(SNAPSHOT_MAGIC) + journal.frame(header), *frames.joined()):
            journal.write_all(fd, piece)
            crc, size = zlib.crc32(piece, crc), size + len(piece)
            if pace_s:
                os.fdatasync(fd)
                time.sleep(pace_s)
        os.fsync(fd)
        back_crc, back_size = _read_back(tmp, pace_s)
        if back_size != size or back_crc != crc:
            raise SnapshotDamaged(f"{tmp.name}: read back {back_size} bytes that differ from the {size} written")
    except (OSError, SnapshotDamaged):
        os.close(fd)
        os.unlink(tmp)
        raise
    os.close(fd)
    os.replace(tmp, final)
    journal.fsync_dir(data_dir)
    return final


def _read_back(file: Path, pace_s: float) -> tuple[int, int]:
    """(CRC, length) of the file as read back, a piece at a time."""
    crc, size = 0, 0
    with open(file, "rb", buffering=0) as f:
        while piece := f.read(BATCH_BYTES):
            crc, size = zlib.crc32(piece, crc), size + len(piece)
            if pace_s:
                time.sleep(pace_s)
    return crc, size


def load(file: Path) -> tuple[int, list[bytes], list[spb.PlayerState], list[spb.JournalRecord]]:
    """(segment, GameHistory payloads, PlayerStates, tournament JournalRecords), or SnapshotDamaged
    saying where and why."""
    try:
        s = journal.scan(file, SNAPSHOT_MAGIC)
    except OSError as e:
        raise SnapshotDamaged(f"{file.name}: unreadable ({e})") from None
    if s.header_error:
        raise SnapshotDamaged(f"{file.name}: {s.header_error}")
    if s.damage:
        raise SnapshotDamaged(f"{file.name}: {s.damage[0]}")
    if not s.frames:
        raise SnapshotDamaged(f"{file.name}: no header record")
    try:
        header = spb.SnapshotHeader.FromString(s.frames[0].payload)
    except Exception as e:
        raise SnapshotDamaged(f"{file.name}: header record unreadable ({e})") from None
    games = [f.payload for f in s.frames[1:]]
    if header.games != len(games) or header.segment != int(file.stem.split("-")[1]):
        raise SnapshotDamaged(f"{file.name}: header says {header.games} games from segment {header.segment}, "
                              f"the file holds {len(games)}")
    return header.segment, games, list(header.players), list(header.tournament_records)
