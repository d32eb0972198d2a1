"""Kuhn poker effects: one function per move kind, then the turn flow (flow.py) goes on."""
from __future__ import annotations

from collections.abc import Callable

from engines.core import Event, Move, advance

from .flow import FLOW
from .moves import Bet, Call, Check, Fold
from .setup import BET
from .state import KuhnState


def acted(state: KuhnState, seat: int, move: Move, events: list[Event]) -> None:
    action = type(move).__name__.lower()
    state.actions.append(action)
    events.append(Event("acted", {"seat": seat, "action": action}))


def check(state: KuhnState, seat: int, move: Move, events: list[Event]) -> None:
    acted(state, seat, move, events)
    advance(FLOW, state, events, "showdown" if len(state.actions) == 2 else "next_seat")  # check, check: KP-7


def bet(state: KuhnState, seat: int, move: Move, events: list[Event]) -> None:
    acted(state, seat, move, events)
    state.stakes[seat] += BET
    advance(FLOW, state, events, "next_seat")


def call(state: KuhnState, seat: int, move: Move, events: list[Event]) -> None:
    acted(state, seat, move, events)
    state.stakes[seat] += BET
    advance(FLOW, state, events, "showdown")


def fold(state: KuhnState, seat: int, move: Move, events: list[Event]) -> None:
    acted(state, seat, move, events)
    state.folded = seat
    advance(FLOW, state, events, "pot")


Effect = Callable[[KuhnState, int, Move, list[Event]], None]
EFFECTS: dict[type, Effect] = {Check: check, Bet: bet, Call: call, Fold: fold}
