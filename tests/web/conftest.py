"""Fixtures for the browser path: a real server with its web port, bots over gRPC, raw web calls."""
from __future__ import annotations

import json
import random
import struct
import threading
import urllib.error
import urllib.request

import pytest

from clients.bot import Bot
from clients.sdk import Client
from tests.conftest import ServerProcess


class WebServer(ServerProcess):
    def __init__(self, data_dir, **env):
        super().__init__(data_dir, **env)
        self.with_web()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    s = WebServer(tmp_path_factory.mktemp("web"), GE_WEB_CORS_ORIGINS="http://example.test").start()
    yield s
    s.stop()


def connect_call(base: str, service: str, method: str, body: dict, headers: dict | None = None):
    """One Connect-protocol unary call with the JSON codec: (http status, response JSON)."""
    req = urllib.request.Request(f"{base}/gameengine.v1.{service}/{method}", data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json", "connect-protocol-version": "1",
                                          **(headers or {})}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def connect_stream(base: str, service: str, method: str, body: dict, idle_s: float = 1.5) -> list[dict]:
    """A Connect server stream (JSON codec): the messages until the end of the stream or `idle_s`
    without one (streams stay open while the game is live)."""
    payload = json.dumps(body).encode()
    req = urllib.request.Request(f"{base}/gameengine.v1.{service}/{method}",
                                 data=struct.pack(">BI", 0, len(payload)) + payload,
                                 headers={"content-type": "application/connect+json",
                                          "connect-protocol-version": "1"}, method="POST")
    out = []
    with urllib.request.urlopen(req, timeout=idle_s) as r:
        while True:
            try:
                head = r.read(5)
            except TimeoutError:
                break
            if len(head) < 5:
                break
            flags, n = struct.unpack(">BI", head)
            out.append(json.loads(r.read(n)) if n else {})
            if flags & 2:
                break
    return out


def grpc_web_frames(data: bytes) -> tuple[list[bytes], dict[str, str]]:
    """gRPC-Web frames: (messages, trailers)."""
    messages, trailers, i = [], {}, 0
    while i + 5 <= len(data):
        flags, n = struct.unpack(">BI", data[i:i + 5])
        chunk = data[i + 5:i + 5 + n]
        if flags & 0x80:
            for line in chunk.decode().split("\r\n"):
                if ":" in line:
                    k, v = line.split(":", 1)
                    trailers[k.strip().lower()] = v.strip()
        else:
            messages.append(chunk)
        i += 5 + n
    return messages, trailers


def grpc_web_call(base: str, service: str, method: str, request_msg) -> tuple[dict[str, str], bytes]:
    """One gRPC-Web (binary) unary call: (trailers, message bytes)."""
    body = request_msg.SerializeToString()
    req = urllib.request.Request(f"{base}/gameengine.v1.{service}/{method}",
                                 data=struct.pack(">BI", 0, len(body)) + body,
                                 headers={"content-type": "application/grpc-web+proto", "x-grpc-web": "1"},
                                 method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        data = r.read()
        headers = {k.lower(): v for k, v in r.headers.items()}
    messages, trailers = grpc_web_frames(data)
    return {**headers, **trailers}, (messages[-1] if messages else b"")


class Bots:
    """Bot seats played in threads over gRPC (clients/bot.py's Bot), until the game ends or stop()."""

    def __init__(self, target: str, game: str, game_id: str, tokens: list[str], seats: list[int],
                 policy: str = "random", pause_s: float = 0.15):
        self.stop_event = threading.Event()
        self.errors: list[BaseException] = []
        self.threads = []
        for s in seats:
            client = Client(target, game)
            bot = Bot(client.seat(game_id, s, tokens[s]), policy, rng=random.Random(s))
            t = threading.Thread(target=self._run, args=(bot, client), daemon=True)
            self.threads.append(t)
        self.pause_s = pause_s

    def _run(self, bot: Bot, client: Client) -> None:
        try:
            while not self.stop_event.is_set():
                before = bot.seat.last.version if bot.seat.last else -1
                if not bot.step():
                    return
                moved = bot.seat.last is not None and bot.seat.last.version != before
                self.stop_event.wait(self.pause_s if moved else 0.05)
        except BaseException as e:  # noqa: BLE001 - reported by the test
            if not self.stop_event.is_set():
                self.errors.append(e)
        finally:
            client.close()

    def __enter__(self) -> Bots:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop_event.set()
        for t in self.threads:
            t.join(timeout=10)
