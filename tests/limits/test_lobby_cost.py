"""ListOpenGames costs what it does: it looks only at the games waiting for players (the store's index of
them, not every game in memory), and a page costs one request per 10 games asked for. Before, each call
scanned and sorted every game and cost one request: one client at its rate limit held a victim's p99 at
58 ms, and at 100,000 games a single call scanned them all."""
from __future__ import annotations

import pytest

from clients.sdk import Client, PlayerClient
from gameengine.v1 import lobby_pb2, lobby_pb2_grpc
from server import lobby
from server.participation import Seating
from tests.storage.support import open_store

from .support import raw


def seating(creator: str, seats: int = 2) -> Seating:
    return Seating(holders=[creator] + [""] * (seats - 1), creator=creator, private=False, invite_hash="",
                   created_at=0.0, expires_at=1e12, claims=[1] * seats, token_pending=[False] * seats,
                   started=False)


def test_listing_looks_only_at_the_waiting_games(tmp_path, monkeypatch):
    store, core = open_store(tmp_path)
    for i in range(500):
        core.create("kuhn", 2, {}, i, {})
    waiting = [core.create("kuhn", 2, {}, None, {}, seating("p-1"))[0] for _ in range(3)]
    for rec in waiting:
        lobby.created(core, referee=None, rec=rec)  # type: ignore[arg-type]  # a waiting game starts no clock
    lobby.list_open(core, "", 100, "")  # the first look builds the index from every game, once
    looked = []
    real = lobby.seating_of
    monkeypatch.setattr(lobby, "seating_of", lambda rec: looked.append(rec.game_id) or real(rec))
    page, _ = lobby.list_open(core, "", 100, "")
    assert {rec.game_id for rec, _ in page} == {rec.game_id for rec in waiting}
    assert len(looked) <= 2 * len(waiting), f"{len(looked)} games looked at for 3 waiting ones"
    store.close()


def test_a_page_of_open_games_costs_a_request_per_ten_games(fresh_server):
    server = fresh_server(GE_RATE_LIMIT_PER_S="20").start()  # a burst of 40 requests
    PlayerClient.register(server.target, "lister")
    stub = lobby_pb2_grpc.LobbyServiceStub(Client(server.target, "pompeii").channel)
    codes = [raw(stub.ListOpenGames, lobby_pb2.ListOpenGamesRequest(page_size=100))[0] for _ in range(8)]
    assert codes[:3] == ["OK"] * 3 and "RESOURCE_EXHAUSTED" in codes[3:5], codes


@pytest.mark.parametrize("page_size", [0, 10])
def test_small_pages_cost_little(fresh_server, page_size):
    server = fresh_server(GE_RATE_LIMIT_PER_S="20").start()
    stub = lobby_pb2_grpc.LobbyServiceStub(Client(server.target, "pompeii").channel)
    codes = [raw(stub.ListOpenGames, lobby_pb2.ListOpenGamesRequest(page_size=page_size))[0] for _ in range(12)]
    assert codes == ["OK"] * 12


def test_a_page_size_over_the_maximum_is_refused_before_it_costs_anything(fresh_server):
    """It was charged before it was checked: page_size 2^32-1 put the caller ~429 million requests in
    debt, refused for 25 days (RetryInfo 2,147,457 s)."""
    server = fresh_server(GE_RATE_LIMIT_PER_S="20").start()
    stub = lobby_pb2_grpc.LobbyServiceStub(Client(server.target, "pompeii").channel)
    code, message, _ = raw(stub.ListOpenGames, lobby_pb2.ListOpenGamesRequest(page_size=2**32 - 1))
    assert code == "INVALID_ARGUMENT" and "page_size is at most 100" in message
    codes = [raw(stub.ListOpenGames, lobby_pb2.ListOpenGamesRequest(page_size=100))[0] for _ in range(3)]
    assert codes == ["OK"] * 3, "the refused page cost nothing"


def test_a_lobby_create_with_a_huge_seat_count_is_refused_before_its_seating_is_built(fresh_server):
    """A seating holds a list per seat: built before the seat count was checked, seats=2^31-1 took 24 GB
    and the kernel killed the server (30 million: 780 MB)."""
    from gameengine.v1 import kuhn_pb2

    server = fresh_server().start()
    token = PlayerClient.register(server.target, "seats").token

    def peak_kib() -> int:
        status = open(f"/proc/{server.proc.pid}/status").read()
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")))

    before = peak_kib()
    client = Client(server.target, "kuhn")
    code, message, _ = raw(client.rpcs["create_game"], kuhn_pb2.CreateKuhnGameRequest(seats=30_000_000,
                                                                                      player_token=token))
    assert code == "INVALID_ARGUMENT" and "kuhn takes 2 to 2 seats" in message
    assert peak_kib() - before < 100_000, "nothing was built per seat"
