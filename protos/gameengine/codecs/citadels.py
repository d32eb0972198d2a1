"""Citadels moves <-> CitadelsMove (the oneof field is the snake_case move name)."""
from __future__ import annotations

from gameengine.v1 import citadels_pb2

from engines.citadels import moves as m

from .base import Codec, MalformedMove

# engine move class -> (oneof field, [(engine field, proto field, repeated?)])
_MOVES = {
    m.PickCharacter: ("pick_character", [("rank", False)]),
    m.DiscardCharacter: ("discard_character", [("rank", False)]),
    m.TakeGold: ("take_gold", []),
    m.DrawCards: ("draw_cards", []),
    m.KeepCards: ("keep_cards", [("kept", True), ("returned", True)]),
    m.Build: ("build", [("card", False)]),
    m.CollectIncome: ("collect_income", []),
    m.EndTurn: ("end_turn", []),
    m.Assassinate: ("assassinate", [("rank", False)]),
    m.Rob: ("rob", [("rank", False)]),
    m.MagicSwap: ("magic_swap", [("player", False)]),
    m.MagicRedraw: ("magic_redraw", [("cards", True), ("any_subset", False)]),
    m.Laboratory: ("laboratory", [("card", False)]),
    m.Smithy: ("smithy", []),
    m.WarlordDestroy: ("warlord_destroy", [("player", False), ("card", False)]),
    m.WarlordSkip: ("warlord_skip", []),
    m.GraveyardRecover: ("graveyard_recover", []),
    m.GraveyardDecline: ("graveyard_decline", []),
}
_BY_FIELD = {name: (cls, fields) for cls, (name, fields) in _MOVES.items()}


class CitadelsCodec(Codec):
    game_id = "citadels"
    pb2 = citadels_pb2
    prefix = "Citadels"

    def options_to_proto(self, options):
        # gold_supply and initial_crown are "word or integer" flags, carried as strings
        options = dict(options)
        for key in ("gold_supply", "initial_crown"):
            if key in options:
                options[key] = str(options[key])
        return super().options_to_proto(options)

    def move_to_proto(self, move):
        name, fields = _MOVES[type(move)]
        msg = citadels_pb2.CitadelsMove()
        sub = getattr(msg, name)
        sub.SetInParent()
        for field, repeated in fields:
            value = getattr(move, field)
            if repeated:
                getattr(sub, field).extend(value)
            else:
                setattr(sub, field, value)
        return msg

    def move_from_proto(self, msg):
        kind = msg.WhichOneof("move")
        if kind is None:
            raise MalformedMove("CitadelsMove has no move set")
        cls, fields = _BY_FIELD[kind]
        sub = getattr(msg, kind)
        values = []
        for field, repeated in fields:
            value = getattr(sub, field)
            values.append(tuple(value) if repeated else value if isinstance(value, bool) else int(value))
        if cls is m.MagicRedraw and not values[0]:
            raise MalformedMove("magic_redraw needs at least one card")
        if cls is m.KeepCards and not values[0]:
            raise MalformedMove("keep_cards needs the kept cards")
        return cls(*values)


CODEC = CitadelsCodec()
