"""Hostile input to PlayerService and LobbyService (issue 17): undecodable bytes and random field
values are refused precisely (never UNKNOWN or INTERNAL), and the server keeps serving."""
from __future__ import annotations

import random

import grpc
from google.protobuf.descriptor import FieldDescriptor

from gameengine.v1 import lobby_pb2, player_pb2

SERVICES = [(player_pb2, "PlayerService"), (lobby_pb2, "LobbyService")]
BAD = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL}


def random_message(cls, rng: random.Random):
    msg = cls()
    for field in msg.DESCRIPTOR.fields:
        if field.type == FieldDescriptor.TYPE_STRING:
            value = "".join(rng.choice("aZ0_-.é/\x00 ") for _ in range(rng.choice([0, 1, 5, 33, 65, 129, 300])))
        elif field.type == FieldDescriptor.TYPE_BOOL:
            value = rng.random() < 0.5
        elif field.type in (FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32):
            value = rng.choice([-1, 0, 1, 2, 7, 2**31 - 1, -2**31])
        elif field.type in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_UINT64):
            value = rng.choice([0, 1, 100, 101, 2**32 - 1])
        else:
            continue
        if field.is_repeated:
            getattr(msg, field.name).extend([value] * rng.randrange(3))
        elif field.containing_oneof is None or rng.random() < 0.5:
            setattr(msg, field.name, value)
    return msg


def test_random_and_undecodable_requests_are_refused_precisely(server):
    rng = random.Random(17)
    with grpc.insecure_channel(server.target) as ch:
        for pb, name in SERVICES:
            service = pb.DESCRIPTOR.services_by_name[name]
            for method in service.methods:
                path = f"/{service.full_name}/{method.name}"
                out = getattr(pb, method.output_type.name)
                make = ch.unary_stream if method.server_streaming else ch.unary_unary
                raw = make(path, request_serializer=lambda b: b, response_deserializer=out.FromString)
                try:
                    result = raw(b"\xff\xff\xff\x0f", timeout=5)
                    list(result) if method.server_streaming else result
                    raise AssertionError(f"{path} accepted undecodable bytes")
                except grpc.RpcError as e:
                    assert e.code() == grpc.StatusCode.INVALID_ARGUMENT, (path, e.code(), e.details())
                call = make(path, request_serializer=lambda m: m.SerializeToString(),
                            response_deserializer=out.FromString)
                for _ in range(40):
                    request = random_message(getattr(pb, method.input_type.name), rng)
                    try:
                        result = call(request, timeout=1.5)
                        if method.server_streaming:
                            for _ in result:
                                pass
                    except grpc.RpcError as e:
                        assert e.code() not in BAD, (path, request, e.code(), e.details())
                        assert e.code() == grpc.StatusCode.DEADLINE_EXCEEDED or len(e.details()) < 400
