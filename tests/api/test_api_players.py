"""Players, open seats, the lobby and the player stream, against a real server (issue 17).

Every refusal: its status code, its rule id, and nothing changed.
"""
from __future__ import annotations

import random
import threading
import time

import grpc
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from clients.sdk import Client
from engines import registry
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

NAMES = iter(f"p{i}" for i in range(10_000))


def name() -> str:
    return f"{next(NAMES)}_{random.randrange(10**6)}"


@pytest.fixture
def stubs(server):
    ch = grpc.insecure_channel(server.target)
    yield (player_pb2_grpc.PlayerServiceStub(ch), lobby_pb2_grpc.LobbyServiceStub(ch),
           pompeii_pb2_grpc.PompeiiServiceStub(ch), common_pb2_grpc.GameServiceStub(ch))
    ch.close()


def register(stubs, who: str | None = None):
    return stubs[0].RegisterPlayer(player_pb2.RegisterPlayerRequest(name=who or name()))


def create(stubs, seats=3, **fields):
    """A game; seeded unless others may join it (LOBBY-11)."""
    seeded = {} if fields.get("open_seats") or fields.get("reserved_seats") else {"seed": 7}
    return stubs[2].CreatePompeiiGame(pompeii_pb2.CreatePompeiiGameRequest(seats=seats, **seeded, **fields))


def refused(fn, request, code: grpc.StatusCode, rule: str | None = None):
    with pytest.raises(grpc.RpcError) as e:
        fn(request, timeout=10)
    assert e.value.code() == code, (e.value.code(), e.value.details())
    if rule is not None:
        status = rpc_status.from_call(e.value)
        infos = [d for d in status.details if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)]
        info = error_details_pb2.ErrorInfo()
        infos[0].Unpack(info)
        assert info.metadata["rule"] == rule, (info.metadata["rule"], e.value.details())
        assert e.value.details().startswith(rule + ": ") and len(e.value.details()) > len(rule) + 10
    return e.value


def open_ids(stubs, game="pompeii") -> set[str]:
    ids, token = set(), ""
    while True:
        resp = stubs[1].ListOpenGames(lobby_pb2.ListOpenGamesRequest(game=game, page_size=100, page_token=token))
        ids |= {g.game_id for g in resp.games}
        token = resp.next_page_token
        if not token:
            return ids


def status_of(stubs, game_id):
    return json_format.MessageToDict(stubs[3].GetGameStatus(common_pb2.GetGameStatusRequest(game_id=game_id)))


def events_until(stubs, token, cursor, count, timeout=10):
    got = []
    stream = stubs[0].StreamPlayerEvents(player_pb2.StreamPlayerEventsRequest(player_token=token, cursor=cursor),
                                         timeout=timeout)
    for msg in stream:
        got.append(msg)
        if len(got) == count:
            stream.cancel()
            break
    return got


# ---- (a) players -------------------------------------------------------------
def test_register_and_get_player_token_shown_once(stubs):
    who = name()
    reg = register(stubs, who)
    assert reg.player.name == who and reg.player.player_id.startswith("p-") and len(reg.player_token) >= 24
    for req in (player_pb2.GetPlayerRequest(player_id=reg.player.player_id), player_pb2.GetPlayerRequest(name=who),
                player_pb2.GetPlayerRequest(player_token=reg.player_token)):
        got = stubs[0].GetPlayer(req)
        assert got.player == reg.player
        assert reg.player_token not in str(got)


def test_PLAYER_5_get_player_names_exactly_one_existing_player(stubs):
    refused(stubs[0].GetPlayer, player_pb2.GetPlayerRequest(), grpc.StatusCode.INVALID_ARGUMENT, "PLAYER-5")
    refused(stubs[0].GetPlayer, player_pb2.GetPlayerRequest(player_id="p-0000000000000000"), grpc.StatusCode.NOT_FOUND,
            "PLAYER-5")


