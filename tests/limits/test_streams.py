"""Streams (issue 19 item 2, "streams per game and per client"): every kind of stream counts
against GE_STREAMS_PER_CLIENT, spectators of either game stream against GE_SPECTATORS_PER_GAME; a
refused stream is held for its retry delay; and a game's events are built and encoded once however
many streams carry them (server/fanout.py)."""
from __future__ import annotations

import time

import grpc
import pytest

from clients.sdk import Client, PlayerClient, retry_delay_s
from gameengine.v1 import common_pb2, pompeii_pb2
from server.fanout import SharedCodec, SharedMessages

GAME = "pompeii"


def first(call):
    """The first response of a stream, or its refusal (grpc.RpcError)."""
    return next(call)


def test_state_streams_count_against_spectators_per_game(fresh_server):
    server = fresh_server(GE_SPECTATORS_PER_GAME="2", GE_STREAMS_PER_CLIENT="50").start()
    client = Client(server.target, GAME)
    game_id, _ = client.create(2, seed=3)
    state = client.rpcs["stream_state"]
    held = [state(client.request("stream_state", game_id=game_id), timeout=20) for _ in range(2)]
    for call in held:
        first(call)  # a state stream answers at once with the current state
    with pytest.raises(grpc.RpcError) as e:
        first(state(client.request("stream_state", game_id=game_id), timeout=3))
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "GE_SPECTATORS_PER_GAME" in e.value.details()
    with pytest.raises(grpc.RpcError) as e:  # an events stream is a spectator of the same game
        first(client.rpcs["stream_events"](client.request("stream_events", game_id=game_id), timeout=3))
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    for call in held:
        call.cancel()


def test_player_streams_count_against_streams_per_client(fresh_server):
    server = fresh_server(GE_STREAMS_PER_CLIENT="2").start()
    player = PlayerClient.register(server.target, "ada")
    held = [player.events(timeout=20, reconnect=False) for _ in range(2)]
    for stream in held:  # nothing to yield yet: make each call reach the server
        with pytest.raises(TimeoutError):
            _poll(stream, 0.5)
    time.sleep(0.3)
    refused = player.events(timeout=6, reconnect=False)
    with pytest.raises(Exception) as e:
        next(refused)
    assert e.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED and "GE_STREAMS_PER_CLIENT" in str(e.value)


def _poll(stream, seconds: float):
    """Advance a blocking generator for a short while in a thread; raises TimeoutError if it yields nothing."""
    import concurrent.futures
    pool = concurrent.futures.ThreadPoolExecutor(1)
    future = pool.submit(next, stream)
    pool.shutdown(wait=False)
    try:
        return future.result(timeout=seconds)
    except concurrent.futures.TimeoutError as e:
        raise TimeoutError from e


def test_a_refused_stream_is_held_for_its_retry_delay(fresh_server):
    server = fresh_server(GE_SPECTATORS_PER_GAME="1").start()
    client = Client(server.target, GAME)
    game_id, _ = client.create(2, seed=4)
    held = client.rpcs["stream_state"](client.request("stream_state", game_id=game_id), timeout=30)
    first(held)
    t0 = time.monotonic()
    with pytest.raises(grpc.RpcError) as e:
        first(client.rpcs["stream_state"](client.request("stream_state", game_id=game_id), timeout=30))
    waited = time.monotonic() - t0
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert retry_delay_s(e.value) == pytest.approx(5.0)
    # not the 1 s of a unary refusal: a reconnecting spectator waits it out (less quotas.pace_s's jitter)
    assert 0.8 * 5.0 - 0.1 <= waited < 10, waited
    held.cancel()


def test_a_shared_event_message_is_built_and_encoded_once():
    shared = SharedMessages(size=2)
    event = object()
    built, encoded = [], []

    def build():
        built.append(1)
        return pompeii_pb2.StreamPompeiiEventsResponse(version=7)

    def encode(m):
        encoded.append(1)
        return m.SerializeToString()

    messages = [shared.message(("g", 0), event, build) for _ in range(32)]
    assert len(built) == 1 and all(m is messages[0] for m in messages)
    wire = {shared.encode(m, "proto", encode) for m in messages}
    assert len(encoded) == 1 and wire == {messages[0].SerializeToString()}
    other = pompeii_pb2.StreamPompeiiEventsResponse(version=7)  # equal but not shared: encoded each time
    shared.encode(other, "proto", encode), shared.encode(other, "proto", encode)
    assert len(encoded) == 3
    assert shared.message(("g", 0), object(), build) is not messages[0]  # another event under that key
    shared.message(("g", 1), event, build), shared.message(("g", 2), event, build)  # bounded: the oldest goes
    assert len(shared._messages) == 2 and len(shared._encoded) == 2


