"""Issue 22, the service side: compact events and log (item 3), the move path's conversions and the
journal's background fsync (item 2)."""
from __future__ import annotations

import gc
import os
import random
import threading
import time

import pytest

from engines.core import PUBLIC
from gameengine import codecs
from gameengine.codecs import MalformedMove
from server import journal, moveprotos, records

from .support import open_store, play


def tracked_reachable(root: object, stop: set[int]) -> tuple[int, int]:
    """(objects, references) a full collection visits among what `root` reaches, not counting the
    objects in `stop`: the tracked objects, and the references their traversal follows."""
    seen, todo, n, refs = set(stop), [root], 0, 0
    while todo:
        o = todo.pop()
        if id(o) in seen or isinstance(o, type):
            continue
        seen.add(id(o))
        referents = gc.get_referents(o)
        if gc.is_tracked(o):
            n, refs = n + 1, refs + len(referents)
        todo.extend(referents)
    return n, refs


def finished_pompeii(tmp_path):
    store, core = open_store(tmp_path)
    rec, _ = core.create("pompeii", 3, {}, 7, {})
    play(core, rec, random.Random(7), 10_000)
    assert core.is_over(rec)
    return store, core, rec


def test_item3_a_finished_games_events_are_a_few_tracked_objects_whatever_their_number(tmp_path):
    store, _, rec = finished_pompeii(tmp_path)
    gc.collect()  # tuples of untracked items leave the collector's sight at their first collection
    assert len(rec.events) > 300
    objects, refs = tracked_reachable(rec.events, {id(rec.game)})
    assert objects <= 5 and refs <= 12  # the EventLog, its arrays and packed messages: none per event
    store.close()


def test_item3_a_games_move_log_is_a_few_tracked_objects_whatever_its_length(tmp_path):
    """A named tuple per move stayed tracked for good (only exact tuples are untracked), so every
    full collection scanned every move in memory; the log is now a few containers."""
    store, _, rec = finished_pompeii(tmp_path)
    gc.collect()
    assert len(rec.log) > 100
    objects, refs = tracked_reachable(rec.log, {id(codecs.codec(rec.game))})
    assert objects <= 9  # the log, its two arrays, the packed moves, keys and referee actions (an array each)
    assert refs <= 24  # none per move (the containers and their types)
    engine = rec.engine  # the moves read back are those played: they rebuild the same game
    assert repr(engine.view(records.rebuild_state(rec), None)) == repr(engine.view(rec.state, None))
    store.close()


def test_item3_the_move_log_reads_like_the_list_of_entries_it_replaces(tmp_path):
    from engines import registry
    from server.movelog import LogEntry, MoveLog
    engine = registry.game("pompeii")
    moves = engine.legal_moves(engine.new_state(3, {}, 1), 0)
    entries = [LogEntry(s % 3, moves[s], f"{s % 3}:k{s}" if s % 2 else "", "autoplay" if s == 4 else "", 10.0 + s)
               for s in range(7)]
    log = MoveLog("pompeii")
    for e in entries:
        log.append(e)
    assert list(log) == entries and len(log) == 7 and bool(log) and not MoveLog("pompeii")
    assert log[0] == entries[0] and log[-1] == entries[-1] and log[2:5] == entries[2:5]
    with pytest.raises(IndexError):
        log[7]
    del log[5:]
    assert list(log) == entries[:5] and log[-1].at == 14.0


def test_item3_stored_events_decode_to_the_events_the_engine_made(tmp_path):
    store, core = open_store(tmp_path)
    rec, _ = core.create("smallworld", 3, {}, 4, {})
    engine, rng, made = rec.engine, random.Random(4), []
    for _ in range(60):
        seat = rng.choice(engine.seats_to_act(rec.state))
        move = rng.choice(engine.legal_moves(rec.state, seat))
        version = rec.version + 1
        made += [(version, e) for e in store.commit(rec, [core_move(seat, move)])]
    c = codecs.codec("smallworld")
    stored = list(rec.events)
    assert [(v, e.kind, e.to) for v, e in stored] == [(v, e.kind, e.to) for v, e in made]
    for i, (_, e) in enumerate(made):  # byte for byte what a stream sends
        assert rec.events.wire(i) == c.event_to_proto(e).SerializeToString()
        assert rec.events.visible_to(i, None) == (e.to is PUBLIC)
    store.close()


