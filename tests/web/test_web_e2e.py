"""End to end in headless Chromium (Debian's package, driven by playwright-core from clients/web):
the page shows live bot games of every hosted game, and a click on a legal move changes the board.
Screenshots go to test-artifacts/web/."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from clients.sdk import Client
from engines import registry

from .conftest import Bots

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("GE_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts" / "web"
PLAYWRIGHT = ROOT / "clients" / "web" / "node_modules" / "playwright-core"

pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() and PLAYWRIGHT.exists() and shutil.which("node")),
    reason="needs /usr/bin/chromium (apt chromium), node and clients/web/node_modules (npm ci); .ci/run installs them")



def browser(plan: dict) -> dict:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    plan = dict(plan, chromium=CHROMIUM, artifacts=str(ARTIFACTS))
    run = subprocess.run(["node", str(ROOT / "tests" / "web" / "e2e.mjs"), json.dumps(plan)], cwd=ROOT,
                         capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-4000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_spectate_live_bot_games_and_play_by_clicking(web_server):
    games = list(registry.GAME_IDS)
    bots, spectate, clients = [], [], []
    try:
        for game in games:
            client = Client(web_server.target, game)
            clients.append(client)
            game_id, tokens = client.create(seats=registry.tested_seats(game)[0], seed=3)
            bots.append(Bots(web_server.target, game, game_id, tokens, list(range(len(tokens))),
                             pause_s=0.4).__enter__())
            spectate.append({"game": game, "id": game_id})
        # seat 0 is the page's; seats 1.. are bots
        client = Client(web_server.target, "pompeii")
        clients.append(client)
        play_id, play_tokens = client.create(seats=3, seed=21)
        bots.append(Bots(web_server.target, "pompeii", play_id, play_tokens, [1, 2]).__enter__())

        result = browser({"base": web_server.base, "spectate": spectate,
                          "play": {"game": "pompeii", "id": play_id, "token": play_tokens[0]}})
    finally:
        for b in bots:
            b.__exit__(None, None, None)
        for c in clients:
            c.close()
    for b in bots:
        assert not b.errors, b.errors
    assert not result["console"], result["console"]
    for seen in result["spectate"]:
        # live: the version moved while the page was open (or a short game was over before it opened),
        # and it is drawn (SVG for known games)
        assert seen["later"] > seen["first"] or (seen["over"] and seen["first"] > 0), seen
        assert seen["svg"] == 1 and "spectator" in seen["mode"], seen
        assert seen["targets"] == 0 and seen["moveButtons"] == 0  # a spectator has no moves
        assert seen["events"], seen
        assert (ARTIFACTS / f"spectate-{seen['game']}.png").stat().st_size > 10_000
        # hidden information: a spectator's view carries no hand
        assert not seen["view"].get("hand"), seen["view"].get("hand")
    play = result["play"]
    assert play["v1"] > play["v0"] and play["changed"], play
    assert not play["error"], play["error"]
    assert (ARTIFACTS / "play-pompeii-after.png").exists()


def test_item16_events_pane_switches_games_and_shows_a_finished_games_history(web_server):
    """Switching games (hash change, no reload) clears the Events pane, and a spectator who opens a
    finished game sees its history (the stream from version 0)."""
    live = Client(web_server.target, "eruption")
    live_id, live_tokens = live.create(seats=2, seed=4)
    done = Client(web_server.target, "pompeii")
    done_id, done_tokens = done.create(seats=3, seed=8)
    for _ in range(3):
        status = done.status(done_id)
        actor = next(s for s in status.seats_to_act if status.acts(s))
        seat = done.seat(done_id, actor, done_tokens[actor])
        seat.move(seat.legal()[0])
    assert done.adjudicate(done_id, done_tokens, "test", rollouts=4).over
    history = [v for v, _, _ in done.spectator(done_id).events(from_version=0, timeout=10)]
    assert history and history[0] == 1
    try:
        with Bots(web_server.target, "eruption", live_id, live_tokens, [0, 1], pause_s=0.3) as bots:
            result = browser({"base": web_server.base, "switch": {
                "from": {"game": "eruption", "id": live_id},
                "to": {"game": "pompeii", "id": done_id, "lines": min(len(history), 60)}}})
        assert not bots.errors, bots.errors
    finally:
        live.close()
        done.close()
    assert not result["console"], result["console"]
    sw = result["switch"]
    assert sw["before"] and done_id in sw["mode"], sw
    # newest first: exactly the finished game's history, no line of the game shown before
    assert [int(line.split()[0][1:]) for line in sw["after"]] == list(reversed(history))[:60], sw
