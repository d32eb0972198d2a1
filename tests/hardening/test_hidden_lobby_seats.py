"""Hidden information in lobby games, over the network: a seat that can still be left shows no hand
(LOBBY-1), and a game others join is never dealt from a seed its creator chose (LOBBY-11). Before, a
player could join an open seat, read its hand, leave, and know the hand of whoever took it next."""
from __future__ import annotations

import itertools

import grpc
import pytest

from clients.sdk import Client, PlayerClient, Refused
from gameengine.v1 import common_pb2

_names = itertools.count()


def players(target: str, n: int) -> list[PlayerClient]:
    return [PlayerClient.register(target, f"hid{next(_names)}") for _ in range(n)]


def view_bytes(client: Client, game_id: str, token: str) -> bytes:
    response = client.rpcs["get_view"](client.request("get_view", game_id=game_id, token=token))
    return bytes(response.view.SerializeToString(deterministic=True))


@pytest.mark.parametrize("game,dealt", [("pompeii", True), ("eruption", True), ("citadels", True),
                                        ("smallworld", False)])
def test_a_seat_of_a_waiting_game_sees_what_a_spectator_sees(server, game, dealt):
    alice, bob, carol = players(server.target, 3)
    client = Client(server.target, game)
    game_id, tokens = client.create(3, open_seats=[1, 2], player_token=alice.token)
    peek = bob.join(game_id, seat=2)
    spectator = view_bytes(client, game_id, "")
    for token in (tokens[0], peek.seat_token):  # the creator's seat too: it may leave it as well
        assert view_bytes(client, game_id, token) == spectator, "a waiting seat showed more than a spectator sees"
    bob.leave(game_id, seat=2)
    later = carol.join(game_id, seat=2)
    states = client.seat(game_id, 2, later.seat_token).states(timeout=20)
    _, waiting_view, _ = next(states)
    started = bob.join(game_id, seat=1)
    assert not started.status.waiting
    _, started_view, _ = next(states)  # the seat's state stream, open since it waited, sends the start
    if dealt:  # once every seat is taken, each seat sees its own hand
        assert view_bytes(client, game_id, later.seat_token) != view_bytes(client, game_id, "")
        assert started_view != waiting_view


def test_a_chosen_seed_is_refused_for_a_game_others_join(server):
    alice, bob = players(server.target, 2)
    client = Client(server.target, "pompeii")
    for lobby in ({"open_seats": [1]}, {"reserved": {1: bob.player_id}}):
        with pytest.raises(Refused) as e:
            client.create(2, seed=5, player_token=alice.token, **lobby)  # type: ignore[arg-type]
        assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT and e.value.rule == "LOBBY-11"
    assert client.create(2, seed=5)[0]  # a game whose creator holds every seat may be seeded
    game_id, _ = client.create(2, open_seats=[1], player_token=alice.token)
    status = client.common.GetGameStatus(common_pb2.GetGameStatusRequest(game_id=game_id)).status
    assert status.waiting
