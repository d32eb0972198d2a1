"""What the board implies, worked out once per board: the open ends with their constraints (ERU-19,
ERU-23), the spaces an eruption tile may go (ERU-63), the tiles the cards act on (ERU-66) and the cut
tiles (ERU-21).

Most moves leave the board as it is (walls, cards, the steps of a turn), yet the move generator, the
checks and the heuristic all ask these questions of it. A state keeps the last answer in
`state.derived`; it holds while the board and lava equal the copies it was made from (a dict comparison
in C, far cheaper than the scans), so clones share it and a board edited by hand is never misread.

The answers are kept in lists indexed by cell id (a space's index in `board.PLAYABLE`, which is sorted):
a placement updates the few ids around it, and the lists the generator walks (the open ends in order,
their wall positions, a dict of them) are made only when first asked for that board.
"""
from __future__ import annotations

from typing import Any

from . import board as B
from .board import Cell, Position


class Derived:
    """The answers for one board; the lazily filled ones are pure functions of that board too."""

    __slots__ = ("board", "lava", "filled", "tile_at", "lava_at", "ends_at", "constrained_at", "spot_at", "spots",
                 "end_positions", "ends", "eruption_spaces", "card_tiles", "sources", "cut",
                 "aftershock", "turns", "threats", "placements", "moves", "board_stamp", "lava_stamp", "owner")

    def __init__(self, board: dict[Cell, tuple[int, int]], lava: dict[Cell, int], filled: list[bool],
                 tile_at: list[int], lava_at: list[int], ends_at: list[int], constrained_at: list[int],
                 spot_at: list[Spot | None]):
        self.board = dict(board)
        self.lava = dict(lava)
        # by cell id: a tile there (a key of the board), its tile id (-1: none), its lava mask (-1: none), the
        # edges of an empty space facing lava (ERU-23: an open end when not 0), and facing a tile or the
        # volcano (ERU-19)
        self.filled = filled
        self.tile_at = tile_at
        self.lava_at = lava_at
        self.ends_at = ends_at
        self.constrained_at = constrained_at
        self.spot_at = spot_at  # by cell id: the open end's `_spot`, or None
        # made when first asked (`spots`, `end_positions`, `ends`)
        self.spots: list[Spot] | None = None
        self.end_positions: list[Position] | None = None
        self.ends: dict[Cell, int] | None = None
        # filled when first asked (legality.py, geometry.py); card answers by `cards_act_on_eruption_tiles`
        self.eruption_spaces: list[Cell] | None = None
        self.card_tiles: dict[bool, list[Cell]] = {}
        self.sources: set[Cell] | None = None  # the eruption tiles' cells
        self.cut: set[Cell] | None = None
        self.aftershock: dict[bool, list[Any]] = {}  # PlayAftershock moves
        self.turns: dict[Cell, list[Any]] = {}  # tile -> its PlayAftershock moves, kept where unchanged
        self.placements: dict[int, list[Any]] = {}  # lava tile -> its PlaceTile moves (legality.py)
        self.moves: dict[Any, Any] = {}  # the other move lists generator.py makes of this board, by its key
        self.threats: dict[int, int] | None = None  # village -> open ends on its entries (heuristic.py)
        # of the board and lava they hold for (`of`)
        self.board_stamp: int | None = None
        self.lava_stamp: int | None = None
        # The board dict of the one state these answers serve, or None once shared (a clone, the root of
        # a search): its owner's next placement updates them in place instead of copying them.
        self.owner: object | None = None

    def forget(self) -> None:
        """Drops the answers made from the lists: the board they were worked out for has changed."""
        self.spots = None
        self.end_positions = None
        self.ends = None
        self.eruption_spaces = None
        if self.card_tiles:
            self.card_tiles = {}
        self.sources = None
        self.cut = None
        if self.aftershock:
            self.aftershock = {}
        if self.placements:
            self.placements = {}
        if self.moves:
            self.moves = {}
        self.threats = None


# An open end as (space, lava_in, constrained, lava_in << 6 | constrained, its wall positions, its id,
# its wall positions' ids). A tuple of any length on purpose (see board.Cell): mypyc keeps a fixed-length
# tuple type unboxed, so every list of spots read or built would unpack and box each spot anew.
Spot = tuple[Any, ...]


def _spot(i: int, lava_in: int, constrained: int) -> Spot:
    return (B.PLAYABLE[i], lava_in, constrained, lava_in << 6 | constrained, B.END_POSITIONS_BY_ID[i][lava_in], i,
            B.END_POSITION_IDS_BY_ID[i][lava_in])


def spots(d: Derived) -> list[Spot]:
    """Every open end's `_spot`, in the order of the spaces."""
    out = d.spots
    if out is None:
        out = d.spots = [spot for spot in d.spot_at if spot is not None]
    return out


def end_positions(d: Derived) -> list[Position]:
    """The wall positions of every open end (ERU-90), space by space."""
    out = d.end_positions
    if out is None:
        out = d.end_positions = [position for spot in spots(d) for position in spot[4]]
    return out


