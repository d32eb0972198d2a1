"""Nothing acknowledged is lost on kill -9: restart = snapshot + journal replay."""
from __future__ import annotations

import random
import time

import pytest
from google.protobuf import json_format

from clients.sdk import Client
from engines import registry

from .test_api_games import play_random_over_rpc

GAMES = list(registry.GAME_IDS)


def step(client, seats, rng, moves):
    status = seats[0].status()
    for _ in range(moves):
        if status.over:
            break
        actor = next(s for s in status.seats_to_act if status.acts(s))
        seats[actor].move(rng.choice(seats[actor].legal()), expected_version=status.version)
        status = seats[actor].last
    return status


def views(client, game_id, tokens):
    return [json_format.MessageToDict(client.rpcs["get_view"](client.request("get_view", game_id=game_id,
                                                                         token=t)))
            for t in [""] + tokens]


@pytest.mark.parametrize("game", GAMES)
def test_kill_9_mid_game_then_finish(fresh_server, game):
    server = fresh_server(GE_SNAPSHOT_INTERVAL_S="1").start()
    client = Client(server.target, game)
    rng = random.Random(3)
    games = [client.create(registry.typical_seats(game), seed=s) for s in (1, 2)]
    for game_id, tokens in games:
        step(client, [client.seat(game_id, s, t) for s, t in enumerate(tokens)], rng, 15)
    time.sleep(1.5)  # a snapshot happens; later moves live only in the journal
    acknowledged = {}
    for game_id, tokens in games:
        status = step(client, [client.seat(game_id, s, t) for s, t in enumerate(tokens)], rng, 10)
        acknowledged[game_id] = (status.version, views(client, game_id, tokens))
    client.close()
    server.kill9()

    server.start()
    client = Client(server.target, game)
    for game_id, tokens in games:
        version, before = acknowledged[game_id]
        assert client.status(game_id).version == version
        assert views(client, game_id, tokens) == before
        final = play_random_over_rpc(client, game_id, tokens, rng)
        assert final.over
    client.close()


def test_graceful_stop_snapshots_and_restart_restores(fresh_server):
    game = GAMES[0]
    server = fresh_server(GE_SNAPSHOT_INTERVAL_S="3600").start()
    client = Client(server.target, game)
    game_id, tokens = client.create(2, seed=9)
    status = step(client, [client.seat(game_id, s, t) for s, t in enumerate(tokens)], random.Random(1), 12)
    before = views(client, game_id, tokens)
    client.close()
    server.stop()
    assert list(server.data_dir.glob("snapshot-*.ges"))
    server.start()
    client = Client(server.target, game)
    assert client.status(game_id).version == status.version
    assert views(client, game_id, tokens) == before
    client.close()
