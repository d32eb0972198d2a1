"""A closed journal segment's seal (journal.seal): a cut at a record boundary leaves only intact
frames, so without the size it was closed at, recovery would start without the records cut off and
say nothing. Each fault is injected into a real data dir; what was acknowledged is counted after."""
from __future__ import annotations

import asyncio
import errno
import os
import random

import pytest

from server import journal, metrics, snapshots

from .support import acknowledged, open_store, play, populated, segment_frames
from .test_storage import recover_refused, recovered, store_cli


def closed_by(data_dir, how: str) -> dict[str, tuple]:
    """A data dir whose segment 1 was closed (by a restart, or by a snapshot that failed after its
    rotation, so no snapshot covers segment 1) and whose segment 2 holds later moves."""
    populated(data_dir, moves=6)
    store, core = open_store(data_dir)
    if how == "failed_snapshot":
        real = snapshots.write
        snapshots.write = lambda *a, **k: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left on device"))
        try:
            with pytest.raises(OSError):
                asyncio.run(store.snapshot())
        finally:
            snapshots.write = real
    rng = random.Random(9)
    for rec in list(store.games.values()):
        play(core, rec, rng, 2)
    acked = acknowledged(store)
    store.close()
    assert snapshots.listed(data_dir) == [] and journal.segments(data_dir)[0] == 1
    return acked


@pytest.mark.parametrize("how", ["restart", "failed_snapshot"])
def test_a_closed_segment_cut_at_a_record_boundary_stops_startup(tmp_path, how):
    closed_by(tmp_path, how)
    path, s = segment_frames(tmp_path, 1)
    cut = s.frames[-3].offset  # the last three records gone, every frame left intact
    os.truncate(path, cut)
    message = recover_refused(tmp_path)
    assert path.name in message and "lost" in message and "repair" in message
    assert path.stat().st_size == cut, "nothing was changed"


def test_a_lost_segment_after_a_sealed_one_stops_startup(tmp_path):
    closed_by(tmp_path, "restart")
    newest = journal.segments(tmp_path)[-1]
    os.unlink(journal.segment_path(tmp_path, newest))
    message = recover_refused(tmp_path)
    assert journal.segment_path(tmp_path, newest).name in message and "missing" in message


def test_verify_names_the_cut_and_repair_starts_without_it(tmp_path):
    acked = closed_by(tmp_path, "restart")
    path, s = segment_frames(tmp_path, 1)
    os.truncate(path, s.frames[-1].offset)
    v = store_cli("verify", str(tmp_path))
    assert v.returncode == 1 and "are lost" in v.stdout and path.name in v.stdout
    r = store_cli("repair", str(tmp_path))
    assert r.returncode == 0 and "are lost" in r.stdout, r.stdout + r.stderr
    assert store_cli("verify", str(tmp_path)).returncode == 0
    after = recovered(tmp_path)
    assert after.keys() == acked.keys()
    changed = [g for g in acked if after[g] != acked[g]]
    assert len(changed) == 1, "only the game whose record was cut lost anything"


def test_repair_removes_a_seal_whose_successor_is_gone(tmp_path):
    closed_by(tmp_path, "restart")
    os.unlink(journal.segment_path(tmp_path, journal.segments(tmp_path)[-1]))
    r = store_cli("repair", str(tmp_path))
    assert "starts without them" in r.stdout, r.stdout + r.stderr
    assert recovered(tmp_path), "the games of segment 1 are back"


def test_segments_are_sealed_at_their_size_when_closed_and_the_seals_pruned_with_them(tmp_path):
    store, core = open_store(tmp_path)
    rec, _ = core.create("pompeii", 3, {}, 1, {})
    for i in range(4):
        play(core, rec, random.Random(i), 2)
        asyncio.run(store.snapshot())
        closed = journal.segments(tmp_path)[-2]
        assert journal.seals(tmp_path)[closed] == journal.segment_path(tmp_path, closed).stat().st_size
    newest = journal.segments(tmp_path)[-1]
    assert newest not in journal.seals(tmp_path), "the segment written to is not sealed"
    assert set(journal.seals(tmp_path)) == set(journal.segments(tmp_path)) - {newest}
    store.close()


@pytest.mark.parametrize("kind", ["seal", "mark"])
def test_a_damaged_seal_or_synced_mark_is_counted_and_its_segment_taken_as_it_is(tmp_path, kind):
    if kind == "seal":
        acked, path = closed_by(tmp_path, "restart"), journal.seal_path(tmp_path, 1)
    else:
        acked, seg = written_last(tmp_path)
        path = journal.mark_path(tmp_path, seg)
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x01
    path.write_bytes(bytes(data))
    counted = metrics.RECOVERY_MENDS.labels(f"damaged_{kind}")
    before = counted._value.get()
    assert recovered(tmp_path) == acked
    assert counted._value.get() == before + 1


def test_a_seal_write_cut_short_by_a_crash_leaves_no_file_behind(tmp_path):
    acked = closed_by(tmp_path, "restart")
    (tmp_path / "journal-00000002.sealed.tmp").write_bytes(b"GEE")  # kill -9 mid-write
    assert recovered(tmp_path) == acked
    assert not list(tmp_path.glob("*.tmp"))


