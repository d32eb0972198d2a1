"""Eruption moves: one NamedTuple per kind. Cells are (x, y) tuples, edges 0..5.

Cards are named by kind ("rain", "quake", ...): cards of one kind are identical.
"""
from __future__ import annotations

from typing import NamedTuple

from engines.core import distinct_move_kinds


class PlaceEruption(NamedTuple):
    """ERU-62: place held eruption tile `number` (1..3) on `cell`."""
    number: int
    cell: tuple


class PlaceTile(NamedTuple):
    """ERU-72/73: place the drawn lava tile `tile` on `cell` in orientation `rotation`."""
    tile: int
    cell: tuple
    rotation: int


class DrawExtraTile(NamedTuple):
    """ERU-42(c): take the optional zone-3 extra placement."""


class EndPlacement(NamedTuple):
    """ERU-42(c): decline the zone-3 extra placement."""


class PlayLavaFlow(NamedTuple):
    """ERU-116."""


class PlayReinforce(NamedTuple):
    """ERU-117: build a wall of `material` from the stockpile on (cell, edge)."""
    material: str
    cell: tuple
    edge: int


class PlayRelocate(NamedTuple):
    """ERU-118: steps is a tuple of (from_cell, from_edge, to_cell, to_edge), done in order."""
    steps: tuple


class PlayAftershock(NamedTuple):
    """ERU-119: turn the tile on `cell` to orientation `rotation` (a different one)."""
    cell: tuple
    rotation: int


class PlayRain(NamedTuple):
    """ERU-120."""


class PlaySinkhole(NamedTuple):
    """ERU-121: remove the tile on `cell`."""
    cell: tuple


class PlayVolcanicBomb(NamedTuple):
    """ERU-122: remove the wall on (cell, edge)."""
    cell: tuple
    edge: int


class PlayQuake(NamedTuple):
    """ERU-123 step 1: draw a tile to replace one on the board."""


class QuakeReplace(NamedTuple):
    """ERU-123 step 2: the quake tile `tile` replaces the tile on `cell` in `rotation`."""
    tile: int
    cell: tuple
    rotation: int


class DiscardForWall(NamedTuple):
    """ERU-113: discard one card for a wall of its material."""
    card: str


class DiscardForTile(NamedTuple):
    """ERU-113: discard two cards (sorted kinds) for a placement action."""
    cards: tuple


class DiscardSurplus(NamedTuple):
    """ERU-114: discard a card with no effect while over the hand limit."""
    card: str


class EndCards(NamedTuple):
    """ERU-43/114: end the cards step (hand at most 3)."""


class BuildWall(NamedTuple):
    """ERU-92: build a wall of `material` from the stockpile on (cell, edge)."""
    material: str
    cell: tuple
    edge: int


class EndTurn(NamedTuple):
    """ERU-44/45: end the walls step and the turn."""


MOVES = (
    PlaceEruption, PlaceTile, DrawExtraTile, EndPlacement, PlayLavaFlow, PlayReinforce,
    PlayRelocate, PlayAftershock, PlayRain, PlaySinkhole, PlayVolcanicBomb, PlayQuake,
    QuakeReplace, DiscardForWall, DiscardForTile, DiscardSurplus, EndCards, BuildWall, EndTurn,
)


distinct_move_kinds(*MOVES)
