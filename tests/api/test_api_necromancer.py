"""Small World with a Necromancer seat, through the API only (NEC-*), at 3 to 6 seats."""
from __future__ import annotations

import random

import pytest

from clients.sdk import Client
from engines import registry

from .test_api_games import play_random_over_rpc

pytestmark = pytest.mark.skipif("smallworld" not in registry.GAME_IDS, reason="smallworld not built")


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_necromancer_games_complete_over_rpc(server, seats):
    client = Client(server.target, "smallworld")
    game_id, tokens = client.create(seats, {"necromancer": True}, seed=300 + seats)
    status = play_random_over_rpc(client, game_id, tokens, random.Random(seats))
    assert status.over and len(status.outcome["ranks"]) == seats
    _, view = client.spectator(game_id).view()
    necro = view["necromancer"]
    # NEC: 14 ghosts in all, wherever they are (reserve, island, hand, kept, regions, well)
    assert (necro["ghost_reserve"] + necro["island"] + necro["ghosts_in_hand"] + necro["ghosts_kept"]
            + necro["ghosts_on_regions"] + necro["well_ghosts"]) == 14
    client.close()


def test_a_necromancer_wins_by_ghosts_over_rpc(server):
    """NEC instant victory: random players feed the Soul Well; find such a game by seed."""
    client = Client(server.target, "smallworld")
    for seed in range(40):
        game_id, tokens = client.create(3, {"necromancer": True}, seed=seed)
        status = play_random_over_rpc(client, game_id, tokens, random.Random(seed))
        events = [(k, d) for _, k, d in client.spectator(game_id).events(timeout=30)]
        won = [d for k, d in events if k == "necromancer_victory"]
        if won:
            assert status.outcome["winners"] == [won[0]["seat"]]
            assert status.outcome["ranks"][won[0]["seat"]] == 1
            return
    pytest.fail("no Necromancer ghost victory in 40 random games")


def test_every_race_and_power_is_seen_in_play_over_rpc(server):
    """Small World Done means: every race and every special power picked in API games, on every map."""
    import json

    from tests.conftest import ROOT

    data = json.loads((ROOT / "engines" / "smallworld" / "data" / "races_powers.json").read_text())
    races, powers = {r["key"] for r in data["races"]}, {p["key"] for p in data["powers"]}
    assert len(races) == 14 and len(powers) == 20
    client = Client(server.target, "smallworld")
    seen_races, seen_powers = set(), set()
    for i in range(60):
        seats = 2 + i % 4  # 2..5 players: all four maps
        game_id, tokens = client.create(seats, seed=900 + i)
        play_random_over_rpc(client, game_id, tokens, random.Random(i))
        for _, kind, d in client.spectator(game_id).events(timeout=30):
            if kind == "combo_picked":
                seen_races.add(d["race"])
                seen_powers.add(d["power"])
        if seen_races == races and seen_powers == powers and i >= 3:
            break
    assert seen_races == races, sorted(races - seen_races)
    assert seen_powers == powers, sorted(powers - seen_powers)
