"""Kuhn poker scoring (KP-7): who wins the pot, and the net chips as the outcome."""
from __future__ import annotations

from engines.core import Outcome, rank_by

from .setup import RANKS
from .state import OVER, KuhnState


def winner(state: KuhnState) -> int:
    """KP-7: the other seat after a fold, else the higher card."""
    if state.folded >= 0:
        return 1 - state.folded
    return max(range(2), key=lambda s: RANKS.index(state.cards[s]))


def chips(state: KuhnState) -> list[int]:
    """Net chips per seat: what the loser staked goes to the winner (KP-7)."""
    if state.phase != OVER:
        return [0, 0]
    won = winner(state)
    return [state.stakes[1 - won] if s == won else -state.stakes[s] for s in range(2)]


def outcome(state: KuhnState) -> Outcome:
    net = chips(state)
    ranks, winners = rank_by(net)
    return Outcome(scores=tuple(float(c) for c in net), ranks=ranks, winners=winners)
