"""Quotas per client and in total (issue 19 item 2): each one hit is RESOURCE_EXHAUSTED with a RetryInfo
and a sentence naming its setting, and another client (another loopback address, on the web port, which
calls the same servicers) goes on."""
from __future__ import annotations

import concurrent.futures
import time

import grpc
import pytest

from clients.sdk import Client
from gameengine.v1 import common_pb2
from tests.conftest import CallContext
from tests.web.conftest import WebServer

from .support import create, raw, web_call, web_retry_s

GAME = "pompeii"
SERVICE = "PompeiiService"


@pytest.fixture
def web(tmp_path):
    servers = []

    def make(**env):
        s = WebServer(tmp_path / f"w{len(servers)}", **env).start()
        servers.append(s)
        return s

    yield make
    for s in servers:
        s.stop()


def test_requests_per_client_not_per_connection(web):
    server = web(GE_RATE_LIMIT_PER_S="20", GE_LOG_LEVEL="info")
    client = Client(server.target, GAME)
    game_id, _ = client.create(2, seed=1)
    view = client.request("get_view", game_id=game_id)
    # two connections from one address, used in turn: one client, so one burst of 2 x 20 between them
    other = Client(server.target, GAME, channel=grpc.insecure_channel(
        server.target, options=[("grpc.use_local_subchannel_pool", 1)]))
    codes = []
    while len(codes) < 120 and sum(c[0] == "RESOURCE_EXHAUSTED" for c in codes) < 3:
        t0 = time.perf_counter()
        codes.append(raw((client, other)[len(codes) % 2].rpcs["get_view"], view))
    assert time.perf_counter() - t0 >= 0.2, "a quota refusal is paced, not answered at once"
    refused = [c for c in codes if c[0] == "RESOURCE_EXHAUSTED"]
    first = next(i for i, c in enumerate(codes) if c[0] == "RESOURCE_EXHAUSTED")
    assert 35 <= first <= 50, f"refused after {first} calls: per client, not 40 per connection"
    assert {c[0] for c in codes} <= {"OK", "RESOURCE_EXHAUSTED"}
    assert all(0 < delay <= 1 for _, _, delay in refused) and "GE_RATE_LIMIT_PER_S" in refused[0][1]
    # another address is another client; the same limit holds for it on the web port
    status, _ = web_call(server.web_port, SERVICE, "GetPompeiiView", {"gameId": game_id})
    assert status == 200
    with concurrent.futures.ThreadPoolExecutor(16) as pool:  # faster than 20/s however loaded the machine
        statuses = list(pool.map(lambda _: web_call(server.web_port, SERVICE, "GetPompeiiView", {"gameId": game_id},
                                                    source="127.0.0.3"), range(120)))
    assert 429 in {s for s, _ in statuses}
    assert web_retry_s(next(e for s, e in statuses if s == 429)) > 0
    time.sleep(1.5)
    assert raw(client.rpcs["get_view"], view)[0] == "OK"  # after the retry delay the client goes on
    refusal_lines = server.log.read_text().count('"code": "RESOURCE_EXHAUSTED"')
    assert refusal_lines <= 6, "a flood of refusals is logged about once per client per second"


def test_creates_per_minute_and_live_games(web):
    server = web(GE_CREATES_PER_MIN="4", GE_LIVE_GAMES_PER_CLIENT="2", GE_LIVE_GAMES="3")
    client = Client(server.target, GAME)
    t0 = time.monotonic()
    games = [client.create(2, seed=i) for i in range(2)]
    code, message, delay = create(client)
    assert code == "RESOURCE_EXHAUSTED" and "GE_LIVE_GAMES_PER_CLIENT" in message and delay > 0
    for i in range(2):  # finishing a game frees its place
        client.adjudicate(*games[i], "done", rollouts=4)
        games.append(client.create(2, seed=10 + i))
        assert create(client)[0] == "RESOURCE_EXHAUSTED"
    client.adjudicate(*games[2], "done", rollouts=4)
    code, message, delay = create(client)  # the 5th create within a minute
    if time.monotonic() - t0 < 14:  # else (a slow machine) the bucket has earned a 5th: 4 a minute is one per 15 s
        assert code == "RESOURCE_EXHAUSTED" and "GE_CREATES_PER_MIN" in message and 1 < delay <= 15
    # the total: client 2 takes the last of 3 live places, client 3 is refused
    for _ in range(2 if code == "RESOURCE_EXHAUSTED" else 1):
        assert web_call(server.web_port, SERVICE, "CreatePompeiiGame", {"seats": 2})[0] == 200
    status, err = web_call(server.web_port, SERVICE, "CreatePompeiiGame", {"seats": 2}, source="127.0.0.3")
    assert status == 429 and "GE_LIVE_GAMES" in err["message"] and web_retry_s(err) > 0


