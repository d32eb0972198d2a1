"""Bots and the tournament runner, over RPC against a real server."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from clients import tournament
from clients.sdk import Client
from engines import registry
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
    (["--game", "pompeii", "--seats", "3", "--bots", "random,greedy"], "cannot fill"),
])
def test_tournament_refuses_unknown_game_bot_or_option_with_exit_2(args, needle, tmp_path):
    r = run_cli("clients.tournament", "--server", "127.0.0.1:1", *args, "--json", str(tmp_path / "x.json"))
    assert r.returncode == 2 and needle in r.stderr


@pytest.mark.parametrize("game", list(registry.GAME_IDS))
def test_small_tournament_writes_results_ratings_and_plot(server, game, tmp_path):
    out = tmp_path / f"{game}.json"
    n = min(3, registry.spec(game).max_seats)  # three bots, rotated through n seats
    bots = ["random", "greedy", "mcts"][:n]
    report = tournament.run(tournament.parse_args([
        "--server", server.target, "--game", game, "--seats", str(n), "--bots", ",".join(bots),
        "--games", str(n), "--think-ms", "5", "--parallel", "2", "--json", str(out), "--quiet"]))
    data = json.loads(out.read_text())
    assert data == json.loads(json.dumps(report, default=str))
    assert not data["errors"], data["errors"]
    seatings = [r["bots"] for r in data["results"]]
    assert sorted(seatings) == sorted([seatings[0][(s + r) % n] for s in range(n)] for r in range(n))  # rotations
    assert all(r["outcome"]["winners"] and r["seed"] for r in data["results"])
    assert set(data["standings"]) == set(bots)
    assert sum(v["games"] for v in data["standings"].values()) == n * n
    assert all(v["games"] == n for v in data["standings"].values())
    assert out.with_suffix(".png").stat().st_size > 1000
    entry = tournament.TournamentClient(server.target).get(data["tournament_id"])
    assert [g.game_id for g in entry.schedule] == [r["game_id"] for r in data["results"]]  # the server's record


def test_a_failed_game_is_reported_as_an_error():
    from gameengine.v1 import tournament_pb2
    t = tournament_pb2.Tournament(tournament_id="t-1", game="pompeii", seats_per_game=2, format=1, state=3,
                                  schedule=[tournament_pb2.ScheduledGame(index=0, seat_players=["a", "b"],
                                                                         finished=True, failure="gone")],
                                  standings=[tournament_pb2.Standing(player_id="a"),
                                             tournament_pb2.Standing(player_id="b")])
    report = tournament.summarize(t, {"a": "random", "b": "greedy"})
    assert report["errors"] == [{"index": 0, "seed": 0, "error": "gone"}]
    assert report["results"][0]["outcome"] is None and report["standings"]["random"]["games"] == 0


def test_bot_cli_joins_a_game_and_plays_it_to_the_end(server):
    client = Client(server.target, "pompeii")
    game_id, tokens = client.create(2, seed=3)
    bots = [subprocess.Popen([sys.executable, "-m", "clients.bot", "--server", server.target, "--game", "pompeii",
                              "--game-id", game_id, "--seat", str(s), f"--token={tokens[s]}", "--policy", p,
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


def run_cli_in(cwd, *args, timeout=300):
    return subprocess.run([sys.executable, "-m", "clients.tournament", *args], cwd=cwd, env=ENV,
                          capture_output=True, text=True, timeout=timeout)


def test_item13_unreachable_server_exits_1_and_writes_nothing(tmp_path):
    from tests.conftest import free_port
    r = run_cli_in(tmp_path, "--server", f"127.0.0.1:{free_port()}", "--game", "pompeii", "--seats", "2",
                   "--bots", "random,random", "--games", "2", "--quiet", timeout=120)
    assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
    assert "cannot reach the server" in r.stderr
    assert list(tmp_path.iterdir()) == []  # no ./tournament.json, no plot


def test_item13_failed_games_exit_1_and_json_only_when_asked(fresh_server, tmp_path):
    # a reachable server that does not host the game refuses the tournament: the runner says so
    server = fresh_server(GE_GAMES="pompeii").start()
    tmp_path = tmp_path / "cwd"  # the server's data dir is beside it
    tmp_path.mkdir()
    out = tmp_path / "out" / "t.json"
    r = run_cli_in(tmp_path, "--server", server.target, "--game", "eruption", "--seats", "2", "--bots",
                   "random,random", "--games", "2", "--parallel", "1", "--json", str(out), timeout=120)
    assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
    assert "refused the tournament: INVALID_ARGUMENT: TOUR-1: " in r.stderr
    assert list(tmp_path.iterdir()) == []
    # games that finish: exit 0, and nothing written without --json
    r = run_cli_in(tmp_path, "--server", server.target, "--game", "pompeii", "--seats", "2", "--bots",
                   "random,random", "--games", "2", "--parallel", "1", "--quiet", timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert list(tmp_path.iterdir()) == []
    r = run_cli_in(tmp_path, "--server", server.target, "--game", "pompeii", "--seats", "2", "--bots",
                   "random,random", "--games", "3", timeout=120)
    assert r.returncode == 2 and "multiple of 2" in r.stderr


def test_the_runner_sends_its_api_key_with_the_tournament_and_its_players(fresh_server, tmp_path):
    """GE_CREATE_TOKENS: --api-key goes with the tournament and its players (before, with neither)."""
    server = fresh_server(GE_CREATE_TOKENS="k1").start()
    args = ["--server", server.target, "--game", "pompeii", "--seats", "2", "--bots", "random,random",
            "--games", "2", "--parallel", "1", "--quiet"]
    r = run_cli_in(tmp_path, *args, "--api-key", "k1", timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    r = run_cli_in(tmp_path, *args, timeout=120)
    assert r.returncode == 1 and "UNAUTHENTICATED" in r.stderr, r.stderr[-2000:]


def test_a_tournament_whose_players_are_refused_is_cancelled_not_left_registering(fresh_server, monkeypatch):
    """A tournament made without its players held one of the address's GE_TOURNAMENTS_PER_ADDRESS places
    for a day (TOUR-16), and its creator token was lost with the run."""
    import grpc

    from clients.sdk import Refused, TournamentClient
    from gameengine.v1 import tournament_pb2
    server = fresh_server().start()

    def refused(*args, **kwargs):
        raise Refused(grpc.StatusCode.RESOURCE_EXHAUSTED, "GE_CREATES_PER_MIN")
    monkeypatch.setattr(tournament.PlayerClient, "register", refused)
    code = tournament.main(["--server", server.target, "--game", "pompeii", "--seats", "2", "--bots",
                            "random,random", "--games", "2", "--quiet"])
    assert code == 1
    [t] = TournamentClient(server.target).stub.ListTournaments(tournament_pb2.ListTournamentsRequest()).tournaments
    assert t.state == tournament_pb2.TOURNAMENT_STATE_CANCELLED


def test_item13_help_describes_every_option():
    r = run_cli("clients.tournament", "--help")
    assert r.returncode == 0
    parser_actions = [a for a in tournament_parser()._actions if a.option_strings]
    for action in parser_actions:
        assert action.help, action.option_strings
        assert action.option_strings[-1] in r.stdout
    assert "nothing is written without it" in r.stdout and "Exit code" in r.stdout


def tournament_parser():
    """The runner's argparse parser, captured by running parse_args with --help suppressed."""
    import argparse
    captured = {}
    real = argparse.ArgumentParser.parse_args

    def grab(self, args=None, namespace=None):
        captured["parser"] = self
        return real(self, ["--game", "pompeii", "--seats", "2"], namespace)
    argparse.ArgumentParser.parse_args = grab
    try:
        tournament.parse_args([])
    finally:
        argparse.ArgumentParser.parse_args = real
    return captured["parser"]
