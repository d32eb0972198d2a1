"""Refusals the web edge makes itself, before a call reaches the gRPC server: JSON it cannot map onto the
request message (unknown fields and enum names, wrong types, malformed JSON), bytes it cannot decode,
bodies over GE_MAX_MESSAGE_BYTES and paths no service has. Each is refused with the code, message shape
and google.rpc details the gRPC port gives (common.proto), on Connect and gRPC-Web alike, and nothing changes."""
from __future__ import annotations

import base64
import json
import struct
import urllib.error
import urllib.parse
import urllib.request

import grpc
import pytest
from google.rpc import code_pb2, error_details_pb2, status_pb2

from clients.sdk import Client
from gameengine.v1 import common_pb2

from .conftest import connect_call, grpc_web_frames

POMPEII = "/gameengine.v1.PompeiiService/CreatePompeiiGame"
MAX_QUOTED = 40  # limits.QUOTE_CHARS: the most caller text a sentence shows


def post(base: str, path: str, body, content_type: str, headers: dict | None = None):
    """A raw POST: (http status, lower-cased headers, body). `body` may be an iterable (sent chunked)."""
    req = urllib.request.Request(base + path, data=body, method="POST",
                                 headers={"content-type": content_type, **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=15) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def unb64(s: str) -> bytes:
    return base64.b64decode(s + "=" * (-len(s) % 4))


def connect_details(err: dict) -> dict[str, bytes]:
    """A Connect JSON error's details: type name -> serialized message."""
    return {d["type"]: unb64(d["value"]) for d in err.get("details", [])}


def status_of(details: dict[str, bytes]) -> tuple[error_details_pb2.ErrorInfo, error_details_pb2.BadRequest | None]:
    info = error_details_pb2.ErrorInfo.FromString(details["google.rpc.ErrorInfo"])
    bad = details.get("google.rpc.BadRequest")
    return info, (error_details_pb2.BadRequest.FromString(bad) if bad is not None else None)


def assert_invalid_argument(err: dict) -> str:
    """The gRPC port's INVALID_ARGUMENT shape: ErrorInfo (rule REQUEST) and one BadRequest violation of "request"."""
    assert err["code"] == "invalid_argument", err
    info, bad = status_of(connect_details(err))
    assert (info.reason, info.domain, dict(info.metadata)) == ("REQUEST", "gameengine.v1", {"rule": "REQUEST"})
    assert err["message"].startswith("REQUEST: ")
    sentence = err["message"].removeprefix("REQUEST: ")
    assert bad is not None and [(v.field, v.description) for v in bad.field_violations] == [("request", sentence)]
    return str(err["message"])


def grpc_web(base: str, path: str, framed: bytes, text: bool = False, chunked: bool = False) -> dict[str, str]:
    """A raw gRPC-Web call (binary, or text mode): its trailers, trailers-only headers included."""
    ctype = "application/grpc-web-text" if text else "application/grpc-web+proto"
    body = base64.b64encode(framed) if text else framed
    status, headers, raw = post(base, path, iter([body]) if chunked else body, ctype, {"x-grpc-web": "1"})
    assert status == 200, (status, raw[:200])
    if text and raw:
        raw = base64.b64decode(b"".join(raw.split()))
    _, trailers = grpc_web_frames(raw)
    return {**{k: v for k, v in headers.items() if k.startswith("grpc-")}, **trailers}


def grpc_web_status(trailers: dict[str, str]) -> status_pb2.Status:
    st = status_pb2.Status.FromString(unb64(trailers["grpc-status-details-bin"]))
    assert str(st.code) == trailers["grpc-status"]
    assert urllib.parse.unquote(trailers.get("grpc-message", "")) == st.message
    return st


def status_details(st: status_pb2.Status) -> dict[str, bytes]:
    return {d.type_url.removeprefix("type.googleapis.com/"): d.value for d in st.details}


def connect_stream_end(base: str, path: str, payload: bytes) -> tuple[int, dict]:
    """A Connect streaming call (JSON) whose answer is only its end-of-stream message: (http status, its JSON)."""
    status, _, raw = post(base, path, struct.pack(">BI", 0, len(payload)) + payload, "application/connect+json",
                          {"connect-protocol-version": "1"})
    flags, n = struct.unpack(">BI", raw[:5])
    assert flags & 2 and len(raw) == 5 + n, raw[:300]
    return status, json.loads(raw[5:5 + n])


def live_total(base: str) -> int:
    with urllib.request.urlopen(base + "/api/games", timeout=5) as r:
        return int(json.loads(r.read())["total"])


# ---- 1: unknown JSON fields and enum names are refused, not dropped --------------------------

def test_unknown_json_fields_and_enum_names_are_refused(web_server):
    client = Client(web_server.target, "smallworld")
    game_id, tokens = client.create(seats=2, seed=3)
    seat = client.seat(game_id, 0, tokens[0])
    version = seat.status().version
    move = {"gameId": game_id, "token": tokens[0], "expectedVersion": version, "idempotencyKey": "typo-1"}
    status, err = connect_call(web_server.base, "SmallWorldService", "MakeSmallWorldMove",
                               {**move, "move": {"pickCombo": {"positon": 3}}})
    assert status == 400, err
    message = assert_invalid_argument(err)
    assert 'has no field named "positon"' in message and "pickCombo" in message and "'position'" in message
    assert seat.status().version == version  # nothing was played

    before = live_total(web_server.base)
    status, err = connect_call(web_server.base, "PompeiiService", "CreatePompeiiGame",
                               {"seats": 3, "options": {"editon": "2013"}})
    assert status == 400 and 'has no field named "editon"' in assert_invalid_argument(err), err
    status, err = connect_call(web_server.base, "PompeiiService", "CreatePompeiiGame",
                               {"seats": 3, "referee": {"timeoutPolicy": "TIMEOUT_POLICY_BOGUS"}})
    message = assert_invalid_argument(err)
    assert status == 400 and "Invalid enum value TIMEOUT_POLICY_BOGUS" in message and "timeoutPolicy" in message
    # caller text is bounded: a long unknown name shows at most its first 40 characters
    status, err = connect_call(web_server.base, "PompeiiService", "CreatePompeiiGame", {"seats": 3, "x" * 5000: 1})
    message = assert_invalid_argument(err)
    assert status == 400 and "x" * MAX_QUOTED in message and "x" * (MAX_QUOTED + 1) not in message, message
    status, err = connect_call(web_server.base, "PompeiiService", "CreatePompeiiGame",
                               {"seats": 3, "referee": {"timeoutPolicy": "B" * 5000}})
    message = assert_invalid_argument(err)
    assert "B" * (MAX_QUOTED + 1) not in message and len(message) <= 400, message
    assert live_total(web_server.base) == before  # nothing was created

    # a server stream's request is checked the same way (Connect streaming: the error ends the stream)
    status, end = connect_stream_end(web_server.base, "/gameengine.v1.SmallWorldService/StreamSmallWorldEvents",
                                     json.dumps({"gameId": game_id, "tokn": "x"}).encode())
    assert status == 200 and 'has no field named "tokn"' in assert_invalid_argument(end["error"])

    # what protobuf's JSON mapping allows still passes: proto field names, enum names and numbers, null
    status, made = connect_call(web_server.base, "PompeiiService", "CreatePompeiiGame",
                                {"seats": 3, "seed": "7", "options": None,
                                 "referee": {"timeout_policy": "TIMEOUT_POLICY_RANDOM", "maxMoves": 0}})
    assert status == 200 and made["gameId"], made
    status, made = connect_call(web_server.base, "PompeiiService", "CreatePompeiiGame",
                                {"seats": 3, "referee": {"timeoutPolicy": 2}})
    assert status == 200, made
    client.close()


# ---- 2: the edge's own refusals carry the gRPC port's details ----------------------------------

def test_undecodable_requests_have_the_grpc_ports_status(web_server):
    garbage = b"\xff\xff\xff"
    with grpc.insecure_channel(web_server.target) as ch:
        call = ch.unary_unary(POMPEII, request_serializer=lambda b: b, response_deserializer=lambda b: b)
        with pytest.raises(grpc.RpcError) as e:
            call(garbage, timeout=5)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    grpc_status = next(status_pb2.Status.FromString(v) for k, v in e.value.trailing_metadata()
                       if k == "grpc-status-details-bin")

    # Connect, binary
    status, _, raw = post(web_server.base, POMPEII, garbage, "application/proto")
    err = json.loads(raw)
    assert status == 400 and err["message"] == grpc_status.message, err
    assert connect_details(err) == status_details(grpc_status)
    # gRPC-Web, binary and text
    for text in (False, True):
        st = grpc_web_status(grpc_web(web_server.base, POMPEII, struct.pack(">BI", 0, len(garbage)) + garbage, text))
        assert st == grpc_status
    # a gRPC-Web envelope cut short, and text mode that is not base64: the same shape
    trailers = grpc_web(web_server.base, POMPEII, struct.pack(">BI", 0, 100) + b"abc")
    st = grpc_web_status(trailers)
    assert st.code == 3
    assert_invalid_argument({"code": "invalid_argument", "message": st.message,
                             "details": [{"type": k, "value": base64.b64encode(v).decode()}
                                         for k, v in status_details(st).items()]})
    status, headers, _ = post(web_server.base, POMPEII, b"!!not base64!!", "application/grpc-web-text")
    st = grpc_web_status({k: v for k, v in headers.items() if k.startswith("grpc-")})
    assert st.code == 3 and set(status_details(st)) == {"google.rpc.ErrorInfo", "google.rpc.BadRequest"}

    # Connect JSON: malformed, and a wrong type
    before = live_total(web_server.base)
    status, _, raw = post(web_server.base, POMPEII, b'{"seats": ', "application/json")
    assert status == 400 and "Failed to load JSON" in assert_invalid_argument(json.loads(raw)), raw
    status, _, raw = post(web_server.base, POMPEII, b'{"seats": 3, "options": {"edition": 2013}}', "application/json")
    message = assert_invalid_argument(json.loads(raw))
    assert status == 400 and "edition" in message and "expected string" in message, message
    status, _, raw = post(web_server.base, POMPEII, b'{"seats": 3, "seats": 4}', "application/json")
    assert status == 400 and "duplicate key seats" in assert_invalid_argument(json.loads(raw))
    assert live_total(web_server.base) == before


def test_a_request_with_no_message_or_a_compressed_one_unasked_is_invalid_argument(web_server):
    """connectrpc's own words for these were UNIMPLEMENTED "unary request has zero messages" and INTERNAL
    "protocol error: ...", with no ErrorInfo: the caller's request is malformed, as on the gRPC port."""
    for framed in (b"", struct.pack(">BI", 1, 3) + b"abc"):  # no envelope; a compressed flag, no encoding
        st = grpc_web_status(grpc_web(web_server.base, POMPEII, framed))
        assert_invalid_argument({"code": "invalid_argument", "message": st.message,
                                 "details": [{"type": k, "value": base64.b64encode(v).decode()}
                                             for k, v in status_details(st).items()]})
    status, _, raw = post(web_server.base, "/gameengine.v1.PompeiiService/StreamPompeiiEvents", b"",
                          "application/connect+json", {"connect-protocol-version": "1"})
    flags, n = struct.unpack(">BI", raw[:5])
    assert status == 200 and flags & 2, raw[:300]
    assert_invalid_argument(json.loads(raw[5:5 + n])["error"])


def test_a_header_value_that_is_not_utf8_is_invalid_argument(web_server):
    """connectrpc decodes every header as UTF-8: one byte 0xe9 answered HTTP 500 "unknown" and logged a
    traceback."""
    before = live_total(web_server.base)
    status, _, raw = post(web_server.base, POMPEII, b'{"seats": 3}', "application/json", {"x-note": "caf\xe9"})
    message = assert_invalid_argument(json.loads(raw))
    assert status == 400 and "x-note" in message and "UTF-8" in message, message
    assert live_total(web_server.base) == before
    assert "UnicodeDecodeError" not in web_server.log.read_text()


def test_plain_grpc_on_the_web_port_is_refused_with_a_sentence(web_server):
    """The web port has no HTTP/2 trailers: application/grpc got grpc-status 2 and a traceback."""
    status, headers, _ = post(web_server.base, POMPEII, b"", "application/grpc")
    assert status == 200 and headers["grpc-status"] == "3" and "gRPC port" in urllib.parse.unquote(
        headers["grpc-message"]), headers
    assert "Exception in ASGI" not in web_server.log.read_text()


def refused_over_web(base: str, headers: dict, protocol: str) -> tuple[str, str, dict[str, bytes]]:
    """A ListOpenGames call with `headers`, over Connect (unary JSON), a Connect stream or gRPC-Web:
    (code name, message, details by type)."""
    if protocol == "grpc-web":
        trailers = grpc_web_raw(base, "/gameengine.v1.LobbyService/ListOpenGames", struct.pack(">BI", 0, 0), headers)
        st = grpc_web_status(trailers)
        return code_pb2.Code.Name(st.code).lower(), st.message, status_details(st)
    if protocol == "connect-stream":
        status, _, raw = post(base, "/gameengine.v1.PompeiiService/StreamPompeiiEvents",
                              struct.pack(">BI", 0, 2) + b"{}", "application/connect+json", headers)
        err = json.loads(raw[5:])["error"]
    else:
        status, _, raw = post(base, "/gameengine.v1.LobbyService/ListOpenGames", b"{}", "application/json", headers)
        err = json.loads(raw)
    return err["code"], err["message"], connect_details(err)


def grpc_web_raw(base: str, path: str, framed: bytes, headers: dict) -> dict[str, str]:
    status, got, raw = post(base, path, framed, "application/grpc-web+proto", {"x-grpc-web": "1", **headers})
    assert status == 200, (status, raw[:200])
    _, trailers = grpc_web_frames(raw)
    return {**{k: v for k, v in got.items() if k.startswith("grpc-")}, **trailers}


def test_protocol_headers_connectrpc_refuses_are_refusals_of_ours(web_server):
    """connectrpc refused these in its own words with no ErrorInfo, repeating the caller's header whole
    (300 characters here, any length up to the head's 16 KiB)."""
    long = "9" + "x" * 299
    cases = [("connect", {"connect-protocol-version": long}, "invalid_argument"),
             ("connect", {"connect-timeout-ms": long}, "invalid_argument"),
             ("connect", {"connect-timeout-ms": "12345678901"}, "invalid_argument"),
             ("connect-stream", {"connect-protocol-version": long}, "invalid_argument"),
             ("grpc-web", {"grpc-timeout": long}, "invalid_argument"),
             ("grpc-web", {"grpc-timeout": "123456789S"}, "invalid_argument"),
             ("connect", {"content-encoding": long}, "unimplemented"),
             ("connect-stream", {"connect-content-encoding": long}, "unimplemented"),
             ("grpc-web", {"grpc-encoding": long}, "unimplemented")]
    for protocol, headers, code in cases:
        got, message, details = refused_over_web(web_server.base, headers, protocol)
        assert got == code, (protocol, headers, got, message)
        info = error_details_pb2.ErrorInfo.FromString(details["google.rpc.ErrorInfo"])
        assert dict(info.metadata) == {"rule": "REQUEST"} and message.startswith("REQUEST: "), (headers, message)
        assert "x" * (MAX_QUOTED + 1) not in message, message
    # what connectrpc accepts still passes
    for protocol, headers in (("connect", {"connect-protocol-version": "1", "connect-timeout-ms": "5000"}),
                              ("connect", {"connect-timeout-ms": "", "content-encoding": "identity"}),
                              ("grpc-web", {"grpc-timeout": "5S", "grpc-encoding": "identity"})):
        if protocol == "grpc-web":
            trailers = grpc_web_raw(web_server.base, "/gameengine.v1.LobbyService/ListOpenGames",
                                    struct.pack(">BI", 0, 0), headers)
            assert trailers["grpc-status"] == "0", (headers, trailers)
        else:
            status, _, raw = post(web_server.base, "/gameengine.v1.LobbyService/ListOpenGames", b"{}",
                                  "application/json", headers)
            assert status == 200, (headers, raw[:300])


def test_a_long_json_number_is_quoted_not_repeated(web_server):
    status, _, raw = post(web_server.base, "/gameengine.v1.LobbyService/ListOpenGames",
                          b'{"pageSize": ' + b"1" * 350 + b"}", "application/json")
    message = assert_invalid_argument(json.loads(raw))
    assert status == 400 and "pageSize" in message and "1" * (MAX_QUOTED + 1) not in message, message


def test_forwarded_headers_over_their_bound_are_a_limit_not_an_oversize_body(web_server):
    """gRPC refuses metadata over 16 KiB without details, and the edge took that RESOURCE_EXHAUSTED for a
    body over GE_MAX_MESSAGE_BYTES."""
    status, _, raw = post(web_server.base, "/gameengine.v1.LobbyService/ListOpenGames", b"{}",
                          "application/json", {"x-request-id": "r" * (12 << 10)})
    err = json.loads(raw)
    assert status == 400 and err["code"] == "invalid_argument", (status, raw[:300])
    info, _ = status_of(connect_details(err))
    assert dict(info.metadata) == {"rule": "LIMIT"} and "x-request-id" in err["message"], err["message"]
    assert "GE_MAX_MESSAGE_BYTES" not in err["message"] and "r" * (MAX_QUOTED + 1) not in err["message"]


def test_a_request_head_over_16_kib_sent_whole_is_refused(web_server):
    """h11 bounds a head still arriving at 16 KiB; one that came in a single read (up to ~64 KiB) was
    parsed and served, as the README said it was not."""
    note = {"x-note": "n" * (20 << 10)}
    before = refusals_counted(web_server, "head_size")
    status, _, raw = post(web_server.base, "/gameengine.v1.LobbyService/ListOpenGames", b"{}", "application/json", note)
    err = json.loads(raw)
    assert status == 431 and err["code"] == "resource_exhausted", (status, raw[:300])
    info, _ = status_of(connect_details(err))
    assert dict(info.metadata) == {"rule": "LIMIT"} and "16384" in err["message"], err["message"]
    st = grpc_web_status(grpc_web_raw(web_server.base, "/gameengine.v1.LobbyService/ListOpenGames",
                                      struct.pack(">BI", 0, 0), note))
    assert st.code == 8 and "16384" in st.message
    req = urllib.request.Request(web_server.base + "/", headers=note)
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(req, timeout=10)
    assert refused.value.code == 431
    assert refusals_counted(web_server, "head_size") == before + 3, "counted where /metrics is served"
    near = {"x-note": "n" * (15 << 10)}  # a head under the bound is served
    assert post(web_server.base, "/gameengine.v1.LobbyService/ListOpenGames", b"{}", "application/json",
                near)[0] == 200


LIST = "/gameengine.v1.LobbyService/ListOpenGames"


def refusal_in_any_shape(status: int, headers: dict[str, str], raw: bytes) -> tuple[str, str, dict[str, bytes]]:
    """(code name, message, details) of a refusal answered as gRPC-Web (grpc-status in the headers) or Connect
    (a unary JSON error, or a stream's end message)."""
    if "grpc-status" in headers:
        st = grpc_web_status(headers)
        return code_pb2.Code.Name(st.code).lower(), st.message, status_details(st)
    err = json.loads(raw[5:])["error"] if raw[:1] == b"\x02" else json.loads(raw)
    return err["code"], err["message"], connect_details(err)


def test_a_content_type_connectrpc_takes_for_connect_is_checked_as_connect(web_server):
    """connectrpc takes only "application/grpc-web" and "application/grpc-web+..." for gRPC-Web, exactly as
    sent: "application/grpc-web; charset=utf-8" is Connect to it, and its headers were not checked as
    Connect's, so connectrpc's own refusal came back, repeating them whole without ErrorInfo."""
    long = "x" * 300
    for ctype in ("application/grpc-web; charset=utf-8", "application/grpc-webx", "application/grpc-web-textual",
                  "application/json"):
        for header in ("connect-protocol-version", "connect-timeout-ms"):
            status, headers, raw = post(web_server.base, LIST, b"{}", ctype, {header: long})
            code, message, details = refusal_in_any_shape(status, headers, raw)
            assert code == "invalid_argument" and "google.rpc.ErrorInfo" in details, (ctype, header, raw[:300])
            assert header in message and "x" * (MAX_QUOTED + 1) not in message, message


def test_a_wrong_method_or_content_type_is_a_refusal_with_its_reason(web_server):
    """connectrpc answered these 405 and 415 with an empty body."""
    req = urllib.request.Request(web_server.base + LIST, method="GET")
    with pytest.raises(urllib.error.HTTPError) as got:
        urllib.request.urlopen(req, timeout=10)
    err = json.loads(got.value.read())
    assert got.value.code == 405 and got.value.headers["allow"] and "POST" in err["message"], err
    assert status_of(connect_details(err))[0].metadata["rule"] == "REQUEST"
    for method in ("PUT", "DELETE"):
        status, _, raw = post_with(web_server.base, LIST, method, b"{}", "application/json")
        assert status == 405 and json.loads(raw)["code"] == "invalid_argument", (method, raw[:200])
    for ctype in ("text/plain", "application/grpc-web+nonsense", "application/connect+json"):
        status, headers, raw = post(web_server.base, LIST, b"{}", ctype)
        code, message, details = refusal_in_any_shape(status, headers, raw)
        assert code == "invalid_argument" and "content type" in message, (ctype, status, raw[:200])
        assert "google.rpc.ErrorInfo" in details


def post_with(base: str, path: str, method: str, body: bytes, content_type: str):
    req = urllib.request.Request(base + path, data=body, method=method, headers={"content-type": content_type})
    try:
        with urllib.request.urlopen(req, timeout=15) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def test_a_refusal_never_repeats_the_callers_content_type(web_server):
    for ctype in ("application/grpc" + "x" * 300, "application/connect+" + "x" * 300,
                  "application/grpc-web+" + "x" * 300):
        status, headers, raw = post(web_server.base, LIST, b"", ctype, {"connect-protocol-version": "2"})
        assert "x" * (MAX_QUOTED + 1) not in headers.get("content-type", ""), (ctype, headers)
        assert "x" * (MAX_QUOTED + 1) not in raw.decode(errors="replace")


def test_grpc_web_text_with_a_declared_length_is_bounded_by_the_decoded_message(web_server):
    """The body limit compared the base64 text's length with the binary bound: a message within
    GE_MAX_MESSAGE_BYTES, sent as text with a Content-Length, was refused as oversize."""
    from gameengine.v1 import lobby_pb2
    message = lobby_pb2.ListOpenGamesRequest(game="g" * 50_000).SerializeToString()
    framed = struct.pack(">BI", 0, len(message)) + message
    st = grpc_web_status(grpc_web(web_server.base, LIST, framed, text=True))
    assert st.code != 8 and "GE_MAX_MESSAGE_BYTES" not in st.message, st.message  # the server's own refusal


def test_the_longest_grpc_timeout_is_a_long_deadline_not_an_expired_one(web_server):
    """grpc-timeout allows 8 digits of hours; grpc.aio failed such a call at once, DEADLINE_EXCEEDED."""
    empty = struct.pack(">BI", 0, 0)
    for timeout in ("99999999H", "9999999H", "5S"):
        trailers = grpc_web_raw(web_server.base, LIST, empty, {"grpc-timeout": timeout})
        assert trailers["grpc-status"] == "0", (timeout, trailers)


def test_a_json_request_is_an_object(web_server):
    """protobuf's JSON parser took [] and "" for an empty message."""
    for body in (b"[]", b'""', b" [ ] ", b"1", b"null"):
        status, _, raw = post(web_server.base, LIST, body, "application/json")
        assert status == 400, (body, raw[:200])
        assert_invalid_argument(json.loads(raw))
    assert post(web_server.base, LIST, b" {} ", "application/json")[0] == 200


# ---- 3: an unknown service or method is UNIMPLEMENTED --------------------------------------------

def test_unknown_method_is_unimplemented(web_server):
    for path in ("/gameengine.v1.PompeiiService/Nope", "/gameengine.v1.NoSuchService/Nope"):
        status, headers, raw = post(web_server.base, path, b"{}", "application/json")
        err = json.loads(raw)
        assert status == 404 and headers["content-type"] == "application/json", (status, raw)
        assert err["code"] == "unimplemented" and err["message"]
        info, _ = status_of(connect_details(err))
        assert (info.reason, info.domain) == ("UNIMPLEMENTED", "gameengine.v1")
        empty = common_pb2.ListGameTypesRequest().SerializeToString()
        for text in (False, True):
            trailers = grpc_web(web_server.base, path, struct.pack(">BI", 0, len(empty)) + empty, text)
            assert trailers["grpc-status"] == "12" and grpc_web_status(trailers).code == 12
        status, end = connect_stream_end(web_server.base, path, b"{}")  # a Connect stream reads its end message
        assert status == 200 and end["error"]["code"] == "unimplemented"
    # the page, its data and /api/ on the same port are as they were
    for path, code in (("/", 200), ("/app.js", 200), ("/api/games", 200), ("/data/pompeii/board.json", 200),
                       ("/no-such-file.js", 404)):
        try:
            with urllib.request.urlopen(web_server.base + path, timeout=5) as r:
                got = r.status
        except urllib.error.HTTPError as e:
            got = e.code
        assert got == code, path


# ---- 4: a body over GE_MAX_MESSAGE_BYTES: resource_exhausted (HTTP 429 on Connect), with details ---

def test_oversize_bodies_are_resource_exhausted_alike(web_server):
    big = json.dumps({"seats": 3, "options": {"edition": "x" * (70 << 10)}}).encode()  # over 64 KiB
    results = []
    for chunked in (False, True):  # a declared length is refused unread; a chunked body as it is read
        status, _, raw = post(web_server.base, POMPEII, iter([big]) if chunked else big, "application/json")
        err = json.loads(raw)
        assert status == 429 and err["code"] == "resource_exhausted", (chunked, status, raw[:300])
        info, _ = status_of(connect_details(err))
        assert (info.reason, info.domain, dict(info.metadata)) == ("LIMIT", "gameengine.v1", {"rule": "LIMIT"})
        assert "GE_MAX_MESSAGE_BYTES" in err["message"]
        results.append(info)
    # a Connect stream reads its errors from the end-of-stream message, never the HTTP status
    status, end = connect_stream_end(web_server.base, "/gameengine.v1.PompeiiService/StreamPompeiiEvents", big)
    assert status == 200 and end["error"]["code"] == "resource_exhausted", end
    assert status_of(connect_details(end["error"]))[0] == results[0]
    framed = struct.pack(">BI", 0, len(big)) + big
    for text, chunked in ((False, False), (False, True), (True, True)):
        st = grpc_web_status(grpc_web(web_server.base, POMPEII, framed, text, chunked))
        assert st.code == 8 and "GE_MAX_MESSAGE_BYTES" in st.message, (text, chunked, st.message)
        info = error_details_pb2.ErrorInfo.FromString(status_details(st)["google.rpc.ErrorInfo"])
        assert info == results[0]


def test_an_oversize_refusal_keeps_its_details_under_a_short_deadline(web_server):
    """connectrpc cancels at the call's deadline: a deadline of a few ms cut the refusal's pacing and left
    connectrpc's own refusal, without ErrorInfo. Now it is paced within half the time left, as on the gRPC
    port, and says why; a deadline that passes before the body is read is DEADLINE_EXCEEDED."""
    big = json.dumps({"seats": 3, "options": {"edition": "x" * (70 << 10)}}).encode()
    answers = []
    for timeout_ms in ("1", "1", "1", "1", "1", "50"):
        status, _, raw = post(web_server.base, POMPEII, iter([big]), "application/json",
                              {"connect-timeout-ms": timeout_ms})
        err = json.loads(raw)
        answers.append(err["code"])
        assert err["code"] in ("resource_exhausted", "deadline_exceeded"), (timeout_ms, raw[:300])
        if err["code"] == "resource_exhausted":
            info, _ = status_of(connect_details(err))
            assert dict(info.metadata) == {"rule": "LIMIT"} and "GE_MAX_MESSAGE_BYTES" in err["message"], raw[:300]
    assert "resource_exhausted" in answers, answers


def refusals_counted(server, limit: str) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{server.metrics_port}/metrics", timeout=5) as r:
        lines = r.read().decode().splitlines()
    series = f'ge_limit_refusals_total{{limit="{limit}"}}'
    return sum(float(line.split()[-1]) for line in lines if line.startswith(series))


def test_the_web_edges_oversize_refusals_are_counted_on_the_servers_metrics(web_server):
    """The web edge runs in its own process, whose metrics nobody scrapes: its refusals were counted
    there, and ge_limit_refusals_total{limit="message_size"} never saw a web port's."""
    before = refusals_counted(web_server, "message_size")
    big = json.dumps({"seats": 3, "options": {"edition": "x" * (70 << 10)}}).encode()
    for chunked in (False, True):  # refused by the body limit unread, and by connectrpc as it is read
        assert post(web_server.base, POMPEII, iter([big]) if chunked else big, "application/json")[0] == 429
    assert refusals_counted(web_server, "message_size") == before + 2