def test_players_calling_from_one_address_share_its_ceiling(fresh_server):
    """Each registered player is a client of its own (players behind one NAT), but registering more
    players from one address does not multiply what that address may hold."""
    from clients.sdk import PlayerClient
    server = fresh_server(GE_LIVE_GAMES_PER_CLIENT="2", GE_LIVE_GAMES_PER_ADDRESS="4",
                          GE_STREAMS_PER_CLIENT="2", GE_STREAMS_PER_ADDRESS="3").start()
    client = Client(server.target, GAME)
    game_id, _ = client.create(2, seed=9)  # the address's own (no player token): 1 of its 4
    ann, bob = (("x-player-token", PlayerClient.register(server.target, name).token) for name in ("ann", "bob"))
    assert [create(client, metadata=(ann,))[0] for _ in range(2)] == ["OK", "OK"]
    code, message, _ = create(client, metadata=(ann,))
    assert code == "RESOURCE_EXHAUSTED" and "GE_LIVE_GAMES_PER_CLIENT" in message
    assert create(client, metadata=(bob,))[0] == "OK"
    code, message, delay = create(client, metadata=(bob,))
    assert code == "RESOURCE_EXHAUSTED" and "GE_LIVE_GAMES_PER_ADDRESS" in message and delay > 0
    assert create(client)[1].count("GE_LIVE_GAMES_PER_ADDRESS") == 1

    stream = client.rpcs["stream_events"]

    def open_stream(who):
        return stream(client.request("stream_events", game_id=game_id, from_version=0), timeout=3,
                      metadata=(who,))

    held = [open_stream(ann), open_stream(ann), open_stream(bob)]
    time.sleep(0.5)
    with pytest.raises(grpc.RpcError) as e:
        next(open_stream(bob))  # bob's second: within his own 2, beyond the address's 3
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "GE_STREAMS_PER_ADDRESS" in e.value.details()
    for call in held:
        call.cancel()


def test_demo_games_have_a_low_per_client_cap(fresh_server):
    server = fresh_server(GE_DEMO_GAMES_PER_CLIENT="1").start()
    client = Client(server.target, GAME)
    demo = {"time_bank_ms": 1, "increment_ms": 700, "timeout_policy": 2}
    assert create(client, **demo)[0] == "OK"
    code, message, delay = create(client, **demo)
    assert code == "RESOURCE_EXHAUSTED" and "GE_DEMO_GAMES_PER_CLIENT" in message and delay > 0
    assert create(client, time_bank_ms=60_000)[0] == "OK"  # a real clock is not a demo


def test_streams_per_client_and_spectators_per_game(fresh_server):
    server = fresh_server(GE_STREAMS_PER_CLIENT="3", GE_SPECTATORS_PER_GAME="2").start()
    client = Client(server.target, GAME)
    game_id, tokens = client.create(2, seed=5)
    stream = client.rpcs["stream_events"]

    def open_stream(token=""):
        call = stream(client.request("stream_events", game_id=game_id, token=token, from_version=0),
                      timeout=3)
        return call

    held = [open_stream(), open_stream()]
    time.sleep(0.5)
    with pytest.raises(grpc.RpcError) as e:
        next(open_stream())
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "GE_SPECTATORS_PER_GAME" in e.value.details()
    seat_stream = open_stream(tokens[0])  # a seat is not crowded out by spectators
    time.sleep(0.5)
    with pytest.raises(grpc.RpcError) as e:
        next(open_stream(tokens[1]))
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "GE_STREAMS_PER_CLIENT" in e.value.details()
    from clients.sdk import retry_delay_s
    assert retry_delay_s(e.value) > 0
    with pytest.raises(grpc.RpcError) as e:
        next(seat_stream)
    assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED  # it was open until its deadline
    for call in held:
        call.cancel()
    time.sleep(0.5)
    with pytest.raises(grpc.RpcError) as e:  # places are given back when streams end
        next(open_stream())
    assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED


