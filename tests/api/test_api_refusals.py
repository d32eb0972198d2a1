"""Every refusal has its status code, names its rule, and changes nothing."""
from __future__ import annotations

import grpc
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from clients.sdk import Client, Refused
from engines import registry
from gameengine.v1 import common_pb2

GAMES = list(registry.GAME_IDS)


def snapshot(client: Client, game_id: str, tokens: list[str]):
    return [json_format.MessageToDict(client.rpcs["get_view"](client.request("get_view", game_id=game_id,
                                                                         token=t)))
            for t in [""] + tokens]


def raw_move(client: Client, **fields):
    return client.rpcs["make_move"](client.request("make_move", **fields), timeout=10)


@pytest.fixture(params=GAMES)
def game(request, server):
    client = Client(server.target, request.param)
    n = registry.typical_seats(request.param)
    game_id, tokens = client.create(n, seed=42)
    yield client, game_id, tokens
    client.close()


def code_of(fn, *args, **kwargs):
    with pytest.raises(grpc.RpcError) as e:
        fn(*args, **kwargs)
    assert e.value.code() != grpc.StatusCode.UNKNOWN
    return e.value


def rule_of(e: grpc.RpcError) -> str:
    """The rule id the refusal names: ErrorInfo's metadata["rule"], also leading its sentence."""
    status = rpc_status.from_call(e)
    assert status is not None
    info = next(i for i in (error_details_pb2.ErrorInfo(),) for d in status.details if d.Unpack(i))
    rule = info.metadata["rule"]
    assert rule and info.reason == rule.replace("-", "_") and e.details().startswith(f"{rule}: "), e.details()
    return rule


def test_bad_requests_are_refused_precisely_and_change_nothing(game):
    client, game_id, tokens = game
    before = snapshot(client, game_id, tokens)
    status = client.seat(game_id, 0, tokens[0]).status()
    actor = next(s for s in status.seats_to_act if status.acts(s))
    legal = client.seat(game_id, actor, tokens[actor]).legal()
    good = client.codec.move_to_proto(legal[0])

    # unknown or missing game -> NOT_FOUND / INVALID_ARGUMENT
    e = code_of(raw_move, client, game_id="nope", token=tokens[actor], expected_version=0, move=good)
    assert e.code() == grpc.StatusCode.NOT_FOUND and rule_of(e) == "GAME-ID"
    e = code_of(raw_move, client, game_id="", token=tokens[actor], expected_version=0, move=good)
    assert e.code() == grpc.StatusCode.INVALID_ARGUMENT and rule_of(e) == "GAME-ID"
    # wrong token -> PERMISSION_DENIED
    e = code_of(raw_move, client, game_id=game_id, token="not-a-token", expected_version=0, move=good)
    assert e.code() == grpc.StatusCode.PERMISSION_DENIED and rule_of(e) == "SEAT-TOKEN"
    # a spectator cannot move
    e = code_of(raw_move, client, game_id=game_id, token="", expected_version=0, move=good)
    assert e.code() == grpc.StatusCode.PERMISSION_DENIED and rule_of(e) == "SEAT-TOKEN"
    # empty move -> INVALID_ARGUMENT
    e = code_of(raw_move, client, game_id=game_id, token=tokens[actor], expected_version=0)
    assert e.code() == grpc.StatusCode.INVALID_ARGUMENT and rule_of(e) == "REQUEST"
    e = code_of(raw_move, client, game_id=game_id, token=tokens[actor], expected_version=0,
                move=client.codec.msg("Move")())
    assert e.code() == grpc.StatusCode.INVALID_ARGUMENT and rule_of(e) == "REQUEST"
    # a version the game has not reached -> ABORTED, said as such (it was called stale)
    e = code_of(raw_move, client, game_id=game_id, token=tokens[actor], expected_version=5, move=good)
    assert e.code() == grpc.StatusCode.ABORTED and rule_of(e) == "VERSION"
    assert e.details() == "VERSION: expected_version 5 is beyond the game's version 0", e.details()
    # events after a version the game has not reached: refused at once, not a stream that never sends
    e = code_of(lambda: next(client.rpcs["stream_events"](client.request(
        "stream_events", game_id=game_id, from_version=status.version + 1), timeout=5)))
    assert e.code() == grpc.StatusCode.INVALID_ARGUMENT and rule_of(e) == "VERSION"
    # a seat that may not act -> FAILED_PRECONDITION naming a rule
    idle = next((s for s in range(len(tokens)) if s not in status.seats_to_act), None)
    if idle is not None:
        e = code_of(raw_move, client, game_id=game_id, token=tokens[idle], expected_version=0, move=good)
        assert e.code() == grpc.StatusCode.FAILED_PRECONDITION
        details = rpc_status.from_call(e)
        infos = []
        for d in details.details:
            if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                d.Unpack(info)
                infos.append(info)
        assert infos and infos[0].metadata["rule"], "the refusal names its rule id"
        assert infos[0].metadata["rule"].split("-")[0] in e.details()
    # nothing changed
    assert snapshot(client, game_id, tokens) == before


def test_seat_count_and_options_are_validated(game):
    client, _, _ = game
    with pytest.raises(Refused) as e:
        client.create(99)
    assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(Refused) as e:
        client.create(1)
    assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT


def test_idempotent_retry_is_applied_once(game):
    client, game_id, tokens = game
    status = client.seat(game_id, 0, tokens[0]).status()
    actor = next(s for s in status.seats_to_act if status.acts(s))
    move = client.codec.move_to_proto(client.seat(game_id, actor, tokens[actor]).legal()[0])
    req = dict(game_id=game_id, token=tokens[actor], expected_version=status.version, idempotency_key="k-1",
               move=move)
    first = raw_move(client, **req)
    again = raw_move(client, **req)
    assert not first.replayed and again.replayed
    assert again.status.version == first.status.version == status.version + 1
    assert list(again.events) == list(first.events)


def test_private_view_needs_the_seats_token(game):
    client, game_id, tokens = game
    e = code_of(client.rpcs["list_moves"], client.request("list_moves", game_id=game_id, token=""), timeout=5)
    assert e.code() == grpc.StatusCode.PERMISSION_DENIED
    view = client.rpcs["get_view"](client.request("get_view", game_id=game_id, token=tokens[1]), timeout=5)
    assert view.status.caller_seat == 1


def test_game_service_lists_games_and_status(server):
    from gameengine.v1 import common_pb2_grpc
    with grpc.insecure_channel(server.target) as ch:
        stub = common_pb2_grpc.GameServiceStub(ch)
        types = stub.ListGameTypes(common_pb2.ListGameTypesRequest(), timeout=5).game_types
        assert {t.game for t in types} == set(registry.GAME_IDS)  # the template game too
        with pytest.raises(grpc.RpcError) as e:
            stub.GetGameStatus(common_pb2.GetGameStatusRequest(game_id="missing"), timeout=5)
        assert e.value.code() == grpc.StatusCode.NOT_FOUND