@pytest.mark.parametrize("bad", ["", "x" * 33, "has space", "émile", "a/b", "tab\t"])
def test_PLAYER_1_bad_names_are_invalid_argument_and_register_nothing(stubs, bad):
    refused(stubs[0].RegisterPlayer, player_pb2.RegisterPlayerRequest(name=bad), grpc.StatusCode.INVALID_ARGUMENT,
            "PLAYER-1")
    if bad:
        refused(stubs[0].GetPlayer, player_pb2.GetPlayerRequest(name=bad[:32]), grpc.StatusCode.NOT_FOUND, "PLAYER-5")


def test_PLAYER_1_names_of_1_and_32_characters_from_the_set(stubs):
    for n in ("q" + str(random.randrange(10**6)) + "_.-", "Z" * 24 + str(random.randrange(10**7, 10**8))):
        assert register(stubs, n).player.name == n


def test_PLAYER_2_a_taken_name_is_already_exists(stubs):
    who = name()
    first = register(stubs, who)
    refused(stubs[0].RegisterPlayer, player_pb2.RegisterPlayerRequest(name=who), grpc.StatusCode.ALREADY_EXISTS,
            "PLAYER-2")
    assert stubs[0].GetPlayer(player_pb2.GetPlayerRequest(name=who)).player == first.player


def test_PLAYER_3_unknown_player_token_is_unauthenticated_everywhere(stubs):
    game = create(stubs, open_seats=[1, 2], player_token=register(stubs).player_token)
    for bad in ("", "not-a-token"):
        refused(stubs[1].JoinGame, lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=bad),
                grpc.StatusCode.UNAUTHENTICATED, "PLAYER-3")
        refused(stubs[1].LeaveGame, lobby_pb2.LeaveGameRequest(game_id=game.game_id, player_token=bad),
                grpc.StatusCode.UNAUTHENTICATED, "PLAYER-3")
        refused(stubs[2].CreatePompeiiGame, pompeii_pb2.CreatePompeiiGameRequest(seats=3, open_seats=[1],
                                                                                  player_token=bad),
                grpc.StatusCode.UNAUTHENTICATED, "PLAYER-3")
        with pytest.raises(grpc.RpcError) as e:
            list(stubs[0].StreamPlayerEvents(player_pb2.StreamPlayerEventsRequest(player_token=bad), timeout=5))
        assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert status_of(stubs, game.game_id)["status"]["waiting"] is True


def test_LOBBY_0_over_long_names_ids_codes_are_invalid_argument(stubs):
    me = register(stubs)
    refused(stubs[0].RegisterPlayer, player_pb2.RegisterPlayerRequest(name="n" * 10_000),
            grpc.StatusCode.INVALID_ARGUMENT, "PLAYER-1")
    refused(stubs[1].JoinGame, lobby_pb2.JoinGameRequest(game_id="g" * 129, player_token=me.player_token),
            grpc.StatusCode.INVALID_ARGUMENT, "LOBBY-0")
    with pytest.raises(grpc.RpcError) as e:  # one bound for game ids everywhere (server/limits.py): 100 fits
        stubs[1].JoinGame(lobby_pb2.JoinGameRequest(game_id="g" * 100, player_token=me.player_token))
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    refused(stubs[1].JoinGame, lobby_pb2.JoinGameRequest(game_id="g", player_token="t" * 129),
            grpc.StatusCode.INVALID_ARGUMENT, "LOBBY-0")
    refused(stubs[1].JoinGame, lobby_pb2.JoinGameRequest(game_id="g", player_token=me.player_token,
                                                         invite_code="c" * 65),
            grpc.StatusCode.INVALID_ARGUMENT, "LOBBY-0")
    refused(stubs[1].ListOpenGames, lobby_pb2.ListOpenGamesRequest(page_token="x" * 129),
            grpc.StatusCode.INVALID_ARGUMENT, "LOBBY-0")
    refused(stubs[1].ListOpenGames, lobby_pb2.ListOpenGamesRequest(page_token="!!notissued"),
            grpc.StatusCode.INVALID_ARGUMENT, "LOBBY-0")
    refused(stubs[1].ListOpenGames, lobby_pb2.ListOpenGamesRequest(page_size=101),
            grpc.StatusCode.INVALID_ARGUMENT, "LOBBY-0")
    refused(stubs[1].ListOpenGames, lobby_pb2.ListOpenGamesRequest(game="chess"),  # not an empty list
            grpc.StatusCode.INVALID_ARGUMENT, "LOBBY-0")
    refused(stubs[0].GetPlayer, player_pb2.GetPlayerRequest(player_id="p" * 200), grpc.StatusCode.INVALID_ARGUMENT,
            "LOBBY-0")


