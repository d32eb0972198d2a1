"""Callers behind a proxy the operator trusts (GE_TRUSTED_PROXIES): the proxy's X-Forwarded-For names
the caller, read from the right, so a router's address (every call in k8s/) is not one client for all,
and an address a caller wrote into the header itself is never believed."""
from __future__ import annotations

import ipaddress
import socket
import time

import pytest

from clients.sdk import Client
from server import quotas
from server.config import Config, ConfigError
from tests.web.conftest import WebServer

from .support import create, web_call

GAME = "pompeii"


@pytest.fixture
def trusting():
    def trust(networks: str) -> None:
        quotas.trust_proxies(Config(trusted_proxies=networks).trusted_networks())
    yield trust
    quotas.trust_proxies(())


def test_an_untrusted_peers_forwarded_for_is_ignored(trusting):
    assert quotas.peer_address("ipv4:198.51.100.7:4000", "203.0.113.9") == "198.51.100.7"  # trusts nobody
    trusting("10.0.0.0/8")
    assert quotas.peer_address("ipv4:198.51.100.7:4000", "203.0.113.9") == "198.51.100.7"


def test_the_caller_is_the_first_untrusted_address_from_the_right(trusting):
    trusting("10.0.0.0/8, fc00::/7")
    router = "ipv4:10.1.2.3:4000"
    assert quotas.peer_address(router, "203.0.113.9") == "203.0.113.9"
    assert quotas.peer_address(router, "203.0.113.9, 10.9.9.9") == "203.0.113.9"  # an ingress before the router
    # whatever a caller writes into the header itself stands left of its own address
    assert quotas.peer_address(router, "192.0.2.1, 203.0.113.9") == "203.0.113.9"
    assert quotas.peer_address(router, "10.5.5.5, 203.0.113.9, 10.9.9.9") == "203.0.113.9"
    # an entry that is no address ends the walk at the last trusted hop
    assert quotas.peer_address(router, "203.0.113.9, garbage") == "10.1.2.3"
    # every hop trusted: the leftmost (an in-cluster caller)
    assert quotas.peer_address(router, "10.7.7.7") == "10.7.7.7"
    # the forms proxies write: ports, brackets, IPv6 by its /64, IPv4-mapped
    assert quotas.peer_address(router, "203.0.113.9:5555") == "203.0.113.9"
    assert quotas.peer_address(router, "[2001:db8:1:2::7]:443") == "2001:db8:1:2::/64"
    assert quotas.peer_address("ipv6:[fd00::1]:5", "::ffff:203.0.113.9") == "203.0.113.9"
    assert quotas.peer_address("web:10.1.2.3:5", "203.0.113.9") == "203.0.113.9"  # through the web edge
    # no header: the proxy itself
    assert quotas.peer_address(router, None) == "10.1.2.3"


def test_a_long_forwarded_for_is_read_only_from_its_right_end(trusting):
    trusting("10.0.0.0/8")
    hops = ", ".join(["10.0.0.1"] * 10_000)
    t0 = time.perf_counter()
    assert quotas.peer_address("ipv4:10.1.2.3:4", hops) == "10.0.0.1"
    assert time.perf_counter() - t0 < 0.5


def test_a_setting_that_is_no_network_stops_the_server_at_start():
    assert Config(trusted_proxies="10.0.0.0/8,::1").trusted_networks() == (
        ipaddress.ip_network("10.0.0.0/8"), ipaddress.ip_network("::1/128"))
    with pytest.raises(ConfigError, match="GE_TRUSTED_PROXIES"):
        Config.from_env({"GE_TRUSTED_PROXIES": "10.0.0.0/8,router"})


def test_callers_behind_a_trusted_proxy_have_quotas_of_their_own(tmp_path):
    """Over the network: two callers forwarded by the same (loopback) proxy are two clients on both
    ports; without the setting, the header changes nothing."""
    server = WebServer(tmp_path / "d", GE_TRUSTED_PROXIES="127.0.0.0/8", GE_LIVE_GAMES_PER_CLIENT="1").start()
    plain = WebServer(tmp_path / "p", GE_LIVE_GAMES_PER_CLIENT="1").start()
    try:
        client = Client(server.target, GAME)
        ann, bob = (("x-forwarded-for", "203.0.113.1"),), (("x-forwarded-for", "203.0.113.2"),)
        assert create(client, metadata=ann)[0] == "OK"
        code, message, _ = create(client, metadata=ann)
        assert code == "RESOURCE_EXHAUSTED" and "GE_LIVE_GAMES_PER_CLIENT" in message
        assert create(client, metadata=bob)[0] == "OK"
        assert create(client)[0] == "OK"  # the proxy's own calls: a client of its own
        # the web port: the header reaches the same quota
        status, err = web_call(server.web_port, "PompeiiService", "CreatePompeiiGame", {"seats": 2},
                               headers={"x-forwarded-for": "203.0.113.2"})
        assert status == 429 and "GE_LIVE_GAMES_PER_CLIENT" in err["message"]
        assert web_call(server.web_port, "PompeiiService", "CreatePompeiiGame", {"seats": 2},
                        headers={"x-forwarded-for": "203.0.113.3"})[0] == 200

        other = Client(plain.target, GAME)
        assert create(other, metadata=ann)[0] == "OK"
        assert create(other, metadata=bob)[0] == "RESOURCE_EXHAUSTED", "an untrusted peer's header is believed"
    finally:
        server.stop()
        plain.stop()


def test_a_trusted_proxys_web_connections_are_held_to_the_total_only(tmp_path):
    """A router keeps one connection per browser request or stream: the per-client cap would be a cap on
    all browsers together."""
    server = WebServer(tmp_path / "d", GE_TRUSTED_PROXIES="127.0.0.1/32", GE_WEB_CONNECTIONS_PER_CLIENT="2").start()
    try:
        held = [socket.create_connection(("127.0.0.1", server.web_port)) for _ in range(4)]
        time.sleep(0.2)
        extra = socket.create_connection(("127.0.0.1", server.web_port))
        extra.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        extra.settimeout(3)
        assert extra.recv(65536).startswith(b"HTTP/1.1 200"), "the 5th connection of a trusted proxy is served"
        for s in held + [extra]:
            s.close()
    finally:
        server.stop()
