"""Bots and the tournament runner, over RPC against a real server."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from clients import tournament
from clients.sdk import Client
from gameengine import codecs
from tests.conftest import ROOT

ENV = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'protos'}")


def run_cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, env=ENV, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("args,needle", [
    (["--game", "chess", "--seats", "2"], "unknown game"),
    (["--game", "pompeii", "--seats", "2", "--bots", "random,alphazero"], "unknown bot"),
    (["--game", "pompeii", "--seats", "2", "--option", "lava_everywhere=true"], "bad option"),
    (["--game", "pompeii", "--seats", "9"], "seats"),
])
def test_tournament_refuses_unknown_game_bot_or_option_with_exit_2(args, needle, tmp_path):
    r = run_cli("clients.tournament", "--server", "127.0.0.1:1", *args, "--json", str(tmp_path / "x.json"))
    assert r.returncode == 2 and needle in r.stderr


@pytest.mark.parametrize("game", list(codecs.available()))
def test_small_tournament_writes_results_ratings_and_plot(server, game, tmp_path):
    out = tmp_path / f"{game}.json"
    report = tournament.run(tournament.parse_args([
        "--server", server.target, "--game", game, "--seats", "3", "--bots", "random,greedy,mcts",
        "--games", "3", "--think-ms", "5", "--parallel", "2", "--json", str(out), "--quiet"]))
    data = json.loads(out.read_text())
    assert data == json.loads(json.dumps(report, default=str))
    assert not data["errors"], data["errors"]
    assert [r["bots"] for r in data["results"]] == [tournament.seating(["random", "greedy", "mcts"], 3, i)
                                                     for i in range(3)]
    assert all(r["outcome"]["winners"] and r["seed"] for r in data["results"])
    assert set(data["standings"]) == {"random", "greedy", "mcts"}
    assert sum(v["seats_played"] for v in data["standings"].values()) == 9
    assert abs(sum(v["wins"] for v in data["standings"].values()) - 3) < 1e-6
    assert out.with_suffix(".png").stat().st_size > 1000


def test_failed_game_is_recorded_and_the_runner_goes_on(server):
    job = {"index": 0, "server": server.target, "game": "pompeii", "seats": 2, "options": {"edition": "1999"},
           "seed": 1, "bots": ["random", "random"], "think_ms": 5, "max_moves": 0}
    result = tournament.play_one(job)
    assert result["error"] and ("INVALID_ARGUMENT" in result["error"] or "POM-10" in result["error"])
    table = tournament.standings([result], ["random"], 2)
    assert table["random"]["seats_played"] == 0


def test_bot_cli_joins_a_game_and_plays_it_to_the_end(server):
    client = Client(server.target, "pompeii")
    game_id, tokens = client.create(2, seed=3)
    bots = [subprocess.Popen([sys.executable, "-m", "clients.bot", "--server", server.target, "--game", "pompeii",
                              "--game-id", game_id, "--seat", str(s), "--token", tokens[s], "--policy", p,
                              "--think-ms", "10"], cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for s, p in enumerate(["mcts", "greedy"])]
    for b in bots:
        out, err = b.communicate(timeout=300)
        assert b.returncode == 0, err
        assert "game over" in out
    assert client.status(game_id).over


def test_bot_with_a_bad_token_reports_and_exits(server):
    client = Client(server.target, "pompeii")
    game_id, _ = client.create(2, seed=4)
    r = run_cli("clients.bot", "--server", server.target, "--game", "pompeii", "--game-id", game_id, "--seat", "0",
                "--token", "forged", "--policy", "random", timeout=60)
    assert r.returncode == 1 and "PERMISSION_DENIED" in r.stderr
