"""The web port runs in its own process (server/gateway.py, issue 19): a flood of browser requests
cannot hold up the gRPC server's event loop, the edge is restarted if it dies and ends with the
server, and only the edge can name a caller's address (transport.WEB_PEER)."""
from __future__ import annotations

import os
import signal
import time
import urllib.request
from pathlib import Path

import grpc
import pytest

from clients.sdk import Client
from server import gateway
from tests.web.conftest import WebServer

from .support import raw, web_call

GAME = "pompeii"


@pytest.fixture
def server(tmp_path):
    s = WebServer(tmp_path / "data", GE_RATE_LIMIT_PER_S="5").start()
    yield s
    s.stop()


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(c) for c in text]
    return found


def edge_of(server: WebServer) -> int:
    """The pid of the process serving the web port: the server's one `server.gateway` child."""
    for pid in children(server.proc.pid):
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if b"server.gateway" in cmdline:
            return pid
    raise AssertionError("the server has no web edge process")


def page_ok(server: WebServer, timeout: float = 2) -> bool:
    try:
        with urllib.request.urlopen(server.base + "/", timeout=timeout) as r:
            return r.status == 200
    except OSError:
        return False


def test_item4_web_edge_is_its_own_process_and_a_stalled_edge_does_not_stall_grpc(server):
    edge = edge_of(server)
    assert edge != server.proc.pid and page_ok(server)
    client = Client(server.target, GAME)
    game_id, _ = client.create(2, seed=1)
    os.kill(edge, signal.SIGSTOP)  # the edge frozen mid-flight: its work cannot be the server's
    try:
        t0 = time.perf_counter()
        for _ in range(5):
            client.spectator(game_id).status()
        assert time.perf_counter() - t0 < 5
        assert not page_ok(server, timeout=0.5)
    finally:
        os.kill(edge, signal.SIGCONT)
    assert page_ok(server)


def test_item4_a_killed_edge_is_replaced_on_the_same_port(server):
    edge = edge_of(server)
    os.kill(edge, signal.SIGKILL)
    deadline = time.time() + 20
    while time.time() < deadline and not page_ok(server, timeout=1):
        time.sleep(0.2)
    assert page_ok(server)
    assert edge_of(server) != edge
    status, body = web_call(server.web_port, "PompeiiService", "CreatePompeiiGame", {"seats": 2})
    assert status == 200 and body["gameId"]


def test_item4_the_edge_ends_with_a_killed_server(server):
    edge = edge_of(server)
    server.kill9()
    deadline = time.time() + 10
    while time.time() < deadline and Path(f"/proc/{edge}").exists() and \
            Path(f"/proc/{edge}/stat").read_text().split()[2] != "Z":
        time.sleep(0.1)
    assert not Path(f"/proc/{edge}").exists() or Path(f"/proc/{edge}/stat").read_text().split()[2] == "Z"


def test_item2_a_grpc_caller_cannot_pose_as_a_browser(server):
    """Over TCP the web peer header is ignored: ten spoofed addresses are still one client."""
    client = Client(server.target, GAME)
    game_id, _ = client.create(2, seed=1)
    view = client.request("get_view", game_id=game_id)
    codes = [raw(client.rpcs["get_view"], view, metadata=(("x-ge-web-peer", f"web:10.0.0.{i}:1"),))[0]
             for i in range(20)]
    assert "RESOURCE_EXHAUSTED" in codes  # GE_RATE_LIMIT_PER_S=5 (burst 10) for the one real client


def test_item2_browsers_behind_the_edge_are_counted_by_their_own_address(server):
    statuses = [web_call(server.web_port, "GameService", "GetGameStatus", {"gameId": "nope"},
                         source="127.0.0.5")[0] for _ in range(15)]
    assert 429 in statuses  # one browser over its rate ...
    status, _ = web_call(server.web_port, "GameService", "GetGameStatus", {"gameId": "nope"}, source="127.0.0.6")
    assert status == 404  # ... and another address is not refused for it


