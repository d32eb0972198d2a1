"""Pompeii moves <-> protobuf (views and events go through the generic Codec)."""
from __future__ import annotations

from engines.pompeii.moves import (DeclareEruption, MovePerson, OmenTarget, Pass, PlaceLava, PlaceRelative,
                                   PlayCard, StopRelatives)
from gameengine.v1 import pompeii_pb2

from .base import Codec, MalformedMove


def _sq(msg, square) -> None:
    msg.row, msg.col = square


def _square(parent, field: str, required: bool = True):
    if not parent.HasField(field):
        if required:
            raise MalformedMove(f"{field} is missing")
        return None
    s = getattr(parent, field)
    return (s.row, s.col)


class PompeiiCodec(Codec):
    game_id = "pompeii"
    pb2 = pompeii_pb2
    prefix = "Pompeii"

    def move_to_proto(self, move):
        m = pompeii_pb2.PompeiiMove()
        if isinstance(move, PlayCard):
            m.play_card.number = move.number
            m.play_card.SetInParent()
            if move.square is not None:
                _sq(m.play_card.square, move.square)
            if move.origin is not None:
                _sq(m.play_card.origin, move.origin)
        elif isinstance(move, PlaceRelative):
            _sq(m.place_relative.square, move.square)
        elif isinstance(move, StopRelatives):
            m.stop_relatives.SetInParent()
        elif isinstance(move, OmenTarget):
            _sq(m.omen_target.square, move.square)
            m.omen_target.seat = move.seat
        elif isinstance(move, DeclareEruption):
            m.declare_eruption.SetInParent()
        elif isinstance(move, PlaceLava):
            _sq(m.place_lava.square, move.square)
            m.place_lava.symbol = move.symbol
        elif isinstance(move, MovePerson):
            _sq(m.move_person.origin, move.origin)
            if move.target is None:
                m.move_person.leave = True
            else:
                _sq(m.move_person.target, move.target)
        elif isinstance(move, Pass):
            getattr(m, "pass").SetInParent()  # "pass" is a Python keyword
        else:
            raise TypeError(f"not a Pompeii move: {move!r}")
        return m

    def move_from_proto(self, msg):
        kind = msg.WhichOneof("move")
        if kind is None:
            raise MalformedMove("no move set")
        body = getattr(msg, kind)
        if kind == "play_card":
            if not body.number:
                raise MalformedMove("play_card.number is missing")
            return PlayCard(body.number, _square(body, "square", False), _square(body, "origin", False))
        if kind == "place_relative":
            return PlaceRelative(_square(body, "square"))
        if kind == "stop_relatives":
            return StopRelatives()
        if kind == "omen_target":
            return OmenTarget(_square(body, "square"), body.seat)
        if kind == "declare_eruption":
            return DeclareEruption()
        if kind == "place_lava":
            return PlaceLava(_square(body, "square"), body.symbol)
        if kind == "move_person":
            origin = _square(body, "origin")
            target = _square(body, "target", False)
            if (target is None) == (not body.leave):
                raise MalformedMove("move_person needs exactly one of target or leave")
            return MovePerson(origin, target)
        if kind == "pass":
            return Pass()
        raise MalformedMove(f"unknown move {kind}")


CODEC = PompeiiCodec()
