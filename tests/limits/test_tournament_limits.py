"""Tournaments within the server's limits (TOUR-13, TOUR-15, TOUR-16), over the network. Before, one
address could hold every tournament place (all creates refused, across restarts), and tournament games
skipped every live-game cap and went on after a cancel: 43,000 unfinished games and 946 MB from one
attacker, the referee's clocks busy for hours."""
from __future__ import annotations

import time

import grpc
import pytest

from clients.sdk import Client, PlayerClient, Refused, TournamentClient

from .support import create, web_call


def wait_for(what, timeout: float = 15.0):
    deadline = time.time() + timeout
    while not (found := what()):
        assert time.time() < deadline, "not in time"
        time.sleep(0.1)
    return found


def entrants(target: str, n: int, tag: str) -> list[str]:
    return [PlayerClient.register(target, f"{tag}{i}").player_id for i in range(n)]


def test_tournament_games_are_live_games_and_wait_for_room_across_a_restart(fresh_server):
    server = fresh_server(GE_LIVE_GAMES="1", GE_ADMIN_TOKEN="op").start()
    client = Client(server.target, "pompeii")
    other, _ = client.create(2)  # the server's one live place
    tc = TournamentClient(server.target)
    t, creator = tc.create("pompeii", 2, "round_robin", time_bank_ms=60_000, player_ids=entrants(server.target, 2, "r"))
    started = tc.start(t.tournament_id, creator)
    assert started.state == 2 and not any(g.game_id for g in started.schedule), "a game was created past GE_LIVE_GAMES"
    server.kill9()
    server.start()
    client = Client(server.target, "pompeii")
    client.adjudicate(other, ["op"], "make room", rollouts=4)
    tc = TournamentClient(server.target)
    first = wait_for(lambda: tc.get(t.tournament_id).schedule[0].game_id)  # the restarted scheduler goes on
    assert not client.status(first).over
    code, message, _ = create(client)  # and the tournament's game holds the place
    assert code == "RESOURCE_EXHAUSTED" and "GE_LIVE_GAMES" in message


def test_cancelling_a_tournament_abandons_its_games(fresh_server):
    server = fresh_server().start()
    tc = TournamentClient(server.target)
    t, creator = tc.create("pompeii", 2, "round_robin", time_bank_ms=600_000,
                           player_ids=entrants(server.target, 4, "c"), max_parallel=2)
    games = [g.game_id for g in tc.start(t.tournament_id, creator).schedule if g.game_id]
    assert len(games) == 2
    cancelled = tc.cancel(t.tournament_id, creator)
    assert cancelled.state == 4 and cancelled.cancel_reason == "cancelled by its creator"
    client = Client(server.target, "pompeii")
    for game_id in games:
        status = client.status(game_id)
        assert status.over and status.outcome.get("adjudicated") and not status.outcome.get("winners")
    # the schedule says so: they read as never played ("not played: the tournament ended first")
    played = [g for g in tc.get(t.tournament_id).schedule if g.game_id]
    assert [g.game_id for g in played] == games
    assert all(g.finished and g.failure == "abandoned: the tournament was cancelled by its creator" for g in played)


def test_an_address_holds_a_few_tournaments_and_unstarted_ones_expire(fresh_server):
    server = fresh_server(GE_TOURNAMENTS_PER_ADDRESS="2", GE_TOURNAMENT_REGISTRATION_TTL_S="2").with_web().start()
    tc = TournamentClient(server.target)
    made = [tc.create("kuhn", 2)[0] for _ in range(2)]
    with pytest.raises(Refused) as e:
        tc.create("kuhn", 2)
    assert e.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED and e.value.rule == "TOUR-15"
    status, _ = web_call(server.web_port, "TournamentService", "CreateTournament",
                         {"game": "kuhn", "seatsPerGame": 2, "format": "TOURNAMENT_FORMAT_ROUND_ROBIN",
                          "clock": {"timeBankMs": 2000}}, source="127.0.0.3")
    assert status == 200, "another address is refused for this one's tournaments"
    for t in made:  # TOUR-16: never started, cancelled by the server
        ended = wait_for(lambda t=t: (x := tc.get(t.tournament_id)).state == 4 and x)
        assert "GE_TOURNAMENT_REGISTRATION_TTL_S" in ended.cancel_reason
    assert tc.create("kuhn", 2)[0].state == 1  # the address has room again


def test_a_tournament_creates_its_games_from_the_servers_shared_creates(fresh_server):
    """One start made every game of a round at once (128 for 256 entrants): a client's tournaments made
    15,000 games a minute, twelve times GE_CREATES_TOTAL_PER_S."""
    server = fresh_server(GE_CREATES_TOTAL_PER_S="2").start()
    tc = TournamentClient(server.target)
    t, creator = tc.create("kuhn", 2, "swiss", rounds=1, time_bank_ms=60_000,
                           player_ids=entrants(server.target, 16, "s"))
    started = tc.start(t.tournament_id, creator)
    assert sum(1 for g in started.schedule if g.game_id) <= 3, "the round's 8 games were made at once"
    wait_for(lambda: all(g.game_id for g in tc.get(t.tournament_id).schedule), timeout=20)
