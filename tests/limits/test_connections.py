"""Connection limits (issue 19 item 4): idle and half-open connections are closed on both ports,
and the web port caps connections per client."""
from __future__ import annotations

import socket
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
        assert closed_within(extra, 2), "a 4th connection from the same address is closed at once"
        other = socket.create_connection(("127.0.0.1", server.web_port), source_address=("127.0.0.2", 0))
        other.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        other.settimeout(5)
        assert other.recv(65536).startswith(b"HTTP/1.1 200")
        for s in held + [extra, other]:
            s.close()
    finally:
        server.stop()
