"""The browser path (Connect and gRPC-Web on GE_WEB_PORT) against the gRPC path of the same server:
same status codes, rule ids and refusals, and spectators never get a seat's hidden information."""
from __future__ import annotations

import base64
import json
import urllib.request

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from clients.sdk import Client, Refused
from engines import registry
from gameengine import codecs
from gameengine.v1 import common_pb2

from .conftest import connect_call, connect_stream, grpc_web_call

SERVICE = {g: f"{codecs.codec(g).prefix}Service" for g in registry.GAME_IDS}


def rule_of(details: list[dict]) -> str:
    """ErrorInfo.metadata["rule"] from Connect's JSON error details."""
    for d in details:
        if d["type"] == "google.rpc.ErrorInfo":
            info = error_details_pb2.ErrorInfo.FromString(base64.b64decode(d["value"] + "=="))
            return info.metadata["rule"]
    return ""


def illegal_pompeii_move(client: Client, game_id: str, token: str):
    """A well-formed Pompeii move that is not legal now: a card seat 0 does not hold, or a lava tile."""
    from engines.pompeii.moves import PlaceLava
    return client.codec.move_to_proto(PlaceLava((3, 3), ""))


def test_same_refusals_as_grpc(web_server):
    client = Client(web_server.target, "pompeii")
    game_id, tokens = client.create(seats=3, seed=11)
    seat = client.seat(game_id, 0, tokens[0])
    version = seat.status().version
    move = illegal_pompeii_move(client, game_id, tokens[0])
    # gRPC
    with pytest.raises(Refused) as grpc_err:
        seat.move(client.codec.move_from_proto(move), expected_version=version)
    assert grpc_err.value.code == grpc.StatusCode.FAILED_PRECONDITION and grpc_err.value.rule.startswith("POM-")
    # Connect (JSON)
    from google.protobuf import json_format
    body = {"gameId": game_id, "token": tokens[0], "expectedVersion": version, "idempotencyKey": "k1",
            "move": json_format.MessageToDict(move)}
    status, err = connect_call(web_server.base, SERVICE["pompeii"], "MakePompeiiMove", body)
    assert status == 400 and err["code"] == "failed_precondition"
    assert rule_of(err["details"]) == grpc_err.value.rule
    assert err["message"] == grpc_err.value.message
    # gRPC-Web (binary)
    req = client.request("make_move", game_id=game_id, token=tokens[0], expected_version=version,
                      idempotency_key="k2", move=move)
    trailers, _ = grpc_web_call(web_server.base, SERVICE["pompeii"], "MakePompeiiMove", req)
    assert trailers["grpc-status"] == str(grpc.StatusCode.FAILED_PRECONDITION.value[0])
    st = status_pb2.Status.FromString(base64.b64decode(trailers["grpc-status-details-bin"] + "=="))
    info = error_details_pb2.ErrorInfo()
    st.details[0].Unpack(info)
    assert info.metadata["rule"] == grpc_err.value.rule
    # nothing changed
    assert seat.status().version == version

    # the other refusals map to the same codes
    cases = [
        ({"gameId": "no-such-game", "token": ""}, "get_view", "not_found", grpc.StatusCode.NOT_FOUND),
        ({"gameId": game_id, "token": "wrong"}, "get_view", "permission_denied", grpc.StatusCode.PERMISSION_DENIED),
        ({"gameId": game_id, "token": tokens[0], "expectedVersion": version + 5, "move": json_format.MessageToDict(
            client.codec.move_to_proto(seat.legal()[0]))}, "make_move", "aborted", grpc.StatusCode.ABORTED),
        ({"gameId": game_id, "token": tokens[0], "expectedVersion": version}, "make_move",
         "invalid_argument", grpc.StatusCode.INVALID_ARGUMENT),
    ]
    for body, role, code, grpc_code in cases:
        method = client.codec.rpcs[role].name  # e.g. GetPompeiiView
        status, err = connect_call(web_server.base, SERVICE["pompeii"], method, body)
        assert err["code"] == code, (method, err)
        req = client.request(role, **{
            {"gameId": "game_id", "expectedVersion": "expected_version"}.get(k, k): v
            for k, v in body.items() if k != "move"})
        if "move" in body:
            req.move.CopyFrom(client.codec.move_to_proto(seat.legal()[0]))
        with pytest.raises(grpc.RpcError) as e:
            client.rpcs[role](req, timeout=5)
        assert e.value.code() == grpc_code
    client.close()


def test_spectator_gets_no_hidden_information(web_server):
    client = Client(web_server.target, "pompeii")
    game_id, tokens = client.create(seats=3, seed=5)
    seat0 = client.seat(game_id, 0, tokens[0])
    seat0.move(seat0.legal()[0])  # a card drawn: private to seat 0 (card_received)
    # the seat itself sees its hand and its private event over the web path ...
    _, own = connect_call(web_server.base, SERVICE["pompeii"], "GetPompeiiView",
                          {"gameId": game_id, "token": tokens[0]})
    assert own["view"]["hand"]
    own_events = connect_stream(web_server.base, SERVICE["pompeii"], "StreamPompeiiEvents",
                                {"gameId": game_id, "token": tokens[0]})
    # ... a spectator sees neither (streams are live: read what is there)
    status, spec = connect_call(web_server.base, SERVICE["pompeii"], "GetPompeiiView", {"gameId": game_id})
    assert status == 200 and spec["status"]["callerSeat"] == -1
    assert not spec["view"].get("hand")
    n_public = sum(1 for e in own_events if "event" in e and "cardReceived" not in e["event"])
    spec_events = connect_stream(web_server.base, SERVICE["pompeii"], "StreamPompeiiEvents", {"gameId": game_id})
    assert len(spec_events) == n_public
    assert any("cardReceived" in e["event"] for e in own_events if "event" in e)
    assert spec_events and all("cardReceived" not in e["event"] for e in spec_events if "event" in e)
    # and what the web path gives a spectator is exactly the gRPC spectator view
    grpc_spec = client.spectator(game_id).view()[1]
    assert spec["view"].get("hand", []) == grpc_spec["hand"] == []
    # spectator moves / log: no seat, no private moves
    status, err = connect_call(web_server.base, SERVICE["pompeii"], "ListPompeiiMoves", {"gameId": game_id})
    assert err["code"] == "permission_denied"
    client.close()