def ends(d: Derived) -> dict[Cell, int]:
    """Open end -> its edges facing lava (ERU-23), as a dict (not to be changed)."""
    out = d.ends
    if out is None:
        out = d.ends = {spot[0]: spot[1] for spot in spots(d)}
    return out


def constrained(d: Derived) -> dict[Cell, int]:
    """Open end -> its edges facing a tile or the volcano (ERU-19)."""
    return {spot[0]: spot[2] for spot in spots(d)}


def of(state: Any) -> Derived:
    """The state's board answers, made anew when its board changed since they were made: around the
    changed cells when they are few (a tile placed, turned, replaced or removed), else from scratch.
    Boards that are `state.Cells` say by their stamps whether they changed; others are compared."""
    d: Derived | None = state.derived
    board, lava = state.board, state.lava
    board_stamp: int | None = getattr(board, "stamp", None)
    lava_stamp: int | None = getattr(lava, "stamp", None)
    if (d is not None and board_stamp is not None and lava_stamp is not None
            and d.board_stamp == board_stamp and d.lava_stamp == lava_stamp):
        return d
    new = _updated(d, state, board, lava)
    if new is not d:
        new.owner = board
    state.derived = new
    new.board_stamp, new.lava_stamp = board_stamp, lava_stamp
    return new


def share(d: Derived | None) -> None:
    """Marks answers that more than one state holds: a placement then copies them rather than update them."""
    if d is not None:
        d.owner = None


def _updated(d: Derived | None, state: Any, board: dict[Cell, tuple[int, int]], lava: dict[Cell, int]) -> Derived:
    if d is None:
        return made(board, lava)
    placed = _stamped_placement(d, board, lava)
    if placed is not None:
        return after_placing(d, state, placed)
    if d.board == board and d.lava == lava:
        return d
    placed = _placed(d, board, lava)
    if placed is not None:
        return after_placing(d, state, placed)
    changed = {cell for cell, _ in d.lava.items() ^ lava.items()}
    changed.update(cell for cell, _ in d.board.items() ^ board.items())
    if len(changed) == 1 and not d.board.keys() >= changed and board.keys() >= changed:
        return after_placing(d, state, *changed)
    if len(changed) <= 3 and all(cell in B.CELL_ID for cell in changed):
        return around(d, state, changed)
    return made(board, lava)


def _stamped_placement(d: Derived, board: dict[Cell, tuple[int, int]], lava: dict[Cell, int]) -> Cell | None:
    """The space a tile was put on when the one change to board and lava since `d`'s stamps added it."""
    board_added = getattr(board, "added", None)
    lava_added = getattr(lava, "added", None)
    if board_added is None or lava_added is None or d.board_stamp is None or d.lava_stamp is None:
        return None
    if (board_added[0] == d.board_stamp and lava_added[0] == d.lava_stamp
            and board_added[1] == lava_added[1]):
        cell: Cell = board_added[1]
        return cell
    return None


def _placed(d: Derived, board: dict[Cell, tuple[int, int]], lava: dict[Cell, int]) -> Cell | None:
    """The space a tile was put on when that is all that differs from `d`'s board, else None
    (the commonest change, found without building the boards' item sets)."""
    if len(board) != len(d.board) + 1 or len(lava) != len(d.lava) + 1:
        return None
    added = board.keys() - d.board.keys()
    if len(added) != 1 or lava.keys() - d.lava.keys() != added:
        return None
    if d.board.items() <= board.items() and d.lava.items() <= lava.items():
        return next(iter(added))
    return None


def made(board: dict[Cell, tuple[int, int]], lava: dict[Cell, int]) -> Derived:
    n = B.CELL_COUNT
    filled = [False] * n
    tile_at = [-1] * n
    lava_at = [-1] * n
    ids = B.CELL_ID
    for cell, value in board.items():
        i = ids.get(cell)
        if i is not None:
            filled[i] = True
            tile_at[i] = value[0]
    for cell, mask in lava.items():
        lava_at[ids[cell]] = mask
    ends_at = [0] * n
    constrained_at = [0] * n
    spot_at: list[Spot | None] = [None] * n
    for i in range(n):
        if not filled[i]:
            lava_in = _lava_in(lava_at, i)
            if lava_in:
                ends_at[i] = lava_in
                constrained_at[i] = c = _constrained(lava_at, i)
                spot_at[i] = _spot(i, lava_in, c)
    return Derived(board, lava, filled, tile_at, lava_at, ends_at, constrained_at, spot_at)


def _copy(before: Derived, board: dict[Cell, tuple[int, int]], lava: dict[Cell, int]) -> Derived:
    """A copy of `before`'s lists and kept turns, for a board that differs from its board."""
    d = Derived(board, lava, before.filled[:], before.tile_at[:], before.lava_at[:], before.ends_at[:],
                before.constrained_at[:], before.spot_at[:])
    d.turns = dict(before.turns)
    return d


