"""Snapshots written beside play: a damaged write never gets a snapshot's name, a failed sync of
the segment it closes fails the journal, a cancelled snapshot does not collide with the next, and a
snapshot with nothing new to save writes nothing.
Faults are injected into the real Store; what was acknowledged is counted after recovery."""
from __future__ import annotations

import asyncio
import errno
import os
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


def closes_and_restores(store, data_dir) -> None:
    """Close `store`; a store reopened on `data_dir` holds what was acknowledged."""
    acked = acknowledged(store)
    store.close()
    again, _ = open_store(data_dir)
    assert acknowledged(again) == acked
    again.close()


def in_small_pieces(data_dir, monkeypatch):
    """A store of 35 new games whose snapshot is written in pieces of ~2,000 bytes."""
    monkeypatch.setattr(snapshots, "BATCH_BYTES", 2000)
    store, core = open_store(data_dir)
    for seed in range(35):
        core.create("pompeii", 3, {}, seed, {})
    return store


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

    play(core, next(iter(store.games.values())), random.Random(4), 1)  # something new to save
    monkeypatch.setattr(journal, "write", flipping_write)
    with pytest.raises(snapshots.SnapshotDamaged, match="differ"):
        asyncio.run(store.snapshot())
    monkeypatch.undo()
    assert snapshots.listed(tmp_path) == first, "the damaged file never takes a snapshot's name"
    assert not list(tmp_path.glob("*.tmp"))
    closes_and_restores(store, tmp_path)


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
        second = asyncio.create_task(store.snapshot())  # waits for the first to finish
        for _ in range(10_000):  # until the first has switched segments (bounded: a bug must not hang)
            if store.journal.segment != 1:
                break
            await asyncio.sleep(0.001)
        assert store.journal.segment == 2
        rec = next(iter(store.games.values()))  # a move now is news for the second
        seat = rec.engine.seats_to_act(rec.state)[0]
        await core.make_move(rec, seat, rec.version, "news", rec.engine.legal_moves(rec.state, seat)[0])
        return await second

    snap = asyncio.run(cancel_then_snapshot())
    assert snap["games"] == len(GAMES)
    assert snapshots.listed(tmp_path) == [2, 3] and journal.segments(tmp_path)[-1] == 3
    closes_and_restores(store, tmp_path)


def test_a_snapshot_with_nothing_new_since_the_last_writes_nothing(tmp_path):
    """An idle replica does not rewrite every game each interval; a move or an eviction is news."""
    store, core = stocked(tmp_path)
    assert asyncio.run(store.snapshot())["games"] == len(GAMES)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert asyncio.run(store.snapshot()) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == files, "no snapshot, no new journal segment"

    rec = next(iter(store.games.values()))
    assert play(core, rec, random.Random(4), 1)
    assert asyncio.run(store.snapshot())["games"] == len(GAMES)
    assert asyncio.run(store.snapshot()) is None

    assert asyncio.run(store.evict_finished(-1, lambda r: r.game_id == rec.game_id)) == 1
    assert asyncio.run(store.snapshot())["games"] == len(GAMES) - 1
    assert asyncio.run(store.snapshot()) is None
    acked = acknowledged(store)
    store.close()
    again, _ = open_store(tmp_path)
    assert rec.game_id not in again.games and acknowledged(again) == acked
    # a restart alone is no news either (each restart rewrote every game: 80 MB at 100,000 games)
    files = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("snapshot"))
    assert asyncio.run(again.snapshot()) is None
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("snapshot")) == files
    again.close()


def test_an_eviction_stays_news_when_the_snapshot_after_it_fails(tmp_path, monkeypatch):
    store, core = stocked(tmp_path)
    asyncio.run(store.snapshot())
    gone = next(iter(store.games))
    assert asyncio.run(store.evict_finished(-1, lambda r: r.game_id == gone)) == 1

    def full_disk(self, segment):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(journal.Journal, "_open", full_disk)  # the rotation's new segment
    with pytest.raises(OSError):
        asyncio.run(store.snapshot())
    monkeypatch.undo()
    assert asyncio.run(store.snapshot())["games"] == len(GAMES) - 1
    store.close()
    again, _ = open_store(tmp_path)
    assert gone not in again.games
    again.close()


