"""Tools the deployment tests need, found on the machine or installed from a registry."""
from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

KUBERNETES_VALIDATE = "kubernetes-validate==1.37.0"  # JSON schemas of every Kubernetes version, offline


def unavailable(message: str):
    """A missing tool fails in CI (.ci/run installs them all) and skips elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if found is None:
        unavailable("nginx is not installed (apt-get install nginx; .ci/run does)")
    return found


def kustomize_command() -> list[str]:
    if shutil.which("kubectl"):
        return ["kubectl", "kustomize"]
    if shutil.which("kustomize"):
        return ["kustomize", "build"]
    unavailable("neither kubectl nor kustomize is installed (.ci/run installs kubectl)")


def kubernetes_validate():
    """The validator module; pip-installs it into this interpreter's environment when missing."""
    try:
        return importlib.import_module("kubernetes_validate")
    except ImportError:
        pass
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", KUBERNETES_VALIDATE],
                          capture_output=True, text=True)
    if done.returncode != 0:
        unavailable(f"cannot install {KUBERNETES_VALIDATE}: {done.stderr[-500:]}")
    importlib.invalidate_caches()
    return importlib.import_module("kubernetes_validate")


def render(template: str, values: dict[str, str]) -> str:
    """What the nginx image's envsubst does: replace ${NAME} for the given names only."""
    for name, value in values.items():
        template = template.replace("${" + name + "}", value)
    return template


def nginx_conf(workdir: Path, includes: list[Path], extra_http: str = "") -> Path:
    """A main nginx.conf around http-level files (what the image's nginx.conf does with
    conf.d/*.conf), with every path inside `workdir`."""
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (workdir / sub).mkdir(parents=True, exist_ok=True)
    user = "user root root;\n" if os.geteuid() == 0 else ""  # workers need the temp dirs
    conf = workdir / "nginx.conf"
    conf.write_text(
        f"{user}daemon off;\nworker_processes 1;\npid {workdir}/nginx.pid;\nerror_log {workdir}/error.log info;\n"
        "events { worker_connections 1024; }\n"
        "http {\n"
        f"{extra_http}"
        f"    client_body_temp_path {workdir}/body;\n    proxy_temp_path {workdir}/proxy;\n"
        f"    fastcgi_temp_path {workdir}/fastcgi;\n    uwsgi_temp_path {workdir}/uwsgi;\n"
        f"    scgi_temp_path {workdir}/scgi;\n"
        + "".join(f"    include {p};\n" for p in includes)
        + "}\n")
    return conf


def nginx_check(conf: Path) -> None:
    """`nginx -t`: the configuration parses and every variable and upstream resolves."""
    done = subprocess.run([nginx_binary(), "-t", "-p", str(conf.parent), "-c", str(conf),
                           "-e", str(conf.parent / "error.log")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
