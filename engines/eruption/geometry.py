"""Board queries: what the lava on the board links to, opens onto and flows into (ERU-19..24).

Pure functions of a state; the rules that use them are in legality.py, effects.py and flow.py.
"""
from __future__ import annotations

from functools import cache
from typing import Any

from . import board as B
from . import derived
from .board import Cell


def constraints(state: Any, space: Cell) -> tuple[int, int]:
    """ERU-19: (lava_in, constrained) edge masks of `space` from its neighbours."""
    lava_in = B.VOLCANO_LAVA_IN[space]
    constrained = B.VOLCANO_CONSTRAINED[space]
    lava: dict[Cell, int] = state.lava
    for bit, neighbour, facing in B.NEIGHBOUR_LINKS[space]:
        mask = lava.get(neighbour)
        if mask is not None:
            constrained |= bit
            if mask >> facing & 1:
                lava_in |= bit
    return lava_in, constrained


def open_ends(state):
    """ERU-23: empty space -> mask of its edges facing lava."""
    return dict(derived.ends(derived.of(state)))


def eruption_cells(state):
    """The cells holding an eruption tile (each a lava source, ERU-21)."""
    return {cell for cell, (tile, _) in state.board.items() if tile >= B.ERUPTION_IDS[0]}


def card_tiles(state):
    """ERU-66: the tiles Quake, Aftershock and Sinkhole may act on. Seed 002 names lava tiles (岩漿板塊),
    not eruption tiles (爆發板塊); `cards_act_on_eruption_tiles` lets them act on both."""
    return list(board_card_tiles(state))


def board_card_tiles(state: Any) -> list[Cell]:
    """`card_tiles`, as the board's cached list (not to be changed), in the order of the cells."""
    d = derived.of(state)
    flag: bool = state.options["cards_act_on_eruption_tiles"]
    tiles = d.card_tiles.get(flag)
    if tiles is None:
        board: dict[Cell, tuple[int, int]] = state.board
        tiles = [cell for cell in B.PLAYABLE if cell in board]  # sorted, as PLAYABLE is
        if len(tiles) != len(board):  # a board set by hand with other cells
            tiles = sorted(board)
        if not flag:
            first_eruption = B.ERUPTION_IDS[0]
            tiles = [cell for cell in tiles if board[cell][0] < first_eruption]
        d.card_tiles[flag] = tiles
    return tiles


def all_linked(lava, sources):
    """ERU-21: every tile of `lava` reaches the volcano or an eruption tile in `sources`."""
    seen = set()
    todo = []
    for _, e, space in B.EXITS:
        mask = lava.get(space)
        if mask is not None and mask >> B.OPP[e] & 1 and space not in seen:
            seen.add(space)
            todo.append(space)
    for cell in sources:
        if cell in lava and cell not in seen:
            seen.add(cell)
            todo.append(cell)
    while todo:
        cell = todo.pop()
        neighbours = B.NEIGHBOUR_SPACE[cell]
        for e in B.EDGES_OF_MASK[lava[cell]]:
            neighbour = neighbours[e]
            if neighbour is not None and neighbour not in seen:
                mask = lava.get(neighbour)
                if mask is not None and mask >> B.OPP[e] & 1:
                    seen.add(neighbour)
                    todo.append(neighbour)
    return len(seen) == len(lava)


def cut_tiles(state):
    """ERU-21: the tiles whose removal would cut another tile off from every source (cached per board)."""
    d = derived.of(state)
    if d.cut is None:
        d.cut = _cut_tiles(state)
    return d.cut


def _cut_tiles(state: Any) -> set[Cell]:
    """`cut_tiles` worked out. Lava links form an undirected graph; join every source tile (exit
    tile or eruption tile) to one virtual root. The cut tiles are that graph's articulation points
    (Tarjan's low-link, by depth-first search from the root; the graph has at most 43 tiles)."""
    lava: dict[Cell, int] = state.lava
    reach = B.LAVA_REACH
    links: dict[Cell, list[Cell]] = {
        cell: [n for n, bit in reach[cell][mask] if lava.get(n, 0) & bit] for cell, mask in lava.items()}
    sources = [space for space, bit in B.EXIT_ENDS if lava.get(space, 0) & bit]
    sources += eruption_cells(state)
    roots = set(sources)
    disc: dict[Cell, int] = {}
    cut: set[Cell] = set()
    for cell in sources:
        if cell not in disc:
            _visit(cell, None, links, roots, disc, cut)
    return cut


def _visit(u: Cell, parent: Cell | None, links: dict[Cell, list[Cell]], roots: set[Cell],
           disc: dict[Cell, int], cut: set[Cell]) -> int:
    """`_cut_tiles`' depth-first step from tile `u` (entered from `parent`, None for the root, whose
    discovery number is 0): the lowest discovery number reachable from `u`'s subtree."""
    here = low = len(disc) + 1
    disc[u] = here
    if parent is not None and u in roots:
        low = 0  # a back edge to the root
    for v in links[u]:
        if v == parent:
            continue
        seen = disc.get(v)
        if seen is None:
            below = _visit(v, u, links, roots, disc, cut)
            if below >= here:
                cut.add(u)
            if below < low:
                low = below
        elif seen < low:
            low = seen
    return low


def walls_of_tile(state, cell, mask=None):
    """ERU-24: open-end walls belonging to the tile on `cell`."""
    out = []
    neighbours = B.NEIGHBOUR_SPACE[cell]
    for e in B.EDGES_OF_MASK[state.lava[cell] if mask is None else mask]:
        neighbour = neighbours[e]
        if neighbour is not None and neighbour not in state.board:
            position = (neighbour, B.OPP[e])
            if position in state.walls:
                out.append(position)
    return out


def own_entries(state, seat):
    """ERU-15: the entry positions of `seat`'s village."""
    return B.ENTRIES[state.villages[seat]]


def flows_into(state, village):
    """ERU-22: entry positions of `village` that carry a flow."""
    out = []
    for space, e in B.ENTRIES[village]:
        mask = state.lava.get(space)
        if mask is not None and mask >> e & 1:
            out.append((space, e))
    return out


@cache
def _flow_masks(villages, count_unoccupied):
    """Space -> mask of its edges on entry positions of the villages that earn cards."""
    counted = set(range(6)) if count_unoccupied else set(villages)
    out = {}
    for space, per_village in B.ENTRY_MASK_BY_VILLAGE.items():
        mask = 0
        for village, village_mask in per_village.items():
            if village in counted:
                mask |= village_mask
        if mask:
            out[space] = mask
    return out


def flow_mask(state, space):
    """ERU-76, ERU-124: the edges of `space` whose lava earns a card (`cards_for_unoccupied_villages`)."""
    return _flow_masks(state.villages, state.options["cards_for_unoccupied_villages"]).get(space, 0)
