"""`make lint` fails on a proto that breaks the released API, breaks a buf STANDARD rule or is not
buf-formatted: buf run on a copy of protos/ with one seeded defect (issue 21 item 4)."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

BUF = str(Path(sys.executable).parent / "buf")
PROTOS = ROOT / "protos"
FILES = sorted(PROTOS.glob("gameengine/**/*.proto"))


def buf(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BUF, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """protos/ as buf sees it: buf.yaml, the baseline and the .proto files."""
    out = tmp_path / "protos"
    for f in [PROTOS / "buf.yaml", PROTOS / "breaking-baseline.binpb", *FILES]:
        (out / f.relative_to(PROTOS)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(f, out / f.relative_to(PROTOS))
    return out


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


def test_item4_the_copy_passes_every_buf_check(copy):
    assert buf(copy, "lint").returncode == 0
    assert buf(copy, "format", "--diff", "--exit-code").returncode == 0
    assert buf(copy, "breaking", "--against", "breaking-baseline.binpb").returncode == 0


def test_item4_a_removed_field_fails_buf_breaking(copy):
    edit(copy / "gameengine/v1/pompeii.proto", "  string invite_code = 20;\n", "")
    out = buf(copy, "breaking", "--against", "breaking-baseline.binpb")
    assert out.returncode != 0
    assert 'field "20" with name "invite_code" on message "CreatePompeiiGameResponse" was deleted' in out.stdout


def test_item4_a_renumbered_field_fails_buf_breaking(copy):
    edit(copy / "gameengine/v1/pompeii.proto", "  string invite_code = 20;\n", "  string invite_code = 21;\n")
    assert buf(copy, "breaking", "--against", "breaking-baseline.binpb").returncode != 0


def test_item4_an_enum_without_a_zero_unspecified_value_fails_buf_lint(copy):
    with (copy / "gameengine/v1/common.proto").open("a") as f:
        f.write("\nenum Colour {\n  COLOUR_RED = 0;\n}\n")
    out = buf(copy, "lint")
    assert out.returncode != 0
    assert '"COLOUR_RED" should be suffixed with "_UNSPECIFIED"' in out.stdout, out.stdout


def test_item4_an_unformatted_proto_fails_buf_format(copy):
    edit(copy / "gameengine/v1/pompeii.proto", "  string invite_code = 20;\n", "  string   invite_code=20;\n")
    assert buf(copy, "format", "--diff", "--exit-code").returncode != 0


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_item4_every_proto_names_its_go_java_and_csharp_packages(path):
    text = path.read_text()
    package = re.search(r"^package ([\w.]+);$", text, re.M)
    assert package, path
    for option in ("go_package", "java_package", "csharp_namespace"):
        assert re.search(rf'^option {option} = "[^"]+";$', text, re.M), (path.name, option)
    assert f'option java_package = "com.{package.group(1)}";' in text
