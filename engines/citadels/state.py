"""The Citadels game state: plain, picklable, with a hand-written clone."""
from __future__ import annotations

import random

# Slots grouped by how clone() copies them.
_SCALARS = (
    "n", "opts", "round", "phase", "crown", "bank",
    "picker", "pick_no", "sel_step",
    "calling", "active", "active_rank", "murdered", "robbed", "protected",
    "step", "action_taken", "income_taken", "power_used", "lab_used", "smithy_used",
    "warlord_used", "builds", "keep_n", "grave_card", "grave_seat", "grave_victim", "grave_resume",
    "first_completer", "complete_round", "final_round", "last_murdered_seat", "result",
)
_FLAT_LISTS = (
    "gold", "built_in", "deck", "discard_pile", "face_up", "fd_ranks", "fd_by",
    "pile", "sequence", "drawn", "shown_face_down", "revealed_ranks", "revealed_seats",
)
_NESTED_LISTS = ("hands", "cities", "known_hand", "held", "my_discards")


class CitadelsState:
    """Full state. See rules.py for the meaning of each field.

    Cards are instance ids (cards.py); characters are ranks 1..8.
    """

    __slots__ = _SCALARS + _FLAT_LISTS + _NESTED_LISTS + ("rng", "deck_known", "seen")

    def clone(self) -> "CitadelsState":
        c = CitadelsState.__new__(CitadelsState)
        for name in _SCALARS:
            setattr(c, name, getattr(self, name))
        for name in _FLAT_LISTS:
            setattr(c, name, getattr(self, name)[:])
        for name in _NESTED_LISTS:
            setattr(c, name, [x[:] for x in getattr(self, name)])
        c.rng = random.Random()
        c.rng.setstate(self.rng.getstate())
        c.deck_known = dict(self.deck_known)
        c.seen = [[x[:] for x in per_seat] for per_seat in self.seen]
        return c

    def __getstate__(self):
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, d):
        for k, v in d.items():
            setattr(self, k, v)
