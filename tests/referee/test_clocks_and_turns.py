"""Issue 15 items 1-6: clocks follow the seat the game waits for; replays, the move cap,
clock bounds and a dead worker process. Every test runs against a real server."""
from __future__ import annotations

import os
import random
import signal
import threading
import time
import uuid
from pathlib import Path

import grpc
import pytest

from clients.sdk import Client, Refused
from gameengine.v1 import common_pb2
from tests.conftest import ServerProcess


@pytest.fixture(scope="module")
def clock_server(tmp_path_factory):
    s = ServerProcess(tmp_path_factory.mktemp("clocks"), GE_AUTOPLAY_MS="5", GE_REFEREE_TICK_S="0.02",
                      GE_HINT_WORKERS="1", GE_HINT_QUEUE="0", GE_HINT_MAX_MS="4000").start()
    yield s
    s.stop()


def raw_status(client: Client, game_id: str) -> common_pb2.GameStatus:
    return client.common.GetGameStatus(common_pb2.GetGameStatusRequest(game_id=game_id)).status


def actor_of(status) -> int | None:
    return next((s for s in status.seats_to_act if status.acts(s)), None)


def play_random(client: Client, game_id: str, tokens: list[str], rng: random.Random, until) -> None:
    """Random legal moves for whoever the game waits for, until `until(status, view)` holds."""
    seats = [client.seat(game_id, s, t) for s, t in enumerate(tokens)]
    spectator = client.spectator(game_id)
    for _ in range(5000):
        status, view = spectator.view()
        assert not status.over, "the game ended before the wanted state"
        if until(status, view):
            return
        actor = actor_of(status)
        seats[actor].move(rng.choice(seats[actor].legal()), expected_version=status.version)
    raise AssertionError("wanted state not reached")


def test_item1_smallworld_defender_is_charged_not_the_attacker(clock_server):
    client = Client(clock_server.target, "smallworld")
    game_id, tokens = client.create(3, seed=21, time_bank_ms=600_000, increment_ms=0, timeout_policy="random")
    play_random(client, game_id, tokens, random.Random(4), lambda s, v: v["phase"] == "defend")
    status = raw_status(client, game_id)
    defender, attacker = status.seats_to_act[0], status.current_player
    assert defender != attacker
    assert status.to_move == defender, "to_move is the seat the game waits for (SW-82 defender)"
    before = list(status.time_bank_ms)
    time.sleep(0.6)
    after = list(raw_status(client, game_id).time_bank_ms)
    assert after[defender] <= before[defender] - 400, "the defender's thinking time is charged to it"
    assert after[attacker] == before[attacker], "the attacker is not charged while the defender thinks"
    # The defender answers: its time was booked, and the attacker's clock runs again.
    seat = client.seat(game_id, defender, tokens[defender])
    seat.move(seat.legal()[0], expected_version=status.version)
    booked = list(raw_status(client, game_id).time_bank_ms)
    assert booked[defender] <= before[defender] - 400 and booked[attacker] == before[attacker]
    client.close()


def test_item1_random_timeout_plays_the_defender(clock_server):
    """The seats play until a defender must redeploy, then nobody moves: the defender runs out
    of time and the referee answers for it (it used to time out the attacker, who has no
    legal move, and the game stalled for good)."""
    client = Client(clock_server.target, "smallworld")
    game_id, tokens = client.create(3, seed=21, time_bank_ms=5_000, increment_ms=0, timeout_policy="random")
    play_random(client, game_id, tokens, random.Random(4), lambda s, v: v["phase"] == "defend")
    status = raw_status(client, game_id)
    defender, attacker = status.to_move, status.current_player
    deadline = time.time() + 20
    while time.time() < deadline and raw_status(client, game_id).version == status.version:
        time.sleep(0.05)
    entries = client.spectator(game_id).log().entries
    assert len(entries) > status.version, "the game went on"
    answer = entries[status.version]
    assert answer.by_referee and answer.seat == defender != attacker
    assert raw_status(client, game_id).time_bank_ms[attacker] > 0, "the attacker was not charged"
    client.close()


