"""A fair share of the referee's worker pool (issue 19 item 2, server/fairshare.py): a freed worker
goes to the waiting client that used the least worker time lately, so a light client's hint waits
for the job that is running, not for every job a heavy client has queued."""
from __future__ import annotations

import asyncio
import concurrent.futures
import time

from clients.sdk import Client
from server.fairshare import FairShare

from .support import raw, web_call

GAME = "pompeii"
SERVICE = "PompeiiService"


def test_a_freed_place_goes_to_the_client_that_used_least():
    async def main():
        share = FairShare(1)
        order = []

        async def job(client, seconds):
            async with share.turn(client):
                order.append(client)
                await asyncio.sleep(seconds)

        heavy = [asyncio.create_task(job("heavy", 0.05)) for _ in range(3)]
        await asyncio.sleep(0.01)  # heavy holds the place, two more of its jobs wait
        light = asyncio.create_task(job("light", 0.01))
        await asyncio.gather(*heavy, light)
        return order

    assert asyncio.run(main()) == ["heavy", "light", "heavy", "heavy"]


def test_a_cancelled_waiter_leaves_the_line_and_the_place_is_not_lost():
    async def main():
        share = FairShare(1)
        async with share.turn("a"):
            waiter = asyncio.create_task(share.turn("b").__aenter__())
            await asyncio.sleep(0.01)
            waiter.cancel()
            await asyncio.sleep(0.01)
        assert share.waiting == {} and share.free == 1
        async with share.turn("c"):  # the place is free again
            return share.free

    assert asyncio.run(main()) == 0


def test_a_light_clients_hint_does_not_wait_behind_a_heavy_clients_queue(fresh_server):
    server = fresh_server(GE_HINT_QUEUE="6", GE_HINTS_PER_CLIENT="3", GE_HINTS_PER_GAME="3", GE_HINTS_PER_ADDRESS="3",
                          GE_HINT_MS_PER_CLIENT_MIN="60000").with_web().start()
    web_port = server.web_port
    light = Client(server.target, GAME)
    game_id, tokens = light.create(2, seed=8)
    seat = light.status(game_id).to_move

    def light_hint(budget):
        t0 = time.monotonic()
        code = raw(light.rpcs["get_hint"], light.request("get_hint", game_id=game_id, token=tokens[seat],
                                                         budget_ms=budget), timeout=30)[0]
        return code, time.monotonic() - t0

    status, game = web_call(web_port, SERVICE, "CreatePompeiiGame", {"seats": 2}, source="127.0.6.1")
    assert status == 200
    heavy_body = {"gameId": game["gameId"], "budgetMs": 2000,
                  "token": game["seatTokens"][game["status"].get("toMove", 0)]["token"]}
    # The worker process is started by a third client, so that neither is charged for its start.
    assert web_call(web_port, SERVICE, "GetPompeiiHint", dict(heavy_body, budgetMs=50), "127.0.6.9")[0] == 200
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        heavy = [pool.submit(web_call, web_port, SERVICE, "GetPompeiiHint", heavy_body, "127.0.6.1")
                 for _ in range(3)]
        time.sleep(0.5)  # one heavy hint runs, two wait
        code, waited = light_hint(100)
        assert [f.result()[0] for f in heavy] == [200, 200, 200]
    assert code == "OK"
    # First come, first served it would wait for all three (over 5 s); its fair turn is next.
    assert waited < 3.6, waited


def test_a_waiter_cancelled_as_its_place_is_handed_over_does_not_take_or_lose_the_place():
    """The caller's cancellation cancels its ticket at once, but the caller leaves the line only when it
    next runs: a place freed in between went to the cancelled ticket (InvalidStateError in the job that
    freed it, ValueError in the caller, and the place lost for good). It now goes to the next in line."""
    async def scenario():
        fair = FairShare(1)
        got = []

        async def job(client):
            async with fair.turn(client):
                got.append(client)
                await asyncio.sleep(0.01)
        first = fair.turn("a")
        await first.__aenter__()
        b, c = asyncio.create_task(job("b")), asyncio.create_task(job("c"))
        await asyncio.sleep(0.01)  # both wait in line
        b.cancel()
        await first.__aexit__(None, None, None)  # frees the place before b's task sees its cancellation
        results = await asyncio.gather(b, c, return_exceptions=True)
        assert isinstance(results[0], asyncio.CancelledError) and results[1] is None
        assert got == ["c"] and fair.free == 1 and not fair.waiting
    asyncio.run(scenario())


