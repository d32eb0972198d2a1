"""Issue 15 items 7, 8, 10, 11: status codes, idempotency, seat ranges and error details,
against a real server on loopback."""
from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from clients.sdk import Client
from engines import registry
from gameengine.v1 import common_pb2, common_pb2_grpc
from tests.conftest import ROOT

UNDECODABLE = b"\xff"  # a field tag with no valid wire type: no message parses from it


def details_of(err: grpc.RpcError) -> dict[str, object]:
    """google.rpc.Status details by type name, unpacked."""
    out = {}
    for d in rpc_status.from_call(err).details:
        for cls in (error_details_pb2.ErrorInfo, error_details_pb2.PreconditionFailure,
                    error_details_pb2.BadRequest, error_details_pb2.RetryInfo):
            if d.Is(cls.DESCRIPTOR):
                msg = cls()
                d.Unpack(msg)
                out[cls.DESCRIPTOR.name] = msg
        out.setdefault("types", []).append(d.type_url.rsplit("/", 1)[-1])
    return out


@pytest.mark.parametrize("path,kind", [
    ("/grpc.health.v1.Health/Check", "unary"),
    ("/grpc.health.v1.Health/Watch", "server_stream"),
    ("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", "bidi"),
    ("/gameengine.v1.GameService/ListGameTypes", "unary"),
])
def test_item7_undecodable_bytes_are_invalid_argument_on_every_service(server, path, kind):
    with grpc.insecure_channel(server.target) as ch:
        with pytest.raises(grpc.RpcError) as e:
            if kind == "unary":
                ch.unary_unary(path)(UNDECODABLE, timeout=10)
            elif kind == "server_stream":
                list(ch.unary_stream(path)(UNDECODABLE, timeout=10))
            else:
                list(ch.stream_stream(path)(iter([UNDECODABLE]), timeout=10))
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (path, e.value.code(), e.value.details())
        assert "not a valid protobuf message" in e.value.details()
        # and the services still answer well-formed requests
        from grpc_health.v1 import health_pb2, health_pb2_grpc
        assert health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=5).status == 1
        from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
        answers = reflection_pb2_grpc.ServerReflectionStub(ch).ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=5)
        names = {s.name for a in answers for s in a.list_services_response.service}
        assert "gameengine.v1.PompeiiService" in names and "grpc.health.v1.Health" in names


