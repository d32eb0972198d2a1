"""The reference page's lobby (issue 17): a person registers a name, finds an open game, joins a
seat and plays, in headless Chromium (Debian's package, driven by playwright-core)."""
from __future__ import annotations

import json
import subprocess
import urllib.request

from clients.sdk import Client, PlayerClient
from gameengine.v1 import common_pb2

from .conftest import Bots
from .test_web_e2e import ARTIFACTS, CHROMIUM, ROOT, pytestmark  # noqa: F401  (same skip rule)


def test_register_join_an_open_seat_and_play_from_the_page(web_server):
    alice = PlayerClient.register(web_server.target, "alice-web")
    client = Client(web_server.target, "pompeii")
    game_id, tokens = client.create(3, open_seats=[1, 2], player_token=alice.token)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    plan = {"base": web_server.base, "chromium": CHROMIUM, "artifacts": str(ARTIFACTS), "name": "carol-web",
            "game_id": game_id, "seat": 1}
    browser = subprocess.Popen(["node", str(ROOT / "tests" / "web" / "lobby_e2e.mjs"), json.dumps(plan)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dave = PlayerClient.register(web_server.target, "dave-web")
    line = browser.stdout.readline()  # the page joined seat 1 and shows the game waiting
    assert json.loads(line or "{}").get("phase") == "waiting", browser.stderr.read()[-4000:] if not line else line
    holders = client.common.GetGameStatus(common_pb2.GetGameStatusRequest(game_id=game_id)).status.seat_holders
    assert [h.player_name for h in holders] == ["alice-web", "carol-web", ""]
    joined = dave.join(game_id, seat=2)
    try:
        with Bots(web_server.target, "pompeii", game_id, [tokens[0], "", joined.seat_token], [0, 2]):
            out, err = browser.communicate(timeout=200)
    finally:
        if browser.poll() is None:
            browser.kill()
    assert browser.returncode == 0, err[-4000:]
    result = json.loads(out.strip().splitlines()[-1])
    assert "alice-web" in result["listed"] and "join seat 1" in result["listed"]
    assert "waiting for players" in result["waiting"] and "carol-web" in result["waiting"]
    assert result["v1"] > result["v0"] and result["hash_has_token"] and "player" in result["mode"]
    assert not result["console"], result["console"]


def test_LOBBY_6_private_games_are_not_in_the_pages_live_list(web_server):
    alice = PlayerClient.register(web_server.target, "alice-private")
    client = Client(web_server.target, "pompeii")
    private_id, _ = client.create(3, open_seats=[1, 2], private=True, player_token=alice.token)
    public_id, _ = client.create(3, open_seats=[1, 2], player_token=alice.token)
    with urllib.request.urlopen(f"{web_server.base}/api/games", timeout=10) as r:
        listed = {g["game_id"] for g in json.loads(r.read())["games"]}
    assert public_id in listed and private_id not in listed
