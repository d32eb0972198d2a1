"""Board queries: what the lava on the board links to, opens onto and flows into (ERU-19..24).

Pure functions of a state; the rules that use them are in legality.py, effects.py and flow.py.
"""
from __future__ import annotations

from functools import cache

from . import board as B


def constraints(state, space):
    """ERU-19: (lava_in, constrained) edge masks of `space` from its neighbours."""
    lava_in = B.VOLCANO_LAVA_IN[space]
    constrained = B.VOLCANO_CONSTRAINED[space]
    lava = state.lava
    for e, neighbour in enumerate(B.NEIGHBOUR_SPACE[space]):
        if neighbour is not None:
            mask = lava.get(neighbour)
            if mask is not None:
                constrained |= 1 << e
                if mask >> B.OPP[e] & 1:
                    lava_in |= 1 << e
    return lava_in, constrained


def open_ends(state):
    """ERU-23: empty space -> mask of its edges facing lava."""
    ends = {}
    board = state.board
    for _, e, space in B.EXITS:
        if space not in board:
            ends[space] = ends.get(space, 0) | 1 << B.OPP[e]
    for cell, mask in state.lava.items():
        neighbours = B.NEIGHBOUR_SPACE[cell]
        for e in B.EDGES_OF_MASK[mask]:
            neighbour = neighbours[e]
            if neighbour is not None and neighbour not in board:
                ends[neighbour] = ends.get(neighbour, 0) | 1 << B.OPP[e]
    return ends


def eruption_cells(state):
    """The cells holding an eruption tile (each a lava source, ERU-21)."""
    return {cell for cell, (tile, _) in state.board.items() if tile >= B.ERUPTION_IDS[0]}


def card_tiles(state):
    """ERU-66: the tiles Quake, Aftershock and Sinkhole may act on. Seed 002 names lava tiles (岩漿板塊),
    not eruption tiles (爆發板塊); `cards_act_on_eruption_tiles` lets them act on both."""
    if state.options["cards_act_on_eruption_tiles"]:
        return sorted(state.board)
    return sorted(cell for cell, (tile, _) in state.board.items() if tile < B.ERUPTION_IDS[0])


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


def _lava_links(lava):
    """Cell -> the cells its lava links to (both tiles show lava on the shared edge)."""
    links = {}
    for cell, mask in lava.items():
        neighbours = B.NEIGHBOUR_SPACE[cell]
        out = []
        for e in B.EDGES_OF_MASK[mask]:
            neighbour = neighbours[e]
            if neighbour is not None and lava.get(neighbour, 0) >> B.OPP[e] & 1:
                out.append(neighbour)
        links[cell] = out
    return links


def cut_tiles(state):
    """ERU-21: the tiles whose removal would cut another tile off from every source.

    Lava links form an undirected graph; join every source tile (exit tile or eruption
    tile) to one virtual root. The cut tiles are that graph's articulation points
    (Tarjan's low-link, iterative).
    """
    lava = state.lava
    root = None
    adj = {root: []}
    adj.update(_lava_links(lava))
    sources = {space for _, e, space in B.EXITS if lava.get(space, 0) >> B.OPP[e] & 1} | eruption_cells(state)
    for cell in sources:
        adj[root].append(cell)
        adj[cell].append(root)
    disc = {root: 0}
    low = {root: 0}
    cut = set()
    todo = [(root, None, iter(adj[root]))]
    while todo:
        u, parent, it = todo[-1]
        for v in it:
            if v == parent:
                continue
            if v in disc:
                if disc[v] < low[u]:
                    low[u] = disc[v]
            else:
                disc[v] = low[v] = len(disc)
                todo.append((v, u, iter(adj[v])))
                break
        else:
            todo.pop()
            if parent is not None or todo:
                if low[u] < low[parent]:
                    low[parent] = low[u]
                if parent is not None and low[u] >= disc[parent]:
                    cut.add(parent)
    return cut


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