def core_move(seat, move):
    from server.records import MoveMade
    return MoveMade(seat, move)


def test_item3_a_refused_write_drops_its_stored_events(tmp_path):
    store, core = open_store(tmp_path)
    rec, _ = core.create("pompeii", 3, {}, 3, {})
    play(core, rec, random.Random(3), 4)
    before = [(rec.events.version(i), rec.events.wire(i)) for i in range(len(rec.events))]
    sp = rec.savepoint()
    play(core, rec, random.Random(5), 3)
    rec.rollback(sp, state_touched=True)
    assert [(rec.events.version(i), rec.events.wire(i)) for i in range(len(rec.events))] == before
    store.close()


def test_item2_each_distinct_move_is_converted_to_protobuf_once(monkeypatch):
    c = codecs.codec("pompeii")
    calls = []
    real = c.move_to_proto
    monkeypatch.setattr(c, "move_to_proto", lambda m: calls.append(m) or real(m))
    monkeypatch.setattr(moveprotos, "_protos", {})
    from engines.pompeii.moves import PlayCard
    first = moveprotos.move_proto(c, PlayCard(3))
    again = moveprotos.move_proto(c, PlayCard(3))
    assert calls == [PlayCard(3)] and again is first and first == real(PlayCard(3))


def test_item2_a_moves_wire_bytes_decode_once_and_a_malformed_move_is_refused_every_time(monkeypatch):
    c = codecs.codec("pompeii")
    calls = []
    real = c.move_from_proto
    monkeypatch.setattr(c, "move_from_proto", lambda m: calls.append(m) or real(m))
    monkeypatch.setattr(moveprotos, "_moves", {})
    from engines.pompeii.moves import PlayCard
    wire = real.__self__.move_to_proto(PlayCard(5)).SerializeToString()
    assert moveprotos.move_from_wire(c, wire) == moveprotos.move_from_wire(c, wire) == PlayCard(5)
    assert len(calls) == 1
    for _ in range(2):
        with pytest.raises(MalformedMove):
            moveprotos.move_from_wire(c, b"")  # no move set
    assert len(calls) == 3


def test_item2_the_background_fsync_does_not_hold_back_appends(tmp_path, monkeypatch):
    """GE_FSYNC=interval: an append (on the event loop) never waits for the syncer's fdatasync,
    and what it wrote during that fdatasync is synced by the next one."""
    store, core = open_store(tmp_path, fsync="interval", fsync_interval_s=3600)
    rec, _ = core.create("pompeii", 3, {}, 2, {})
    play(core, rec, random.Random(2), 1)
    real, started, synced = os.fdatasync, threading.Event(), []

    def slow_sync(fd):
        synced.append(fd)
        started.set()
        time.sleep(0.6)
        real(fd)
    monkeypatch.setattr(journal.os, "fdatasync", slow_sync)
    syncer = threading.Thread(target=store.journal.sync)
    syncer.start()
    assert started.wait(5)
    t0 = time.perf_counter()
    play(core, rec, random.Random(3), 1)  # acknowledged while the fdatasync runs
    waited = time.perf_counter() - t0
    syncer.join()
    assert waited < 0.3, f"the append waited {waited:.2f} s for the background fdatasync"
    store.journal.sync()
    assert len(synced) == 2, "the write made during the first fdatasync was never synced"
    store.close()