def test_health_watch_streams_the_status(server):
    """grpc's Health.Watch writes its stream with context.write; the request guard made it an async
    generator's and every Watch ended UNKNOWN ("'async for' requires an object with __aiter__")."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    with grpc.insecure_channel(server.target) as ch:
        watch = health_pb2_grpc.HealthStub(ch).Watch(health_pb2.HealthCheckRequest(service=""), timeout=5)
        assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
        watch.cancel()


def _first_two_moves(client: Client, game_id: str, tokens: list[str]):
    status = client.status(game_id)
    actor = next(s for s in status.seats_to_act if status.acts(s))
    seat = client.seat(game_id, actor, tokens[actor])
    legal = seat.legal()
    assert len(legal) >= 2
    return seat, legal[0], legal[1]


def raw_move(client: Client, seat, version: int, key: str, move):
    return client.rpcs["make_move"](client.request(
        "make_move", game_id=seat.game_id, token=seat.token, expected_version=version,
        idempotency_key=key, move=client.codec.move_to_proto(move)), timeout=10)


def test_item8_key_reuse_with_other_move_refused(server):
    client = Client(server.target, "pompeii")
    game_id, tokens = client.create(seats=3, seed=5)
    seat, first, other = _first_two_moves(client, game_id, tokens)
    done = raw_move(client, seat, 0, "key-1", first)
    assert not done.replayed and done.status.version == 1
    # an identical retry is a replay of the same move
    again = raw_move(client, seat, 0, "key-1", first)
    assert again.replayed and again.status.version == 1
    view_before = client.spectator(game_id).view()
    # the same key with another move is refused, with a rule id and a sentence
    with pytest.raises(grpc.RpcError) as e:
        raw_move(client, seat, 0, "key-1", other)
    assert e.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert e.value.details().startswith("IDEMPOTENCY-KEY: ")
    assert "already used for another move" in e.value.details()
    assert details_of(e.value)["ErrorInfo"].metadata["rule"] == "IDEMPOTENCY-KEY"
    # ... and changes nothing (also when quoting the current version)
    with pytest.raises(grpc.RpcError) as e:
        raw_move(client, seat, 1, "key-1", other)
    assert e.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert client.spectator(game_id).view() == view_before
    client.close()


def test_item10_list_game_types_reports_seat_ranges_per_option_set(server):
    with grpc.insecure_channel(server.target) as ch:
        types = {t.game: t for t in common_pb2_grpc.GameServiceStub(ch).ListGameTypes(
            common_pb2.ListGameTypesRequest(), timeout=10).game_types}
    sw = types["smallworld"]
    assert [(list(r.options), r.min_seats, r.max_seats) for r in sw.seat_ranges] == [
        ([], 2, 5), (["necromancer=true"], 3, 6)]
    assert (sw.min_seats, sw.max_seats) == (2, 6)
    for game, (lo, hi) in {"pompeii": (2, 4), "eruption": (2, 6), "citadels": (2, 7)}.items():
        assert [(list(r.options), r.min_seats, r.max_seats) for r in types[game].seat_ranges] == [([], lo, hi)]
    # every advertised range is what the server accepts: its ends are created, one past is refused
    client = Client(server.target, "smallworld")
    for r in sw.seat_ranges:
        options = dict(o.split("=") for o in r.options)
        options = {k: v == "true" for k, v in options.items()}
        for seats in (r.min_seats, r.max_seats):
            client.create(seats=seats, options=options, seed=1)
        for seats in (r.min_seats - 1, r.max_seats + 1):
            with pytest.raises(Exception) as e:
                client.create(seats=seats, options=options, seed=1)
            assert "INVALID_ARGUMENT" in str(e.value)
    client.close()


def test_item11_error_details_match_common_proto(server):
    proto = (ROOT / "protos/gameengine/v1/common.proto").read_text()
    assert not hasattr(common_pb2, "RuleViolation") and "message RuleViolation" not in proto
    assert 'domain "gameengine.v1"' in proto and 'metadata["current_version"]' in proto
    client = Client(server.target, "pompeii")
    game_id, tokens = client.create(seats=3, seed=9)
    seat, first, _ = _first_two_moves(client, game_id, tokens)
    from engines.pompeii.moves import PlaceLava
    # FAILED_PRECONDITION: ErrorInfo(reason = rule id in UPPER_SNAKE, metadata.rule) + PreconditionFailure
    with pytest.raises(grpc.RpcError) as e:
        raw_move(client, seat, 0, "", PlaceLava((3, 3), ""))
    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    d = details_of(e.value)
    rule = d["ErrorInfo"].metadata["rule"]
    assert rule.startswith("POM-") and d["ErrorInfo"].reason == rule.replace("-", "_")
    assert d["ErrorInfo"].domain == "gameengine.v1"
    assert d["types"] == ["google.rpc.ErrorInfo", "google.rpc.PreconditionFailure"]
    assert d["PreconditionFailure"].violations[0].type == rule
    # ABORTED: the current version is in a detail, not only in the message text
    raw_move(client, seat, 0, "", first)
    with pytest.raises(grpc.RpcError) as e:
        raw_move(client, seat, 0, "", first)
    assert e.value.code() == grpc.StatusCode.ABORTED
    info = details_of(e.value)["ErrorInfo"]
    assert info.metadata["current_version"] == "1" and info.reason == "VERSION"
    client.close()


def _comment_above(text: str, line_start: str) -> str:
    """The // comment lines right above the line that starts with `line_start`."""
    lines = text.splitlines()
    i = next(n for n, line in enumerate(lines) if line.strip().startswith(line_start))
    out = []
    while i > 0 and lines[i - 1].strip().startswith("//"):
        i -= 1
        out.insert(0, lines[i].strip()[2:].strip())
    return " ".join(out)


def test_item14_scores_and_from_version_are_documented():
    from gameengine import codecs
    common = (ROOT / "protos/gameengine/v1/common.proto").read_text()
    scores = _comment_above(common, "repeated double scores")
    for game, words in {"pompeii": "people saved", "eruption": "temperature", "citadels": "points",
                        "smallworld": "victory coins", "adjudicated": "rollout reward"}.items():
        assert game in scores and words in scores, (game, scores)
    for game in registry.GAME_IDS:
        prefix = codecs.codec(game).prefix
        doc = _comment_above((ROOT / f"protos/gameengine/v1/{game}.proto").read_text(),
                             f"message Stream{prefix}EventsRequest")
        assert "from_version is exclusive" in doc and "versions > from_version" in doc, (game, doc)
    readme = (ROOT / "README.md").read_text()
    assert "is\nexclusive" in readme or "is exclusive" in readme
    assert "`Outcome.scores`" in readme
