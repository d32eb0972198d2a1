"""Issue 15 on the web port: gRPC-Web text mode (item 15) and ABORTED's current version (item 11),
by raw HTTP requests against a real server's web port."""
from __future__ import annotations

import base64
import struct
import urllib.request

import grpc
from google.rpc import error_details_pb2, status_pb2

from clients.sdk import Client
from engines import registry
from gameengine.v1 import common_pb2, pompeii_pb2

from .conftest import connect_call, grpc_web_call, grpc_web_frames

TEXT = "application/grpc-web-text"


def client_decode(text: bytes) -> bytes:
    """What Google's grpc-web client does with a text body: base64 in groups of four characters,
    so a body made of separately padded chunks decodes too."""
    text = b"".join(text.split())
    assert len(text) % 4 == 0, text[-20:]
    return b"".join(base64.b64decode(text[i:i + 4]) for i in range(0, len(text), 4))


def text_call(base: str, path: str, request_msg, content_type: str = TEXT, timeout: float = 15):
    """One gRPC-Web text-mode call: (http status, response headers, messages, trailers)."""
    body = request_msg.SerializeToString()
    req = urllib.request.Request(f"{base}{path}", method="POST",
                                 data=base64.b64encode(struct.pack(">BI", 0, len(body)) + body),
                                 headers={"content-type": content_type, "x-grpc-web": "1",
                                          "accept": TEXT})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        raw = r.read()
        headers = {k.lower(): v for k, v in r.headers.items()}
        status = r.status
    messages, trailers = grpc_web_frames(client_decode(raw))
    return status, headers, messages, {**{k: v for k, v in headers.items() if k.startswith("grpc-")}, **trailers}


def test_item15_grpc_web_text_mode_unary_and_server_stream(web_server):
    # unary, both content types the grpc-web client sends
    for ct in (TEXT, TEXT + "+proto"):
        status, headers, messages, trailers = text_call(
            web_server.base, "/gameengine.v1.GameService/ListGameTypes", common_pb2.ListGameTypesRequest(), ct)
        assert status == 200 and headers["content-type"].startswith(TEXT), headers
        assert trailers["grpc-status"] == "0", trailers
        games = {t.game for t in common_pb2.ListGameTypesResponse.FromString(messages[0]).game_types}
        assert games == set(registry.GAME_IDS)

    # a refusal: the same status and details as on the gRPC port
    _, _, _, trailers = text_call(web_server.base, "/gameengine.v1.PompeiiService/GetPompeiiView",
                                  pompeii_pb2.GetPompeiiViewRequest(game_id="no-such-game"))
    assert trailers["grpc-status"] == str(grpc.StatusCode.NOT_FOUND.value[0]), trailers

    # server streaming: a finished game's whole history, then the end of the stream
    client = Client(web_server.target, "pompeii")
    game_id, tokens = client.create(seats=3, seed=12)
    for _ in range(4):
        st = client.status(game_id)
        actor = next(s for s in st.seats_to_act if st.acts(s))
        seat = client.seat(game_id, actor, tokens[actor])
        seat.move(seat.legal()[0])
    client.adjudicate(game_id, tokens, "test", rollouts=4)
    expected = [v for v, _, _ in client.spectator(game_id).events(from_version=0, timeout=10)]
    _, _, messages, trailers = text_call(web_server.base, "/gameengine.v1.PompeiiService/StreamPompeiiEvents",
                                         pompeii_pb2.StreamPompeiiEventsRequest(game_id=game_id, from_version=0))
    assert trailers["grpc-status"] == "0", trailers
    assert [pompeii_pb2.StreamPompeiiEventsResponse.FromString(m).version for m in messages] == expected
    assert len(expected) > 4
    client.close()

    # a body that is not base64 is refused as INVALID_ARGUMENT, not with an HTTP error
    req = urllib.request.Request(f"{web_server.base}/gameengine.v1.GameService/ListGameTypes", data=b"%%%%",
                                 method="POST", headers={"content-type": TEXT})
    with urllib.request.urlopen(req, timeout=10) as r:
        assert r.status == 200 and r.headers["grpc-status"] == "3", dict(r.headers)


def test_item11_aborted_carries_current_version_on_the_web_port(web_server):
    client = Client(web_server.target, "pompeii")
    game_id, tokens = client.create(seats=3, seed=13)
    st = client.status(game_id)
    actor = next(s for s in st.seats_to_act if st.acts(s))
    seat = client.seat(game_id, actor, tokens[actor])
    move = client.codec.move_to_proto(seat.legal()[0])
    seat.move(client.codec.move_from_proto(move))
    req = pompeii_pb2.MakePompeiiMoveRequest(game_id=game_id, token=tokens[actor], expected_version=0, move=move)
    # gRPC-Web (binary)
    trailers, _ = grpc_web_call(web_server.base, "PompeiiService", "MakePompeiiMove", req)
    assert trailers["grpc-status"] == str(grpc.StatusCode.ABORTED.value[0])
    st = status_pb2.Status.FromString(base64.b64decode(trailers["grpc-status-details-bin"] + "=="))
    info = error_details_pb2.ErrorInfo()
    assert st.details[0].Unpack(info) and info.metadata["current_version"] == "1"
    # Connect (JSON)
    from google.protobuf import json_format
    status, err = connect_call(web_server.base, "PompeiiService", "MakePompeiiMove",
                               json_format.MessageToDict(req))
    assert err["code"] == "aborted"
    detail = next(d for d in err["details"] if d["type"] == "google.rpc.ErrorInfo")
    info = error_details_pb2.ErrorInfo.FromString(base64.b64decode(detail["value"] + "=="))
    assert info.metadata["current_version"] == "1" and info.domain == "gameengine.v1"
    client.close()


def test_item15_grpc_web_text_live_stream_delivers_each_event_at_once(web_server):
    """A live text-mode stream sends each event when it happens (a padded chunk of its own),
    not at the end of the game."""
    import http.client
    import threading

    client = Client(web_server.target, "pompeii")
    game_id, tokens = client.create(seats=3, seed=14)
    body = pompeii_pb2.StreamPompeiiEventsRequest(game_id=game_id, from_version=0).SerializeToString()
    conn = http.client.HTTPConnection("127.0.0.1", web_server.web_port, timeout=15)
    conn.request("POST", "/gameengine.v1.PompeiiService/StreamPompeiiEvents",
                 body=base64.b64encode(struct.pack(">BI", 0, len(body)) + body), headers={"content-type": TEXT})

    def one_move():
        st = client.status(game_id)
        actor = next(s for s in st.seats_to_act if st.acts(s))
        seat = client.seat(game_id, actor, tokens[actor])
        seat.move(seat.legal()[0])
    mover = threading.Timer(0.5, one_move)
    mover.start()
    try:
        resp = conn.getresponse()
        assert resp.status == 200 and resp.getheader("content-type").startswith(TEXT)
        chunk = resp.read1(1 << 16)  # the game goes on: only what was sent so far
        messages, trailers = grpc_web_frames(client_decode(chunk))
        assert messages and not trailers
        assert pompeii_pb2.StreamPompeiiEventsResponse.FromString(messages[0]).version == 1
    finally:
        mover.join()
        conn.close()
        client.close()