# ---- (b) open seats and the lobby ------------------------------------------------
def test_creating_with_every_seat_kept_works_exactly_as_today(stubs):
    game = create(stubs)
    assert [t.seat for t in game.seat_tokens] == [0, 1, 2] and not game.invite_code
    st = game.status
    assert not st.waiting and not st.seat_holders and st.seats_to_act and st.to_move == 0
    assert game.game_id not in open_ids(stubs)


def test_LOBBY_1_a_move_in_a_waiting_game_is_refused_and_changes_nothing(stubs):
    alice = register(stubs)
    game = create(stubs, open_seats=[1, 2], player_token=alice.player_token)
    assert [t.seat for t in game.seat_tokens] == [0]
    st = game.status
    assert st.waiting and list(st.seats_to_act) == [] and st.to_move == -1
    assert [(h.seat, h.state, h.player_name) for h in st.seat_holders] == [
        (0, "player", stubs[0].GetPlayer(player_pb2.GetPlayerRequest(player_token=alice.player_token)).player.name),
        (1, "open", ""), (2, "open", "")]
    token = game.seat_tokens[0].token
    moves = stubs[2].ListPompeiiMoves(pompeii_pb2.ListPompeiiMovesRequest(game_id=game.game_id, token=token))
    assert list(moves.moves) == []
    before = status_of(stubs, game.game_id)
    move = pompeii_pb2.PompeiiMove(play_card=pompeii_pb2.PompeiiPlayCard(number=1))
    refused(stubs[2].MakePompeiiMove, pompeii_pb2.MakePompeiiMoveRequest(
        game_id=game.game_id, token=token, expected_version=0, move=move), grpc.StatusCode.FAILED_PRECONDITION,
        "LOBBY-1")
    assert status_of(stubs, game.game_id) == before


@pytest.mark.parametrize("fields", [
    {"open_seats": [3]}, {"open_seats": [-1]}, {"open_seats": [1, 1]},
    {"open_seats": [1], "reserved_seats": [common_pb2.SeatReservation(seat=1, player_id="p-x")]},
    {"reserved_seats": [common_pb2.SeatReservation(seat=2, player_id="p-unknown")]},
    {"private": True}])
def test_LOBBY_2_bad_seat_plans_are_invalid_argument_and_create_nothing(stubs, fields):
    me = register(stubs)
    before = open_ids(stubs)
    refused(stubs[2].CreatePompeiiGame, pompeii_pb2.CreatePompeiiGameRequest(
        seats=3, player_token=me.player_token, **fields), grpc.StatusCode.INVALID_ARGUMENT, "LOBBY-2")
    assert open_ids(stubs) == before
    assert not stubs[0].GetPlayer(player_pb2.GetPlayerRequest(player_token=me.player_token)).seats


def test_join_fills_seats_then_the_game_starts_with_a_public_game_started_event(stubs):
    alice, bob, carol = register(stubs), register(stubs), register(stubs)
    game = create(stubs, open_seats=[1, 2], player_token=alice.player_token)
    assert game.game_id in open_ids(stubs)
    j1 = stubs[1].JoinGame(lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=bob.player_token, seat=2))
    assert j1.seat == 2 and j1.seat_token and j1.status.waiting and j1.status.caller_seat == 2
    j2 = stubs[1].JoinGame(lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=carol.player_token))
    assert j2.seat == 1 and not j2.status.waiting and j2.status.to_move == 0
    assert game.game_id not in open_ids(stubs)
    first = next(stubs[2].StreamPompeiiEvents(pompeii_pb2.StreamPompeiiEventsRequest(game_id=game.game_id),
                                              timeout=5))
    assert first.event.WhichOneof("event") == "game_started" and first.version == 0
    started = first.event.game_started
    assert [h.state for h in started.seat_holders] == ["player"] * 3
    # the joined seats' tokens work; the game accepts moves now
    moves = stubs[2].ListPompeiiMoves(pompeii_pb2.ListPompeiiMovesRequest(game_id=game.game_id,
                                                                          token=game.seat_tokens[0].token))
    reply = stubs[2].MakePompeiiMove(pompeii_pb2.MakePompeiiMoveRequest(
        game_id=game.game_id, token=game.seat_tokens[0].token, expected_version=0, idempotency_key="k",
        move=moves.moves[0]))
    assert reply.status.version == 1
    seats = stubs[0].GetPlayer(player_pb2.GetPlayerRequest(player_token=bob.player_token)).seats
    assert [(s.game_id, s.seat, s.waiting) for s in seats] == [(game.game_id, 2, False)]


