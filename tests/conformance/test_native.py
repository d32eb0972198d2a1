"""Issue 22: the optional mypyc build of the engines and its pure-Python fallback (engines/native.py).

`make test` runs the suite with GE_EXPECT_BUILD=compiled (after `make compiled`) and the golden and
rule tests again with GE_EXPECT_BUILD=pure GE_PURE_PYTHON=1; the first test holds each run to it, so
a stale or missing build cannot pass for the compiled one.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engines import native, registry

ROOT = Path(__file__).resolve().parents[2]


def _import_all_compiled() -> None:
    for name in native.COMPILED:
        __import__(name)


def test_issue22_the_build_in_use_is_the_one_make_test_asked_for():
    _import_all_compiled()
    loaded = native.loaded_compiled()
    if native.build().startswith("compiled"):
        assert loaded == list(native.COMPILED)
    else:
        assert loaded == []
    expected = os.environ.get("GE_EXPECT_BUILD")
    if expected:
        assert native.build().split()[0] == expected, native.build()


def test_issue22_GE_PURE_PYTHON_runs_every_engine_from_its_py_files():
    code = ("from engines import native, registry\n"
            "for name in native.COMPILED: __import__(name)\n"
            "import sys; print(native.build(), native.loaded_compiled(),"
            " all(sys.modules[n].__file__.endswith('.py') for n in native.COMPILED))")
    env = dict(os.environ, GE_PURE_PYTHON="1", PYTHONPATH=f"{ROOT}:{ROOT / 'protos'}")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "pure (GE_PURE_PYTHON=1) [] True"


def test_issue22_a_build_older_than_its_sources_is_stale(tmp_path, monkeypatch):
    record = tmp_path / "native-build.json"
    monkeypatch.setattr(native, "BUILD_FILE", record)
    assert native._stale()  # no record: nothing says the extensions match the sources
    digests = native.source_digests()
    record.write_text(json.dumps({"sources": digests}))
    assert not native._stale()
    digests["pompeii/legality.py"] = "0" * 64  # as if legality.py changed after the build
    record.write_text(json.dumps({"sources": digests}))
    assert native._stale()


@pytest.mark.parametrize("name", native.COMPILED)
def test_issue22_compiled_modules_are_engine_modules_beside_their_sources(name):
    assert name in native.SHARED or name.split(".")[1] in registry.GAME_IDS  # a game's, or the shared path
    assert (ROOT / (name.replace(".", "/") + ".py")).exists()