def test_item3_replayed_key_does_not_move_the_clock(clock_server):
    client = Client(clock_server.target, "smallworld")
    game_id, tokens = client.create(3, seed=22, time_bank_ms=60_000, increment_ms=5_000)
    status = raw_status(client, game_id)
    seat = status.to_move
    sc = client.seat(game_id, seat, tokens[seat])
    move = client.codec.move_to_proto(sc.legal()[0])
    req = client.request("make_move", game_id=game_id, token=tokens[seat], expected_version=status.version,
                      idempotency_key=uuid.uuid4().hex, move=move)
    first = client.rpcs["make_move"](req)
    assert not first.replayed and first.status.to_move == seat, "the seat is still to move (SW-50b turn)"
    banked = first.status.time_bank_ms[seat]
    for _ in range(20):
        again = client.rpcs["make_move"](req)
        assert again.replayed
    assert again.status.version == first.status.version
    assert again.status.time_bank_ms[seat] <= banked, "20 replays added no increment"
    client.close()


def test_item4_moves_refused_at_the_cap_while_workers_are_busy(clock_server):
    client = Client(clock_server.target, "pompeii")
    busy_id, busy_tokens = client.create(2, seed=23)
    busy_seat = raw_status(client, busy_id).to_move
    hinting = threading.Thread(target=lambda: client.seat(busy_id, busy_seat, busy_tokens[busy_seat]).hint(3500))
    hinting.start()  # the only worker slot (GE_HINT_WORKERS=1, GE_HINT_QUEUE=0)
    try:
        time.sleep(0.3)
        with pytest.raises(Refused) as e:
            client.seat(busy_id, busy_seat, busy_tokens[busy_seat]).hint(100)
        assert e.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED, "the pool is busy"
        game_id, tokens = client.create(2, seed=24, max_moves=5)
        seats = [client.seat(game_id, s, t) for s, t in enumerate(tokens)]
        rng = random.Random(5)
        for version in range(5):
            status = raw_status(client, game_id)
            legal = seats[status.to_move].legal()
            seats[status.to_move].move(rng.choice(legal), expected_version=version)
        status = raw_status(client, game_id)
        assert status.version == 5 and not status.over
        assert list(status.seats_to_act) == [] and status.to_move == -1, "nobody is waited for at the cap"
        for seat in seats:
            assert seat.legal() == []
            with pytest.raises(Refused) as e:
                seat.move(legal[0], expected_version=5)
            assert e.value.code == grpc.StatusCode.FAILED_PRECONDITION and e.value.rule == "REF-MAX-MOVES"
            assert "move cap of 5" in str(e.value)
    finally:
        hinting.join()
    deadline = time.time() + 30  # the cap's adjudication is retried once the worker is free
    while time.time() < deadline and not raw_status(client, game_id).over:
        time.sleep(0.1)
    final = raw_status(client, game_id)
    assert final.over and final.outcome.adjudicated and final.version == 5
    client.close()


