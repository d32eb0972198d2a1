"""Bounded identifiers (issue 19 item 1, issue 15 item 9): caller text over its documented maximum is
INVALID_ARGUMENT; messages and log lines quote at most a short prefix of it."""
from __future__ import annotations

import json

import grpc
import pytest

from clients.sdk import Client
from gameengine.v1 import common_pb2
from server import limits

from .support import raw


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    from tests.conftest import ServerProcess
    s = ServerProcess(tmp_path_factory.mktemp("ids"), GE_LOG_LEVEL="info").start()
    yield s
    s.stop()


def longest_log_line(server) -> int:
    return max((len(line) for line in server.log.read_text().splitlines()), default=0)


def test_quote_keeps_a_short_prefix_and_the_size():
    assert limits.quote("abc") == "abc"
    q = limits.quote("x" * 10_000)
    assert q.startswith("x" * limits.QUOTE_CHARS) and len(q) < 80 and "9960 bytes" in q


def test_bounded_counts_bytes_not_characters():
    limits.bounded("name", "é" * 64, 128)
    with pytest.raises(limits.InvalidArgument) as e:
        limits.bounded("name", "é" * 65, 128)
    assert "130 bytes" in e.value.message and "128" in e.value.message


def test_issue15_item9_long_id_not_found_is_short(srv):
    client = Client(srv.target, "pompeii")
    # within the bound: NOT_FOUND, the id quoted by a prefix only
    code, message, _ = raw(client.common.GetGameStatus, common_pb2.GetGameStatusRequest(game_id="g" * 128))
    assert code == "NOT_FOUND" and len(message) < 120 and "g" * 41 not in message
    # far beyond the bound (the issue's 8 kB id made the trailer exceed a default client's 16 KiB metadata
    # limit, so the client saw RESOURCE_EXHAUSTED): INVALID_ARGUMENT with a short message
    code, message, _ = raw(client.common.GetGameStatus, common_pb2.GetGameStatusRequest(game_id="g" * 20_000))
    assert code == "INVALID_ARGUMENT" and len(message) < 120 and "maximum is 128" in message


@pytest.mark.parametrize("field", ["game_id", "token", "idempotency_key"])
def test_long_identifiers_are_refused_without_a_long_log_line(srv, field):
    client = Client(srv.target, "pompeii")
    game_id, tokens = client.create(2, seed=3)
    fields = {"game_id": game_id, "token": tokens[0], "expected_version": 0, "idempotency_key": "k"}
    fields[field] = "z" * 50_000
    code, message, _ = raw(client.rpcs["make_move"], client.request("make_move", **fields,
                                                                    move=client.codec.move_to_proto(
                                                                        client.seat(game_id, 0, tokens[0]).legal()[0])))
    assert code == "INVALID_ARGUMENT" and field in message and len(message) < 120
    assert client.status(game_id).version == 0  # nothing changed
    assert "z" * 100 not in srv.log.read_text()
    assert longest_log_line(srv) < 2000


def test_long_adjudication_reason_is_refused(srv):
    client = Client(srv.target, "pompeii")
    game_id, tokens = client.create(2, seed=4)
    code, message, _ = raw(client.common.AdjudicateGame, common_pb2.AdjudicateGameRequest(
        game_id=game_id, tokens=tokens, reason="r" * 5000))
    assert code == "INVALID_ARGUMENT" and "reason" in message


def refusal(fn, request) -> tuple[str, str, bytes]:
    """(code name, message, the google.rpc.Status details as sent) of a refused call."""
    try:
        fn(request, timeout=10)
    except grpc.RpcError as e:
        details = dict(e.trailing_metadata() or ()).get("grpc-status-details-bin", b"")
        return e.code().name, e.details() or "", details
    raise AssertionError("the call was answered")


def test_a_refusal_quotes_a_long_option_value_and_never_repeats_it_whole(srv):
    client = Client(srv.target, "citadels")
    long_value = "9" * 5000
    req = client.request("create_game", seats=3)
    req.options.gold_supply = long_value
    code, message, details = refusal(client.rpcs["create_game"], req)
    assert code == "INVALID_ARGUMENT" and "CIT-5" in message, message
    assert "9" * (limits.QUOTE_CHARS + 1) not in message and b"9" * (limits.QUOTE_CHARS + 1) not in details
    assert "5000 bytes" in message or "4960 bytes" in message  # the quote says how long it was


def test_a_refusal_quotes_a_long_word_in_a_move(srv):
    client = Client(srv.target, "smallworld")
    game_id, tokens = client.create(3, seed=5)
    status = client.status(game_id)
    req = client.request("make_move", game_id=game_id, token=tokens[status.to_move], expected_version=status.version)
    req.move.choose_power.power = "p" * 5000
    code, message, details = refusal(client.rpcs["make_move"], req)
    assert code in ("INVALID_ARGUMENT", "FAILED_PRECONDITION"), (code, message)
    assert "p" * (limits.QUOTE_CHARS + 1) not in message and b"p" * (limits.QUOTE_CHARS + 1) not in details
    assert client.status(game_id).version == status.version


