"""Security headers on the web port (issue 19 item 7), and a page the CSP does not break: no inline
script, no inline style, no inline event handler (the Chromium test in tests/web fails on any CSP
violation in the console)."""
from __future__ import annotations

import re
import socket
import time
import urllib.request
from pathlib import Path

import pytest

from tests.web.conftest import WebServer

STATIC = Path(__file__).resolve().parents[2] / "server" / "web_static"


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    s = WebServer(tmp_path_factory.mktemp("headers"), GE_WEB_CORS_ORIGINS="http://example.test").start()
    yield s
    s.stop()


@pytest.mark.parametrize("path", ["/", "/app.js", "/api/games", "/nope"])
def test_security_headers_on_every_response(web, path):
    try:
        r = urllib.request.urlopen(web.base + path, timeout=5)
    except urllib.error.HTTPError as e:
        r = e
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["x-content-type-options"] == "nosniff"


def assert_secured(head: bytes, which: str) -> None:
    lines = {line.split(b":", 1)[0].lower(): line.split(b":", 1)[1].strip()
             for line in head.split(b"\r\n")[1:] if b":" in line}
    assert lines.get(b"x-frame-options") == b"DENY", (which, head)
    assert lines.get(b"x-content-type-options") == b"nosniff", (which, head)
    assert b"frame-ancestors 'none'" in lines.get(b"content-security-policy", b""), (which, head)


def raw_answer(web, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", web.web_port)) as s:
        s.sendall(request)
        s.settimeout(5)
        answer = b""
        while b"\r\n\r\n" not in answer and (chunk := s.recv(65536)):
            answer += chunk
    return answer.split(b"\r\n\r\n")[0]


def test_security_headers_on_the_answers_our_app_never_sees(web):
    """uvicorn's own 400 for a request it cannot parse, the CORS middleware's preflight answers and its
    refusals (it sat outside the headers' guard), and the over-cap 503 lacked them."""
    bad = raw_answer(web, b"NOT HTTP AT ALL\r\n\r\n")
    assert bad.startswith(b"HTTP/1.1 400"), bad
    assert_secured(bad, "a request uvicorn cannot parse")
    for origin, status in ((b"http://example.test", b"200"), (b"http://elsewhere.test", b"400")):
        preflight = raw_answer(web, b"OPTIONS /gameengine.v1.GameService/ListGameTypes HTTP/1.1\r\nHost: x\r\n"
                               b"Origin: " + origin + b"\r\nAccess-Control-Request-Method: POST\r\n"
                               b"Connection: close\r\n\r\n")
        assert preflight.startswith(b"HTTP/1.1 " + status), preflight
        assert_secured(preflight, f"a CORS preflight from {origin!r}")
    from server.webguard import OVER_CAP_RESPONSE  # what webguard.Acceptor sends a connection over a cap
    assert_secured(OVER_CAP_RESPONSE.split(b"\r\n\r\n")[0], "the over-cap 503")


def test_requests_uvicorn_cannot_parse_are_logged_at_most_once_a_second(web):
    said = "Invalid HTTP request received."
    time.sleep(1.1)  # past the second of any earlier test's line
    before = web.log.read_text(errors="replace").count(said)
    t0 = time.monotonic()
    for _ in range(60):
        raw_answer(web, b"NOT HTTP AT ALL\r\n\r\n")
    took = time.monotonic() - t0
    time.sleep(0.3)
    logged = web.log.read_text(errors="replace").count(said) - before
    assert 1 <= logged <= took + 2, f"{logged} lines for 60 malformed requests in {took:.1f} s"


def test_page_has_no_inline_script_or_style():
    html = (STATIC / "index.html").read_text()
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "inline <script>"
    assert "<style" not in html and " style=" not in html
    assert not re.search(r"\son[a-z]+=", html), "inline event handler"
    bundle = (STATIC / "app.js").read_text()
    assert 'style="' not in bundle, "markup with a style attribute (blocked by style-src 'self')"


def test_api_games_is_paged(web):
    import json

    from clients.sdk import Client
    client = Client(web.target, "pompeii")
    for i in range(5):
        client.create(2, seed=i)
    page = json.loads(urllib.request.urlopen(web.base + "/api/games?limit=2", timeout=5).read())
    assert len(page["games"]) == 2 and page["total"] >= 5 and page["next_offset"] == 2
    client.create(2, seed=9)  # created between two pages: it joins the end, so no page repeats a game
    rest = json.loads(urllib.request.urlopen(web.base + "/api/games?offset=2&limit=200", timeout=5).read())
    assert {g["game_id"] for g in page["games"]}.isdisjoint(g["game_id"] for g in rest["games"])
    assert len(page["games"]) + len(rest["games"]) == rest["total"] == page["total"] + 1
    for bad in ("0", "-1", "x"):  # as if not given: a whole page
        whole = json.loads(urllib.request.urlopen(web.base + f"/api/games?limit={bad}", timeout=5).read())
        assert len(whole["games"]) == whole["total"], bad
