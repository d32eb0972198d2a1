"""Kuhn poker legality: one predicate per rule, used by both `legal_moves` and the checks table."""
from __future__ import annotations

from collections.abc import Callable

from engines.core import IllegalMove, Move

from .moves import MOVES, Bet, Call, Check, Fold
from .state import OVER, KuhnState


def facing_bet(state: KuhnState) -> bool:
    return "bet" in state.actions


def may_open(state: KuhnState) -> bool:
    """KP-5: check or bet while nobody has bet."""
    return not facing_bet(state)


def may_answer(state: KuhnState) -> bool:
    """KP-6: call or fold a bet."""
    return facing_bet(state)


def check_seat(state: KuhnState, seat: int, move: Move) -> None:
    """KP-7: nothing after the hand; KP-5: only the seat to act, only Kuhn poker moves."""
    if state.phase == OVER:
        raise IllegalMove("KP-7", "The hand is over.")
    if seat != state.turn:
        raise IllegalMove("KP-5", f"It is seat {state.turn}'s turn.")
    if type(move) not in CHECKS:
        raise IllegalMove("KP-5", "Not a Kuhn poker move.")


def check_opening(state: KuhnState, seat: int, move: Move) -> None:
    if not may_open(state):
        raise IllegalMove("KP-5", "There is a bet to call or fold.")


def check_answer(state: KuhnState, seat: int, move: Move) -> None:
    if not may_answer(state):
        raise IllegalMove("KP-6", "There is no bet to answer.")


Rule = Callable[[KuhnState, int, Move], None]
CHECKS: dict[type, Rule] = {Check: check_opening, Bet: check_opening, Call: check_answer, Fold: check_answer}
ALLOWED = {Check: may_open, Bet: may_open, Call: may_answer, Fold: may_answer}  # what the generator asks


def seats_to_act(state: KuhnState) -> list[int]:
    return [] if state.phase == OVER else [state.turn]


def legal_moves(state: KuhnState, seat: int) -> list[Move]:
    if state.phase == OVER or seat != state.turn:
        return []
    return [kind() for kind in MOVES if ALLOWED[kind](state)]
