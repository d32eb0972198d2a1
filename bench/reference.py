"""A pure-Python reference loop run beside the engine figures, so figures from different machines
(or one machine under different load) compare as ratios: random tic-tac-toe games, the same loop shape
as `engines.core.play_random` (legal moves as a list, `rng.choice`, apply, end test).

    python -m bench.reference        # decisions per second on this core, now
"""
from __future__ import annotations

import random
import time

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def winner(board: list[int]) -> int:
    for a, b, c in LINES:
        if board[a] and board[a] == board[b] == board[c]:
            return board[a]
    return 0


def play(rng: random.Random) -> int:
    """One uniformly random game; returns the number of decisions made."""
    board = [0] * 9
    player, decisions = 1, 0
    while True:
        legal = [i for i in range(9) if not board[i]]
        if not legal or winner(board):
            return decisions
        board[rng.choice(legal)] = player
        player = 3 - player
        decisions += 1


def decisions_per_s(seconds: float, seed: int = 0) -> float:
    """Decisions per second of this thread's CPU time (other processes' load does not count)."""
    rng = random.Random(seed)
    decisions, t0 = 0, time.thread_time()
    while time.thread_time() - t0 < seconds:
        decisions += play(rng)
    return decisions / (time.thread_time() - t0)


if __name__ == "__main__":
    print(f"reference (random tic-tac-toe): {decisions_per_s(3.0):.0f} decisions/s")
