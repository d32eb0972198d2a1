"""One message and one encoding per game event, however many streams carry it.

Every spectator stream of a game sends the same event messages; built and encoded per stream,
N spectators cost N proto builds and N JSON encodings per event (issue 19's stream fan-out). The
servicer builds each event's response once (`SHARED.message`), and the encoders of both ports
(`serialize` on the gRPC port, `SharedCodec` on the web port) encode a shared message once per
wire format. Bounded: the last `size` messages are kept; a message that has left is just encoded
again.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from google.protobuf.message import Message


class SharedMessages:
    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._messages: OrderedDict[Hashable, tuple[object, Message]] = OrderedDict()
        self._encoded: dict[int, tuple[Message, dict[str, bytes]]] = {}  # id(message) -> its encodings

    def message(self, key: Hashable, source: object, build: Callable[[], Message]) -> Message:
        """The message built from `source` (a journaled event, which never changes) under `key`
        (where it sits: a game id and the event's index), built on first use."""
        found = self._messages.get(key)
        if found is not None and found[0] is source:
            return found[1]
        if found is not None:  # the key's content was rolled back and written again
            self._encoded.pop(id(found[1]), None)
        message = build()
        self._messages[key] = (source, message)
        self._encoded[id(message)] = (message, {})
        if len(self._messages) > self.size:
            _, (_, old) = self._messages.popitem(last=False)
            self._encoded.pop(id(old), None)
        return message

    def encode(self, message: Message, wire: str, encode: Callable[[Message], bytes]) -> bytes:
        """`encode(message)`, computed once per shared message and wire format."""
        entry = self._encoded.get(id(message))
        if entry is None or entry[0] is not message:  # not shared (or an id reused after eviction)
            return encode(message)
        encodings = entry[1]
        data = encodings.get(wire)
        if data is None:
            data = encodings[wire] = encode(message)
        return data


SHARED = SharedMessages()


def serialize(message: Message) -> bytes:
    """The gRPC port's response serializer."""
    return SHARED.encode(message, "proto", _binary)


def _binary(message: Message) -> bytes:
    return message.SerializeToString()


# What a web stream yields once the gRPC server has opened it (web._stream): connectrpc starts the
# response, headers first, and encodes it as nothing; web.opening drops that empty message.
OPENED: Any = object()


class SharedCodec:
    """A connectrpc codec (proto or JSON) whose encodings of shared messages are computed once."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self._wire = "web-" + inner.name()

    def name(self) -> str:
        return str(self.inner.name())

    def encode(self, message: Message) -> bytes:
        if message is OPENED:
            return b""
        return self.SHARED.encode(message, self._wire, self.inner.encode)

    def decode(self, data: bytes | bytearray, message_class: Any) -> Any:
        return self.inner.decode(data, message_class)

    SHARED = SHARED