def test_page_types_data_and_cors(web_server):
    with urllib.request.urlopen(web_server.base + "/", timeout=5) as r:
        assert b'<script type="module" src="app.js">' in r.read()
    with urllib.request.urlopen(web_server.base + "/app.js", timeout=5) as r:
        assert r.headers["content-type"].startswith(("text/javascript", "application/javascript"))
    with urllib.request.urlopen(web_server.base + "/api/games", timeout=5) as r:
        listing = json.loads(r.read())
    assert {t["game"] for t in listing["types"]} == set(registry.GAME_IDS)
    with urllib.request.urlopen(web_server.base + "/data/pompeii/board.json", timeout=5) as r:
        assert json.loads(r.read())["coordinates"]["rows"] == 7
    # CORS: a configured origin gets a preflight answer, another does not
    for origin, allowed in (("http://example.test", True), ("http://evil.test", False)):
        req = urllib.request.Request(web_server.base + "/gameengine.v1.GameService/ListGameTypes", method="OPTIONS",
                                     headers={"origin": origin, "access-control-request-method": "POST",
                                              "access-control-request-headers":
                                                  "content-type,connect-protocol-version"})
        try:
            with urllib.request.urlopen(req, timeout=5) as r:
                got = r.headers.get("access-control-allow-origin")
        except urllib.error.HTTPError as e:
            got = e.headers.get("access-control-allow-origin")
        assert (got == origin) == allowed
    # every header the README says is forwarded as metadata passes the preflight (OpenTelemetry's fetch
    # instrumentation sends traceparent: its calls failed the preflight, 400)
    for header in ("traceparent", "tracestate", "x-request-id", "x-api-key", "x-player-token", "x-game-id"):
        req = urllib.request.Request(web_server.base + "/gameengine.v1.GameService/ListGameTypes", method="OPTIONS",
                                     headers={"origin": "http://example.test", "access-control-request-method": "POST",
                                              "access-control-request-headers": f"content-type,{header}"})
        with urllib.request.urlopen(req, timeout=5) as r:
            assert r.status == 200 and header in r.headers["access-control-allow-headers"].lower(), header
    status, types = connect_call(web_server.base, "GameService", "ListGameTypes", {})
    assert status == 200 and {t["game"] for t in types["gameTypes"]} == set(registry.GAME_IDS)
    # gRPC-Web binary on the game-agnostic service
    trailers, msg = grpc_web_call(web_server.base, "GameService", "ListGameTypes", common_pb2.ListGameTypesRequest())
    assert trailers.get("grpc-status", "0") == "0"
    assert len(common_pb2.ListGameTypesResponse.FromString(msg).game_types) == len(registry.GAME_IDS)


def test_a_stream_on_a_quiet_game_sends_its_headers_at_once_and_then_only_events(web_server):
    """connectrpc started a response with its first message: a stream opened at the game's version (a
    spectator waiting for the next move) sent no status line until then, so a browser's fetch could not
    tell a waiting stream from a hung one, and a proxy's header timeout cut it."""
    import http.client
    import struct
    import time

    from gameengine.v1 import pompeii_pb2
    client = Client(web_server.target, "pompeii")
    game_id, tokens = client.create(2, seed=5)
    status = client.status(game_id)
    seat = client.seat(game_id, status.to_move, tokens[status.to_move])
    seat.move(seat.legal()[0], expected_version=status.version)
    version = seat.last.version
    path = f"/gameengine.v1.{SERVICE['pompeii']}/StreamPompeiiEvents"
    as_json = json.dumps({"gameId": game_id, "fromVersion": version}).encode()
    as_proto = pompeii_pb2.StreamPompeiiEventsRequest(game_id=game_id, from_version=version).SerializeToString()
    streams = []
    for ctype, body in (("application/connect+json", as_json), ("application/grpc-web+proto", as_proto)):
        conn = http.client.HTTPConnection("127.0.0.1", web_server.web_port, timeout=10)
        conn.request("POST", path, struct.pack(">BI", 0, len(body)) + body,
                     {"content-type": ctype, "connect-protocol-version": "1", "x-grpc-web": "1"})
        t0 = time.perf_counter()
        response = conn.getresponse()  # the status line and headers, with nothing to send yet
        assert time.perf_counter() - t0 < 3 and response.status == 200, ctype
        assert response.getheader("content-type") == ctype
        streams.append((ctype, response, conn))
    status = client.status(game_id)
    mover = client.seat(game_id, status.to_move, tokens[status.to_move])
    mover.move(mover.legal()[0], expected_version=status.version)
    for ctype, response, conn in streams:
        flags, n = struct.unpack(">BI", response.read(5))  # the first message is an event, not an empty one
        data = response.read(n)
        assert flags == 0 and n > 0, ctype
        if ctype.endswith("json"):
            assert json.loads(data)["version"] == version + 1 and json.loads(data)["event"]
        else:
            message = pompeii_pb2.StreamPompeiiEventsResponse.FromString(data)
            assert message.version == version + 1 and message.HasField("event")
        conn.close()
    client.close()