def around(before: Derived, state: Any, changed: set[Cell]) -> Derived:
    """The answers for the state's board from those for a board that differs from it only on `changed`:
    open ends, constraints and a tile's turns change only on those cells and their neighbours."""
    board, lava = state.board, state.lava
    mine = before.owner is board
    d = before if mine else _copy(before, board, lava)
    filled, lava_at, ends_at, constrained_at, spot_at = d.filled, d.lava_at, d.ends_at, d.constrained_at, d.spot_at
    near: set[int] = set()
    for cell in changed:
        i = B.CELL_ID[cell]
        value = board.get(cell)
        filled[i] = value is not None
        d.tile_at[i] = -1 if value is None else value[0]
        mask = lava.get(cell)
        lava_at[i] = -1 if mask is None else mask
        near.add(i)
        for _, n, _ in B.LINKS_BY_ID[i]:
            near.add(n)
    for i in near:
        lava_in = 0 if filled[i] else _lava_in(lava_at, i)
        ends_at[i] = lava_in
        if lava_in:
            constrained_at[i] = c = _constrained(lava_at, i)
            spot_at[i] = _spot(i, lava_in, c)
        else:
            constrained_at[i] = 0
            spot_at[i] = None
    turns = d.turns
    for i in near:
        turns.pop(B.PLAYABLE[i], None)
    if not mine:
        return d
    for snapshot, cells in ((before.board, board), (before.lava, lava)):
        for cell in changed:
            if cell in cells:
                snapshot[cell] = cells[cell]
            else:
                snapshot.pop(cell, None)
    before.forget()
    return before


def after_placing(before: Derived, state: Any, space: Cell) -> Derived:
    """`around` for the commonest change, a tile put on empty `space`: it closes that open end,
    opens those its lava faces, and constrains the open ends beside it on one more edge. Answers
    only this state holds are updated in place (no copies of the board, open ends and turns)."""
    board, lava = state.board, state.lava
    mine = before.owner is board
    d = before if mine else _copy(before, board, lava)
    filled, lava_at, ends_at, constrained_at, spot_at = d.filled, d.lava_at, d.ends_at, d.constrained_at, d.spot_at
    i = B.CELL_ID[space]
    mask: int = lava[space]
    filled[i] = True
    d.tile_at[i] = board[space][0]
    lava_at[i] = mask
    ends_at[i] = 0
    constrained_at[i] = 0
    spot_at[i] = None
    for n, bit in B.REACH_BY_ID[i][mask]:  # the spaces its lava opens or widens (`bit` faces it)
        if not filled[n]:
            lava_in = ends_at[n]
            c = constrained_at[n] | bit if lava_in else _constrained(lava_at, n)
            ends_at[n] = lava_in = lava_in | bit
            constrained_at[n] = c
            spot_at[n] = _spot(n, lava_in, c)
    turns = d.turns
    playable = B.PLAYABLE
    for _, n, facing in B.LINKS_BY_ID[i]:  # the open ends beside it, now constrained on that edge
        turns.pop(playable[n], None)
        lava_in = ends_at[n]
        if lava_in:
            c = constrained_at[n]
            if not c >> facing & 1:
                constrained_at[n] = c = c | 1 << facing
                spot_at[n] = _spot(n, lava_in, c)
    if not mine:
        return d
    before.board[space] = board[space]
    before.lava[space] = mask
    before.forget()
    return before


def _lava_in(lava_at: list[int], i: int) -> int:
    """ERU-19: the edges of space `i` facing lava (an exit or a neighbour's lava edge)."""
    lava_in = B.VOLCANO_LAVA_IN_BY_ID[i]
    for bit, n, facing in B.LINKS_BY_ID[i]:
        mask = lava_at[n]
        if mask >= 0 and mask >> facing & 1:
            lava_in |= bit
    return lava_in


def _constrained(lava_at: list[int], i: int) -> int:
    """ERU-19: the edges of space `i` facing the volcano or a tile."""
    constrained = B.VOLCANO_CONSTRAINED_BY_ID[i]
    for bit, n, _ in B.LINKS_BY_ID[i]:
        if lava_at[n] >= 0:
            constrained |= bit
    return constrained


def constraints_at(d: Derived, i: int) -> tuple[int, int]:
    """ERU-19: (lava_in, constrained) of space `i` on `d`'s board (`geometry.constraints`)."""
    lava_at = d.lava_at
    lava_in = B.VOLCANO_LAVA_IN_BY_ID[i]
    constrained = B.VOLCANO_CONSTRAINED_BY_ID[i]
    for bit, n, facing in B.LINKS_BY_ID[i]:
        mask = lava_at[n]
        if mask >= 0:
            constrained |= bit
            if mask >> facing & 1:
                lava_in |= bit
    return lava_in, constrained


def open_ends(board: dict[Cell, tuple[int, int]], lava: dict[Cell, int]) -> dict[Cell, int]:
    """ERU-23: empty space -> mask of its edges facing lava."""
    return dict(ends(made(board, lava)))
