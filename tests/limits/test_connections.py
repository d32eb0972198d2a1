"""Connection limits (issue 19 item 4): idle and half-open connections are closed on both ports,
and the web port caps connections per client."""
from __future__ import annotations

import json
import socket
import struct
import time

import grpc

from clients.sdk import Client
from tests.web.conftest import WebServer


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes `sock` within `seconds` (whatever it sent before)."""
    sock.settimeout(seconds)
    deadline = time.time() + seconds
    try:
        while time.time() < deadline:
            if not sock.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False
    return False


def assert_turned_away(sock: socket.socket, which: str) -> None:
    """Held for webguard.OVER_CAP_HOLD_S (less a jitter), then answered 503 and closed."""
    from server.webguard import OVER_CAP_HOLD_S
    t0 = time.perf_counter()
    sock.settimeout(OVER_CAP_HOLD_S + 3)
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    took = time.perf_counter() - t0
    assert answer.startswith(b"HTTP/1.1 503") and b"Retry-After: " in answer, (which, answer[:80])
    assert b"GE_WEB_CONNECTIONS_PER_CLIENT" in answer, which
    assert 0.7 * OVER_CAP_HOLD_S <= took <= OVER_CAP_HOLD_S + 2, f"{which} was held {took:.1f} s"


def test_idle_connections_are_closed_on_both_ports(tmp_path):
    server = WebServer(tmp_path / "d", GE_GRPC_MAX_IDLE_S="1", GE_GRPC_HANDSHAKE_TIMEOUT_S="1",
                       GE_WEB_IDLE_S="1", GE_WEB_HEADER_TIMEOUT_S="1").start()
    try:
        # gRPC: a connection without calls gets GOAWAY after GE_GRPC_MAX_IDLE_S; the channel goes IDLE
        channel = grpc.insecure_channel(server.target)
        states = []
        channel.subscribe(states.append, try_to_connect=False)
        Client(server.target, "pompeii", channel=channel).create(2, seed=1)
        time.sleep(3)
        assert grpc.ChannelConnectivity.READY in states and states[-1] == grpc.ChannelConnectivity.IDLE
        channel.close()
        # gRPC: a TCP connection that never completes the HTTP/2 handshake
        with socket.create_connection(("127.0.0.1", server.port)) as s:
            assert closed_within(s, 4)
        # web: nothing sent, half a request head, and an idle keep-alive connection
        with socket.create_connection(("127.0.0.1", server.web_port)) as s:
            assert closed_within(s, 4)
        with socket.create_connection(("127.0.0.1", server.web_port)) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            assert closed_within(s, 4)
        with socket.create_connection(("127.0.0.1", server.web_port)) as s:
            s.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n\r\n")
            time.sleep(0.3)
            assert s.recv(65536).startswith(b"HTTP/1.1 200")
            assert closed_within(s, 4)
        # a live connection is not closed for being slow to finish (a stream stays open)
        with socket.create_connection(("127.0.0.1", server.web_port)) as s:
            assert not closed_within(s, 0.3)
    finally:
        server.stop()


def test_web_connections_per_client_are_capped(tmp_path):
    server = WebServer(tmp_path / "d", GE_WEB_CONNECTIONS_PER_CLIENT="3").start()
    try:
        held = [socket.create_connection(("127.0.0.1", server.web_port)) for _ in range(3)]
        time.sleep(0.2)
        extra = socket.create_connection(("127.0.0.1", server.web_port))
        extra.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n\r\n")
        other = socket.create_connection(("127.0.0.1", server.web_port), source_address=("127.0.0.2", 0))
        other.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        other.settimeout(5)
        assert other.recv(65536).startswith(b"HTTP/1.1 200"), "another address is served while one is held"
        assert_turned_away(extra, "a 4th connection from the same address")
        for s in held + [extra, other]:
            s.close()
    finally:
        server.stop()


def test_web_connections_in_total_are_capped(tmp_path):
    server = WebServer(tmp_path / "d", GE_WEB_MAX_CONNECTIONS="3").start()
    try:
        held = [socket.create_connection(("127.0.0.1", server.web_port), source_address=(f"127.0.5.{i}", 0))
                for i in range(1, 4)]
        time.sleep(0.2)
        extra = socket.create_connection(("127.0.0.1", server.web_port), source_address=("127.0.5.9", 0))
        assert_turned_away(extra, "a 4th connection, from a 4th address")
        held.pop().close()
        time.sleep(0.2)
        again = socket.create_connection(("127.0.0.1", server.web_port), source_address=("127.0.5.9", 0))
        again.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        again.settimeout(5)
        assert again.recv(65536).startswith(b"HTTP/1.1 200"), "a closed connection gives its place back"
        for s in held + [extra, again]:
            s.close()
    finally:
        server.stop()


def test_a_connection_over_a_cap_is_held_without_any_protocol_then_answered_503():
    """webguard.Acceptor: the refused connection costs a descriptor and a timer, no transport or
    protocol; closed at once, a flood's refused connections came straight back."""
    import asyncio

    from server import webguard

    made: list[str] = []

    class Recorder(asyncio.Protocol):
        def __init__(self, key: str):
            made.append(key)
            self.client_key = key

        def give_back(self) -> None:
            caps.release(self.client_key)

    caps = webguard.Caps(max_connections=0, per_client=1)

    async def scenario() -> tuple[bool, bool]:
        listener = socket.create_server(("127.0.0.1", 0))
        acceptor = webguard.Acceptor(listener, Recorder, caps, None, 0, hold_s=0.5)  # type: ignore[arg-type]
        port = listener.getsockname()[1]
        first = await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.6.1", 0))
        second = await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.6.1", 0))
        other = await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.6.2", 0))
        second[1].write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        await asyncio.sleep(0.2)
        held = not second[0].at_eof() and len(acceptor.held) == 1
        answer = await asyncio.wait_for(second[0].read(), 2)  # to EOF
        first_open = not first[0].at_eof()
        for _, w in (first, second, other):
            w.close()
        acceptor.close()
        return held and answer == webguard.OVER_CAP_RESPONSE, first_open

    turned_away, first_open = asyncio.run(scenario())
    assert turned_away and first_open
    assert made == ["127.0.6.1", "127.0.6.2"], "one protocol per admitted connection, none for the refused one"
    assert caps.by_client == {"127.0.6.1": 1, "127.0.6.2": 1}


