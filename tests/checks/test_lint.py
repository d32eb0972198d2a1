"""`make lint` fails on a finding: the repository's ruff configuration, run on a seeded defect."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

BIN = Path(sys.executable).parent


def ruff(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "ruff"), "check", "--config", str(ROOT / "pyproject.toml"), "--no-cache",
                           str(path)], capture_output=True, text=True, timeout=60)


def test_item3_ruff_fails_on_an_unused_import_a_bugbear_and_unsorted_imports(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nimport os\n\n\ndef f(x=[]):\n    return x\n")
    out = ruff(bad)
    assert out.returncode == 1
    for rule in ("F401", "I001", "B006"):
        assert rule in out.stdout, out.stdout




def test_item3_mypy_fails_on_a_type_error(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def seats(n: int) -> int:\n    return str(n)\n")
    out = subprocess.run([str(BIN / "mypy"), "--config-file", str(ROOT / "pyproject.toml"), "--no-incremental",
                          str(bad)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and "[return-value]" in out.stdout, out.stdout
