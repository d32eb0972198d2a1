"""Issue 23 item 4: every query of the Grafana dashboard and of the alert rules names a metric a
running server exports, with label values it really uses (so no panel or alert is silently
empty), and the dashboard ConfigMap that the prod overlay renders is the committed JSON."""
from __future__ import annotations

import json
import re
import time
import urllib.request

import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families

from clients.sdk import Client, Refused
from gameengine.v1 import common_pb2, common_pb2_grpc
from tests.conftest import ROOT
from tests.web.conftest import WebServer, connect_call

from .test_manifests import build, one

MONITORING = ROOT / "k8s" / "components" / "monitoring"
DASHBOARD = MONITORING / "gameengine-dashboard.json"
# PromQL words that are not metric names, and labels Prometheus adds to every scraped series.
PROMQL = {"sum", "rate", "increase", "histogram_quantile", "by", "without", "and", "or", "unless", "on",
          "ignoring", "group_left", "group_right", "avg", "max", "min", "count", "bool", "offset", "irate",
          "delta", "abs", "clamp_min", "clamp_max", "topk", "bottomk"}
TARGET_LABELS = {"job", "pod", "namespace", "instance", "service", "endpoint", "container"}
# Series Prometheus makes itself (not the server's): allowed in alerts only.
SCRAPE_SERIES = {"up"}


