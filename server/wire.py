"""Protobuf wire form written directly, for messages made of parts that are encoded already
(stored events, cached moves, a game's journaled records): joining their bytes gives exactly what
building the message and serializing it would, without parsing and copying each part first."""
from __future__ import annotations


def varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def length_delimited(field_tag: bytes, payload: bytes) -> bytes:
    """One length-delimited field (a message, bytes or string) with its encoded tag."""
    return field_tag + varint(len(payload)) + payload
