"""Engine values <-> protobuf messages, one generic codec for every game.

Views and events: the engine emits dicts whose keys are the proto field names, and the generated
constructor (or `json_format.ParseDict`) refuses any mismatch. Options: the set fields only, so
unset ones keep the engine's defaults; string-typed options (GameSpec) go out as strings.

Moves, by reflection over the `<Prefix>Move` oneof: the oneof field `play_card` carries the
engine move `PlayCard` (engines/<game>/moves.py) and the sub-message has the move's fields by
name. A field converts by its proto type:
  scalar                      the value (a string without an engine default must be non-empty)
  message (squares, cells)    a tuple of its fields; required unless the engine default is None
  repeated scalar             a tuple; sorted when the game lists it in `sets`
  repeated message (steps)    a tuple of tuples
A game's few other needs are small declared adapters (`MoveFields`): fields that must be set
(`required`), exact counts, sets, and an optional message whose absence is a flag (`none_flags`).
A move message that is empty or misses a required part raises MalformedMove (INVALID_ARGUMENT at
the edge), never a rule refusal.
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from google.protobuf import any_pb2, json_format, message_factory
from google.protobuf.descriptor import FieldDescriptor, MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message

from engines import registry
from engines.core import Event, GameSpec, Move

# The RPCs of every game's service (protos/gameengine/v1/TEMPLATE.md), by the handler that serves
# them (server/servicer.py GameServicer) and the SDK call that makes them; {P} is the registry prefix.
RPCS = {
    "create_game": "Create{P}Game",
    "get_view": "Get{P}View",
    "list_moves": "List{P}Moves",
    "make_move": "Make{P}Move",
    "stream_events": "Stream{P}Events",
    "get_log": "Get{P}Log",
    "get_hint": "Get{P}Hint",
    "stream_state": "Stream{P}State",
}


class MalformedMove(ValueError):
    """The move message is empty or incomplete (an INVALID_ARGUMENT, not a rule)."""


def from_dict(data: Mapping[str, Any], cls: type[Message]) -> Message:
    """dict -> message. The generated constructor is ~30x faster than ParseDict and
    also refuses unknown fields; ParseDict stays as the fallback for JSON-isms
    (numbers as strings, whole floats for ints)."""
    try:
        return cls(**data)
    except (TypeError, ValueError):
        return json_format.ParseDict(dict(data), cls())


def to_dict(msg: Message, with_defaults: bool = True) -> dict[str, Any]:
    return json_format.MessageToDict(
        msg,
        preserving_proto_field_name=True,
        always_print_fields_with_no_presence=with_defaults,
    )


@dataclass(frozen=True)
class MoveFields:
    """A game's field adapters, each named "<oneof field>.<field>"."""

    required: tuple[str, ...] = ()  # must be non-zero / non-empty
    counts: Mapping[str, int] = field(default_factory=dict)  # a repeated field of exactly n items
    sets: tuple[str, ...] = ()  # a repeated field the engine keeps sorted
    none_flags: Mapping[str, str] = field(default_factory=dict)  # message field -> the bool set when it is None


def _camel(snake: str) -> str:
    return "".join(part.capitalize() for part in snake.split("_"))


def _message_value(msg: Message) -> tuple[Any, ...]:
    """A square, a cell or a step as the engine holds it: its fields in declaration order."""
    return tuple(_field_value(msg, f) for f in msg.DESCRIPTOR.fields)


def _field_value(msg: Message, f: Any) -> Any:  # f: a FieldDescriptor
    value = getattr(msg, f.name)
    if f.type != FieldDescriptor.TYPE_MESSAGE:
        return tuple(value) if _repeated(f) else value
    return tuple(_message_value(m) for m in value) if _repeated(f) else _message_value(value)


def _fill(msg: Message, value: tuple[Any, ...]) -> None:
    msg.SetInParent()
    for f, part in zip(msg.DESCRIPTOR.fields, value):
        _set(msg, f, part)


def _set(msg: Message, f: Any, value: Any) -> None:
    if f.type == FieldDescriptor.TYPE_MESSAGE:
        if _repeated(f):
            for item in value:
                _fill(getattr(msg, f.name).add(), item)
        else:
            _fill(getattr(msg, f.name), value)
    elif _repeated(f):
        getattr(msg, f.name).extend(value)
    else:
        setattr(msg, f.name, value)


