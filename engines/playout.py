"""The per-move path every engine shares, compiled in the mypyc build (engines/native.py): the base
`Engine`'s `apply`/`play` as one native call (`MovePath`) and `play_random`, the random playout.

Interpreted, `Engine.apply` -> `check` -> the kind's check -> its effect were three Python frames per
move, and `play_random`'s two `Random.choice` calls three more each (choice, `_randbelow`, ...): about
a third of a compiled Citadels decision in the bench loop (bench/notes/core.md).
"""
from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from engines.draws import choice
from engines.event import Event

Step = Callable[[Any, list[Event]], "str | None"]  # (state, events): the next step's name, None to wait
Check = Callable[[Any, Any, Any], None]  # (state, seat, move): raise IllegalMove citing the rule
Effect = Callable[[Any, Any, Any, list[Event]], None]  # (state, seat, move, events)


def advance(flow: Mapping[str, Step], state: Any, events: list[Event], step: str | None) -> None:
    """Run turn-flow steps from `step` until one returns None (the game waits for a seat). Compiled with
    the per-move path: in Citadels four moves in ten of a random playout end a step, and an interpreted
    loop here cost more than most steps."""
    while step is not None:
        step = flow[step](state, events)


class MovePath:
    """An engine's `apply` and `play` over its tables (`Engine.__init__` binds them to the engine).
    `seat` stays untyped: `check_seat` refuses a seat that is not an int, with its rule id."""

    def __init__(self, check_seat: Check, checks: Mapping[type, Check], effects: Mapping[type, Effect]) -> None:
        self.check_seat = check_seat
        self.checks = checks
        self.effects = effects

    def apply(self, state: object, seat: Any, move: object) -> list[Event]:
        """The seat check, the move kind's check, then its effect (`Engine.apply`)."""
        self.check_seat(state, seat, move)
        kind = type(move)
        self.checks[kind](state, seat, move)
        events: list[Event] = []
        self.effects[kind](state, seat, move, events)
        return events

    def play(self, state: object, seat: Any, move: object) -> list[Event]:
        """The effect of a move just taken from `legal_moves`, without the checks (`Engine.play`)."""
        events: list[Event] = []
        self.effects[type(move)](state, seat, move, events)
        return events


def play_random(game: Any, state: object, rng: random.Random, max_moves: int = 100_000) -> list[tuple[int, Any]]:
    """Play uniformly random legal moves to the end; returns the (seat, move) log. The draws are
    `rng.choice`'s, the seat's then the move's (engines.draws): seeded games replay unchanged."""
    is_over, seats_to_act, legal_moves, apply = game.is_over, game.seats_to_act, game.legal_moves, game.apply
    log: list[tuple[int, Any]] = []
    for _ in range(max_moves):
        if is_over(state):
            return log
        seat = choice(rng, seats_to_act(state))
        move = choice(rng, legal_moves(state, seat))
        apply(state, seat, move)
        log.append((seat, move))
    raise RuntimeError(f"{game.game_id}: no end after {max_moves} moves")
