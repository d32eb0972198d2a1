"""A bot is an ordinary gRPC client of a running server: it reads its own seat's view,
picks a move with a policy from engines.ai (random, greedy or ISMCTS) and sends it.

    python -m clients.bot --server 127.0.0.1:50051 --game pompeii --game-id ID --seat 0 --token T --policy mcts
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass, field

import grpc
import structlog

from engines.ai.policies import POLICIES, choose
from engines.registry import GAME_IDS

from .sdk import Client, Refused, SeatClient

log = structlog.get_logger("gameengine.bot")


@dataclass
class Bot:
    seat: SeatClient
    policy: str
    think_ms: float | None = None
    iterations: int | None = None
    rng: random.Random = field(default_factory=random.Random)
    refusals: int = 0
    max_refusals: int = 20

    def step(self) -> bool:
        """Make one move if it is this seat's decision. False when the game is over."""
        status, view = self.seat.view()
        if status.over:
            return False
        if not status.acts(self.seat.seat):
            return True
        legal = self.seat.legal()
        if not legal or self.seat.last.version != status.version:
            return True
        try:
            move = choose(self.policy, self.seat.client.game, view, self.seat.seat, status.seats, self.rng,
                          legal=legal, think_ms=self.think_ms, iterations=self.iterations)
            if move not in legal:  # a policy bug must not cost the game: fall back, loudly
                log.warning("policy_move_not_legal", policy=self.policy, move=repr(move))
                move = self.rng.choice(legal)
            self.seat.move(move, expected_version=status.version)
        except Refused as e:
            if e.code == grpc.StatusCode.ABORTED:
                return True  # someone moved first (an out-of-turn declaration); look again
            self.refusals += 1
            log.warning("move_refused", rule=e.rule, message=e.message, seat=self.seat.seat)
            if self.refusals >= self.max_refusals:
                raise RuntimeError(f"seat {self.seat.seat}: {self.refusals} refusals, last {e.rule}: {e.message}")
        return True

    def play(self) -> dict:
        while self.step():
            status = self.seat.last
            if status is not None and not status.acts(self.seat.seat):
                self.seat.wait()
        return self.seat.status().outcome


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m clients.bot", description=__doc__.split("\n\n")[0])
    p.add_argument("--server", default="127.0.0.1:50051")
    p.add_argument("--game", required=True)
    p.add_argument("--game-id", required=True)
    p.add_argument("--seat", type=int, required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--policy", default="mcts")
    p.add_argument("--think-ms", type=float, default=None, help="time budget per move (mcts)")
    p.add_argument("--iterations", type=int, default=None, help="iteration budget per move (mcts)")
    p.add_argument("--seed", type=int, default=None)
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.game not in GAME_IDS:
        print(f"unknown game {args.game!r}; choose from {', '.join(GAME_IDS)}", file=sys.stderr)
        return 2
    if args.policy not in POLICIES:
        print(f"unknown policy {args.policy!r}; choose from {', '.join(POLICIES)}", file=sys.stderr)
        return 2
    client = Client(args.server, args.game)
    think = args.think_ms if args.think_ms is not None or args.iterations else 100
    bot = Bot(client.seat(args.game_id, args.seat, args.token), args.policy, think, args.iterations,
              random.Random(args.seed))
    try:
        outcome = bot.play()
    except Refused as e:
        print(f"refused: {e.rule or e.code.name}: {e.message}", file=sys.stderr)
        return 1
    print(f"game over: {outcome}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
