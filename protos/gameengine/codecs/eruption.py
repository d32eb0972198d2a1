"""Eruption moves <-> protobuf (views and events go through the generic Codec)."""
from __future__ import annotations

from engines.eruption.moves import (
    BuildWall, DiscardForTile, DiscardForWall, DiscardSurplus, DrawExtraTile, EndCards,
    EndPlacement, EndTurn, PlaceEruption, PlaceTile, PlayAftershock, PlayLavaFlow, PlayQuake,
    PlayRain, PlayReinforce, PlayRelocate, PlaySinkhole, PlayVolcanicBomb, QuakeReplace,
)
from gameengine.v1 import eruption_pb2

from .base import Codec, MalformedMove

# move class <-> oneof field name
_FIELD = {
    PlaceEruption: "place_eruption", PlaceTile: "place_tile", DrawExtraTile: "draw_extra_tile",
    EndPlacement: "end_placement", PlayLavaFlow: "play_lava_flow", PlayReinforce: "play_reinforce",
    PlayRelocate: "play_relocate", PlayAftershock: "play_aftershock", PlayRain: "play_rain",
    PlaySinkhole: "play_sinkhole", PlayVolcanicBomb: "play_volcanic_bomb", PlayQuake: "play_quake",
    QuakeReplace: "quake_replace", DiscardForWall: "discard_for_wall",
    DiscardForTile: "discard_for_tile", DiscardSurplus: "discard_surplus", EndCards: "end_cards",
    BuildWall: "build_wall", EndTurn: "end_turn",
}
_CLASS = {v: k for k, v in _FIELD.items()}


def _cell(parent, field):
    if not parent.HasField(field):
        raise MalformedMove(f"{field} is missing")
    c = getattr(parent, field)
    return (c.x, c.y)


def _text(body, field):
    value = getattr(body, field)
    if not value:
        raise MalformedMove(f"{field} is missing")
    return value


class EruptionCodec(Codec):
    game_id = "eruption"
    pb2 = eruption_pb2
    prefix = "Eruption"

    def move_to_proto(self, move):
        field = _FIELD.get(type(move))
        if field is None:
            raise TypeError(f"not an Eruption move: {move!r}")
        m = eruption_pb2.EruptionMove()
        body = getattr(m, field)
        body.SetInParent()
        for name, value in zip(move._fields, move):
            if name == "steps":
                for c1, e1, c2, e2 in value:
                    step = body.steps.add()
                    step.from_cell.x, step.from_cell.y = c1
                    step.from_edge = e1
                    step.to_cell.x, step.to_cell.y = c2
                    step.to_edge = e2
            elif name == "cards":
                body.cards.extend(value)
            elif name == "cell":
                body.cell.x, body.cell.y = value
            else:
                setattr(body, name, value)
        return m

    def move_from_proto(self, msg):
        kind = msg.WhichOneof("move")
        if kind is None:
            raise MalformedMove("no move set")
        cls = _CLASS[kind]
        body = getattr(msg, kind)
        args = []
        for name in cls._fields:
            if name == "cell":
                args.append(_cell(body, "cell"))
            elif name in ("material", "card"):
                args.append(_text(body, name))
            elif name == "cards":
                if len(body.cards) != 2:
                    raise MalformedMove("discard_for_tile needs exactly two cards")
                args.append(tuple(body.cards))
            elif name == "steps":
                if not body.steps:
                    raise MalformedMove("play_relocate needs at least one step")
                args.append(tuple((_cell(s, "from_cell"), s.from_edge, _cell(s, "to_cell"), s.to_edge)
                                  for s in body.steps))
            else:
                args.append(getattr(body, name))
        return cls(*args)


CODEC = EruptionCodec()
