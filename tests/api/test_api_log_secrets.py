"""Secrets after the end (issue 24 item 8, CIT-10/CIT-11, POM-90, ERU-33): GetXLog keeps private moves
withheld and the seed (which reproduces every secret) at 0 after the end, unless the game option
reveal_log_after_end shows them to the seats; spectators never get them."""
from __future__ import annotations

import random

import pytest

from clients.sdk import Client
from engines import registry

from .test_api_games import play_random_over_rpc


@pytest.mark.parametrize("game", list(registry.GAME_IDS))
def test_CIT_11_log_keeps_secrets_after_the_end(server, game):
    client = Client(server.target, game)
    n = registry.spec(game).min_seats
    private = bool(registry.spec(game).private_moves)  # Citadels: face-down discards, picks, kept cards
    try:
        game_id, tokens = client.create(n, seed=20018)
        assert play_random_over_rpc(client, game_id, tokens, random.Random(3)).over
        spectator = client.spectator(game_id).log()
        seat0 = client.seat(game_id, 0, tokens[0]).log()
        assert spectator.seed == 0 and seat0.seed == 0
        if private:  # private moves (GameSpec.private_moves) stay withheld
            withheld = [e for e in spectator.entries if e.withheld]
            assert withheld and all(not e.HasField("move") for e in withheld)
            assert any(e.withheld and e.seat == 1 for e in seat0.entries)
            assert not any(e.withheld and e.seat == 0 for e in seat0.entries)  # one's own moves are shown
        else:
            assert not any(e.withheld for e in spectator.entries)  # every move of these games is public
        # the game option reveals the full log to the seats after the end, never to spectators
        game_id, tokens = client.create(n, options={"reveal_log_after_end": True}, seed=20018)
        assert play_random_over_rpc(client, game_id, tokens, random.Random(3)).over
        seat1 = client.seat(game_id, 1, tokens[1]).log()
        assert seat1.seed == 20018 and not any(e.withheld for e in seat1.entries)
        spectator = client.spectator(game_id).log()
        assert spectator.seed == 0
        assert any(e.withheld for e in spectator.entries) == private
    finally:
        client.close()
