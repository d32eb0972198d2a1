"""The Citadels game state: plain, picklable, with a hand-written clone."""
from __future__ import annotations

import random
from typing import Any, Final

# phases
SELECTION: Final = "selection"  # CIT-18..27: the characters are drafted
TURNS: Final = "turns"  # CIT-28..33: the characters are called in rank order
OVER: Final = "over"

# selection steps (CIT-24: the 2-player draft discards after some picks)
PICK: Final = "pick"
DISCARD: Final = "discard"

# turn steps
MAIN: Final = "main"  # CIT-32: the active character's turn
KEEP: Final = "keep"  # CIT-36: drawn cards wait for the keep choice
END: Final = "end"  # CIT-32/53: the Warlord's end step (warlord_timing end_of_turn)
GRAVEYARD: Final = "graveyard"  # CIT-63: the Graveyard's owner answers out of turn

# Slots grouped by how clone() copies them.
_SCALARS = (
    "seats", "options", "round", "phase", "crown", "bank",
    "picker", "pick_number", "selection_step",
    "calling", "active", "active_rank", "murdered", "robbed", "protected",
    "step", "action_taken", "income_taken", "power_used", "laboratory_used", "smithy_used",
    "warlord_used", "builds_made", "keep_count", "graveyard_card", "graveyard_seat", "graveyard_victim",
    "graveyard_resume",
    "first_completer", "complete_round", "final_round", "last_murdered_seat", "result",
)
_FLAT_LISTS = (
    "gold", "built_in", "deck", "discard_pile", "face_up", "face_down_ranks", "face_down_by",
    "pile", "sequence", "drawn", "shown_face_down", "revealed_ranks", "revealed_seats",
)
_NESTED_LISTS = ("hands", "cities", "known_hand", "held", "my_discards")


# the previous release's names, for the states its data dirs pickled
_FORMER_NAMES = {"n": "seats", "opts": "options", "fd_ranks": "face_down_ranks", "fd_by": "face_down_by",
                 "sel_step": "selection_step", "pick_no": "pick_number", "keep_n": "keep_count",
                 "lab_used": "laboratory_used", "grave_card": "graveyard_card", "grave_seat": "graveyard_seat",
                 "grave_victim": "graveyard_victim", "grave_resume": "graveyard_resume", "builds": "builds_made"}


class CitadelsState:
    """Full state. Cards are instance ids (cards.py); characters are ranks 1..8.

      seats, options, rng, round, phase (SELECTION | TURNS | OVER), crown, bank (-1 = unlimited)
      gold[seat], hands[seat], cities[seat] (card ids, build order), built_in[card] (round or -1)
      deck (index 0 = top, CIT-0), discard_pile (destroyed_district_to=discard)
      known_hand[seat]   cards publicly known to be in that hand (Graveyard, CIT-80)
      deck_known         card -> seat that knows its deck position (-1 = public)
      selection: held[seat] ranks, face_up, face_down_ranks/face_down_by (face-down ranks and who
        put them there, -1 = random), pile (cards in the picker's hands), sequence (pickers),
        pick_number, picker, selection_step (PICK | DISCARD), seen[seat] (CIT-12),
        my_discards[seat], shown_face_down[seat] (7-player last picker, CIT-23)
      turns: calling (rank), active, active_rank, murdered, robbed, protected (Bishop seat),
        revealed_ranks/revealed_seats, step (MAIN | KEEP | END | GRAVEYARD), once-per-turn
        flags, builds_made, drawn/keep_count (pending draw), graveyard_* (pending Graveyard)
      end: first_completer, complete_round, final_round, last_murdered_seat, result
    """

    __slots__ = _SCALARS + _FLAT_LISTS + _NESTED_LISTS + ("rng", "deck_known", "seen")

    # the slots' types (annotations only: the values live in the slots)
    seats: int
    options: dict[str, Any]
    round: int
    phase: str
    crown: int
    bank: int
    picker: int
    pick_number: int
    selection_step: str
    calling: int
    active: int
    active_rank: int
    murdered: int
    robbed: int
    protected: int
    step: str
    action_taken: bool
    income_taken: bool
    power_used: bool
    laboratory_used: bool
    smithy_used: bool
    warlord_used: bool
    builds_made: int
    keep_count: int
    graveyard_card: int
    graveyard_seat: int
    graveyard_victim: int
    graveyard_resume: str
    first_completer: int
    complete_round: int
    final_round: bool
    last_murdered_seat: int
    result: dict[str, Any] | None
    gold: list[int]
    built_in: list[int]
    deck: list[int]
    discard_pile: list[int]
    face_up: list[int]
    face_down_ranks: list[int]
    face_down_by: list[int]
    pile: list[int]
    sequence: list[int]
    drawn: list[int]
    shown_face_down: list[int]
    revealed_ranks: list[int]
    revealed_seats: list[int]
    hands: list[list[int]]
    cities: list[list[int]]
    known_hand: list[list[int]]
    held: list[list[int]]
    my_discards: list[list[int]]
    rng: random.Random
    deck_known: dict[int, int]
    seen: list[list[list[int]]]

    def clone(self) -> CitadelsState:
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

    def __setstate__(self, fields):
        for name, value in fields.items():
            setattr(self, _FORMER_NAMES.get(name, name), value)

