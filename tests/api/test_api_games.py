"""Complete games through RPC against a real server process on loopback, per game and seat count."""
from __future__ import annotations

import random

import pytest

from clients.sdk import Client
from engines import registry
from engines.core import replay
from gameengine import codecs

CASES = [(g, n) for g in registry.GAME_IDS for n in registry.tested_seats(g)]


def play_random_over_rpc(client: Client, game_id: str, tokens: list[str], rng: random.Random, cap: int = 5000):
    seats = [client.seat(game_id, s, t) for s, t in enumerate(tokens)]
    status = seats[0].status()
    for _ in range(cap):
        if status.over:
            return status
        actor = next(s for s in status.seats_to_act if status.acts(s))
        legal = seats[actor].legal()
        assert legal, f"seat {actor} is to act but has no legal move"
        seats[actor].move(rng.choice(legal), expected_version=status.version)
        status = seats[actor].last
    raise AssertionError("game did not end")


@pytest.mark.parametrize("game,n", CASES)
def test_full_game_over_rpc_and_replay(server, game, n):
    client = Client(server.target, game)
    # reveal_log_after_end: the seats' logs show every move and the seed after the end (CIT-11, POM-90)
    game_id, tokens = client.create(n, options={"reveal_log_after_end": True}, seed=1000 + n)
    assert len(tokens) == n and len(set(tokens)) == n
    status = play_random_over_rpc(client, game_id, tokens, random.Random(n))
    assert status.over
    assert len(status.outcome["ranks"]) == n
    assert status.outcome["winners"], "somebody wins or shares the win"
    # The log plus the seed (revealed at the end) replays to the same result.
    log = client.seat(game_id, 0, tokens[0]).log()
    assert len(log.entries) == status.version and log.seed == 1000 + n
    assert not any(e.withheld for e in log.entries)
    engine = registry.game(game)
    codec = codecs.codec(game)
    state = replay(engine, n, codec.options_from_proto(log.options), log.seed,
                   [(e.seat, codec.move_from_proto(e.move)) for e in log.entries])
    assert engine.is_over(state)
    assert list(engine.outcome(state).ranks) == status.outcome["ranks"]
    client.close()


@pytest.mark.parametrize("game", list(registry.GAME_IDS))
def test_event_stream_ends_with_the_game_and_hides_private_events(server, game):
    client = Client(server.target, game)
    n = registry.tested_seats(game)[0]
    game_id, tokens = client.create(n, seed=7)
    play_random_over_rpc(client, game_id, tokens, random.Random(7))
    spectator = list(client.spectator(game_id).events(timeout=30))
    seat0 = list(client.seat(game_id, 0, tokens[0]).events(timeout=30))
    assert spectator, "a finished game has public events"
    assert len(seat0) >= len(spectator)
    versions = [v for v, _, _ in seat0]
    assert versions == sorted(versions)
    # Every event a spectator sees, seat 0 sees too, in the same order.
    public = [(v, k) for v, k, _ in spectator]
    it = iter((v, k) for v, k, _ in seat0)
    assert all(any(x == p for x in it) for p in public)
    client.close()
