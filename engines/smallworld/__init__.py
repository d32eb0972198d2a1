"""Small World (2-5 players) with the Necromancer Island scenario (3-6 seats): game id `smallworld`.

Rules: docs/rules/smallworld.md (ids SW-n, NEC-n, ED-n). Data: engines/smallworld/data/.
Modules: spec (the game as data), game (the engine), setup, state, moves, legality (a predicate per rule,
the move generator, CHECKS) with conquest (targets and costs), effects (EFFECTS), resolution (what moves
pieces), forces (who holds what), flow (turn flow as named steps), scoring, view, heuristic, data.
"""
from __future__ import annotations

from .game import SmallWorldEngine
from .moves import *  # noqa: F401,F403  (the move classes)
from .moves import MOVES
from .spec import SPEC  # noqa: F401

MOVE_KINDS = MOVES  # the old name, until the codec reads moves.MOVES
GAME = SmallWorldEngine()
