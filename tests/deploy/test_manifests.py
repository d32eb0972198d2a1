"""Every kustomization under k8s/ renders, validates offline against the Kubernetes schemas
(strict: unknown fields fail), and keeps the promises the README makes about it."""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, free_port

from .support import kubernetes_validate, kustomize_command, nginx_check, nginx_conf, render

K8S = ROOT / "k8s"
# Components (k8s/components/*) are not built alone: they render inside the overlays using them.
KUSTOMIZATIONS = sorted(p.parent.relative_to(K8S).as_posix() for p in K8S.rglob("kustomization.yaml")
                        if "kind: Component" not in p.read_text())
# Custom resources, validated against their published schemas (vendored: schemas/README.md).
SCHEMAS = Path(__file__).parent / "schemas"
CRD_SCHEMAS = {("monitoring.coreos.com/v1", "ServiceMonitor"): "monitoring.coreos.com-servicemonitor_v1.json",
               ("monitoring.coreos.com/v1", "PrometheusRule"): "monitoring.coreos.com-prometheusrule_v1.json",
               ("cert-manager.io/v1", "Certificate"): "cert-manager.io-certificate_v1.json"}
# The oldest and the newest API versions the manifests are meant for (native gRPC probes are GA in 1.27).
SCHEMA_VERSIONS = ["1.30.0", "1.34.0"]