def test_the_web_codec_encodes_a_shared_message_once_per_format():
    from connectrpc.compat import google_protobuf_codecs
    shared = SharedMessages()
    codecs = [SharedCodec(c) for c in google_protobuf_codecs()]
    for c in codecs:
        c.SHARED = shared
    message = shared.message(("g", 0), object(), lambda: pompeii_pb2.StreamPompeiiEventsResponse(version=3))
    out = {c.name(): c.encode(message) for c in codecs}
    assert out["proto"] == message.SerializeToString() and b'"version": 3' in out["json"]
    assert set(shared._encoded[id(message)].encodings) == {"web-proto", "web-json"}
    assert [c.decode(out["proto"], type(message)) for c in codecs[:1]] == [message]


def test_shared_messages_are_bounded_by_their_bytes_and_encodings_too():
    """A count alone let the web edge's cache hold 4,096 views and move lists (~150 MB of RSS under
    a soak, more with larger answers): the bytes kept, encodings included, are bounded as well."""
    shared = SharedMessages(size=100, max_bytes=1000)
    kept = [shared.message(("g", i), None, lambda: pompeii_pb2.StreamPompeiiEventsResponse(version=1), 300)
            for i in range(5)]
    assert len(shared._messages) == 3 and shared.nbytes == 900  # the two oldest went
    shared.encode(kept[-1], "web-json", lambda m: b"x" * 250)  # its encoding counts: one more goes
    assert len(shared._messages) == 2 and shared.nbytes == 850
    big = shared.message(("g", "big"), None, lambda: pompeii_pb2.StreamPompeiiEventsResponse(version=2), 2000)
    assert ("g", "big") not in shared._messages and big.version == 2  # larger than the budget: not kept
    assert shared.nbytes == sum(e.nbytes for e in shared._messages.values()) == 850


def test_the_web_edge_shares_stream_answers_only():
    """A unary answer is one caller's (a view, a move list, a log): kept in the shared cache, it only
    pushed the streams' events out and held memory."""
    from google.protobuf import descriptor_pool

    from server import fanout, web

    class Channel:
        def __init__(self):
            self.decoders = {}

        def unary_unary(self, path, request_serializer, response_deserializer):
            self.decoders[path] = response_deserializer
            return object()

        unary_stream = unary_unary

    channel = Channel()
    service = descriptor_pool.Default().FindServiceByName("gameengine.v1.PompeiiService")
    web.endpoints([service], channel)
    before = len(fanout.SHARED._messages)
    view = pompeii_pb2.GetPompeiiViewResponse(status=common_pb2.GameStatus(version=424242))
    channel.decoders["/gameengine.v1.PompeiiService/GetPompeiiView"](view.SerializeToString())
    assert len(fanout.SHARED._messages) == before
    event = pompeii_pb2.StreamPompeiiEventsResponse(version=12345).SerializeToString()
    channel.decoders["/gameengine.v1.PompeiiService/StreamPompeiiEvents"](event)
    assert len(fanout.SHARED._messages) == before + 1


def finished_game(fresh_server, **env):
    """A server with `env`, and a Pompeii game the referee played to its end (a long history)."""
    server = fresh_server(GE_REFEREE_TICK_S="0.01", GE_REFEREE_MOVES_PER_CLIENT_S="0",
                          GE_DEMO_GAMES_PER_CLIENT="0", **env).start()
    client = Client(server.target, GAME)
    game_id, tokens = client.create(2, seed=5, time_bank_ms=1, timeout_policy="random")  # the referee plays it
    deadline = time.time() + 60
    while not client.status(game_id).over and time.time() < deadline:
        time.sleep(1)
    assert client.status(game_id).over
    return client, game_id, tokens