def test_item4_adjudicate_game_refuses_moves_while_it_scores(clock_server):
    client = Client(clock_server.target, "smallworld")
    game_id, tokens = client.create(3, seed=25, time_bank_ms=600_000)
    seats = [client.seat(game_id, s, t) for s, t in enumerate(tokens)]
    rng = random.Random(6)
    for _ in range(4):
        status = raw_status(client, game_id)
        seats[status.to_move].move(rng.choice(seats[status.to_move].legal()), expected_version=status.version)
    status = raw_status(client, game_id)
    scored_at, mover = status.version, seats[status.to_move]
    pending = mover.legal()[0]
    done: list = []
    adjudicating = threading.Thread(target=lambda: done.append(client.adjudicate(game_id, tokens, "test", 400)))
    adjudicating.start()
    refusals = accepted = 0
    banks = set()  # as shown while it scores: stopped, so no seat is charged
    while adjudicating.is_alive():
        try:
            mover.move(pending, expected_version=scored_at)
            accepted += 1
        except Refused as e:
            assert e.code == grpc.StatusCode.FAILED_PRECONDITION, e
            refusals += e.rule == "REF-ADJUDICATING"
            if e.rule == "REF-ADJUDICATING":
                banks.add(tuple(raw_status(client, game_id).time_bank_ms))
        time.sleep(0.02)
    adjudicating.join()
    final = raw_status(client, game_id)
    assert accepted == 0 and refusals > 0
    assert final.over and final.outcome.adjudicated and final.version == scored_at, "the scored version is final"
    assert banks == {tuple(final.time_bank_ms)}, "the banks stood still from the adjudication on"
    client.close()


def journal_bytes(data_dir: Path) -> dict[str, int]:
    return {p.name: p.stat().st_size for p in data_dir.iterdir() if p.name != "server.log"}


def test_item5_clock_over_int32_is_refused_and_creates_nothing(tmp_path):
    # A server of its own: the shared one's clocked games journal timeouts at any moment.
    server = ServerProcess(tmp_path).start()
    try:
        client = Client(server.target, "pompeii")
        before = journal_bytes(server.data_dir)
        for bank, increment in ((2**31, 0), (60_000, 2**31), (2**32 - 1, 2**32 - 1)):
            with pytest.raises(Refused) as e:
                client.create(2, seed=26, time_bank_ms=bank, increment_ms=increment)
            assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT and e.value.rule == "REF-CLOCK"
            assert "at most" in str(e.value)
        assert journal_bytes(server.data_dir) == before, "a refused create journals nothing"
        client.close()
    finally:
        server.stop()


def test_item5_banks_past_int32_are_shown_exactly(clock_server):
    """The largest clock allowed: a week's bank plus a day per move passes 2^31 ms after 18 moves."""
    client = Client(clock_server.target, "pompeii")
    week, day = 7 * 24 * 3600 * 1000, 24 * 3600 * 1000
    game_id, tokens = client.create(2, seed=27, time_bank_ms=week, increment_ms=day)
    seats = [client.seat(game_id, s, t) for s, t in enumerate(tokens)]
    rng = random.Random(7)
    moved = [0, 0]
    while max(moved) < 20:
        status = raw_status(client, game_id)
        assert not status.over
        seats[status.to_move].move(rng.choice(seats[status.to_move].legal()), expected_version=status.version)
        moved[status.to_move] += 1
    banks = raw_status(client, game_id).time_bank_ms
    top = max(range(2), key=lambda s: moved[s])
    assert banks[top] > 2**31
    assert week + moved[top] * day - 60_000 <= banks[top] <= week + moved[top] * day
    client.close()


def test_item5_int64_banks_are_wire_compatible_with_int32():
    """Old readers (int32) parse the int64 field: same varint encoding, packed."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    proto = descriptor_pb2.FileDescriptorProto(name="old_status.proto", package="old", syntax="proto3")
    msg = proto.message_type.add(name="GameStatus")
    msg.field.add(name="time_bank_ms", number=10, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT32,
                  label=descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    Old = message_factory.GetMessageClass(pool.FindMessageTypeByName("old.GameStatus"))
    banks = [0, 1, 700, 2**31 - 1]
    new = common_pb2.GameStatus(time_bank_ms=banks).SerializeToString()
    assert list(Old.FromString(new).time_bank_ms) == banks
    assert list(common_pb2.GameStatus.FromString(Old(time_bank_ms=banks).SerializeToString()).time_bank_ms) == banks


def worker_pids(server_pid: int) -> list[int]:
    """The server's pool workers (spawned children running spawn_main), not its resource tracker."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == server_pid and b"spawn_main" in cmdline:
            pids.append(int(entry.name))
    return pids