def _repeated(f: Any) -> bool:
    return bool(f.is_repeated)


@dataclass(frozen=True)
class _Kind:
    """How one move kind maps: the oneof field, the engine class, and per engine field its proto
    field and whether it may be absent."""

    oneof_field: str
    cls: type
    fields: tuple[tuple[Any, bool], ...]  # (FieldDescriptor, may be absent)


class Codec:
    """Conversions for one game, built from its registry entry."""

    def __init__(self, game_id: str, adapters: MoveFields | None = None):
        entry = registry.entry(game_id)
        self.game_id = game_id
        self.prefix = entry.prefix
        self.pb2: ModuleType = importlib.import_module(entry.proto_module)
        self.spec: GameSpec = entry.spec
        self.adapters = adapters or MoveFields()
        self.Move: type[Message] = self.msg("Move")
        self.Options: type[Message] = self.msg("Options")
        self.View: type[Message] = self.msg("View")
        self.Event: type[Message] = self.msg("Event")
        self.service: ServiceDescriptor = self.pb2.DESCRIPTOR.services_by_name[f"{self.prefix}Service"]
        self.rpcs: dict[str, MethodDescriptor] = self._rpcs()
        self.log_entry = self._field_message(self.response("get_log"), "entries")  # e.g. PompeiiLogEntry
        self.move_value = self._field_message(self.response("get_hint"), "values")  # e.g. PompeiiMoveValue
        self._string_options = tuple(o.name for o in self.spec.options if o.type is str)
        self._kinds = self._move_kinds(importlib.import_module(entry.moves_module))
        self._by_class = {k.cls: k for k in self._kinds.values()}

    def msg(self, suffix: str) -> type[Message]:
        """The game's message `<Prefix><suffix>`, e.g. msg("Move") is PompeiiMove."""
        cls: type[Message] = getattr(self.pb2, self.prefix + suffix)
        return cls

    def _rpcs(self) -> dict[str, MethodDescriptor]:
        """Role -> RPC of this game's service; a service that is not the template's fails here."""
        names = {role: name.format(P=self.prefix) for role, name in RPCS.items()}
        declared = {m.name for m in self.service.methods}
        if declared != set(names.values()):
            raise TypeError(f"{self.service.full_name} declares {sorted(declared)}, not the template's "
                            f"{sorted(names.values())} (protos/gameengine/v1/TEMPLATE.md)")
        return {role: self.service.methods_by_name[name] for role, name in names.items()}

    def request(self, role: str) -> type[Message]:
        """The request message of an RPC, e.g. request("make_move") is MakePompeiiMoveRequest."""
        cls: type[Message] = message_factory.GetMessageClass(self.rpcs[role].input_type)
        return cls

    def response(self, role: str) -> type[Message]:
        cls: type[Message] = message_factory.GetMessageClass(self.rpcs[role].output_type)
        return cls

    @staticmethod
    def _field_message(cls: type[Message], name: str) -> type[Message]:
        field: Any = cls.DESCRIPTOR.fields_by_name[name]
        found: type[Message] = message_factory.GetMessageClass(field.message_type)
        return found

    def _move_kinds(self, moves: ModuleType) -> dict[str, _Kind]:
        """Every oneof field of the move message with its engine class; a field without one, or an
        engine field the message lacks, fails here (at startup), not at the first such move."""
        kinds = {}
        oneof = self.Move.DESCRIPTOR.oneofs_by_name["move"]
        flags = {k.split(".")[0]: v for k, v in self.adapters.none_flags.items()}
        for f in oneof.fields:
            cls = getattr(moves, _camel(f.name), None)
            if cls is None or not hasattr(cls, "_fields"):
                raise TypeError(f"{self.prefix}Move.{f.name}: {moves.__name__} has no move kind {_camel(f.name)}")
            body: Any = f.message_type  # the move kind's Descriptor
            missing = [n for n in cls._fields if n not in body.fields_by_name]
            extra = [n.name for n in body.fields if n.name not in cls._fields and n.name != flags.get(f.name)]
            if missing or extra:
                raise TypeError(f"{self.prefix}Move.{f.name} and {cls.__name__} differ: {missing or extra}")
            defaults = cls._field_defaults
            kinds[f.name] = _Kind(f.name, cls, tuple(
                (body.fields_by_name[n], n in defaults) for n in cls._fields))
        return kinds

    # ---- options, views, events: dicts keyed by proto field names ----------------------
    def options_from_proto(self, msg: Message) -> dict[str, Any]:
        return to_dict(msg, with_defaults=False)

    def options_to_proto(self, options: Mapping[str, Any]) -> Message:
        wire = {k: str(v) if k in self._string_options else v for k, v in options.items()}
        return from_dict(wire, self.Options)

    def view_to_proto(self, view: Mapping[str, Any]) -> Message:
        return from_dict(view, self.View)

    def view_from_proto(self, msg: Message) -> dict[str, Any]:
        return to_dict(msg)

    def event_to_proto(self, event: Event) -> Message:
        return from_dict({event.kind: dict(event.data)}, self.Event)

    def event_from_proto(self, msg: Message) -> tuple[str, dict[str, Any]]:
        kind = msg.WhichOneof("event")
        if kind is None:
            raise ValueError(f"{self.prefix}Event has no event set")
        return kind, to_dict(getattr(msg, kind))

    # ---- the game's messages in storage (storage.proto keeps them as google.protobuf.Any) -----
    @staticmethod
    def pack(msg: Message) -> any_pb2.Any:
        stored = any_pb2.Any()
        stored.Pack(msg)
        return stored

    def unpack(self, stored: any_pb2.Any, cls: type[Message]) -> Message:
        """The stored message, which must be of this game's type `cls`; ValueError otherwise."""
        msg = cls()
        if not stored.Unpack(msg):
            raise ValueError(f"a {stored.TypeName()[:80] or 'missing'} message where a {self.game_id} game keeps "
                             f"{cls.DESCRIPTOR.full_name}")
        return msg

    # ---- moves -------------------------------------------------------------------------------
    def move_to_proto(self, move: Move) -> Message:
        kind = self._by_class.get(type(move))
        if kind is None:
            raise TypeError(f"not a {self.prefix} move: {move!r}")
        msg = self.Move()
        body = getattr(msg, kind.oneof_field)
        body.SetInParent()
        for (f, _), value in zip(kind.fields, move):  # type: ignore[call-overload]
            if value is None:
                flag = self.adapters.none_flags.get(f"{kind.oneof_field}.{f.name}")
                if flag:
                    setattr(body, flag, True)
                continue
            _set(body, f, value)
        return msg

    def move_from_proto(self, msg: Message) -> Move:
        """Raise MalformedMove when the oneof is unset or a required part is missing."""
        name = msg.WhichOneof("move")
        if name is None:
            raise MalformedMove(f"{self.prefix}Move has no move set")
        kind = self._kinds[name]
        body = getattr(msg, name)
        move: Move = kind.cls(*(self._part(kind, body, f, optional) for f, optional in kind.fields))
        return move

    def _part(self, kind: _Kind, body: Message, f: Any, optional: bool) -> Any:
        path = f"{kind.oneof_field}.{f.name}"
        a = self.adapters
        if f.type == FieldDescriptor.TYPE_MESSAGE and not _repeated(f):
            flag = a.none_flags.get(path)
            present = body.HasField(f.name)
            if flag and present == getattr(body, flag):
                raise MalformedMove(f"{kind.oneof_field} needs exactly one of {f.name} or {flag}")
            if not present:
                if optional:
                    return None
                raise MalformedMove(f"{path} is missing")
        value = _field_value(body, f)
        if path in a.counts and len(value) != a.counts[path]:
            raise MalformedMove(f"{path} needs exactly {a.counts[path]} items, not {len(value)}")
        if not value and (path in a.required or (f.type == FieldDescriptor.TYPE_STRING and not optional
                                                 and not _repeated(f))):
            raise MalformedMove(f"{path} is missing")
        return tuple(sorted(value)) if path in a.sets else value

