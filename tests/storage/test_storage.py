"""Issue 16: one write path, a versioned protobuf format, faults never acknowledged, one owner,
private files. In-process against the real Store/GameCore; every fault is injected. In each test
the acknowledged moves are counted after recovery: all of them are kept."""
from __future__ import annotations

import asyncio
import errno
import json
import os
import pickle
import random
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf import json_format

from gameengine import codecs
from gameengine.storage.v1 import storage_pb2 as spb
from server import journal, snapshots
from server.datadir import StartupError
from server.errors import Unavailable
from server.records import Clock, ClockSet, RefereeActed
from server.store import Store

from .support import GAMES, acknowledged, flip, open_store, play, populated, segment_frames

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).parent / "fixtures" / "legacy-a4e5322"


def recover_refused(data_dir: Path) -> str:
    store = Store(data_dir, fsync="never")
    try:
        with pytest.raises(StartupError) as e:
            store.recover()
    finally:
        store.close()
    return str(e.value)


def recovered(data_dir: Path) -> dict[str, tuple]:
    store, _ = open_store(data_dir)
    try:
        return acknowledged(store)
    finally:
        store.close()


def store_cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'protos'}")
    return subprocess.run([sys.executable, "-m", "server.store", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


# ---- item 1: one write path ---------------------------------------------------------------------

def test_item1_a_move_and_its_clock_are_one_write(tmp_path):
    """The clock after a move is journaled in the same write as the move: one failure refuses both."""
    store, core = open_store(tmp_path)
    core.after_move = lambda rec, seat, by_referee: [ClockSet(Clock((5000,) * rec.seats, 1, 123.0))]
    rec, _ = core.create("citadels", 2, {}, 3, {})
    seat = rec.engine.seats_to_act(rec.state)[0]
    before = os.path.getsize(journal.segment_path(tmp_path, 1))
    asyncio.run(core.make_move(rec, seat, 0, "k", rec.engine.legal_moves(rec.state, seat)[0]))
    _, s = segment_frames(tmp_path)
    kinds = [spb.JournalRecord.FromString(f.payload).WhichOneof("write") for f in s.frames]
    assert kinds == ["created", "move", "clock"]
    assert rec.referee_state.clock == Clock((5000, 5000), 1, 123.0)
    assert os.path.getsize(journal.segment_path(tmp_path, 1)) > before
    store.close()


def test_item1_a_retried_move_writes_nothing(tmp_path):
    store, core = open_store(tmp_path)
    rec, _ = core.create("pompeii", 3, {}, 4, {})
    seat = rec.engine.to_move(rec.state)
    move = rec.engine.legal_moves(rec.state, seat)[0]
    asyncio.run(core.make_move(rec, seat, 0, "once", move))
    size = os.path.getsize(journal.segment_path(tmp_path, 1))
    _, replayed = asyncio.run(core.make_move(rec, seat, 0, "once", move))
    assert replayed and os.path.getsize(journal.segment_path(tmp_path, 1)) == size
    store.close()


def test_item1_referee_state_is_typed_and_survives_recovery(tmp_path):
    store, core = open_store(tmp_path)
    rec, _ = core.create("citadels", 3, {}, 9, {"time_bank_ms": 1000, "increment_ms": 0,
                                                "timeout_policy": "forfeit", "max_moves": 0})
    core.write(rec, ClockSet(Clock((1, 2, 3), 2, 99.5)), RefereeActed("forfeit", 1, "test"))
    from server.records import SeatForfeited
    core.write(rec, SeatForfeited(1, "ran out of time"))
    store.close()
    store, core = open_store(tmp_path)
    again = store.games[rec.game_id]
    assert again.referee_state.clock == Clock((1, 2, 3), 2, 99.5)
    assert again.referee_state.forfeited == {1: "ran out of time"}
    assert [e.data["action"] for _, e in again.events if e.kind == "referee"] == ["forfeit"]
    assert core.status(again, None)["forfeited"] == [1]
    store.close()


def test_item1_the_referee_never_writes_through_the_store():
    source = (ROOT / "server" / "referee.py").read_text()
    assert "store.write" not in source and "store.commit" not in source and ".extra" not in source


# ---- item 2: the format ---------------------------------------------------------------------------

def test_item2_every_file_starts_with_magic_and_version_and_holds_storage_protos(tmp_path):
    acked = populated(tmp_path)
    store, _ = open_store(tmp_path)
    asyncio.run(store.snapshot())
    store.close()
    seg = journal.segment_path(tmp_path, 1)
    snap = snapshots.path(tmp_path, snapshots.listed(tmp_path)[-1])
    assert seg.read_bytes()[:8] == b"GEJ\n" + (1).to_bytes(4, "little")
    assert snap.read_bytes()[:8] == b"GES\n" + (1).to_bytes(4, "little")
    moves = 0
    for f in journal.scan(seg, journal.JOURNAL_MAGIC).frames:
        pb = spb.JournalRecord.FromString(f.payload)
        if pb.WhichOneof("write") == "move":
            game = pb.game_id and store.games[pb.game_id].game
            codec = codecs.codec(game)
            assert codec.unpack(pb.move.move, codec.Move).WhichOneof("move")  # the game's own proto move
            moves += 1
    assert moves == sum(v for v, _, _ in acked.values())
    assert b"pickle" not in seg.read_bytes() and b"\x80\x05" not in snap.read_bytes()[:16]


def test_item2_games_are_rebuilt_from_the_journal_alone(tmp_path):
    """Engine state is never stored: a snapshot holds records, recovery re-derives every state."""
    acked = populated(tmp_path, moves=20)
    store, _ = open_store(tmp_path)
    asyncio.run(store.snapshot())
    store.close()
    assert recovered(tmp_path) == acked  # from the snapshot
    for s in snapshots.listed(tmp_path):
        os.unlink(snapshots.path(tmp_path, s))
    assert recovered(tmp_path) == acked  # from the journal alone


def test_item2_previous_release_data_dir_loads_with_every_game_and_move(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(FIXTURE / "data", data)
    expected = json.loads((FIXTURE / "expected.json").read_text())
    for _attempt in ("import", "reload"):  # the import, then the new-format files it wrote
        store, core = open_store(data)
        assert set(store.games) == set(expected)
        for gid, e in expected.items():
            rec = store.games[gid]
            codec = codecs.codec(rec.game)
            assert (rec.game, rec.seats, rec.seed, rec.referee) == (e["game"], e["seats"], e["seed"], e["referee"])
            assert e["options"].items() <= rec.options.items()  # plus that release's resolved defaults
            assert rec.version == e["version"] == len(rec.log)
            assert [{"seat": x.seat, "move": json_format.MessageToDict(codec.move_to_proto(x.move)),
                     "by_referee": x.by_referee} for x in rec.log] == e["log"]
            assert [[v, dict(ev.data)] for v, ev in rec.events if ev.kind == "referee"] == e["referee_events"]
            assert core.is_over(rec) == e["over"]
            forfeited = {int(k): v for k, v in e["extra"].get("forfeited", {}).items()}
            assert rec.referee_state.forfeited == forfeited
            if "adjudication" in e["extra"]:
                assert core.outcome(rec) == e["extra"]["adjudication"]
            if "clock" in e["extra"]:
                assert list(rec.referee_state.clock.bank_ms) == e["extra"]["clock"]["bank_ms"]
            for seat, view in json.loads(json.dumps(e["views"])).items():
                s = None if seat == "None" else int(seat)
                now = json_format.MessageToDict(codec.view_to_proto(rec.engine.view(rec.state, s)))
                # the game keeps the rules it was played under; flags added since take their defaults
                assert view.pop("options").items() <= now.pop("options").items()
                assert now == view
        store.close()
    assert not list(data.glob("*.pickle")) and not list(data.glob("journal-*.log"))
    assert sorted(p.name for p in (data / "legacy-pickle").iterdir()) == sorted(
        p.name for p in (FIXTURE / "data").iterdir())


# ---- item 3: faults -------------------------------------------------------------------------------

@pytest.mark.parametrize("fault", ["short", "ENOSPC", "EIO", "fsync-EIO"])
def test_item3_a_failed_write_is_refused_cut_back_and_changes_nothing(tmp_path, monkeypatch, fault):
    store, core = open_store(tmp_path, fsync="always" if fault == "fsync-EIO" else "never")
    rng = random.Random(5)
    rec, _ = core.create("pompeii", 3, {}, 2, {})
    play(core, rec, rng, 10)
    before = (rec.version, rec.seq, len(rec.events), dict(rec.idem), pickle.dumps(rec.state), bytes(rec.history))
    path = journal.segment_path(tmp_path, 1)
    size = os.path.getsize(path)
    real_write = journal.write

    def broken_write(fd, data):
        if fault == "short":
            return real_write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC if fault == "ENOSPC" else errno.EIO, os.strerror(errno.EIO))

    if fault == "fsync-EIO":
        def broken_sync(fd):
            raise OSError(errno.EIO, "Input/output error")
        monkeypatch.setattr(journal.os, "fdatasync", broken_sync)
    else:
        monkeypatch.setattr(journal, "write", broken_write)
    seat = rec.engine.seats_to_act(rec.state)[0]
    move = rec.engine.legal_moves(rec.state, seat)[0]
    with pytest.raises(Unavailable):
        asyncio.run(core.make_move(rec, seat, rec.version, "lost", move))
    assert (rec.version, rec.seq, len(rec.events), dict(rec.idem), pickle.dumps(rec.state),
            bytes(rec.history)) == before
    assert os.path.getsize(path) == size, "the torn bytes were cut back at once"
    assert store.journal.failed and not store.journal.probe() if fault != "short" else True
    monkeypatch.undo()
    assert store.journal.probe() and store.journal.failed is None
    play(core, rec, rng, 5)  # service resumes
    acked = acknowledged(store)
    store.close()
    assert recovered(tmp_path) == acked


def test_item3_a_segment_that_cannot_be_created_at_startup_refuses_writes_until_it_can(tmp_path, monkeypatch):
    acked = populated(tmp_path, moves=6)

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(journal, "write", full)
    store, core = open_store(tmp_path)  # recovery reads; only the new segment's header is a write
    assert store.journal.failed and acknowledged(store) == acked
    rec = next(iter(store.games.values()))
    seat = rec.engine.seats_to_act(rec.state)[0]
    with pytest.raises(Unavailable):
        asyncio.run(core.make_move(rec, seat, rec.version, "", rec.engine.legal_moves(rec.state, seat)[0]))
    assert not store.journal.probe()
    monkeypatch.undo()
    assert store.journal.probe() and store.journal.failed is None
    play(core, rec, random.Random(3), 4)
    asyncio.run(store.snapshot())  # rotates past the segment start-up could not create, skipping none
    acked = acknowledged(store)
    store.close()
    assert journal.segments(tmp_path) == [1, 2, 3]
    assert recovered(tmp_path) == acked


@pytest.mark.parametrize("region", ["file-magic", "format-version", "length", "crc", "payload"])
def test_item3_a_flipped_byte_in_a_segment_stops_startup_and_repair_keeps_every_move(tmp_path, region):
    acked = populated(tmp_path, moves=15)
    path, s = segment_frames(tmp_path)
    victim = s.frames[len(s.frames) // 2]
    victim_game = spb.JournalRecord.FromString(victim.payload).game_id
    offset = {"file-magic": 1, "format-version": 4, "length": victim.offset + 1, "crc": victim.offset + 5,
              "payload": victim.offset + 8 + len(victim.payload) // 2}[region]
    flip(path, offset)
    message = recover_refused(tmp_path)
    assert path.name in message and "repair" in message
    if region not in ("file-magic", "format-version"):
        assert f"offset {victim.offset}" in message and victim_game in message
    assert os.path.getsize(path) == len(journal.file_header(b"GEJ\n")) + sum(8 + len(f.payload) for f in s.frames)
    check = store_cli("verify", str(tmp_path))
    assert check.returncode == 1 and "DAMAGED" in check.stdout
    assert check.stdout.count(" seq ") >= len(s.frames) - 1  # every record reported
    fix = store_cli("repair", str(tmp_path))
    assert fix.returncode == 0, fix.stdout + fix.stderr
    assert recovered(tmp_path) == acked
    assert store_cli("verify", str(tmp_path)).returncode == 0


def test_item3_two_damaged_bytes_quarantine_the_rest_of_that_game_only(tmp_path):
    acked = populated(tmp_path, moves=15)
    path, s = segment_frames(tmp_path)
    victim = next(f for f in s.frames[len(s.frames) // 2:] if spb.JournalRecord.FromString(f.payload).seq > 0)
    gid = spb.JournalRecord.FromString(victim.payload).game_id
    flip(path, victim.offset + 9, 0xFF)
    flip(path, victim.offset + 11, 0xFF)
    assert gid in recover_refused(tmp_path)
    fix = store_cli("repair", str(tmp_path))
    assert f"game {gid}" in fix.stdout and "quarantine" in fix.stdout
    after = recovered(tmp_path)
    assert {g: v for g, v in after.items() if g != gid} == {g: v for g, v in acked.items() if g != gid}
    if gid in after:  # a prefix: up to the lost record (unless the lost one was its creation)
        assert after[gid][1] == acked[gid][1][: after[gid][0]]
    assert list((tmp_path / "damaged").glob("quarantine-*.gej"))


def test_item3_only_the_torn_tail_of_the_newest_segment_is_dropped(tmp_path):
    acked = populated(tmp_path, moves=8)
    path = journal.segment_path(tmp_path, 1)
    with open(path, "ab") as f:
        f.write(journal.frame(b"x" * 40)[:20])  # a write cut short by a crash
    assert recovered(tmp_path) == acked
    # The same tear in a segment that is not the newest (recovery opened segment 2) is damage.
    size = os.path.getsize(path)
    with open(path, "ab") as f:
        f.write(journal.frame(b"x" * 40)[:20])
    assert f"{path.name} offset {size}" in recover_refused(tmp_path)
    assert os.path.getsize(path) == size + 20, "nothing is cut from an older segment"


def test_a_whole_last_record_hit_in_two_bytes_stops_startup_it_is_not_a_torn_write(tmp_path):
    """A frame that reaches the file's end was written whole (a crash tears a prefix): two bytes hit
    since were dropped as a torn write, and with them an acknowledged move."""
    populated(tmp_path, moves=15)
    path, s = segment_frames(tmp_path)
    victim = s.frames[-1]
    flip(path, victim.offset + 8 + 2)
    flip(path, victim.offset + 8 + len(victim.payload) - 2)
    size = os.path.getsize(path)
    message = recover_refused(tmp_path)
    assert f"{path.name} offset {victim.offset}" in message and "not a torn" in message
    assert os.path.getsize(path) == size, "nothing was cut"


def test_zeros_a_power_loss_left_at_the_newest_segments_end_are_a_torn_tail(tmp_path):
    """Eight zero bytes read as an empty frame (crc32 of nothing is 0): zeros at the end of the newest
    segment stopped startup as "a record of a kind this server does not know"."""
    from server import metrics
    acked = populated(tmp_path, moves=8)
    path = journal.segment_path(tmp_path, 1)
    size = os.path.getsize(path)
    with open(path, "ab") as f:
        f.write(bytes(4096))
    dropped = metrics.RECOVERY_MENDS.labels("torn_tail")._value.get()
    assert recovered(tmp_path) == acked
    assert metrics.RECOVERY_MENDS.labels("torn_tail")._value.get() == dropped + 1
    assert os.path.getsize(path) == size


def test_a_record_hit_in_its_crc_and_its_payload_is_not_taken_for_a_crc_hit():
    """repair took a record whose CRC field and payload were both hit for a hit on the CRC field alone;
    the payload still parsed and fitted, so the next start applied a move nobody made."""
    payload = b"\x0a\x10" + bytes(range(16)) + b"\x18\x07"
    data = bytearray(journal.file_header(journal.JOURNAL_MAGIC) + journal.frame(payload))
    at = journal.FILE_HEADER.size
    data[at + 5] ^= 0x01  # a byte of the CRC field
    damage = journal.Damage(at, len(data), "CRC mismatch", tail=True)
    suspect = journal.crc_suspect(bytes(data), damage)
    assert suspect is not None and suspect.payload == payload  # the CRC field alone: a candidate
    data[-3] ^= 0x04  # and a bit of the payload
    assert journal.crc_suspect(bytes(data), damage) is None


@pytest.mark.parametrize("written", [0, 3])
def test_a_kill_between_creating_the_newest_segment_and_its_header_restarts_by_itself(tmp_path, written):
    """kill -9 between a segment's creation and its header write (at every start and rotation) left a
    file shorter than its header, and the server refused to start until an operator ran repair."""
    from server import metrics
    acked = populated(tmp_path, moves=8)
    newest = journal.segment_path(tmp_path, journal.segments(tmp_path)[-1] + 1)
    newest.write_bytes(journal.file_header(journal.JOURNAL_MAGIC)[:written])
    mended = metrics.RECOVERY_MENDS.labels("segment_header")._value.get()
    assert recovered(tmp_path) == acked
    assert metrics.RECOVERY_MENDS.labels("segment_header")._value.get() == mended + 1  # an operator can see it
    assert newest.read_bytes() == journal.file_header(journal.JOURNAL_MAGIC)
    assert recovered(tmp_path) == acked  # and again, from what recovery left
    # Anything else short of a header, or in an older segment, is damage: startup still stops.
    newest.write_bytes(b"XYZ")
    assert "shorter than its" in recover_refused(tmp_path)


@pytest.mark.parametrize("region", ["length", "crc", "payload"])
def test_item3_a_flipped_byte_in_the_newest_segments_last_record_is_damage_not_a_torn_write(tmp_path, region):
    """A whole last record was written (its bytes reach the file's end) and then changed: it was
    acknowledged, so recovery must refuse, not drop it as a torn write; repair mends it."""
    acked = populated(tmp_path, moves=15)
    path, s = segment_frames(tmp_path)
    victim = s.frames[-1]
    assert victim.offset + 8 + len(victim.payload) == os.path.getsize(path)
    offset = {"length": victim.offset + 1, "crc": victim.offset + 5,
              "payload": victim.offset + 8 + len(victim.payload) // 2}[region]
    flip(path, offset)
    size = os.path.getsize(path)
    message = recover_refused(tmp_path)
    assert f"{path.name} offset {victim.offset}" in message and "not a torn" in message and "repair" in message
    assert os.path.getsize(path) == size, "nothing was cut"
    fix = store_cli("repair", str(tmp_path))
    assert fix.returncode == 0 and "mended" in fix.stdout, fix.stdout + fix.stderr
    assert recovered(tmp_path) == acked


def test_item3_a_torn_tail_is_kept_aside_when_it_is_cut(tmp_path):
    acked = populated(tmp_path, moves=8)
    path = journal.segment_path(tmp_path, 1)
    size = os.path.getsize(path)
    torn = journal.frame(b"x" * 40)[:30]
    with open(path, "ab") as f:
        f.write(torn)
    assert recovered(tmp_path) == acked
    assert os.path.getsize(path) == size
    (kept,) = (tmp_path / "damaged").glob(f"{path.name}.{size}.*.torn")
    assert kept.read_bytes() == torn


@pytest.mark.parametrize("damage", ["file-magic", "header-length", "header-crc", "game-payload", "half-deleted"])
def test_item3_a_damaged_snapshot_falls_back_to_the_previous_one(tmp_path, damage):
    store, core = open_store(tmp_path)
    rng = random.Random(8)
    recs = [core.create(g, n, {}, rng.randrange(99), {})[0] for g, n in GAMES]
    for _snap_round in range(2):
        for rec in recs:
            play(core, rec, rng, 6)
        asyncio.run(store.snapshot())
    for rec in recs:
        play(core, rec, rng, 3)
    acked = acknowledged(store)
    store.close()
    assert len(snapshots.listed(tmp_path)) == 2
    newest = snapshots.path(tmp_path, snapshots.listed(tmp_path)[-1])
    s = journal.scan(newest, journal.SNAPSHOT_MAGIC)
    if damage == "half-deleted":
        os.truncate(newest, newest.stat().st_size // 2)
    else:
        offset = {"file-magic": 0, "header-length": s.frames[0].offset, "header-crc": s.frames[0].offset + 4,
                  "game-payload": s.frames[2].offset + 8 + len(s.frames[2].payload) // 2}[damage]
        flip(newest, offset)
    assert recovered(tmp_path) == acked


def test_item3_a_damaged_only_snapshot_falls_back_to_the_whole_journal(tmp_path):
    acked = populated(tmp_path)
    store, _ = open_store(tmp_path)
    asyncio.run(store.snapshot())
    store.close()
    only = snapshots.path(tmp_path, snapshots.listed(tmp_path)[0])
    os.truncate(only, only.stat().st_size // 2)
    assert recovered(tmp_path) == acked


@pytest.mark.parametrize("lost", ["newest", "all"])
def test_item3_a_missing_newest_segment_stops_startup(tmp_path, lost):
    """A snapshot's segment is created before the snapshot is written, so journal-N must be there
    when snapshot-N is: without it the moves made after the snapshot are gone."""
    store, core = open_store(tmp_path)
    rec, _ = core.create("citadels", 3, {}, 1, {})
    play(core, rec, random.Random(1), 3)
    asyncio.run(store.snapshot())
    play(core, rec, random.Random(2), 3)
    store.close()
    newest = journal.segments(tmp_path)[-1]
    assert snapshots.listed(tmp_path)[-1] == newest
    for seg in journal.segments(tmp_path) if lost == "all" else [newest]:
        os.unlink(journal.segment_path(tmp_path, seg))
    message = recover_refused(tmp_path)
    assert journal.segment_path(tmp_path, newest).name in message and "missing" in message
    assert snapshots.listed(tmp_path)[-1] == newest, "nothing was changed"


def test_item3_a_snapshot_cut_short_by_a_crash_leaves_no_file_behind(tmp_path):
    acked = populated(tmp_path, moves=5)
    (tmp_path / "snapshot-00000002.tmp").write_bytes(b"GES\n" + b"\0" * 5000)  # kill -9 mid-write
    store, _ = open_store(tmp_path)
    try:
        assert acknowledged(store) == acked
    finally:
        store.close()
    assert not list(tmp_path.glob("*.tmp"))


def test_item3_snapshots_keep_the_segments_the_previous_one_needs(tmp_path):
    store, core = open_store(tmp_path)
    rec, _ = core.create("citadels", 3, {}, 1, {})
    for _ in range(3):
        play(core, rec, random.Random(1), 3)
        asyncio.run(store.snapshot())
    store.close()
    have = snapshots.listed(tmp_path)
    assert len(have) == 2 and min(journal.segments(tmp_path)) == have[0]


# ---- items 4 and 5: one owner, private files ----------------------------------------------------------

def test_item4_a_second_store_on_the_same_dir_refuses_and_names_the_holder(tmp_path):
    store, _ = open_store(tmp_path)
    with pytest.raises(StartupError) as e:
        Store(tmp_path)
    assert f"pid {os.getpid()}" in str(e.value) and "one server per data dir" in str(e.value)
    store.close()
    Store(tmp_path).close()  # released on close (and by the kernel when a process dies)


def test_item5_data_dir_is_0700_and_its_files_0600(tmp_path):
    data = tmp_path / "d"
    data.mkdir(mode=0o755)
    (data / "snapshot-00000009.ges.tmp").write_bytes(b"")
    os.chmod(data / "snapshot-00000009.ges.tmp", 0o644)
    populated(data)
    store, _ = open_store(data)
    asyncio.run(store.snapshot())
    store.close()
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    for p in data.iterdir():
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, p.name


def test_item3_a_failed_background_fsync_refuses_writes_until_one_succeeds(tmp_path, monkeypatch):
    store, core = open_store(tmp_path, fsync="interval", fsync_interval_s=3600)
    rec, _ = core.create("citadels", 3, {}, 6, {})
    play(core, rec, random.Random(2), 3)

    def broken_sync(fd):
        raise OSError(errno.EIO, "Input/output error")
    monkeypatch.setattr(journal.os, "fdatasync", broken_sync)
    store.journal.sync()
    assert store.journal.failed.startswith("fsync: EIO")
    version = rec.version
    with pytest.raises(Unavailable):
        play(core, rec, random.Random(3), 1)
    assert rec.version == version
    monkeypatch.undo()
    play(core, rec, random.Random(3), 2)
    assert rec.version == version + 2 and store.journal.failed is None
    acked = acknowledged(store)
    store.close()
    assert recovered(tmp_path) == acked


def test_item3_missing_snapshots_stop_startup_instead_of_dropping_their_games(tmp_path):
    store, core = open_store(tmp_path)
    rec, _ = core.create("pompeii", 3, {}, 1, {})
    for _ in range(3):  # three snapshots: the first segments are pruned
        play(core, rec, random.Random(4), 2)
        asyncio.run(store.snapshot())
    store.close()
    for s in snapshots.listed(tmp_path):
        os.unlink(snapshots.path(tmp_path, s))
    assert "snapshot that held the games before it is missing" in recover_refused(tmp_path)


def test_item1_participation_records_use_the_same_path_and_survive_snapshot_and_journal(tmp_path):
    """Players, notifications and seatings are record kinds of the one write path: journaled as
    storage protos, kept in snapshots, rebuilt at recovery."""
    import dataclasses

    from engines.core import Event
    from server.participation import PlayerNotified, PlayerRegistered, Seating, SeatingChanged

    store, core = open_store(tmp_path)
    store.write_player(PlayerRegistered("p-1", "alice", "h1", 1.0))
    store.write_player(PlayerRegistered("p-2", "bob", "h2", 2.0))
    seating = Seating(["p-1", ""], "p-1", False, "", 1.0, 99.0, [1, 0], [False, False])
    rec, tokens = core.create("pompeii", 2, {}, 3, {}, seating)
    assert tokens[0] and tokens[1] == "" and rec.token_hashes[1] == ""
    started = dataclasses.replace(seating, holders=["p-1", "p-2"], claims=[1, 1], started=True)
    core.write(rec, SeatingChanged(started, {1: "h-seat1"}, (Event("game_started", {"seat_holders": []}),)))
    status = core.status(rec, 0)
    store.write_player(PlayerNotified("p-2", 1, "your_turn", rec.game_id, "pompeii", 1, ("turn", 0), status, None))
    for with_snapshot in (False, True):
        if with_snapshot:
            asyncio.run(store.snapshot())
        store.close()
        store, core = open_store(tmp_path)
        again = store.games[rec.game_id]
        assert again.seating == started and again.token_hashes == [rec.token_hashes[0], "h-seat1"]
        assert [e.kind for _, e in again.events] == ["game_started"]
        bob = store.players.by_id["p-2"]
        assert store.players.by_name == {"alice": "p-1", "bob": "p-2"} and bob.last_cursor == 1
        assert bob.progress == {(rec.game_id, 1): {"turn": 0}}
        from gameengine.v1 import common_pb2
        assert common_pb2.GameStatus(**bob.events[0].status) == common_pb2.GameStatus(**status)
    store.close()


def test_item1_a_waiting_game_gets_its_clock_when_it_starts_not_at_creation(tmp_path):
    import dataclasses

    from server.config import Config
    from server.participation import Seating, SeatingChanged
    from server.referee import Referee

    store, core = open_store(tmp_path)
    referee = Referee(core, Config())
    seating = Seating(["p-1", ""], "p-1", False, "", 1.0, 1e12, [1, 0], [False, False])
    rec, _ = core.create("pompeii", 2, {}, 3, {"time_bank_ms": 5000, "increment_ms": 0,
                                             "timeout_policy": "autoplay", "max_moves": 0}, seating)
    assert rec.referee_state.clock is None  # nobody is charged while the game waits
    core.write(rec, SeatingChanged(dataclasses.replace(seating, holders=["p-1", "p-2"], started=True)))
    referee.on_create(rec)
    assert rec.referee_state.clock.bank_ms == (5000, 5000) and rec.game_id in referee.watched
    referee.close()
    store.close()


def test_item3_repairing_snapshots_with_no_intact_fallback_keeps_their_players(tmp_path):
    """Both kept snapshots damaged in one game and the journal before them compacted away: each is
    rewritten with its intact games, and the players in its header must come along (they were dropped)."""
    from server.participation import PlayerRegistered

    store, core = open_store(tmp_path)
    store.write_player(PlayerRegistered("p-1", "alice", "h1", 1.0))
    rng = random.Random(5)
    recs = [core.create(g, n, {}, rng.randrange(99), {})[0] for g, n in GAMES]
    for _ in range(3):
        for rec in recs:
            play(core, rec, rng, 2)
        asyncio.run(store.snapshot())
    store.close()
    have = snapshots.listed(tmp_path)
    assert len(have) == 2 and journal.segments(tmp_path)[:1] != [1], "the journal before them is compacted"
    for seg in have:
        snap = snapshots.path(tmp_path, seg)
        s = journal.scan(snap, journal.SNAPSHOT_MAGIC)
        flip(snap, s.frames[2].offset + 8 + len(s.frames[2].payload) // 2)
    out = store_cli("repair", str(tmp_path))
    assert "rewritten with" in out.stdout and "1 players" in out.stdout, out.stdout + out.stderr
    store, _ = open_store(tmp_path)
    assert store.players.by_name == {"alice": "p-1"}
    store.close()


@pytest.mark.parametrize("game,seats", GAMES)
def test_a_game_journals_every_option_so_a_later_default_cannot_change_it(tmp_path, game, seats, monkeypatch):
    """Creation records carry every option, the defaults resolved (they carried only the set ones,
    so changing a default in a release would have changed the replay of every older game)."""
    from engines import registry

    store, core = open_store(tmp_path)
    rec, _ = core.create(game, seats, {}, 4, {})
    defaults = registry.spec(game).defaults()
    store.close()
    engine = registry.game(game)
    monkeypatch.setattr(type(engine), "default_options", lambda self: {})  # a release that forgets them
    store, _ = open_store(tmp_path)
    assert store.games[rec.game_id].options == defaults
    store.close()


def test_storage_is_generic_over_the_registry():
    """storage.proto names no game: a game's options, moves and events are google.protobuf.Any of the
    game's own messages, so a game added to engines/registry.py journals with no storage change."""
    text = (ROOT / "protos" / "gameengine" / "storage" / "v1" / "storage.proto").read_text()
    proto = "\n".join(line.split("//")[0] for line in text.splitlines())  # declarations, not comments
    assert "google.protobuf.Any" in proto
    for game in codecs.load_all().values():
        assert f"{game.prefix}Move" not in proto and f'"gameengine/v1/{game.game_id}.proto"' not in proto
    assert {g for g, _ in GAMES} == set(codecs.load_all())  # every registered game


def test_a_stored_message_of_another_game_is_refused_at_recovery(tmp_path):
    """A move whose Any holds another game's message type is a damaged record, never misread."""
    from engines.citadels.moves import TakeGold
    from server import records
    pb = spb.JournalRecord(game_id="g", seq=1)
    pb.move.move.CopyFrom(codecs.Codec.pack(codecs.codec("citadels").move_to_proto(TakeGold())))
    with pytest.raises(records.FormatError, match="gameengine.v1.PompeiiMove"):
        records.decode(pb, "pompeii")


def test_a_graceful_stop_marks_the_server_last_alive_when_it_stops_serving(tmp_path):
    """A restart charges the seat on turn up to the last alive mark (clock.resumed): the drain and the
    final snapshot that follow a stop, seconds with many games, are not the seat's thinking time."""
    import time

    from server import datadir
    store, _ = open_store(tmp_path)
    store.stop_serving()
    marked = datadir.last_alive(tmp_path)
    time.sleep(0.3)
    store.alive()  # the periodic mark, still running while the server drains
    store.close()
    assert marked is not None and datadir.last_alive(tmp_path) == marked