def test_item6_killed_worker_is_replaced(fresh_server):
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    server = fresh_server(GE_AUTOPLAY_MS="5", GE_REFEREE_TICK_S="0.02", GE_HINT_WORKERS="1").start()
    client = Client(server.target, "pompeii")
    game_id, tokens = client.create(2, seed=28)
    seat = client.seat(game_id, raw_status(client, game_id).to_move, tokens[raw_status(client, game_id).to_move])
    seat.hint(50)
    clocked_id, _ = client.create(2, seed=29, time_bank_ms=20, timeout_policy="autoplay")
    (old,) = worker_pids(server.proc.pid)
    os.kill(old, signal.SIGKILL)  # as the OOM killer would
    time.sleep(0.5)
    best, _ = seat.hint(50)  # the pool is replaced and the hint retried once
    assert best in seat.legal()
    (new,) = worker_pids(server.proc.pid)
    assert new != old
    moved = raw_status(client, clocked_id).version
    time.sleep(1.5)
    assert raw_status(client, clocked_id).version > moved, "clocked AUTOPLAY games keep moving"
    os.kill(new, signal.SIGKILL)
    time.sleep(0.5)
    final = client.adjudicate(game_id, tokens, "after a worker died", 50)
    assert final.over and final.outcome["adjudicated"]
    with grpc.insecure_channel(server.target) as ch:
        health = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest())
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    client.close()


def test_search_workers_end_with_a_server_killed_with_9(fresh_server):
    """A worker left behind by kill -9 kept running (and kept the spawn's resource tracker) until killed by hand."""
    server = fresh_server(GE_HINT_WORKERS="1").start()
    client = Client(server.target, "pompeii")
    game_id, tokens = client.create(2, seed=30)
    seat = client.seat(game_id, raw_status(client, game_id).to_move, tokens[raw_status(client, game_id).to_move])
    seat.hint(50)
    (worker,) = worker_pids(server.proc.pid)
    client.close()
    server.kill9()
    deadline = time.time() + 10
    while Path(f"/proc/{worker}").exists() and time.time() < deadline:
        time.sleep(0.1)
    assert not Path(f"/proc/{worker}").exists(), "the search worker outlived the server"


def test_a_seat_that_moved_before_the_forfeit_task_ran_is_not_forfeited(tmp_path):
    """The referee reads the clock on its tick and acts in a task of its own. A move that landed in
    between ended the timeout, but autoplay and random checked the version and the forfeit did not:
    a seat that had just moved could still forfeit."""
    import asyncio

    from server.config import Config
    from server.referee import Referee
    from tests.storage.support import open_store

    store, core = open_store(tmp_path)
    referee = Referee(core, Config())
    rec, _ = core.create("pompeii", 3, {}, 1, {"time_bank_ms": 1000, "increment_ms": 0, "timeout_policy": "forfeit",
                                               "max_moves": 0})
    seat = core.to_move(rec)

    async def scenario() -> None:
        referee._spawn(rec, seat, "forfeit", f"seat {seat} ran out of time")  # what a tick does
        move = rec.engine.legal_moves(rec.state, seat)[0]
        await core.make_move(rec, seat, rec.version, "k", move)  # lands before the referee's task runs
        await asyncio.gather(*referee._tasks)

    asyncio.run(scenario())
    assert seat not in rec.referee_state.forfeited
    referee.close()
    store.close()