def test_a_streams_events_cost_its_client_requests(fresh_server):
    """Re-opening streams on a long game replays its history each time: every EVENTS_PER_REQUEST
    events cost one request of GE_RATE_LIMIT_PER_S, and the stream waits for them (issue 19's
    stream fan-out: 716 replays sent 85k events in 10 s for 716 requests)."""
    from server.quotas import EVENTS_PER_REQUEST
    client, game_id, _ = finished_game(fresh_server, GE_RATE_LIMIT_PER_S="10")
    time.sleep(2)  # the bucket refills to its burst of 20 requests = 200 events
    stream = client.rpcs["stream_events"]
    t0 = time.perf_counter()
    events = sum(1 for _ in stream(client.request("stream_events", game_id=game_id), timeout=60))
    took = time.perf_counter() - t0
    assert events >= 400  # a long game's history, well beyond the burst
    per_s = 10 * EVENTS_PER_REQUEST
    assert took >= 0.8 * (events - 2 * per_s) / per_s


def test_a_games_spectators_share_GE_REPLAY_EVENTS_PER_GAME_S(fresh_server):
    """Many addresses each within their own rate still share one budget of history replayed to a
    game's spectators: a seat's own stream never waits for it."""
    client, game_id, tokens = finished_game(fresh_server, GE_REPLAY_EVENTS_PER_GAME_S="100")
    stream = client.rpcs["stream_events"]
    t0 = time.perf_counter()
    seat_events = sum(1 for _ in stream(client.request("stream_events", game_id=game_id, token=tokens[0]),
                                        timeout=60))
    assert time.perf_counter() - t0 < 2 and seat_events >= 400  # a seat: not the spectators' budget
    t0 = time.perf_counter()
    events = sum(1 for _ in stream(client.request("stream_events", game_id=game_id), timeout=60))
    assert events >= 400 and time.perf_counter() - t0 >= 0.8 * (events - 200) / 100


def test_live_events_reach_spectators_without_the_replay_budget(fresh_server):
    """GE_REPLAY_EVENTS_PER_GAME_S holds back history only: a spectator that has caught up gets each
    move's events as they happen, at the players' pace, however small the budget."""
    server = fresh_server(GE_REPLAY_EVENTS_PER_GAME_S="5").start()
    client = Client(server.target, GAME)
    game_id, tokens = client.create(2, seed=9)
    watched = client.rpcs["stream_events"](client.request("stream_events", game_id=game_id), timeout=60)
    seats = [client.seat(game_id, s, t) for s, t in enumerate(tokens)]
    version = received = 0
    t0 = time.perf_counter()
    for _ in range(60):
        status = seats[0].status()
        actor = next(s for s in status.seats_to_act if status.acts(s))
        seats[actor].move(seats[actor].legal()[0], expected_version=status.version)
        while version < status.version + 1:  # this move's events, as they happen
            version = next(watched).version
            received += 1
    watched.cancel()
    assert received >= 60
    assert time.perf_counter() - t0 < 5  # at 5 events/s (bursts of 10) they would take 10 s or more


def test_a_cost_over_the_burst_waits_for_a_full_bucket_and_owes_the_rest():
    """Ten events charged at once to a budget of 1/s (bursts of 2) cost ten seconds, not nothing."""
    from server.quotas import Bucket
    bucket = Bucket(2)
    assert bucket.take(1, 2, 10) == 0.0  # a full bucket: taken, eight owed
    assert bucket.take(1, 2, 10) >= 9.9  # the debt and then a full bucket again


def test_streams_waiting_on_one_budget_are_each_woken_once_at_their_turn(monkeypatch):
    """Thirty-two spectators replaying one game wait on its GE_REPLAY_EVENTS_PER_GAME_S: each is woken
    once, in arrival order. Retrying after every sleep woke all of them at each refill to find the one
    whose ten events fitted: a burst of wake-ups every 20 ms on the loop the players' moves share."""
    import asyncio

    from server import quotas

    q = quotas.Quotas(quotas.Settings(replay_events_per_game_s=500))
    waits: list[float] = []
    real_sleep = asyncio.sleep

    async def counted_sleep(seconds: float) -> None:
        waits.append(seconds)
        await real_sleep(seconds)

    async def spectator(i: int) -> None:
        for _ in range(5):
            await q.sent(f"10.0.0.{i}", 10, replayed=10, game_id="g")

    async def spectators() -> None:
        await asyncio.gather(*(spectator(i) for i in range(32)))

    monkeypatch.setattr(asyncio, "sleep", counted_sleep)
    t0 = time.perf_counter()
    asyncio.run(spectators())
    took = time.perf_counter() - t0
    assert len(waits) <= 32 * 5, f"{len(waits)} sleeps for 160 sends: waiters woken to find no room"
    assert 0.8 * (1600 - 1000) / 500 <= took < 3  # the budget still holds: 1000 at once, then 500/s
