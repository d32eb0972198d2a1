"""Issue 22 (core): events and moves cost little to make and to look up, and stay the values they were."""
from __future__ import annotations

import pickle
import pickletools
from typing import NamedTuple

from engines.core import Event, distinct_move_kinds


class Rob(NamedTuple):
    rank: int


class Kill(NamedTuple):
    rank: int


class Pass(NamedTuple):
    pass


class EndTurn(NamedTuple):
    pass


distinct_move_kinds(Rob, Kill, Pass, EndTurn)

# Event("gold_gained", {"seat": 1}, 1) pickled when Event was a frozen dataclass (b7d429d): the fields as
# a dict for the default object reconstruction, as old data dirs hold them.
FROZEN_DATACLASS_PICKLE = (
    b"\x80\x04\x95Q\x00\x00\x00\x00\x00\x00\x00\x8c\x0cengines.core\x94\x8c\x05Event\x94\x93\x94)\x81\x94}"
    b"\x94(\x8c\x04kind\x94\x8c\x0bgold_gained\x94\x8c\x04data\x94}\x94\x8c\x04seat\x94K\x01s\x8c\x02to\x94K\x01ub."
)


def test_item1_event_is_slotted_and_made_by_its_plain_constructor():
    made = Event("gold_gained", {"seat": 1, "amount": 2}, 1)
    assert not hasattr(made, "__dict__")
    assert (made.kind, made.data, made.to) == ("gold_gained", {"seat": 1, "amount": 2}, 1)
    assert Event("round_started").data == {} and Event("round_started").to is None
    assert Event("round_started").data is not Event("round_started").data


def test_item1_event_keeps_the_dataclass_repr_equality_and_visibility():
    made = Event("cards_seen", {"cards": [3]}, 2)
    assert repr(made) == "Event(kind='cards_seen', data={'cards': [3]}, to=2)"
    assert made == Event("cards_seen", {"cards": [3]}, 2)
    assert made != Event("cards_seen", {"cards": [3]}, 1) and made != ("cards_seen", {"cards": [3]}, 2)
    assert made.visible_to(2) and not made.visible_to(1) and not made.visible_to(None)
    assert Event("x").visible_to(None) and Event("x").visible_to(0)


def test_item1_event_pickles_compactly_and_old_dataclass_pickles_still_load():
    made = Event("gold_gained", {"seat": 1}, 1)
    assert pickle.loads(pickle.dumps(made)) == made
    assert len(pickle.dumps(made)) < len(FROZEN_DATACLASS_PICKLE)
    old = pickle.loads(FROZEN_DATACLASS_PICKLE)
    assert type(old) is Event and old == made and not hasattr(old, "__dict__")
    assert "BUILD" in {op.name for op, _, _ in pickletools.genops(FROZEN_DATACLASS_PICKLE)}


def test_item1_moves_hash_in_c_and_still_differ_by_kind():
    for kind in (Rob, Kill, Pass, EndTurn):
        assert kind.__hash__ is tuple.__hash__  # no Python frame (nor tuple) per dict lookup
    assert Rob(3) != Kill(3) and Pass() != EndTurn() and Pass() != ()
    assert Rob(3) == Rob(3) and not (Rob(3) != Rob(3)) and Rob(3) != Rob(4)
    keyed = {Rob(3): "rob", Kill(3): "kill", Pass(): "pass", EndTurn(): "end"}
    assert [keyed[m] for m in (Rob(3), Kill(3), Pass(), EndTurn())] == ["rob", "kill", "pass", "end"]
    assert len({Rob(3), Kill(3), Rob(3), Pass(), EndTurn(), Pass()}) == 4