@pytest.mark.parametrize("policy", ["forfeit", "autoplay"])
def test_REF_TIMEOUT_a_seat_whose_bank_ran_out_cannot_move_before_the_referees_next_tick(fresh_server, policy):
    """The referee checks clocks once a tick; between its checks, a seat out of time is still out of
    time: its move is refused, changes nothing, and the referee takes the turn at its next check."""
    server = fresh_server(GE_REFEREE_TICK_S="2", GE_AUTOPLAY_MS="5").start()
    client = Client(server.target, "pompeii")
    game_id, tokens = client.create(3, seed=21, time_bank_ms=300, increment_ms=0, timeout_policy=policy)
    actor = raw_status(client, game_id).to_move
    seat = client.seat(game_id, actor, tokens[actor])
    move = seat.legal()[0]
    time.sleep(0.5)
    assert raw_status(client, game_id).time_bank_ms[actor] == 0
    assert seat.legal() == [], "what ListMoves offers, MakeMove accepts: nothing"
    with pytest.raises(Refused) as e:
        seat.move(move, expected_version=0)
    assert e.value.code == grpc.StatusCode.FAILED_PRECONDITION and e.value.rule == "REF-TIMEOUT"
    assert f"seat {actor} ran out of time" in e.value.message
    assert raw_status(client, game_id).version == 0, "the refusal changed nothing"
    deadline = time.time() + 30
    while time.time() < deadline and raw_status(client, game_id).version == 0 and not (
            raw_status(client, game_id).forfeited):
        time.sleep(0.1)
    status = raw_status(client, game_id)
    assert (list(status.forfeited) == [actor]) if policy == "forfeit" else status.version == 1, \
        "the referee took the turn"
    client.close()


def test_REF_TIMEOUT_a_seat_out_of_time_stays_out_the_referees_moves_earn_it_no_increment(fresh_server):
    """The referee's move for a seat earned the seat the increment: its bank refilled, and its own moves
    were accepted again after it had run out."""
    server = fresh_server(GE_REFEREE_TICK_S="0.05", GE_AUTOPLAY_MS="5").start()
    client = Client(server.target, "pompeii")
    game_id, tokens = client.create(2, seed=4, time_bank_ms=300, increment_ms=1500, timeout_policy="random")
    out = raw_status(client, game_id).to_move
    other = 1 - out
    seats = [client.seat(game_id, s, t) for s, t in enumerate(tokens)]
    rng = random.Random(2)
    time.sleep(0.5)  # `out` runs out of time at its first turn
    deadline = time.time() + 60
    referee_moves = 0
    while time.time() < deadline and referee_moves < 3:  # the referee plays `out`'s turns, `other` its own
        status = raw_status(client, game_id)
        assert not status.over
        if status.to_move == other:
            seats[other].move(rng.choice(seats[other].legal()), expected_version=status.version)
            continue
        assert status.time_bank_ms[out] == 0, list(status.time_bank_ms)  # it had 1,500 ms again
        assert seats[out].legal() == []
        while raw_status(client, game_id).version == status.version:
            time.sleep(0.02)
        referee_moves += 1
    assert referee_moves == 3
    client.close()


def timed_game(data_dir) -> str:
    """A data dir with one Pompeii game whose clock (a 1 s bank) started; its id."""
    from server.config import Config
    from server.referee import Referee
    from tests.storage.support import open_store

    store, core = open_store(data_dir)
    referee = Referee(core, Config())
    rec, _ = core.create("pompeii", 3, {}, 1, {"time_bank_ms": 1000, "increment_ms": 0,
                                               "timeout_policy": "forfeit", "max_moves": 0})
    referee.on_create(rec)
    assert rec.referee_state.clock is not None
    referee.close()
    store.close()
    return rec.game_id


def test_a_seat_with_time_left_moves_and_a_restart_does_not_spend_its_bank(tmp_path):
    """Clocks restart before anything is served (Referee.resume_clocks): a move served before them
    would be charged the downtime, and refused as out of time."""
    from server.config import Config
    from server.referee import Referee
    from tests.storage.support import open_store

    game_id = timed_game(tmp_path)
    time.sleep(1.2)  # downtime longer than the bank
    store, core = open_store(tmp_path)
    referee = Referee(core, Config())
    referee.resume_clocks()
    rec = store.games[game_id]
    seat = core.to_move(rec)
    import asyncio
    asyncio.run(core.make_move(rec, seat, 0, "k", rec.engine.legal_moves(rec.state, seat)[0]))
    assert rec.version == 1
    referee.close()
    store.close()


