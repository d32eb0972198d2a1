"""The README's grpcurl examples for players, the lobby and streams work as written.

grpcurl is not packaged for Debian bookworm, so each `grpcurl` line of the README section is run
here by the Python client the way grpcurl (1.8.6, through reflection) runs it: the same JSON
request, the same full method name, the response printed as JSON with proto field names; `NAME=...`
lines take the value the README says to copy from the output before them."""
from __future__ import annotations

import importlib
import json
import re
import shlex

import grpc
from google.protobuf import json_format

from tests.conftest import ROOT

SECTION = "## Players, the lobby and streams"
PB = {svc: importlib.import_module(f"gameengine.v1.{mod}_pb2")
      for svc, mod in (("PlayerService", "player"), ("LobbyService", "lobby"), ("PompeiiService", "pompeii"))}
# NAME=... lines: which field of which earlier response the README tells the reader to copy
COPY = {"ALICE": ("RegisterPlayer", "player_token"), "GAME": ("CreatePompeiiGame", "game_id"),
        "BOB": ("RegisterPlayer", "player_token")}


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text[text.index(SECTION):]
    block = section[section.index("```sh") + 5: section.index("```", section.index("```sh") + 5)]
    return [line.split("#")[0].strip() for line in block.strip().splitlines()]


def grpcurl(argv: list[str], channel) -> list[dict]:
    """`grpcurl -plaintext [-max-time S] -d JSON HOST:PORT pkg.Service/Method`, with the Python client."""
    opts, rest = {}, list(argv[1:])
    while rest[0].startswith("-"):
        flag = rest.pop(0)
        opts[flag] = True if flag == "-plaintext" else rest.pop(0)
    assert opts.get("-plaintext") and len(rest) == 2, argv
    service, method = rest[1].split("/")
    pb = PB[service.split(".")[-1]]
    desc = pb.DESCRIPTOR.services_by_name[service.split(".")[-1]].methods_by_name[method]
    request = json_format.Parse(opts.get("-d", "{}"), getattr(pb, desc.input_type.name)())
    out_cls = getattr(pb, desc.output_type.name)
    path = f"/{service}/{method}"
    if desc.server_streaming:
        stream = channel.unary_stream(path, request_serializer=lambda m: m.SerializeToString(),
                                      response_deserializer=out_cls.FromString)(
            request, timeout=float(opts.get("-max-time", 10)))
        got = []
        try:
            for msg in stream:
                got.append(json_format.MessageToDict(msg, preserving_proto_field_name=True))
        except grpc.RpcError as e:
            assert e.code() == grpc.StatusCode.DEADLINE_EXCEEDED, e  # what -max-time ends it with
        return got
    call = channel.unary_unary(path, request_serializer=lambda m: m.SerializeToString(),
                               response_deserializer=out_cls.FromString)
    return [json_format.MessageToDict(call(request, timeout=10), preserving_proto_field_name=True)]


def test_readme_lobby_grpcurl_examples_work_as_written(fresh_server):
    server = fresh_server().start()
    commands = readme_commands()
    assert sum(c.startswith("grpcurl ") for c in commands) >= 6
    env: dict[str, str] = {}
    outputs: list[tuple[str, list[dict]]] = []
    with grpc.insecure_channel(server.target) as channel:
        for line in commands:
            if re.fullmatch(r"[A-Z]+=\.\.\.", line):
                name = line.split("=")[0]
                method, field = COPY[name]
                env[name] = next(out[0][field] for m, out in reversed(outputs) if m == method)
                continue
            argv = shlex.split(re.sub(r"\$([A-Z]+)", lambda m: env[m.group(1)], line))
            argv = [a.replace("127.0.0.1:50051", server.target) for a in argv]
            outputs.append((argv[-1].split("/")[-1], grpcurl(argv, channel)))
    results = dict(outputs)
    created = results["CreatePompeiiGame"][0]
    assert [t.get("seat", 0) for t in created["seat_tokens"]] == [0] and created["status"]["waiting"]
    assert results["ListOpenGames"][0]["games"][0]["game_id"] == env["GAME"]
    assert results["JoinGame"][0]["seat"] == 1 and results["JoinGame"][0]["seat_token"]
    events = results["StreamPlayerEvents"]
    assert [list(e)[1] for e in events] == ["seat_assigned"] and events[0]["cursor"] == "1"
    assert env["BOB"] not in json.dumps(events)
