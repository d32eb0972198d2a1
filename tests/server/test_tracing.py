"""Issue 23 item 5: OpenTelemetry tracing of gRPC calls is off by default and on with GE_OTEL=1."""
from __future__ import annotations

import json
import time

import grpc

from gameengine.v1 import common_pb2, common_pb2_grpc


def call_list_game_types(s) -> None:
    with grpc.insecure_channel(s.target) as ch:
        common_pb2_grpc.GameServiceStub(ch).ListGameTypes(common_pb2.ListGameTypesRequest(), timeout=10)


def spans(text: str) -> list[dict]:
    """The console exporter's spans (multi-line JSON objects) in the server's stderr."""
    out, depth, buf = [], 0, []
    for line in text.splitlines():
        if depth == 0 and line == "{":
            buf, depth = [line], 1
            continue
        if depth:
            buf.append(line)
            if line == "}":
                depth = 0
                out.append(json.loads("\n".join(buf)))
    return out


def test_item5_tracing_is_off_by_default(fresh_server):
    s = fresh_server().start()
    call_list_game_types(s)
    s.stop()
    assert not spans(s.log.read_text())


def test_item5_ge_otel_traces_each_call(fresh_server):
    s = fresh_server(GE_OTEL="1", OTEL_TRACES_EXPORTER="console", OTEL_SERVICE_NAME="ge-test").start()
    call_list_game_types(s)
    deadline = time.time() + 5
    while time.time() < deadline and not any(
            sp["name"].endswith("ListGameTypes") for sp in spans(s.log.read_text())):
        time.sleep(0.1)
    s.stop()
    found = [sp for sp in spans(s.log.read_text()) if sp["name"] == "/gameengine.v1.GameService/ListGameTypes"]
    assert found, s.log.read_text()[-2000:]
    assert found[0]["kind"] == "SpanKind.SERVER"
    assert found[0]["resource"]["attributes"]["service.name"] == "ge-test"