def build(kustomization: str) -> list[dict]:
    kubernetes_validate()  # brings PyYAML with it
    import yaml

    done = subprocess.run(kustomize_command() + [str(K8S / kustomization)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return [d for d in yaml.safe_load_all(done.stdout) if d]


def one(docs: list[dict], kind: str, name: str | None = None) -> dict:
    found = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert len(found) == 1, f"{kind} {name}: {len(found)} found"
    return found[0]


def env_of(container: dict) -> dict[str, dict]:
    return {e["name"]: e for e in container.get("env", [])}


def test_every_kustomization_is_found():
    assert {"base", "overlays/dev", "overlays/prod", "overlays/tls", "tournament"} <= set(KUSTOMIZATIONS)


def validate_custom(doc: dict) -> None:
    """A custom resource against its vendored JSON schema; unknown top-level fields fail too."""
    import jsonschema  # comes with kubernetes-validate

    schema = json.loads((SCHEMAS / CRD_SCHEMAS[(doc["apiVersion"], doc["kind"])]).read_text())
    # no check_schema: the CRDs' patterns are Go regular expressions (only used fields are compiled)
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, [f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors]
    assert set(doc) <= set(schema["properties"]), set(doc) - set(schema["properties"])
    assert set(doc["metadata"]) <= {"name", "namespace", "labels", "annotations"}, doc["metadata"]


@pytest.mark.parametrize("kustomization", KUSTOMIZATIONS)
def test_renders_and_validates(kustomization):
    kv = kubernetes_validate()
    docs = build(kustomization)
    assert docs
    for doc in docs:
        if (doc["apiVersion"], doc["kind"]) in CRD_SCHEMAS:
            validate_custom(doc)
            continue
        for version in SCHEMA_VERSIONS:
            try:
                kv.validate(doc, version, strict=True)
            except kv.ValidationError as e:
                pytest.fail(f"{kustomization}: {doc['kind']}/{doc['metadata']['name']} against {version}: "
                            f"{e.message} at {'/'.join(map(str, e.path))}")


@pytest.mark.parametrize("kustomization", ["base", "overlays/dev", "overlays/prod"])
def test_service_shape(kustomization):
    docs = build(kustomization)
    sts = one(docs, "StatefulSet", "gameengine")
    pod = sts["spec"]["template"]
    spec = pod["spec"]
    (server,) = spec["containers"]
    env = env_of(server)

    # Shard = pod name; the headless Service gives each replica its DNS name.
    assert env["GE_SHARD"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
    headless = one(docs, "Service", sts["spec"]["serviceName"])
    assert headless["spec"]["clusterIP"] == "None"
    assert not headless["spec"].get("publishNotReadyAddresses", False)
    labels = pod["metadata"]["labels"]
    assert headless["spec"]["selector"].items() <= labels.items()

    # Journal and snapshots on the replica's own volume.
    (claim,) = sts["spec"]["volumeClaimTemplates"]
    mounts = {m["name"]: m["mountPath"] for m in server["volumeMounts"]}
    assert env["GE_DATA_DIR"]["value"] == mounts[claim["metadata"]["name"]]

    # gRPC health probes, a snapshot's worth of grace, sizes, metrics scraping.
    port = int(env["GE_PORT"]["value"])
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert server[probe]["grpc"]["port"] == port, probe
    # a full disk makes "" NOT_SERVING: out of traffic, but a restart would not cure it (server/main.py LIVENESS)
    assert server["readinessProbe"]["grpc"].get("service", "") == ""
    assert server["startupProbe"]["grpc"]["service"] == server["livenessProbe"]["grpc"]["service"] == "liveness"
    assert spec["terminationGracePeriodSeconds"] >= 30
    for kind in ("requests", "limits"):
        assert {"cpu", "memory"} <= server["resources"][kind].keys()
    notes = pod["metadata"]["annotations"]
    assert notes["prometheus.io/scrape"] == "true"
    assert notes["prometheus.io/port"] == env["GE_METRICS_PORT"]["value"]
    assert spec["securityContext"]["runAsNonRoot"] is True

    pdb = one(docs, "PodDisruptionBudget", "gameengine")
    assert pdb["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert pdb["spec"]["maxUnavailable"] == 1

    # Clients reach the router, never a replica directly.
    router = one(docs, "Deployment", "gameengine-router")
    # a node drain is never blocked, whatever the HPA's minimum (dev runs one router)
    pdb = one(docs, "PodDisruptionBudget", "gameengine-router")["spec"]
    assert pdb.get("maxUnavailable") == 1 and "minAvailable" not in pdb
    assert pdb["selector"]["matchLabels"].items() <= router["spec"]["template"]["metadata"]["labels"].items()
    api = one(docs, "Service", "gameengine-api")
    assert api["spec"]["selector"].items() <= router["spec"]["template"]["metadata"]["labels"].items()


def self_signed(tmp_path: Path) -> Path:
    """tls.crt, tls.key, ca.crt as a cert-manager Secret holds them (one self-signed pair)."""
    d = tmp_path / "tls"
    d.mkdir()
    done = subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                           "-nodes", "-days", "1", "-subj", "/CN=gameengine-api", "-keyout", str(d / "tls.key"),
                           "-out", str(d / "tls.crt")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (d / "ca.crt").write_text((d / "tls.crt").read_text())
    return d


@pytest.mark.parametrize("kustomization", ["base", "overlays/prod", "overlays/tls"])
def test_router_config_is_the_tested_one_and_loads(kustomization, tmp_path):
    """The ConfigMap carries router.conf.template as in the repo (tests/deploy runs it on
    loopback), every ${VAR} in it is set in the router's environment, and nginx accepts
    the rendered result with the Kubernetes upstreams.conf."""
    docs = build(kustomization)
    router = one(docs, "Deployment", "gameengine-router")
    (nginx,) = router["spec"]["template"]["spec"]["containers"]
    volumes = {v["name"]: v for v in router["spec"]["template"]["spec"]["volumes"]}
    mount = next(m for m in nginx["volumeMounts"] if m["mountPath"] == "/etc/nginx/templates")
    config = one(docs, "ConfigMap", volumes[mount["name"]]["configMap"]["name"])
    files = config["data"]
    assert files["router.conf.template"] == (K8S / "base/router/router.conf.template").read_text()

    env = env_of(nginx)
    assert env["NGINX_ENTRYPOINT_LOCAL_RESOLVERS"]["value"] == "1"  # sets NGINX_LOCAL_RESOLVERS
    known = set(env) | {"NGINX_LOCAL_RESOLVERS"}
    for name, text in files.items():
        used = set(re.findall(r"\$\{(\w+)\}", text))
        assert used <= known, f"{name}: {used - known} not in the router's env"

    # $(POD_NAMESPACE) is Kubernetes' own expansion; stand in for it and for the pod's DNS.
    values = {"NGINX_LOCAL_RESOLVERS": "127.0.0.1",
              "GE_REPLICAS_DOMAIN": env["GE_REPLICAS_DOMAIN"]["value"].replace("$(POD_NAMESPACE)", "test")}
    # The listen values are the container's ports (and flags such as `ssl`): loopback ports here.
    ports = {p["name"]: p["containerPort"] for p in nginx["ports"]}
    for name, port_name in (("GE_ROUTER_LISTEN", "grpc"), ("GE_ROUTER_WEB_LISTEN", "web")):
        port, *flags = env[name]["value"].split()
        assert int(port) == ports[port_name], name
        values[name] = " ".join([f"127.0.0.1:{free_port()}", *flags])
    tls_mount = next((m["mountPath"] for m in nginx["volumeMounts"] if m["name"] == "tls"), None)
    paths = []
    for name, text in sorted(files.items()):
        path = tmp_path / name.removesuffix(".template")
        text = render(text, values)
        if tls_mount:  # the Secret's files, from a self-signed pair
            pair = self_signed(tmp_path) if not (tmp_path / "tls").exists() else tmp_path / "tls"
            text = text.replace(tls_mount + "/", f"{pair}/")
        path.write_text(text)
        assert "${" not in re.sub(r"#.*", "", path.read_text()), name
        paths.append(path)
    nginx_check(nginx_conf(tmp_path, paths))


def test_tournament_job_runs_the_service_client_and_keeps_its_results():
    docs = build("tournament")
    job = one(docs, "Job")
    spec = job["spec"]
    assert spec["completions"] == 1 and spec["backoffLimit"] == 0  # one runner: one tournament
    assert 0 < spec["activeDeadlineSeconds"] <= 86400  # a stalled run frees its pod and volume
    (runner,) = spec["template"]["spec"]["containers"]
    assert runner["command"] == ["python", "-m", "clients.tournament"]
    args = dict(a.removeprefix("--").split("=", 1) for a in runner["args"])
    from clients import tournament

    parsed = tournament.parse_args([f"--{k}={v}" for k, v in args.items()])
    tournament.validate(parsed)  # a schedule the server will accept (games a multiple of the cycle)
    assert "gameengine-api" in parsed.server and parsed.json.startswith("/results/$(POD_NAME)/")
    pod_name = next(e for e in runner["env"] if e["name"] == "POD_NAME")  # each run its own results
    assert pod_name["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
    volumes = {v["name"]: v for v in spec["template"]["spec"]["volumes"]}
    claim = one(docs, "PersistentVolumeClaim")["metadata"]["name"]
    assert volumes["results"]["persistentVolumeClaim"]["claimName"] == claim
    assert "emptyDir" not in volumes["results"]


def test_dockerfile_runs_the_server_as_non_root_with_a_health_probe():
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^USER 10001", text, re.M)
    assert re.search(r"^HEALTHCHECK .*grpc_health", text, re.M | re.S)
    assert 'CMD ["python", "-m", "server.main"]' in text
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert "**/.venv" in ignored and "tests/" in ignored
    copied = re.findall(r"^COPY (\w+) \1$", text, re.M)
    for sub in copied:
        assert (ROOT / sub).is_dir(), sub


def test_crd_schemas_refuse_what_the_operators_would():
    """The vendored schemas are strict: an unknown field or a wrong type in a custom resource fails."""
    monitor = one(build("overlays/prod"), "ServiceMonitor", "gameengine")
    validate_custom(monitor)
    for bad in ({**monitor, "spec": {**monitor["spec"], "endpoint": []}},
                {**monitor, "spec": {**monitor["spec"], "endpoints": [{"port": "metrics", "interval": "often"}]}}):
        with pytest.raises(AssertionError):
            validate_custom(bad)


@pytest.mark.parametrize("kustomization", ["base", "overlays/prod", "overlays/tls"])
def test_item4_only_the_router_reaches_the_replicas(kustomization):
    docs = build(kustomization)
    sts = one(docs, "StatefulSet", "gameengine")
    router = one(docs, "Deployment", "gameengine-router")
    (server,) = sts["spec"]["template"]["spec"]["containers"]
    ports = {p["name"]: p["containerPort"] for p in server["ports"]}
    assert {"grpc", "web", "metrics"} <= ports.keys()
    env = env_of(server)
    assert int(env["GE_WEB_PORT"]["value"]) == ports["web"]  # the browser path is on

    policy = one(docs, "NetworkPolicy", "gameengine-replicas")
    labels = sts["spec"]["template"]["metadata"]["labels"]
    assert policy["spec"]["podSelector"]["matchLabels"].items() <= labels.items()
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    rules = {tuple(sorted(p["port"] for p in r["ports"])): r["from"] for r in policy["spec"]["ingress"]}
    assert set(rules) == {("grpc", "web"), ("metrics",)}
    (from_router,) = rules[("grpc", "web")]
    assert from_router["podSelector"]["matchLabels"].items() <= router["spec"]["template"]["metadata"]["labels"].items()
    (from_prometheus,) = rules[("metrics",)]
    assert from_prometheus["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "prometheus"}


@pytest.mark.parametrize("kustomization", ["base", "overlays/dev", "overlays/prod"])
def test_item4_router_scales_and_probes_through_nginx(kustomization):
    docs = build(kustomization)
    router = one(docs, "Deployment", "gameengine-router")
    assert "replicas" not in router["spec"]  # the HPA owns it
    hpa = one(docs, "HorizontalPodAutoscaler", "gameengine-router")
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "gameengine-router"}
    assert 1 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
    (nginx,) = router["spec"]["template"]["spec"]["containers"]
    ports = {p["name"]: p["containerPort"] for p in nginx["ports"]}
    # readiness: a gRPC health Check through nginx to a replica; liveness: nginx's own /healthz
    assert nginx["readinessProbe"]["grpc"]["port"] == ports["grpc"]
    assert nginx["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "web"}
    api = one(docs, "Service", "gameengine-api")
    assert {p["targetPort"] for p in api["spec"]["ports"]} == {"grpc", "web"}


def test_item6_admin_token_comes_from_the_overlays_generator():
    for kustomization in ("overlays/dev", "overlays/prod"):
        docs = build(kustomization)
        secret = next(d for d in docs if d["kind"] == "Secret" and d["metadata"]["name"].startswith("gameengine-admin"))
        sts = one(docs, "StatefulSet", "gameengine")
        (server,) = sts["spec"]["template"]["spec"]["containers"]
        ref = env_of(server)["GE_ADMIN_TOKEN"]["valueFrom"]["secretKeyRef"]
        assert ref["name"] == secret["metadata"]["name"] and "token" in secret["data"]
    # prod commits no token: empty keeps admin calls off until the operator sets one
    prod = next(d for d in build("overlays/prod") if d["kind"] == "Secret")
    assert prod["data"]["token"] == ""


def test_item3_tls_overlay_mounts_the_secret_where_the_settings_point():
    docs = build("overlays/tls")
    sts = one(docs, "StatefulSet", "gameengine")
    spec = sts["spec"]["template"]["spec"]
    (server,) = spec["containers"]
    env = env_of(server)
    mount = next(m for m in server["volumeMounts"] if m["name"] == "tls")
    volume = next(v for v in spec["volumes"] if v["name"] == "tls")
    certs = {c["spec"]["secretName"]: c for c in docs if c["kind"] == "Certificate"}
    assert volume["secret"]["secretName"] in certs
    for name, file in (("GE_TLS_CERT", "tls.crt"), ("GE_TLS_KEY", "tls.key"), ("GE_TLS_CLIENT_CA", "ca.crt")):
        assert env[name]["value"] == f"{mount['mountPath']}/{file}"
    # kubelet gRPC probes cannot speak TLS: the replicas are probed on the plain metrics port
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert server[probe]["httpGet"]["port"] == "metrics", probe
    # readiness follows the health status (a full disk: not ready), the others the process: /livez, which
    # answers without the event loop (/metrics waits up to 5 s for it to count the games; the probe's timeout is 3 s)
    assert server["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert server["livenessProbe"]["httpGet"]["path"] == server["startupProbe"]["httpGet"]["path"] == "/livez"
    router = one(docs, "Deployment", "gameengine-router")
    (nginx,) = router["spec"]["template"]["spec"]["containers"]
    renv = env_of(nginx)
    assert renv["GE_ROUTER_LISTEN"]["value"].endswith(" ssl") and renv["GE_ROUTER_WEB_LISTEN"]["value"].endswith(" ssl")
    rvol = next(v for v in router["spec"]["template"]["spec"]["volumes"] if v["name"] == "tls")
    assert rvol["secret"]["secretName"] in certs
    assert "client auth" in certs[rvol["secret"]["secretName"]]["spec"]["usages"]
    templates = next(v["configMap"]["name"] for v in router["spec"]["template"]["spec"]["volumes"]
                     if v["name"] == "templates")
    upstreams = one(docs, "ConfigMap", templates)["data"]["upstreams.conf.template"]
    assert "grpcs://" in upstreams and "https://" in upstreams and "grpc://" not in upstreams
    # the replicas' certificate names what the router dials
    names = certs[volume["secret"]["secretName"]]["spec"]["dnsNames"]
    domain = renv["GE_REPLICAS_DOMAIN"]["value"].replace("$(POD_NAMESPACE)", sts["metadata"]["namespace"])
    assert domain in names and f"*.{domain}" in names


@pytest.mark.parametrize("kustomization", ["base", "overlays/dev", "overlays/prod", "overlays/tls"])
def test_replicas_take_the_caller_from_the_routers_forwarded_for(kustomization):
    """Every caller reaches a replica from a router's address: without trusting the router's
    X-Forwarded-For, every quota would be one quota for all callers; and every setting in the ConfigMap
    is one the server reads."""
    from dataclasses import fields

    from server import quotas
    from server.config import Config
    config = next(d for d in build(kustomization) if d["kind"] == "ConfigMap"
                  and d["metadata"]["name"].startswith("gameengine-config"))["data"]
    assert "GE_LIVE_GAMES_PER_ADDRESS" not in config and "GE_STREAMS_PER_ADDRESS" not in config
    quotas.trust_proxies(Config.from_env(config).trusted_networks())
    try:  # a router's pod address, with the header as the router's $proxy_add_x_forwarded_for makes it
        assert quotas.peer_address("ipv4:10.42.3.7:5000", "203.0.113.9, 10.42.0.12") == "203.0.113.9"
        assert quotas.peer_address("ipv4:10.42.3.7:5000", "10.1.1.1, 203.0.113.9, 10.42.0.12") == "203.0.113.9"
    finally:
        quotas.trust_proxies(())
    assert set(config) <= {f.metadata["env"] for f in fields(Config)} | {"GE_PURE_PYTHON"}
    Config.from_env(config)  # values the server starts with


CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "ClusterIssuer", "PriorityClass", "StorageClass"}


@pytest.mark.parametrize("kustomization", ["overlays/dev", "overlays/prod", "overlays/tls"])
def test_every_namespaced_object_lands_in_the_overlays_namespace(kustomization):
    """An object left without a namespace goes to kubectl's current one: a Certificate there writes
    its Secret where the pods that mount it never look."""
    docs = build(kustomization)
    namespaces = {d["metadata"].get("namespace") for d in docs if d["kind"] not in CLUSTER_SCOPED}
    assert len(namespaces) == 1 and None not in namespaces, namespaces


def test_tls_router_certificate_names_what_in_cluster_clients_dial():
    """The tournament Job dials the router by its short Service name; over TLS that name must be in the
    router's certificate, or the handshake fails ("Custom verification check failed")."""
    certs = {c["metadata"]["name"]: c for c in build("overlays/tls") if c["kind"] == "Certificate"}
    names = set(certs["gameengine-router"]["spec"]["dnsNames"])
    runner = one(build("tournament"), "Job")["spec"]["template"]["spec"]["containers"][0]
    server = next(a for a in runner["args"] if a.startswith("--server=")).removeprefix("--server=")
    host = server.rsplit(":", 1)[0]
    service = one(build("overlays/tls"), "Service", "gameengine-api")["metadata"]
    assert {host, f"{host}.{service['namespace']}", f"{host}.{service['namespace']}.svc",
            f"{host}.{service['namespace']}.svc.cluster.local"} <= names, names
