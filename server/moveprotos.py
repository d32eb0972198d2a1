"""Moves to and from their protobuf messages, each distinct move converted once.

A game's moves repeat (the same cards, cells and steps in game after game) and the codec's
field-by-field conversion was a third of a MakeMove call, spent on the caller's legal moves,
and a third of a restore, spent on the journaled moves (bench/notes/service.md). Moves are
immutable (named tuples), so a move with its kind is its key and one instance can serve every
game (the kind is part of the key: two kinds with equal fields are equal tuples); a cached
message is only ever copied into a response or a record (protobuf copies a message it is
given), never changed. A move's wire bytes decode to one move, so they key the other way.
"""
from __future__ import annotations

from google.protobuf.message import Message

from engines.core import Move
from gameengine.codecs import Codec

from . import wire

KEPT = 1 << 16  # distinct moves kept per process; past it the cache starts over

_protos: dict[tuple[type, Move], Message] = {}
_wires: dict[tuple[type, Move], bytes] = {}
_moves: dict[tuple[str, bytes], Move] = {}
_fields: dict[tuple[bytes, type, Move], bytes] = {}


def move_proto(codec: Codec, move: Move) -> Message:
    """codec.move_to_proto(move), from the cache when this move was converted before."""
    key = (type(move), move)
    try:
        msg = _protos.get(key)
    except TypeError:  # an unhashable move (none today): converted every time
        return codec.move_to_proto(move)
    if msg is None:
        msg = codec.move_to_proto(move)
        if len(_protos) >= KEPT:
            _protos.clear()
        _protos[key] = msg
    return msg


def move_wire(codec: Codec, move: Move) -> bytes:
    """The move's message serialized (a response joins it as it is: server/wire.py)."""
    key = (type(move), move)
    try:
        data = _wires.get(key)
    except TypeError:  # unhashable: converted every time
        return codec.move_to_proto(move).SerializeToString()
    if data is None:
        data = move_proto(codec, move).SerializeToString()
        if len(_wires) >= KEPT:
            _wires.clear()
        _wires[key] = data
    return data


def move_fields(codec: Codec, field_tag: bytes, moves: list[Move]) -> list[bytes]:
    """Each move as a length-delimited field with the encoded tag `field_tag` (the legal moves of a
    response, joined as they are: server/wire.py), each distinct move's field made once."""
    out = []
    for m in moves:
        key = (field_tag, type(m), m)
        try:
            data = _fields.get(key)
        except TypeError:  # unhashable: converted every time
            out.append(wire.length_delimited(field_tag, move_wire(codec, m)))
            continue
        if data is None:
            data = wire.length_delimited(field_tag, move_wire(codec, m))
            if len(_fields) >= KEPT:
                _fields.clear()
            _fields[key] = data
        out.append(data)
    return out


def move_from_wire(codec: Codec, wire: bytes) -> Move:
    """codec.move_from_proto of the game's Move message serialized as `wire`; a malformed move
    raises MalformedMove (and is not kept), undecodable bytes protobuf's DecodeError."""
    key = (codec.game_id, wire)
    move = _moves.get(key)
    if move is None:
        move = codec.move_from_proto(codec.Move.FromString(wire))
        if len(_moves) >= KEPT:
            _moves.clear()
        _moves[key] = move
    return move
