"""Protobuf wire form written directly, for messages made of parts that are encoded already
(stored events, cached moves, a game's journaled records): joining their bytes gives exactly what
building the message and serializing it would, without parsing and copying each part first."""
from __future__ import annotations


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_SHORT = [_varint(n) for n in range(1 << 14)]  # every one- and two-byte varint: lengths, seats, versions


def varint(n: int) -> bytes:
    """A non-negative integer as a protobuf varint."""
    return _SHORT[n] if 0 <= n < 16384 else _varint(n)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def length_delimited(field_tag: bytes, payload: bytes) -> bytes:
    """One length-delimited field (a message, bytes or string) with its encoded tag."""
    n = len(payload)
    return b"".join((field_tag, _SHORT[n] if n < 16384 else _varint(n), payload))