def test_item2_two_move_kinds_with_equal_fields_keep_their_own_messages():
    """Moves are named tuples: PlayCard(1, None, None) == another kind's (1, None, None)."""
    import typing

    class Other(typing.NamedTuple):
        number: int
        square: object = None
        origin: object = None
    from engines.pompeii.moves import PlayCard
    c = codecs.codec("pompeii")
    assert Other(1) == PlayCard(1)
    assert moveprotos.move_proto(c, PlayCard(1)) == c.move_to_proto(PlayCard(1))
    with pytest.raises(TypeError):  # not a Pompeii move: the cached PlayCard message is not it
        moveprotos.move_proto(c, Other(1))


def test_item5_a_restored_game_keeps_its_history_bytes_and_a_mixed_history_is_damage(tmp_path):
    import asyncio

    from server import snapshots
    store, core = open_store(tmp_path / "a")
    a, _ = core.create("pompeii", 3, {}, 1, {})
    b, _ = core.create("pompeii", 3, {}, 2, {})
    play(core, a, random.Random(1), 6)
    play(core, b, random.Random(2), 4)
    histories = {g: bytes(r.history) for g, r in store.games.items()}
    asyncio.run(store.snapshot())
    store.close()
    again, _ = open_store(tmp_path / "a")
    assert {g: bytes(r.history) for g, r in again.games.items()} == histories
    assert [(e.seat, e.move) for e in again.games[a.game_id].log] == [(e.seat, e.move) for e in a.log]
    again.close()
    fresh, _ = open_store(tmp_path / "b")
    with pytest.raises(snapshots.SnapshotDamaged, match="holds a record of game"):
        fresh._fold_history(histories[a.game_id] + _other_records(histories, b.game_id), "test")
    fresh.close()


def _other_records(histories, game_id):
    """Game `game_id`'s records after its creation (a stretch of another game's history)."""
    from server import records
    payloads = list(records.history_payloads(histories[game_id]))
    return b"".join(records.history_entry(p) for p in payloads[1:])


def test_item2_a_move_record_is_the_journal_record_messages_encoding():
    """The move's journal record is joined from the move's cached encoding: byte for byte what
    building the JournalRecord message and serializing it gives, in every game, with and without
    an idempotency key or a referee action, and for every head (a player record's empty game id)."""
    from engines import registry
    from gameengine.storage.v1 import storage_pb2 as spb
    from server import records
    from server.records import MoveMade

    from .support import GAMES

    compared = 0
    for game, seats in GAMES:
        engine, rng = registry.game(game), random.Random(22)
        state = engine.new_state(seats, {}, 22)
        for i in range(80):
            if engine.is_over(state):
                break
            seat = rng.choice(engine.seats_to_act(state))
            move = rng.choice(engine.legal_moves(state, seat))
            for record in (MoveMade(seat, move), MoveMade(seat, move, f"{seat}:key-{i}", "autoplay" if i % 2 else "")):
                for game_id, seq, at in (("g-1", i + 1, 1764633600.25 + i), ("", 0, 0.0), ("x" * 200, 2**40, -1.5)):
                    message = spb.JournalRecord(game_id=game_id, seq=seq, at=at)
                    message.move.CopyFrom(record.encode(game))
                    assert records.encode(game_id, seq, at, record, game) == message.SerializeToString()
                    compared += 1
            engine.apply(state, seat, move)
    assert compared > 1000


def test_item3_packed_bytes_read_like_the_list_of_bytes_they_replace():
    from server.packed import PackedBytes
    items = [b"ab", b"", b"\x00\xff", b"xyz" * 50, b""]
    packed = PackedBytes()
    for b in items:
        packed.append(b)
    assert len(packed) == 5 and [packed[i] for i in range(5)] == items and packed[-2] == items[-2]
    with pytest.raises(IndexError):
        packed[5]
    packed.truncate(9)  # past the end: nothing to drop
    packed.truncate(3)
    assert [packed[i] for i in range(len(packed))] == items[:3]
    packed.append(b"q")
    assert packed[3] == b"q"
    packed.truncate(0)
    assert len(packed) == 0
