"""Issue 23 item 5: the standard gRPC metric families on both transports, games in memory
always current, journal/restore/limit/hint metrics, and a request id and the peer on every
RPC log line. Against a real server process."""
from __future__ import annotations

import json
import time
import urllib.request

import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families

from clients.sdk import Client, Refused
from gameengine.v1 import common_pb2, common_pb2_grpc
from server import journal, limits, metrics
from tests.conftest import ServerProcess
from tests.web.conftest import connect_call


def scrape(s: ServerProcess) -> dict[tuple[str, tuple], float]:
    """{(sample name, sorted labels): value} from the server's /metrics."""
    with urllib.request.urlopen(f"http://127.0.0.1:{s.metrics_port}/metrics", timeout=5) as r:
        text = r.read().decode()
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def scrape_until(s: ServerProcess, ready, timeout_s: float = 5.0) -> dict[tuple[str, tuple], float]:
    """The first scrape `ready` accepts, else the last one within `timeout_s`. A refused call is
    counted after the client has its status (grpc.aio's abort sends it, then raises through the
    observation), so a scrape right after a refusal may come before its count."""
    deadline = time.monotonic() + timeout_s
    while not ready(m := scrape(s)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return m


def value(samples, name: str, **labels) -> float:
    """Sum of the samples of `name` whose labels include `labels`."""
    return sum(v for (n, ls), v in samples.items() if n == name and set(labels.items()) <= set(ls))


@pytest.fixture
def observed(tmp_path):
    s = ServerProcess(tmp_path / "data", GE_LOG_LEVEL="info").with_web().start()
    s.web_base = f"http://127.0.0.1:{s.web_port}"
    yield s
    s.stop()


def play_one(client: Client, game_id: str, tokens: list[str]) -> None:
    status = client.status(game_id)
    actor = next(a for a in status.seats_to_act if status.acts(a))
    seat = client.seat(game_id, actor, tokens[actor])
    seat.move(seat.legal()[0], expected_version=status.version)


def test_item5_standard_grpc_families_on_both_transports(observed):
    client = Client(observed.target, "pompeii")
    try:
        game_id, tokens = client.create(3, seed=1)
        play_one(client, game_id, tokens)
        with pytest.raises(Refused):
            client.status("no-such-game")
    finally:
        client.close()
    status, body = connect_call(observed.web_base, "GameService", "ListGameTypes", {})
    assert status == 200 and body["gameTypes"]
    status, _ = connect_call(observed.web_base, "GameService", "GetGameStatus", {"gameId": "nope"})
    assert status == 404
    m = scrape_until(observed, lambda m: value(m, "grpc_server_handled_total", grpc_code="NOT_FOUND") >= 2)
    create = dict(grpc_type="unary", grpc_service="gameengine.v1.PompeiiService", grpc_method="CreatePompeiiGame",
                  transport="grpc")
    assert value(m, "grpc_server_started_total", **create) == 1
    assert value(m, "grpc_server_handled_total", grpc_code="OK", **create) == 1
    assert value(m, "grpc_server_handling_seconds_count", **create) == 1
    status_rpc = dict(grpc_service="gameengine.v1.GameService", grpc_method="GetGameStatus")
    assert value(m, "grpc_server_handled_total", grpc_code="NOT_FOUND", transport="grpc", **status_rpc) == 1
    assert value(m, "grpc_server_handled_total", grpc_code="NOT_FOUND", transport="web", **status_rpc) == 1
    assert value(m, "grpc_server_handled_total", grpc_code="OK", transport="web",
                 grpc_service="gameengine.v1.GameService", grpc_method="ListGameTypes") == 1
    # health checks (ServerProcess.start) are counted too: the interceptor sees every service
    assert value(m, "grpc_server_started_total", grpc_service="grpc.health.v1.Health", transport="grpc") >= 1


def test_item5_stream_handling_time_covers_the_whole_stream(observed):
    client = Client(observed.target, "pompeii")
    try:
        game_id, tokens = client.create(3, seed=2)
        with grpc.insecure_channel(observed.target) as ch:
            from gameengine.v1 import pompeii_pb2, pompeii_pb2_grpc
            stream = pompeii_pb2_grpc.PompeiiServiceStub(ch).StreamPompeiiEvents(
                pompeii_pb2.StreamPompeiiEventsRequest(game_id=game_id), timeout=0.8)
            with pytest.raises(grpc.RpcError) as err:
                for _ in stream:
                    pass
            assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    finally:
        client.close()
    deadline = time.time() + 5
    while time.time() < deadline:
        m = scrape(observed)
        labels = dict(grpc_type="server_stream", grpc_method="StreamPompeiiEvents", transport="grpc")
        if value(m, "grpc_server_handling_seconds_count", **labels) == 1:
            break
        time.sleep(0.1)
    assert value(m, "grpc_server_started_total", **labels) == 1
    # the stream's time is its whole life (~0.8 s), not its set-up
    assert value(m, "grpc_server_handling_seconds_sum", **labels) >= 0.5
    assert value(m, "grpc_server_handled_total", **labels) == 1


def test_item5_live_games_split_and_current_without_a_snapshot(observed):
    client = Client(observed.target, "pompeii")
    try:
        a, tokens_a = client.create(3, seed=3)
        client.create(3, seed=4)
        client.adjudicate(a, tokens_a, "test: ended by all seats")
        assert client.status(a).over
    finally:
        client.close()
    time.sleep(0.6)  # the count is cached for 0.5 s between scrapes
    m = scrape(observed)
    assert value(m, "ge_live_games", state="running") == 1
    assert value(m, "ge_live_games", state="finished") == 1
    assert value(m, "ge_unfinished_games") == 1
    assert value(m, "ge_draining") == 0


def test_item5_journal_restore_and_hint_metrics(observed):
    client = Client(observed.target, "pompeii")
    try:
        game_id, tokens = client.create(3, seed=5)
        play_one(client, game_id, tokens)
    finally:
        client.close()
    # GE_FSYNC=interval: the background fsync runs every 100 ms
    m = scrape_until(observed, lambda m: value(m, "ge_journal_fsync_seconds_count") >= 1)
    assert value(m, "ge_journal_append_seconds_count") == 2  # the create and the move
    assert value(m, "ge_journal_bytes_total") > 100
    assert value(m, "ge_journal_fsync_seconds_count") >= 1
    assert value(m, "ge_journal_write_errors_total") == 0
    assert ("ge_restore_seconds", ()) in m
    assert value(m, "ge_hint_queue_capacity") == 2 + 4  # GE_HINT_WORKERS + GE_HINT_QUEUE defaults
    assert value(m, "ge_hint_queue_depth") == 0


def test_item5_journal_write_error_is_counted(tmp_path, monkeypatch):
    j = journal.Journal(tmp_path, 1, fsync="always")
    before = metrics.JOURNAL_ERRORS._value.get()

    def full(fd, data):  # the fault: the disk is full
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(journal, "write", full)
    with pytest.raises(OSError):
        j.append(journal.frame(b"x"))
    assert metrics.JOURNAL_ERRORS._value.get() == before + 1
    monkeypatch.undo()
    j.close()


def test_item5_rate_limit_refusals_are_counted(fresh_server):
    s = fresh_server(GE_RATE_LIMIT_PER_S="2").start()
    refused = 0
    with grpc.insecure_channel(s.target) as ch:
        stub = common_pb2_grpc.GameServiceStub(ch)
        for _ in range(20):  # burst is twice the rate (server/quotas.py)
            try:
                stub.ListGameTypes(common_pb2.ListGameTypesRequest(), timeout=5)
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                refused += 1
    assert refused >= 5
    m = scrape_until(s, lambda m: value(m, "grpc_server_handled_total", grpc_code="RESOURCE_EXHAUSTED") >= refused)
    assert value(m, "ge_limit_refusals_total", limit="quota") == refused
    assert value(m, "grpc_server_handled_total", grpc_code="RESOURCE_EXHAUSTED") == refused


def test_item5_request_id_and_peer_on_every_rpc_line(observed):
    with grpc.insecure_channel(observed.target) as ch:
        stub = common_pb2_grpc.GameServiceStub(ch)
        stub.ListGameTypes(common_pb2.ListGameTypesRequest(), metadata=(("x-request-id", "trace-abc.1"),))
        stub.ListGameTypes(common_pb2.ListGameTypesRequest())
        stub.ListGameTypes(common_pb2.ListGameTypesRequest(), metadata=(("x-request-id", "x" * 500),
                                                                         ("x-forwarded-for", "f" * 120)))
    connect_call(observed.web_base, "GameService", "ListGameTypes", {},
                 headers={"x-request-id": "web-req-7", "x-forwarded-for": "203.0.113.9"})
    deadline = time.time() + 5
    while time.time() < deadline:
        lines = [json.loads(line) for line in observed.log.read_text().splitlines() if line.startswith("{")]
        rpcs = [line for line in lines if line.get("event") == "rpc" and line.get("method") == "ListGameTypes"]
        if len(rpcs) >= 4:
            break
        time.sleep(0.1)
    assert len(rpcs) == 4, rpcs
    for line in rpcs:
        assert line["request_id"] and line["peer"], line
    assert rpcs[0]["request_id"] == "trace-abc.1" and rpcs[0]["peer"].startswith("ipv4:127.0.0.1:")
    assert len(rpcs[1]["request_id"]) == 16  # generated
    assert rpcs[2]["request_id"] != "x" * 500 and len(rpcs[2]["request_id"]) == 16  # not echoed whole
    assert rpcs[2]["forwarded_for"] == limits.quote("f" * 120) and "(+80 bytes)" in rpcs[2]["forwarded_for"]
    # uvicorn takes the client from x-forwarded-for of a loopback proxy (forwarded_allow_ips)
    assert rpcs[3]["request_id"] == "web-req-7" and rpcs[3]["peer"].startswith("web:")
    assert rpcs[3]["forwarded_for"] == "203.0.113.9"
    assert len({line["request_id"] for line in rpcs}) == 4
