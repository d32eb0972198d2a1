"""A stream's headers go out once it is set up, not with its first message: on a quiet game a client
can tell an open stream from one still connecting (gRPC sent them with the first event, minutes later)."""
from __future__ import annotations

import threading

from clients.sdk import Client, PlayerClient, TournamentClient
from gameengine.v1 import player_pb2, player_pb2_grpc, tournament_pb2, tournament_pb2_grpc


def headers_within(call, seconds: float = 5.0) -> bool:
    got = threading.Event()
    threading.Thread(target=lambda: (call.initial_metadata(), got.set()), daemon=True).start()
    arrived = got.wait(seconds)
    call.cancel()
    return arrived


def test_every_stream_sends_its_headers_before_any_message(server):
    client = Client(server.target, "pompeii")
    game_id, tokens = client.create(2)
    streams = {"events": client.rpcs["stream_events"](client.request("stream_events", game_id=game_id,
                                                                     token=tokens[1], from_version=0))}
    me = PlayerClient.register(server.target, "quiet-stream")
    streams["player"] = player_pb2_grpc.PlayerServiceStub(client.channel).StreamPlayerEvents(
        player_pb2.StreamPlayerEventsRequest(player_token=me.token, cursor=0))
    t, _ = TournamentClient(server.target).create("kuhn", 2)
    streams["tournament"] = tournament_pb2_grpc.TournamentServiceStub(client.channel).StreamTournamentEvents(
        tournament_pb2.StreamTournamentEventsRequest(tournament_id=t.tournament_id, cursor=0))
    late = [name for name, call in streams.items() if not headers_within(call)]
    assert not late, f"no headers before a first message: {late}"


def test_tournament_streams_count_as_the_clients_streams(fresh_server):
    """GE_STREAMS_PER_CLIENT held every stream but the tournament's: those were unbounded."""
    import grpc
    import pytest

    server = fresh_server(GE_STREAMS_PER_CLIENT="2").start()
    client = Client(server.target, "kuhn")
    t, _ = TournamentClient(server.target).create("kuhn", 2)
    stub = tournament_pb2_grpc.TournamentServiceStub(client.channel)

    def open_stream():
        return stub.StreamTournamentEvents(tournament_pb2.StreamTournamentEventsRequest(
            tournament_id=t.tournament_id, cursor=0), timeout=10)
    held = [open_stream() for _ in range(2)]
    for call in held:
        call.initial_metadata()  # open, and counted
    with pytest.raises(grpc.RpcError) as e:
        next(open_stream())
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "GE_STREAMS_PER_CLIENT" in e.value.details()
    for call in held:
        call.cancel()
