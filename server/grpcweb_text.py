"""gRPC-Web text mode (`application/grpc-web-text`, the default of Google's grpc-web client) for the
web port: an ASGI wrapper around the connectrpc application, which speaks only binary gRPC-Web.

Text mode is binary gRPC-Web in base64 (PROTOCOL-WEB.md): the request body is base64, and so is the
response body. The wrapper decodes the request, hands the binary call to connectrpc under the binary
content type, and encodes each response body chunk as it is sent (padded on its own, so a server stream's
messages reach the client at once; the client decodes padded chunks). Trailers travel in the body
in gRPC-Web, so they are encoded with it; a trailers-only refusal is all headers and needs nothing.
"""
from __future__ import annotations

import base64
import binascii
import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import webguard
from .errors import Exhausted, InvalidArgument, oversize

TEXT = "application/grpc-web-text"
BINARY = "application/grpc-web"
_CHUNK = re.compile(r"[^=]*=*")  # one padded base64 chunk: a sender may concatenate several


def decode(text: bytes) -> bytes:
    """Base64 text, possibly several padded chunks one after another, to bytes (ValueError if not base64)."""
    s = re.sub(rb"\s+", b"", text).decode("ascii", "strict")
    try:
        return b"".join(base64.b64decode(part, validate=True) for part in _CHUNK.findall(s) if part)
    except binascii.Error as e:
        raise ValueError(str(e)) from None


def grpc_web_text(app: ASGIApp, max_request_bytes: int, count: webguard.Count) -> ASGIApp:
    """Wrap an ASGI app that serves binary gRPC-Web so it also serves text mode on the same paths."""
    max_text = webguard.text_bound(max_request_bytes)

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        content_type = webguard.content_type_of(scope).decode("latin-1")
        if scope.get("type") != "http" or not (content_type == TEXT or content_type.startswith(TEXT + "+")):
            await app(scope, receive, send)
            return
        suffix = content_type[len(TEXT):]  # "" or "+proto"
        text, more = b"", True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            text += message.get("body", b"")
            more = message.get("more_body", False)
            if len(text) > max_text:
                err = oversize(max_request_bytes)
                await webguard.pace_oversize(scope.get("client"), webguard.forwarded_in(scope), err, count)
                await _refuse(send, content_type, err)
                return
        try:
            body = decode(text)
        except ValueError:
            await _refuse(send, content_type,
                          InvalidArgument("the request body is not base64 (grpc-web-text)", rule="REQUEST"))
            return
        headers = [(k, (BINARY + suffix).encode() if k == b"content-type" else v)
                   for k, v in scope.get("headers", ()) if k != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        sent = False

        async def binary_receive() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        async def text_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                out = []
                for k, v in message.get("headers", ()):
                    if k.lower() == b"content-length":
                        continue  # the body grows by a third: let the server chunk it
                    if k.lower() == b"content-type" and v.startswith(BINARY.encode()):
                        v = TEXT.encode() + v[len(BINARY):]
                    out.append((k, v))
                message = dict(message, headers=out)
            elif message["type"] == "http.response.body" and message.get("body"):
                message = dict(message, body=base64.b64encode(message["body"]))
            await send(message)

        await app(dict(scope, headers=headers), binary_receive, text_send)

    return wrapped


async def _refuse(send: Send, content_type: str, err: InvalidArgument | Exhausted) -> None:
    """A trailers-only gRPC-Web answer (status in the headers, empty body), with the google.rpc.Status
    the gRPC server would send (webguard.edge_status)."""
    await webguard.send_refusal(send, content_type.encode(), webguard.edge_status(err), 200)
