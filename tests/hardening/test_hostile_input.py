"""Hostile input against a real server: malformed bytes, random moves, wrong tokens,
stale versions, huge messages and floods. The server never crashes, never answers
UNKNOWN, and a refusal never changes a game."""
from __future__ import annotations

import random

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clients.sdk import Client
from engines import registry

GAMES = list(registry.GAME_IDS)
REFUSALS = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND,
            grpc.StatusCode.ALREADY_EXISTS,
            grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.ABORTED, grpc.StatusCode.RESOURCE_EXHAUSTED}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    from tests.conftest import ServerProcess
    s = ServerProcess(tmp_path_factory.mktemp("hostile"), GE_RATE_LIMIT_PER_S="0",
                      GE_MAX_MESSAGE_BYTES="65536").start()
    clients = {g: Client(s.target, g) for g in GAMES}
    games = {g: clients[g].create(registry.typical_seats(g), seed=77) for g in GAMES}
    yield s, clients, games
    for c in clients.values():
        c.close()
    s.stop()


def views(client, game_id, tokens):
    return [json_format.MessageToDict(client.rpcs["get_view"](client.request("get_view", game_id=game_id,
                                                                         token=t), timeout=10))
            for t in [""] + tokens]


def mutate(msg, rng: random.Random) -> None:
    """Scribble over a move message: random values in every scalar field, recursively."""
    for field in msg.DESCRIPTOR.fields:
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if field.is_repeated:
                for _ in range(rng.randrange(3)):
                    mutate(getattr(msg, field.name).add(), rng)
            elif rng.random() < 0.7:
                mutate(getattr(msg, field.name), rng)
            continue
        try:
            if field.is_repeated:
                getattr(msg, field.name).extend(scribble(field, rng) for _ in range(rng.randrange(4)))
            else:
                setattr(msg, field.name, scribble(field, rng))
        except (TypeError, ValueError):
            pass


def scribble(field, rng):
    """One random value for a scalar field, often out of its range."""
    if field.type == FieldDescriptor.TYPE_ENUM:
        return rng.choice([v.number for v in field.enum_type.values])
    if field.type in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_UINT64):
        return rng.choice([0, 1, 5, 2**32 - 1])
    if field.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return rng.random() * 100
    if field.type == FieldDescriptor.TYPE_BOOL:
        return rng.random() < 0.5
    if field.type == FieldDescriptor.TYPE_STRING:
        return rng.choice(["", "x", "scroll", "\u2603" * 40, "-1"])
    return rng.choice([-(2**31), -1, 0, 1, 2, 3, 7, 11, 47, 99, 2**31 - 1])


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32), token_kind=st.sampled_from(["right", "other", "forged", "empty"]),
       stale=st.booleans())
def test_random_moves_never_crash_and_refusals_change_nothing(hostile, game, seed, token_kind, stale):
    _, clients, games = hostile
    client = clients[game]
    game_id, tokens = games[game]
    rng = random.Random(seed)
    status = client.status(game_id)
    actor = status.to_move if status.to_move >= 0 else 0
    token = {"right": tokens[actor], "other": tokens[(actor + 1) % len(tokens)], "forged": "x" * 32,
             "empty": ""}[token_kind]
    legal = client.seat(game_id, actor, tokens[actor]).legal() if not status.over else []
    move = client.codec.move_to_proto(rng.choice(legal)) if legal and rng.random() < 0.5 else client.codec.msg("Move")()
    oneof = move.DESCRIPTOR.oneofs[0]
    if rng.random() < 0.8:
        field = rng.choice(oneof.fields)
        sub = getattr(move, field.name)
        sub.SetInParent()
        mutate(sub, rng)
    before = views(client, game_id, tokens)
    req = client.request("make_move", game_id=game_id, token=token,
                      expected_version=status.version + (rng.randrange(1, 5) if stale else 0), move=move,
                      idempotency_key=f"fuzz-{seed}")
    try:
        # a retry of an acknowledged key is answered as a replay (a small game like Kuhn poker
        # meets the same seat, key and move again): it changed nothing
        accepted = not client.rpcs["make_move"](req, timeout=10).replayed
    except grpc.RpcError as e:
        assert e.code() in REFUSALS, (e.code(), e.details())
        accepted = False
    if not accepted:
        assert views(client, game_id, tokens) == before
    else:
        assert token_kind == "right" and not stale


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.binary(max_size=512), method=st.sampled_from(["make_move", "get_view", "create_game", "list_moves"]),
       game=st.sampled_from(GAMES))
def test_malformed_bytes_get_invalid_argument(hostile, data, method, game):
    server, clients, _ = hostile
    client = clients[game]
    path = f"/{client.codec.service.full_name}/{client.codec.rpcs[method].name}"
    call = client.channel.unary_unary(path)
    try:
        call(data, timeout=10)
    except grpc.RpcError as e:
        assert e.code() in REFUSALS, (e.code(), e.details())
    assert server.proc.poll() is None


def test_huge_message_is_refused_and_the_server_lives_on(hostile):
    server, clients, games = hostile
    client = clients[GAMES[0]]
    game_id, tokens = games[GAMES[0]]
    with pytest.raises(grpc.RpcError) as e:
        client.rpcs["get_view"](client.request("get_view", game_id=game_id, token="t" * 200_000), timeout=10)
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert client.status(game_id).game_id == game_id