def test_hints_per_game_per_client_and_search_time(fresh_server):
    server = fresh_server(GE_HINTS_PER_CLIENT="2", GE_HINTS_PER_GAME="1", GE_HINT_MS_PER_CLIENT_MIN="3000",
                          GE_HINT_QUEUE="6").start()
    client = Client(server.target, GAME)
    games = [client.create(2, seed=20 + i) for i in range(3)]

    def hint(game, budget=900):
        game_id, tokens = game
        seat = client.status(game_id).to_move
        return raw(client.rpcs["get_hint"], client.request("get_hint", game_id=game_id, token=tokens[seat],
                                                        budget_ms=budget), timeout=60)

    assert hint(games[0], 50)[0] == "OK"  # starts the worker process
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        same_game = list(pool.map(lambda g: hint(g), [games[0], games[0]]))
    codes = sorted(c for c, _, _ in same_game)
    assert codes == ["OK", "RESOURCE_EXHAUSTED"]
    assert "GE_HINTS_PER_GAME" in next(m for c, m, _ in same_game if c != "OK")
    time.sleep(1)
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        three = list(pool.map(lambda g: hint(g, 300), games))
    refused = [(m, d) for c, m, d in three if c == "RESOURCE_EXHAUSTED"]
    assert refused and any("GE_HINTS_PER_CLIENT" in m or "GE_HINT_MS_PER_CLIENT_MIN" in m for m, _ in refused)
    assert all(d > 0 for _, d in refused)
    code, message, delay = hint(games[1], 2000)  # the minute's search time is used up
    assert code == "RESOURCE_EXHAUSTED" and "GE_HINT_MS_PER_CLIENT_MIN" in message and delay > 1


def test_referee_work_is_shared_per_client(web):
    """One client's many clocked games get its budget of referee moves; another client's game its own."""
    server = web(GE_REFEREE_MOVES_PER_CLIENT_S="2", GE_DEMO_GAMES_PER_CLIENT="0", GE_REFEREE_TICK_S="0.05")
    client = Client(server.target, GAME)
    flood = [client.create(2, seed=40 + i, time_bank_ms=1, timeout_policy="random")[0] for i in range(10)]
    status, body = web_call(server.web_port, SERVICE, "CreatePompeiiGame",
                            {"seats": 2, "seed": 99,
                             "referee": {"timeBankMs": 1, "timeoutPolicy": "TIMEOUT_POLICY_RANDOM"}})
    assert status == 200
    time.sleep(4)
    flood_moves = sum(client.status(g).version for g in flood)
    other_moves = client.status(body["gameId"]).version
    assert flood_moves <= 2 * 4 + 2 + 2, "the flooding client's games share 2 referee moves/s (burst 2)"
    assert other_moves >= 4, "the other client's game has its own budget"


def test_referee_pool_share_per_game_creator(fresh_server):
    server = fresh_server(GE_POOL_JOBS_PER_CLIENT="1", GE_HINT_QUEUE="4").start()
    client = Client(server.target, GAME)
    games = [client.create(3, seed=60 + i) for i in range(2)]
    adjudicate = client.common.AdjudicateGame
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda g: raw(adjudicate, common_pb2.AdjudicateGameRequest(
            game_id=g[0], tokens=g[1], reason="stop", rollouts=2000), timeout=60), games))
    codes = sorted(c for c, _, _ in results)
    assert codes == ["OK", "RESOURCE_EXHAUSTED"], results
    assert "GE_POOL_JOBS_PER_CLIENT" in next(m for c, m, _ in results if c != "OK")


def test_creates_come_in_bursts_of_GE_CREATES_BURST(web):
    server = web(GE_CREATES_PER_MIN="120", GE_CREATES_BURST="3")
    client = Client(server.target, GAME)
    assert [create(client)[0] for _ in range(3)] == ["OK"] * 3
    code, message, delay = create(client)
    assert code == "RESOURCE_EXHAUSTED" and "GE_CREATES_BURST" in message and 0 < delay <= 1


