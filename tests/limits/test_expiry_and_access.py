"""Expiry of games nobody plays (issue 19 item 3) and optional API keys for creators (item 5)."""
from __future__ import annotations

import time

import pytest

from clients.sdk import Client, Refused
from tests.web.conftest import WebServer

from .support import create, web_call

GAME = "pompeii"


def test_expiry_abandons_then_evicts_an_idle_game(fresh_server):
    server = fresh_server(GE_IDLE_GAME_TTL_S="1", GE_FINISHED_TTL_S="4").start()
    client = Client(server.target, GAME)
    played, tokens = client.create(2, seed=1)
    seat = client.seat(played, client.status(played).to_move, tokens[client.status(played).to_move])
    seat.move(seat.legal()[0])
    untouched, _ = client.create(2, seed=2)
    deadline = time.time() + 10
    while not client.status(played).over and time.time() < deadline:
        time.sleep(0.2)
    status = client.status(played)
    assert status.over and status.outcome["adjudicated"] and not status.outcome.get("winners")
    assert status.outcome["ranks"] == [1, 1]
    events = [d for _, kind, d in client.spectator(played).events(timeout=5) if kind == "referee"]
    assert events and events[-1]["action"] == "abandoned" and "GE_IDLE_GAME_TTL_S" in events[-1]["reason"]
    with pytest.raises(Refused) as e:  # a game in which nothing was played leaves at once
        deadline = time.time() + 10
        while time.time() < deadline:
            client.status(untouched)
            time.sleep(0.2)
    assert e.value.code.name == "NOT_FOUND"
    with pytest.raises(Refused) as e:  # the played one after GE_FINISHED_TTL_S, like a finished game
        deadline = time.time() + 15
        while time.time() < deadline:
            client.status(played)
            time.sleep(0.3)
    assert e.value.code.name == "NOT_FOUND"


def test_a_lobby_game_is_idle_from_its_start_not_while_it_waits_for_players(fresh_server):
    """A waiting game expires by LOBBY-9 (never abandoned while nobody can move), and a game started
    by its last join has the whole GE_IDLE_GAME_TTL_S for its first move."""
    from clients.sdk import PlayerClient
    server = fresh_server(GE_IDLE_GAME_TTL_S="2", GE_LOBBY_WAITING_TTL_S="60").start()
    client = Client(server.target, GAME)
    ann, bob = (PlayerClient.register(server.target, name) for name in ("ann", "bob"))
    game_id, _ = client.create(2, open_seats=[1], player_token=ann.token)
    time.sleep(3.5)  # past the idle TTL while waiting
    status = client.status(game_id)
    assert not status.over, "abandoned while it waited for players"
    assert game_id in {g.game_id for g in bob.open_games(GAME)}
    bob.join(game_id)
    time.sleep(1)
    assert not client.status(game_id).over, "abandoned at once: its idle time counted from the creation"
    deadline = time.time() + 10
    while not client.status(game_id).over and time.time() < deadline:
        time.sleep(0.2)
    assert client.status(game_id).over, "an idle started game is still abandoned"


def test_create_needs_an_api_key_when_configured(tmp_path):
    keys = tmp_path / "keys"
    keys.write_text("# operators\nfile-key\n")
    server = WebServer(tmp_path / "d", GE_CREATE_TOKENS="k1, k2", GE_CREATE_TOKENS_FILE=str(keys)).start()
    try:
        client = Client(server.target, GAME)
        code, message, _ = create(client)
        assert code == "UNAUTHENTICATED" and "x-api-key" in message
        assert create(client, metadata=(("x-api-key", "wrong"),))[0] == "UNAUTHENTICATED"
        assert create(client, metadata=(("x-api-key", "k2"),))[0] == "OK"
        assert create(client, metadata=(("authorization", "Bearer k1"),))[0] == "OK"
        assert create(client, metadata=(("x-api-key", "file-key"),))[0] == "OK"
        game_id, tokens = Client(server.target, GAME, api_key="k1").create(2, seed=3)
        assert client.spectator(game_id).view()[0].game_id == game_id  # reading needs no key
        assert client.seat(game_id, 0, tokens[0]).legal() is not None
        status, err = web_call(server.web_port, "PompeiiService", "CreatePompeiiGame", {"seats": 2})
        assert status == 401 and err["code"] == "unauthenticated"
        status, _ = web_call(server.web_port, "PompeiiService", "CreatePompeiiGame", {"seats": 2},
                             headers={"x-api-key": "k2"})
        assert status == 200
        assert "k1" not in server.log.read_text() and "file-key" not in server.log.read_text()
    finally:
        server.stop()


