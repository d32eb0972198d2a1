"""What the board implies, worked out once per board: the open ends with their constraints (ERU-19,
ERU-23), the spaces an eruption tile may go (ERU-63), the tiles the cards act on (ERU-66) and the cut
tiles (ERU-21).

Most moves leave the board as it is (walls, cards, the steps of a turn), yet the move generator, the
checks and the heuristic all ask these questions of it. A state keeps the last answer in
`state.derived`; it holds while the board and lava equal the copies it was made from (a dict comparison
in C, far cheaper than the scans), so clones share it and a board edited by hand is never misread.
"""
from __future__ import annotations

from bisect import insort
from typing import Any

from . import board as B
from .board import Cell, Position


class Derived:
    """The answers for one board; the lazily filled ones are pure functions of that board too."""

    __slots__ = ("board", "lava", "ends", "constrained", "spots", "end_positions", "eruption_spaces",
                 "card_tiles", "cut", "aftershock", "turns", "threats", "placements", "moves",
                 "stamps", "owner")

    def __init__(self, board: dict[Cell, tuple[int, int]], lava: dict[Cell, int],
                 ends: dict[Cell, int], constrained: dict[Cell, int], spots: list[Spot] | None = None):
        self.board = dict(board)
        self.lava = dict(lava)
        self.ends = ends  # open end -> its edges facing lava (ERU-23)
        self.constrained = constrained  # open end -> its edges facing a tile or the volcano (ERU-19)
        if spots is None:
            spots = _spots(ends, constrained)
        self.spots = spots  # every open end's `_spot`, by space
        self.end_positions = _end_positions(spots)
        # filled when first asked (legality.py, geometry.py); card answers by `cards_act_on_eruption_tiles`
        self.eruption_spaces: list[Cell] | None = None
        self.card_tiles: dict[bool, list[Cell]] = {}
        self.cut: set[Cell] | None = None
        self.aftershock: dict[bool, list[Any]] = {}  # PlayAftershock moves
        self.turns: dict[Cell, list[Any]] = {}  # tile -> its PlayAftershock moves, kept where unchanged
        self.placements: dict[int, list[Any]] = {}  # lava tile -> its PlaceTile moves (legality.py)
        self.moves: dict[Any, Any] = {}  # the other move lists generator.py makes of this board, by its key
        self.threats: dict[int, int] | None = None  # village -> open ends on its entries (heuristic.py)
        self.stamps: tuple[int | None, int | None] = (None, None)  # of the board and lava they hold for (`of`)
        # The board dict of the one state these answers serve, or None once shared (a clone, the root of
        # a search): its owner's next placement updates them in place instead of copying them.
        self.owner: object | None = None

    def forget(self) -> None:
        """Drops the lazily filled answers: the board they were worked out for has changed."""
        self.eruption_spaces = None
        self.card_tiles = {}
        self.cut = None
        self.aftershock = {}
        self.placements = {}
        self.moves = {}
        self.threats = None


Spot = tuple[Cell, int, int, int, tuple[Position, ...]]  # its wall positions boxed (see board.Cell)


def _spots(ends: dict[Cell, int], constrained: dict[Cell, int]) -> list[Spot]:
    return [_spot(space, lava_in, constrained[space]) for space, lava_in in sorted(ends.items())]


def _spot(space: Cell, lava_in: int, constrained: int) -> Spot:
    """An open end as (space, lava_in, constrained, lava_in << 6 | constrained, its wall positions)."""
    return space, lava_in, constrained, lava_in << 6 | constrained, B.END_POSITIONS[space][lava_in]


def of(state: Any) -> Derived:
    """The state's board answers, made anew when its board changed since they were made: around the
    changed cells when they are few (a tile placed, turned, replaced or removed), else from scratch.
    Boards that are `state.Cells` say by their stamps whether they changed; others are compared."""
    d: Derived | None = state.derived
    board, lava = state.board, state.lava
    stamps = (getattr(board, "stamp", None), getattr(lava, "stamp", None))
    if d is not None and d.stamps == stamps and None not in stamps:
        return d
    new = _updated(d, state, board, lava)
    if new is not d:
        new.owner = board
    state.derived = new
    new.stamps = stamps
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
    if len(changed) <= 3:
        return around(d, state, changed)
    return made(board, lava)


def _stamped_placement(d: Derived, board: dict[Cell, tuple[int, int]], lava: dict[Cell, int]) -> Cell | None:
    """The space a tile was put on when the one change to board and lava since `d`'s stamps added it."""
    board_added = getattr(board, "added", None)
    lava_added = getattr(lava, "added", None)
    if board_added is None or lava_added is None or None in d.stamps:
        return None
    if (board_added[0], lava_added[0]) == d.stamps and board_added[1] == lava_added[1]:
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
    ends = open_ends(board, lava)
    return Derived(board, lava, ends, {space: constrained_edges(lava, space) for space in ends})