def test_a_data_dir_without_seals_starts_as_before(tmp_path):
    """A release before seals closed its segments without them."""
    acked = closed_by(tmp_path, "restart")
    for seal in tmp_path.glob("journal-*.sealed"):
        seal.unlink()
    assert recovered(tmp_path) == acked


def test_a_start_on_a_full_disk_seals_the_last_segment_once_the_new_one_exists(tmp_path, monkeypatch):
    populated(tmp_path, moves=6)
    size = journal.segment_path(tmp_path, 1).stat().st_size

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(journal, "write", full)
    store, core = open_store(tmp_path)
    assert store.journal.failed and journal.seals(tmp_path) == {}, "segment 2 could not be created"
    monkeypatch.undo()
    assert store.journal.probe()
    assert journal.seals(tmp_path) == {1: size}
    store.close()


# ---- the segment written last: its synced mark (journal-N.synced) ----------------------------------

def written_last(data_dir, fsync: str = "always", moves: int = 8) -> tuple[dict[str, tuple], int]:
    """A data dir whose newest segment holds acknowledged moves, marked synced as the running server
    marks it every second (Store.alive); the server then stops without a restart to seal it."""
    store, core = open_store(data_dir, fsync=fsync)
    rng = random.Random(4)
    for game, seats in (("pompeii", 3), ("citadels", 4)):
        rec, _ = core.create(game, seats, {}, rng.randrange(1000), {})
        play(core, rec, rng, moves)
    if fsync == "interval":
        store.journal.sync()  # as its thread does every GE_FSYNC_INTERVAL_MS
    store.alive()
    acked, segment = acknowledged(store), store.journal.segment
    store.close()
    return acked, segment


def test_the_segment_written_last_cut_at_a_record_boundary_stops_startup(tmp_path):
    """Before its mark, a cut of the newest segment's last records at a frame boundary left intact frames
    only, and start-up went on without them, as if they had never been written."""
    _, seg = written_last(tmp_path)
    path, s = segment_frames(tmp_path, seg)
    assert journal.marks(tmp_path)[seg] == path.stat().st_size
    cut = s.frames[-3].offset
    os.truncate(path, cut)
    message = recover_refused(tmp_path)
    assert path.name in message and "lost" in message and "synced" in message and "repair" in message, message
    assert path.stat().st_size == cut, "nothing was changed"


@pytest.mark.parametrize("fsync", ["always", "interval"])
def test_the_mark_is_the_size_on_disk_and_a_torn_write_past_it_still_starts(tmp_path, fsync):
    acked, seg = written_last(tmp_path, fsync)
    path = journal.segment_path(tmp_path, seg)
    marked = journal.marks(tmp_path)[seg]
    assert marked == path.stat().st_size
    with open(path, "ab") as f:  # a write after the last mark, torn by a crash
        f.write(journal.frame(b"x" * 40)[:-7])
    assert recovered(tmp_path) == acked
    assert seg not in journal.marks(tmp_path), "the restart sealed the segment: its seal supersedes the mark"
    assert journal.seals(tmp_path)[seg] == marked


def test_without_fsync_only_a_clean_stop_is_marked(tmp_path):
    """GE_FSYNC=never promises nothing after a power loss: while it runs, no size is known to be on disk.
    A clean stop syncs the journal, and marks what it synced."""
    store, core = open_store(tmp_path, fsync="never")
    rec, _ = core.create("pompeii", 3, {}, 1, {})
    play(core, rec, random.Random(1), 4)
    store.alive()
    assert journal.marks(tmp_path) == {}
    store.close()
    assert journal.marks(tmp_path) == {1: journal.segment_path(tmp_path, 1).stat().st_size}


def test_verify_names_a_cut_below_the_mark_and_repair_starts_without_it(tmp_path):
    acked, seg = written_last(tmp_path)
    path, s = segment_frames(tmp_path, seg)
    os.truncate(path, s.frames[-1].offset)
    v = store_cli("verify", str(tmp_path))
    assert v.returncode == 1 and "are lost" in v.stdout and f"{path.stem}.synced" in v.stdout, v.stdout
    r = store_cli("repair", str(tmp_path))
    assert r.returncode == 0 and "starts without them" in r.stdout, r.stdout + r.stderr
    assert store_cli("verify", str(tmp_path)).returncode == 0
    after = recovered(tmp_path)
    assert after.keys() == acked.keys()
    assert len([g for g in acked if after[g] != acked[g]]) == 1, "only the game whose record was cut lost it"


def test_marks_follow_rotation_and_are_pruned_with_their_segments(tmp_path):
    store, core = open_store(tmp_path, fsync="always")
    rec, _ = core.create("pompeii", 3, {}, 1, {})
    for i in range(4):
        play(core, rec, random.Random(i), 2)
        store.alive()
        newest = store.journal.segment
        assert journal.marks(tmp_path)[newest] == journal.segment_path(tmp_path, newest).stat().st_size
        asyncio.run(store.snapshot())
        assert newest not in journal.marks(tmp_path), "sealed when closed: the seal supersedes the mark"
    assert set(journal.marks(tmp_path)) <= set(journal.segments(tmp_path))
    store.close()
    (tmp_path / f"{journal.mark_path(tmp_path, 99).name}.tmp").write_bytes(b"GEE")  # kill -9 mid-write
    recovered(tmp_path)
    assert not list(tmp_path.glob("*.tmp"))
