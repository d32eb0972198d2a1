"""Every kustomization under k8s/ renders, validates offline against the Kubernetes schemas
(strict: unknown fields fail), and keeps the promises the README makes about it."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, free_port

from .support import kubernetes_validate, kustomize_command, nginx_check, nginx_conf, render

K8S = ROOT / "k8s"
KUSTOMIZATIONS = sorted(p.parent.relative_to(K8S).as_posix() for p in K8S.rglob("kustomization.yaml"))
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
    assert {"base", "overlays/dev", "overlays/prod", "tournament"} <= set(KUSTOMIZATIONS)


@pytest.mark.parametrize("kustomization", KUSTOMIZATIONS)
def test_renders_and_validates(kustomization):
    kv = kubernetes_validate()
    docs = build(kustomization)
    assert docs
    for doc in docs:
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
    api = one(docs, "Service", "gameengine-api")
    assert api["spec"]["selector"].items() <= router["spec"]["template"]["metadata"]["labels"].items()


@pytest.mark.parametrize("kustomization", ["base", "overlays/prod"])
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
    values = {"GE_ROUTER_LISTEN": f"127.0.0.1:{free_port()}", "NGINX_LOCAL_RESOLVERS": "127.0.0.1",
              "GE_REPLICAS_DOMAIN": env["GE_REPLICAS_DOMAIN"]["value"].replace("$(POD_NAMESPACE)", "test")}
    assert env["GE_ROUTER_LISTEN"]["value"] == str(nginx["ports"][0]["containerPort"])
    paths = []
    for name, text in sorted(files.items()):
        path = tmp_path / name.removesuffix(".template")
        path.write_text(render(text, values))
        assert "${" not in re.sub(r"#.*", "", path.read_text()), name
        paths.append(path)
    nginx_check(nginx_conf(tmp_path, paths))


def test_tournament_job_splits_the_schedule():
    docs = build("tournament")
    job = one(docs, "Job")
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    (worker,) = spec["template"]["spec"]["containers"]
    args = dict(a.removeprefix("--").split("=", 1) for a in worker["args"])
    assert int(args["shard-count"]) == spec["completions"]
    assert args["shard-index"] == "$(JOB_COMPLETION_INDEX)"
    assert worker["command"] == ["python", "-m", "clients.tournament"]
    from clients import tournament

    parsed = tournament.parse_args([f"--{k}={v}" for k, v in args.items()
                                    if k not in ("shard-index", "json")] + ["--shard-index=0"])
    assert parsed.shard_count == spec["completions"]
    assert "gameengine-api" in args["server"]


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
