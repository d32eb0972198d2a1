"""Small World moves <-> protobuf (views and events go through the generic Codec).

Each move NamedTuple maps to the oneof field named after it in snake_case, with the same field names.
"""
from __future__ import annotations

import re

from engines.smallworld.moves import ALL as MOVE_KINDS
from gameengine.v1 import smallworld_pb2

from .base import Codec, MalformedMove


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


_FIELD = {cls: _snake(cls.__name__) for cls in MOVE_KINDS}
_KIND = {f: cls for cls, f in _FIELD.items()}


class SmallWorldCodec(Codec):
    game_id = "smallworld"
    pb2 = smallworld_pb2
    prefix = "SmallWorld"

    def move_to_proto(self, move):
        field = _FIELD.get(type(move))
        if field is None:
            raise TypeError(f"not a Small World move: {move!r}")
        m = smallworld_pb2.SmallWorldMove()
        sub = getattr(m, field)
        sub.SetInParent()
        for name, value in zip(move._fields, move):
            if isinstance(value, tuple):
                getattr(sub, name).extend(value)
            else:
                setattr(sub, name, value)
        return m

    def move_from_proto(self, msg):
        field = msg.WhichOneof("move")
        if field is None:
            raise MalformedMove("the move oneof is not set")
        cls = _KIND[field]
        sub = getattr(msg, field)
        values = []
        for name in cls._fields:
            value = getattr(sub, name)
            if name == "regions":
                value = tuple(sorted(value))
                if not value:
                    raise MalformedMove("place_heroes needs at least one region")
            elif name == "power" and not value:
                raise MalformedMove(f"{field} needs a power")
            values.append(value)
        return cls(*values)


CODEC = SmallWorldCodec()
