"""Security headers on the web port (issue 19 item 7), and a page the CSP does not break: no inline
script, no inline style, no inline event handler (the Chromium test in tests/web fails on any CSP
violation in the console)."""
from __future__ import annotations

import re
import urllib.request
from pathlib import Path

import pytest

from tests.web.conftest import WebServer

STATIC = Path(__file__).resolve().parents[2] / "server" / "web_static"


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    s = WebServer(tmp_path_factory.mktemp("headers")).start()
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