def test_REF_TIMEOUT_the_bot_waits_for_the_referee_instead_of_counting_a_refusal(fresh_server):
    from clients.bot import Bot

    server = fresh_server(GE_REFEREE_TICK_S="0.5", GE_AUTOPLAY_MS="5").start()
    client = Client(server.target, "pompeii")
    game_id, tokens = client.create(2, seed=22, time_bank_ms=200, increment_ms=0, timeout_policy="autoplay")
    actor = raw_status(client, game_id).to_move
    time.sleep(0.4)
    bot = Bot(client.seat(game_id, actor, tokens[actor]), "random", max_refusals=1)
    assert bot.step() is True and bot.refusals == 0
    assert raw_status(client, game_id).version >= 1, "it waited until the referee took the turn"
    client.close()


def test_a_restart_on_a_full_disk_runs_the_clocks_from_now_all_the_same(tmp_path, monkeypatch):
    """The restarted clocks cannot be journaled on a full disk; held at their old start, the downtime
    would be charged once the disk has room again: the seat on turn would be out of time, its move
    refused (REF-TIMEOUT) and the referee would act for it."""
    import asyncio
    import errno

    from server import journal
    from server.config import Config
    from server.referee import Referee
    from tests.storage.support import open_store

    game_id = timed_game(tmp_path)
    time.sleep(1.2)  # downtime longer than the bank

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(journal, "write", full)
    store, core = open_store(tmp_path)
    referee = Referee(core, Config())
    referee.resume_clocks()
    monkeypatch.undo()
    assert store.journal.probe()
    rec = store.games[game_id]
    seat = core.to_move(rec)
    asyncio.run(core.make_move(rec, seat, 0, "k", rec.engine.legal_moves(rec.state, seat)[0]))
    assert rec.version == 1, "the move was not refused as out of time"
    referee.close()
    store.close()


def test_a_shutdown_ends_the_referees_actions_before_its_pool(tmp_path):
    """A timeout acted on while the server stopped asked the closed worker pool for its autoplay:
    'cannot schedule new futures after shutdown', logged as referee_failed with a traceback."""
    import asyncio

    from structlog.testing import capture_logs

    from server.config import Config
    from server.referee import Referee
    from tests.storage.support import open_store

    store, core = open_store(tmp_path)
    referee = Referee(core, Config())
    rec, _ = core.create("pompeii", 3, {}, 1, {})
    seat = core.to_move(rec)

    async def scenario() -> None:
        referee._spawn(rec, seat, "autoplay", f"seat {seat} ran out of time")  # what a tick does
        referee.close()  # the shutdown, before the task ran
        await asyncio.gather(*referee._tasks, return_exceptions=True)

    with capture_logs() as logs:
        asyncio.run(scenario())
    assert [e for e in logs if e["event"] == "referee_failed"] == []
    assert rec.version == 0
    store.close()


def test_every_clocked_game_of_one_creator_advances_when_the_referee_plays_them(tmp_path):
    """A creator's referee searches run two at a time (GE_POOL_JOBS_PER_CLIENT): taken in the watch set's
    fixed order, the same two of three out-of-time games got both places every tick and the third never
    moved again. The longest overdue now goes first."""
    server = ServerProcess(tmp_path / "d").start()
    try:
        client = Client(server.target, "pompeii")
        games = [client.create(4, time_bank_ms=300, timeout_policy="autoplay")[0] for _ in range(3)]
        time.sleep(3)
        before = [client.status(g).version for g in games]
        time.sleep(5)
        moved = [client.status(g).version - b for g, b in zip(games, before)]
        assert min(moved) >= 2 and 3 * min(moved) >= max(moved), f"moves per game in 5 s: {moved}"
    finally:
        server.stop()
