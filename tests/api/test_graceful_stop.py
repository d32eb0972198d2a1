"""A graceful stop (SIGTERM: a rollout, a drain, an eviction) ends every open stream at once with
UNAVAILABLE and a retry hint, on both ports, so its callers reconnect and resume."""
from __future__ import annotations

import http.client
import json
import signal
import struct
import threading
import time

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from clients.sdk import Client, PlayerClient
from gameengine.v1 import player_pb2
from tests.conftest import ServerProcess


def test_sigterm_ends_open_streams_at_once_with_unavailable_and_a_retry_hint(tmp_path):
    """Streams heard nothing until the gRPC server's 5 s grace ran out, then 'Cancelling all calls' with no
    retry hint; a Connect stream ended 'canceled' (which clients do not retry), with a traceback in the log."""
    server = ServerProcess(tmp_path / "data").with_web().start()
    ended: dict[str, tuple[float, object]] = {}
    try:
        client = Client(server.target, "pompeii")
        game_id, tokens = client.create(2, seed=3)
        events = client.rpcs["stream_events"](client.request("stream_events", game_id=game_id, from_version=0))
        states = client.rpcs["stream_state"](client.request("stream_state", game_id=game_id, token=tokens[0]))
        player = PlayerClient.register(server.target, "ada")
        players = player.players.StreamPlayerEvents(player_pb2.StreamPlayerEventsRequest(player_token=player.token))

        def drain(name: str, stream) -> None:
            try:
                for _ in stream:
                    pass
                ended[name] = (time.monotonic(), "ended without an error")
            except grpc.RpcError as e:
                ended[name] = (time.monotonic(), e)

        threads = [threading.Thread(target=drain, args=item, daemon=True)
                   for item in (("events", events), ("state", states), ("player", players))]
        for t in threads:
            t.start()
        conn = http.client.HTTPConnection("127.0.0.1", server.web_port, timeout=20)
        body = json.dumps({"gameId": game_id, "fromVersion": 0}).encode()
        conn.request("POST", "/gameengine.v1.PompeiiService/StreamPompeiiEvents",
                     struct.pack(">BI", 0, len(body)) + body,
                     {"content-type": "application/connect+json", "connect-protocol-version": "1"})
        web = conn.getresponse()
        assert web.status == 200
        time.sleep(1)  # every stream has sent the history and waits for the next move
        assert not ended
        t0 = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        last = {}
        while True:  # the Connect stream's messages, up to its end-of-stream one
            flags, n = struct.unpack(">BI", web.read(5))
            last = json.loads(web.read(n))
            if flags & 2:
                break
        web_s = time.monotonic() - t0
        for t in threads:
            t.join(timeout=10)
        server.proc.wait(timeout=30)
    finally:
        server.stop()
    assert last["error"]["code"] == "unavailable", last
    assert web_s < 3, web_s
    for name in ("events", "state", "player"):
        at, e = ended[name]
        assert isinstance(e, grpc.RpcError) and e.code() == grpc.StatusCode.UNAVAILABLE, (name, e)
        assert at - t0 < 3, (name, at - t0)
        details = rpc_status.from_call(e)
        retry = [d for d in details.details if d.Is(error_details_pb2.RetryInfo.DESCRIPTOR)]
        assert details is not None and retry, name
    log = server.log.read_text()
    assert "Traceback" not in log and "timeout graceful shutdown exceeded" not in log, log[-3000:]