def test_a_request_over_64_kib_is_refused_by_default(web):
    server = web()
    status, err = web_call(server.web_port, SERVICE, "GetPompeiiView", {"gameId": "g", "token": "t" * 70_000})
    assert status == 413 or err["code"] == "resource_exhausted", (status, err)
    client = Client(server.target, GAME)
    code = raw(client.common.GetGameStatus, common_pb2.GetGameStatusRequest(game_id="x" * 70_000))[0]
    assert code == "RESOURCE_EXHAUSTED"


def test_an_oversize_grpc_request_is_refused_like_the_web_ports_paced_and_counted(fresh_server):
    """It was gRPC's own refusal: no ErrorInfo, answered at once, in no metric or log."""
    from google.rpc import error_details_pb2
    from grpc_status import rpc_status

    from tests.server.test_observability import scrape_until, value
    server = fresh_server().start()
    client = Client(server.target, GAME)
    request = common_pb2.GetGameStatusRequest(game_id="x" * 70_000)
    t0 = time.perf_counter()
    with pytest.raises(grpc.RpcError) as e:
        client.common.GetGameStatus(request, timeout=10)
    assert time.perf_counter() - t0 >= 0.2, "answered at once"
    status = rpc_status.from_call(e.value)
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info) and info.metadata["rule"] == "LIMIT"
    assert "GE_MAX_MESSAGE_BYTES" in e.value.details()
    samples = scrape_until(server, lambda m: value(m, "ge_limit_refusals_total", limit="message_size") >= 1)
    assert value(samples, "ge_limit_refusals_total", limit="message_size") == 1


def test_an_oversized_web_body_is_refused_before_it_is_read(web):
    """The head declares 10 MB and no byte of the body follows: the answer comes anyway (paced, at
    most 1 s), as a Connect resource_exhausted, and the connection is closed."""
    import json
    import socket

    server = web()
    with socket.create_connection(("127.0.0.1", server.web_port), timeout=5) as sock:
        sock.sendall(b"POST /gameengine.v1.PompeiiService/GetPompeiiView HTTP/1.1\r\nHost: t\r\n"
                     b"Content-Type: application/json\r\nContent-Length: 10000000\r\n\r\n")
        t0 = time.perf_counter()
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 429") and b"connection: close" in head.lower()
    assert json.loads(body)["code"] == "resource_exhausted" and b"GE_MAX_MESSAGE_BYTES" in body
    assert time.perf_counter() - t0 < 2.5


def test_heavy_creators_share_GE_CREATES_TOTAL_PER_S_and_a_light_user_is_not_refused(web):
    """A botnet: many addresses, each within its own quota. Beyond each one's light share (2 a minute)
    their creates come from one bucket (one every 5 s); a light user's first creates pass while that
    bucket is empty. A create whose token is more than CREATE_WAIT_MAX_S away is refused at once (at one
    every 2 s, a slow machine reached the next token within the wait and the refusal became a wait)."""
    server = web(GE_CREATES_TOTAL_PER_S="0.2", GE_CREATES_LIGHT_PER_MIN="2")

    def create_from(source):
        status, body = web_call(server.web_port, SERVICE, "CreatePompeiiGame", {"seats": 2}, source=source)
        return ("OK" if status == 200 else body["code"]), body

    heavy = [create_from("127.0.5.1")[0] for _ in range(4)]
    assert heavy == ["OK", "OK", "OK", "resource_exhausted"], heavy  # light, light, the shared one, none left
    assert [create_from("127.0.5.3")[0] for _ in range(2)] == ["OK", "OK"]  # a light user is not refused
    code, err = create_from("127.0.5.3")  # past its light share, the shared bucket is still empty
    assert code == "resource_exhausted" and "GE_CREATES_TOTAL_PER_S" in err["message"], err
    assert 1 < web_retry_s(err) <= 5  # when the next token comes
    time.sleep(web_retry_s(err))
    assert create_from("127.0.5.1")[0] == "OK"  # the shared bucket refills