def selectors(expr: str) -> list[tuple[str, dict[str, str]]]:
    """(metric name, {label: value} of its `=` matchers) for every series selector in `expr`."""
    found = []
    body = re.sub(r"\b(by|without|on|ignoring)\s*\([^)]*\)", " ", expr)
    body = re.sub(r"\[[^\]]*\]", " ", body)
    for m in re.finditer(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?", body):
        name, matchers = m.group(1), m.group(2) or ""
        if name in PROMQL or body[m.end():].lstrip().startswith("("):
            continue
        if re.fullmatch(r"\d.*", name):
            continue
        labels = dict(re.findall(r'(\w+)\s*=\s*"([^"]*)"', re.sub(r'\w+\s*(!=|=~|!~)\s*"[^"]*"', "", matchers)))
        found.append((name, labels))
    return [(n, ls) for n, ls in found if not re.fullmatch(r"[0-9.]+", n)]


def dashboard_queries() -> list[str]:
    dash = json.loads(DASHBOARD.read_text())
    return [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]


def alert_queries() -> list[str]:
    rule = one(build("overlays/prod"), "PrometheusRule", "gameengine")
    return [r["expr"] for g in rule["spec"]["groups"] for r in g["rules"]]


def test_selectors_parse_promql():
    assert selectors('histogram_quantile(0.99, sum by (le, pod) (rate(a_bucket{job="x", t="u", m!~"H"}[5m]))) > 0.1') \
        == [("a_bucket", {"job": "x", "t": "u"})]
    assert selectors("x / y{a=\"1\"} or rate(z[1m])") == [("x", {}), ("y", {"a": "1"}), ("z", {})]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A server after some of everything the panels show: {sample name: [label dicts]}."""
    s = WebServer(tmp_path_factory.mktemp("monitored"), GE_RATE_LIMIT_PER_S="50", GE_HINT_QUEUE="0",
                  GE_HINT_WORKERS="1").start()
    client = Client(s.target, "pompeii")
    try:
        game_id, tokens = client.create(3, seed=11)
        status = client.status(game_id)
        actor = next(a for a in status.seats_to_act if status.acts(a))
        seat = client.seat(game_id, actor, tokens[actor])
        seat.move(seat.legal()[0], expected_version=status.version)
        with pytest.raises(grpc.RpcError):
            for _ in seat.events(timeout=0.3):  # an event stream, open until its deadline
                pass
        with pytest.raises(Refused):
            client.status("no-such-game")
        connect_call(s.base, "GameService", "ListGameTypes", {})
        client.create(3, seed=12, time_bank_ms=50, timeout_policy="random")  # the referee moves for it
        hints(s.target, game_id, tokens, client.status(game_id))  # one runs, the others are refused
        time.sleep(1.0)
        with grpc.insecure_channel(s.target) as ch:  # a burst past GE_RATE_LIMIT_PER_S: limit refusals
            stub = common_pb2_grpc.GameServiceStub(ch)
            for _ in range(120):
                try:
                    stub.ListGameTypes(common_pb2.ListGameTypesRequest(), timeout=5)
                except grpc.RpcError:
                    pass
        with urllib.request.urlopen(f"http://127.0.0.1:{s.metrics_port}/metrics", timeout=5) as r:
            text = r.read().decode()
    finally:
        client.close()
        s.stop()
    samples: dict[str, list[dict]] = {}
    for family in text_string_to_metric_families(text):
        names = {"counter": [family.name + "_total"],
                 "histogram": [family.name + s for s in ("_bucket", "_sum", "_count")],
                 "gauge": [family.name], "summary": [family.name + "_sum", family.name + "_count"]}
        for name in names.get(family.type, [family.name]):
            samples.setdefault(name, [])
        for sample in family.samples:
            samples.setdefault(sample.name, []).append(sample.labels)
    return samples


def hints(target: str, game_id: str, tokens: list[str], status) -> None:
    """Three hints at once on a pool of one with no queue: one answered, two refused."""
    from concurrent.futures import ThreadPoolExecutor

    from gameengine.v1 import pompeii_pb2, pompeii_pb2_grpc

    with grpc.insecure_channel(target) as ch:
        stub = pompeii_pb2_grpc.PompeiiServiceStub(ch)
        seat = next(a for a in status.seats_to_act if status.acts(a))

        def one_hint(_):
            try:
                stub.GetPompeiiHint(pompeii_pb2.GetPompeiiHintRequest(game_id=game_id, token=tokens[seat],
                                                                      budget_ms=300), timeout=30)
                return "ok"
            except grpc.RpcError as e:
                return e.code().name

        with ThreadPoolExecutor(3) as pool:
            results = list(pool.map(one_hint, range(3)))
    assert "RESOURCE_EXHAUSTED" in results, results


def check(expr: str, exported: dict[str, list[dict]], allowed: set[str] = frozenset()) -> None:
    found = selectors(expr)
    assert found, f"no metric in {expr!r}"
    for name, labels in found:
        if name in allowed:
            continue
        assert name in exported, f"{expr!r}: {name} is not exported by the server"
        wanted = {k: v for k, v in labels.items() if k not in TARGET_LABELS}
        if wanted and exported[name]:
            assert any(wanted.items() <= series.items() for series in exported[name]), \
                f"{expr!r}: no {name} series with {wanted}"


def test_item4_every_dashboard_query_is_answered_by_the_server(exported):
    queries = dashboard_queries()
    assert len(queries) >= 15
    for expr in queries:
        check(expr, exported)
    # the panels cover what the issue lists
    text = " ".join(queries)
    for family in ("grpc_server_handled_total", "grpc_server_handling_seconds_bucket", "ge_live_games",
                   "ge_unfinished_games", "ge_journal_append_seconds_bucket", "ge_journal_fsync_seconds_bucket",
                   "ge_journal_bytes_total", "ge_restore_seconds", "ge_limit_refusals_total", "ge_hint_queue_depth"):
        assert family in text, family


def test_item4_every_alert_names_exported_metrics(exported):
    queries = alert_queries()
    assert len(queries) >= 5
    for expr in queries:
        check(expr, exported, allowed=SCRAPE_SERIES)


def test_item4_dashboard_configmap_is_the_committed_json():
    docs = build("overlays/prod")
    cm = one(docs, "ConfigMap", "gameengine-dashboard")
    assert cm["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert json.loads(cm["data"]["gameengine-dashboard.json"]) == json.loads(DASHBOARD.read_text())
    monitor = one(docs, "ServiceMonitor", "gameengine")
    service = one(docs, "Service", "gameengine-metrics")
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    for other in docs:  # only that Service: not one that lists ready replicas only
        if other["kind"] == "Service" and other is not service:
            assert not monitor["spec"]["selector"]["matchLabels"].items() <= other["metadata"]["labels"].items()
    # an unready (full disk) or crash-looping replica keeps its target, so GameEngineReplicaDown can fire
    assert service["spec"]["publishNotReadyAddresses"] is True
    replicas = one(docs, "StatefulSet", "gameengine")["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= replicas.items()
    assert monitor["spec"]["endpoints"][0]["port"] in {p["name"] for p in service["spec"]["ports"]}
