"""A greedy Kuhn poker policy from the seat's own card (the bots' "greedy"; MCTS uses it as prior)."""
from __future__ import annotations

import random

from . import rules as R
from .moves import Bet, Call, Check, Fold


def choose(st: R.KuhnState, seat: int, rng: random.Random):
    """Bet and call with the King, check and fold with the Jack, check and call with the Queen."""
    card = st.cards[seat]
    if R.facing_bet(st):
        return Fold() if card == "J" else Call()
    return Bet() if card == "K" else Check()


def evaluate(st: R.KuhnState, seat: int) -> float:
    """Win chance so far: 1 or 0 at the end, else the card's rank among three."""
    if st.phase == R.OVER:
        return 1.0 if R.winner(st) == seat else 0.0
    return R.RANKS.index(st.cards[seat]) / 2
