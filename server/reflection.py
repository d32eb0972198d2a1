"""Server reflection, v1 and v1alpha, with the protos' comments (issue 21 item 5).

grpcio-reflection implements only `grpc.reflection.v1alpha.ServerReflection`, and it serves the
descriptors the generated modules carry, which protoc strips of comments. Here:
- the file descriptors come from `protos/gameengine/descriptors.binpb`, which `make stubs` (and the
  Dockerfile) write with `--include_source_info`, so `grpcurl describe` shows the proto comments
  (a file missing there, or stale, is served from the generated code, without comments, and logged);
- `grpc.reflection.v1.ServerReflection` is served beside v1alpha by the same servicer: the two
  protocol versions have the same messages field for field (only the package differs), so the
  v1alpha message classes read and write v1's bytes; the v1 file itself is the v1alpha file
  under v1's name and package, added to the pool so reflection describes itself.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import structlog
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2
from grpc_reflection.v1alpha._async import ReflectionServicer

log = structlog.get_logger("gameengine")

DESCRIPTORS = Path(__file__).resolve().parents[1] / "protos" / "gameengine" / "descriptors.binpb"
V1 = "grpc.reflection.v1.ServerReflection"
V1ALPHA = reflection.SERVICE_NAME  # grpc.reflection.v1alpha.ServerReflection


def _v1_file() -> descriptor_pb2.FileDescriptorProto:
    """reflection.proto v1: the v1alpha file under v1's name and package."""
    alpha = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(alpha)
    v1 = descriptor_pb2.FileDescriptorProto()
    v1.CopyFrom(alpha)
    v1.name, v1.package = "grpc/reflection/v1/reflection.proto", "grpc.reflection.v1"
    v1.options.Clear()
    for message in v1.message_type:
        for f in message.field:
            if f.type_name:
                f.type_name = f.type_name.replace(".grpc.reflection.v1alpha.", ".grpc.reflection.v1.")
    for service in v1.service:
        for m in service.method:
            m.input_type = m.input_type.replace(".grpc.reflection.v1alpha.", ".grpc.reflection.v1.")
            m.output_type = m.output_type.replace(".grpc.reflection.v1alpha.", ".grpc.reflection.v1.")
    return v1


def add_v1_to_pool() -> None:
    pool = descriptor_pool.Default()
    try:
        pool.FindFileByName("grpc/reflection/v1/reflection.proto")
    except KeyError:
        pool.Add(_v1_file())


def load_sources(path: Path = DESCRIPTORS) -> dict[str, bytes]:
    """File name -> serialized FileDescriptorProto with source info (comments), for each file that is
    exactly what the generated code serves apart from its comments (a stale set is not served)."""
    try:
        data = path.read_bytes()
    except OSError as e:
        log.warning("reflection_without_comments", file=str(path), error=e.strerror, fix="make stubs")
        return {}
    pool = descriptor_pool.Default()
    sources = {}
    for f in descriptor_pb2.FileDescriptorSet.FromString(data).file:
        served = descriptor_pb2.FileDescriptorProto()
        try:
            pool.FindFileByName(f.name).CopyToProto(served)
        except KeyError:
            continue  # not served by this server
        if _declarations(served) == _declarations(f):
            sources[f.name] = f.SerializeToString()
        else:
            log.warning("reflection_without_comments", file=f.name, reason="stale descriptor set", fix="make stubs")
    return sources


def _declarations(file: descriptor_pb2.FileDescriptorProto) -> descriptor_pb2.FileDescriptorProto:
    """The file without what only protoc's output carries (comments, the default json_names)."""
    bare = descriptor_pb2.FileDescriptorProto()
    bare.CopyFrom(file)
    bare.ClearField("source_code_info")
    messages = list(bare.message_type)
    while messages:
        m = messages.pop()
        messages.extend(m.nested_type)
        for f in (*m.field, *m.extension):
            f.ClearField("json_name")
    for f in bare.extension:
        f.ClearField("json_name")
    return bare


class Reflection(ReflectionServicer):
    """grpcio-reflection's servicer, answering with the commented descriptors where it has them.

    It overrides two private methods of the base (which its stubs do not declare, hence the ignores)."""

    _pool: descriptor_pool.DescriptorPool  # set by the base's __init__

    def __init__(self, service_names: list[str], sources: dict[str, bytes]):
        add_v1_to_pool()
        super().__init__([*service_names, V1, V1ALPHA])
        self._sources = sources

    def _respond(self, descriptor: Any, request: Any) -> reflection_pb2.ServerReflectionResponse:
        files: dict[str, Any] = {}
        stack = [descriptor]
        while stack:  # the file and everything it imports, as the reference servicer sends
            d = stack.pop()
            if d.name not in files:
                files[d.name] = d
                stack.extend(d.dependencies)
        serialized = []
        for name, d in files.items():
            if name in self._sources:
                serialized.append(self._sources[name])
            else:
                proto = descriptor_pb2.FileDescriptorProto()
                d.CopyToProto(proto)
                serialized.append(proto.SerializeToString())
        return reflection_pb2.ServerReflectionResponse(
            file_descriptor_response=reflection_pb2.FileDescriptorResponse(file_descriptor_proto=serialized),
            original_request=request)

    def _file_by_filename(self, request: Any, filename: str) -> Any:
        try:
            return self._respond(self._pool.FindFileByName(filename), request)
        except KeyError:
            return super()._file_by_filename(request, filename)  # type: ignore[misc]

    def _file_containing_symbol(self, request: Any, fully_qualified_name: str) -> Any:
        try:
            return self._respond(self._pool.FindFileContainingSymbol(fully_qualified_name), request)
        except KeyError:
            return super()._file_containing_symbol(request, fully_qualified_name)  # type: ignore[misc]
