"""One message and one encoding per game event, however many streams carry it.

Every spectator stream of a game sends the same event messages; built and encoded per stream,
N spectators cost N proto builds and N JSON encodings per event (issue 19's stream fan-out). The
servicer builds each event's response once (`SHARED.message`), and the encoders of both ports
(`serialize` on the gRPC port, `SharedCodec` on the web port) encode a shared message once per
wire format. Bounded: the last `size` messages, within `max_bytes`, are kept; a message that has
left is just encoded again. Only streams share: a unary answer is one caller's.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message


@dataclass(slots=True)
class _Entry:
    source: object
    message: Message
    encodings: dict[str, bytes]
    nbytes: int  # what it holds: the bytes it was decoded from (if any) and its encodings


class SharedMessages:
    """Bounded twice: at most `size` messages, and at most `max_bytes` of their bytes and encodings
    together (a count alone let a few thousand large views hold hundreds of megabytes)."""

    def __init__(self, size: int = 4096, max_bytes: int = 16 << 20) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self.nbytes = 0
        self._messages: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._encoded: dict[int, _Entry] = {}  # id(message) -> its entry

    def message(self, key: Hashable, source: object, build: Callable[[], Message], nbytes: int = 0) -> Message:
        """The message built from `source` (a journaled event, which never changes) under `key`
        (where it sits: a game id and the event's index), built on first use; `nbytes`: the size of
        what it is built from, when that is known (the web edge's responses)."""
        found = self._messages.get(key)
        if found is not None and found.source is source:
            return found.message
        if found is not None:  # the key's content was rolled back and written again
            self._forget(key)
        message = build()
        if nbytes > self.max_bytes:
            return message  # larger than the whole budget: not shared
        entry = self._messages[key] = _Entry(source, message, {}, nbytes)
        self._encoded[id(message)] = entry
        self.nbytes += nbytes
        self._trim()
        return message

    def encode(self, message: Message, wire: str, encode: Callable[[Message], bytes]) -> bytes:
        """`encode(message)`, computed once per shared message and wire format."""
        entry = self._encoded.get(id(message))
        if entry is None or entry.message is not message:  # not shared (or an id reused after eviction)
            return encode(message)
        data = entry.encodings.get(wire)
        if data is None:
            data = entry.encodings[wire] = encode(message)
            entry.nbytes += len(data)
            self.nbytes += len(data)
            self._trim()
        return data

    def _trim(self) -> None:
        while self._messages and (len(self._messages) > self.size or self.nbytes > self.max_bytes):
            self._forget(next(iter(self._messages)))

    def _forget(self, key: Hashable) -> None:
        entry = self._messages.pop(key)
        self._encoded.pop(id(entry.message), None)
        self.nbytes -= entry.nbytes


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