def test_registering_players_needs_a_key_and_counts_as_a_create(fresh_server):
    from gameengine.v1 import player_pb2, player_pb2_grpc

    from .support import raw
    server = fresh_server(GE_CREATE_TOKENS="k1", GE_CREATES_PER_MIN="2").start()
    client = Client(server.target, GAME)
    players = player_pb2_grpc.PlayerServiceStub(client.channel)
    register = lambda name, md=(("x-api-key", "k1"),): raw(players.RegisterPlayer,  # noqa: E731
                                                          player_pb2.RegisterPlayerRequest(name=name), md)
    assert register("ann", ())[0] == "UNAUTHENTICATED"
    assert register("ann")[0] == "OK" and register("bob")[0] == "OK"
    code, message, delay = register("cid")
    assert code == "RESOURCE_EXHAUSTED" and "GE_CREATES_PER_MIN" in message and delay > 1


def test_creating_a_tournament_needs_a_key_when_configured(fresh_server):
    """A tournament's games are creates: without the key anyone could have the server create games."""
    from gameengine.v1 import tournament_pb2, tournament_pb2_grpc

    from .support import raw
    server = fresh_server(GE_CREATE_TOKENS="k1").start()
    tournaments = tournament_pb2_grpc.TournamentServiceStub(Client(server.target, GAME).channel)
    request = tournament_pb2.CreateTournamentRequest(
        game=GAME, seats_per_game=2, format=tournament_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN,
        clock=tournament_pb2.TournamentClock(time_bank_ms=60_000))
    code, message, _ = raw(tournaments.CreateTournament, request, ())
    assert code == "UNAUTHENTICATED" and "x-api-key" in message
    assert raw(tournaments.CreateTournament, request, (("x-api-key", "wrong"),))[0] == "UNAUTHENTICATED"
    listed = tournaments.ListTournaments(tournament_pb2.ListTournamentsRequest())
    assert not listed.tournaments  # nothing was made
    assert raw(tournaments.CreateTournament, request, (("x-api-key", "k1"),))[0] == "OK"


def test_a_player_token_is_its_own_client(fresh_server):
    from gameengine.v1 import common_pb2, player_pb2, player_pb2_grpc

    from .support import raw
    server = fresh_server(GE_RATE_LIMIT_PER_S="5").start()
    client = Client(server.target, GAME)
    players = player_pb2_grpc.PlayerServiceStub(client.channel)
    tokens = [players.RegisterPlayer(player_pb2.RegisterPlayerRequest(name=n)).player_token for n in ("ann", "bob")]
    game_id, _ = client.create(2, seed=1)
    status = common_pb2.GetGameStatusRequest(game_id=game_id)
    as_ann = (("x-player-token", tokens[0]),)
    codes = []
    while "RESOURCE_EXHAUSTED" not in codes and len(codes) < 30:
        codes.append(raw(client.common.GetGameStatus, status, as_ann)[0])
    assert codes[-1] == "RESOURCE_EXHAUSTED"
    assert raw(client.common.GetGameStatus, status, (("x-player-token", tokens[1]),))[0] == "OK"
    assert "RESOURCE_EXHAUSTED" in {raw(client.common.GetGameStatus, status, (("x-player-token", "forged"),))[0]
                                    for _ in range(14)}, "an unknown token is no identity: the address's quota"