def test_a_request_body_that_stalls_after_its_head_is_closed_after_GE_WEB_BODY_TIMEOUT_S(tmp_path):
    """Before, only the head had a deadline: a body that stopped coming held its connection (and its
    place under the per-client cap) for as long as the client liked."""
    server = WebServer(tmp_path / "d", GE_WEB_BODY_TIMEOUT_S="1", GE_WEB_CONNECTIONS_PER_CLIENT="2").start()
    rpc = b"POST /gameengine.v1.LobbyService/ListOpenGames HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    try:
        with socket.create_connection(("127.0.0.1", server.web_port)) as declared, \
                socket.create_connection(("127.0.0.1", server.web_port)) as chunked:
            declared.sendall(rpc + b"Content-Length: 100\r\n\r\n{")
            chunked.sendall(rpc + b"Transfer-Encoding: chunked\r\n\r\n1\r\n{\r\n")
            assert closed_within(declared, 4), "a declared body that stops short"
            assert closed_within(chunked, 4), "a chunked body with no last chunk"
        # both places under the cap of 2 are free again, and a body that takes its time but ends is served
        with socket.create_connection(("127.0.0.1", server.web_port)) as slow:
            slow.sendall(rpc + b"Content-Length: 2\r\nConnection: close\r\n\r\n{")
            time.sleep(0.5)
            slow.sendall(b"}")
            slow.settimeout(5)
            answer = b""
            while chunk := slow.recv(65536):
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    finally:
        server.stop()
    assert "Traceback" not in server.log.read_text(errors="replace"), "a closed body is no failure of ours"


def test_a_pipelined_stream_is_not_cut_by_the_head_deadline(tmp_path):
    """A request pipelined behind another starts as the first's answer completes; the head deadline
    armed then was for the next head, and closed the second request's stream after
    GE_WEB_HEADER_TIMEOUT_S."""
    server = WebServer(tmp_path / "d", GE_WEB_HEADER_TIMEOUT_S="1").start()
    try:
        game_id, _ = Client(server.target, "pompeii").create(2, seed=1)
        body = json.dumps({"gameId": game_id}).encode()
        envelope = struct.pack(">BI", 0, len(body)) + body
        with socket.create_connection(("127.0.0.1", server.web_port)) as s:
            s.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n\r\n"
                      b"POST /gameengine.v1.PompeiiService/StreamPompeiiEvents HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Type: application/connect+json\r\nConnect-Protocol-Version: 1\r\n"
                      + f"Content-Length: {len(envelope)}\r\n\r\n".encode() + envelope)
            time.sleep(0.5)
            assert s.recv(65536).startswith(b"HTTP/1.1 200")
            assert not closed_within(s, 2.5), "the stream of a live game stays open"
    finally:
        server.stop()


def test_an_oversized_body_sent_in_one_write_still_gets_its_refusal(tmp_path):
    """The refusal of a declared body over GE_MAX_MESSAGE_BYTES closed the connection with the body unread,
    and the kernel reset it: a client that sent head and body in one write got ECONNRESET, not the 429."""
    server = WebServer(tmp_path / "d").start()
    try:
        for size in (300_000, 2_000_000):
            head = (b"POST /gameengine.v1.LobbyService/ListOpenGames HTTP/1.1\r\nHost: x\r\n"
                    b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % size)
            with socket.create_connection(("127.0.0.1", server.web_port)) as s:
                s.settimeout(10)
                s.sendall(head + b"{" + b" " * (size - 2) + b"}")
                answer = b""
                while chunk := s.recv(65536):
                    answer += chunk
            assert answer.startswith(b"HTTP/1.1 429"), (size, answer[:200])
            assert b"GE_MAX_MESSAGE_BYTES" in answer
    finally:
        server.stop()
