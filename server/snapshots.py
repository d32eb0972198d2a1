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


BATCH_BYTES = 1 << 20


def write(data_dir: Path, segment: int, game_frames: list[bytes], players: Iterable[spb.PlayerState] = (),
          tournament_records: Iterable[spb.JournalRecord] = ()) -> Path:
    """Write, fsync, read back, check and rename a snapshot; raises OSError or SnapshotDamaged.
    `game_frames` are the games' frames: journal.frame(records.saved_game(rec)).

    It runs in a thread beside the event loop, so it holds the GIL only in short C calls: ~1 MiB
    joins and CRCs (zlib releases the GIL over long buffers), never a Python pass over the games.
    The read-back is checked by length and CRC against the bytes written; `load` reads the format."""
    final = path(data_dir, segment)
    tmp = final.with_suffix(".tmp")
    header = spb.SnapshotHeader(segment=segment, games=len(game_frames), written=time.time(),
                                players=players, tournament_records=tournament_records).SerializeToString()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, journal.FILE_MODE)
    try:
        crc, size = 0, 0
        for batch in _batches([journal.file_header(SNAPSHOT_MAGIC), journal.frame(header)], game_frames):
            journal.write_all(fd, batch)
            crc, size = zlib.crc32(batch, crc), size + len(batch)
        os.fsync(fd)
        back = tmp.read_bytes()
        if len(back) != size or zlib.crc32(back) != crc:
            raise SnapshotDamaged(f"{tmp.name}: read back {len(back)} bytes that differ from the {size} written")
    except (OSError, SnapshotDamaged):
        os.close(fd)
        os.unlink(tmp)
        raise
    os.close(fd)
    os.replace(tmp, final)
    journal.fsync_dir(data_dir)
    return final


def _batches(head: list[bytes], frames: list[bytes]) -> Iterable[bytes]:
    """The file's bytes in joins of about BATCH_BYTES."""
    batch, size = list(head), sum(map(len, head))
    for f in frames:
        batch.append(f)
        size += len(f)
        if size >= BATCH_BYTES:
            yield b"".join(batch)
            batch, size = [], 0
    yield b"".join(batch)


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
