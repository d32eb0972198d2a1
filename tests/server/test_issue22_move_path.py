"""Issue 22 item 2, the move path. Every method is observed where it is registered
(servicer.add_service and observe.Observing), not by a grpc.aio interceptor that builds a new
handler on every call: a real grpc.aio server on loopback with no interceptor at all. MakeMove's
response is joined from encodings the server keeps, byte for byte the response message."""
from __future__ import annotations

import asyncio
import random

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from server import logs, metrics, observe
from server.servicer import add_service
from tests.conftest import CallContext

HEALTH = ("unary", "grpc.health.v1.Health", "Check", "grpc")
ECHO = ("unary", "test.Echo", "Echo", "grpc")


def counted(family, labels: tuple[str, ...]) -> float:
    return family.labels(*labels)._value.get()


async def serve_and_call(seen: list[dict]) -> None:
    server = grpc.aio.server()  # no interceptors: observation comes with the registration
    add_service(health_pb2.DESCRIPTOR.services_by_name["Health"], health_pb2, health.aio.HealthServicer(), server)

    async def echo(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        seen.append(dict(logs.fields()))
        return request
    handler = grpc.unary_unary_rpc_method_handler(echo, request_deserializer=bytes, response_serializer=bytes)
    observe.Observing(server).add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("test.Echo", {"Echo": handler}),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as ch:
            stub = health_pb2_grpc.HealthStub(ch)
            await stub.Check(health_pb2.HealthCheckRequest(), metadata=(("x-request-id", "check-1"),))
            with_id = ch.unary_unary("/test.Echo/Echo")
            assert await with_id(b"hi", metadata=(("x-request-id", "echo-7"), ("x-forwarded-for", "198.51.100.4"))) \
                == b"hi"
            assert await with_id(b"again") == b"again"
            try:
                await ch.unary_unary("/test.Echo/Nope")(b"")
            except grpc.aio.AioRpcError as e:
                assert e.code() == grpc.StatusCode.UNIMPLEMENTED
    finally:
        await server.stop(None)


def test_item2_methods_are_observed_where_registered_without_an_interceptor():
    before = {labels: (counted(metrics.GRPC_STARTED, labels), counted(metrics.GRPC_HANDLED, (*labels, "OK")),
                       counted(metrics.GRPC_MSG_SENT, labels))
              for labels in (HEALTH, ECHO)}
    seen: list[dict] = []
    asyncio.run(serve_and_call(seen))
    assert counted(metrics.GRPC_STARTED, HEALTH) == before[HEALTH][0] + 1
    assert counted(metrics.GRPC_HANDLED, (*HEALTH, "OK")) == before[HEALTH][1] + 1
    assert counted(metrics.GRPC_STARTED, ECHO) == before[ECHO][0] + 2
    assert counted(metrics.GRPC_HANDLED, (*ECHO, "OK")) == before[ECHO][1] + 2
    assert counted(metrics.GRPC_MSG_SENT, ECHO) == before[ECHO][2] + 2
    assert [s["request_id"] for s in seen][0] == "echo-7" and len(seen[1]["request_id"]) == 16
    assert seen[0]["forwarded_for"] == "198.51.100.4" and "forwarded_for" not in seen[1]
    assert all(s["peer"].startswith("ipv4:127.0.0.1:") for s in seen)
    assert not any(labels[2] == "Nope" for labels in observe._children)  # unknown methods are not counted
def test_item2_the_move_answer_is_the_response_messages_encoding(tmp_path):
    """MakeMove's response is joined from the stored events and cached moves: byte for byte what
    building the response message and serializing it gives, in every game, replayed or not."""
    from gameengine import codecs
    from server.servicer import GameServicer, status_proto
    from tests.storage.support import GAMES, open_store

    store, core = open_store(tmp_path)
    rng = random.Random(22)
    compared = 0
    for game, seats in GAMES:
        svc = GameServicer(codecs.codec(game), core, referee=None)  # type: ignore[arg-type]
        rec, _ = core.create(game, seats, {}, rng.randrange(1000), {})
        while not core.is_over(rec) and rec.version < 60:
            seat = rng.choice(rec.engine.seats_to_act(rec.state))
            first = len(rec.events)
            asyncio.run(core.make_move(rec, seat, rec.version, "", rng.choice(core.legal_moves(rec, seat))))
            for viewer in range(rec.seats):
                events = [rec.events.wire(i) for i in range(first, len(rec.events)) if rec.events.visible_to(i, viewer)]
                status, moves = core.status(rec, viewer), core.legal_moves(rec, viewer)
                for replayed in (False, True):
                    message = svc.out["make_move"](
                        status=status_proto(status), events=[svc.event_of(w) for w in events], replayed=replayed,
                        legal_moves=[svc.codec.move_to_proto(m) for m in moves])
                    assert svc._move_answer(status, events, replayed, moves) == message.SerializeToString()
                    compared += 1
    assert compared > 400
    store.close()


def test_item2_a_calls_peer_and_metadata_are_read_once_for_observation_and_quota():
    """observe reads the peer and the metadata for the log fields; @rpc's quota identity uses what it
    read instead of asking the call again (and still sees the player token the metadata carries)."""
    from server import edge, quotas

    class Servicer:
        @edge.rpc
        async def GetThing(self, request, context):
            return quotas.caller()

    servicer = Servicer()
    handler = observe.observed("/test.Things/GetThing", grpc.unary_unary_rpc_method_handler(
        lambda request, context: servicer.GetThing(request, context)))
    ctx = CallContext([("x-request-id", "r-1"), ("x-player-token", "not-a-player")])
    assert asyncio.run(handler.unary_unary(b"", ctx)) == "ip:127.0.0.1"  # an unverified token is no identity
    assert ctx.reads == {"peer": 1, "metadata": 1}
    bare = CallContext()  # a call @rpc sees without observation reads them itself
    assert asyncio.run(servicer.GetThing(b"", bare)) == "ip:127.0.0.1"
    assert bare.reads == {"peer": 1, "metadata": 1}


def test_item2_a_legal_moves_field_is_encoded_once_per_distinct_move():
    from gameengine import codecs
    from server import moveprotos, wire

    codec = codecs.codec("pompeii")
    from engines import registry
    engine = registry.game("pompeii")
    state = engine.new_state(3, {}, 5)
    moves = engine.legal_moves(state, engine.to_move(state))
    tag = wire.tag(4, 2)
    first = moveprotos.move_fields(codec, tag, moves)
    assert first == [wire.length_delimited(tag, codec.move_to_proto(m).SerializeToString()) for m in moves]
    again = moveprotos.move_fields(codec, tag, list(engine.legal_moves(state, engine.to_move(state))))
    assert all(a is b for a, b in zip(first, again, strict=True))  # the same bytes, not made again


def test_item2_the_latency_series_is_bound_once_per_method_and_code():
    from server import edge

    series = edge.latency_series("GetThing", "OK")
    assert series is edge.latency_series("GetThing", "OK") is not edge.latency_series("GetThing", "NOT_FOUND")
    before = metrics.RPC_LATENCY.labels("GetThing", "OK")._sum.get()
    series.observe(0.25)
    assert metrics.RPC_LATENCY.labels("GetThing", "OK")._sum.get() == before + 0.25


def test_item2_unlocked_series_expose_what_prometheus_own_would():
    """metrics.LoopHistogram / LoopCounter (no lock per change) give the exposition of prometheus_client's
    Histogram / Counter for the same changes: every bucket boundary, the sum, +Inf."""
    from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

    def exposed(histogram, counter) -> list[str]:
        registry = CollectorRegistry()
        h = histogram("x_seconds", "d", ["m"], buckets=(0.001, 0.01, 0.1), registry=registry)
        c = counter("y_total", "d", ["m"], registry=registry)
        for v in (0.0, 0.0005, 0.001, 0.0011, 0.01, 0.05, 0.1, 0.2, 3.0, 1e9):
            h.labels("k").observe(v)
            c.labels("k").inc()
        c.labels("k").inc(2.5)
        return [line for line in generate_latest(registry).decode().splitlines() if "_created" not in line]

    ours = exposed(metrics.LoopHistogram, metrics.LoopCounter)
    assert ours == exposed(Histogram, Counter)
    assert 'x_seconds_bucket{le="0.001",m="k"} 3.0' in ours and 'y_total{m="k"} 12.5' in ours


def test_item2_varints_and_fields_are_protobufs_own():
    """server/wire.py's varint (a table up to two bytes, computed beyond) and length-delimited field
    are what protobuf writes, at every size boundary."""
    from google.protobuf import wrappers_pb2

    from server import wire
    assert wire.varint(0) == b"\x00"  # proto3 leaves a zero out, so it is not compared below
    boundaries = [16383, 16384, 2**21 - 1, 2**21, 2**32 - 1, 2**63 - 1]
    for n in [*range(1, 300), *boundaries, *random.Random(3).sample(range(2**40), 200)]:
        assert b"\x08" + wire.varint(n) == wrappers_pb2.UInt64Value(value=n).SerializeToString()
    for size in (1, 127, 128, 16383, 16384, 70000):  # (an empty one is left out by proto3 too)
        payload = b"x" * size
        assert wire.length_delimited(b"\x0a", payload) == wrappers_pb2.BytesValue(value=payload).SerializeToString()


def test_item2_the_bench_load_generator_sends_the_move_request_message():
    """bench.run's move loop joins each request from its fields' encodings: the same bytes as the message."""
    from bench.run import move_request
    from gameengine.v1 import pompeii_pb2
    from server import wire

    move = pompeii_pb2.PompeiiMove()
    move.move_person.origin.row = 3  # any move; an empty one too
    for version in (0, 1, 127, 128, 20000):
        for m in (move, pompeii_pb2.PompeiiMove()):
            expected = pompeii_pb2.MakePompeiiMoveRequest(game_id="0123abcd", token="t" * 43, expected_version=version,
                                                          move=m).SerializeToString()
            assert move_request(wire.length_delimited(b"\x0a", b"0123abcd"), wire.length_delimited(b"\x12", b"t" * 43),
                                version, wire.length_delimited(b"\x2a", m.SerializeToString())) == expected


def test_item1_the_bench_records_the_machines_steal_over_a_drive():
    """bench.run's steal share: the steal ticks' part of all ticks between two /proc/stat readings (guest
    time is inside user time there, so it is not added again)."""
    from bench.run import machine_ticks, steal_pct

    before = machine_ticks("cpu  100 5 50 800 10 1 4 30 20 0\ncpu0 1 2 3\n")
    after = machine_ticks("cpu  160 5 80 860 10 1 4 80 40 0\ncpu0 1 2 3\n")
    assert before == (30, 160, 1000) and after == (80, 250, 1200)
    assert steal_pct(before, after) == 25.0  # 50 of 200 ticks
    assert steal_pct(after, after) == 0.0
    steal, busy, total = machine_ticks()  # this machine's own
    assert 0 <= steal <= total and 0 <= busy <= total


def test_item1_the_bench_records_other_processes_cpu_over_a_drive():
    """bench.run's share of other processes: busy ticks (user, nice, system, irq, softirq) between two
    /proc/stat readings, less the measured processes' own CPU seconds, over all ticks. A stray process
    beside the 2026-12-06 runs used ~85 % of one core, and nothing in the results showed it."""
    import os

    from bench.run import machine_ticks, others_pct

    tick = os.sysconf("SC_CLK_TCK")
    before = machine_ticks("cpu  100 5 50 800 10 1 4 30 20 0\ncpu0 1 2 3\n")
    after = machine_ticks("cpu  160 5 80 860 10 1 4 80 40 0\ncpu0 1 2 3\n")  # 90 busy of 200 ticks
    assert others_pct(before, after, own_s=40 / tick) == 25.0  # 50 busy ticks not the measured ones'
    assert others_pct(before, after, own_s=90 / tick) == 0.0
    assert others_pct(before, after, own_s=120 / tick) == 0.0  # never below 0 (the readings' rounding)
