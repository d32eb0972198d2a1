"""Done-means check: complete games with a client that imports only the generated stubs."""
from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

EXAMPLE = ROOT / "clients" / "examples" / "protos_only.py"
CASES = [("pompeii", 2), ("pompeii", 3), ("pompeii", 4), ("eruption", 2), ("eruption", 6), ("citadels", 2),
         ("citadels", 7), ("smallworld", 2), ("smallworld", 5)]


def test_the_example_imports_no_project_code_but_the_stubs():
    imported = set()
    for node in ast.walk(ast.parse(EXAMPLE.read_text())):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert not imported & {"engines", "server", "clients"}


@pytest.mark.parametrize("game,seats", CASES)
def test_complete_game_with_only_the_protos(server, game, seats):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "protos"))  # engines/ is not even importable
    r = subprocess.run([sys.executable, str(EXAMPLE), "--server", server.target, "--game", game,
                        "--seats", str(seats), "--seed", str(seats)], env=env, cwd="/", capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    result = ast.literal_eval(r.stdout.strip())
    assert result["moves"] > 0 and len(result["ranks"]) == seats and result["winners"]


def test_the_example_waits_out_a_rate_limit(fresh_server):
    """Under a rate limit far below its pace, the example still finishes: it retries each refused
    call after the RetryInfo delay (README "Limits")."""
    server = fresh_server(GE_RATE_LIMIT_PER_S="40", GE_LOG_LEVEL="info").start()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "protos"))
    r = subprocess.run([sys.executable, str(EXAMPLE), "--server", server.target, "--game", "citadels",
                        "--seats", "2", "--seed", "1"], env=env, cwd="/", capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert ast.literal_eval(r.stdout.strip())["winners"]
    assert "RESOURCE_EXHAUSTED" in server.log.read_text(), "the limit was hit (its refusals are logged)"
