"""Board, card and tile facts of The Downfall of Pompeii, loaded from data/board.json.

Squares are tuples (row, col) at the edges and flat indices `row * COLS + col`
inside the engine (fast lists instead of dicts).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

_DATA = json.loads((Path(__file__).parent / "data" / "board.json").read_text())

ROWS = _DATA["coordinates"]["rows"]
COLS = _DATA["coordinates"]["cols"]
CELLS = ROWS * COLS


def index(square) -> int:
    return square[0] * COLS + square[1]


def square(i: int) -> tuple[int, int]:
    return (i // COLS, i % COLS)


SQUARES = tuple((i // COLS, i % COLS) for i in range(CELLS))


def sq(cell: int) -> dict:
    """A cell as the wire's square message."""
    return {"row": cell // COLS, "col": cell % COLS}

# POM-3: void cells are never squares
VOID = frozenset(index(s) for s in _DATA["void_cells"])
CITY = tuple(i for i in range(CELLS) if i not in VOID)
IS_CITY = tuple(i not in VOID for i in range(CELLS))
CELL_AT = {SQUARES[i]: i for i in CITY}  # a city square's (row, col) -> its cell


def _neighbours(i: int) -> tuple[int, ...]:
    r, c = square(i)
    out = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):  # POM-3: orthogonal only
        rr, cc = r + dr, c + dc
        if 0 <= rr < ROWS and 0 <= cc < COLS and IS_CITY[rr * COLS + cc]:
            out.append(rr * COLS + cc)
    return tuple(out)


NEIGHBOURS = tuple(_neighbours(i) if IS_CITY[i] else () for i in range(CELLS))

# The same city as bit masks (bit i: cell i), so a walk or a flood spreads over every cell in a few
# integer operations instead of a loop over squares.
CITY_MASK = sum(1 << i for i in CITY)
_WEST_EDGE = sum(1 << (r * COLS) for r in range(ROWS))
_EAST_EDGE = _WEST_EDGE << (COLS - 1)


def spread(mask: int) -> int:
    """The city squares orthogonally beside the cells of `mask` (POM-3)."""
    return (((mask & ~_EAST_EDGE) << 1) | ((mask & ~_WEST_EDGE) >> 1) | (mask << COLS) | (mask >> COLS)) & CITY_MASK


def _within(cell: int) -> tuple[int, ...]:
    """The cells k steps or fewer from cell, for k = 0..FARTHEST, as masks."""
    out = [1 << cell]
    for _ in range(FARTHEST):
        out.append(out[-1] | spread(out[-1]))
    return tuple(out)


FARTHEST = ROWS + COLS - 2  # steps between opposite corners
# NEAR[cell][k]: the cells k steps or fewer from cell through the city (k <= FARTHEST). A walk of k
# steps from cell sees nothing outside it, so whatever lies outside cannot change where it ends.
NEAR = tuple(_within(i) for i in range(CELLS))