def test_LOBBY_3_4_5_taken_full_started_are_failed_precondition_and_change_nothing(stubs):
    alice, bob, carol, dave = (register(stubs) for _ in range(4))
    game = create(stubs, open_seats=[1, 2], player_token=alice.player_token)
    stubs[1].JoinGame(lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=bob.player_token, seat=1))
    before = status_of(stubs, game.game_id)
    refused(stubs[1].JoinGame, lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=carol.player_token,
                                                         seat=1), grpc.StatusCode.FAILED_PRECONDITION, "LOBBY-3")
    refused(stubs[1].JoinGame, lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=carol.player_token,
                                                         seat=0), grpc.StatusCode.FAILED_PRECONDITION, "LOBBY-3")
    assert status_of(stubs, game.game_id) == before
    stubs[1].JoinGame(lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=carol.player_token))
    started = status_of(stubs, game.game_id)
    refused(stubs[1].JoinGame, lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=dave.player_token),
            grpc.StatusCode.FAILED_PRECONDITION, "LOBBY-5")
    refused(stubs[1].LeaveGame, lobby_pb2.LeaveGameRequest(game_id=game.game_id, player_token=bob.player_token),
            grpc.StatusCode.FAILED_PRECONDITION, "LOBBY-5")
    assert status_of(stubs, game.game_id) == started
    kept = create(stubs)  # every seat kept: nothing to join
    refused(stubs[1].JoinGame, lobby_pb2.JoinGameRequest(game_id=kept.game_id, player_token=dave.player_token),
            grpc.StatusCode.FAILED_PRECONDITION, "LOBBY-4")
    refused(stubs[1].JoinGame, lobby_pb2.JoinGameRequest(game_id="nosuchgame", player_token=dave.player_token),
            grpc.StatusCode.NOT_FOUND)


def test_leave_frees_the_seat_before_the_start_and_LOBBY_10_for_a_seat_one_does_not_hold(stubs):
    alice, bob, carol = register(stubs), register(stubs), register(stubs)
    game = create(stubs, open_seats=[1, 2], player_token=alice.player_token)
    j = stubs[1].JoinGame(lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=bob.player_token))
    refused(stubs[1].LeaveGame, lobby_pb2.LeaveGameRequest(game_id=game.game_id, player_token=carol.player_token),
            grpc.StatusCode.FAILED_PRECONDITION, "LOBBY-10")
    refused(stubs[1].LeaveGame, lobby_pb2.LeaveGameRequest(game_id=game.game_id, player_token=bob.player_token,
                                                           seat=2), grpc.StatusCode.FAILED_PRECONDITION, "LOBBY-10")
    left = stubs[1].LeaveGame(lobby_pb2.LeaveGameRequest(game_id=game.game_id, player_token=bob.player_token))
    assert [h.state for h in left.status.seat_holders] == ["player", "open", "open"]
    # the left seat's token is void
    with pytest.raises(grpc.RpcError) as e:
        stubs[2].GetPompeiiView(pompeii_pb2.GetPompeiiViewRequest(game_id=game.game_id, token=j.seat_token))
    assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED


def test_LOBBY_6_private_games_need_the_invite_code_and_are_never_listed(stubs):
    alice, bob = register(stubs), register(stubs)
    game = create(stubs, open_seats=[1, 2], private=True, player_token=alice.player_token)
    assert game.invite_code
    assert game.game_id not in open_ids(stubs) and game.game_id not in open_ids(stubs, game="")
    for code in ("", "wrong-code"):
        refused(stubs[1].JoinGame, lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=bob.player_token,
                                                             invite_code=code),
                grpc.StatusCode.PERMISSION_DENIED, "LOBBY-6")
    assert [h.state for h in status_of_msg(stubs, game.game_id).seat_holders] == ["player", "open", "open"]
    j = stubs[1].JoinGame(lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=bob.player_token,
                                                    invite_code=game.invite_code))
    assert j.seat == 1
    assert game.game_id not in open_ids(stubs, game="")