def around(before: Derived, state: Any, changed: set[Cell]) -> Derived:
    """The answers for the state's board from those for a board that differs from it only on `changed`:
    open ends, constraints and a tile's turns change only on those cells and their neighbours."""
    board, lava = state.board, state.lava
    mine = before.owner is board
    if mine:
        ends, constrained, turns = before.ends, before.constrained, before.turns
    else:
        ends, constrained, turns = dict(before.ends), dict(before.constrained), dict(before.turns)
    near = set(changed)
    for cell in changed:
        near.update(n for _, n, _ in B.NEIGHBOUR_LINKS[cell])
    for space in near:
        lava_in = 0 if space in board else _lava_in(lava, space)
        if lava_in:
            ends[space] = lava_in
            constrained[space] = constrained_edges(lava, space)
        else:
            ends.pop(space, None)
            constrained.pop(space, None)
    for cell in near:
        turns.pop(cell, None)
    if not mine:
        d = Derived(board, lava, ends, constrained)
        d.turns = turns
        return d
    for snapshot, cells in ((before.board, board), (before.lava, lava)):
        for cell in changed:
            if cell in cells:
                snapshot[cell] = cells[cell]
            else:
                snapshot.pop(cell, None)
    before.spots = _spots(ends, constrained)
    before.end_positions = _end_positions(before.spots)
    before.forget()
    return before


def after_placing(before: Derived, state: Any, space: Cell) -> Derived:
    """`around` for the commonest change, a tile put on empty `space`: it closes that open end,
    opens those its lava faces, and constrains the open ends beside it on one more edge. Answers
    only this state holds are updated in place (no copies of the board, open ends and turns)."""
    board, lava = state.board, state.lava
    mine = before.owner is board
    if mine:
        ends, constrained, turns = before.ends, before.constrained, before.turns
    else:
        ends, constrained, turns = dict(before.ends), dict(before.constrained), dict(before.turns)
    ends.pop(space, None)
    constrained.pop(space, None)
    touched = {space}  # the spaces whose spot changes
    for neighbour, bit in B.LAVA_REACH[space][lava[space]]:
        if neighbour not in board:
            ends[neighbour] = ends.get(neighbour, 0) | bit
            touched.add(neighbour)
    for _, neighbour, facing in B.NEIGHBOUR_LINKS[space]:
        turns.pop(neighbour, None)
        if neighbour in ends:
            c = constrained.get(neighbour)
            constrained[neighbour] = constrained_edges(lava, neighbour) if c is None else c | 1 << facing
            touched.add(neighbour)
    spots = [spot for spot in before.spots if spot[0] not in touched]
    for cell in touched:
        if cell in ends:
            insort(spots, _spot(cell, ends[cell], constrained[cell]), key=_space_of)
    if not mine:
        d = Derived(board, lava, ends, constrained, spots)
        d.turns = turns
        return d
    before.board[space] = board[space]
    before.lava[space] = lava[space]
    before.spots = spots
    before.end_positions = _end_positions(spots)
    before.forget()
    return before


def _end_positions(spots: list[Spot]) -> list[Position]:
    return [position for spot in spots for position in spot[4]]


def _space_of(spot: Spot) -> Cell:
    return spot[0]


def _lava_in(lava: dict[Cell, int], space: Cell) -> int:
    """ERU-19: the edges of `space` facing lava (an exit or a neighbour's lava edge)."""
    lava_in = B.VOLCANO_LAVA_IN[space]
    for bit, neighbour, facing in B.NEIGHBOUR_LINKS[space]:
        if lava.get(neighbour, 0) >> facing & 1:
            lava_in |= bit
    return lava_in


def open_ends(board: dict[Cell, tuple[int, int]], lava: dict[Cell, int]) -> dict[Cell, int]:
    """ERU-23: empty space -> mask of its edges facing lava."""
    ends: dict[Cell, int] = {}
    for space, bit in B.EXIT_ENDS:
        if space not in board:
            ends[space] = ends.get(space, 0) | bit
    reach = B.LAVA_REACH
    for cell, mask in lava.items():
        for neighbour, bit in reach[cell][mask]:
            if neighbour not in board:
                ends[neighbour] = ends.get(neighbour, 0) | bit
    return ends


def constrained_edges(lava: dict[Cell, int], space: Cell) -> int:
    """ERU-19: the edges of `space` facing the volcano or a tile."""
    constrained = B.VOLCANO_CONSTRAINED[space]
    for bit, neighbour, _ in B.NEIGHBOUR_LINKS[space]:
        if neighbour in lava:
            constrained |= bit
    return constrained