def test_GE_WORKERS_PER_CLIENT_one_client_never_holds_every_place():
    """A search is not preempted, so a client on every worker would make anyone else wait for its
    longest search: with per_client below the places, another client's job starts at once."""
    async def main():
        share = FairShare(2, per_client=1)
        started = {}

        async def job(client, seconds):
            async with share.turn(client):
                started.setdefault(client, []).append(time.monotonic())
                await asyncio.sleep(seconds)

        t0 = time.monotonic()
        heavy = [asyncio.create_task(job("heavy", 0.2)) for _ in range(3)]
        await asyncio.sleep(0.01)
        assert share.free == 1 and share.holding == {"heavy": 1}  # one place stays free while heavy waits
        light = asyncio.create_task(job("light", 0.01))
        await asyncio.gather(*heavy, light)
        assert share.free == 2 and not share.holding and not share.waiting
        return started["light"][0] - t0, [t - t0 for t in started["heavy"]]

    light_at, heavy_at = asyncio.run(main())
    assert light_at < 0.1, light_at  # not behind heavy's running search
    assert heavy_at[1] >= 0.19 and heavy_at[2] >= 0.39, heavy_at  # heavy's jobs ran one at a time


def test_GE_WORKERS_PER_CLIENT_zero_lets_one_client_hold_every_place():
    async def main():
        share = FairShare(2, per_client=0)
        async with share.turn("a"):
            async with share.turn("a"):
                return share.free

    assert asyncio.run(main()) == 0


def test_a_light_clients_hint_starts_while_a_heavy_clients_search_runs(fresh_server):
    """Default settings (GE_HINT_WORKERS=2, GE_WORKERS_PER_CLIENT=1): a client flooding 2 s hints holds
    one worker, so another client's 100 ms hint does not wait for a 2 s search to end."""
    server = fresh_server().with_web().start()
    web_port = server.web_port
    light = Client(server.target, GAME)
    game_id, tokens = light.create(2, seed=8)
    seat = light.status(game_id).to_move
    status, game = web_call(web_port, SERVICE, "CreatePompeiiGame", {"seats": 2}, source="127.0.6.1")
    assert status == 200
    heavy_body = {"gameId": game["gameId"], "budgetMs": 2000,
                  "token": game["seatTokens"][game["status"].get("toMove", 0)]["token"]}
    warm = dict(heavy_body, budgetMs=300)  # two other clients at once start both worker processes
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        assert [f.result()[0] for f in [pool.submit(web_call, web_port, SERVICE, "GetPompeiiHint", warm, src)
                                        for src in ("127.0.6.8", "127.0.6.9")]] == [200, 200]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        heavy = [pool.submit(web_call, web_port, SERVICE, "GetPompeiiHint", heavy_body, "127.0.6.1")
                 for _ in range(2)]
        time.sleep(0.4)  # one heavy hint runs, the other waits for the heavy client's one worker
        t0 = time.monotonic()
        code = raw(light.rpcs["get_hint"], light.request("get_hint", game_id=game_id, token=tokens[seat],
                                                         budget_ms=100), timeout=30)[0]
        waited = time.monotonic() - t0
        assert [f.result()[0] for f in heavy] == [200, 200]
    assert code == "OK"
    assert waited < 1.2, waited  # one worker for everyone: it waited ~1.6 s for the heavy search


def test_adjudications_leave_the_last_place_of_the_pool_to_the_clocks(fresh_server):
    """Hints could never take the last place; adjudications could, so three players' adjudications
    stopped every clock on the server (a victim's referee made 0-1 moves in 25 s instead of 56)."""
    server = fresh_server(GE_HINT_WORKERS="1", GE_HINT_QUEUE="1", GE_ADMIN_TOKEN="op").start()
    client = Client(server.target, GAME)
    games = [client.create(2, seed=i)[0] for i in range(2)]
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        long = pool.submit(raw, client.common.AdjudicateGame, adjudicate_req(games[0], 2000), timeout=60)
        time.sleep(1.0)  # it holds the one place a search may take
        code, message, _ = raw(client.common.AdjudicateGame, adjudicate_req(games[1], 50), timeout=60)
        assert long.result()[0] == "OK"
    assert code == "RESOURCE_EXHAUSTED" and "busy" in message, (code, message)


def adjudicate_req(game_id: str, rollouts: int):
    from gameengine.v1 import common_pb2
    return common_pb2.AdjudicateGameRequest(game_id=game_id, tokens=["op"], reason="test", rollouts=rollouts)
