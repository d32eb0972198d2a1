"""Issue 21 item 5: server reflection v1 beside v1alpha, with the protos' comments (what
`grpcurl describe` prints), against a real server."""
from __future__ import annotations

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2

V1 = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
V1ALPHA = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"


def ask(target: str, path: str, **request) -> reflection_pb2.ServerReflectionResponse:
    """One reflection request on `path`; v1 and v1alpha messages are the same on the wire."""
    with grpc.insecure_channel(target) as ch:
        call = ch.stream_stream(path, request_serializer=lambda m: m.SerializeToString(),
                                response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
        (answer,) = list(call(iter([reflection_pb2.ServerReflectionRequest(**request)]), timeout=10))
    return answer


def comments(answer: reflection_pb2.ServerReflectionResponse, file: str) -> list[str]:
    for raw in answer.file_descriptor_response.file_descriptor_proto:
        fd = descriptor_pb2.FileDescriptorProto.FromString(raw)
        if fd.name == file:
            return [loc.leading_comments.strip() for loc in fd.source_code_info.location if loc.leading_comments]
    raise AssertionError(f"{file} not in the answer")


@pytest.mark.parametrize("path", [V1, V1ALPHA])
def test_item5_reflection_v1_and_v1alpha_list_every_service(server, path):
    services = {s.name for s in ask(server.target, path, list_services="").list_services_response.service}
    assert {"grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection",
            "gameengine.v1.PompeiiService", "gameengine.v1.GameService", "grpc.health.v1.Health"} <= services


@pytest.mark.parametrize("path", [V1, V1ALPHA])
def test_item5_reflected_descriptors_carry_the_proto_comments(server, path):
    answer = ask(server.target, path, file_containing_symbol="gameengine.v1.MakePompeiiMoveRequest")
    pompeii = comments(answer, "gameengine/v1/pompeii.proto")
    assert any("POM-35" in c for c in pompeii), pompeii[:5]  # PompeiiPlaceRelative's comment
    assert comments(answer, "gameengine/v1/common.proto")  # imports are sent with theirs too


def test_item5_reflection_v1_describes_itself(server):
    answer = ask(server.target, V1, file_containing_symbol="grpc.reflection.v1.ServerReflection")
    files = [descriptor_pb2.FileDescriptorProto.FromString(raw)
             for raw in answer.file_descriptor_response.file_descriptor_proto]
    (v1,) = [f for f in files if f.package == "grpc.reflection.v1"]
    assert v1.service[0].name == "ServerReflection"
    assert v1.service[0].method[0].input_type == ".grpc.reflection.v1.ServerReflectionRequest"