def test_a_create_beyond_the_shared_bucket_waits_for_its_next_token_or_is_told_to_wait_a_second():
    """Beyond the shared burst a create waits for GE_CREATES_TOTAL_PER_S's next token when it comes within
    CREATE_WAIT_MAX_S; when it does not, the refusal comes at once and asks for at least a second."""
    import asyncio

    from server.errors import Exhausted
    from server.quotas import CREATE_WAIT_MAX_S, Quotas, Settings

    async def scenario(total: float) -> float:
        q = Quotas(Settings(creates_per_min=1000, creates_total_per_s=total, creates_light_per_min=1))
        for _ in range(1 + max(1, int(total))):  # its light share, then the shared burst
            await q.may_create("10.0.0.1", 0)
        t0 = time.perf_counter()
        await q.may_create("10.0.0.1", 0)
        return time.perf_counter() - t0

    assert 0.02 <= asyncio.run(scenario(20)) < CREATE_WAIT_MAX_S  # the next token, 50 ms away
    with pytest.raises(Exhausted) as refused:
        asyncio.run(scenario(0.5))  # the next token is 2 s away
    assert "GE_CREATES_TOTAL_PER_S" in str(refused.value) and refused.value.retry_after_ms >= 1000


def test_the_shared_create_buckets_next_token_goes_to_the_address_that_took_fewest_lately():
    """Sixty botnet addresses kept GE_CREATES_TOTAL_PER_S empty, and a player who created a game every
    few seconds waited 1.5 s per create for a token one of them did not take first. Waiting creates
    now get each token least-served address first: the player's create, come last, is served first."""
    import asyncio

    from server.quotas import Quotas, Settings

    async def scenario() -> list[str]:
        q = Quotas(Settings(creates_per_min=1000, creates_total_per_s=10))
        for _ in range(10):
            await q.may_create("ip:10.0.0.1", 0, "ip:10.0.0.1")  # a botnet address empties the bucket
        served: list[str] = []

        async def create(address: str) -> None:
            await q.may_create(address, 0, address)
            served.append(address)

        heavy = [asyncio.create_task(create("ip:10.0.0.1")) for _ in range(3)]
        await asyncio.sleep(0.01)
        light = asyncio.create_task(create("ip:10.0.0.2"))
        await asyncio.gather(*heavy, light)
        return served

    assert asyncio.run(scenario())[0] == "ip:10.0.0.2"


def test_a_full_line_at_the_shared_create_bucket_lets_a_lighter_address_take_the_heaviest_ones_place():
    import asyncio

    from server.quotas import FairBucket

    async def scenario() -> tuple[float, list[float], list[float]]:
        line = FairBucket(rate=1, burst=1, max_wait_s=0.5, max_waiting=2)
        assert await line.take("heavy") == 0.0  # the only token
        line.bucket.tokens = 0.6  # the next one 0.4 s away, within the wait
        heavy = [asyncio.create_task(line.take("heavy")) for _ in range(2)]
        await asyncio.sleep(0.01)
        light = await line.take("light")  # the line is full: it takes a heavy waiter's place
        refused_first = [h.result() for h in heavy if h.done()]
        return light, refused_first, [await h for h in heavy]

    light, refused_first, heavy = asyncio.run(scenario())
    assert light == 0.0 and refused_first == [0.5]  # the light one got the token; one heavy waiter made room
    assert heavy == [0.5, 0.5]  # the other waited its half second: the next token is 1.4 s away


def test_a_caller_that_does_not_wait_keeps_its_fair_share_of_the_shared_create_bucket():
    """A tournament's scheduler takes without waiting (may_schedule): with a botnet always waiting, it
    got no token at all. It takes a free one when it took fewer lately than every waiter."""
    import asyncio

    from server.quotas import FairBucket

    async def scenario() -> tuple[bool, bool]:
        line = FairBucket(rate=20, burst=1, max_wait_s=1.0)
        for _ in range(3):
            assert await line.take("botnet") == 0.0  # the second and third after 50 ms each
        waiting = asyncio.create_task(line.take("botnet"))
        await asyncio.sleep(0)
        line.bucket.tokens = 1.0  # a token came back before the line was served
        scheduler = line.try_take("tournament")
        line.bucket.tokens = 1.0
        heavier = line.try_take("botnet")  # took as many as the waiter: it does not jump the line
        await waiting
        return scheduler, heavier

    assert asyncio.run(scenario()) == (True, False)