def test_item5_the_internal_game_list_is_not_served_on_the_public_port(server):
    with grpc.insecure_channel(server.target) as ch:
        call = ch.unary_unary("/gameengine.internal.WebEdge/LiveGames")
        with pytest.raises(grpc.RpcError) as e:
            call(b'{"offset": 0, "limit": 10}', timeout=5)
    assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_item4_browsers_share_the_edge_connection_beyond_the_public_stream_cap(tmp_path):
    """Every browser's calls travel on the edge's one connection to the server: the public port's
    GE_GRPC_STREAMS_PER_CONNECTION must not cap them, or a few held streams block everyone else."""
    import json
    import socket as sock

    s = WebServer(tmp_path / "data", GE_GRPC_STREAMS_PER_CONNECTION="4").start()
    try:
        game_id, _ = Client(s.target, GAME).create(2, seed=1)
        body = json.dumps({"gameId": game_id, "fromVersion": 1}).encode()  # waits for the first move
        envelope = b"\0" + len(body).to_bytes(4, "big") + body
        held = []
        for i in range(6):  # six spectators waiting, from six addresses
            c = sock.create_connection(("127.0.0.1", s.web_port), source_address=(f"127.0.5.{i + 1}", 0))
            c.sendall(b"POST /gameengine.v1.PompeiiService/StreamPompeiiEvents HTTP/1.1\r\nHost: t\r\n"
                      b"Content-Type: application/connect+json\r\nConnect-Protocol-Version: 1\r\n"
                      b"Content-Length: %d\r\n\r\n" % len(envelope) + envelope)
            held.append(c)
        time.sleep(1)
        t0 = time.perf_counter()
        status, reply = web_call(s.web_port, "GameService", "GetGameStatus", {"gameId": game_id}, source="127.0.5.9")
        assert status == 200 and reply["status"]["gameId"] == game_id
        assert time.perf_counter() - t0 < 3
        for c in held:
            c.close()
    finally:
        s.stop()


def test_item4_the_edge_runs_at_a_lower_cpu_priority_than_the_server(server):
    def nice(pid: int) -> int:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])
    assert nice(edge_of(server)) == nice(server.proc.pid) + gateway.EDGE_NICENESS


def test_a_server_killed_9_leaves_its_socket_dir_and_the_next_server_removes_it(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    killed = WebServer(tmp_path / "killed", TMPDIR=str(tmp)).start()
    live = WebServer(tmp_path / "live", TMPDIR=str(tmp)).start()
    try:
        dirs = set(tmp.glob(f"{gateway.DIR_PREFIX}*"))
        assert len(dirs) == 2
        killed.kill9()
        long_ago = time.time() - 2 * gateway.STALE_AFTER_S
        for d in dirs:
            os.utime(d, (long_ago, long_ago))
        killed_dir = next(d for d in dirs if not _listened(d))
        live_dir = next(d for d in dirs if d != killed_dir)
        third = WebServer(tmp_path / "third", TMPDIR=str(tmp)).start()
        try:
            now = set(tmp.glob(f"{gateway.DIR_PREFIX}*"))
            assert killed_dir not in now and live_dir in now and len(now) == 2
            assert page_ok(live) and page_ok(third)
        finally:
            third.stop()
    finally:
        live.stop()
    assert not list(tmp.glob(f"{gateway.DIR_PREFIX}*"))  # a server that stops removes its own


def _listened(d: Path) -> bool:
    import socket
    probe = socket.socket(socket.AF_UNIX)
    try:
        probe.connect(str(d / gateway.SOCKET_NAME))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def test_clear_stale_keeps_young_dirs_and_what_is_not_a_socket_dir(tmp_path):
    long_ago = time.time() - 2 * gateway.STALE_AFTER_S
    old, young, other = tmp_path / "ge-web-old", tmp_path / "ge-web-young", tmp_path / "other-old"
    for d in (old, young, other):
        d.mkdir()
    plain = tmp_path / "ge-web-file"
    plain.write_text("")
    for p in (old, other, plain):
        os.utime(p, (long_ago, long_ago))
    assert gateway.clear_stale(str(tmp_path)) == [str(old)]
    assert young.exists() and other.exists() and plain.exists() and not old.exists()
