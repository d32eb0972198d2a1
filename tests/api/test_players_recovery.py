"""The participation layer is journaled like moves: kill -9 loses nothing acknowledged, and the
player stream resumes from a cursor across a restart with nothing lost or repeated. Also its
configurable limits and the expiry of waiting games (issue 17)."""
from __future__ import annotations

import random
import time

import grpc
import pytest

from gameengine.v1 import (
    common_pb2,
    common_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    player_pb2,
    player_pb2_grpc,
    pompeii_pb2,
    pompeii_pb2_grpc,
)

from .test_api_players import name, play_out, refused


def stubs_of(server):
    ch = grpc.insecure_channel(server.target)
    return (player_pb2_grpc.PlayerServiceStub(ch), lobby_pb2_grpc.LobbyServiceStub(ch),
            pompeii_pb2_grpc.PompeiiServiceStub(ch), common_pb2_grpc.GameServiceStub(ch)), ch


def register(stubs):
    return stubs[0].RegisterPlayer(player_pb2.RegisterPlayerRequest(name=name()))


def read_until_over(stubs, token, cursor):
    got = []
    for msg in stubs[0].StreamPlayerEvents(player_pb2.StreamPlayerEventsRequest(player_token=token, cursor=cursor),
                                           timeout=20):
        got.append(msg)
        if msg.WhichOneof("event") == "game_over":
            return got
    return got


def read_n(stubs, token, cursor, n):
    got = []
    stream = stubs[0].StreamPlayerEvents(player_pb2.StreamPlayerEventsRequest(player_token=token, cursor=cursor),
                                         timeout=20)
    for msg in stream:
        got.append(msg)
        if len(got) == n:
            stream.cancel()
            return got
    return got


@pytest.mark.parametrize("snapshot_between", [False, True])
def test_player_stream_resumes_from_a_cursor_across_kill_9(fresh_server, snapshot_between):
    server = fresh_server(GE_SNAPSHOT_INTERVAL_S="1").start()
    stubs, ch = stubs_of(server)
    alice, bob = register(stubs), register(stubs)
    game = stubs[2].CreatePompeiiGame(pompeii_pb2.CreatePompeiiGameRequest(seats=2, open_seats=[1],
                                                                           player_token=alice.player_token))
    joined = stubs[1].JoinGame(lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=bob.player_token))
    tokens = [game.seat_tokens[0].token, joined.seat_token]
    play_out(stubs, game.game_id, tokens, random.Random(4), limit=30)
    before = read_n(stubs, bob.player_token, 0, 4)
    if snapshot_between:
        time.sleep(1.5)
    ch.close()
    server.kill9()
    server.start()
    stubs, ch = stubs_of(server)
    resumed = read_n(stubs, bob.player_token, before[1].cursor, 2)
    assert [m.SerializeToString() for m in resumed] == [m.SerializeToString() for m in before[2:4]]
    # the seat tokens, the player token and the seating survived; the game goes on to the end
    assert stubs[0].GetPlayer(player_pb2.GetPlayerRequest(player_token=bob.player_token)).player == bob.player
    play_out(stubs, game.game_id, tokens, random.Random(5))
    rest = read_until_over(stubs, bob.player_token, before[-1].cursor)
    cursors = [m.cursor for m in before + rest]
    assert cursors == list(range(1, len(cursors) + 1))  # nothing lost, nothing repeated
    assert rest[-1].WhichOneof("event") == "game_over"
    ch.close()


def test_a_join_acknowledged_just_before_kill_9_survives(fresh_server):
    server = fresh_server(GE_FSYNC="never").start()
    stubs, ch = stubs_of(server)
    alice, bob, carol = register(stubs), register(stubs), register(stubs)
    game = stubs[2].CreatePompeiiGame(pompeii_pb2.CreatePompeiiGameRequest(seats=3, open_seats=[1, 2],
                                                                           player_token=alice.player_token))
    joined = stubs[1].JoinGame(lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=bob.player_token))
    server.kill9()
    server.start()
    stubs, ch = stubs_of(server)
    status = stubs[3].GetGameStatus(common_pb2.GetGameStatusRequest(game_id=game.game_id,
                                                                    token=joined.seat_token)).status
    assert status.caller_seat == joined.seat and status.waiting
    assert [h.state for h in status.seat_holders] == ["player", "player", "open"]
    refused(stubs[1].JoinGame, lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=carol.player_token,
                                                         seat=joined.seat),
            grpc.StatusCode.FAILED_PRECONDITION, "LOBBY-3")
    last = stubs[1].JoinGame(lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=carol.player_token))
    assert not last.status.waiting
    server.kill9()
    server.start()
    stubs, ch = stubs_of(server)
    status = stubs[3].GetGameStatus(common_pb2.GetGameStatusRequest(game_id=game.game_id)).status
    assert not status.waiting and status.to_move == 0
    ch.close()