def cells_of(mask: int) -> list[int]:
    """The cells of a mask in increasing order (the order squares are listed in everywhere)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out

# POM-4 vents, POM-5 gates
SYMBOLS = ("scroll", "column", "coin", "vase", "helmet", "mask")
VENT = {sym: index(sq) for sym, sq in _DATA["vents"].items()}
VENT_SYMBOL = {v: s for s, v in VENT.items()}
IS_VENT = tuple(i in VENT_SYMBOL for i in range(CELLS))
GATES = tuple(index(g["square"]) for g in _DATA["gates"])
GATE_NAME = {index(g["square"]): g["name"] for g in _DATA["gates"]}
VENT_MASK = sum(1 << v for v in VENT.values())
GATE_MASK = sum(1 << g for g in GATES)

# POM-8 / POM-66: tile kinds in a fixed order (bag draws walk this order)
DUAL_PAIRS = tuple(tuple(p) for p in _DATA["dual_vent_tiles"]["pairs"])
DUAL_KINDS = tuple("+".join(p) for p in DUAL_PAIRS)
TILE_KINDS = SYMBOLS + DUAL_KINDS
TILE_COUNTS = tuple(_DATA["lava_tiles"]["per_symbol"][s] for s in SYMBOLS)
DUAL_COUNT_EACH = 1  # POM-66: three extra tiles, one per pair


_TILE_SYMBOLS = {kind: tuple(kind.split("+")) for kind in TILE_KINDS}
SYMBOL_INDEX = {sym: i for i, sym in enumerate(SYMBOLS)}


def tile_symbols(kind: str) -> tuple[str, ...]:
    """The symbols a drawn tile may be placed as (two for a dual-vent tile)."""
    return _TILE_SYMBOLS.get(kind) or tuple(kind.split("+"))


# POM-7 cards: 1..11 Pompeii numbers, then the two special cards
OMEN = 12
AD79 = 13
CARD_COUNTS = {int(n): k for n, k in _DATA["cards"]["pompeii_per_number"].items()}
OMEN_COUNT = _DATA["cards"]["omen"]
AD79_COUNT = _DATA["cards"]["ad79"]
HAND_SIZE = _DATA["cards"]["hand_size"]
DECK = _DATA["deck_build"]
PILES = DECK["piles"]
PILE_SIZE = DECK["pile_size"]
DECK_SIZE = DECK["draw_deck_size"]
DECK_POMPEII = 2 * PILE_SIZE + DECK["mixed_pile_A"]["pompeii"]  # Pompeii cards in the 42-card deck


def bottom_block_size(seats: int) -> int:
    """POM-12 step 3: the bottom block is 15 / 10 cards of pile A plus one AD79."""
    return DECK["bottom_block_from_A"][str(seats)] + 1


def unused_piles(seats: int) -> int:
    return DECK["unused_piles_to_box"][str(seats)]


PIECES = {ed: {int(p): n for p, n in v.items()} for ed, v in _DATA["pieces_per_player"].items() if ed[0].isdigit()}


@dataclass(frozen=True)
class Building:
    id: str
    number: int  # 0 for a neutral building
    colour: str
    squares: tuple[int, ...]
    slots: int


Rooms = tuple[tuple[int, int], ...]  # (cell, slots printed on it) per building square, in building order


@dataclass(frozen=True)
class Layout:
    """POM-6: buildings and slots for one value of `building_10_split`, with the lookups that
    phase 1 asks at every decision built once."""

    buildings: tuple[Building, ...]
    building_at: tuple[int, ...]  # building index per cell, -1 for none
    slots_at: tuple[int, ...]  # slots printed on each cell
    by_number: dict[int, tuple[int, ...]]  # number -> tuple of building indices
    by_id: dict[str, int]  # id -> building index
    rooms: tuple[Rooms, ...]  # per building
    number_rooms: dict[int, Rooms]  # number -> the rooms of every building bearing it (POM-22/36)
    wild_rooms: dict[bool, Rooms]  # wild_card_neutral_buildings -> rooms a wild card may fill (POM-37)
    relatives_for: tuple[tuple[int, ...], ...]  # entered building -> relative_targets(entered)

    def relative_targets(self, entered: int) -> tuple[int, ...]:
        """POM-33: buildings of the entered building's colour (twin included), or neutral; never itself."""
        if 0 <= entered < len(self.relatives_for):
            return self.relatives_for[entered]
        return _relative_targets(self.buildings, entered)


def _relative_targets(buildings: tuple[Building, ...], entered: int) -> tuple[int, ...]:
    colour = buildings[entered].colour
    return tuple(b for b, bd in enumerate(buildings) if b != entered and (bd.colour == colour or bd.number == 0))


def _layout(split_10: bool) -> Layout:
    raw = list(_DATA["buildings"])
    if split_10:
        var = _DATA["building_variants"]["building_10_split"]
        raw = [b for b in raw if b["id"] not in var["remove"]] + list(var["add"])
    buildings: list[Building] = []
    building_at = [-1] * CELLS
    slots_at = [0] * CELLS
    for b in raw:
        squares = tuple(index(s["square"]) for s in b["squares"])
        bi = len(buildings)
        buildings.append(Building(b["id"], b["number"] or 0, b["colour"], squares, b["slots"]))
        for s in b["squares"]:
            building_at[index(s["square"])] = bi
            slots_at[index(s["square"])] = s["slots"]
    by_number: dict[int, tuple[int, ...]] = {}
    for bi, bd in enumerate(buildings):
        if bd.number:
            by_number[bd.number] = by_number.get(bd.number, ()) + (bi,)
    rooms = tuple(tuple((c, slots_at[c]) for c in bd.squares) for bd in buildings)
    return Layout(
        tuple(buildings), tuple(building_at), tuple(slots_at), by_number,
        {bd.id: bi for bi, bd in enumerate(buildings)}, rooms,
        {n: tuple(r for b in bs for r in rooms[b]) for n, bs in by_number.items()},
        {neutral: tuple(r for b, bd in enumerate(buildings) if bd.number or neutral for r in rooms[b])
         for neutral in (False, True)},
        tuple(_relative_targets(tuple(buildings), b) for b in range(len(buildings))))


LAYOUTS = {False: _layout(False), True: _layout(True)}
