"""End to end in headless Chromium (Debian's package, driven by playwright-core from clients/web):
the page shows live bot games of every hosted game, and a click on a legal move changes the board.
Screenshots go to test-artifacts/web/."""
from __future__ import annotations

import json
import os
import random
import re
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


def play_random(client: Client, game_id: str, tokens: list[str], moves: int, seed: int = 0, until=None) -> int:
    """Random legal moves over gRPC, `moves` at most, until the game is over or `until()`: the count played."""
    rng = random.Random(seed)
    for n in range(moves):
        status = client.status(game_id)
        if status.over or (until and until()):
            return n
        actor = next(s for s in status.seats_to_act if status.acts(s))
        seat = client.seat(game_id, actor, tokens[actor])
        seat.move(rng.choice(seat.legal()))
    return moves


def test_item16_events_pane_switches_games_and_shows_a_finished_games_history(web_server):
    """Switching games (hash change, no reload) clears the Events pane, and a spectator who opens a
    finished game sees its whole history (the stream from version 0), however long: here hundreds of lines."""
    live = Client(web_server.target, "eruption")
    live_id, live_tokens = live.create(seats=2, seed=4)
    done = Client(web_server.target, "pompeii")
    done_id, done_tokens = done.create(seats=3, seed=8)
    play_random(done, done_id, done_tokens, 150, seed=8)
    if not done.status(done_id).over:
        assert done.adjudicate(done_id, done_tokens, "test", rollouts=4).over
    history = [v for v, _, _ in done.spectator(done_id).events(from_version=0, timeout=10)]
    assert history and history[0] == 1 and len(history) > 150, len(history)
    try:
        with Bots(web_server.target, "eruption", live_id, live_tokens, [0, 1], pause_s=0.3) as bots:
            result = browser({"base": web_server.base, "switch": {
                "from": {"game": "eruption", "id": live_id},
                "to": {"game": "pompeii", "id": done_id, "lines": len(history)}}})
        assert not bots.errors, bots.errors
    finally:
        live.close()
        done.close()
    assert not result["console"], result["console"]
    sw = result["switch"]
    assert sw["before"] and done_id in sw["mode"], sw
    # newest first: exactly the finished game's whole history, no line of the game shown before
    assert [int(line.split()[0][1:]) for line in sw["after"]] == list(reversed(history)), sw


def test_create_from_the_page_with_and_without_demo(web_server):
    """New game on the page: every game without *demo* (no referee options sent), and one with it; each is
    created, opened from its "watch" link and drawn, with no error."""
    cases = [{"game": g, "seats": registry.tested_seats(g)[0], "demo": False} for g in registry.GAME_IDS]
    cases.append({"game": "pompeii", "seats": 3, "demo": True})
    result = browser({"base": web_server.base, "create": cases})
    assert not result["console"], result["console"]
    assert len(result["create"]) == len(cases)
    for seen in result["create"]:
        assert seen["error"] == "" and seen["id"], seen
        assert seen["id"] in seen["mode"] and seen["svg"] == 1 and seen["errorAfterOpen"] == "", seen
        client = Client(web_server.target, seen["game"])
        try:
            assert client.status(seen["id"]).version >= 0  # the server has it (a missing id raises)
        finally:
            client.close()


def test_error_and_created_lines_clear_when_they_no_longer_apply(web_server):
    """#error goes when another game is opened or a later create succeeds; a refused create does not leave the
    previous game's "created" line standing."""
    client = Client(web_server.target, "pompeii")
    good_id, _ = client.create(seats=3, seed=2)
    client.close()
    result = browser({"base": web_server.base, "errors": {
        "missing": {"game": "pompeii", "id": "00000000deadbeef"}, "good": {"game": "pompeii", "id": good_id},
        "create": {"game": "kuhn", "seats": 2, "demo": False}, "bad": {"game": "kuhn", "seats": 3, "demo": False}}})
    e = result["errors"]
    assert e["missingError"].startswith("NOT_FOUND: GAME-ID: "), e
    # the page retried an unknown game every second for good, and each retry put its error back
    assert e["createdOverMissing"]["error"] == "" and e["createdOverMissing"]["id"], e
    assert e["errorAfterCreateOverMissing"] == "" and e["missingAskedAgain"] == 0, e
    assert e["errorAfterOpen"] == "", e
    assert e["first"]["error"] == "" and e["first"]["id"], e
    assert e["refused"]["error"] and "created" not in e["refused"]["created"], e
    assert e["errorAfterReopen"] == "", e
    assert e["refused2"]["error"], e
    assert e["second"]["error"] == "" and e["second"]["id"] not in ("", e["first"]["id"]), e


def test_eruption_temperature_labels_are_not_clipped(web_server):
    """The temperature track shows each whole label, also at the top of the track (290°)."""
    client = Client(web_server.target, "eruption")
    game_id, _ = client.create(seats=2, seed=6)
    client.close()
    result = browser({"base": web_server.base, "track": {"id": game_id, "temperatures": [290, 145]}})
    assert not result["console"], result["console"]
    track = result["track"]
    texts = [lb["text"] for lb in track["labels"]]
    assert "290°" in texts and "145°" in texts, track
    for lb in track["labels"]:
        assert track["x"] <= lb["left"] and lb["right"] <= track["x"] + track["width"], (lb, track)
    assert (ARTIFACTS / "eruption-track.png").stat().st_size > 1000


def test_smallworld_ghost_regions_have_the_necromancers_colour(web_server):
    """Necromancer Island: the Ghosts' races[].owner is -1 in the view; their regions are drawn in the colour of
    the Necromancer's seat (view.necromancer.seat), every other race's in its owner's."""
    colours = re.findall(r'"(#[0-9a-f]{6})"', re.search(r"SEAT_COLOURS = \[([^\]]*)\]",
                                                         (ROOT / "clients/web/src/boards.ts").read_text()).group(1))
    client = Client(web_server.target, "smallworld")
    game_id, tokens = client.create(seats=3, options={"necromancer": True}, seed=7)
    spectator = client.spectator(game_id)

    def ghosts_on_map() -> bool:
        return any(r.get("race") == "ghosts" for r in spectator.view()[1]["regions"])

    play_random(client, game_id, tokens, 300, seed=1, until=ghosts_on_map)
    assert ghosts_on_map()
    client.close()
    result = browser({"base": web_server.base, "regions": {"game": "smallworld", "id": game_id}})
    assert not result["console"], result["console"]
    view = result["regions"]["view"]
    necro = view["necromancer"]["seat"]
    owner = {r["race"]: r["owner"] for r in view["races"]}
    assert owner["ghosts"] == -1 and necro >= 0, (owner, necro)
    ghosts = 0
    for drawn in result["regions"]["drawn"]:
        race = view["regions"][drawn["region"]].get("race", "")
        seat = necro if race == "ghosts" else owner.get(race, -1) if race else -1
        ghosts += race == "ghosts"
        assert drawn["stroke"] == (colours[seat] if seat >= 0 else "#555"), (drawn, race, seat)
    assert ghosts, result["regions"]["drawn"]
