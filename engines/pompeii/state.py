"""Game state of The Downfall of Pompeii: plain, picklable, cheap to clone."""
from __future__ import annotations

import random

from . import board as B

# phases (POM-91): phase 1, the opening tiles, phase 2
SETTLE = "settle"  # phase 1 (POM-20..37)
OPENING = "opening"  # the six opening tiles (POM-61)
ESCAPE = "escape"  # phase 2 (POM-70..76)
OVER = "over"

# decision steps
PLAY_CARD = "play_card"
RELATIVES = "relatives"
OMEN = "omen"
PLACE_LAVA = "place_lava"
FIRST_MOVE = "first_move"
SECOND_MOVE = "second_move"

_FORMER_NAMES = {"players": "seats"}
_DERIVED = ("lava_read", "lava_seen", "covered", "lava_marks")  # remade from lava_order, never pickled
_NO_MARKS: dict[str, int] = {}  # shared: lava_marks is replaced, never written


class People(list):
    """`people[cell * seats + seat]` counts a seat's people on a cell (a plain list of ints to read).
    Every write also keeps the totals the rules ask for at nearly every decision: per cell (`crowd`:
    POM-71's allowance, the free slots of POM-22), per seat (`placed`: POM-76) and the cells each seat
    stands on (`where`, a bit mask per seat), so no query scans the board. The totals are bytes: a
    game has at most 100 pieces (POM-11)."""

    __slots__ = ("seats", "crowd", "placed", "where")

    def __init__(self, counts, seats: int):
        super().__init__(counts)
        self.seats = seats
        self.recount()

    def recount(self) -> None:
        p = self.seats
        cells = len(self) // p
        if not any(self):
            self.crowd, self.placed, self.where = bytearray(cells), bytearray(p), [0] * p
            return
        self.crowd = bytearray(sum(self[c * p:(c + 1) * p]) for c in range(cells))
        self.placed = bytearray(sum(self[s::p]) for s in range(p))
        self.where = [sum(1 << c for c in range(cells) if self[c * p + s]) for s in range(p)]

    def __setitem__(self, i, count):
        if not isinstance(i, int):  # a slice: rare, recount everything
            list.__setitem__(self, i, count)
            self.recount()
            return
        if i < 0:
            i += len(self)
        old = self[i]
        list.__setitem__(self, i, count)
        if count != old:
            cell, seat = divmod(i, self.seats)
            self.crowd[cell] += count - old
            self.placed[seat] += count - old
            if not count:
                self.where[seat] &= ~(1 << cell)
            elif not old:
                self.where[seat] |= 1 << cell

    def copy(self) -> People:
        c = People.__new__(People)
        list.extend(c, self)
        c.seats = self.seats
        c.crowd = bytearray(self.crowd)
        c.placed = bytearray(self.placed)
        c.where = list(self.where)
        return c

    def __reduce__(self):
        return People, (list(self), self.seats)


class PompeiiState:
    """Everything about one game. `people[cell * seats + seat]` counts a seat's people on a cell."""

    __slots__ = (
        "seats", "options", "rng", "phase", "step", "turn", "first_ad79", "hands", "deck", "unused",
        "discard", "people", "lava", "lava_order", "tiles_discarded", "bag", "supply", "saved",
        "volcano", "box", "pending_tile", "relatives_left", "relatives_building", "relatives_used",
        "eruption_seat", "opening_drawn", "lone", "moves_made", "first_end", "first_lone",
        *_DERIVED,
    )

    def __init__(self, seats: int, options: dict, rng: random.Random):
        self.seats = seats
        self.options = options
        self.rng = rng
        self.phase = SETTLE
        self.step = PLAY_CARD
        self.turn = 0
        self.first_ad79 = False
        self.hands: list[list[int]] = [[] for _ in range(seats)]
        self.deck: list[int] = []  # top card last
        self.unused: list[int] = []  # POM-13: piles in the box, never seen
        self.discard: list[int] = []
        self.people = People([0] * (B.CELLS * seats), seats)
        self.lava = [""] * B.CELLS  # symbol a covered cell's tile counts as
        self.lava_order: list[tuple[int, str]] = []
        self.tiles_discarded: list[str] = []
        self.bag = [0] * len(B.TILE_KINDS)
        self.supply = [0] * seats
        self.saved = [0] * seats
        self.volcano = [0] * seats
        self.box = [0] * seats
        self.pending_tile = ""
        self.relatives_left = 0
        self.relatives_building = -1
        self.relatives_used: list[int] = []
        self.eruption_seat = -1
        self.opening_drawn = 0
        self.lone: tuple[int, ...] = ()  # POM-94: cells of the acting seat's lone people at turn start
        self.moves_made = 0
        self.first_end = -1  # cell where this turn's first move ended (-1: pass, exit or none)
        self.first_lone = False  # the first mover was alone at the start of the turn (POM-74 a)
        self.lava_read: list[tuple[int, str]] | None = None  # the lava_order list that `covered` and
        self.lava_seen = 0  # `lava_marks` were made from, and its length then (geometry.lava_masks)
        self.covered = 0
        self.lava_marks: dict[str, int] = _NO_MARKS

    def __getstate__(self):
        return {k: getattr(self, k) for k in self.__slots__ if k not in _DERIVED}

    def __setstate__(self, fields):
        for name, value in fields.items():  # the previous release's data dirs hold pickled states
            setattr(self, _FORMER_NAMES.get(name, name), value)
        if not isinstance(self.people, People):
            self.people = People(self.people, self.seats)
        self.lava_read, self.lava_seen, self.covered, self.lava_marks = None, 0, 0, _NO_MARKS

    def clone(self) -> PompeiiState:
        c = PompeiiState.__new__(PompeiiState)
        c.seats = self.seats
        c.options = self.options  # never mutated
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        c.rng = rng
        c.phase = self.phase
        c.step = self.step
        c.turn = self.turn
        c.first_ad79 = self.first_ad79
        c.hands = [list(h) for h in self.hands]
        c.deck = list(self.deck)
        c.unused = list(self.unused)
        c.discard = list(self.discard)
        c.people = self.people.copy()
        c.lava = list(self.lava)
        c.lava_order = list(self.lava_order)
        c.tiles_discarded = list(self.tiles_discarded)
        c.bag = list(self.bag)
        c.supply = list(self.supply)
        c.saved = list(self.saved)
        c.volcano = list(self.volcano)
        c.box = list(self.box)
        c.pending_tile = self.pending_tile
        c.relatives_left = self.relatives_left
        c.relatives_building = self.relatives_building
        c.relatives_used = list(self.relatives_used)
        c.eruption_seat = self.eruption_seat
        c.opening_drawn = self.opening_drawn
        c.lone = self.lone
        c.moves_made = self.moves_made
        c.first_end = self.first_end
        c.first_lone = self.first_lone
        c.lava_read = c.lava_order if self.lava_read is self.lava_order else None
        c.lava_seen = self.lava_seen
        c.covered = self.covered
        c.lava_marks = self.lava_marks  # replaced, never mutated
        return c

    # small queries used everywhere
    def on_cell(self, cell: int) -> int:
        return self.people.crowd[cell]

    def count(self, cell: int, seat: int) -> int:
        return self.people[cell * self.seats + seat]

    def on_board(self, seat: int) -> int:
        return self.people.placed[seat]

    def board_total(self) -> int:
        return sum(self.people.placed)


def layout(state: PompeiiState) -> B.Layout:
    """POM-6: the buildings under this game's `building_10_split`."""
    return B.LAYOUTS[state.options["building_10_split"]]
