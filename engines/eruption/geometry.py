"""Board queries: what the lava on the board links to, opens onto and flows into (ERU-19..24).

Pure functions of a state; the rules that use them are in legality.py, effects.py and flow.py.
"""
from __future__ import annotations

from functools import cache
from typing import Any, Final

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


def eruption_cells(state: Any) -> set[Cell]:
    """The cells holding an eruption tile (each a lava source, ERU-21): the board's cached set (not to be changed)."""
    d = derived.of(state)
    sources = d.sources
    if sources is None:
        first_eruption = B.ERUPTION_IDS[0]
        sources = {cell for cell, (tile, _) in state.board.items() if tile >= first_eruption}
        d.sources = sources
    return sources


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
        tile_at, playable = d.tile_at, B.PLAYABLE
        tiles = [playable[i] for i in range(B.CELL_COUNT) if tile_at[i] >= 0]  # sorted, as PLAYABLE is
        if len(tiles) != len(board):  # a board set by hand with other cells
            tiles = sorted(board)
            if not flag:
                tiles = [cell for cell in tiles if board[cell][0] < B.ERUPTION_IDS[0]]
        elif not flag:
            first_eruption = B.ERUPTION_IDS[0]
            tiles = [playable[i] for i in range(B.CELL_COUNT) if 0 <= tile_at[i] < first_eruption]
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
    (Tarjan's low-link, by depth-first search from the root; the graph has at most 43 tiles), a
    property of the graph: the order of the search does not change them. On cell ids (derived.py)."""
    d = derived.of(state)
    lava_at, tile_at = d.lava_at, d.tile_at
    reach = B.REACH_BY_ID
    n = B.CELL_COUNT
    links: list[list[int]] = [_NO_LINKS] * n
    for i in range(n):
        mask = lava_at[i]
        if mask >= 0:
            links[i] = [m for m, bit in reach[i][mask] if lava_at[m] >= 0 and lava_at[m] & bit]
    sources = [i for i, bit in B.EXIT_ENDS_BY_ID if lava_at[i] >= 0 and lava_at[i] & bit]
    first_eruption = B.ERUPTION_IDS[0]
    sources += [i for i in range(n) if tile_at[i] >= first_eruption and lava_at[i] >= 0]
    roots = [False] * n
    for i in sources:
        roots[i] = True
    disc = [-1] * n
    count = [0]
    cut = [False] * n
    for i in sources:
        if disc[i] < 0:
            _visit(i, -1, links, roots, disc, count, cut)
    playable = B.PLAYABLE
    return {playable[i] for i in range(n) if cut[i]}


_NO_LINKS: Final[list[int]] = []


def _visit(u: int, parent: int, links: list[list[int]], roots: list[bool], disc: list[int], count: list[int],
           cut: list[bool]) -> int:
    """`_cut_tiles`' depth-first step from tile `u` (entered from `parent`, -1 for the root, whose
    discovery number is 0): the lowest discovery number reachable from `u`'s subtree."""
    count[0] += 1
    here = low = count[0]
    disc[u] = here
    if parent >= 0 and roots[u]:
        low = 0  # a back edge to the root
    for v in links[u]:
        if v == parent:
            continue
        seen = disc[v]
        if seen < 0:
            below = _visit(v, u, links, roots, disc, count, cut)
            if below >= here:
                cut[u] = True
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
