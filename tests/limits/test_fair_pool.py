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
    server = fresh_server(GE_WEB_PORT="0", GE_HINT_QUEUE="6", GE_HINTS_PER_CLIENT="3", GE_HINTS_PER_GAME="3",
                          GE_HINT_MS_PER_CLIENT_MIN="60000")
    from tests.conftest import free_port
    web_port = free_port()
    server.env["GE_WEB_PORT"] = str(web_port)
    server.start()
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
