"""Issue 23 item 2 on one replica: the drain file turns new games away with UNAVAILABLE and
RetryInfo (ErrorInfo reason DRAINING), the replica's games go on, `python -m server.drain`
switches it and waits for ge_unfinished_games to reach 0."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from clients.sdk import Client, TournamentClient
from gameengine.v1 import pompeii_pb2, pompeii_pb2_grpc, tournament_pb2, tournament_pb2_grpc
from tests.conftest import ROOT

from .test_observability import play_one, scrape, value


def drain_cli(s, *args: str) -> subprocess.CompletedProcess:
    env = dict(s.env)
    return subprocess.run([sys.executable, "-m", "server.drain", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)


def wait_for(predicate, timeout: float = 5.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def test_item2_draining_replica_refuses_creates_and_keeps_its_games(fresh_server):
    s = fresh_server(GE_LOG_LEVEL="info").start()
    client = Client(s.target, "pompeii")
    try:
        game_id, tokens = client.create(3, seed=7)
        tournament, creator = TournamentClient(s.target).create("kuhn", 2, time_bank_ms=20_000)
        done = drain_cli(s, "on")
        assert done.returncode == 0, done.stderr
        assert (s.data_dir / "DRAIN").stat().st_mode & 0o777 == 0o600  # as every file of the data dir
        assert wait_for(lambda: value(scrape(s), "ge_draining") == 1)

        with grpc.insecure_channel(s.target) as ch:
            with pytest.raises(grpc.RpcError) as err:
                pompeii_pb2_grpc.PompeiiServiceStub(ch).CreatePompeiiGame(
                    pompeii_pb2.CreatePompeiiGameRequest(seats=3), timeout=5)
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE
        status = rpc_status.from_call(err.value)
        info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
        assert any(d.Unpack(info) for d in status.details if d.Is(info.DESCRIPTOR))
        assert any(d.Unpack(retry) for d in status.details if d.Is(retry.DESCRIPTOR))
        assert info.reason == "DRAINING"
        assert "draining" in status.message

        # a tournament is games to come: neither created nor started here while draining
        tstub = tournament_pb2_grpc.TournamentServiceStub(grpc.insecure_channel(s.target))
        for call, req in ((tstub.CreateTournament, tournament_pb2.CreateTournamentRequest(
                game="kuhn", seats_per_game=2, clock=tournament_pb2.TournamentClock(time_bank_ms=20_000))),
                          (tstub.StartTournament, tournament_pb2.StartTournamentRequest(
                              tournament_id=tournament.tournament_id, creator_token=creator))):
            with pytest.raises(grpc.RpcError) as err:
                call(req, timeout=5)
            assert err.value.code() == grpc.StatusCode.UNAVAILABLE and "draining" in err.value.details()

        # its own game is served as before
        play_one(client, game_id, tokens)
        assert client.status(game_id).version == 1
        assert "unfinished_games=1" in drain_cli(s, "status").stdout
        assert drain_cli(s, "wait", "--timeout", "1").returncode == 1  # one game still running

        client.adjudicate(game_id, tokens, "test: finished")
        done = drain_cli(s, "wait", "--timeout", "20")
        assert done.returncode == 0, done.stderr
        assert wait_for(lambda: '"event": "drained"' in s.log.read_text())

        # off again: creates are accepted
        assert drain_cli(s, "off").returncode == 0
        assert wait_for(lambda: value(scrape(s), "ge_draining") == 0)
        new_id, _ = client.create(3, seed=8)
        assert new_id
    finally:
        client.close()


def test_item2_drain_survives_a_restart(fresh_server):
    s = fresh_server(GE_DRAIN_FILE="")
    s.data_dir.mkdir(parents=True)
    (s.data_dir / "DRAIN").touch()
    s.start()
    with grpc.insecure_channel(s.target) as ch:
        with pytest.raises(grpc.RpcError) as err:
            pompeii_pb2_grpc.PompeiiServiceStub(ch).CreatePompeiiGame(
                pompeii_pb2.CreatePompeiiGameRequest(seats=3), timeout=5)
    assert err.value.code() == grpc.StatusCode.UNAVAILABLE
    assert value(scrape(s), "ge_draining") == 1
    assert os.path.exists(s.data_dir / "DRAIN")
