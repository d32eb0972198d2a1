"""A greedy Kuhn poker policy from the seat's own card (the bots' "greedy"; MCTS uses it as prior)."""
from __future__ import annotations

import random

from engines.core import Move

from .legality import facing_bet
from .moves import Bet, Call, Check, Fold
from .scoring import winner
from .setup import RANKS
from .state import OVER, KuhnState


def choose(state: KuhnState, seat: int, rng: random.Random) -> Move:
    """Bet and call with the King, check and fold with the Jack, check and call with the Queen."""
    card = state.cards[seat]
    if facing_bet(state):
        return Fold() if card == "J" else Call()
    return Bet() if card == "K" else Check()


def evaluate(state: KuhnState, seat: int) -> float:
    """Win chance so far: 1 or 0 at the end, else the card's rank among three."""
    if state.phase == OVER:
        return 1.0 if winner(state) == seat else 0.0
    return RANKS.index(state.cards[seat]) / 2