def status_of_msg(stubs, game_id):
    return stubs[3].GetGameStatus(common_pb2.GetGameStatusRequest(game_id=game_id)).status


def test_list_open_games_is_paged_oldest_first_and_filters_by_game(stubs, server):
    me = register(stubs)
    made = [create(stubs, open_seats=[2], player_token=me.player_token).game_id for _ in range(3)]
    seen, token, pages = [], "", 0
    while True:
        resp = stubs[1].ListOpenGames(lobby_pb2.ListOpenGamesRequest(game="pompeii", page_size=2, page_token=token))
        assert len(resp.games) <= 2
        seen += [g.game_id for g in resp.games]
        pages += 1
        token = resp.next_page_token
        if not token:
            break
    assert len(seen) == len(set(seen)) and [g for g in seen if g in made] == made and pages >= 2
    listed = {g.game_id: g for g in stubs[1].ListOpenGames(lobby_pb2.ListOpenGamesRequest(page_size=100)).games}
    assert list(listed[made[0]].open_seats) == [2] and listed[made[0]].expires_at > time.time()
    eru = Client(server.target, "eruption")
    assert not set(made) & {g.game_id for g in stubs[1].ListOpenGames(lobby_pb2.ListOpenGamesRequest(
        game="eruption", page_size=100)).games}
    eru.close()


def test_a_reserved_seat_token_goes_out_once_on_the_players_stream(stubs):
    alice, bob = register(stubs), register(stubs)
    game = create(stubs, reserved_seats=[common_pb2.SeatReservation(seat=1, player_id=bob.player.player_id)],
                  open_seats=[2], player_token=alice.player_token)
    assert [t.seat for t in game.seat_tokens] == [0]
    first = events_until(stubs, bob.player_token, 0, 1)[0]
    token = first.seat_assigned.seat_token
    assert first.seat_assigned.game_id == game.game_id and first.seat_assigned.seat == 1 and token
    view = stubs[2].GetPompeiiView(pompeii_pb2.GetPompeiiViewRequest(game_id=game.game_id, token=token))
    assert view.status.caller_seat == 1
    again = events_until(stubs, bob.player_token, 0, 1)[0]
    assert again.cursor == first.cursor and again.seat_assigned.seat == 1 and not again.seat_assigned.seat_token
    # JoinGame on one's own seat: a fresh token, the old one void
    fresh = stubs[1].JoinGame(lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=bob.player_token))
    assert fresh.seat == 1 and fresh.seat_token != token
    with pytest.raises(grpc.RpcError):
        stubs[2].GetPompeiiView(pompeii_pb2.GetPompeiiViewRequest(game_id=game.game_id, token=token))


# ---- (c) the player stream ---------------------------------------------------------
def play_out(stubs, game_id, tokens, rng, limit=5000):
    """Random legal moves from whichever seat should act, until the game is over."""
    status = status_of_msg(stubs, game_id)
    while not status.over and limit:
        limit -= 1
        to_act = list(status.seats_to_act)
        seat = status.to_move if status.to_move in to_act else to_act[0]
        moves = stubs[2].ListPompeiiMoves(pompeii_pb2.ListPompeiiMovesRequest(game_id=game_id, token=tokens[seat]))
        status = stubs[2].MakePompeiiMove(pompeii_pb2.MakePompeiiMoveRequest(
            game_id=game_id, token=tokens[seat], expected_version=moves.status.version,
            idempotency_key=str(rng.random()), move=rng.choice(list(moves.moves)))).status
    return status


