"""Events as the turn flow and the effects make them: an ordinary `engines.core.Event` (equal to
`Event(kind, data, to)`, same fields, repr and pickle), built without the frozen dataclass's
`__init__`, whose three `object.__setattr__` calls cost more than most moves' own work and a
playout makes about two events per move."""
from __future__ import annotations

from typing import Any

from engines.core import PUBLIC, Event

_new = object.__new__


def event(kind: str, data: dict[str, Any], to: int | None = PUBLIC) -> Event:
    made = _new(Event)
    fields = made.__dict__
    fields["kind"] = kind
    fields["data"] = data
    fields["to"] = to
    return made
