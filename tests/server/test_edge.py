"""Issue 21 items 1-2: one registry that fails loudly, one generic move codec, one refusal mapping
shared by both transports."""
from __future__ import annotations

import asyncio
import types

import pytest
from google.rpc import error_details_pb2

from engines import registry
from gameengine import codecs
from gameengine.codecs.base import Codec
from server import edge, logs, web
from server.errors import Illegal, InvalidArgument
from tests.conftest import CallContext


def test_item1_a_game_whose_codec_fails_to_import_fails_startup_loudly(monkeypatch):
    """codecs.available() swallowed ImportError (the game silently vanished); load_all() raises."""
    broken = registry.Entry("nosuchgame", "NoSuchGame", (2,))
    monkeypatch.setattr(registry, "GAME_IDS", (*registry.GAME_IDS, broken.game_id))
    monkeypatch.setitem(registry._BY_ID, broken.game_id, broken)
    codecs.codec.cache_clear()
    try:
        with pytest.raises(ImportError):
            codecs.load_all()
    finally:
        codecs.codec.cache_clear()


def test_item2_a_proto_move_kind_without_an_engine_move_fails_at_codec_build(monkeypatch):
    """The generic codec maps every oneof field to an engine class when it is built, not at the first move."""
    moves = types.ModuleType("engines.kuhn.moves")
    from engines.kuhn import moves as real
    moves.Check, moves.Bet, moves.Call = real.Check, real.Bet, real.Call  # no Fold
    monkeypatch.setitem(__import__("sys").modules, "engines.kuhn.moves", moves)
    with pytest.raises(TypeError, match="KuhnMove.fold"):
        Codec("kuhn")


def test_item2_web_refusals_render_the_neutral_status():
    """The web edge renders the google.rpc.Status the gRPC server put in the call's trailers:
    the same code, sentence and details, rule id included."""
    import grpc
    from grpc_status import rpc_status

    err = Illegal("not your turn", rule="POM-12")
    status = edge.refusal_status(err)
    trailers = rpc_status.to_status(status).trailing_metadata
    failed = grpc.aio.AioRpcError(grpc.StatusCode.FAILED_PRECONDITION, grpc.aio.Metadata(),
                                  grpc.aio.Metadata(*trailers), details=status.message)
    connect = asyncio.run(web.refusal(failed))  # no hold asked for: at once
    assert connect.code.name == "FAILED_PRECONDITION" and connect.message == "POM-12: not your turn"
    assert [d.type_name for d in connect.details] == [d.type_url.split("/")[-1] for d in status.details]
    info = error_details_pb2.ErrorInfo.FromString(connect.details[0].message_bytes)
    assert info.metadata["rule"] == "POM-12" and info.reason == "POM_12"
    unavailable = asyncio.run(web.refusal(grpc.aio.AioRpcError(
        grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), details="connection refused")))
    assert unavailable.code.name == "UNAVAILABLE" and unavailable.message == "connection refused"


def test_item2_one_decorator_logs_notes_and_maps_refusals():
    """@rpc: a handler notes its log fields and raises ServiceError; the call ends with its status."""
    import structlog
    from google.rpc import status_pb2

    class Servicer:
        @edge.rpc
        async def GetThing(self, request, context):
            edge.note(game_id="g-1", seat=2)
            raise InvalidArgument("bad thing")

    ctx = CallContext()

    async def call():
        with pytest.raises(RuntimeError, match="aborted"):
            await Servicer().GetThing(None, ctx)
        return logs.fields()  # the call's own context: what its lines carry

    with structlog.testing.capture_logs() as lines:
        fields = asyncio.run(call())
    [(_, _, trailers)] = ctx.aborted
    assert status_pb2.Status.FromString(dict(trailers)["grpc-status-details-bin"]).message == "bad thing"
    assert fields["seat"] == 2 and fields["game_id"] == "g-1"
    assert [(x["event"], x["method"], x["code"]) for x in lines] == [("rpc", "GetThing", "INVALID_ARGUMENT")]


def test_item2_a_waiting_stream_does_not_hold_its_clients_turn(tmp_path):
    """GE_CALLS_PER_CLIENT=1: an event stream waiting for the game to move must not keep the same
    client's next call (the move that would end the wait) in line behind it."""
    import threading
    import time

    from clients.sdk import Client
    from tests.conftest import ServerProcess

    server = ServerProcess(tmp_path / "data", GE_CALLS_PER_CLIENT="1").start()
    try:
        client = Client(server.target, "pompeii")
        game_id, tokens = client.create(3, seed=1)
        spectator = client.spectator(game_id)
        got = []
        t = threading.Thread(target=lambda: got.extend(spectator.events(from_version=0, timeout=20)), daemon=True)
        t.start()
        time.sleep(0.5)  # the stream is open and waiting for the first move
        t0 = time.perf_counter()
        status = client.status(game_id)
        actor = next(s for s in status.seats_to_act if status.acts(s))
        seat = client.seat(game_id, actor, tokens[actor])
        seat.move(seat.legal()[0])
        assert time.perf_counter() - t0 < 5, "the calls waited behind the stream"
        client.adjudicate(game_id, tokens, "end the stream", rollouts=2)
        t.join(timeout=20)
        assert not t.is_alive()  # the stream ended with the game
        assert any(version == 1 for version, _, _ in got), "the stream carried the move"
        client.close()
    finally:
        server.stop()


def test_a_logged_value_is_its_bounded_repr_made_when_written():
    """edge.Shown: a move on a call's log line is rendered (bounded like caller text) by the JSON
    renderer when a line is written, not on every call."""
    import json

    import structlog

    from engines.pompeii.moves import MovePerson
    from server import limits

    def line(value: object) -> str:
        return json.loads(structlog.processors.JSONRenderer()(None, "info", {"move": edge.Shown(value)}))["move"]

    assert line(MovePerson((1, 2), (3, 4))) == "MovePerson(origin=(1, 2), target=(3, 4))"
    long = line(["x" * 500])
    assert long == limits.quote(repr(["x" * 500])) and len(long) < 80


def test_a_line_below_the_configured_level_is_known_to_be_skipped():
    """logs.enabled follows GE_LOG_LEVEL as configure() set it, so a call need not build a line that
    will not be written (before configure, every level is written)."""
    import logging

    import structlog

    assert logs.enabled(logging.DEBUG)
    try:
        logs.configure("warning")
        assert not logs.enabled(logging.INFO) and logs.enabled(logging.WARNING) and logs.enabled(logging.ERROR)
        logs.configure("info")
        assert logs.enabled(logging.INFO) and not logs.enabled(logging.DEBUG)
    finally:
        structlog.reset_defaults()
        logs._level = logging.NOTSET