def test_player_stream_tells_seat_started_turns_and_game_over_without_gaps(stubs):
    alice, bob = register(stubs), register(stubs)
    game = create(stubs, seats=2, open_seats=[1], player_token=alice.player_token)
    j = stubs[1].JoinGame(lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=bob.player_token))
    final = play_out(stubs, game.game_id, [game.seat_tokens[0].token, j.seat_token], random.Random(1))
    assert final.over
    got = []
    for msg in stubs[0].StreamPlayerEvents(player_pb2.StreamPlayerEventsRequest(player_token=bob.player_token),
                                           timeout=10):
        got.append(msg)
        if msg.WhichOneof("event") == "game_over":
            break
    kinds = [m.WhichOneof("event") for m in got]
    assert [m.cursor for m in got] == list(range(1, len(got) + 1))
    assert kinds[:2] == ["seat_assigned", "game_started"] and kinds[-1] == "game_over"
    assert kinds.count("your_turn") >= 5 and set(kinds[2:-1]) == {"your_turn"}
    turns = [m.your_turn for m in got if m.your_turn.game_id]
    assert all(t.seat == 1 and t.status.caller_seat == 1 and 1 in t.status.seats_to_act for t in turns)
    assert [t.status.version for t in turns] == sorted({t.status.version for t in turns})
    assert list(got[-1].game_over.outcome.ranks) == list(final.outcome.ranks)
    assert not got[0].seat_assigned.seat_token  # it went out in the JoinGame response


def test_player_stream_resumes_from_a_cursor_after_a_reconnect(stubs):
    alice, bob = register(stubs), register(stubs)
    game = create(stubs, seats=2, open_seats=[1], player_token=alice.player_token)
    j = stubs[1].JoinGame(lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=bob.player_token))
    first = events_until(stubs, bob.player_token, 0, 2)
    play_out(stubs, game.game_id, [game.seat_tokens[0].token, j.seat_token], random.Random(2))
    rest = []
    for msg in stubs[0].StreamPlayerEvents(player_pb2.StreamPlayerEventsRequest(
            player_token=bob.player_token, cursor=first[-1].cursor), timeout=10):
        rest.append(msg)
        if msg.WhichOneof("event") == "game_over":
            break
    assert [m.cursor for m in first + rest] == list(range(1, len(first) + len(rest) + 1))
    refused(lambda r, timeout: list(stubs[0].StreamPlayerEvents(r, timeout=timeout)),
            player_pb2.StreamPlayerEventsRequest(player_token=bob.player_token, cursor=10**6),
            grpc.StatusCode.INVALID_ARGUMENT, "PLAYER-4")


def test_a_live_player_stream_wakes_on_the_turn(stubs):
    alice, bob = register(stubs), register(stubs)
    game = create(stubs, seats=2, open_seats=[1], player_token=alice.player_token)
    got: list = []
    stream = stubs[0].StreamPlayerEvents(player_pb2.StreamPlayerEventsRequest(player_token=alice.player_token),
                                         timeout=20)

    def read():
        for msg in stream:
            got.append(msg)
            if msg.WhichOneof("event") == "your_turn":
                return
    reader = threading.Thread(target=read)
    reader.start()
    time.sleep(0.3)
    stubs[1].JoinGame(lobby_pb2.JoinGameRequest(game_id=game.game_id, player_token=bob.player_token))
    reader.join(15)
    stream.cancel()
    assert [m.WhichOneof("event") for m in got] == ["seat_assigned", "game_started", "your_turn"]
    assert got[-1].your_turn.status.version == 0 and got[-1].your_turn.seat == 0


