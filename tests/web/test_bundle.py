"""The committed TypeScript client and page bundle match the committed protos and sources:
a proto change that was not followed by `npm run build` fails here, not in a user's browser."""
from __future__ import annotations

import filecmp
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "clients" / "web"
BIN = WEB / "node_modules" / ".bin"

pytestmark = pytest.mark.skipif(not (BIN / "esbuild").exists() or not (BIN / "protoc-gen-es").exists(),
                                reason="needs clients/web/node_modules (npm ci); .ci/run installs them")


def differing(a: Path, b: Path) -> list[str]:
    """Paths (relative to a) that differ between two trees, or exist in only one."""
    cmp = filecmp.dircmp(a, b)
    out = [str(Path(cmp.left).relative_to(a) / n) for n in cmp.left_only + cmp.right_only + cmp.diff_files]
    return out + [d for sub in cmp.subdirs for d in differing(a / sub, b / sub)]


def test_generated_client_matches_the_protos(tmp_path):
    run = subprocess.run(["sh", str(WEB / "gen.sh")], env=dict(os.environ, GEN_OUT=str(tmp_path / "gen"),
                                                               PY=sys.executable),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    stale = differing(tmp_path / "gen", WEB / "src" / "gen")
    assert not stale, f"clients/web/src/gen is stale ({stale}); run `cd clients/web && npm run build`"


def test_page_bundle_matches_its_sources(tmp_path):
    out = tmp_path / "app.js"
    run = subprocess.run(["sh", str(WEB / "bundle.sh")], env=dict(os.environ, BUNDLE_OUT=str(out)),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert out.read_bytes() == (ROOT / "server" / "web_static" / "app.js").read_bytes(), \
        "server/web_static/app.js is stale; run `cd clients/web && npm run build`"