def test_a_token_given_to_a_create_that_left_goes_to_the_next_waiter():
    import asyncio

    from server.quotas import FairBucket

    async def scenario() -> float:
        line = FairBucket(rate=20, burst=1, max_wait_s=1.0)
        assert await line.take("a") == 0.0
        leaving = asyncio.create_task(line.take("b"))
        staying = asyncio.create_task(line.take("c"))
        await asyncio.sleep(0)
        leaving.cancel()
        t0 = time.perf_counter()
        assert await staying == 0.0
        return time.perf_counter() - t0

    assert asyncio.run(scenario()) < 0.5


def test_a_web_callers_refusal_is_held_by_the_web_edge_not_in_the_servers_loop():
    """A paced refusal of a call the web edge forwarded leaves the gRPC server at once, with the hold
    in a trailer (transport.HOLD_MS); the edge holds it (web.refusal). Held in the server, a flood of
    browsers' refused streams kept thousands of live calls in its loop and heap. A gRPC caller's is
    still held by the server."""
    import asyncio

    from server import edge, quotas, transport
    from server.errors import Exhausted

    def refuse(peer: str) -> tuple[float, dict]:
        ctx = CallContext(((transport.WEB_PEER, "web:127.0.0.9:5000"),), peer)
        call = edge._Call("GetPompeiiView", ctx)
        call.client = "127.0.0.9"
        t0 = time.perf_counter()
        with pytest.raises(RuntimeError):
            asyncio.run(call.exit(Exhausted("over the test's quota", retry_after_ms=1000)))
        return time.perf_counter() - t0, dict(ctx.aborted[0][2])

    saved, quotas.QUOTAS = quotas.QUOTAS, quotas.Quotas(quotas.Settings())
    try:
        took, trailers = refuse("unix:/run/ge/edge.sock")
        assert took < 0.15 and 800 <= int(trailers[transport.HOLD_MS]) <= 1000, (took, trailers)
        took, trailers = refuse("ipv4:127.0.0.9:5000")  # WEB_PEER is believed only on the internal socket
        assert took >= 0.75 and transport.HOLD_MS not in trailers, (took, trailers)
    finally:
        quotas.QUOTAS = saved


def test_a_refusal_on_the_web_port_is_still_held(web):
    server = web(GE_RATE_LIMIT_PER_S="1")
    game_id = Client(server.target, GAME).create(2, seed=1)[0]
    answers = []
    for _ in range(4):  # a burst of 2, then refusals
        t0 = time.perf_counter()
        status, _ = web_call(server.web_port, SERVICE, "GetPompeiiView", {"gameId": game_id}, source="127.0.5.7")
        answers.append((status, time.perf_counter() - t0))
    refused = [took for status, took in answers if status == 429]
    assert refused and min(refused) >= 0.2, answers


def test_players_calling_from_one_address_share_its_handler_places(fresh_server):
    """GE_CALLS_PER_ADDRESS over the network: two players of one address, each with a hint of its own
    game, run one after the other when the address has one place (two clients, so before they ran
    side by side on the two hint workers)."""
    import threading

    from clients.sdk import PlayerClient
    server = fresh_server(GE_CALLS_PER_ADDRESS="1").start()
    seats = []
    for name in ("ann2", "bob2"):
        token = PlayerClient.register(server.target, name).token
        client = Client(server.target, GAME)
        game_id, tokens = client.create(2, seed=3)
        actor = client.status(game_id).to_move
        seats.append((client, game_id, tokens[actor], token))
    budget_ms, ends = 700, []

    def hint(client, game_id, token, player):
        raw(client.rpcs["get_hint"], client.request("get_hint", game_id=game_id, token=token, budget_ms=budget_ms),
            metadata=(("x-player-token", player),))
        ends.append(time.perf_counter())
    threads = [threading.Thread(target=hint, args=s) for s in seats]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert max(ends) - min(ends) >= 0.8 * budget_ms / 1000, "the address's two handlers ran at once"