# ---- (d) state stream and next legal moves --------------------------------------------
def test_state_stream_pushes_status_view_and_legal_moves_after_every_change(stubs):
    game = create(stubs, seats=2)
    tokens = [t.token for t in game.seat_tokens]
    stream = stubs[2].StreamPompeiiState(pompeii_pb2.StreamPompeiiStateRequest(game_id=game.game_id,
                                                                               token=tokens[1]), timeout=20)
    spectator = stubs[2].StreamPompeiiState(pompeii_pb2.StreamPompeiiStateRequest(game_id=game.game_id),
                                            timeout=20)
    first = next(stream)
    assert first.status.version == 0 and first.status.caller_seat == 1 and len(first.view.hand) > 0
    assert list(first.legal_moves) == []  # seat 0 plays first
    moves = stubs[2].ListPompeiiMoves(pompeii_pb2.ListPompeiiMovesRequest(game_id=game.game_id, token=tokens[0]))
    reply = stubs[2].MakePompeiiMove(pompeii_pb2.MakePompeiiMoveRequest(
        game_id=game.game_id, token=tokens[0], expected_version=0, idempotency_key="a", move=moves.moves[0]))
    own = stubs[2].ListPompeiiMoves(pompeii_pb2.ListPompeiiMovesRequest(game_id=game.game_id, token=tokens[0]))
    assert list(reply.legal_moves) == list(own.moves)  # the mover's next legal moves
    nxt = next(stream)
    assert nxt.status.version == 1
    theirs = stubs[2].ListPompeiiMoves(pompeii_pb2.ListPompeiiMovesRequest(game_id=game.game_id, token=tokens[1]))
    assert list(nxt.legal_moves) == list(theirs.moves)
    public = stubs[2].GetPompeiiView(pompeii_pb2.GetPompeiiViewRequest(game_id=game.game_id))
    s0 = next(spectator)
    s1 = next(spectator) if s0.status.version == 0 else s0
    assert s1.status.caller_seat == -1 and list(s1.legal_moves) == [] and s1.view == public.view
    stream.cancel()
    spectator.cancel()


# ---- tokens never leak ------------------------------------------------------------------
def test_no_log_line_stream_or_view_carries_another_seats_token(fresh_server):
    server = fresh_server(GE_LOG_LEVEL="debug").start()
    ch = grpc.insecure_channel(server.target)
    stubs = (player_pb2_grpc.PlayerServiceStub(ch), lobby_pb2_grpc.LobbyServiceStub(ch),
             pompeii_pb2_grpc.PompeiiServiceStub(ch), common_pb2_grpc.GameServiceStub(ch))
    alice, bob = register(stubs), register(stubs)
    game = create(stubs, seats=2, reserved_seats=[common_pb2.SeatReservation(seat=1, player_id=bob.player.player_id)],
                  player_token=alice.player_token)
    alice_token = game.seat_tokens[0].token
    bob_seat = events_until(stubs, bob.player_token, 0, 1)[0].seat_assigned.seat_token
    play_out(stubs, game.game_id, [alice_token, bob_seat], random.Random(5), limit=40)
    for who, other in ((alice.player_token, bob_seat), (bob.player_token, alice_token)):
        for msg in events_until(stubs, who, 0, 5):
            assert other not in str(msg)
    for token, other in ((alice_token, bob_seat), (bob_seat, alice_token), ("", alice_token)):
        view = stubs[2].GetPompeiiView(pompeii_pb2.GetPompeiiViewRequest(game_id=game.game_id, token=token))
        assert other not in str(view) and token not in str(view).replace(f'"{token}"', "") or not token
        state = next(stubs[2].StreamPompeiiState(pompeii_pb2.StreamPompeiiStateRequest(game_id=game.game_id,
                                                                                      token=token), timeout=5))
        assert other not in str(state)
    ch.close()
    server.stop()
    text = server.log.read_text()
    assert '"method": "JoinGame"' in text or '"method":"JoinGame"' in text or "RegisterPlayer" in text
    for secret in (alice.player_token, bob.player_token, alice_token, bob_seat):
        assert secret not in text


@pytest.mark.parametrize("game", registry.GAME_IDS)
def test_every_games_state_stream_and_next_legal_moves(server, game):
    """Stream…State and Make…MoveResponse.legal_moves in each game's service (the generic servicer)."""
    client = Client(server.target, game)
    seats = registry.typical_seats(game)
    game_id, tokens = client.create(seats, seed=9)
    status = client.status(game_id)
    actor = next(s for s in status.seats_to_act if status.acts(s))
    seat = client.seat(game_id, actor, tokens[actor])
    states = seat.states(timeout=20)
    first_status, first_view, first_legal = next(states)
    assert first_status.version == 0 and first_view and first_legal == seat.legal()
    seat.move(first_legal[0], expected_version=0)
    assert seat.next_legal == seat.legal()
    nxt_status, _, nxt_legal = next(states)
    assert nxt_status.version == 1 and nxt_legal == seat.next_legal
    client.close()