def test_a_snapshot_hands_its_writer_the_frames_joined_in_pieces(tmp_path, monkeypatch):
    """The writing thread gets ~BATCH_BYTES pieces joined on the loop, not one frame per game: its own
    Python pass over 100,000 frames held the event loop off the GIL ~5 ms at a time."""
    store = in_small_pieces(tmp_path, monkeypatch)
    handed: list[snapshots.Frames] = []
    real_write = snapshots.write

    def write(data_dir, segment, frames, *rest):
        handed.append(frames)
        return real_write(data_dir, segment, frames, *rest)
    monkeypatch.setattr(snapshots, "write", write)
    assert asyncio.run(store.snapshot())["games"] == 35
    pieces = handed[0].joined()
    assert handed[0].games == 35 and 1 < len(pieces) < 35
    assert all(len(p) >= 2000 for p in pieces[:-1])
    closes_and_restores(store, tmp_path)


def test_a_snapshot_is_synced_a_piece_at_a_time_with_a_rest_after_each(tmp_path, monkeypatch):
    """Written at once and synced at the end, a 12 MB snapshot took the two cores' CPU and the disk in
    one burst that held a half-loaded server's calls at 10-30 ms: the writer syncs each piece as it
    writes it and rests PACE_S after each piece written and each read back."""
    store = in_small_pieces(tmp_path, monkeypatch)
    synced: list[int] = []
    rests: list[float] = []
    real_sync = os.fdatasync

    def fdatasync(fd):
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".tmp"):  # the snapshot's, not the journal's
            synced.append(os.fstat(fd).st_size)
        real_sync(fd)
    monkeypatch.setattr(snapshots.os, "fdatasync", fdatasync)
    monkeypatch.setattr(snapshots.time, "sleep", rests.append)
    assert asyncio.run(store.snapshot())["games"] == 35
    monkeypatch.undo()
    size = snapshots.path(tmp_path, snapshots.listed(tmp_path)[-1]).stat().st_size
    assert len(synced) > 5 and synced == sorted(set(synced)) and synced[-1] == size
    pieces_read = -(-size // 2000)
    assert rests == [snapshots.PACE_S] * (len(synced) + pieces_read)
    closes_and_restores(store, tmp_path)


def test_an_unpaced_snapshot_writes_at_once(tmp_path, monkeypatch):
    """The shutdown's snapshot serves no calls beside it, so it does not rest (main.serve)."""
    store = in_small_pieces(tmp_path, monkeypatch)
    rests: list[float] = []
    monkeypatch.setattr(snapshots.time, "sleep", rests.append)
    assert asyncio.run(store.snapshot(paced=False))["games"] == 35
    monkeypatch.undo()
    assert rests == []
    store.close()


def test_segments_left_by_snapshots_that_failed_on_a_full_disk_are_pruned_by_the_next_two(tmp_path, monkeypatch):
    """A snapshot that fails after its rotation leaves a segment behind; on a disk that stays full for
    a while, one per interval. Once two snapshots succeed again, only the older one's segments stay."""
    store, core = stocked(tmp_path)
    asyncio.run(store.snapshot())
    rec = next(iter(store.games.values()))
    rng = random.Random(5)

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    for _ in range(4):
        play(core, rec, rng, 1)  # acknowledged: the journal still takes writes
        monkeypatch.setattr(snapshots, "write", full_disk)
        with pytest.raises(OSError):
            asyncio.run(store.snapshot())
        monkeypatch.undo()
    assert len(journal.segments(tmp_path)) >= 5, "each failed snapshot rotated the journal"
    for _ in range(2):
        play(core, rec, rng, 1)
        asyncio.run(store.snapshot())
    have = snapshots.listed(tmp_path)
    assert len(have) == 2 and journal.segments(tmp_path) == list(range(have[0], have[1] + 1))
    assert not list(tmp_path.glob("*.tmp"))
    closes_and_restores(store, tmp_path)
