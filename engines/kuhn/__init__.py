"""Kuhn poker (game id "kuhn"), the template game: the whole engine contract in one small package,
in the one shape every engine has (README "Adding a game"; rules in docs/rules/kuhn.md, KP-n).

spec.py the game as data; moves.py the move kinds; state.py the slotted state and its phases;
setup.py options and the deal; legality.py one predicate per rule and the checks table;
effects.py the effects table; flow.py the turn flow as named steps; scoring.py the outcome;
view.py what a seat may know and determinize; heuristic.py the greedy bot and MCTS prior;
game.py the Engine subclass that declares them; data/ the game's facts.
"""
from __future__ import annotations

from .game import KuhnEngine
from .moves import MOVE_KINDS, MOVES, Bet, Call, Check, Fold
from .spec import SPEC
from .state import KuhnState

__all__ = ["GAME", "KuhnEngine", "KuhnState", "SPEC", "MOVES", "MOVE_KINDS", "Bet", "Call", "Check", "Fold"]

GAME = KuhnEngine()
