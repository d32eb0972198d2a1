"""Eruption board geometry and component data, loaded once from data/board.json.

Cells are axial (x, y) tuples; edges are indices 0..5 clockwise from north
(ERU-10, ERU-11). Lava edge sets are 6-bit masks: bit e set = lava on edge e.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

# A space, (x, y), and an edge of a space, a wall position (ERU-24). Declared as tuples of any length on
# purpose: mypyc keeps a fixed-length tuple type unboxed, and boxes it again into a new tuple object
# wherever it meets a dict or set, so every lookup would hash a fresh tuple instead of finding the one
# object per space (CANONICAL below) by identity.
Cell = tuple[int, ...]
Position = tuple[Any, ...]

DATA: Final = json.loads((Path(__file__).parent / "data" / "board.json").read_text())

EDGE_NAMES: Final = tuple(e["name"] for e in DATA["coordinates"]["edges"])
OFFSETS: Final = tuple(tuple(e["delta"]) for e in DATA["coordinates"]["edges"])
OPP: Final = tuple((e + 3) % 6 for e in range(6))  # ERU-11: facing edge


def neighbour(cell, e):
    return (cell[0] + OFFSETS[e][0], cell[1] + OFFSETS[e][1])


def distance(a, b):
    dx, dy = a[0] - b[0], a[1] - b[1]
    return (abs(dx) + abs(dy) + abs(dx + dy)) // 2


def _cells(key):
    return [tuple(c) for c in key]


PLAYABLE: Final = tuple(sorted(_cells(DATA["cells"]["playable"])))
# One tuple object per playable space, and per wall position on one: the tables below hold these, so the
# dict lookups of the board's cells mostly find their key by identity rather than comparing tuples.
CANONICAL: Final[dict[Cell, Cell]] = {c: c for c in PLAYABLE}
_POSITIONS: list[Position] = [(c, e) for c in PLAYABLE for e in range(6)]
CANONICAL_POSITION: Final[dict[Position, Position]] = {p: p for p in _POSITIONS}  # typed: kept boxed when compiled


def _cell(c):
    c = tuple(c)
    return CANONICAL.get(c, c)


def _position(c, e):
    p = (_cell(c), e)
    return CANONICAL_POSITION.get(p, p)


PLAYABLE_SET: Final = frozenset(PLAYABLE)
VOLCANO: Final = frozenset(_cells(DATA["volcano"]["cells"]))
SEA: Final = frozenset(_cells(DATA["cells"]["sea"]))
VILLAGE_CELLS: Final = {int(k): _cells(v) for k, v in DATA["cells"]["village"].items()}
VILLAGE_OF: Final = {c: v for v, cells in VILLAGE_CELLS.items() for c in cells}

# ERU-14: volcano exits, as lava edges facing a playable space
EXITS: Final = tuple((tuple(x["cell"]), x["edge"], _cell(x["space"])) for x in DATA["volcano"]["lava_exits"])
EXIT_SPACES: Final = tuple(x[2] for x in EXITS)

# ERU-15: entry positions per village, in damage order
ENTRIES: Final[dict[int, tuple[Position, ...]]] = {
    v["id"]: tuple(_position(p["space"], p["edge"]) for p in v["entry_edges"]) for v in DATA["villages"]
}
ENTRY_VILLAGE: Final = {pos: v for v, positions in ENTRIES.items() for pos in positions}
SEA_EDGES: Final = frozenset(_position(p["space"], p["edge"]) for p in DATA["sea_edges"])
VILLAGES_BY_COUNT: Final = {int(k): tuple(v) for k, v in DATA["villages_by_player_count"].items()}

# ERU-18: wall-award spaces
AWARD: Final = {_cell(c): m for m, cells in DATA["wall_award_spaces"].items() for c in cells}

MATERIALS: Final[tuple[str, ...]] = ("straw", "wood", "stone")
MATERIAL_INDEX: Final = {m: i for i, m in enumerate(MATERIALS)}
WALLS: Final = DATA["walls"]["materials"]
SUPPLY: Final = tuple(WALLS[m]["supply"] for m in MATERIALS)
DICE_BONUS: Final = {m: WALLS[m]["dice_bonus"] for m in MATERIALS}  # ERU-95
TIEBREAK: Final[dict[str, int]] = {m: WALLS[m]["tiebreak_points"] for m in MATERIALS}  # ERU-155

# ERU-2: tile ids 0..39 in the order of board.json; eruption tiles are 40, 41, 42 (numbers 1..3)
TILE_TYPES: Final = {t["id"]: t for t in DATA["tile_types"]}
TILE_TYPE_OF: list[str] = []
for _t in DATA["tile_types"]:
    if _t["in_stack"]:
        TILE_TYPE_OF += [_t["id"]] * _t["count"]
LAVA_TILE_IDS: Final = tuple(range(len(TILE_TYPE_OF)))
ERUPTION_TYPE: Final = "T7"
ERUPTION_IDS: Final = tuple(len(TILE_TYPE_OF) + k for k in range(3))
TILE_TYPE_OF += [ERUPTION_TYPE] * 3


def _mask(edges):
    m = 0
    for e in edges:
        m |= 1 << e
    return m


def rotate(mask, r):
    """ERU-12: orientation r puts canonical edge e on (e + r) mod 6."""
    return ((mask << r) | (mask >> (6 - r))) & 63 if r else mask


ROT_MASK: Final = {t: tuple(rotate(_mask(d["lava_edges"]), r) for r in range(6)) for t, d in TILE_TYPES.items()}
MASK_OF_TILE: Final[list[tuple[int, ...]]] = [ROT_MASK[t] for t in TILE_TYPE_OF]  # tile id -> masks by rotation
EDGES_OF_MASK: Final = [tuple(e for e in range(6) if m >> e & 1) for m in range(64)]
POPCOUNT: Final = [bin(m).count("1") for m in range(64)]

# Per playable space: the playable neighbour on each edge (or None), and the
# static constraint from the volcano (ERU-19): exits show lava, other volcano edges grass.
NEIGHBOUR_SPACE: Final[dict[Cell, tuple[Cell | None, ...]]] = {}
VOLCANO_LAVA_IN: Final[dict[Cell, int]] = {}
VOLCANO_CONSTRAINED: Final[dict[Cell, int]] = {}
_exit_set = {(x[2], OPP[x[1]]) for x in EXITS}
for _s in PLAYABLE:
    NEIGHBOUR_SPACE[_s] = tuple(
        (CANONICAL[neighbour(_s, e)] if neighbour(_s, e) in PLAYABLE_SET else None) for e in range(6)
    )
    lava_in = constrained = 0
    for e in range(6):
        if neighbour(_s, e) in VOLCANO:
            constrained |= 1 << e
            if (_s, e) in _exit_set:
                lava_in |= 1 << e
    VOLCANO_LAVA_IN[_s] = lava_in
    VOLCANO_CONSTRAINED[_s] = constrained

# Entry edges of each space, as masks: any village, and per village (ERU-76, ERU-124)
ENTRY_MASK_BY_VILLAGE: Final[dict[Cell, dict[int, int]]] = {s: {} for s in PLAYABLE}
for (_s, _e), _v in ENTRY_VILLAGE.items():
    ENTRY_MASK_BY_VILLAGE[_s][_v] = ENTRY_MASK_BY_VILLAGE[_s].get(_v, 0) | (1 << _e)

# Action cards (ERU-5)
CARD_KINDS: Final = tuple(c["type"] for c in DATA["action_cards"])
CARD_MATERIAL: Final = {c["type"]: c["material"] for c in DATA["action_cards"]}
CARD_COUNT: Final = {c["type"]: c["count"] for c in DATA["action_cards"]}

ZONE_THRESHOLDS: Final[dict[str, tuple[int, ...]]] = {
    k: tuple(v) for k, v in DATA["zone_thresholds"].items() if k != "default"}
MAX_TEMP: Final = DATA["temperature"]["max"]
DAMAGE: Final = DATA["damage"]
ERUPTION_HEAT: Final = DATA["eruption_tiles"]["heat_to_each_other_player"]
HAND_LIMIT: Final = DATA["hand"]["limit_at_end_of_turn"]
STARTING_CARDS: Final = DATA["hand"]["starting_cards"]

# Per playable space, its playable neighbours as (edge bit, neighbour, facing edge), and the spaces
# lava on each mask reaches as (neighbour, bit of the neighbour's edge facing it): the scans of
# geometry.py and derived.py walk these instead of testing every edge (ERU-19, ERU-23).
NEIGHBOUR_LINKS: Final[dict[Cell, tuple[tuple[int, Cell, int], ...]]] = {
    _s: tuple((1 << e, n, OPP[e]) for e, n in enumerate(NEIGHBOUR_SPACE[_s]) if n is not None) for _s in PLAYABLE
}
def _reach(space: Cell, mask: int) -> tuple[tuple[Cell, int], ...]:
    neighbours = NEIGHBOUR_SPACE[space]
    return tuple((n, 1 << OPP[e]) for e, n in ((e, neighbours[e]) for e in EDGES_OF_MASK[mask]) if n is not None)


LAVA_REACH: Final = {_s: tuple(_reach(_s, m) for m in range(64)) for _s in PLAYABLE}
EXIT_ENDS: Final = tuple((space, 1 << OPP[e]) for _, e, space in EXITS)  # ERU-14: an exit's open end
# Per playable space and lava mask: the wall positions (space, edge) on the mask's edges (ERU-23, ERU-90).
END_POSITIONS: Final = {_s: tuple(tuple(CANONICAL_POSITION[_s, e] for e in EDGES_OF_MASK[m]) for m in range(64))
                 for _s in PLAYABLE}

# The same tables by cell id, a space's index in PLAYABLE (sorted, so ids order as cells do): derived.py
# keeps the board answers in lists indexed by id, so its scans index lists instead of hashing cell tuples.
CELL_COUNT: Final = len(PLAYABLE)
CELL_ID: Final[dict[Cell, int]] = {c: i for i, c in enumerate(PLAYABLE)}
# id -> its playable neighbours as (edge bit, neighbour id, facing edge)
LINKS_BY_ID: Final[list[tuple[tuple[int, int, int], ...]]] = [
    tuple((bit, CELL_ID[n], facing) for bit, n, facing in NEIGHBOUR_LINKS[c]) for c in PLAYABLE]
# id -> lava mask -> the spaces its lava reaches as (neighbour id, bit of the neighbour's edge facing it)
REACH_BY_ID: Final[list[tuple[tuple[tuple[int, int], ...], ...]]] = [
    tuple(tuple((CELL_ID[n], bit) for n, bit in LAVA_REACH[c][m]) for m in range(64)) for c in PLAYABLE]
VOLCANO_LAVA_IN_BY_ID: Final[list[int]] = [VOLCANO_LAVA_IN[c] for c in PLAYABLE]
VOLCANO_CONSTRAINED_BY_ID: Final[list[int]] = [VOLCANO_CONSTRAINED[c] for c in PLAYABLE]
END_POSITIONS_BY_ID: Final[list[tuple[tuple[Position, ...], ...]]] = [END_POSITIONS[c] for c in PLAYABLE]
# A wall position's id: its space's id * 6 + its edge; by space id and lava mask, its open end's position ids
POSITION_ID: Final[dict[Position, int]] = {p: CELL_ID[p[0]] * 6 + p[1] for p in _POSITIONS}
END_POSITION_IDS_BY_ID: Final[list[tuple[tuple[int, ...], ...]]] = [
    tuple(tuple(POSITION_ID[p] for p in END_POSITIONS[c][m]) for m in range(64)) for c in PLAYABLE]
ENTRY_POSITION_IDS: Final = {v: tuple(POSITION_ID[p] for p in positions) for v, positions in ENTRIES.items()}
AWARD_BY_ID: Final[list[bool]] = [c in AWARD for c in PLAYABLE]
EXIT_ENDS_BY_ID: Final[tuple[tuple[int, int], ...]] = tuple((CELL_ID[space], bit) for space, bit in EXIT_ENDS)
ENTRY_VILLAGES_BY_ID: Final[list[tuple[int, ...]]] = [tuple(ENTRY_MASK_BY_VILLAGE[c]) for c in PLAYABLE]