def test_LOBBY_7_and_LOBBY_8_per_player_limits(fresh_server):
    server = fresh_server(GE_LOBBY_MAX_WAITING_CREATED="2", GE_LOBBY_MAX_OPEN_JOINS="1").start()
    stubs, ch = stubs_of(server)
    alice, bob = register(stubs), register(stubs)
    req = pompeii_pb2.CreatePompeiiGameRequest(seats=2, open_seats=[1], player_token=alice.player_token)
    games = [stubs[2].CreatePompeiiGame(req).game_id for _ in range(2)]
    e = refused(stubs[2].CreatePompeiiGame, req, grpc.StatusCode.RESOURCE_EXHAUSTED, "LOBBY-7")
    assert e.details()
    listed = {g.game_id for g in stubs[1].ListOpenGames(lobby_pb2.ListOpenGamesRequest(page_size=100)).games}
    assert listed == set(games)  # the refused create made nothing
    stubs[2].CreatePompeiiGame(pompeii_pb2.CreatePompeiiGameRequest(seats=2))  # kept seats: no limit
    carol = register(stubs)
    three = stubs[2].CreatePompeiiGame(pompeii_pb2.CreatePompeiiGameRequest(seats=3, open_seats=[1, 2],
                                                                            player_token=carol.player_token))
    stubs[1].JoinGame(lobby_pb2.JoinGameRequest(game_id=three.game_id, player_token=bob.player_token))
    refused(stubs[1].JoinGame, lobby_pb2.JoinGameRequest(game_id=games[0], player_token=bob.player_token),
            grpc.StatusCode.RESOURCE_EXHAUSTED, "LOBBY-8")
    assert games[0] in {g.game_id for g in stubs[1].ListOpenGames(lobby_pb2.ListOpenGamesRequest()).games}
    ch.close()


def test_LOBBY_9_waiting_games_nobody_joins_expire(fresh_server):
    server = fresh_server(GE_LOBBY_WAITING_TTL_S="1").start()
    stubs, ch = stubs_of(server)
    alice, bob = register(stubs), register(stubs)
    game = stubs[2].CreatePompeiiGame(pompeii_pb2.CreatePompeiiGameRequest(seats=3, open_seats=[1, 2],
                                                                           player_token=alice.player_token))
    stubs[1].JoinGame(lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=bob.player_token))
    deadline = time.time() + 10
    while time.time() < deadline:
        listed = {g.game_id for g in stubs[1].ListOpenGames(lobby_pb2.ListOpenGamesRequest()).games}
        if game.game_id not in listed:
            break
        time.sleep(0.2)
    assert game.game_id not in listed
    refused(stubs[3].GetGameStatus, common_pb2.GetGameStatusRequest(game_id=game.game_id), grpc.StatusCode.NOT_FOUND)
    events = read_until_over(stubs, bob.player_token, 0)
    assert [m.WhichOneof("event") for m in events] == ["seat_assigned", "game_over"]
    assert not events[-1].game_over.outcome.ranks  # it never started: no result
    # expired stays expired after a restart (journaled), and the creator may create again
    server.kill9()
    server.start()
    stubs, ch = stubs_of(server)
    refused(stubs[3].GetGameStatus, common_pb2.GetGameStatusRequest(game_id=game.game_id), grpc.StatusCode.NOT_FOUND)
    assert not stubs[0].GetPlayer(player_pb2.GetPlayerRequest(player_token=bob.player_token)).seats
    ch.close()
