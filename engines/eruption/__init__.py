"""Eruption (Stratus Games, 2011), 2-6 players: rules engine. See docs/rules/eruption.md."""
from .game import GAME, EruptionGame
from .moves import *  # noqa: F401,F403  (move classes are the public vocabulary)
from .moves import MOVE_TYPES as MOVE_KINDS  # noqa: F401  (the name every engine exports)

__all__ = ["GAME", "EruptionGame"]
