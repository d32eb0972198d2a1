"""Actions of POM-91, one NamedTuple per kind. Squares are (row, col) tuples.

Equality and hashing include the class, so StopRelatives() != Pass() and
moves of different kinds never collide as MCTS keys.
"""
from __future__ import annotations

from typing import NamedTuple

from engines.core import distinct_move_kinds

Square = tuple[int, int]


class PlayCard(NamedTuple):
    """POM-21/22/37: play a card of `number`; `square` is where the person goes (None = nothing placed).

    With `wild_card_moves_existing` a wild card moves one's own person from `origin` to `square`;
    origin None and square None declines the move.
    """

    number: int
    square: Square | None = None
    origin: Square | None = None


class PlaceRelative(NamedTuple):
    """POM-35: put one relative on a free slot of `square`."""

    square: Square


class StopRelatives(NamedTuple):
    """POM-35: give up the remaining relatives."""


class OmenTarget(NamedTuple):
    """POM-31: send one of `seat`'s people on `square` to the volcano."""

    square: Square
    seat: int


class DeclareEruption(NamedTuple):
    """POM-51: a seat whose whole hand is wild ends phase 1 (any seat, any phase-1 decision)."""


class PlaceLava(NamedTuple):
    """POM-62: put the drawn tile on `square`; `symbol` names the chosen symbol of a dual-vent tile, else ""."""

    square: Square
    symbol: str = ""


class MovePerson(NamedTuple):
    """POM-71..73: move one person from `origin` to `target`; target None = leave through a gate."""

    origin: Square
    target: Square | None = None


class Pass(NamedTuple):
    """POM-75: a move of zero steps."""


MOVES = (PlayCard, PlaceRelative, StopRelatives, OmenTarget, DeclareEruption, PlaceLava, MovePerson, Pass)
MOVE_KINDS = MOVES  # the old name, until the generic codec lands

distinct_move_kinds(*MOVES)
