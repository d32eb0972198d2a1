"""Eruption (Stratus Games, 2011), 2-6 players: rules engine. See docs/rules/eruption.md."""
from .game import GAME, EruptionEngine
from .moves import *  # noqa: F401,F403  (move classes are the public vocabulary)
from .moves import MOVES as MOVE_KINDS  # noqa: F401  (the old export name, read by the codec)

__all__ = ["GAME", "EruptionEngine"]
