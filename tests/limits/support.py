"""Helpers for the limit tests: raw calls that return the status code, message and RetryInfo."""
from __future__ import annotations

import grpc

from clients.sdk import Client, retry_delay_s
from gameengine.v1 import common_pb2


def raw(fn, request, metadata=(), timeout: float = 10):
    """(code name, message, retry delay s) of one call; ("OK", "", 0) when it succeeds."""
    try:
        fn(request, timeout=timeout, metadata=metadata)
        return "OK", "", 0.0
    except grpc.RpcError as e:
        return e.code().name, e.details() or "", retry_delay_s(e)


def create_req(client: Client, seats: int = 2, **referee):
    return client.request("create_game", seats=seats, referee=common_pb2.RefereeOptions(**referee))


def create(client: Client, seats: int = 2, metadata=(), **referee):
    return raw(client.rpcs["create_game"], create_req(client, seats, **referee), metadata)


def web_call(port: int, service: str, method: str, body: dict, source: str = "127.0.0.2",
             headers: dict | None = None, scheme_ctx=None) -> tuple[int, dict]:
    """One Connect JSON call to the web port from the loopback address `source` (another client)."""
    import http.client
    import json
    if scheme_ctx is not None:
        conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=10, source_address=(source, 0),
                                           context=scheme_ctx)
    else:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        conn.request("POST", f"/gameengine.v1.{service}/{method}", body=json.dumps(body).encode(),
                     headers={"content-type": "application/json", "connect-protocol-version": "1",
                              **(headers or {})})
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"{}")
    finally:
        conn.close()


def web_retry_s(err: dict) -> float:
    """The RetryInfo delay in a Connect error's details (JSON codec: `debug` holds the decoded detail)."""
    import base64

    from google.rpc import error_details_pb2
    for d in err.get("details", []):
        if d.get("type") == "google.rpc.RetryInfo":
            info = error_details_pb2.RetryInfo.FromString(base64.b64decode(d["value"] + "=="))
            return info.retry_delay.seconds + info.retry_delay.nanos / 1e9
    return 0.0
