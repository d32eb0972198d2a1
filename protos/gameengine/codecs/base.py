"""Generic engine <-> protobuf conversion; each game supplies its move mapping.

Views and events are converted generically: the engine emits dicts whose keys
are the proto field names, and `json_format.ParseDict` refuses any mismatch.
Moves are engine NamedTuples, mapped explicitly by each game's codec.
"""
from __future__ import annotations

from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from engines.core import Event, Move


class MalformedMove(ValueError):
    """The move message is empty or incomplete (an INVALID_ARGUMENT, not a rule)."""


def from_dict(data: dict[str, Any], cls: type[Message]) -> Message:
    """dict -> message. The generated constructor is ~30x faster than ParseDict and
    also refuses unknown fields; ParseDict stays as the fallback for JSON-isms
    (numbers as strings, whole floats for ints)."""
    try:
        return cls(**data)
    except (TypeError, ValueError):
        return json_format.ParseDict(data, cls())


def to_dict(msg: Message, with_defaults: bool = True) -> dict[str, Any]:
    return json_format.MessageToDict(
        msg,
        preserving_proto_field_name=True,
        always_print_fields_with_no_presence=with_defaults,
    )


class Codec:
    """Conversions for one game. Subclasses set the message classes and moves."""

    game_id: str
    pb2: Any  # the generated module, e.g. gameengine.v1.pompeii_pb2
    prefix: str  # "Pompeii": message names are f"{prefix}View" etc.

    def msg(self, suffix: str) -> type[Message]:
        return getattr(self.pb2, self.prefix + suffix)

    # options: set fields only, so unset flags keep the engine's defaults
    def options_from_proto(self, msg: Message) -> dict[str, Any]:
        return to_dict(msg, with_defaults=False)

    def options_to_proto(self, options: dict[str, Any]) -> Message:
        return from_dict(options, self.msg("Options"))

    def view_to_proto(self, view: dict[str, Any]) -> Message:
        return from_dict(view, self.msg("View"))

    def view_from_proto(self, msg: Message) -> dict[str, Any]:
        return to_dict(msg)

    def event_to_proto(self, event: Event) -> Message:
        return from_dict({event.kind: dict(event.data)}, self.msg("Event"))

    def event_from_proto(self, msg: Message) -> tuple[str, dict[str, Any]]:
        kind = msg.WhichOneof("event")
        return kind, to_dict(getattr(msg, kind))

    # moves: game-specific
    def move_to_proto(self, move: Move) -> Message:
        raise NotImplementedError

    def move_from_proto(self, msg: Message) -> Move:
        """Raise MalformedMove when the oneof is unset or a required part is missing."""
        raise NotImplementedError
