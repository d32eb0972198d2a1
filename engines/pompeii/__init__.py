"""The Downfall of Pompeii (game id "pompeii"): rules in docs/rules/pompeii.md."""
from __future__ import annotations

from .game import PompeiiEngine
from .moves import (
                    MOVE_KINDS,
                    MOVES,
                    DeclareEruption,
                    MovePerson,
                    OmenTarget,
                    Pass,
                    PlaceLava,
                    PlaceRelative,
                    PlayCard,
                    StopRelatives,
)
from .spec import SPEC
from .state import PompeiiState

__all__ = ["GAME", "PompeiiEngine", "PompeiiState", "SPEC", "MOVES", "MOVE_KINDS", "PlayCard", "PlaceRelative",
           "StopRelatives", "OmenTarget", "DeclareEruption", "PlaceLava", "MovePerson", "Pass"]

GAME = PompeiiEngine()
