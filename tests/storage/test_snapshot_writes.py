"""Snapshots written beside play: a damaged write never gets a snapshot's name, a failed sync of
the segment it closes fails the journal, and a cancelled snapshot does not collide with the next.
Faults are injected into the real Store; what was acknowledged is counted after recovery."""
from __future__ import annotations

import asyncio
import errno
import random

import pytest

from server import journal, snapshots

from .support import GAMES, acknowledged, open_store, play


def stocked(data_dir, moves: int = 8):
    store, core = open_store(data_dir)
    rng = random.Random(3)
    for game, seats in GAMES:
        rec, _ = core.create(game, seats, {}, rng.randrange(1000), {})
        play(core, rec, rng, moves)
    return store, core


def test_a_snapshot_that_reads_back_wrong_is_refused_and_the_previous_one_stays(tmp_path, monkeypatch):
    store, core = stocked(tmp_path)
    asyncio.run(store.snapshot())
    first = snapshots.listed(tmp_path)
    real_write = journal.write

    def flipping_write(fd, data):  # the disk keeps one bit wrong: every byte "written"
        if len(data) <= journal.FILE_HEADER.size:  # the new segment's header stays right
            return real_write(fd, data)
        bad = bytearray(data)
        bad[len(bad) // 2] ^= 0x04
        return real_write(fd, bytes(bad))

    monkeypatch.setattr(journal, "write", flipping_write)
    with pytest.raises(snapshots.SnapshotDamaged, match="differ"):
        asyncio.run(store.snapshot())
    monkeypatch.undo()
    assert snapshots.listed(tmp_path) == first, "the damaged file never takes a snapshot's name"
    assert not list(tmp_path.glob("*.tmp"))
    acked = acknowledged(store)
    store.close()
    again, _ = open_store(tmp_path)
    assert acknowledged(again) == acked
    again.close()


def test_a_failed_sync_of_the_closed_segment_fails_the_journal(tmp_path, monkeypatch):
    store, core = stocked(tmp_path)
    store.journal._dirty = True  # the interval syncer has not run yet

    def broken_sync(fd):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(journal, "fdatasync", broken_sync)  # the closed segment's sync, not the new one's
    with pytest.raises(OSError):
        asyncio.run(store.snapshot())
    assert store.journal.failed and "EIO" in store.journal.failed, "health says NOT_SERVING until a sync holds"
    monkeypatch.undo()
    assert store.journal.probe()
    store.close()


def test_a_cancelled_snapshot_finishes_before_the_next_one_starts(tmp_path):
    store, core = stocked(tmp_path)

    async def cancel_then_snapshot():
        first = asyncio.create_task(store.snapshot())
        await asyncio.sleep(0)  # it is under way: rotating the journal in a thread
        first.cancel()
        return await store.snapshot()

    snap = asyncio.run(cancel_then_snapshot())
    assert snap["games"] == len(GAMES)
    assert snapshots.listed(tmp_path) == [2, 3] and journal.segments(tmp_path)[-1] == 3
    acked = acknowledged(store)
    store.close()
    again, _ = open_store(tmp_path)
    assert acknowledged(again) == acked
    again.close()
