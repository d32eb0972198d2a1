"""The Kuhn poker state: the whole hand (two secret cards, the actions so far, the stakes)."""
from __future__ import annotations

import random
from typing import Any

BETTING, OVER = "betting", "over"  # phases


class KuhnState:
    __slots__ = ("seats", "options", "rng", "cards", "actions", "stakes", "turn", "phase", "folded")

    seats: int
    options: dict[str, Any]
    rng: random.Random
    cards: list[str]
    actions: list[str]  # "check", "bet", "call", "fold" in the order made
    stakes: list[int]  # chips each seat has put in
    turn: int  # the seat to act; -1 once the hand is over
    phase: str
    folded: int  # the seat that folded, -1 if none

    def clone(self) -> KuhnState:
        c = KuhnState.__new__(KuhnState)
        c.seats, c.options, c.cards, c.turn, c.phase, c.folded = (
            self.seats, self.options, list(self.cards), self.turn, self.phase, self.folded)
        c.actions, c.stakes = list(self.actions), list(self.stakes)
        c.rng = random.Random()
        c.rng.setstate(self.rng.getstate())
        return c
