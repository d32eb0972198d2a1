"""Issue 17 done-means, automated: alice registers and creates a 3-seat Pompeii game keeping seat 0
with two seats open; the Python bot and the Node bot, two separate processes each holding only its
own player token, find the game in the lobby, join, learn of their turns from their player streams
and play to the end, while alice plays seat 0 through the Connect API the reference page uses."""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest

from clients.sdk import Client, PlayerClient
from tests.conftest import ROOT

NODE_BOT = ROOT / "clients" / "examples" / "node"


@pytest.fixture(scope="module")
def node_bot():
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("Node and npm are needed (.ci/run installs them from Debian's packages)")
    if not (NODE_BOT / "node_modules" / "@grpc" / "grpc-js").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=NODE_BOT, check=True,
                       timeout=300)
    return NODE_BOT / "bot.mjs"


def connect(web_port: int, method: str, body: dict) -> dict:
    req = urllib.request.Request(f"http://127.0.0.1:{web_port}/gameengine.v1.PompeiiService/{method}",
                                 data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def play_seat_over_connect(web_port: int, game_id: str, token: str, deadline: float) -> dict:
    """Alice's seat, played the way the page does: Connect JSON over HTTP."""
    rng = random.Random(0)
    while time.time() < deadline:
        listed = connect(web_port, "ListPompeiiMoves", {"game_id": game_id, "token": token})
        status = listed["status"]
        if status.get("over"):
            return status
        if listed.get("moves") and not status.get("waiting"):
            connect(web_port, "MakePompeiiMove", {"game_id": game_id, "token": token,
                                                  "expected_version": status.get("version", 0),
                                                  "idempotency_key": str(rng.random()),
                                                  "move": rng.choice(listed["moves"])})
        else:
            time.sleep(0.05)
    raise AssertionError("the game did not end in time")


def test_python_bot_and_node_bot_join_from_the_lobby_and_play_to_the_end(fresh_server, node_bot):
    server = fresh_server().with_web().start()
    web_port = server.web_port
    alice = PlayerClient.register(server.target, "alice")
    game_id, tokens = Client(server.target, "pompeii").create(3, open_seats=[1, 2],
                                                              player_token=alice.token)
    assert tokens[0] and not tokens[1] and not tokens[2]
    py_player = PlayerClient.register(server.target, "py-bot")
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'protos'}")
    bots = [subprocess.Popen([sys.executable, "-m", "clients.bot", "--server", server.target, "--player-token",
                              py_player.token, "--join", "open", "--game", "pompeii", "--policy", "mcts",
                              "--iterations", "30", "--games", "1"],
                             cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
            subprocess.Popen(["node", str(node_bot), "--server", server.target, "--game", "pompeii",
                              "--name", "node-bot"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)]
    try:
        final = play_seat_over_connect(web_port, game_id, tokens[0], time.time() + 400)
        outs = [b.communicate(timeout=120) for b in bots]
    finally:
        for b in bots:
            if b.poll() is None:
                b.kill()
    for b, (_out, err) in zip(bots, outs):
        assert b.returncode == 0, err[-3000:]
    py_out, node_out = outs[0][0], outs[1][0]
    assert "game over:" in py_out
    node_last = json.loads(node_out.strip().splitlines()[-1])["game_over"]
    assert node_last["game_id"] == game_id and node_last["moves"] > 0
    assert node_last["ranks"] == final["outcome"]["ranks"]
    holders = {h["playerName"]: h.get("seat", 0) for h in final["seatHolders"]}  # Connect JSON: lowerCamelCase
    assert set(holders) == {"alice", "py-bot", "node-bot"} and holders["alice"] == 0
    log = connect(web_port, "GetPompeiiLog", {"game_id": game_id})
    movers = {e.get("seat", 0) for e in log["entries"] if not e.get("byReferee")}
    assert movers == {0, 1, 2}  # every seat played its own moves


def test_the_node_bot_says_in_one_line_why_the_server_refused_it(fresh_server, node_bot):
    """An unknown tournament ended the Node bot with an unhandled rejection and a stack trace."""
    server = fresh_server().start()
    done = subprocess.run(["node", str(node_bot), "--server", server.target, "--player-token", "not-a-token",
                           "--tournament", "t-0000000000000000"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]  # one line, no trace
    assert done.stderr.startswith("failed: 5 ") and "TOUR-17" in done.stderr


def test_the_node_bot_reads_name_equals_value_and_says_what_it_is_missing(fresh_server, node_bot, tmp_path):
    """`--server=HOST:PORT` was dropped silently (the bot dialled 127.0.0.1:50051), a tournament without a
    player token was refused by the server as PLAYER-5, and a copy outside the checkout blamed the game."""
    server = fresh_server().start()
    done = subprocess.run(["node", str(node_bot), f"--server={server.target}", "--player-token=not-a-token",
                           "--tournament=t-0000000000000000"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "TOUR-17" in done.stderr, done.stderr  # it reached this server
    done = subprocess.run(["node", str(node_bot), f"--server={server.target}", "--tournament", "t-0000000000000000"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--tournament needs --player-token" in done.stderr, done.stderr
    done = subprocess.run(["node", str(node_bot), "--protos", str(tmp_path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and f"no protos at {tmp_path}" in done.stderr, done.stderr