@pytest.mark.parametrize("gold_supply", ["99999999999", "1000001", " 30", "+30", "3_0"])
def test_CIT_5_a_gold_supply_the_views_cannot_hold_or_not_plain_decimal_is_refused(srv, gold_supply):
    client = Client(srv.target, "citadels")
    req = client.request("create_game", seats=3)
    req.options.gold_supply = gold_supply
    code, message, _ = refusal(client.rpcs["create_game"], req)
    assert code == "INVALID_ARGUMENT" and "CIT-5" in message, message


def test_an_unknown_timeout_policy_is_refused(srv):
    client = Client(srv.target, "pompeii")
    req = client.request("create_game", seats=3, referee=common_pb2.RefereeOptions(time_bank_ms=60_000,
                                                                                  timeout_policy=77))
    code, message, _ = refusal(client.rpcs["create_game"], req)
    assert code == "INVALID_ARGUMENT" and "REF-CLOCK" in message and "77" in message, message


def test_a_long_idempotency_key_is_refused_before_any_look_up(srv):
    client = Client(srv.target, "pompeii")
    game_id, tokens = client.create(3, seed=6)
    req = client.request("make_move", game_id="no-such-game", token="t", expected_version=0,
                         idempotency_key="k" * 200)
    req.move.CopyFrom(client.codec.move_to_proto(client.seat(game_id, 0, tokens[0]).legal()[0]))
    code, message, _ = refusal(client.rpcs["make_move"], req)
    assert code == "INVALID_ARGUMENT" and "idempotency_key" in message and "maximum is 128" in message, message


def test_a_long_game_or_tournament_id_is_logged_with_its_full_size(srv):
    """The lobby and tournament handlers cut the text to 128 bytes before the log line quoted it, so the
    line said "(+88 bytes)" of a 60,000-byte value: README promises a prefix and the full size."""
    from gameengine.v1 import lobby_pb2, lobby_pb2_grpc, tournament_pb2, tournament_pb2_grpc
    client = Client(srv.target, "pompeii")
    lobby = lobby_pb2_grpc.LobbyServiceStub(client.channel)
    tournaments = tournament_pb2_grpc.TournamentServiceStub(client.channel)
    raw(lobby.ListOpenGames, lobby_pb2.ListOpenGamesRequest(game="q" * 60_000))
    raw(tournaments.GetTournament, tournament_pb2.GetTournamentRequest(tournament_id="w" * 60_000))
    log = srv.log.read_text()
    for text in ("q" * 60_000, "w" * 60_000):
        assert json.dumps(limits.quote(text)) in log  # as the JSON line writes it


def test_unechoed_cuts_every_echo_when_two_texts_share_their_start():
    """The longer text was cut first at the start both share, and the other's tail stayed whole."""
    token, wanted = "a" * 45 + "y" * 100, "a" * 45 + "SECRET-" + "X" * 70
    message = limits.unechoed(f"no tournament with id {wanted!r}", [wanted, token])
    assert "SECRET" not in message and "X" * 10 not in message, message


def test_a_tournament_id_is_quoted_even_beside_a_token_that_shares_its_start(srv):
    from gameengine.v1 import tournament_pb2, tournament_pb2_grpc
    with grpc.insecure_channel(srv.target) as ch:
        code, message, details = refusal(tournament_pb2_grpc.TournamentServiceStub(ch).GetTournament,
                                         tournament_pb2.GetTournamentRequest(
                                             tournament_id="a" * 45 + "SECRET-" + "X" * 70,
                                             creator_token="a" * 45 + "y" * 100))
    assert code == "NOT_FOUND" and "TOUR-17" in message
    assert "SECRET" not in message and b"SECRET" not in details, message


def test_an_adjudication_reason_is_quoted_in_the_log_and_shown_whole_to_the_players(srv):
    client = Client(srv.target, "pompeii")
    game_id, tokens = client.create(2, seed=6)
    reason = "the club closes at ten; " + "q" * 200
    client.common.AdjudicateGame(common_pb2.AdjudicateGameRequest(game_id=game_id, tokens=tokens, reason=reason,
                                                                  rollouts=20), timeout=60)
    assert "q" * (limits.QUOTE_CHARS + 1) not in srv.log.read_text()
    events = list(client.spectator(game_id).events(from_version=0, timeout=10))
    assert any(reason in repr(data) for _, _, data in events), "the referee event carries the reason"


@pytest.mark.parametrize("value", ["²" * 100, "1" * 5000, "١"])
def test_ED_5_a_seat_option_that_is_no_plain_seat_number_is_refused_not_internal(srv, value):
    client = Client(srv.target, "smallworld")
    req = client.request("create_game", seats=3)
    req.options.first_player = value
    code, message, _ = refusal(client.rpcs["create_game"], req)
    assert code == "INVALID_ARGUMENT" and "ED-5" in message, (code, message)
