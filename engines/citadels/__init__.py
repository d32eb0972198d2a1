"""Citadels (classic base game, 2-7 players) rules engine. See docs/rules/citadels.md."""
from __future__ import annotations

from .game import CitadelsEngine
from .moves import MOVE_KINDS, MOVES
from .spec import SPEC
from .state import CitadelsState

__all__ = ["GAME", "CitadelsEngine", "CitadelsState", "SPEC", "MOVES", "MOVE_KINDS"]

GAME = CitadelsEngine()
