"""TournamentService over RPC against a real server: entrants are separate bot processes (or bot
threads) holding only their player tokens; the server schedules, seats, clocks and counts."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from itertools import combinations
from typing import Any

import pytest

from clients.bot import Bot, play_tournament
from clients.sdk import Client, PlayerClient, TournamentClient
from server.tournaments import game_seed
from tests.conftest import ROOT

NODE_BOT = ROOT / "clients" / "examples" / "node"
ENV = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'protos'}")


@pytest.fixture(scope="module")
def node_bot():
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("Node and npm are needed (.ci/run installs them from Debian's packages)")
    if not (NODE_BOT / "node_modules" / "@grpc" / "grpc-js").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=NODE_BOT, check=True,
                       timeout=300)
    return NODE_BOT / "bot.mjs"


def python_bot(target: str, token: str, tournament_id: str, policy: str, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "clients.bot", "--server", target, f"--player-token={token}",
                             "--tournament", tournament_id, "--policy", policy, *extra],
                            cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_entrants(tc: TournamentClient, tournament_id: str, n: int, timeout: float = 60) -> None:
    deadline = time.time() + timeout
    while len(tc.get(tournament_id).entrants) < n:
        assert time.time() < deadline, "the bots did not enter in time"
        time.sleep(0.1)


def follow(tc: TournamentClient, tournament_id: str, timeout: float) -> list:
    events = []
    for event in tc.events(tournament_id, cursor=0, timeout=timeout):
        events.append(event)
    return events


def finish(procs: list[subprocess.Popen], timeout: float = 60) -> list[tuple[str, str]]:
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=timeout))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for p, (_out, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
    return outs


def check_standings_match_outcomes(target: str, t) -> None:
    """Games, wins and points of every entrant are what the recorded outcomes say, and each game's
    own status (GetGameStatus) has that outcome."""
    client = Client(target, t.game)
    games, wins, points = Counter(), Counter(), Counter()
    for g in t.schedule:
        assert g.finished and g.game_id
        status = client.status(g.game_id)
        assert status.over and list(g.outcome.ranks) == status.outcome["ranks"]
        for seat, pid in enumerate(g.seat_players):
            games[pid] += 1
            rank = g.outcome.ranks[seat]
            wins[pid] += rank == 1
            points[pid] += t.points_per_rank[rank - 1]
    for line in t.standings:
        assert line.games == games[line.player_id]
        assert line.wins == wins[line.player_id]
        assert line.points == pytest.approx(points[line.player_id] + line.byes * t.points_per_rank[0])
    assert sum(line.games for line in t.standings) == len(t.schedule) * t.seats_per_game


def test_round_robin_of_random_greedy_mcts_and_the_node_bot(fresh_server, node_bot):
    server = fresh_server().start()
    tc = TournamentClient(server.target)
    t, creator = tc.create("pompeii", 2, "round_robin", time_bank_ms=20_000, increment_ms=500, seed=7,
                           max_parallel=2, name="four bots")
    tid = t.tournament_id
    players = {name: PlayerClient.register(server.target, name) for name in ("random", "greedy", "mcts", "node")}
    procs = [python_bot(server.target, players["random"].token, tid, "random"),
             python_bot(server.target, players["greedy"].token, tid, "greedy"),
             python_bot(server.target, players["mcts"].token, tid, "mcts", "--iterations", "15"),
             subprocess.Popen(["node", str(node_bot), "--server", server.target, "--player-token",
                               players["node"].token, "--tournament", tid],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)]
    try:
        wait_entrants(tc, tid, 4)
        started = tc.start(tid, creator)
        assert started.games_total == 12 and started.rounds_total == 6  # C(4,2) x 2 rotations, circle rounds
        events = follow(tc, tid, timeout=400)
    finally:
        outs = finish(procs)
    t = tc.get(tid)
    assert t.state == 3 and t.games_finished == 12  # FINISHED
    seatings = [tuple(g.seat_players) for g in t.schedule]
    assert Counter(frozenset(s) for s in seatings) == {frozenset(p): 2 for p in combinations(
        [e.player_id for e in t.entrants], 2)}  # every pairing, twice
    assert set(seatings) == {(a, b) for a, b in seatings} and len(set(seatings)) == 12  # both seat orders each
    for pid in (e.player_id for e in t.entrants):
        assert [sum(s[i] == pid for s in seatings) for i in range(2)] == [3, 3]  # every seat equally often
    check_standings_match_outcomes(server.target, t)
    kinds = Counter(e.kind for e in events)
    assert kinds["game_scheduled"] == 12 and kinds["game_finished"] == 12 and kinds["round_finished"] == 6
    assert kinds["tournament_finished"] == 1 and kinds["standings_changed"] == 12
    assert [e.cursor for e in events] == list(range(1, len(events) + 1))
    assert t.seed == 0 and not any(g.seed for g in t.schedule)  # a seed deals every hand: never to anyone
    assert not any(e.body.game.seed for e in events if e.kind in ("game_scheduled", "game_finished"))
    t = tc.get(tid, creator)  # its creator's, once finished
    assert [g.seed for g in t.schedule] == [game_seed(t.seed, g.index) for g in t.schedule]  # seeds fixed by it
    assert t.seed == 7
    node_last = json.loads(outs[3][0].strip().splitlines()[-1])["tournament_over"]
    assert node_last["played"] == 6
    for out, _ in outs[:3]:
        assert "tournament over: played 6 games" in out
    board = tc.leaderboard("pompeii")
    assert {e.player_name for e in board} == set(players) and all(e.games == 6 for e in board)


def bot_threads(target: str, tournament_id: str, tokens: list[str], policy: str = "random") -> list[threading.Thread]:
    """Entrants as threads of this process, each with only its own player token."""
    results: dict = {}

    def run(token: str) -> None:
        results[token] = play_tournament(target, token, tournament_id, lambda seat: Bot(seat, policy))
    threads = [threading.Thread(target=run, args=(tok,), daemon=True) for tok in tokens]
    for th in threads:
        th.start()
    return threads


def played(target: str, entrants: int, *create: Any, **settings: Any) -> tuple[Any, list]:
    """A tournament of `entrants` bot threads on a fixed list, created, started and followed to its end:
    (the tournament as it ended, its events)."""
    tc = TournamentClient(target)
    players = [PlayerClient.register(target, f"e{i}") for i in range(entrants)]
    t, creator = tc.create(*create, player_ids=[p.player_id for p in players], **settings)
    threads = bot_threads(target, t.tournament_id, [p.token for p in players])
    tc.start(t.tournament_id, creator)
    events = follow(tc, t.tournament_id, timeout=300)
    for th in threads:
        th.join(timeout=30)
    return tc.get(t.tournament_id), events


def test_swiss_of_eight_entrants_pairs_without_rematches_and_counts_every_game(fresh_server):
    server = fresh_server().start()
    tc = TournamentClient(server.target)
    players = [PlayerClient.register(server.target, f"swiss{i}") for i in range(8)]
    t, creator = tc.create("pompeii", 2, "swiss", rounds=3, time_bank_ms=20_000, increment_ms=500, seed=3,
                           player_ids=[p.player_id for p in players])
    tid = t.tournament_id
    assert not t.open_registration and len(t.entrants) == 8
    threads = bot_threads(server.target, tid, [p.token for p in players])
    tc.start(tid, creator)
    events = follow(tc, tid, timeout=300)
    for th in threads:
        th.join(timeout=30)
    t = tc.get(tid)
    assert t.state == 3 and t.rounds_total == 3 and t.games_finished == 12 == len(t.schedule)
    met: set = set()
    for r in (1, 2, 3):
        games = [g for g in t.schedule if g.round == r]
        entrants = [p for g in games for p in g.seat_players]
        assert sorted(entrants) == sorted(e.player_id for e in t.entrants)  # everyone plays once a round
        pairs = {frozenset(g.seat_players) for g in games}
        assert not pairs & met  # no rematch: 8 entrants always have another pairing in 3 rounds
        met |= pairs
    # a round is paired only once the one before it is over: its games are scheduled after that round finished
    order = [(e.kind, e.body.round if e.kind == "round_finished" else
              (t.schedule[e.body.game.index].round if e.kind == "game_scheduled" else 0)) for e in events]
    for r in (1, 2):
        finished_at = order.index(("round_finished", r))
        assert all(i > finished_at for i, o in enumerate(order) if o == ("game_scheduled", r + 1))
    # round 2 pairs within score groups: winners of round 1 meet winners
    round1_winners = {g.seat_players[list(g.outcome.ranks).index(1)] for g in t.schedule if g.round == 1
                      if list(g.outcome.ranks).count(1) == 1}
    if len(round1_winners) == 4:
        assert all(set(g.seat_players) <= round1_winners or not set(g.seat_players) & round1_winners
                   for g in t.schedule if g.round == 2)
    check_standings_match_outcomes(server.target, t)


def test_a_round_robin_is_played_round_by_round(fresh_server):
    """Entrants freed early by one game wait for their round: no game of a later round (here the second
    cycle's rematches) is scheduled before every game of the rounds before it."""
    server = fresh_server().start()
    t, events = played(server.target, 4, "kuhn", 2, "round_robin", games=12, time_bank_ms=20_000, seed=4)
    assert t.state == 3 and t.games_finished == 12
    rounds = [t.schedule[e.body.game.index].round for e in events if e.kind == "game_scheduled"]
    assert len(rounds) == 12 and rounds == sorted(rounds), rounds
    check_standings_match_outcomes(server.target, t)


def test_swiss_with_an_odd_field_rotates_the_bye(fresh_server):
    server = fresh_server().start()
    t, events = played(server.target, 5, "pompeii", 2, "swiss", rounds=3, time_bank_ms=20_000, seed=9)
    byes = [list(e.body.byes) for e in events if e.kind == "round_finished"]
    assert len(byes) == 3 and all(len(b) == 1 for b in byes)
    assert len({b[0] for b in byes}) == 3  # a different entrant sits out each round
    assert sum(line.byes for line in t.standings) == 3
    check_standings_match_outcomes(server.target, t)


def test_an_entrant_that_never_moves_is_forfeited_by_the_clock_and_the_tournament_ends(fresh_server):
    server = fresh_server(GE_REFEREE_TICK_S="0.02").start()
    tc = TournamentClient(server.target)
    present = PlayerClient.register(server.target, "present")
    absent = PlayerClient.register(server.target, "absent")  # registers, is entered, never connects
    t, creator = tc.create("pompeii", 2, "round_robin", time_bank_ms=1000, increment_ms=1000,
                           timeout_policy="forfeit", player_ids=[present.player_id, absent.player_id], seed=1)
    threads = bot_threads(server.target, t.tournament_id, [present.token], policy="greedy")
    tc.start(t.tournament_id, creator)
    follow(tc, t.tournament_id, timeout=200)
    for th in threads:
        th.join(timeout=30)
    t = tc.get(t.tournament_id)
    assert t.state == 3 and t.games_finished == 2
    for g in t.schedule:
        seat = list(g.seat_players).index(absent.player_id)
        assert list(g.forfeited) == [seat]
        assert g.outcome.ranks[seat] == 2 and g.outcome.ranks[1 - seat] == 1  # forfeited seats rank last
    lines = {line.player_name: line for line in t.standings}
    assert lines["absent"].forfeits == 2 and lines["absent"].wins == 0 and lines["present"].wins == 2
    check_standings_match_outcomes(server.target, t)


def test_kill_9_mid_tournament_resumes_and_counts_every_game_once(fresh_server):
    server = fresh_server(GE_SNAPSHOT_INTERVAL_S="2").start()
    tc = TournamentClient(server.target)
    players = [PlayerClient.register(server.target, f"k{i}") for i in range(4)]
    t, creator = tc.create("pompeii", 2, "round_robin", time_bank_ms=20_000, increment_ms=500, seed=11,
                           max_parallel=2, player_ids=[p.player_id for p in players])
    tid = t.tournament_id
    procs = [python_bot(server.target, p.token, tid, "random") for p in players]
    try:
        before = tc.start(tid, creator)
        deadline = time.time() + 120
        while tc.get(tid).games_finished < 5:
            assert time.time() < deadline
            time.sleep(0.05)
        running = tc.get(tid)
        in_flight = {g.index: g.game_id for g in running.schedule if g.game_id and not g.finished}
        in_flight_seeds = [*running.schedule, *(x for x in tc.list().tournaments if x.tournament_id == tid)]
        assert in_flight  # the kill lands with games being played
        server.kill9()
        server.start()
        events = follow(TournamentClient(server.target), tid, timeout=300)
    finally:
        finish(procs)
    tc = TournamentClient(server.target)
    assert not tc.get(tid).seed and refused(tc.get, tid, "not-the-creator") == ("PERMISSION_DENIED", "TOUR-7")
    t = tc.get(tid, creator)
    # a seed deals every hand: none is shown while the games are played, all are to the creator once it is finished
    assert before.seed == 0 and not any(g.seed for g in before.schedule) and not any(g.seed for g in in_flight_seeds)
    assert t.state == 3 and t.games_finished == 12 and t.seed == 11
    assert [g.seed for g in t.schedule] == [game_seed(11, g.index) for g in t.schedule]
    assert [tuple(g.seat_players) for g in t.schedule] == [tuple(g.seat_players) for g in before.schedule]
    for index, game_id in in_flight.items():
        assert t.schedule[index].game_id == game_id  # games in flight went on, none was created again
    finished = Counter(e.body.game.index for e in events if e.kind == "game_finished")
    assert finished == {i: 1 for i in range(12)}  # every game counted exactly once
    assert [e.cursor for e in events] == list(range(1, len(events) + 1))
    check_standings_match_outcomes(server.target, t)
    board = {e.player_id: e for e in tc.leaderboard("pompeii")}
    assert all(board[p.player_id].games == 6 for p in players)
    server.stop()  # and a clean restart from the snapshot keeps it all
    server.start()
    again = TournamentClient(server.target).get(tid, creator)
    assert again.standings == t.standings and again.schedule == t.schedule


def refused(fn, *args, **kwargs):
    from clients.sdk import Refused
    with pytest.raises(Refused) as e:
        fn(*args, **kwargs)
    return e.value.code.name, e.value.rule


def test_refusals_have_codes_and_rule_ids_and_change_nothing(fresh_server):
    server = fresh_server(GE_ADMIN_TOKEN="operator-secret").start()
    tc = TournamentClient(server.target)
    a, b, c = (PlayerClient.register(server.target, n) for n in ("ra", "rb", "rc"))
    good = dict(time_bank_ms=2000, increment_ms=200)
    assert refused(tc.create, "chess", 2, **good) == ("INVALID_ARGUMENT", "TOUR-1")
    assert refused(tc.create, "pompeii", 5, **good) == ("INVALID_ARGUMENT", "TOUR-1")  # pompeii seats 2-4
    assert refused(tc.create, "citadels", 8, **good) == ("INVALID_ARGUMENT", "TOUR-1")
    assert refused(tc.create, "pompeii", 2, "knockout", **good) == ("INVALID_ARGUMENT", "TOUR-2")
    assert refused(tc.create, "pompeii", 2, time_bank_ms=0) == ("INVALID_ARGUMENT", "TOUR-3")  # no clock
    assert refused(tc.create, "pompeii", 2, time_bank_ms=50) == ("INVALID_ARGUMENT", "TOUR-3")
    assert refused(tc.create, "pompeii", 2, time_bank_ms=2000, increment_ms=120_000) == ("INVALID_ARGUMENT", "TOUR-3")
    assert refused(tc.create, "pompeii", 2, "round_robin", rounds=3, **good) == ("INVALID_ARGUMENT", "TOUR-12")
    assert refused(tc.create, "pompeii", 2, "swiss", games=3, **good) == ("INVALID_ARGUMENT", "TOUR-12")
    assert refused(tc.create, "pompeii", 2, "swiss", rounds=51, **good) == ("INVALID_ARGUMENT", "TOUR-12")
    # one that could never start (it was accepted, holding a place of its address until it expired)
    assert refused(tc.create, "pompeii", 3, max_entrants=2, **good) == ("INVALID_ARGUMENT", "TOUR-6")
    assert refused(tc.create, "pompeii", 2, player_ids=["p-nobody"], **good) == ("INVALID_ARGUMENT", "TOUR-9")
    assert refused(tc.create, "pompeii", 2, points_per_rank=[0, 1], **good) == ("INVALID_ARGUMENT", "TOUR-10")
    assert refused(tc.create, "pompeii", 2, name="x" * 65, **good) == ("INVALID_ARGUMENT", "TOUR-0")
    assert tc.list().tournaments == []  # nothing refused made a tournament

    t, creator = tc.create("pompeii", 3, "round_robin", games=5, max_entrants=3, **good)
    tid = t.tournament_id
    assert refused(tc.start, tid, creator) == ("FAILED_PRECONDITION", "TOUR-6")  # no entrants yet
    tc.join(tid, a.token)
    assert refused(tc.join, tid, a.token) == ("ALREADY_EXISTS", "TOUR-8")
    assert refused(tc.withdraw, tid, c.token) == ("FAILED_PRECONDITION", "TOUR-8")
    assert refused(tc.join, tid, "not-a-token") == ("UNAUTHENTICATED", "PLAYER-3")
    tc.join(tid, b.token)
    tc.join(tid, c.token)
    d = PlayerClient.register(server.target, "rd")
    assert refused(tc.join, tid, d.token) == ("FAILED_PRECONDITION", "TOUR-5")  # full
    snapshot = tc.get(tid)
    assert refused(tc.start, tid, "wrong") == ("PERMISSION_DENIED", "TOUR-7")
    assert refused(tc.cancel, tid, "") == ("PERMISSION_DENIED", "TOUR-7")
    assert refused(tc.start, tid, creator) == ("FAILED_PRECONDITION", "TOUR-6")  # 5 games: cycles of 3
    assert refused(tc.get, "t-0000000000000000") == ("NOT_FOUND", "TOUR-17")
    from gameengine.v1 import tournament_pb2
    assert refused(lambda: list(tc.events(tid, cursor=99))) == ("INVALID_ARGUMENT", "TOUR-11")
    assert tc.get(tid) == snapshot  # nothing refused changed anything

    t2, creator2 = tc.create("pompeii", 2, "round_robin", player_ids=[a.player_id, b.player_id], **good)
    assert refused(tc.join, t2.tournament_id, c.token) == ("FAILED_PRECONDITION", "TOUR-4")  # fixed list
    assert refused(tc.withdraw, t2.tournament_id, a.token) == ("FAILED_PRECONDITION", "TOUR-4")
    assert refused(tc.start, t2.tournament_id, creator) == ("PERMISSION_DENIED", "TOUR-7")  # another's token
    started = tc.start(t2.tournament_id, "operator-secret")  # the operator token may start any tournament
    assert started.state == tournament_pb2.TOURNAMENT_STATE_RUNNING and started.games_total == 2
    assert refused(tc.start, t2.tournament_id, creator2) == ("FAILED_PRECONDITION", "TOUR-13")
    assert refused(tc.join, tid, d.token) == ("FAILED_PRECONDITION", "TOUR-5")
    cancelled = tc.cancel(t2.tournament_id, creator2)
    assert cancelled.state == tournament_pb2.TOURNAMENT_STATE_CANCELLED
    assert cancelled.cancel_reason == "cancelled by its creator"
    assert refused(tc.cancel, t2.tournament_id, creator2) == ("FAILED_PRECONDITION", "TOUR-13")
    events = list(tc.events(t2.tournament_id, cursor=0, timeout=10))
    assert events[-1].kind == "tournament_finished" and \
        events[-1].body.state == tournament_pb2.TOURNAMENT_STATE_CANCELLED
    listed = tc.list(page_size=1)
    assert len(listed.tournaments) == 1 and listed.next_page_token
    assert listed.tournaments[0].tournament_id == t2.tournament_id and not listed.tournaments[0].schedule
    rest = tc.list(page_size=1, page_token=listed.next_page_token)
    assert rest.tournaments[0].tournament_id == tid and not rest.next_page_token
    t3, _ = tc.create("pompeii", 2, "round_robin", **good)
    assert tc.cancel(t3.tournament_id, "operator-secret").cancel_reason == "cancelled by its operator"
    assert refused(tc.leaderboard, "chess") == ("INVALID_ARGUMENT", "TOUR-1")


def test_every_game_a_server_hosts_takes_its_options_in_a_tournament(fresh_server):
    """The options oneof had no Kuhn field although `game` takes "kuhn": clients.tournament --game kuhn
    --option ante=2 failed with an AttributeError, and no Kuhn tournament could set an option."""
    from clients.sdk import TournamentClient
    from gameengine.v1 import common_pb2, common_pb2_grpc, tournament_pb2
    server = fresh_server().start()
    tc = TournamentClient(server.target)
    types = common_pb2_grpc.GameServiceStub(tc.channel).ListGameTypes(common_pb2.ListGameTypesRequest())
    hosted = {g.game for g in types.game_types}
    oneof = tournament_pb2.CreateTournamentRequest.DESCRIPTOR.oneofs_by_name["options"]
    assert hosted <= {f.name for f in oneof.fields}
    t, _ = tc.create("kuhn", 2, games=2, options={"ante": 2})
    assert "ante=2" in t.options


def test_a_restarted_bot_says_it_is_an_entrant_already_not_that_it_entered(fresh_server):
    """A bot restarted mid-tournament printed "entered" again; it enters once, then finds itself entered."""
    from clients.bot import enter_tournament
    server = fresh_server().start()
    tc = TournamentClient(server.target)
    t, _ = tc.create("kuhn", 2, "round_robin", time_bank_ms=20_000, max_entrants=4)
    alice = PlayerClient.register(server.target, "alice")
    first, joined = enter_tournament(tc, t.tournament_id, alice)
    again, joined_again = enter_tournament(tc, t.tournament_id, alice)
    assert (joined, joined_again) == (True, False)
    assert [e.player_id for e in again.entrants] == [e.player_id for e in first.entrants] == [alice.player_id]
